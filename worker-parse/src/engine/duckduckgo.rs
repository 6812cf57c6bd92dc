//! DuckDuckGo's driver, parser half: the HTML results page of
//! `html.duckduckgo.com/html/` (a scraping driver, design §11, REQ-ENG-013
//! to -015). The request builder and the admission record are the other
//! half, in the supervisor's `engine/duckduckgo.rs`; the fixtures are under
//! `testdata/duckduckgo/` (PROVENANCE.md there).
//!
//! The page is parsed into the page reader's DOM, under the same node and
//! depth bounds (LIM-F12). A result is a `div.result` that is not an ad
//! (`result--ad`) nor the "no more results" block; its title and link are
//! its `a.result__a`, its snippet the text of its `.result__snippet`, its
//! date the `YYYY-MM-DD` start of a date the page shows beside the URL.
//! Links wrapped in DuckDuckGo's redirect (`/l/?uddg=<target>`) are
//! unwrapped to the target; any other link into DuckDuckGo (an ad's
//! `y.js`) is not a result.
//!
//! A 403 or 429, or a page carrying the anti-bot challenge (the
//! `challenge-form`, the `anomaly-modal` blocks), is `blocked`. A page with
//! neither results nor DuckDuckGo's "no results" block is a structure this
//! parser does not know: `parse_failure`, never an empty success.
//!
//! The text of titles and snippets leaves here decoded (entities resolved,
//! markup gone): the supervisor cleans it as decoded text.

use html5ever::local_name;
use rypsok_proto::{EngineFailure, EngineHit, EngineParse, is_iso_date};

use super::Answer;
use crate::page::dom::{self, DOCUMENT, Data, Dom, NodeId};

/// Hits kept from one page (a page holds about thirty at most).
const MAX_HITS: usize = 50;

/// Characters kept of one title or snippet before the supervisor's own
/// bounds: enough for any the page shows, and a bound on what a hostile
/// page can make the hits weigh.
const MAX_TEXT_CHARS: usize = 2048;

/// The entry point of the dispatch, which hands every parser the same
/// [`Answer`].
pub(crate) fn parse_answer(answer: &Answer<'_>) -> EngineParse {
    // An HTML page: its links are absolute or DuckDuckGo's own.
    parse(answer.status, answer.body)
}

/// Parses one answer of the HTML endpoint.
pub(crate) fn parse(status: u16, body: &[u8]) -> EngineParse {
    if matches!(status, 403 | 429) {
        return EngineParse::Failure(EngineFailure::Blocked);
    }
    if !(200..300).contains(&status) {
        return EngineParse::Failure(EngineFailure::RequestFailure);
    }
    let text = String::from_utf8_lossy(body);
    let dom = dom::parse(&text, false);
    let page = read_page(&dom);
    if page.blocked {
        return EngineParse::Failure(EngineFailure::Blocked);
    }
    if status != 200 {
        // A 2xx other than 200 without a challenge is no results page.
        return EngineParse::Failure(EngineFailure::RequestFailure);
    }
    let hits: Vec<EngineHit> = page
        .results
        .iter()
        .filter_map(|&id| hit(&dom, id))
        .take(MAX_HITS)
        .collect();
    if hits.is_empty() && !page.no_results {
        return EngineParse::Failure(EngineFailure::ParseFailure);
    }
    EngineParse::Hits(hits)
}

/// What the page is made of.
#[derive(Debug, Default)]
struct Page {
    blocked: bool,
    no_results: bool,
    /// The result blocks, in document order.
    results: Vec<NodeId>,
}

fn read_page(dom: &Dom) -> Page {
    let mut page = Page::default();
    for id in preorder(dom, DOCUMENT) {
        let Some(element) = dom.element(id) else {
            continue;
        };
        if element.attr(&local_name!("id")) == Some("challenge-form") {
            page.blocked = true;
        }
        let class = element.attr(&local_name!("class")).unwrap_or_default();
        let mut is_result = false;
        let mut excluded = false;
        for word in class.split_ascii_whitespace() {
            match word {
                "result" => is_result = true,
                "result--ad" | "result--no-result" => excluded = true,
                "no-results" => page.no_results = true,
                _ if word.starts_with("anomaly-modal") => page.blocked = true,
                _ => {}
            }
        }
        if is_result && !excluded {
            page.results.push(id);
        }
    }
    page
}

