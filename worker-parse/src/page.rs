//! Fetched documents: bytes and a declared media type in, the main content
//! as Markdown out (design §3.2, §9; LIM-F12).
//!
//! This is the interface the fetch pipeline calls. Behind it: media types
//! checked against the bytes (`sniff`), charsets (`charset`), a bounded
//! HTML parse (`dom`, which skips what `skip` finds it need not read and
//! keeps the attributes `attrs` lists), main-content extraction
//! (`extract`) and our own Markdown rendering (`markdown`, which decodes
//! leftover character references with `entities`, as the title does); for
//! an empty shell or an article shown in part, the text in its structured
//! data (`structured`), and without any, whether the page needs scripts
//! to show its text (`shell`).

use std::cell::OnceCell;

use unicode_normalization::UnicodeNormalization as _;

mod attrs;
pub(crate) mod charset;
pub(crate) mod dom;
mod entities;
mod extract;
mod feed;
mod markdown;
mod shell;
mod skip;
mod sniff;
mod structured;

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
    /// A readable type with no main content (a page that is only
    /// navigation, a bare form).
    NoContent,
    /// A readable type that shows no text without running its scripts: an
    /// empty frame that scripts fill, or a page whose only text is a
    /// cookie or consent banner (`shell`).
    NeedsScripts,
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
    /// The markup held (nearly) no content, or only the opening of the
    /// article its JSON-LD declares whole, and `markdown` was read from the
    /// page's structured data instead (`from_structured_data`).
    pub from_structured_data: bool,
}

/// The longest media type [`PageResult::Unsupported`] carries.
pub const MEDIA_TYPE_MAX: usize = 100;

/// Reads one document.
///
/// HTML and XHTML become their main content as Markdown; plain text and
/// Markdown pass through decoded. A body whose bytes are binary (a PDF, an
/// image, an archive) is [`PageResult::Unsupported`] whatever its declared
/// type; a body without a `Content-Type` is sniffed.
///
/// An HTML page whose main content has no letter or digit at all (a page
/// that is only navigation, a bare form) is [`PageResult::NoContent`], and
/// one that shows no text without its scripts (an empty frame, a consent
/// banner alone) is [`PageResult::NeedsScripts`]: the fetch answers
/// `unsupported_content` with `extraction_failed` rather than an empty
/// success or the noscript line (REQ-PAGE-006), unless the page carries
/// its text in structured data (`structured`): a page whose markup yields
/// nothing or nearly nothing is then read from there, and says so
/// ([`Page::from_structured_data`]); so is a page whose markup shows only
/// the opening of the article its JSON-LD declares (a few paragraphs, a
/// third of the article or less), and only that article's text.
///
/// The text and the title are in Unicode's composed form (NFC), as the
/// content boundary returns them to the caller too: a letter a page writes
/// as a base and a combining mark is the one character a reader sees, and
/// a search of the text for it finds it. Measured on trafilatura's
/// evaluation pages: two pages more with their passages found (a Bengali
/// page, a German one); no page's score changed in the article set, WCXB's
/// development pages or the third corpus.
pub fn read_page(input: &PageInput<'_>) -> PageResult {
    match read_decoded(input) {
        PageResult::Page(p) => PageResult::Page(Page {
            title: p.title.map(composed),
            markdown: composed(p.markdown),
            ..p
        }),
        other => other,
    }
}

/// `s` in Unicode's composed form (NFC); as it is when it is already.
fn composed(s: String) -> String {
    if unicode_normalization::is_nfc_quick(s.chars()) == unicode_normalization::IsNormalized::Yes {
        s
    } else {
        s.nfc().collect()
    }
}

/// [`read_page`] before the text is composed.
fn read_decoded(input: &PageInput<'_>) -> PageResult {
    let declared = input
        .content_type
        .map(sniff::essence)
        .filter(|e| !e.is_empty());
    let kind = match declared.as_deref() {
        Some(t) => match sniff::declared_kind(t) {
            Some(kind) => kind,
            None => return unsupported(t),
        },
        None => {
            if let Some(t) = sniff::binary_type(input.body) {
                return unsupported(t);
            }
            sniff::text_kind(input.body)
        }
    };
    if declared.is_some()
        && let Some(t) = sniff::binary_type(input.body)
    {
        return unsupported(t);
    }
    let url = url::Url::parse(input.url).ok();
    let host = url.as_ref().and_then(url::Url::host_str);
    let text = charset::decode(
        input.body,
        input.content_type,
        kind == sniff::Kind::Html,
        host,
    );
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    match kind {
        sniff::Kind::Text | sniff::Kind::Markdown => PageResult::Page(Page {
            title: None,
            markdown: text.to_owned(),
            partial: false,
            from_structured_data: false,
        }),
        sniff::Kind::Html => read_html(text, url.as_ref()),
    }
}

