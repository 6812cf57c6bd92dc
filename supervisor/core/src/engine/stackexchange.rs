//! Stack Exchange's driver, supervisor half: the admission record, the
//! configuration defaults and the request builder (REQ-CMP-001,
//! REQ-ENG-010, REQ-ENG-008). The parser is the other half, in
//! worker-parse's `engine/stackexchange.rs`; its fixtures are under
//! worker-parse's `testdata/stackexchange/`.
//!
//! The interface is the Stack Exchange API 2.3's `/search/advanced` on
//! Stack Overflow, keyless or with the operator's application key. An
//! operator's `endpoint` that names a `site=` of its own searches that site
//! instead. Sources of the record below:
//!
//! - Throttles (<https://api.stackexchange.com/docs/throttle>): more than
//!   30 requests a second from one address is refused; the daily quota is
//!   300 requests without a key and 10,000 with one; a `backoff` in an
//!   answer must be honoured before the same method is called again (the
//!   parser reports it, and the engine rests that long).
//! - Keys: "Authentication" (<https://api.stackexchange.com/docs/authentication>):
//!   an application key is not a secret and is passed as the `key`
//!   parameter.
//! - Errors: <https://api.stackexchange.com/docs/error-handling>.
//! - Content licence and attribution: user contributions are CC BY-SA
//!   (<https://stackoverflow.com/help/licensing>), whose attribution the
//!   network's "Attribution required" policy spells out: results link to
//!   the question and name the engine.

use url::form_urlencoded;

use super::{
    Admission, BuiltRequest, CredentialRule, EngineSpec, LanguageSupport, ResultText, SearchContext,
};
use crate::vocabulary::Category;

/// The Stack Exchange driver.
pub(crate) const SPEC: EngineSpec = EngineSpec {
    display_name: "Stack Exchange",
    admission: ADMISSION,
    default_categories: &[Category::Code],
    credential: CredentialRule::Optional,
    in_default_set: true,
    scraping: false,
    keyless_allowance: None,
    text: ResultText::MARKUP,
    endpoint_required: false,
    build,
};

/// Stack Exchange's admission record.
const ADMISSION: Admission = Admission {
    // The per-second ceiling is 30; the keyless daily quota (300) is the
    // tighter bound, and a per-minute window cannot hold a day: 30 a minute
    // keeps bursts small, and a spent quota comes back as a throttle
    // violation whose cooldown is long.
    rate_limit_per_minute: Some(30),
    concurrency_cap: 1,
    min_interval_ms: None,
    // No published bound on `q`; the contract's own (400) applies.
    max_query_chars: 400,
    min_word_chars: 0,
    // Stack Overflow is an English site.
    languages: LanguageSupport::Listed(&["en"]),
    // `fromdate` (Unix seconds).
    time_ranges: true,
    // The terms say nothing clear on keeping answers: not kept.
    cacheable: false,
    // CC BY-SA with the network's attribution policy.
    attribution_required: true,
    needs_contact_in_user_agent: false,
};

/// Endpoint used when the operator sets none.
const DEFAULT_ENDPOINT: &str = "https://api.stackexchange.com/2.3/search/advanced";

/// The site searched when the endpoint names none.
const DEFAULT_SITE: &str = "stackoverflow";

/// Largest `pagesize` the API accepts.
const MAX_PAGESIZE: u32 = 50;

/// The registry's request builder.
fn build(endpoint: Option<&str>, ctx: &SearchContext<'_>) -> BuiltRequest {
    let base = ctx.endpoint(endpoint, DEFAULT_ENDPOINT);
    let names_site = base
        .split_once('?')
        .is_some_and(|(_, query)| query.split('&').any(|pair| pair.starts_with("site=")));
    let pagesize = ctx.count.clamp(1, MAX_PAGESIZE).to_string();
    let mut params = form_urlencoded::Serializer::new(String::new());
    params
        .append_pair("q", ctx.query)
        .append_pair("order", "desc")
        .append_pair("sort", "relevance")
        .append_pair("pagesize", &pagesize);
    if !names_site {
        params.append_pair("site", DEFAULT_SITE);
    }
    if let Some(since) = ctx.since_unix() {
        params.append_pair("fromdate", &since.to_string());
    }
    if let Some(key) = ctx.credential {
        params.append_pair("key", key.expose());
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
            query: "borrow checker loop",
            count: 10,
            category: Category::Code,
            region: "US",
            safe_search: SafeSearch::Moderate,
            time_range: Some(TimeRange::Month),
            credential,
            contact: "",
            now_unix: 1_700_000_000,
        }
    }

    #[test]
    fn searches_stack_overflow_by_relevance_since_the_range() {
        // Verifies: REQ-ENG-001, REQ-SEARCH-005
        let built = build(None, &ctx(None));
        assert!(built.url.starts_with(
            "https://api.stackexchange.com/2.3/search/advanced?q=borrow+checker+loop&order=desc\
             &sort=relevance&pagesize=10&site=stackoverflow&fromdate=1697321600"
        ));
        assert!(!built.url.contains("key="));
    }

    #[test]
    fn an_endpoint_may_name_its_site_and_a_key_is_a_parameter() {
        // Verifies: REQ-CFG-001, REQ-CFG-004
        let key = Credential::new("app-key-not-secret".to_owned());
        let built = build(
            Some("https://api.stackexchange.com/2.3/search/advanced?site=superuser"),
            &ctx(Some(&key)),
        );
        let sites: Vec<_> = params(&built.url)
            .into_iter()
            .filter(|(name, _)| name == "site")
            .collect();
        assert_eq!(sites, [("site".to_owned(), "superuser".to_owned())]);
        assert!(params(&built.url).contains(&("key".into(), "app-key-not-secret".into())));
    }
}
