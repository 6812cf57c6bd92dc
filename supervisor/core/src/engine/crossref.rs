//! Crossref's driver, supervisor half: the admission record, the
//! configuration defaults and the request builder (REQ-CMP-001,
//! REQ-ENG-010, REQ-ENG-008). The parser is the other half, in
//! worker-parse's `engine/crossref.rs`; its fixtures are under
//! worker-parse's `testdata/crossref/`.
//!
//! The interface is the Crossref REST API's works search (`/works?query=`),
//! keyless. Sources of the record below:
//!
//! - Rates and the pools: Crossref's "Tips for using the Crossref REST
//!   API" (<https://www.crossref.org/documentation/retrieve-metadata/rest-api/tips-for-using-the-crossref-rest-api/>)
//!   and the answers' own headers (captured in the fixtures): the public
//!   pool allows `x-rate-limit-limit: 5` per `1s` with
//!   `x-concurrency-limit: 1`; the "polite" pool, for requests that carry a
//!   `mailto`, 10 per second with 3 at once.
//! - Storage: Crossref states that its metadata has no licence restriction
//!   (<https://www.crossref.org/documentation/retrieve-metadata/rest-api/#metadata-licence>);
//!   abstracts remain the publishers' text. Answers may be cached.
//! - Contact: the etiquette asks for a `mailto` parameter or a contact in
//!   the User-Agent; rypsok sends both when `[service] contact` is an
//!   e-mail address.

use url::form_urlencoded;

use super::{
    Admission, BuiltRequest, CredentialRule, EngineSpec, LanguageSupport, ResultText, SearchContext,
};
use crate::vocabulary::Category;

/// The Crossref driver.
pub(crate) const SPEC: EngineSpec = EngineSpec {
    display_name: "Crossref",
    admission: ADMISSION,
    default_categories: &[Category::Science],
    credential: CredentialRule::None,
    in_default_set: true,
    scraping: false,
    keyless_allowance: None,
    text: ResultText::MARKUP,
    endpoint_required: false,
    build,
};

/// Crossref's admission record.
const ADMISSION: Admission = Admission {
    // The public pool's 5 requests per second, which holds whether or not
    // the contact lets a request into the polite pool.
    rate_limit_per_minute: Some(300),
    // The public pool's `x-concurrency-limit: 1`.
    concurrency_cap: 1,
    min_interval_ms: None,
    // Crossref publishes no bound on `query`; the contract's own (LIM-S1,
    // 400) applies.
    max_query_chars: 400,
    min_word_chars: 0,
    // Bibliographic search has no language parameter: works in every
    // language are searched alike.
    languages: LanguageSupport::Any,
    // `filter=from-pub-date:YYYY-MM-DD`.
    time_ranges: true,
    // Crossref's metadata has no licence restriction: answers may be kept.
    cacheable: true,
    // Metadata without licence restriction; no attribution is asked.
    attribution_required: false,
    // The etiquette asks for a contact.
    needs_contact_in_user_agent: true,
};

/// Endpoint used when the operator sets none.
const DEFAULT_ENDPOINT: &str = "https://api.crossref.org/works";

/// Largest `rows` asked for: the parser keeps at most 50 hits.
const MAX_ROWS: u32 = 50;

/// The fields the parser reads: a smaller answer than whole records.
const SELECT: &str = "DOI,URL,title,abstract,container-title,author,published,\
                      published-print,published-online,issued";

/// The registry's request builder: `query`, `rows`, `select`, the contact
/// as `mailto`, and `filter=from-pub-date` for a time range.
fn build(endpoint: Option<&str>, ctx: &SearchContext<'_>) -> BuiltRequest {
    let base = ctx.endpoint(endpoint, DEFAULT_ENDPOINT);
    let rows = ctx.count.clamp(1, MAX_ROWS).to_string();
    let mut params = form_urlencoded::Serializer::new(String::new());
    params
        .append_pair("query", ctx.query)
        .append_pair("rows", &rows)
        .append_pair("select", SELECT);
    if let Some(since) = ctx.since_date() {
        params.append_pair("filter", &format!("from-pub-date:{since}"));
    }
    if let Some(mailto) = ctx.contact_email() {
        params.append_pair("mailto", mailto);
    }
    BuiltRequest::json(super::with_query(&base, &params.finish()))
}

#[cfg(test)]
mod tests {

    use super::*;
    use crate::engine::tests::params;
    use crate::vocabulary::{SafeSearch, TimeRange};

    fn ctx(contact: &str, time_range: Option<TimeRange>) -> SearchContext<'_> {
        SearchContext {
            lang: "en",
            query: "soil ecology",
            count: 10,
            category: Category::Science,
            region: "US",
            safe_search: SafeSearch::Moderate,
            time_range,
            credential: None,
            contact,
            now_unix: 1_700_000_000,
        }
    }

    #[test]
    fn asks_the_works_search_with_the_contact_and_the_range() {
        // Verifies: REQ-ENG-001, REQ-CMP-004, REQ-SEARCH-005
        let built = build(None, &ctx("ops@example.org", Some(TimeRange::Week)));
        assert!(
            built
                .url
                .starts_with("https://api.crossref.org/works?query=soil+ecology&rows=10&")
        );
        let params = params(&built.url);
        assert!(params.contains(&("mailto".into(), "ops@example.org".into())));
        // 2023-11-14 minus a week.
        assert!(params.contains(&("filter".into(), "from-pub-date:2023-11-07".into())));
        // A contact that is not an address is not sent as one.
        let built = build(None, &ctx("https://example.org/ops", None));
        assert!(!built.url.contains("mailto") && !built.url.contains("filter"));
    }
}
