//! Brave Search's driver, supervisor half: the admission record, the
//! configuration defaults and the request builder (REQ-CMP-001,
//! REQ-ENG-010, REQ-ENG-008). The parser is the
//! other half, in worker-parse's `engine/brave.rs`; its fixtures are under
//! worker-parse's `testdata/brave/`.
//!
//! The interface is the Brave Search API, with a key: the web search
//! endpoint for every category but `news`, the news search endpoint for
//! `news`. The key, read once at start from `api_key_env` or
//! `api_key_file`, travels in the `X-Subscription-Token` header, never in
//! the URL.
//!
//! An operator's `endpoint` is a template for the web endpoint (`{lang}`
//! substituted as for every engine); news requests use the same template
//! with its last `/web/search` (before any `?`) replaced by `/news/search`.
//! A template without `/web/search` serves both categories from one URL:
//! the parser reads either answer shape.

use rypsok_proto::Header;
use url::form_urlencoded;

use super::{
    Admission, BuiltRequest, CredentialRule, EngineSpec, LanguageSupport, ResultText,
    SearchContext, accept_json,
};
use crate::vocabulary::{Category, SafeSearch, TimeRange};

/// The Brave driver. Provider: Brave Software; interface: the Brave Search
/// API.
pub(crate) const SPEC: EngineSpec = EngineSpec {
    display_name: "Brave Search",
    admission: ADMISSION,
    default_categories: &[Category::General, Category::News],
    credential: CredentialRule::Required {
        default_env: "BRAVE_API_KEY",
    },
    in_default_set: true,
    scraping: false,
    keyless_allowance: None,
    text: ResultText::MARKUP,
    endpoint_required: false,
    build,
};

/// Brave's admission record.
const ADMISSION: Admission = Admission {
    // The Free plan allows 1 request per second (its answers say
    // `X-RateLimit-Limit: 1, ...`); paid plans allow more, but the key does
    // not tell which plan it belongs to, and the lowest published rate is
    // the one that holds for every key.
    rate_limit_per_minute: Some(60),
    // At 1 request per second, a second request in flight lands in the same
    // second and is answered 429 RATE_LIMITED, which public reports of
    // clients that fan out show. One at a time; a second call waits for the
    // slot within its own deadline.
    concurrency_cap: 1,
    min_interval_ms: None,
    // The API refuses a `q` longer than 400 characters or 50 words with a
    // 422 validation error. Only the character bound is an admission
    // property; a query of more than 50 words fails as `request_failure`.
    max_query_chars: 400,
    min_word_chars: 0,
    // The `search_lang` codes Brave documents, as the configuration spells
    // them; Japanese, configured as `ja`, is sent as Brave's `jp`.
    languages: LanguageSupport::Listed(&LANGUAGES),
    // `freshness` pd/pw/pm/py on both endpoints.
    time_ranges: true,
    // Brave's Search API Terms of Use restrict storing or caching search
    // results; the right to keep them ("storage rights") comes only with
    // particular plans, and the key does not tell the plan. Never cached.
    cacheable: false,
    // Brave's free offer is granted on condition that the project
    // attributes Brave Search, and the plan is unknown; naming the engine on
    // its results is the attribution rypsok can give. It costs a few tokens
    // per result.
    attribution_required: true,
    // Brave identifies clients by their key and publishes no User-Agent
    // policy.
    needs_contact_in_user_agent: false,
};

/// The registry's request builder: the key, when there is one, in its
/// header.
fn build(endpoint: Option<&str>, ctx: &SearchContext<'_>) -> BuiltRequest {
    let mut headers = vec![accept_json()];
    // Without a credential the engine is inactive and never built for;
    // were it built, Brave would refuse it as an authentication failure.
    if let Some(credential) = ctx.credential {
        headers.push(Header {
            name: TOKEN_HEADER.to_owned(),
            value: credential.expose().to_owned(),
        });
    }
    BuiltRequest {
        url: build_url(endpoint, ctx),
        headers,
        // Brave's results carry absolute URLs.
        base_url: String::new(),
    }
}

/// Header that carries the key.
const TOKEN_HEADER: &str = "x-subscription-token";

/// Endpoints used when the operator sets none.
const WEB_ENDPOINT: &str = "https://api.search.brave.com/res/v1/web/search";
const NEWS_ENDPOINT: &str = "https://api.search.brave.com/res/v1/news/search";
/// The path segment a template's news form replaces.
const WEB_PATH: &str = "/web/search";
const NEWS_PATH: &str = "/news/search";

/// Largest `count` each endpoint accepts.
const MAX_WEB_COUNT: u32 = 20;
const MAX_NEWS_COUNT: u32 = 50;

