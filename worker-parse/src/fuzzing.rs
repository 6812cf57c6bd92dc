//! Entry points for the fuzz targets in `fuzz/` (REQ-SEC-023), compiled
//! only with the `fuzzing` feature. Each is a thin door onto crate-internal
//! code the public [`crate::parse`] reaches only through a whole request;
//! the invariants are asserted by the targets, not here.

use rypsok_proto::Header;

/// The bounded HTML parse of LIM-F12 with explicit bounds (small bounds let
/// a fuzzer reach them), reduced to what a target can check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DomShape {
    /// Nodes reachable from the document node, the document included.
    pub attached: usize,
    /// The deepest attached node, counted by walking up to the document.
    pub depth: u32,
    /// The parser reported a cut.
    pub partial: bool,
    /// The document's title.
    pub title: Option<String>,
}

/// Parses `html` under `max_nodes` and `max_depth` and measures the tree.
pub fn dom_shape(html: &str, scripting: bool, max_nodes: usize, max_depth: u32) -> DomShape {
    let dom = crate::page::dom::parse_bounded(html, scripting, max_nodes, max_depth);
    let mut attached = 0;
    let mut deepest = 0;
    let mut stack = vec![0];
    while let Some(id) = stack.pop() {
        attached += 1;
        let mut depth = 0;
        let mut up = dom.nodes[id].parent;
        while let Some(p) = up {
            depth += 1;
            up = dom.nodes[p].parent;
        }
        deepest = deepest.max(depth);
        stack.extend(dom.children(id));
    }
    DomShape {
        attached,
        depth: deepest,
        partial: dom.partial,
        title: dom.title(),
    }
}

/// The tree of `html` as html5ever builds it when its tokenizer reads
/// everything, and as the page reader builds it (skipping what the scan
/// before parsing leaves out, reading plain markup itself; the text of
/// scripts and styles and the content of drawings not compared), each as
/// one line per node: the two must be equal.
pub fn skip_outlines(html: &str, scripting: bool) -> (String, String) {
    let whole = crate::page::dom::parse_with(html, scripting, usize::MAX, u32::MAX, false);
    let skipped = crate::page::dom::parse_with(html, scripting, usize::MAX, u32::MAX, true);
    (whole.outline(), skipped.outline())
}

/// The charset a document is read with (its WHATWG name) and the text.
pub fn decode_charset(
    body: &[u8],
    declared: Option<&str>,
    html: bool,
    host: Option<&str>,
) -> (&'static str, String) {
    let encoding = crate::page::charset::choose(body, declared, html, host);
    let text = crate::page::charset::decode(body, declared, html, host);
    (encoding.name(), text.into_owned())
}

/// The engine parsers' `Retry-After` reading, in milliseconds.
pub fn engine_retry_after_ms(headers: &[Header]) -> Option<u64> {
    crate::engine::retry_after_ms(headers)
}
