//! The PDF reader on the documents `tests/data/pdf/make.py` writes
//! (PROVENANCE.md there).

use std::time::Instant;

use lopdf::{Stream, dictionary};

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

/// A document of two pages in Helvetica: the first says `first`, the
/// second shows `words` strings of `second`, each its own operator.
fn slow_second_page(first: &str, second: &str, words: usize) -> Vec<u8> {
    let mut doc = Document::with_version("1.5");
    let pages_id = doc.new_object_id();
    let font = doc.add_object(dictionary! {
        "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica",
    });
    let resources = doc.add_object(dictionary! { "Font" => dictionary! { "F1" => font } });
    let page = |doc: &mut Document, content: String| {
        let content = doc.add_object(Stream::new(dictionary! {}, content.into_bytes()));
        doc.add_object(dictionary! {
            "Type" => "Page", "Parent" => pages_id, "Contents" => content,
            "Resources" => resources, "MediaBox" => vec![0.into(), 0.into(), 595.into(), 842.into()],
        })
    };
    let one = page(&mut doc, format!("BT /F1 12 Tf 72 700 Td ({first}) Tj ET"));
    let mut slow = String::from("BT /F1 12 Tf 72 700 Td\n");
    for _ in 0..words {
        slow.push_str(&format!("({second} ) Tj\n"));
    }
    slow.push_str("ET");
    let two = page(&mut doc, slow);
    doc.objects.insert(
        pages_id,
        Object::Dictionary(dictionary! {
            "Type" => "Pages", "Kids" => vec![one.into(), two.into()], "Count" => 2,
        }),
    );
    let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    doc.trailer.set("Root", catalog);
    let mut out = Vec::new();
    doc.save_to(&mut out).unwrap();
    out
}

#[test]
// Verifies: REQ-PAGE-008 (LIM-F15: CPU time per document is bounded inside a page, not only between pages)
fn stops_inside_a_slow_page_when_the_cpu_budget_is_spent() {
    // A second page of 300,000 operators takes the reader far longer
    // than the budget (seconds); the first page is read in a millisecond.
    // The budget counts this thread's CPU time, so a loaded machine does
    // not change which side of it each page falls.
    let body = slow_second_page("First page sentence.", "slow", 300_000);
    let PdfResult::Text {
        markdown, partial, ..
    } = read_pdf_within(&body, Duration::from_millis(200))
    else {
        panic!("no text");
    };
    assert!(partial);
    assert!(markdown.contains("First page sentence."), "{markdown:.200}");
    let shown = markdown.matches("slow").count();
    assert!(shown < 300_000, "{shown} of the slow page's words");
    // Within the budget, the same kind of page is read whole.
    let small = slow_second_page("First page sentence.", "slow", 1000);
    let PdfResult::Text {
        markdown, partial, ..
    } = read_pdf_within(&small, Duration::from_millis(200))
    else {
        panic!("no text");
    };
    assert!(!partial);
    assert_eq!(markdown.matches("slow").count(), 1000);
}

fn real(name: &str) -> Vec<u8> {
    data(&format!("real/{name}"))
}

#[test]
// Verifies: REQ-FETCH-002 (real-world PDFs of several producers, one and two columns, a table, Arabic, read in order)
fn reads_real_documents_of_several_producers() {
    let rows: &[(&str, &[&str])] = &[
        (
            "sf-minimal-document.pdf",
            &["Lorem ipsum dolor sit amet, consetetur sadipscing elitr"],
        ),
        (
            "sf-002-trivial-libre-office-writer.pdf",
            &["At vero eos et accusam et justo duo dolores et ea rebum."],
        ),
        (
            "sf-pdflatex-4-pages.pdf",
            &["Hello, here is some text without a meaning.", "Page 4"],
        ),
        (
            "sf-pdflatex-outline.pdf",
            &["1 Foo Hello, here is some text without a meaning."],
        ),
        (
            "sf-google-doc-document.pdf",
            &["Beautiful is better than ugly. Explicit is better than implicit."],
        ),
        (
            "sf-libreoffice-form.pdf",
            &["Example for a Form", "First Name Last Name Birthday"],
        ),
        ("sf-habibi.pdf", &["حَبيبي habibi"]),
        (
            "sf-crazyones-pdfa.pdf",
            &["The misfits. The rebels. The troublemakers."],
        ),
        (
            "sf-multicolumn.pdf",
            &[
                "This is a sample document with two columns",
                "Lorem ipsum dolor sit amet",
            ],
        ),
        (
            "pdfrs-pdf-sample.pdf",
            &["Portable Document Format (PDF) is a universal file format"],
        ),
        (
            "pdfrs-xelatex.pdf",
            &["For one processor, the number of grid elements to be sent is"],
        ),
        ("pdfrs-encrypted_aes_128.pdf", &["Hello World!"]),
        (
            // Three columns with numbered footnotes under them.
            "pdfplumber-federal-register-2020-17221.pdf",
            &[
                "Investigation of the accident has been completed by the Indonesian authorities",
                "The flight control system for 737 MAX airplanes",
                "The angle of attack (or AOA) is the angle",
            ],
        ),
    ];
    for (name, phrases) in rows {
        let PdfResult::Text { markdown, .. } = read_pdf(&real(name)) else {
            panic!("{name}: no text");
        };
        for phrase in *phrases {
            assert!(
                markdown.contains(phrase),
                "{name}: {phrase:?} not in {markdown:.600}"
            );
        }
    }
    // Encrypted with a user password: refused, saying so.
    assert_eq!(
        read_pdf(&real("pdfrs-passwords_aes_128.pdf")),
        PdfResult::Unreadable(Unreadable::Encrypted)
    );
}

