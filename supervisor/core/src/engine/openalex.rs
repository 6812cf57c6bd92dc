//! OpenAlex's driver, supervisor half: the admission record, the
//! configuration defaults and the request builder (REQ-CMP-001,
//! REQ-ENG-010, REQ-ENG-008). The parser is the other half, in
//! worker-parse's `engine/openalex.rs`; its fixtures are under
//! worker-parse's `testdata/openalex/`.
//!
//! The interface is the OpenAlex works search (`/works?search=`), keyless
//! or with the operator's free API key (the `api_key` parameter). Sources
//! of the record below:
//!
//! - Rates: "Rate limits and authentication"
//!   (<https://docs.openalex.org/how-to-use-the-api/rate-limits-and-authentication>):
//!   at most 10 requests per second and 100,000 a day; a `mailto`
//!   parameter puts requests in the polite pool.
//! - The key: "Authentication & Pricing"
//!   (<https://developers.openalex.org/api-reference/authentication>):
//!   a free key, sent as `api_key=YOUR_KEY` on each call, is asked for
//!   since 2026-02-13; without one the daily allowance is a small test
//!   budget (a few searches a day), with one it is enough for regular use;
//!   every caller at most 100 requests per second; a spent allowance is
//!   429. The key is optional here: a keyless engine still answers until
//!   its allowance is spent, then is skipped as rate limited.
//! - Storage and attribution: OpenAlex data is CC0
//!   (<https://openalex.org/about>, "Is OpenAlex open?"): answers may be
//!   kept, no attribution is required.
//! - Query syntax and `filter=from_publication_date`: "Search works" and
//!   "Filter works" (<https://docs.openalex.org/api-entities/works/search-works>).

use url::form_urlencoded;

use super::{
    Admission, BuiltRequest, CredentialRule, EngineSpec, LanguageSupport, ResultText, SearchContext,
};
use crate::vocabulary::Category;

/// The OpenAlex driver.
pub(crate) const SPEC: EngineSpec = EngineSpec {
    display_name: "OpenAlex",
    admission: ADMISSION,
    default_categories: &[Category::Science],
    credential: CredentialRule::Optional,
    in_default_set: true,
    scraping: false,
    // "Authentication & Pricing", since 2026-02-13.
    keyless_allowance: Some(
        "about ten searches a day without an API key; then rate limited until the next day",
    ),
    text: ResultText::MARKUP,
    endpoint_required: false,
    build,
};

/// OpenAlex's admission record.
const ADMISSION: Admission = Admission {
    // 10 requests per second.
    rate_limit_per_minute: Some(600),
    // No published concurrency bound; two in flight stays far below the
    // rate.
    concurrency_cap: 2,
    min_interval_ms: None,
    // No published bound on `search`; the contract's own (400) applies.
    max_query_chars: 400,
    min_word_chars: 0,
    // Search covers works in every language.
    languages: LanguageSupport::Any,
    // `filter=from_publication_date:YYYY-MM-DD`.
    time_ranges: true,
    // CC0 data: answers may be kept.
    cacheable: true,
    // CC0.
    attribution_required: false,
    // The polite pool asks for a contact.
    needs_contact_in_user_agent: true,
};

/// Endpoint used when the operator sets none.
const DEFAULT_ENDPOINT: &str = "https://api.openalex.org/works";

/// Largest `per-page` asked for: the parser keeps at most 50 hits.
const MAX_PER_PAGE: u32 = 50;

/// The fields the parser reads.
const SELECT: &str =
    "id,doi,display_name,publication_date,primary_location,authorships,abstract_inverted_index";

/// The registry's request builder.
fn build(endpoint: Option<&str>, ctx: &SearchContext<'_>) -> BuiltRequest {
    let base = ctx.endpoint(endpoint, DEFAULT_ENDPOINT);
    let per_page = ctx.count.clamp(1, MAX_PER_PAGE).to_string();
    let mut params = form_urlencoded::Serializer::new(String::new());
    params
        .append_pair("search", ctx.query)
        .append_pair("per-page", &per_page)
        .append_pair("select", SELECT);
    if let Some(since) = ctx.since_date() {
        params.append_pair("filter", &format!("from_publication_date:{since}"));
    }
    if let Some(mailto) = ctx.contact_email() {
        params.append_pair("mailto", mailto);
    }
    if let Some(key) = ctx.credential {
        params.append_pair("api_key", key.expose());
    }
    BuiltRequest::json(super::with_query(&base, &params.finish()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Credential;
    use crate::engine::tests::params;
    use crate::vocabulary::{SafeSearch, TimeRange};

    fn ctx(credential: Option<&Credential>) -> SearchContext<'_> {
        SearchContext {
            lang: "en",
            query: "graph neural networks",
            count: 10,
            category: Category::Science,
            region: "US",
            safe_search: SafeSearch::Moderate,
            time_range: Some(TimeRange::Year),
            credential,
            contact: "mailto:ops@example.org",
            now_unix: 1_700_000_000,
        }
    }

    #[test]
    fn asks_the_works_search_with_the_contact_and_the_range() {
        // Verifies: REQ-ENG-001, REQ-CMP-004, REQ-SEARCH-005
        let built = build(None, &ctx(None));
        assert!(built.url.starts_with(
            "https://api.openalex.org/works?search=graph+neural+networks&per-page=10&"
        ));
        let params = params(&built.url);
        assert!(params.contains(&("filter".into(), "from_publication_date:2022-11-13".into())));
        assert!(params.contains(&("mailto".into(), "ops@example.org".into())));
        assert!(!params.iter().any(|(name, _)| name == "api_key"));
    }

    #[test]
    fn the_key_travels_as_the_api_key_parameter() {
        // Verifies: REQ-CFG-004
        let key = Credential::new("openalex-key-not-secret".to_owned());
        let built = build(None, &ctx(Some(&key)));
        assert!(params(&built.url).contains(&("api_key".into(), "openalex-key-not-secret".into())));
        assert!(!format!("{built:?}").contains("openalex-key-not-secret"));
    }
}
