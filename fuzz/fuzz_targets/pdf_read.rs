//! PDF documents under the LIM-F15 bounds (REQ-SEC-023, REQ-PAGE-008): any
//! bytes end in text, a reason it cannot be read, or a failure, never a
//! panic or a hang; reading is deterministic; text has a letter or digit
//! and opens with the first page's marker; a title is bounded.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rypsok_worker_parse::pdf::{PdfResult, is_pdf, read_pdf};

fuzz_target!(|data: &[u8]| {
    let _ = is_pdf(Some("application/octet-stream"), data);
    let first = read_pdf(data);
    assert_eq!(first, read_pdf(data), "reading is deterministic");
    if let PdfResult::Text {
        title, markdown, ..
    } = first
    {
        assert!(markdown.starts_with("Page 1"), "{markdown:?}");
        assert!(markdown.chars().any(char::is_alphanumeric));
        assert!(title.is_none_or(|t| t.chars().count() <= 300));
    }
});
