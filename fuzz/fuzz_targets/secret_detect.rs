//! The secret detector (REQ-SEC-023, REQ-PRIV-002). Invariants: findings
//! are in order, do not overlap and lie inside the text (positions in
//! Unicode scalar values); finding is deterministic; a text with zero-width
//! spaces slipped in after its letters and digits holds the same kinds of
//! credential (the detector reads through invisible characters); a masked
//! text holds no credential, keeps the text outside the findings, and
//! names each finding's kind. A credential stays found (by the decoding
//! check) when any of its characters is percent-encoded, once or twice, and
//! a text masked with the decoding check's findings holds no credential in
//! any decoded form.
#![no_main]

use libfuzzer_sys::fuzz_target;

mod common;
use common::encode_at;
use rypsok_core::fuzzing::{
    SecretFinding, find_decoded_secrets, find_secrets, mask_decoded_secrets, mask_secrets,
};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let findings = find_secrets(&text);
    assert_eq!(findings, find_secrets(&text));
    let chars = text.chars().count();
    let mut end = 0;
    for f in &findings {
        assert!(f.len > 0 && f.position >= end, "{findings:?}");
        end = f.position + f.len;
        assert!(end <= chars, "{findings:?}");
    }

    let spaced: String = text
        .chars()
        .flat_map(|c| {
            let zwsp = c.is_ascii_alphanumeric().then_some('\u{200B}');
            std::iter::once(c).chain(zwsp)
        })
        .collect();
    let kinds = |fs: &[SecretFinding]| fs.iter().map(|f| f.kind).collect::<Vec<_>>();
    assert_eq!(
        kinds(&find_secrets(&spaced)),
        kinds(&findings),
        "{spaced:?}"
    );

    let masked = mask_secrets(&text);
    assert!(find_secrets(&masked).is_empty(), "{masked:?}");
    for f in &findings {
        assert!(masked.contains(&format!("[{}]", f.kind)));
    }
    // Masking also covers what the text shows in a decoded form (a `+`
    // read as a space): only a text with neither is left as it is.
    if findings.is_empty() && find_decoded_secrets(&text).is_empty() {
        assert_eq!(masked, text);
    }

    // Decoded forms: every finding as written is found again with one of
    // its characters (picked by the input's length) percent-encoded, and
    // encoded twice. A text that already holds `%` or `+` decodes
    // differently around the token, so it is left to the masking check.
    assert!(find_decoded_secrets(&text).len() >= findings.len().min(1));
    if !text.contains(['%', '+']) {
        for f in &findings {
            let at = f.position + data.len() % f.len;
            let encoded = encode_at(&text, at);
            let again = find_decoded_secrets(&encoded);
            assert!(
                again
                    .iter()
                    .any(|g| g.position <= at && at < g.position + g.len),
                "{encoded:?}"
            );
            let twice = encoded.replace('%', "%25");
            assert!(!find_decoded_secrets(&twice).is_empty(), "{twice:?}");
        }
    }
    let masked = mask_decoded_secrets(&text);
    assert!(find_decoded_secrets(&masked).is_empty(), "{masked:?}");
});