/// One result block's hit, or nothing when it has no title or no link to
/// a web page.
fn hit(dom: &Dom, block: NodeId) -> Option<EngineHit> {
    let mut link = None;
    let mut snippet = None;
    let mut date = None;
    for id in preorder(dom, block) {
        let Some(element) = dom.element(id) else {
            continue;
        };
        let class = element.attr(&local_name!("class")).unwrap_or_default();
        let has = |name: &str| class.split_ascii_whitespace().any(|w| w == name);
        if link.is_none() && has("result__a") {
            link = Some((element.attr(&local_name!("href"))?, id));
        } else if snippet.is_none() && has("result__snippet") {
            snippet = Some(text_of(dom, id));
        } else if date.is_none() && element.html_name() == Some(&local_name!("span")) {
            date = page_date(&text_of(dom, id));
        }
    }
    let (href, title_node) = link?;
    let title = text_of(dom, title_node);
    if title.is_empty() {
        return None;
    }
    Some(EngineHit {
        title,
        url: target_url(href)?,
        snippet: snippet.unwrap_or_default(),
        date,
    })
}

/// The URL a result link leads to: the link itself when it is an absolute
/// http(s) URL off DuckDuckGo (scheme-relative links are https), the
/// `uddg` target of a redirect wrapper when that is http(s); anything
/// else is no result.
fn target_url(href: &str) -> Option<String> {
    let href = href.trim();
    if href.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return None;
    }
    let absolute = if href.starts_with("//") {
        format!("https:{href}")
    } else if href.starts_with('/') {
        format!("https://duckduckgo.com{href}")
    } else {
        href.to_owned()
    };
    let url = url::Url::parse(&absolute).ok()?;
    if !matches!(url.scheme(), "http" | "https") {
        return None;
    }
    let host = url.host_str()?;
    let own = host == "duckduckgo.com" || host.ends_with(".duckduckgo.com");
    if !own {
        return is_spelled_absolute(&absolute).then_some(absolute);
    }
    if url.path() != "/l/" && url.path() != "/l" {
        return None;
    }
    let target = url
        .query_pairs()
        .find(|(name, _)| name == "uddg")?
        .1
        .into_owned();
    let parsed = url::Url::parse(&target).ok()?;
    let clean = !target.chars().any(|c| c.is_whitespace() || c.is_control());
    // A wrapper around another of DuckDuckGo's own links is not a result.
    let own_again = parsed
        .host_str()
        .is_some_and(|h| h == "duckduckgo.com" || h.ends_with(".duckduckgo.com"));
    let http = matches!(parsed.scheme(), "http" | "https");
    (clean && http && !own_again && is_spelled_absolute(&target)).then_some(target)
}

/// Whether `url` is written as an absolute http(s) URL with its authority:
/// the URL parser reads `https:/host` or `https:///host` as `https://host`,
/// but the bytes handed on are the page's, so they must say so themselves.
fn is_spelled_absolute(url: &str) -> bool {
    let lower = url.get(..8).unwrap_or(url).to_ascii_lowercase();
    let rest = if lower.starts_with("https://") {
        &url[8..]
    } else if lower.starts_with("http://") {
        &url[7..]
    } else {
        return false;
    };
    !rest.is_empty() && !rest.starts_with(['/', '?', '#', '\\'])
}

/// `YYYY-MM-DD` from a date the page shows (`2025-06-23T00:00:00.0000000`,
/// after non-breaking spaces).
fn page_date(text: &str) -> Option<String> {
    let day = text.trim().get(..10)?;
    is_iso_date(day).then(|| day.to_owned())
}

/// The text under `id`, whitespace collapsed, at most
/// [`MAX_TEXT_CHARS`] characters. Text nodes are joined as the page joins
/// them: a highlight (`<b>Eino</b>以`, `starter</b>,`) adds no space, only
/// a line break or a block element does.
fn text_of(dom: &Dom, id: NodeId) -> String {
    let mut raw = String::new();
    for node in preorder(dom, id) {
        match &dom.nodes[node].data {
            Data::Text(text) => {
                raw.push_str(text);
                if raw.len() > 4 * MAX_TEXT_CHARS {
                    break;
                }
            }
            Data::Element(element) if breaks_words(&element.name.local) => raw.push(' '),
            _ => {}
        }
    }
    let mut out = String::new();
    for (n, word) in raw.split_whitespace().enumerate() {
        if n > 0 {
            out.push(' ');
        }
        out.push_str(word);
    }
    match out.char_indices().nth(MAX_TEXT_CHARS) {
        Some((at, _)) => out[..at].to_owned(),
        None => out,
    }
}