/// Parses, extracts and renders an HTML document.
fn read_html(html: &str, url: Option<&url::Url>) -> PageResult {
    // Asked only of a page with replies that would go: most pages are
    // never asked, and their bytes are not searched for it.
    let declared = OnceCell::new();
    let discussion = || *declared.get_or_init(|| structured::declares_discussion(html));
    let (first, needs_scripts, linked_data) = read_dom(html, url, &discussion, false);
    // Counted only as far as the bound: the exact count matters below it.
    let words = first
        .as_ref()
        .map_or(0, |p| words_upto(&p.markdown, LENIENT_BELOW_WORDS));
    if words >= LENIENT_BELOW_WORDS && !needs_scripts {
        // The rest of the article may be in its declared body only.
        return match first {
            Some(page)
                if linked_data
                    && words_upto(&page.markdown, CONTINUED_BELOW_WORDS)
                        < CONTINUED_BELOW_WORDS =>
            {
                PageResult::Page(structured::continued(html, url, &page).unwrap_or(page))
            }
            Some(page) => PageResult::Page(page),
            None => PageResult::NoContent,
        };
    }
    // Little or nothing: perhaps a page whose content waits for a script
    // (in <noscript>, or hidden by an inline style until revealed).
    let (second, _, _) = read_dom(html, url, &discussion, true);
    let better = match (&first, &second) {
        (_, None) => first,
        (None, Some(_)) => second,
        (Some(_), Some(s)) if words_upto(&s.markdown, 2 * words.max(1)) >= 2 * words.max(1) => {
            second
        }
        _ => first,
    };
    // Still little or nothing: perhaps the content is only in the page's
    // structured data (JSON-LD, a framework's embedded page data).
    if let Some(page) = structured::fallback(html, url, better.as_ref()) {
        return PageResult::Page(page);
    }
    // A frame that scripts fill, or a consent banner alone: what the reads
    // found (the noscript line, the banner) is not the page's text.
    if needs_scripts {
        return PageResult::NeedsScripts;
    }
    better.map_or(PageResult::NoContent, PageResult::Page)
}

/// The words of a text, counted up to `max`: its runs between spaces,
/// except that a run of ideographs or kana (Chinese and Japanese set no
/// spaces between words) counts one word per [`CHARS_PER_CJK_WORD`] of
/// those characters, so that a page in those scripts is not taken for a
/// near-empty one by the bounds below.
pub(crate) fn words_upto(text: &str, max: usize) -> usize {
    let mut words = 0;
    for run in text.split_whitespace() {
        // Most runs are ASCII, which holds no such character.
        let cjk = if run.is_ascii() {
            0
        } else {
            run.chars().filter(|&c| is_cjk(c)).count()
        };
        words += if cjk == 0 {
            1
        } else {
            cjk.div_ceil(CHARS_PER_CJK_WORD)
        };
        if words >= max {
            return max;
        }
    }
    words
}

/// Characters of a Chinese or Japanese text per word, about.
const CHARS_PER_CJK_WORD: usize = 2;

/// A Han ideograph or a kana: Chinese and Japanese, written without
/// spaces between words (Korean sets them, and is counted as other text).
pub(crate) fn is_cjk(c: char) -> bool {
    matches!(c, '\u{3040}'..='\u{30ff}' | '\u{3400}'..='\u{4dbf}' | '\u{4e00}'..='\u{9fff}' | '\u{f900}'..='\u{faff}' | '\u{20000}'..='\u{2ffff}')
}

/// A page read with words below this count may be the opening of an
/// article whose structured data declares the rest (see
/// [`structured::continued`]): a few paragraphs. Longer reads are not
/// compared with the data, so that most pages pay no search of it.
const CONTINUED_BELOW_WORDS: usize = 400;

/// A page read with words below this count is read again leniently.
const LENIENT_BELOW_WORDS: usize = 50;

/// One extraction try: `None` when it finds no content; for the strict
/// try (scripting on, `<noscript>` read as raw text), whether the page
/// needs scripts to show any text (`shell`); and whether the page has a
/// JSON-LD script. `discussion`: whether the page declares itself one in
/// its structured data, worked out once and only where extraction asks.
fn read_dom(
    html: &str,
    url: Option<&url::Url>,
    discussion: &dyn Fn() -> bool,
    lenient: bool,
) -> (Option<Page>, bool, bool) {
    let dom = dom::parse(html, !lenient);
    let found = extract::extract(&dom, lenient, url, discussion);
    let markdown = markdown::render(&dom, found.root, &found.skip, url);
    // Asked only of a page with little text: a page of prose is no shell.
    let needs_scripts = !lenient
        && words_upto(&markdown, SHELL_BELOW_WORDS + 1) <= SHELL_BELOW_WORDS
        && shell::needs_scripts(&dom);
    let page = markdown.chars().any(char::is_alphanumeric).then_some(Page {
        title: found.title,
        markdown,
        partial: dom.partial,
        from_structured_data: false,
    });
    (page, needs_scripts, dom.linked_data)
}

/// Pages whose first read found more words than this are not asked
/// whether they need scripts: a consent banner is a paragraph or two.
const SHELL_BELOW_WORDS: usize = 200;

fn unsupported(media_type: &str) -> PageResult {
    let mut end = media_type.len().min(MEDIA_TYPE_MAX);
    while !media_type.is_char_boundary(end) {
        end -= 1;
    }
    PageResult::Unsupported {
        media_type: media_type[..end].to_owned(),
    }
}

#[cfg(test)]
mod tests;
