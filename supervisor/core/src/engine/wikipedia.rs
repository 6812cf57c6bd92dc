//! Wikipedia's driver, supervisor half: the admission record, the
//! configuration defaults and the request builder (REQ-CMP-001,
//! REQ-ENG-010, REQ-ENG-008). The parser is the other
//! half, in worker-parse's `engine/wikipedia.rs`; its fixtures are under
//! worker-parse's `testdata/wikipedia/`.
//!
//! The interface is the MediaWiki Action API's full-text search
//! (`action=query&list=search`), keyless, on the language's own wiki.

use url::form_urlencoded;

use super::{
    Admission, BuiltRequest, CredentialRule, EngineSpec, LanguageSupport, ResultText,
    SearchContext, accept_json,
};
use crate::vocabulary::Category;

/// The Wikipedia driver. Provider: the Wikimedia Foundation; interface: the
/// MediaWiki Action API's `list=search`.
pub(crate) const SPEC: EngineSpec = EngineSpec {
    display_name: "Wikipedia",
    admission: ADMISSION,
    default_categories: &[Category::General, Category::Science],
    credential: CredentialRule::None,
    in_default_set: true,
    scraping: false,
    keyless_allowance: None,
    text: ResultText::MARKUP,
    endpoint_required: false,
    build,
};

/// Wikipedia's admission record.
const ADMISSION: Admission = Admission {
    // Wikimedia publishes no request rate for reads; its API etiquette asks
    // for consideration instead, which the concurrency cap and the tool's
    // own rate limit (LIM-C6) provide.
    rate_limit_per_minute: None,
    // The API etiquette asks clients to make requests in series rather than
    // in parallel. Two in flight lets one call's request overlap the end of
    // another's without ever fanning out; more waits for a slot.
    concurrency_cap: 2,
    min_interval_ms: None,
    // CirrusSearch refuses a full-text query longer than 300 characters
    // (`Searcher::MAX_TEXT_SEARCH`, measured with `mb_strlen`: code points,
    // not bytes) with `cirrussearch-query-too-long`.
    max_query_chars: 300,
    min_word_chars: 0,
    // The language picks the wiki (`{lang}.wikipedia.org`); any code the
    // configuration accepts names one, and a code without a wiki fails as a
    // network error, not as a wrong answer.
    languages: LanguageSupport::Any,
    // `list=search` has no date filter; its `timestamp` is the last edit.
    time_ranges: false,
    // Titles and snippets are freely licensed text (CC BY-SA); Wikimedia's
    // Terms of Use put no limit on keeping or reusing it, only on
    // attribution and licence, which results keep by linking the article.
    cacheable: true,
    // Snippets are CC BY-SA text, whose attribution Wikimedia's terms of use
    // accept as a hyperlink or URL to the article. Every result carries its
    // article's URL, which is that link, so naming the engine as well is not
    // required; the operator may still turn `engines` on for all results.
    attribution_required: false,
    // The User-Agent policy requires contact information; without it the
    // edge answers 403 (the parser reports `blocked`).
    needs_contact_in_user_agent: true,
};

/// The registry's request builder.
fn build(endpoint: Option<&str>, ctx: &SearchContext<'_>) -> BuiltRequest {
    let request = build_request(endpoint, ctx.lang, ctx.query, ctx.count);
    BuiltRequest {
        url: request.url,
        headers: vec![accept_json()],
        base_url: request.article_base,
    }
}

/// Endpoint used when the operator sets none; `{lang}` is the wiki's
/// language code.
const DEFAULT_ENDPOINT: &str = "https://{lang}.wikipedia.org/w/api.php";

/// Largest `srlimit` asked for: the parser keeps at most 50 hits, and the
/// pipeline asks for LIM-S3 anyway.
const MAX_SRLIMIT: u32 = 50;

/// One search request to Wikipedia.
#[derive(Debug, Clone, PartialEq, Eq)]
struct WikipediaRequest {
    /// The URL to GET.
    pub(crate) url: String,
    /// Article path the parser builds result URLs on.
    pub(crate) article_base: String,
}

/// The wiki of a configured language code: its primary subtag.
fn wiki_code(lang: &str) -> &str {
    lang.split('-').next().unwrap_or(lang)
}