/// Elements that separate the words on either side of them.
fn breaks_words(name: &str) -> bool {
    matches!(
        name,
        "br" | "p" | "div" | "li" | "td" | "th" | "tr" | "h1" | "h2" | "h3" | "h4" | "h5" | "h6"
    )
}

/// `root` and everything below it, in document order. The DOM's bounds
/// keep the walk finite and its stack shallow.
fn preorder(dom: &Dom, root: NodeId) -> Vec<NodeId> {
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(id) = stack.pop() {
        out.push(id);
        let children: Vec<NodeId> = dom.children(id).collect();
        stack.extend(children.into_iter().rev());
    }
    out
}

#[cfg(test)]
mod tests {

    use super::*;
    use crate::engine::test_support::{failure, hits};

    // Fixtures: testdata/duckduckgo/PROVENANCE.md.
    const EINO: &[u8] = include_bytes!("../../testdata/duckduckgo/html_eino_2025.html");
    const NO_MORE: &[u8] =
        include_bytes!("../../testdata/duckduckgo/html_no_more_results_2025.html");
    const WRAPPED: &[u8] =
        include_bytes!("../../testdata/duckduckgo/written_redirect_wrappers_and_ad.html");
    const CHALLENGE: &[u8] =
        include_bytes!("../../testdata/duckduckgo/written_anomaly_challenge.html");

    #[test]
    fn reads_the_ten_results_of_a_captured_page_in_order() {
        // Verifies: REQ-ENG-005, REQ-ENG-015
        let hits = hits(parse(200, EINO));
        assert_eq!(hits.len(), 10);
        assert_eq!(hits[0].url, "https://github.com/cloudwego/eino");
        assert_eq!(
            hits[0].title,
            "GitHub - cloudwego/eino: The ultimate LLM/AI application development ..."
        );
        assert!(
            hits[0]
                .snippet
                .starts_with("Eino is a framework for building")
        );
        assert_eq!(hits[0].date, None);
        assert_eq!(hits[1].date.as_deref(), Some("2025-06-23"));
        // Entities decoded, markup gone: the supervisor cleans decoded text.
        assert!(
            hits[1].snippet.contains("Eino['aino]"),
            "{}",
            hits[1].snippet
        );
        assert!(hits[1].snippet.contains("\"i know\""));
        assert_eq!(hits[9].url, "https://en.wikipedia.org/wiki/Eino");
    }

    #[test]
    fn text_nodes_join_as_the_page_joins_them() {
        // Verifies: REQ-ENG-005
        // The captured page: "…开发框架，…应用。<b>Eino</b>以 Go 语言…".
        let hits = hits(parse(200, EINO));
        assert!(
            hits[2].snippet.contains("应用。Eino以 Go 语言为基础"),
            "{}",
            hits[2].snippet
        );
        assert!(hits[0].snippet.starts_with("Eino is a framework"));
        // Punctuation after a highlight gets no space before it; a line
        // break still separates words.
        let page = br#"<html><body><div class="results"><div class="result results_links results_links_deep web-result">
<h2 class="result__title"><a class="result__a" href="https://example.org/baby">Baby <b>feeding</b></a></h2>
<a class="result__snippet" href="https://example.org/baby">A <b>starter</b>, then <b>feedings</b>. Next<br>line</a>
</div></div></body></html>"#;
        let hits = crate::engine::test_support::hits(parse(200, page));
        assert_eq!(hits[0].title, "Baby feeding");
        assert_eq!(hits[0].snippet, "A starter, then feedings. Next line");
    }

    #[test]
    fn the_no_more_results_page_is_an_empty_answer() {
        // Verifies: REQ-ENG-005
        assert!(hits(parse(200, NO_MORE)).is_empty());
    }

