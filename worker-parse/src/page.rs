//! Fetched documents: bytes and a declared media type in, the main content
//! as Markdown out (design §3.2, §9; LIM-F12).
//!
//! This is the interface the fetch pipeline calls. The HTML extraction
//! behind it is being written (issue 6); until it lands, HTML documents
//! answer [`PageResult::NoContent`], and plain text and Markdown pass through.

/// One fetched document.
#[derive(Debug, Clone, Copy)]
pub struct PageInput<'a> {
    /// The body, after content decoding, at most LIM-F3 bytes.
    pub body: &'a [u8],
    /// The `Content-Type` header as received, if any.
    pub content_type: Option<&'a str>,
    /// The URL the body came from (after redirects): the base for relative
    /// links.
    pub url: &'a str,
}

/// What a document yielded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PageResult {
    /// Main content.
    Page(Page),
    /// The declared or sniffed media type is not one rypsok reads (HTML,
    /// XHTML, plain text, Markdown). `media_type` is the type as declared,
    /// lower-cased, without parameters, at most [`MEDIA_TYPE_MAX`] bytes
    /// (external data: the supervisor bounds and cleans it again).
    Unsupported {
        /// The offending type.
        media_type: String,
    },
    /// A readable type with no main content (an empty script shell, a page
    /// that is only navigation).
    NoContent,
}

/// The main content of a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    /// The document's title, decoded text, when it has one.
    pub title: Option<String>,
    /// The main content as Markdown (decoded text: no entities left).
    pub markdown: String,
    /// The document hit a LIM-F12 bound or was too malformed to read whole:
    /// `markdown` is the content before the cut (`extraction_partial`).
    pub partial: bool,
}

/// The longest media type [`PageResult::Unsupported`] carries.
pub const MEDIA_TYPE_MAX: usize = 100;

/// Reads one document.
pub fn read_page(input: &PageInput<'_>) -> PageResult {
    let media_type = input
        .content_type
        .and_then(|v| v.split(';').next())
        .map(|t| t.trim().to_ascii_lowercase())
        .unwrap_or_default();
    match media_type.as_str() {
        "text/plain" | "text/markdown" => PageResult::Page(Page {
            title: None,
            markdown: String::from_utf8_lossy(input.body).into_owned(),
            partial: false,
        }),
        "" | "text/html" | "application/xhtml+xml" => PageResult::NoContent,
        other => PageResult::Unsupported {
            media_type: other.chars().take(MEDIA_TYPE_MAX).collect(),
        },
    }
}
