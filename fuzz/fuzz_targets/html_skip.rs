//! The scan before parsing (REQ-SEC-023, REQ-PAGE-006): whatever the bytes,
//! the parser builds the same tree whether it reads the whole document or
//! skips what the scan found (the text of scripts and styles, the content
//! of drawings, attributes extraction never reads) and reads its plain
//! tags and text without html5ever's tokenizer (`feed`), with and without
//! scripting.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rypsok_worker_parse::fuzzing::skip_outlines;

fuzz_target!(|data: &[u8]| {
    let html = String::from_utf8_lossy(data);
    for scripting in [false, true] {
        let (whole, skipped) = skip_outlines(&html, scripting);
        assert_eq!(whole, skipped);
    }
});