    #[test]
    fn unwraps_redirects_and_leaves_out_ads_and_other_targets() {
        // Verifies: REQ-ENG-005, REQ-RANK-003 (target URLs, not the engine's wrappers)
        let hits = hits(parse(200, WRAPPED));
        let urls: Vec<&str> = hits.iter().map(|h| h.url.as_str()).collect();
        assert_eq!(
            urls,
            [
                "https://www.rust-lang.org/",
                "https://doc.rust-lang.org/book/ch01-00-getting-started.html?q=1&r=%C3%A9",
                "https://en.wikipedia.org/wiki/Rust_(programming_language)",
            ]
        );
        assert_eq!(
            hits[1].title,
            "Getting Started - The Rust Programming Language"
        );
        assert_eq!(
            hits[0].snippet,
            "A language empowering everyone to build reliable and efficient software. Rust & friends."
        );
        assert_eq!(
            hits[2].snippet,
            "Rust is a general-purpose programming language."
        );
    }

    #[test]
    fn a_target_not_written_as_an_absolute_url_is_no_result() {
        // Verifies: REQ-ENG-005 (result URLs are absolute http(s) URLs as the page wrote them; found by the fuzz target)
        // The URL parser would read `https:/host` as `https://host`; the
        // bytes handed on are the page's, so such a target is left out.
        for href in [
            "//duckduckgo.com/l/?uddg=https%3A%2F02Fdoc.rust-lang.org%2Fbook",
            "//duckduckgo.com/l/?uddg=https%3A%2F%2F%2Fexample.org%2F",
            "https:/example.org/page",
            "//duckduckgo.com/l/?uddg=https%3A%2F%2Fduckduckgo.com%2Fl%2F%3Fuddg%3Dx",
        ] {
            assert_eq!(target_url(href), None, "{href}");
        }
        assert_eq!(
            target_url("//duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.org%2Fa").as_deref(),
            Some("https://example.org/a")
        );
    }

    #[test]
    fn a_challenge_page_or_a_refusal_is_blocked() {
        // Verifies: REQ-ENG-009, REQ-ENG-013
        assert_eq!(failure(parse(200, CHALLENGE)), EngineFailure::Blocked);
        assert_eq!(failure(parse(202, CHALLENGE)), EngineFailure::Blocked);
        assert_eq!(failure(parse(403, b"")), EngineFailure::Blocked);
        assert_eq!(failure(parse(429, EINO)), EngineFailure::Blocked);
    }

    #[test]
    fn an_unknown_structure_is_a_parse_failure_not_an_empty_success() {
        // Verifies: REQ-ENG-015, REQ-ENG-006
        for body in [
            &b""[..],
            b"<html><body><p>Welcome</p></body></html>",
            b"{\"results\": []}",
            b"<div class=\"result\"><a class=\"result__a\" href=\"javascript:x\">t</a></div>",
        ] {
            assert_eq!(failure(parse(200, body)), EngineFailure::ParseFailure);
        }
        assert_eq!(failure(parse(500, EINO)), EngineFailure::RequestFailure);
        assert_eq!(failure(parse(204, b"")), EngineFailure::RequestFailure);
    }

    #[test]
    fn a_page_past_the_node_bound_keeps_the_results_before_the_cut() {
        // Verifies: REQ-ENG-015 (LIM-F12 bounds the parse)
        let mut page = String::from("<div id=\"links\">");
        page.push_str(
            "<div class=\"result\"><a class=\"result__a\" href=\"https://example.org/a\">A</a></div>",
        );
        for _ in 0..(rypsok_proto::limits::HTML_MAX_NODES as usize) {
            page.push_str("<i></i>");
        }
        page.push_str(
            "<div class=\"result\"><a class=\"result__a\" href=\"https://example.org/b\">B</a></div>",
        );
        let hits = hits(parse(200, page.as_bytes()));
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].url, "https://example.org/a");
        // Nesting past the depth bound: nothing recognisable survives.
        let deep = "<div>".repeat(10_000)
            + "<div class=\"result\"><a class=\"result__a\" href=\"https://example.org/c\">C</a></div>";
        assert_eq!(
            failure(parse(200, deep.as_bytes())),
            EngineFailure::ParseFailure
        );
    }

    #[test]
    fn text_is_bounded() {
        // Verifies: REQ-ENG-015
        let page = format!(
            "<div class=\"result\"><a class=\"result__a\" href=\"https://example.org/\">{}</a>\
             <a class=\"result__snippet\">{}</a></div>",
            "t ".repeat(20_000),
            "é".repeat(20_000)
        );
        let hits = hits(parse(200, page.as_bytes()));
        assert_eq!(hits[0].title.chars().count(), MAX_TEXT_CHARS);
        assert_eq!(hits[0].snippet.chars().count(), MAX_TEXT_CHARS);
    }
}
