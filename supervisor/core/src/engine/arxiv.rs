//! arXiv's driver, supervisor half: the admission record (with its pacing),
//! the configuration defaults and the request builder (REQ-CMP-001,
//! REQ-ENG-010, REQ-ENG-008). The parser is the other half, in
//! worker-parse's `engine/arxiv.rs`; its fixtures are under worker-parse's
//! `testdata/arxiv/`.
//!
//! The interface is the arXiv API's query (`/api/query`, an Atom feed),
//! keyless. Sources of the record below:
//!
//! - Pacing: the "Terms of Use for arXiv APIs"
//!   (<https://info.arxiv.org/help/api/tou.html>): no more than one request
//!   every three seconds, and a single connection at a time.
//! - Query syntax (`all:` terms joined by `AND`, `submittedDate:[… TO …]`),
//!   `max_results`, `sortBy`, and the error feed: the API User's Manual
//!   (<https://info.arxiv.org/help/api/user-manual.html>).
//! - Storage and attribution: arXiv's metadata is CC0
//!   (<https://info.arxiv.org/help/license/index.html>); the terms ask
//!   products to acknowledge arXiv ("Thank you to arXiv for use of its open
//!   access interoperability"), which the README does, not every result.

use url::form_urlencoded;

use super::{
    Admission, BuiltRequest, CredentialRule, EngineSpec, LanguageSupport, ResultText, SearchContext,
};
use crate::vocabulary::Category;

/// The arXiv driver.
pub(crate) const SPEC: EngineSpec = EngineSpec {
    display_name: "arXiv",
    admission: ADMISSION,
    default_categories: &[Category::Science],
    credential: CredentialRule::None,
    in_default_set: true,
    scraping: false,
    keyless_allowance: None,
    text: ResultText::PLAIN,
    endpoint_required: false,
    build,
};

/// The pause the terms ask for between two requests.
pub(crate) const INTERVAL_MS: u64 = 3000;

/// arXiv's admission record.
const ADMISSION: Admission = Admission {
    // One request every three seconds.
    rate_limit_per_minute: Some(20),
    // A single connection at a time.
    concurrency_cap: 1,
    min_interval_ms: Some(INTERVAL_MS),
    // No published bound; the contract's own (400) applies.
    max_query_chars: 400,
    min_word_chars: 0,
    // Papers in every language are searched alike (most are in English).
    languages: LanguageSupport::Any,
    // `submittedDate:[from TO to]`.
    time_ranges: true,
    // CC0 metadata: answers may be kept.
    cacheable: true,
    // CC0 metadata; the acknowledgement is the product's, in the README.
    attribution_required: false,
    // The terms ask clients to identify themselves.
    needs_contact_in_user_agent: true,
};

/// Endpoint used when the operator sets none.
const DEFAULT_ENDPOINT: &str = "https://export.arxiv.org/api/query";

/// Largest `max_results` asked for: the parser keeps at most 50 hits.
const MAX_RESULTS: u32 = 50;

/// Words of a query kept in `search_query`: more only make a longer URL.
const MAX_TERMS: usize = 32;

/// The registry's request builder: the query's words as `all:` terms
/// joined by `AND` (the query syntax's own operators, quotes, brackets and
/// colons are not passed through), relevance order, and a `submittedDate`
/// range for a time range.
fn build(endpoint: Option<&str>, ctx: &SearchContext<'_>) -> BuiltRequest {
    let base = ctx.endpoint(endpoint, DEFAULT_ENDPOINT);
    let mut search = search_query(ctx.query);
    if let Some(since) = ctx.since_date()
        && let Some(until) = rypsok_proto::iso_date_of_unix(ctx.now_unix)
    {
        let compact = |date: &str| date.replace('-', "");
        search.push_str(&format!(
            " AND submittedDate:[{}0000 TO {}2359]",
            compact(&since),
            compact(&until)
        ));
    }
    let max = ctx.count.clamp(1, MAX_RESULTS).to_string();
    let params = form_urlencoded::Serializer::new(String::new())
        .append_pair("search_query", &search)
        .append_pair("start", "0")
        .append_pair("max_results", &max)
        .append_pair("sortBy", "relevance")
        .finish();
    BuiltRequest {
        url: super::with_query(&base, &params),
        headers: vec![rypsok_proto::Header {
            name: "accept".to_owned(),
            value: "application/atom+xml".to_owned(),
        }],
        base_url: String::new(),
    }
}

/// `all:word AND all:word …` from the query's words.
fn search_query(query: &str) -> String {
    let words: Vec<String> = query
        .split_whitespace()
        .map(|word| {
            word.chars()
                .filter(|c| !matches!(c, '"' | '(' | ')' | '[' | ']' | ':' | '\\'))
                .collect::<String>()
        })
        .filter(|word| !word.is_empty() && !matches!(word.as_str(), "AND" | "OR" | "ANDNOT"))
        .take(MAX_TERMS)
        .collect();
    if words.is_empty() {
        // Nothing but operators and punctuation: search the text as typed,
        // quoted away from the syntax.
        return format!("all:\"{}\"", query.replace('"', " "));
    }
    words
        .iter()
        .map(|word| format!("all:{word}"))
        .collect::<Vec<_>>()
        .join(" AND ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::tests::params;
    use crate::vocabulary::{SafeSearch, TimeRange};

    fn ctx(query: &str, time_range: Option<TimeRange>) -> SearchContext<'_> {
        SearchContext {
            lang: "en",
            query,
            count: 10,
            category: Category::Science,
            region: "US",
            safe_search: SafeSearch::Moderate,
            time_range,
            credential: None,
            contact: "",
            now_unix: 1_700_000_000,
        }
    }

    #[test]
    fn asks_for_every_word_by_relevance() {
        // Verifies: REQ-ENG-001, REQ-SEC-017
        let built = build(None, &ctx("quantum \"error) correction: AND", None));
        let params = params(&built.url);
        assert!(built.url.starts_with("https://export.arxiv.org/api/query?"));
        assert!(params.contains(&(
            "search_query".into(),
            "all:quantum AND all:error AND all:correction".into()
        )));
        assert!(params.contains(&("sortBy".into(), "relevance".into())));
        assert!(params.contains(&("max_results".into(), "10".into())));
    }

    #[test]
    fn a_time_range_is_a_submission_date_range() {
        // Verifies: REQ-SEARCH-005
        let built = build(None, &ctx("spin", Some(TimeRange::Day)));
        assert!(params(&built.url).contains(&(
            "search_query".into(),
            "all:spin AND submittedDate:[202311130000 TO 202311142359]".into()
        )));
    }

    #[test]
    fn keeps_the_published_pace() {
        // Verifies: REQ-CMP-002, REQ-ENG-010
        assert_eq!(ADMISSION.min_interval_ms, Some(3000));
        assert_eq!(ADMISSION.concurrency_cap, 1);
    }
}