/// Brave's `search_lang` codes, as the configuration spells them (lower
/// case; `ja` where Brave says `jp`).
const LANGUAGES: [&str; 50] = [
    "ar", "bg", "bn", "ca", "cs", "da", "de", "en", "en-gb", "es", "et", "eu", "fi", "fr", "gl",
    "gu", "he", "hi", "hr", "hu", "is", "it", "ja", "kn", "ko", "lt", "lv", "ml", "mr", "ms", "nb",
    "nl", "pa", "pl", "pt-br", "pt-pt", "ro", "ru", "sk", "sl", "sr", "sv", "ta", "te", "th", "tr",
    "uk", "vi", "zh-hans", "zh-hant",
];

/// Brave's `country` codes. A configured region outside this list is sent
/// as `ALL` (no country preference): an unknown code would make Brave
/// refuse every request.
const COUNTRIES: [&str; 37] = [
    "AR", "AT", "AU", "BE", "BR", "CA", "CH", "CL", "CN", "DE", "DK", "ES", "FI", "FR", "GB", "HK",
    "ID", "IN", "IT", "JP", "KR", "MX", "MY", "NL", "NO", "NZ", "PH", "PL", "PT", "RU", "SA", "SE",
    "TR", "TW", "US", "ZA", "ALL",
];

/// Builds the search URL for one call: endpoint by category, then `q`,
/// `count` (within the endpoint's bound), `country`, `search_lang`,
/// `safesearch`, and `freshness` when the call has a time range. Web
/// requests also ask for web results only, which keeps the answer small.
fn build_url(endpoint: Option<&str>, ctx: &SearchContext<'_>) -> String {
    let news = ctx.category == Category::News;
    let base = match endpoint {
        Some(template) => {
            let template = template.replace("{lang}", ctx.lang);
            if news {
                news_endpoint(&template)
            } else {
                template
            }
        }
        None if news => NEWS_ENDPOINT.to_owned(),
        None => WEB_ENDPOINT.to_owned(),
    };
    let max_count = if news { MAX_NEWS_COUNT } else { MAX_WEB_COUNT };
    let count = ctx.count.clamp(1, max_count).to_string();
    let mut params = form_urlencoded::Serializer::new(String::new());
    params
        .append_pair("q", ctx.query)
        .append_pair("count", &count)
        .append_pair("country", country(ctx.region))
        .append_pair("search_lang", search_lang(ctx.lang))
        .append_pair("safesearch", safesearch(ctx.safe_search));
    if let Some(range) = ctx.time_range {
        params.append_pair("freshness", freshness(range));
    }
    if !news {
        params.append_pair("result_filter", "web");
    }
    let params = params.finish();
    super::with_query(&base, &params)
}

/// The news form of a web endpoint template.
fn news_endpoint(template: &str) -> String {
    let (path, query) = match template.find('?') {
        Some(at) => template.split_at(at),
        None => (template, ""),
    };
    match path.rfind(WEB_PATH) {
        Some(at) => format!(
            "{}{NEWS_PATH}{}{query}",
            &path[..at],
            &path[at + WEB_PATH.len()..]
        ),
        None => template.to_owned(),
    }
}

/// Brave's `search_lang` for a configured language code.
fn search_lang(lang: &str) -> &str {
    match lang {
        "ja" => "jp",
        other => other,
    }
}

fn country(region: &str) -> &'static str {
    COUNTRIES
        .iter()
        .find(|code| code.eq_ignore_ascii_case(region))
        .copied()
        .unwrap_or("ALL")
}

const fn safesearch(level: SafeSearch) -> &'static str {
    match level {
        SafeSearch::Off => "off",
        SafeSearch::Moderate => "moderate",
        SafeSearch::Strict => "strict",
    }
}

const fn freshness(range: TimeRange) -> &'static str {
    match range {
        TimeRange::Day => "pd",
        TimeRange::Week => "pw",
        TimeRange::Month => "pm",
        TimeRange::Year => "py",
    }
}

#[cfg(test)]
mod tests {

    use rypsok_proto::EngineKind;

    use super::*;
    use crate::config::Config;
    use crate::engine::{Credential, Driver};

    const KEY: &str = "BSAtestkey0123456789abcdefghijkl";