#[test]
// Verifies: REQ-PAGE-008 (files that crashed or hung other PDF readers get a contract answer)
fn answers_every_file_of_a_reader_bug_corpus() {
    let dir = format!(
        "{}/../tests/data/pdf/real/hostile",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut seen = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let body = std::fs::read(&path).unwrap();
        // Any of the answers, and never a panic: Text (partial or not),
        // Unreadable or Failed all map to a contract answer.
        let result = read_pdf(&body);
        if let PdfResult::Text { markdown, .. } = &result {
            assert!(markdown.starts_with("Page 1"), "{path:?}");
        }
        seen += 1;
    }
    assert_eq!(seen, 12);
}

/// One page that draws form `Fm1`, which shows `text` and then draws
/// itself (a cycle the walk must bound).
fn page_with_form(text: &str) -> Vec<u8> {
    let mut doc = Document::with_version("1.5");
    let pages_id = doc.new_object_id();
    let font = doc.add_object(dictionary! {
        "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica",
    });
    let form_id = doc.new_object_id();
    let form = Stream::new(
        dictionary! {
            "Type" => "XObject", "Subtype" => "Form",
            "BBox" => vec![0.into(), 0.into(), 595.into(), 842.into()],
            "Matrix" => vec![1.into(), 0.into(), 0.into(), 1.into(), 0.into(), (-20).into()],
            "Resources" => dictionary! {
                "Font" => dictionary! { "F9" => font },
                "XObject" => dictionary! { "Fm1" => form_id },
            },
        },
        format!("BT /F9 12 Tf 72 700 Td ({text}) Tj ET /Fm1 Do").into_bytes(),
    );
    doc.objects.insert(form_id, Object::Stream(form));
    let content = doc.add_object(Stream::new(
        dictionary! {},
        b"q /Fm1 Do Q BT /F9 12 Tf 72 600 Td (After the form.) Tj ET".to_vec(),
    ));
    let page = doc.add_object(dictionary! {
        "Type" => "Page", "Parent" => pages_id, "Contents" => content,
        "Resources" => dictionary! {
            "Font" => dictionary! { "F9" => font },
            "XObject" => dictionary! { "Fm1" => form_id },
        },
        "MediaBox" => vec![0.into(), 0.into(), 595.into(), 842.into()],
    });
    doc.objects.insert(
        pages_id,
        Object::Dictionary(
            dictionary! { "Type" => "Pages", "Kids" => vec![page.into()], "Count" => 1 },
        ),
    );
    let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    doc.trailer.set("Root", catalog);
    let mut out = Vec::new();
    doc.save_to(&mut out).unwrap();
    out
}

#[test]
// Verifies: REQ-FETCH-002, REQ-PAGE-008 (text drawn through a form XObject is read; a form that draws itself is bounded)
fn reads_text_drawn_through_a_form_and_bounds_a_form_that_draws_itself() {
    let PdfResult::Text { markdown, .. } = read_pdf(&page_with_form("Drawn inside a form.")) else {
        panic!("no text");
    };
    assert!(markdown.contains("Drawn inside a form."), "{markdown}");
    assert!(markdown.contains("After the form."), "{markdown}");
    // The cycle is cut at the form depth bound: a few copies, not endless.
    let copies = markdown.matches("Drawn inside a form.").count();
    assert!((1..=8).contains(&copies), "{copies}");
}
