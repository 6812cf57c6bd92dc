//! The content boundary cleaners (REQ-SEC-023, REQ-CTX-004, REQ-SEC-015):
//! markup removal and entity decoding, invisible characters, bounds. The
//! first byte picks the bound, the rest is text. Invariants: the result is
//! within its bound in Unicode scalar values and ends in an ellipsis
//! exactly when cut; it has no control or invisible format characters, no
//! space at its ends or doubled, and is NFC; cleaning the result again
//! changes nothing and removes nothing. The document cleaner keeps only
//! `\n` and `\t` of the controls, never cuts, and is idempotent too. A
//! tag cut short at the end of a provider text (`<` and the first letters
//! of a tag name) is markup: appending one to a text without markup leaves
//! the cleaned text as it was.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rypsok_core::fuzzing::{clean_decoded_text, clean_document_text, clean_markup_text};

fn invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{061C}'
            | '\u{200B}'
            | '\u{200E}'
            | '\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{206F}'
            | '\u{FEFF}'
            | '\u{FFF9}'..='\u{FFFB}'
            | '\u{E0000}'..='\u{E007F}'
    )
}

fn check_line(text: &str, truncated: bool, max: usize, input: &str) {
    let n = text.chars().count();
    assert!(n <= max, "{n} > {max}");
    assert!(!truncated || text.ends_with('\u{2026}'), "{text:?}");
    assert!(
        !text.chars().any(|c| c.is_control() || invisible(c)),
        "{text:?}"
    );
    assert!(
        !text.chars().any(|c| c.is_whitespace() && c != ' '),
        "{text:?}"
    );
    assert_eq!(text, text.trim_matches(' '), "{text:?}");
    assert!(!text.contains("  "), "{text:?}");
    assert!(unicode_normalization::is_nfc(text), "{input:?} -> {text:?}");
    let again = clean_decoded_text(text, max);
    assert_eq!(
        (&again.0, again.1, again.2),
        (&text.to_owned(), false, 0),
        "{input:?}"
    );
}

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let max = usize::from(first) + 1;
    let input = String::from_utf8_lossy(rest);

    let (text, truncated, _) = clean_markup_text(&input, max);
    check_line(&text, truncated, max, &input);
    if truncated {
        assert!(text.ends_with('\u{2026}'));
    }
    if !input.contains(['<', '>', '&']) {
        let plain = clean_markup_text(&input, max);
        for cut in ["<s", "<str", "</", "</stro", "<a href=\"x"] {
            let with_cut = clean_markup_text(&format!("{input}{cut}"), max);
            assert_eq!(with_cut, plain, "{input:?} + {cut:?}");
        }
    }
    let (text, truncated, _) = clean_decoded_text(&input, max);
    check_line(&text, truncated, max, &input);
    if !truncated {
        // Nothing cut: a larger bound gives the same text.
        assert_eq!(clean_decoded_text(&input, max + 100).0, text);
    }

    let (doc, truncated, _) = clean_document_text(&input);
    assert!(!truncated);
    assert!(
        !doc.chars()
            .any(|c| (c.is_control() && c != '\n' && c != '\t') || invisible(c)),
        "{doc:?}"
    );
    assert!(unicode_normalization::is_nfc(&doc), "{input:?} -> {doc:?}");
    let again = clean_document_text(&doc);
    assert_eq!((&again.0, again.1, again.2), (&doc, false, 0), "{input:?}");
});
