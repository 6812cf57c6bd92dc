//! PDF documents through the real binary and its confined parser workers
//! (REQ-FETCH-002, REQ-PAGE-008; LIM-F14, LIM-F15): the documents are the
//! ones `tests/data/pdf/make.py` writes (PROVENANCE.md there).

use serde_json::{Value, json};

use super::{Page, Site, error_reason, fetch, started};

fn data(name: &str) -> Vec<u8> {
    let path = format!("{}/data/pdf/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(path).expect("a committed test document")
}

fn url(site: &Site, path: &str) -> Value {
    json!(format!("http://site0.test:{}{path}", site.port()))
}

const TWO_PAGE_SENTENCES: [&str; 7] = [
    "Page 1",
    "The first sentence opens the report and names its subject plainly.",
    "Measurements were taken every morning at the northern station.",
    "Page 2",
    "The results agree with the earlier survey within the stated error.",
    "Readers who need the raw figures will find them in the appendix.",
    "Nothing in this section depends on the calibration described later.",
];

fn assert_in_order(content: &str, sentences: &[&str]) {
    let mut at = 0;
    for sentence in sentences {
        let Some(found) = content[at..].find(sentence) else {
            panic!("{sentence:?} not found after {at} in {content:?}");
        };
        at += found + sentence.len();
    }
}

// Verifies: REQ-FETCH-002 (a PDF, declared or served as octet-stream, comes back in order with its title)
#[test]
fn reads_a_two_page_pdf_in_order_with_its_title_whatever_binary_type_it_is_served_as() {
    let site = Site::start();
    site.page(
        "/report.pdf",
        Page::new(200, "application/pdf", data("two-page.pdf")),
    );
    site.page(
        "/download",
        Page::new(200, "application/octet-stream", data("two-page.pdf")),
    );
    let mut server = started(&[&site], "");
    for path in ["/report.pdf", "/download"] {
        let ok = fetch(&mut server, json!({ "url": url(&site, path) }));
        assert_eq!(ok["outcome"], "ok", "{path}: {ok}");
        assert_eq!(ok["title"], "Two Page Field Report", "{path}");
        assert_in_order(
            ok["content"].as_str().unwrap_or_default(),
            &TWO_PAGE_SENTENCES,
        );
    }
    let accept = site
        .headers_of("/report.pdf")
        .into_iter()
        .find(|(n, _)| n == "accept")
        .map(|(_, v)| v)
        .unwrap_or_default();
    let html = accept.find("text/html");
    let pdf = accept.find("application/pdf");
    assert!(html.is_some() && pdf.is_some() && html < pdf, "{accept}");
}

// Verifies: REQ-FETCH-005 (a thirty-page PDF pages through windows to its last line)
#[test]
fn pages_through_a_thirty_page_pdf_to_its_last_line() {
    let site = Site::start();
    site.page(
        "/long.pdf",
        Page::new(200, "application/pdf", data("thirty-page.pdf")),
    );
    let mut server = started(&[&site], "");
    let mut whole = String::new();
    let mut start = 0;
    let mut windows = 0;
    loop {
        let ok = fetch(
            &mut server,
            json!({ "url": url(&site, "/long.pdf"), "max_chars": 2000, "start_char": start }),
        );
        assert_eq!(ok["outcome"], "ok", "{ok}");
        whole.push_str(ok["content"].as_str().unwrap_or_default());
        windows += 1;
        if ok["truncated"] == false {
            break;
        }
        start = ok["next_start_char"].as_u64().unwrap_or_default();
    }
    assert!(windows > 5, "{windows} windows");
    assert_in_order(
        &whole,
        &[
            "Section 1 begins here.",
            "Page 15",
            "Section 15 begins here.",
            "Page 30",
            "This is the closing line of section 30.",
        ],
    );
    assert!(
        whole
            .trim_end()
            .ends_with("This is the closing line of section 30.")
    );
}

// Verifies: REQ-PAGE-006 (an image-only PDF is extraction_failed, saying it has no text layer)
#[test]
fn an_image_only_pdf_is_extraction_failed_saying_it_has_no_text_layer() {
    let site = Site::start();
    site.page(
        "/scan.pdf",
        Page::new(200, "application/pdf", data("image-only.pdf")),
    );
    site.page(
        "/locked.pdf",
        Page::new(200, "application/pdf", data("hostile-encrypted.pdf")),
    );
    let mut server = started(&[&site], "");
    let answer = fetch(&mut server, json!({ "url": url(&site, "/scan.pdf") }));
    assert_eq!(
        error_reason(&answer),
        "unsupported_content:extraction_failed",
        "{answer}"
    );
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("no text layer"), "{message}");
    let answer = fetch(&mut server, json!({ "url": url(&site, "/locked.pdf") }));
    assert_eq!(
        error_reason(&answer),
        "unsupported_content:extraction_failed",
        "{answer}"
    );
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("encrypted"), "{message}");
}

// Verifies: REQ-PAGE-008 (an inflation bomb, a self-referencing page tree and deep nesting each get a contract answer in time; the next PDF is read)
#[test]
fn hostile_pdfs_get_a_contract_answer_in_time_and_the_next_pdf_is_read() {
    let site = Site::start();
    for name in [
        "hostile-bomb.pdf",
        "hostile-self-tree.pdf",
        "hostile-deep.pdf",
    ] {
        site.page(
            &format!("/{name}"),
            Page::new(200, "application/pdf", data(name)),
        );
    }
    site.page(
        "/report.pdf",
        Page::new(200, "application/pdf", data("two-page.pdf")),
    );
    let mut server = started(&[&site], "");
    for name in [
        "hostile-bomb.pdf",
        "hostile-self-tree.pdf",
        "hostile-deep.pdf",
    ] {
        // `fetch` checks the call ended within LIM-F5.
        let answer = fetch(
            &mut server,
            json!({ "url": url(&site, &format!("/{name}")) }),
        );
        let reason = error_reason(&answer);
        assert!(
            answer["outcome"] == "ok"
                || reason == "unsupported_content:extraction_failed"
                || reason == "unavailable:deadline",
            "{name}: {answer}"
        );
        let ok = fetch(&mut server, json!({ "url": url(&site, "/report.pdf") }));
        assert_eq!(ok["outcome"], "ok", "after {name}: {ok}");
        assert_in_order(
            ok["content"].as_str().unwrap_or_default(),
            &TWO_PAGE_SENTENCES,
        );
    }
}
