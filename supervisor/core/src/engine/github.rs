//! GitHub's driver, supervisor half: the admission record, the
//! configuration defaults and the request builder (REQ-CMP-001,
//! REQ-ENG-010, REQ-ENG-008). The parser is the other half, in
//! worker-parse's `engine/github.rs`; its fixtures are under worker-parse's
//! `testdata/github/`.
//!
//! The interface is GitHub's REST search of repositories
//! (`/search/repositories`), keyless or with the operator's token (in the
//! `Authorization` header). An operator's `endpoint` ending in
//! `/search/issues` searches issues instead: the parser reads both. GitHub
//! announced the removal of the legacy issues search: an issues request
//! carries `advanced_search=true` and, as that form requires, an `is:issue`
//! qualifier (unless the query names `is:issue`, `is:pr` or
//! `is:pull-request` itself). Sources of the record below:
//!
//! - Rates and query length: "Search" (<https://docs.github.com/en/rest/search/search>):
//!   10 requests a minute without a token, 30 with one; a query of at most
//!   256 characters (qualifiers aside).
//! - Secondary limits (concurrency, `retry-after`) and the primary limit's
//!   headers (`x-ratelimit-remaining`, `x-ratelimit-reset` in UTC epoch
//!   seconds): "Rate limits for the REST API"
//!   (<https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api>).
//!   The parser reads them into the wait (capped at `RETRY_AFTER_MAX_S`):
//!   the engine is skipped as rate limited until GitHub's reset.
//! - User-Agent: every request must carry one, any will do
//!   (<https://docs.github.com/en/rest/using-the-rest-api/getting-started-with-the-rest-api#user-agent>).
//! - Terms: GitHub's API terms (<https://docs.github.com/en/site-policy/github-terms/github-terms-of-service#h-api-terms>)
//!   ask for no attribution of search results.

use rypsok_proto::Header;
use url::form_urlencoded;

use super::{
    Admission, BuiltRequest, CredentialRule, EngineSpec, LanguageSupport, ResultText, SearchContext,
};
use crate::vocabulary::Category;

/// The GitHub driver.
pub(crate) const SPEC: EngineSpec = EngineSpec {
    display_name: "GitHub",
    admission: ADMISSION,
    default_categories: &[Category::Code],
    credential: CredentialRule::Optional,
    in_default_set: true,
    scraping: false,
    keyless_allowance: None,
    // Titles, names and descriptions are plain text; an issue's body is
    // Markdown whose HTML tags the parser removes.
    text: ResultText::PLAIN,
    endpoint_required: false,
    build,
};

/// GitHub's admission record.
const ADMISSION: Admission = Admission {
    // The keyless search rate, which holds with or without a token.
    rate_limit_per_minute: Some(10),
    // The secondary limits punish parallel search requests.
    concurrency_cap: 1,
    min_interval_ms: None,
    // 256 characters of query text.
    max_query_chars: 256,
    min_word_chars: 0,
    // Repositories of every language are searched alike.
    languages: LanguageSupport::Any,
    // `pushed:>=YYYY-MM-DD`.
    time_ranges: true,
    // The API terms say nothing clear on keeping answers: not kept.
    cacheable: false,
    attribution_required: false,
    needs_contact_in_user_agent: false,
};

/// Endpoint used when the operator sets none.
const DEFAULT_ENDPOINT: &str = "https://api.github.com/search/repositories";

/// Largest `per_page` asked for.
const MAX_PER_PAGE: u32 = 50;

/// The registry's request builder.
fn build(endpoint: Option<&str>, ctx: &SearchContext<'_>) -> BuiltRequest {
    let base = ctx.endpoint(endpoint, DEFAULT_ENDPOINT);
    let mut q = ctx.query.to_owned();
    let issues = base
        .split('?')
        .next()
        .is_some_and(|p| p.ends_with("/issues"));
    if issues && !names_issue_kind(&q) {
        q.push_str(" is:issue");
    }
    if let Some(since) = ctx.since_date() {
        let qualifier = if issues { "created" } else { "pushed" };
        q.push_str(&format!(" {qualifier}:>={since}"));
    }
    let per_page = ctx.count.clamp(1, MAX_PER_PAGE).to_string();
    let mut params = form_urlencoded::Serializer::new(String::new());
    params
        .append_pair("q", &q)
        .append_pair("per_page", &per_page);
    if issues {
        params.append_pair("advanced_search", "true");
    }
    let params = params.finish();
    let mut headers = vec![
        Header {
            name: "accept".to_owned(),
            value: "application/vnd.github+json".to_owned(),
        },
        Header {
            name: "x-github-api-version".to_owned(),
            value: "2022-11-28".to_owned(),
        },
    ];
    if let Some(token) = ctx.credential {
        headers.push(Header {
            name: "authorization".to_owned(),
            value: format!("Bearer {}", token.expose()),
        });
    }
    BuiltRequest {
        url: super::with_query(&base, &params),
        headers,
        base_url: String::new(),
    }
}

/// Whether a query already says which kind of issue it searches.
fn names_issue_kind(query: &str) -> bool {
    query.split_whitespace().any(|word| {
        [
            "is:issue",
            "is:pr",
            "is:pull-request",
            "type:issue",
            "type:pr",
        ]
        .iter()
        .any(|kind| word.eq_ignore_ascii_case(kind))
    })
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
            query: "tetris",
            count: 10,
            category: Category::Code,
            region: "US",
            safe_search: SafeSearch::Moderate,
            time_range: Some(TimeRange::Year),
            credential,
            contact: "",
            now_unix: 1_700_000_000,
        }
    }

    #[test]
    fn searches_repositories_pushed_in_the_range() {
        // Verifies: REQ-ENG-001, REQ-SEARCH-005
        let built = build(None, &ctx(None));
        assert!(
            built
                .url
                .starts_with("https://api.github.com/search/repositories?")
        );
        assert!(params(&built.url).contains(&("q".into(), "tetris pushed:>=2022-11-13".into())));
        assert!(!built.headers.iter().any(|h| h.name == "authorization"));
        let issues = build(Some("http://127.0.0.1:8080/search/issues"), &ctx(None));
        assert!(
            params(&issues.url)
                .contains(&("q".into(), "tetris is:issue created:>=2022-11-13".into()))
        );
    }

    #[test]
    fn an_issues_endpoint_asks_for_the_advanced_issues_search() {
        // Verifies: REQ-ENG-001
        let issues = build(Some("http://127.0.0.1:8080/search/issues"), &ctx(None));
        assert!(
            params(&issues.url).contains(&("advanced_search".into(), "true".into())),
            "{}",
            issues.url
        );
        let repos = build(None, &ctx(None));
        assert!(!repos.url.contains("advanced_search"));
        // A query that names its kind keeps it, without a second one.
        let mut pr = ctx(None);
        pr.query = "tetris is:pr";
        pr.time_range = None;
        let built = build(Some("http://127.0.0.1:8080/search/issues"), &pr);
        assert!(params(&built.url).contains(&("q".into(), "tetris is:pr".into())));
    }

    #[test]
    fn a_token_travels_in_the_authorization_header_only() {
        // Verifies: REQ-CFG-004, REQ-SEC-017
        let token = Credential::new("ghp_exampletoken0123456789".to_owned());
        let built = build(None, &ctx(Some(&token)));
        assert!(!built.url.contains("ghp_"));
        assert!(
            built.headers.iter().any(
                |h| h.name == "authorization" && h.value == "Bearer ghp_exampletoken0123456789"
            )
        );
    }
}
