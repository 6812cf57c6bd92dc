//! The secret detector (REQ-SEC-023, REQ-PRIV-002). Invariants: findings
//! are in order, do not overlap and lie inside the text (positions in
//! Unicode scalar values); finding is deterministic; a text with zero-width
//! spaces slipped in after its letters and digits holds the same kinds of
//! credential (the detector reads through invisible characters); a masked
//! text holds no credential, keeps the text outside the findings, and
//! names each finding's kind.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rypsok_core::secret::{find, mask};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let findings = find(&text);
    assert_eq!(findings, find(&text));
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
    let kinds = |fs: &[rypsok_core::secret::Finding]| fs.iter().map(|f| f.kind).collect::<Vec<_>>();
    assert_eq!(kinds(&find(&spaced)), kinds(&findings), "{spaced:?}");

    let masked = mask(&text, &findings);
    assert!(find(&masked).is_empty(), "{masked:?}");
    for f in &findings {
        assert!(masked.contains(&format!("[{}]", f.kind.as_str())));
    }
    if findings.is_empty() {
        assert_eq!(masked, text);
    }
});
