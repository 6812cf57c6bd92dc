//! SearXNG's driver, supervisor half: the admission record, the
//! configuration defaults and the request builder (REQ-CMP-001,
//! REQ-ENG-010). The parser is the other half, in worker-parse's
//! `engine/searxng.rs`; its fixtures are under worker-parse's
//! `testdata/searxng/`.
//!
//! The interface is the JSON output (`format=json`) of the operator's own
//! SearXNG instance: `endpoint` is required, and the engine is never in the
//! zero configuration. The instance must list `json` under
//! `search.formats` in its settings. The operator answers for what the
//! instance itself queries. Sources: the search API
//! (<https://docs.searxng.org/dev/search_api.html>: `q`, `format`,
//! `language`, `safesearch` 0/1/2, `time_range` day/month/year (and week on
//! current instances), `categories`, `pageno`).
//!
//! The credential: SearXNG has no API key of its own (its settings have a
//! `secret_key` for its own cryptography and a limiter, neither a client
//! key: <https://docs.searxng.org/admin/settings/settings_server.html>); an
//! operator who closes an instance to others does it in the reverse proxy
//! the instance runs behind (SearXNG's own set-up puts it behind nginx or
//! Apache: <https://docs.searxng.org/admin/installation-nginx.html>), with
//! HTTP authentication: Basic (nginx's `auth_basic`,
//! <https://nginx.org/en/docs/http/ngx_http_auth_basic_module.html>) or a
//! bearer token. So the optional credential is the whole value of the
//! `Authorization` header, scheme included (`Basic dXNlcjpwYXNz` or
//! `Bearer <token>`), sent as read and only to the instance (no redirect
//! is followed for an engine). A proxy that wants a header of another name
//! is not served.

use rypsok_proto::Header;
use url::form_urlencoded;

use super::{
    Admission, BuiltRequest, CredentialRule, EngineSpec, LanguageSupport, ResultText,
    SearchContext, TextForm,
};
use crate::vocabulary::{Category, SafeSearch, TimeRange};

/// The SearXNG driver.
pub(crate) const SPEC: EngineSpec = EngineSpec {
    display_name: "SearXNG",
    admission: ADMISSION,
    default_categories: &[Category::General],
    credential: CredentialRule::Optional,
    in_default_set: false,
    scraping: false,
    keyless_allowance: None,
    // Titles are plain text; `content` may mark matched words.
    text: ResultText {
        title: TextForm::Plain,
        snippet: TextForm::Highlighted,
    },
    endpoint_required: true,
    build,
};

/// SearXNG's admission record: the operator's own instance publishes no
/// limits but the ones its operator set (its limiter).
const ADMISSION: Admission = Admission {
    rate_limit_per_minute: None,
    concurrency_cap: 2,
    min_interval_ms: None,
    max_query_chars: 400,
    min_word_chars: 0,
    // `language` is passed through.
    languages: LanguageSupport::Any,
    time_ranges: true,
    // The instance relays other providers' answers, whose terms are unknown: not kept.
    cacheable: false,
    // The instance merges other engines' results; rypsok names it.
    attribution_required: false,
    needs_contact_in_user_agent: false,
};

/// What stands in for an endpoint that configuration requires: never
/// reached, since `check` refuses a SearXNG engine without one.
const NO_ENDPOINT: &str = "https://searxng.invalid/search";

/// The Accept sent: JSON first, `text/html` for the limiter.
const LIMITER_ACCEPT: &str = "application/json, text/html;q=0.1";

