//! HTML to Markdown under the LIM-F12 bounds (REQ-SEC-023, REQ-PAGE-008).
//! The bounded parse is run with small bounds the fuzzer can reach: the
//! attached tree never holds more nodes or deeper nodes than allowed, and a
//! tree at the bound says it was cut. The whole reading (sniffing, charset,
//! parse at the real bounds, extraction, Markdown) is deterministic, keeps
//! its media type within bounds, and a page it returns has content.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rypsok_worker_parse::fuzzing::dom_shape;
use rypsok_worker_parse::page::{MEDIA_TYPE_MAX, PageInput, PageResult, read_page};

const MAX_NODES: usize = 64;
const MAX_DEPTH: u32 = 12;

fuzz_target!(|data: &[u8]| {
    let html = String::from_utf8_lossy(data);
    for scripting in [false, true] {
        let shape = dom_shape(&html, scripting, MAX_NODES, MAX_DEPTH);
        // The document node plus at most MAX_NODES attached below it.
        assert!(shape.attached <= MAX_NODES + 1, "{shape:?}");
        assert!(shape.depth <= MAX_DEPTH, "{shape:?}");
    }

    let input = PageInput {
        body: data,
        content_type: Some("text/html"),
        url: "https://example.org/a/b.html",
    };
    let first = read_page(&input);
    assert_eq!(first, read_page(&input), "reading is deterministic");
    match first {
        PageResult::Page(page) => {
            assert!(page.markdown.chars().any(char::is_alphanumeric));
        }
        PageResult::Unsupported { media_type } => assert!(media_type.len() <= MEDIA_TYPE_MAX),
        PageResult::NoContent | PageResult::NeedsScripts => {}
    }
});
