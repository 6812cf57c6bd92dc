//! Hacker News's driver, supervisor half: the admission record, the
//! configuration defaults and the request builder (REQ-CMP-001,
//! REQ-ENG-010, REQ-ENG-008). The parser is the other half, in
//! worker-parse's `engine/hackernews.rs`; its fixtures are under
//! worker-parse's `testdata/hackernews/`.
//!
//! The interface is the Hacker News search API by Algolia, keyless:
//! `/api/v1/search` (relevance), with a `created_at_i` filter for a time
//! range: the relevance index takes the same numeric filter as the by-date
//! one, so a time range keeps relevance order. Sources of the record below:
//!
//! - Rate, endpoints, `tags`, `numericFilters`, `hitsPerPage`: the API's
//!   page (<https://hn.algolia.com/api>), which limits one address to
//!   10,000 requests an hour.
//! - Storage and attribution: the page states no terms of its own; the
//!   stories are links to other sites and Hacker News's discussions. rypsok
//!   treats the answers as not to be kept beyond the call until a term says
//!   otherwise, and asks no attribution.

use url::form_urlencoded;

use super::{
    Admission, BuiltRequest, CredentialRule, EngineSpec, LanguageSupport, ResultText,
    SearchContext, TextForm,
};
use crate::vocabulary::Category;

/// The Hacker News driver.
pub(crate) const SPEC: EngineSpec = EngineSpec {
    display_name: "Hacker News (Algolia)",
    admission: ADMISSION,
    default_categories: &[Category::News],
    credential: CredentialRule::None,
    in_default_set: true,
    scraping: false,
    keyless_allowance: None,
    // The title is plain text; the snippet is the post's HTML text
    // (tags removed by the parser, entities left) or counts.
    text: ResultText {
        title: TextForm::Plain,
        snippet: TextForm::Markup,
    },
    endpoint_required: false,
    build,
};

/// Hacker News's admission record.
const ADMISSION: Admission = Admission {
    // 10,000 an hour is 166 a minute.
    rate_limit_per_minute: Some(166),
    // No published bound; two in flight.
    concurrency_cap: 2,
    min_interval_ms: None,
    // No published bound; the contract's own (400) applies.
    max_query_chars: 400,
    min_word_chars: 0,
    // No language parameter: stories in every language are searched alike.
    languages: LanguageSupport::Any,
    // `numericFilters=created_at_i>…` on `search`.
    time_ranges: true,
    // No stated terms on storage: not kept.
    cacheable: false,
    attribution_required: false,
    needs_contact_in_user_agent: false,
};

/// Endpoint used when the operator sets none.
const DEFAULT_ENDPOINT: &str = "https://hn.algolia.com/api/v1/search";

/// Largest `hitsPerPage` asked for.
const MAX_HITS_PER_PAGE: u32 = 50;

/// The registry's request builder.
fn build(endpoint: Option<&str>, ctx: &SearchContext<'_>) -> BuiltRequest {
    let base = ctx.endpoint(endpoint, DEFAULT_ENDPOINT);
    let since = ctx.since_unix();
    let per_page = ctx.count.clamp(1, MAX_HITS_PER_PAGE).to_string();
    let mut params = form_urlencoded::Serializer::new(String::new());
    params
        .append_pair("query", ctx.query)
        .append_pair("tags", "story")
        .append_pair("hitsPerPage", &per_page);
    if let Some(since) = since {
        params.append_pair("numericFilters", &format!("created_at_i>{since}"));
    }
    BuiltRequest::json(super::with_query(&base, &params.finish()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::tests::params;
    use crate::vocabulary::{SafeSearch, TimeRange};

    fn ctx(time_range: Option<TimeRange>) -> SearchContext<'static> {
        SearchContext {
            lang: "en",
            query: "rust release",
            count: 10,
            category: Category::News,
            region: "US",
            safe_search: SafeSearch::Moderate,
            time_range,
            credential: None,
            contact: "",
            now_unix: 1_700_000_000,
        }
    }

    #[test]
    fn asks_for_stories_by_relevance() {
        // Verifies: REQ-ENG-001
        assert_eq!(
            build(None, &ctx(None)).url,
            "https://hn.algolia.com/api/v1/search?query=rust+release&tags=story&hitsPerPage=10"
        );
    }

    #[test]
    fn a_time_range_filters_the_relevance_index_since_its_start() {
        // Verifies: REQ-SEARCH-005
        let built = build(None, &ctx(Some(TimeRange::Day)));
        assert!(
            built
                .url
                .starts_with("https://hn.algolia.com/api/v1/search?query="),
            "{}",
            built.url
        );
        assert!(
            params(&built.url)
                .contains(&("numericFilters".into(), "created_at_i>1699913600".into()))
        );
        let fake = build(
            Some("http://127.0.0.1:9/hn/search?x=1"),
            &ctx(Some(TimeRange::Week)),
        );
        assert!(
            fake.url
                .starts_with("http://127.0.0.1:9/hn/search?x=1&query=")
        );
    }
}