    fn ctx(category: Category) -> SearchContext<'static> {
        SearchContext {
            lang: "en",
            query: "hello world",
            count: 10,
            category,
            region: "US",
            safe_search: SafeSearch::Moderate,
            time_range: None,
            credential: None,
            contact: "",
            now_unix: 0,
        }
    }

    fn params(url: &str) -> Vec<(String, String)> {
        let query = url.split_once('?').unwrap().1;
        form_urlencoded::parse(query.as_bytes())
            .map(|(name, value)| (name.into_owned(), value.into_owned()))
            .collect()
    }

    fn param(url: &str, name: &str) -> Option<String> {
        params(url)
            .into_iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v)
    }

    fn engine_config() -> crate::config::EngineConfig {
        let config = Config::defaults();
        let engine = config
            .engines
            .iter()
            .find(|e| e.kind == EngineKind::Brave)
            .unwrap();
        engine.clone()
    }

    #[test]
    fn asks_the_web_endpoint_for_general() {
        // Verifies: REQ-ENG-001, REQ-ENG-011, REQ-SEARCH-008
        assert_eq!(
            build_url(None, &ctx(Category::General)),
            "https://api.search.brave.com/res/v1/web/search?q=hello+world&count=10&country=US\
             &search_lang=en&safesearch=moderate&result_filter=web"
        );
    }

    #[test]
    fn asks_the_news_endpoint_for_news() {
        // Verifies: REQ-ENG-001, REQ-ENG-007
        assert_eq!(
            build_url(None, &ctx(Category::News)),
            "https://api.search.brave.com/res/v1/news/search?q=hello+world&count=10&country=US\
             &search_lang=en&safesearch=moderate"
        );
        // Categories other than news search the web.
        for category in [Category::Science, Category::Code] {
            assert!(build_url(None, &ctx(category)).starts_with(WEB_ENDPOINT));
        }
    }

    #[test]
    fn sends_japanese_as_jp_and_other_codes_as_configured() {
        // Verifies: REQ-SEARCH-004, REQ-ENG-010
        for (lang, sent) in [
            ("ja", "jp"),
            ("en", "en"),
            ("pt-br", "pt-br"),
            ("zh-hans", "zh-hans"),
            ("en-gb", "en-gb"),
        ] {
            let url = build_url(
                None,
                &SearchContext {
                    lang,
                    ..ctx(Category::General)
                },
            );
            assert_eq!(param(&url, "search_lang").as_deref(), Some(sent), "{lang}");
        }
        assert!(ADMISSION.languages.honours("ja"));
        assert!(ADMISSION.languages.honours("zh-hant"));
        assert!(!ADMISSION.languages.honours("jp"));
        assert!(!ADMISSION.languages.honours("pt"));
        assert!(!ADMISSION.languages.honours("zh"));
    }

    #[test]
    fn maps_time_ranges_to_freshness() {
        // Verifies: REQ-SEARCH-005
        for (range, sent) in [
            (TimeRange::Day, "pd"),
            (TimeRange::Week, "pw"),
            (TimeRange::Month, "pm"),
            (TimeRange::Year, "py"),
        ] {
            for category in [Category::General, Category::News] {
                let url = build_url(
                    None,
                    &SearchContext {
                        time_range: Some(range),
                        ..ctx(category)
                    },
                );
                assert_eq!(param(&url, "freshness").as_deref(), Some(sent));
            }
        }
        assert_eq!(
            param(&build_url(None, &ctx(Category::General)), "freshness"),
            None
        );
        const { assert!(ADMISSION.time_ranges) };
    }

    #[test]
    fn maps_safe_search_and_region() {
        // Verifies: REQ-SEARCH-008
        for (level, sent) in [
            (SafeSearch::Off, "off"),
            (SafeSearch::Moderate, "moderate"),
            (SafeSearch::Strict, "strict"),
        ] {
            let url = build_url(
                None,
                &SearchContext {
                    safe_search: level,
                    ..ctx(Category::News)
                },
            );
            assert_eq!(param(&url, "safesearch").as_deref(), Some(sent));
        }
        for (region, sent) in [
            ("DE", "DE"),
            ("GB", "GB"),
            ("JP", "JP"),
            ("AQ", "ALL"),
            ("UK", "ALL"),
        ] {
            let url = build_url(
                None,
                &SearchContext {
                    region,
                    ..ctx(Category::General)
                },
            );
            assert_eq!(param(&url, "country").as_deref(), Some(sent), "{region}");
        }
    }

    #[test]
    fn keeps_count_within_each_endpoint() {
        // Verifies: REQ-ENG-011
        let count = |category, count| {
            param(
                &build_url(
                    None,
                    &SearchContext {
                        count,
                        ..ctx(category)
                    },
                ),
                "count",
            )
            .unwrap()
        };
        assert_eq!(count(Category::General, 0), "1");
        assert_eq!(count(Category::General, 20), "20");
        assert_eq!(count(Category::General, 21), "20");
        assert_eq!(count(Category::News, 21), "21");
        assert_eq!(count(Category::News, 500), "50");
    }

    #[test]
    fn encodes_the_query_as_one_parameter() {
        // Verifies: REQ-ENG-001, REQ-SEC-017
        let query = "a&b=c #frag +plus Größe&count=99";
        let url = build_url(
            None,
            &SearchContext {
                query,
                ..ctx(Category::General)
            },
        );
        assert!(!url.contains('#'));
        assert_eq!(param(&url, "q").as_deref(), Some(query));
        let counts: Vec<_> = params(&url)
            .into_iter()
            .filter(|(n, _)| n == "count")
            .collect();
        assert_eq!(counts, [("count".to_owned(), "10".to_owned())]);
    }

    #[test]
    fn derives_the_news_endpoint_from_an_override() {
        // Verifies: REQ-ENG-001, REQ-CFG-001
        let web = "http://127.0.0.1:8080/res/v1/web/search";
        assert!(
            build_url(Some(web), &ctx(Category::General))
                .starts_with("http://127.0.0.1:8080/res/v1/web/search?q=")
        );
        assert!(
            build_url(Some(web), &ctx(Category::News))
                .starts_with("http://127.0.0.1:8080/res/v1/news/search?q=")
        );
        let with_query = "https://proxy.example/web/search/web/search?route=/web/search&{lang}";
        assert!(
            build_url(Some(with_query), &ctx(Category::News)).starts_with(
                "https://proxy.example/web/search/news/search?route=/web/search&en&q=hello+world&"
            )
        );
        let elsewhere = "https://proxy.example/brave";
        assert!(
            build_url(Some(elsewhere), &ctx(Category::News))
                .starts_with("https://proxy.example/brave?q=")
        );
    }

    #[test]
    fn sends_the_key_in_its_header_never_in_the_url() {
        // Verifies: REQ-CFG-004, REQ-SEC-017
        let credential = Credential::new(KEY.to_owned());
        let engine = engine_config();
        for category in [Category::General, Category::News] {
            let built = EngineKind::Brave.build(
                engine.endpoint.as_deref(),
                &SearchContext {
                    credential: Some(&credential),
                    ..ctx(category)
                },
            );
            assert!(!built.url.contains(KEY));
            assert!(!built.url.contains("BSAtest"));
            let tokens: Vec<&str> = built
                .headers
                .iter()
                .filter(|h| h.name == TOKEN_HEADER)
                .map(|h| h.value.as_str())
                .collect();
            assert_eq!(tokens, [KEY]);
            assert!(!format!("{built:?}").contains(KEY));
        }
        assert!(!format!("{credential:?}").contains(KEY));
        let keyless = EngineKind::Brave.build(engine.endpoint.as_deref(), &ctx(Category::General));
        assert!(keyless.headers.iter().all(|h| h.name != TOKEN_HEADER));
    }

    #[test]
    fn admits_queries_up_to_400_characters() {
        // Verifies: REQ-ENG-010, REQ-CMP-002
        assert!(ADMISSION.accepts_query(&"é".repeat(400)));
        assert!(!ADMISSION.accepts_query(&"e".repeat(401)));
        assert!(SPEC.credential.is_required());
        assert_eq!(ADMISSION.concurrency_cap, 1);
        assert_eq!(EngineKind::parse("brave"), Some(EngineKind::Brave));
    }

    #[test]
    fn lists_each_language_once_in_configuration_spelling() {
        // Verifies: REQ-ENG-010
        for (i, code) in LANGUAGES.iter().enumerate() {
            assert!(!LANGUAGES[..i].contains(code), "{code}");
            assert_eq!(code.to_ascii_lowercase(), *code);
        }
    }

    /// The driver inside the services: the credential read at start, the
    /// status of a keyless engine, and the request the pipeline sends.
    mod services {

        use std::sync::{Arc, Mutex};

        use rypsok_proto::{
            EngineHit, EngineParse, ExchangeRequest, ExchangeResponse, PageParse, RobotsRules,
        };
        use serde_json::{Map, Value, json};
        use tokio::time::Instant;

        use super::*;
        use crate::config::SecretRef;
        use crate::ports::{
            Document, EngineResponse, ExchangeError, NetPort, ParsePort, PortError, PortFuture,
        };
        use crate::services::Services;

        #[derive(Default)]
        struct Net(Mutex<Vec<ExchangeRequest>>);

        impl NetPort for Net {
            fn exchange(
                &self,
                request: ExchangeRequest,
                _deadline: Instant,
            ) -> PortFuture<'_, Result<ExchangeResponse, ExchangeError>> {
                self.0.lock().unwrap().push(request);
                Box::pin(async {
                    Ok(ExchangeResponse {
                        status: 200,
                        headers: vec![],
                        body: b"{}".to_vec(),
                    })
                })
            }
        }

        #[derive(Default)]
        struct Parse(Mutex<Vec<EngineKind>>);

        impl ParsePort for Parse {
            fn parse_engine_answer(
                &self,
                answer: EngineResponse,
                _deadline: Instant,
            ) -> PortFuture<'_, Result<EngineParse, PortError>> {
                self.0.lock().unwrap().push(answer.engine);
                Box::pin(async {
                    Ok(EngineParse::Hits(vec![EngineHit {
                        title: "Hit".to_owned(),
                        url: "https://example.com/".to_owned(),
                        snippet: "s".to_owned(),
                        date: None,
                    }]))
                })
            }

            fn parse_page(
                &self,
                _document: Document,
                _deadline: Instant,
            ) -> PortFuture<'_, Result<PageParse, PortError>> {
                Box::pin(async { Err(PortError::Unavailable) })
            }

            fn parse_robots(
                &self,
                _body: Vec<u8>,
                _deadline: Instant,
            ) -> PortFuture<'_, Result<RobotsRules, PortError>> {
                Box::pin(async { Err(PortError::Unavailable) })
            }
        }

        fn args(value: Value) -> Map<String, Value> {
            value.as_object().unwrap().clone()
        }

        #[tokio::test]
        async fn a_keyless_brave_engine_is_disabled_for_want_of_a_credential() {
            // Verifies: REQ-OPS-003, REQ-CFG-003
            let mut config = Config::defaults();
            for engine in &mut config.engines {
                if engine.kind == EngineKind::Brave {
                    // The default reference, unless the test machine sets it.
                    engine.credential =
                        Some(SecretRef::Env("RYPSOK_TEST_UNSET_BRAVE_KEY".to_owned()));
                }
            }
            // The adapter found no secret where the reference points.
            let services = Services::new(
                Arc::new(config),
                Arc::new(Net::default()),
                Arc::new(Parse::default()),
                &std::collections::HashMap::new(),
            );
            let status = services.engine_status(&Map::new()).await.unwrap().to_wire();
            let brave = status["engines"]
                .as_array()
                .unwrap()
                .iter()
                .find(|e| e["id"] == "brave")
                .unwrap();
            assert_eq!(
                brave,
                &json!({"id": "brave", "state": "disabled", "latency_ms": null, "reason": "no_credential"})
            );
        }

        #[tokio::test]
        async fn a_brave_engine_with_a_key_searches_with_the_key_in_its_header() {
            // Verifies: REQ-CFG-004, REQ-ENG-001, REQ-CMP-003
            let mut config = Config::defaults();
            config.engines.retain(|e| e.kind == EngineKind::Brave);
            config.search.region = "DE".to_owned();
            config.search.safe_search = SafeSearch::Strict;
            let net = Arc::new(Net::default());
            let parse = Arc::new(Parse::default());
            // The key as the adapter read it at start.
            let credentials = [(config.engines[0].id.clone(), KEY.to_owned())].into();
            let services =
                Services::new(Arc::new(config), net.clone(), parse.clone(), &credentials);

            let answer = services
                .web_search(&args(
                    json!({"query": "rust", "category": "news", "time_range": "week"}),
                ))
                .await
                .unwrap()
                .to_wire();
            assert_eq!(answer["outcome"], "ok");
            // Brave's results name their engine (REQ-CMP-003).
            assert_eq!(answer["results"][0]["engines"], json!(["brave"]));

            let sent = net.0.lock().unwrap();
            assert_eq!(sent.len(), 1);
            let url = &sent[0].url;
            assert!(url.starts_with(NEWS_ENDPOINT), "{url}");
            assert!(!url.contains(KEY));
            assert_eq!(param(url, "country").as_deref(), Some("DE"));
            assert_eq!(param(url, "safesearch").as_deref(), Some("strict"));
            assert_eq!(param(url, "freshness").as_deref(), Some("pw"));
            let token: Vec<&str> = sent[0]
                .headers
                .iter()
                .filter(|h| h.name == TOKEN_HEADER)
                .map(|h| h.value.as_str())
                .collect();
            assert_eq!(token, [KEY]);
            let parsed = parse.0.lock().unwrap();
            assert_eq!(parsed.as_slice(), [EngineKind::Brave]);
            assert!(!format!("{services:?}").contains(KEY));
        }
    }
}
