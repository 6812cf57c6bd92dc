//! The PDF reader on the documents `tests/data/pdf/make.py` writes
//! (PROVENANCE.md there).

use super::*;

fn data(name: &str) -> Vec<u8> {
    let path = format!("{}/../tests/data/pdf/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(path).unwrap()
}

fn text(name: &str) -> (Option<String>, String, bool) {
    match read_pdf(&data(name)) {
        PdfResult::Text {
            title,
            markdown,
            partial,
        } => (title, markdown, partial),
        other => panic!("{name}: {other:?}"),
    }
}

#[test]
// Verifies: REQ-FETCH-002 (PDF read when declared, or sniffed under a generic binary type)
fn knows_a_pdf_by_its_type_or_its_signature() {
    let pdf = b"%PDF-1.7\n";
    assert!(is_pdf(Some("application/pdf"), b"<html>"));
    assert!(is_pdf(Some("Application/PDF; name=x.pdf"), pdf));
    assert!(is_pdf(Some("application/octet-stream"), pdf));
    assert!(is_pdf(Some("binary/octet-stream"), b"\r\n %PDF-1.4"));
    assert!(is_pdf(None, pdf));
    assert!(!is_pdf(Some("application/octet-stream"), b"PK\x03\x04"));
    assert!(!is_pdf(Some("text/html"), pdf));
    assert!(!is_pdf(Some("image/png"), pdf));
}

#[test]
// Verifies: REQ-FETCH-002 (every sentence in order, the metadata title, page markers)
fn reads_a_two_page_document_in_order_with_its_title() {
    let (title, markdown, partial) = text("two-page.pdf");
    assert_eq!(title.as_deref(), Some("Two Page Field Report"));
    assert!(!partial);
    let expected = [
        "Page 1",
        "Field Report",
        "The first sentence opens the report and names its subject plainly.",
        "A second sentence follows on the same line and continues the thought.",
        "Measurements were taken every morning at the northern station.",
        "Page 2",
        "The results agree with the earlier survey within the stated error.",
        "Readers who need the raw figures will find them in the appendix.",
        "Nothing in this section depends on the calibration described later.",
    ];
    let mut at = 0;
    for sentence in expected {
        let found = markdown[at..].find(sentence);
        assert!(
            found.is_some(),
            "{sentence:?} not after {at} in {markdown:?}"
        );
        at += found.unwrap_or_default() + sentence.len();
    }
}

#[test]
// Verifies: REQ-FETCH-002 (non-Latin scripts, ligatures and hyphenation)
fn reads_greek_cyrillic_ligatures_and_joins_a_hyphenated_word() {
    let (_, markdown, _) = text("scripts.pdf");
    assert!(markdown.contains("η γρήγορη καφέ αλεπού"), "{markdown}");
    assert!(markdown.contains("съешь же ещё этих мягких булок"));
    assert!(markdown.contains("fine flow office afford"));
    assert!(
        markdown.contains("the experiment was repeated"),
        "{markdown}"
    );
}

#[test]
// Verifies: REQ-FETCH-002 (headers and footers repeated on every page dropped)
fn drops_the_running_head_and_foot_of_every_page() {
    let (_, markdown, _) = text("running-heads.pdf");
    assert!(
        !markdown.contains("Journal of Repeated Headers"),
        "{markdown}"
    );
    assert!(!markdown.contains("do not cite"));
    assert!(markdown.contains("Body text of page 3."));
}

#[test]
// Verifies: REQ-FETCH-002 (tables, footnotes and two columns keep their words)
fn keeps_table_cells_footnotes_and_both_columns() {
    let (_, markdown, _) = text("table-footnote.pdf");
    for word in [
        "Station",
        "North",
        "7.25",
        "Footnote: readings are in metres",
    ] {
        assert!(markdown.contains(word), "{word} in {markdown}");
    }
    let (_, markdown, _) = text("two-columns.pdf");
    let left = markdown.find("Left column text");
    let right = markdown.find("Right column text");
    assert!(
        left.is_some() && right.is_some() && left < right,
        "{markdown}"
    );
}

#[test]
// Verifies: REQ-PAGE-006 (a PDF without a text layer is extraction_failed, saying so)
fn says_an_image_only_document_has_no_text_layer() {
    assert_eq!(
        read_pdf(&data("image-only.pdf")),
        PdfResult::Unreadable(Unreadable::NoTextLayer)
    );
}

#[test]
// Verifies: REQ-FETCH-002 (an encrypted PDF that needs a password is refused, saying so)
fn refuses_a_document_encrypted_with_a_password() {
    assert_eq!(
        read_pdf(&data("hostile-encrypted.pdf")),
        PdfResult::Unreadable(Unreadable::Encrypted)
    );
}

#[test]
// Verifies: REQ-PAGE-008 (LIM-F15: an inflation bomb stops at the content bound)
fn stops_an_inflation_bomb_at_the_stream_bound() {
    let started = Instant::now();
    let result = read_pdf(&data("hostile-bomb.pdf"));
    assert!(
        matches!(
            result,
            PdfResult::Failed | PdfResult::Text { partial: true, .. }
        ),
        "{result:?}"
    );
    assert!(started.elapsed().as_millis() < u128::from(PDF_MAX_READ_MS) * 2);
}

#[test]
// Verifies: REQ-PAGE-008 (LIM-F15: a page tree that points at itself and very deep nesting end)
fn answers_a_self_referencing_page_tree_and_deep_nesting() {
    for name in ["hostile-self-tree.pdf", "hostile-deep.pdf"] {
        let result = read_pdf(&data(name));
        assert!(
            matches!(
                result,
                PdfResult::Failed | PdfResult::Text { .. } | PdfResult::Unreadable(_)
            ),
            "{name}"
        );
    }
}

#[test]
// Verifies: REQ-PAGE-008 (bytes that are not a PDF are extraction_failed, never a panic)
fn fails_cleanly_on_bytes_that_are_not_a_pdf() {
    assert_eq!(read_pdf(b"%PDF-1.7\ngarbage"), PdfResult::Failed);
    assert_eq!(read_pdf(b""), PdfResult::Failed);
    let mut cut = data("two-page.pdf");
    cut.truncate(cut.len() / 2);
    let _ = read_pdf(&cut);
}

#[test]
// Verifies: REQ-FETCH-002 (metadata titles in UTF-16 and PDFDocEncoding)
fn decodes_title_strings() {
    assert_eq!(decode_text_string(b"\xfe\xff\x00A\x03\xb1"), "Aα");
    assert_eq!(decode_text_string(b"Caf\xe9"), "Café");
}
