//! The attributes the parsed tree keeps: the few extraction reads
//! (REQ-PAGE-002, LIM-F12).
//!
//! A leaf below the parser (`dom`, which drops the others as it builds
//! the tree) and the scan before parsing (`skip`, which leaves them out of
//! the parser's input): the two must agree on the list, and the scan must
//! not import the parser that imports it.

/// HTML elements none of whose attributes is ever read (a page's links to
/// style sheets, icons and feeds, its metadata): even the
/// [`kept_attr_name`] ones are dropped. `name` is lower case.
pub(crate) fn attrs_unread(name: &[u8]) -> bool {
    matches!(name, b"link" | b"meta")
}

/// Whether an attribute is kept, by its lower-case name as bytes (the scan
/// before parsing reads names as bytes and leaves the others out of the
/// parser's input).
pub(crate) fn kept_attr_name(name: &[u8]) -> bool {
    matches!(
        name,
        b"id"
            | b"class"
            | b"style"
            | b"hidden"
            | b"aria-hidden"
            | b"role"
            | b"aria-controls"
            | b"aria-labelledby"
            | b"aria-expanded"
            | b"aria-haspopup"
            | b"href"
            | b"alt"
            | b"colspan"
            | b"type"
            | b"itemprop"
            | b"data-lang"
            | b"data-language"
    )
}