/// Builds the search request for `query` on the `lang` wiki, asking for
/// `count` results (at least 1, at most 50). `endpoint` is the operator's
/// template, `{lang}` substituted; `lang` is already validated by
/// configuration as `[a-z]{2,3}(-[a-z0-9]+)?`.
fn build_request(endpoint: Option<&str>, lang: &str, query: &str, count: u32) -> WikipediaRequest {
    // A wiki is named by the primary language subtag: `pt-br` searches
    // pt.wikipedia.org (regional variants live inside one wiki).
    let lang = wiki_code(lang);
    let base = endpoint.unwrap_or(DEFAULT_ENDPOINT).replace("{lang}", lang);
    let limit = count.clamp(1, MAX_SRLIMIT).to_string();
    let params = form_urlencoded::Serializer::new(String::new())
        .append_pair("action", "query")
        .append_pair("list", "search")
        .append_pair("format", "json")
        .append_pair("formatversion", "2")
        .append_pair("srsearch", query)
        .append_pair("srlimit", &limit)
        .append_pair("srprop", "snippet")
        // Non-ASCII as UTF-8, not `\uXXXX` escapes: smaller answers.
        .append_pair("utf8", "1")
        .finish();
    WikipediaRequest {
        url: super::with_query(&base, &params),
        // Always the real article, even when the endpoint is a mirror or a
        // test fake: a result must point where a reader finds the article,
        // and a mirror's article paths are unknown.
        article_base: format!("https://{lang}.wikipedia.org/wiki/"),
    }
}

#[cfg(test)]
mod tests {

    use super::*;

    fn params(url: &str) -> Vec<(String, String)> {
        let query = url.split_once('?').unwrap().1;
        form_urlencoded::parse(query.as_bytes())
            .map(|(name, value)| (name.into_owned(), value.into_owned()))
            .collect()
    }

    #[test]
    fn asks_the_language_wiki_for_a_json_full_text_search() {
        // Verifies: REQ-ENG-001, REQ-ENG-011
        let request = build_request(None, "en", "counter strike", 10);
        assert_eq!(
            request.url,
            "https://en.wikipedia.org/w/api.php?action=query&list=search&format=json\
             &formatversion=2&srsearch=counter+strike&srlimit=10&srprop=snippet&utf8=1"
        );
        assert_eq!(request.article_base, "https://en.wikipedia.org/wiki/");
    }

    #[test]
    fn encodes_the_query_as_one_parameter() {
        // Verifies: REQ-ENG-001, REQ-SEC-017
        let request = build_request(None, "de", "a&b=c #frag +plus Größe", 10);
        assert!(
            request
                .url
                .contains("&srsearch=a%26b%3Dc+%23frag+%2Bplus+Gr%C3%B6%C3%9Fe&srlimit=10&"),
            "{}",
            request.url
        );
        assert!(!request.url.contains('#'));
        let srsearch: Vec<_> = params(&request.url)
            .into_iter()
            .filter(|(name, _)| name == "srsearch")
            .collect();
        assert_eq!(
            srsearch,
            [("srsearch".to_owned(), "a&b=c #frag +plus Größe".to_owned())]
        );
    }

    #[test]
    fn substitutes_lang_in_an_endpoint_override() {
        // Verifies: REQ-ENG-001, REQ-CFG-001
        let request = build_request(
            Some("http://127.0.0.1:8080/{lang}/api.php"),
            "pt-br",
            "x",
            10,
        );
        assert!(
            request
                .url
                .starts_with("http://127.0.0.1:8080/pt/api.php?action=query&")
        );
        // A regional code names its language's wiki, and results still
        // point at the real article.
        assert_eq!(request.article_base, "https://pt.wikipedia.org/wiki/");
        let with_query = build_request(
            Some("https://mirror.example/api.php?site={lang}"),
            "fr",
            "x",
            10,
        );
        assert!(
            with_query
                .url
                .starts_with("https://mirror.example/api.php?site=fr&action=query&")
        );
    }

    #[test]
    fn keeps_srlimit_within_what_the_parser_keeps() {
        // Verifies: REQ-ENG-011
        let limit = |count| {
            params(&build_request(None, "en", "x", count).url)
                .into_iter()
                .find(|(name, _)| name == "srlimit")
                .unwrap()
                .1
        };
        assert_eq!(limit(0), "1");
        assert_eq!(limit(10), "10");
        assert_eq!(limit(500), "50");
    }

    #[test]
    fn admits_queries_up_to_cirrussearch_length_in_characters() {
        // Verifies: REQ-ENG-010, REQ-CMP-002
        assert!(ADMISSION.accepts_query(&"é".repeat(300)));
        assert!(!ADMISSION.accepts_query(&"e".repeat(301)));
    }
}
