//! Charset detection and decoding (REQ-SEC-023, REQ-PAGE-007). The input
//! is split into a `Content-Type` value and a body. Invariants: the text is
//! exactly the chosen encoding's decoding of the body; a body that is valid
//! UTF-8 with non-ASCII bytes and no byte order mark is read as UTF-8 as it
//! is; choosing is deterministic; the page reader returns text/plain bodies
//! decoded the same way, minus a leading BOM, in composed form (NFC).
#![no_main]

use libfuzzer_sys::fuzz_target;
use rypsok_worker_parse::fuzzing::decode_charset;
use rypsok_worker_parse::page::{PageInput, PageResult, read_page};
use unicode_normalization::UnicodeNormalization as _;

fuzz_target!(|data: &[u8]| {
    // First line: the Content-Type header (empty: none); the rest: body.
    let (header, body) = match data.iter().position(|&b| b == b'\n') {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (&data[..0], data),
    };
    let header = String::from_utf8_lossy(header);
    let declared = (!header.is_empty()).then_some(header.as_ref());
    for html in [false, true] {
        let (name, text) = decode_charset(body, declared, html, Some("example.jp"));
        let again = decode_charset(body, declared, html, Some("example.jp"));
        assert_eq!((name, &text), (again.0, &again.1));
        let encoding =
            encoding_rs::Encoding::for_label(name.as_bytes()).expect("a WHATWG name is a label");
        assert_eq!(encoding.decode(body).0, text);
        let bom = encoding_rs::Encoding::for_bom(body).is_some();
        if let (Ok(s), false) = (std::str::from_utf8(body), bom) {
            if !s.is_ascii() {
                assert_eq!(name, "UTF-8");
                assert_eq!(s, text);
            }
        }
    }
    let input = PageInput {
        body,
        content_type: Some(&format!("text/plain; {header}")),
        url: "https://example.jp/",
    };
    if let PageResult::Page(page) = read_page(&input) {
        let (_, text) = decode_charset(body, input.content_type, false, Some("example.jp"));
        let text: String = text.strip_prefix('\u{feff}').unwrap_or(&text).nfc().collect();
        assert_eq!(page.markdown, text);
    }
});