/// The registry's request builder.
fn build(endpoint: Option<&str>, ctx: &SearchContext<'_>) -> BuiltRequest {
    let base = endpoint.unwrap_or(NO_ENDPOINT).replace("{lang}", ctx.lang);
    let mut params = form_urlencoded::Serializer::new(String::new());
    params
        .append_pair("q", ctx.query)
        .append_pair("format", "json")
        .append_pair("language", ctx.lang)
        .append_pair("safesearch", safesearch(ctx.safe_search))
        .append_pair("categories", category(ctx.category))
        .append_pair("pageno", "1");
    if let Some(range) = ctx.time_range {
        params.append_pair("time_range", time_range(range));
    }
    let mut built = BuiltRequest::json(super::with_query(&base, &params.finish()));
    // SearXNG's limiter (on in many container setups) refuses a request
    // whose Accept lacks `text/html` or that has no Accept-Language: both
    // are sent, with JSON still preferred. worker-net's own Accept-Encoding
    // (gzip among others) and its keep-alive connection pass the limiter's
    // other header checks.
    built.headers = vec![
        Header {
            name: "accept".to_owned(),
            value: LIMITER_ACCEPT.to_owned(),
        },
        Header {
            name: "accept-language".to_owned(),
            value: format!("{}, *;q=0.5", ctx.lang),
        },
    ];
    if let Some(credential) = ctx.credential {
        built.headers.push(Header {
            name: "authorization".to_owned(),
            value: credential.expose().to_owned(),
        });
    }
    built
}

const fn safesearch(level: SafeSearch) -> &'static str {
    match level {
        SafeSearch::Off => "0",
        SafeSearch::Moderate => "1",
        SafeSearch::Strict => "2",
    }
}

/// SearXNG's category of a call's category; `code` is its `it`.
const fn category(category: Category) -> &'static str {
    match category {
        Category::General => "general",
        Category::News => "news",
        Category::Science => "science",
        Category::Code => "it",
    }
}

const fn time_range(range: TimeRange) -> &'static str {
    match range {
        TimeRange::Day => "day",
        TimeRange::Week => "week",
        TimeRange::Month => "month",
        TimeRange::Year => "year",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Credential;

    fn ctx(credential: Option<&Credential>) -> SearchContext<'_> {
        SearchContext {
            lang: "de",
            query: "rust",
            count: 10,
            category: Category::Code,
            region: "DE",
            safe_search: SafeSearch::Strict,
            time_range: Some(TimeRange::Month),
            credential,
            contact: "",
            now_unix: 1_700_000_000,
        }
    }

    #[test]
    fn asks_the_operators_instance_for_json() {
        // Verifies: REQ-ENG-001, REQ-SEARCH-005
        let built = build(Some("http://127.0.0.1:8888/search"), &ctx(None));
        assert!(!built.headers.iter().any(|h| h.name == "authorization"));
        assert_eq!(
            built.url,
            "http://127.0.0.1:8888/search?q=rust&format=json&language=de&safesearch=2\
             &categories=it&pageno=1&time_range=month"
        );
        const { assert!(SPEC.endpoint_required && !SPEC.in_default_set) };
    }

    #[test]
    fn sends_the_headers_the_instances_limiter_asks_for() {
        // Verifies: REQ-ENG-001
        let built = build(Some("https://searx.example/search"), &ctx(None));
        let header = |name: &str| {
            built
                .headers
                .iter()
                .find(|h| h.name == name)
                .map(|h| h.value.clone())
                .unwrap_or_default()
        };
        let accept = header("accept");
        assert!(accept.starts_with("application/json"), "{accept}");
        assert!(accept.contains("text/html"), "{accept}");
        assert!(header("accept-language").starts_with("de"));
        assert_eq!(
            built.headers.iter().filter(|h| h.name == "accept").count(),
            1
        );
    }

    #[test]
    fn the_credential_is_the_authorization_header_as_written() {
        // Verifies: REQ-CFG-004
        let basic = Credential::new("Basic cnlwc29rOm5vdC1zZWNyZXQ=".to_owned());
        let built = build(Some("http://127.0.0.1:8888/search"), &ctx(Some(&basic)));
        assert!(
            built
                .headers
                .iter()
                .any(|h| h.name == "authorization" && h.value == "Basic cnlwc29rOm5vdC1zZWNyZXQ=")
        );
        assert!(!built.url.contains("cnlwc29r"));
    }
}
