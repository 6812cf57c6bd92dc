//! Configuration tests: the built-in defaults, one fixture per refusal under
//! `testdata/config/`, and the properties no fixture shows alone (order,
//! secrets never echoed, secret references).

use std::net::IpAddr;
use std::path::{Path, PathBuf};

use rypsok_egress::{EgressPolicy, RulePort, RuleTarget, StaticHost};
use rypsok_proto::LogLevel;

use super::*;
use crate::engine::Driver;
use crate::limits;

fn problems(text: &str) -> Vec<String> {
    match load_str(text) {
        Ok(_) => Vec::new(),
        Err(problems) => problems.iter().map(ToString::to_string).collect(),
    }
}

fn load(text: &str) -> Config {
    load_str(text).unwrap_or_else(|p| panic!("unexpected problems: {p:?}"))
}

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/config")
}

// The core reads no file; its tests read their fixtures.
#[allow(clippy::disallowed_methods)]
#[test]
fn every_fixture_gives_exactly_its_expected_problems() {
    // Verifies: REQ-CFG-005 (each refusal, with its key path, and nothing else)
    let mut paths: Vec<PathBuf> = std::fs::read_dir(fixture_dir())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "toml"))
        .collect();
    paths.sort();
    assert!(paths.len() >= 60, "fixtures missing: {}", paths.len());
    for path in paths {
        let text = std::fs::read_to_string(&path).unwrap();
        let expected: Vec<&str> = text
            .lines()
            .map_while(|line| line.strip_prefix("# expect: "))
            .collect();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        assert!(!expected.is_empty(), "{name}: no `# expect:` line");
        let actual: Vec<String> = match load_str(&text) {
            Ok(_) => vec!["ok".to_owned()],
            Err(problems) => problems.iter().map(ToString::to_string).collect(),
        };
        assert_eq!(actual, expected, "{name}");
    }
}

#[test]
fn empty_file_gives_the_documented_defaults() {
    // Verifies: REQ-CFG-003 (sensible defaults: the LIM values and design §13.2)
    let c = Config::defaults();
    assert!(c.service.structured_content);
    assert_eq!(c.service.contact, PROJECT_URL);
    assert!(!c.service.attribution);
    assert!(c.service.handshake_revisions);
    assert_eq!(c.service.text_format, TextFormat::Json);

    assert_eq!(c.search.languages, ["en"]);
    assert_eq!(c.search.region, "US");
    assert_eq!(c.search.safe_search, SafeSearch::Moderate);
    assert_eq!(c.search.max_results, limits::MAX_RESULTS_DEFAULT);
    assert_eq!(c.search.max_results_ceiling, limits::MAX_RESULTS_CEILING);
    assert_eq!(c.search.query_max_chars, limits::QUERY_MAX_CHARS);
    assert_eq!(c.search.deadline_ms, limits::SEARCH_DEADLINE_MS);
    assert_eq!(c.search.grace_ms, limits::SEARCH_GRACE_MS);

    assert_eq!(c.fetch.max_chars, limits::FETCH_MAX_CHARS_DEFAULT);
    assert_eq!(c.fetch.max_chars_ceiling, limits::FETCH_MAX_CHARS_CEILING);
    assert_eq!(c.fetch.max_bytes, limits::FETCH_MAX_BYTES);
    assert!(c.fetch.robots_txt);
    assert!(!c.fetch.follow_cross_host_redirects);
    assert!(!c.fetch.strict_mode);

    assert!(!c.egress.allow_http);
    assert_eq!(c.egress.policy, EgressPolicy::default());
    assert_eq!(c.privacy.secret_detection, SecretDetection::Refuse);
    assert_eq!(c.logging.level, LogLevel::Info);
    assert!(c.status.enabled);

    assert_eq!(c.limits.web_search_per_minute, limits::SEARCH_PER_MINUTE);
    assert_eq!(c.limits.web_fetch_per_minute, limits::FETCH_PER_MINUTE);
    assert_eq!(c.limits.engine_status_per_minute, limits::STATUS_PER_MINUTE);
    assert_eq!(c.limits.fetch_concurrency, limits::FETCH_CONCURRENCY);
    assert_eq!(
        c.limits.fetch_concurrency_per_caller,
        limits::FETCH_CONCURRENCY / 4
    );
    assert_eq!(c.limits.parse_workers, limits::PARSE_WORKERS);
    assert_eq!(c.limits.http_connections, limits::HTTP_MAX_CONNECTIONS);
    assert_eq!(
        c.limits.http_request_body_bytes,
        limits::HTTP_MAX_BODY_BYTES
    );
    assert_eq!(c.limits.http_sessions, limits::HTTP_MAX_SESSIONS);
    assert_eq!(c.limits.pool, rypsok_proto::NetPool::default());
    assert_eq!(c.limits.pool.idle_per_origin, 4);
    assert_eq!(c.limits.pool.idle_total, 64);
    assert_eq!(c.limits.pool.idle_secs, 90);

    assert_eq!(c.http.bind, "127.0.0.1:8808".parse().unwrap());
    assert_eq!(c.http.auth_token, None);
    assert!(c.http.allowed_origins.is_empty());
    assert!(c.http.allowed_hosts.is_empty());
    assert!(c.sandbox.require_seccomp);
    assert!(!c.sandbox.require_landlock);
    // REQ-CACHE-001, REQ-ENG-013: the cache and scraping are opt-in.
    assert!(!c.cache.enabled);
    assert_eq!(c.cache.ttl_s, limits::CACHE_TTL_S);
    assert_eq!(
        c.cache.max_entries,
        usize::try_from(limits::CACHE_ENTRIES).unwrap()
    );
    assert!(!c.scraping.enabled);
}

#[test]
fn absent_engines_table_gives_the_default_set_in_preference_order() {
    // Verifies: REQ-CFG-003 (default engines, in preference order)
    let engines = Config::defaults().engines;
    let ids: Vec<&str> = engines.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "wikipedia",
            "brave",
            "crossref",
            "openalex",
            "arxiv",
            "hackernews",
            "gdelt",
            "stackexchange",
            "github"
        ]
    );

    let wikipedia = &engines[0];
    assert_eq!(wikipedia.kind, EngineKind::Wikipedia);
    assert!(wikipedia.enabled);
    assert_eq!(wikipedia.categories, [Category::General, Category::Science]);
    assert_eq!(wikipedia.endpoint, None);
    assert_eq!(wikipedia.timeout_ms, limits::ENGINE_TIMEOUT_MS);
    assert!((wikipedia.weight - 1.0).abs() < f64::EPSILON);
    assert_eq!(wikipedia.credential, None);

    let brave = &engines[1];
    assert_eq!(brave.kind, EngineKind::Brave);
    assert_eq!(brave.categories, [Category::General, Category::News]);
    assert_eq!(
        brave.credential,
        Some(SecretRef::Env("BRAVE_API_KEY".to_owned()))
    );
}

#[test]
fn engines_table_lists_exactly_its_engines_in_file_order() {
    // Verifies: REQ-CFG-005 (the file's engine list is taken as written)
    let c = load(
        r#"
        [engines.zeta]
        type = "brave"
        [engines.alpha]
        type = "wikipedia"
        [engines.mid]
        type = "brave"
        api_key_file = "brave-key"
        "#,
    );
    let ids: Vec<&str> = c.engines.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(ids, ["zeta", "alpha", "mid"]);
    assert_eq!(
        c.engines[0].credential,
        Some(SecretRef::Env("BRAVE_API_KEY".to_owned()))
    );
    assert_eq!(
        c.engines[2].credential,
        Some(SecretRef::File(PathBuf::from("brave-key")))
    );
    assert!(load("[engines]").engines.is_empty());
}

#[test]
fn the_listener_bounds_and_the_revision_switch_are_read() {
    // Verifies: REQ-CFG-005, REQ-MCP-006 (LIM-H1, LIM-H2, LIM-H6 and the handshake revisions, as set)
    let c = load(include_str!("../../testdata/config/valid_every_key.toml"));
    assert!(!c.service.handshake_revisions);
    assert_eq!(c.service.text_format, TextFormat::Markdown);
    assert_eq!(c.limits.http_connections, 512);
    assert_eq!(c.limits.http_request_body_bytes, 65536);
    assert_eq!(c.limits.http_sessions, 8);
    let floor =
        load("[limits]\nhttp_connections = 1\nhttp_request_body_bytes = 16384\nhttp_sessions = 1");
    assert_eq!(floor.limits.http_connections, 1);
    assert_eq!(floor.limits.http_request_body_bytes, 16384);
    assert_eq!(floor.limits.http_sessions, 1);
}

#[test]
fn the_connection_pool_limits_are_read_within_their_ranges() {
    // Verifies: REQ-CFG-005 (pool_idle_per_origin, pool_idle_total, pool_idle_secs as set; 0 turns reuse off)
    let c = load(include_str!("../../testdata/config/valid_every_key.toml"));
    assert_eq!(
        c.limits.pool,
        rypsok_proto::NetPool {
            idle_per_origin: 2,
            idle_total: 16,
            idle_secs: 30,
        }
    );
    let off = load("[limits]\npool_idle_per_origin = 0");
    assert_eq!(off.limits.pool.idle_per_origin, 0);
    for text in [
        "[limits]\npool_idle_per_origin = 65",
        "[limits]\npool_idle_total = 0",
        "[limits]\npool_idle_secs = 0",
        "[limits]\npool_idle_secs = 3601",
    ] {
        assert!(!problems(text).is_empty(), "{text} was accepted");
    }
}

#[test]
fn one_http_callers_fetch_share_is_read_within_the_process_limit() {
    // Verifies: REQ-SEC-019, REQ-CFG-005 (fetch_concurrency_per_caller: 1 to fetch_concurrency, a quarter by default)
    let c = load(include_str!("../../testdata/config/valid_every_key.toml"));
    assert_eq!(c.limits.fetch_concurrency_per_caller, 12);
    assert_eq!(
        load("[limits]\nfetch_concurrency = 2")
            .limits
            .fetch_concurrency_per_caller,
        1
    );
    assert_eq!(
        load("[limits]\nfetch_concurrency = 20")
            .limits
            .fetch_concurrency_per_caller,
        5
    );
    let all = load("[limits]\nfetch_concurrency = 6\nfetch_concurrency_per_caller = 6");
    assert_eq!(all.limits.fetch_concurrency_per_caller, 6);
}

#[test]
fn the_cache_and_scraping_sections_are_read() {
    // Verifies: REQ-CACHE-001, REQ-CACHE-005, REQ-ENG-013 (LIM-K2, LIM-K3 as set)
    let c = load(include_str!("../../testdata/config/valid_every_key.toml"));
    assert_eq!(
        c.cache,
        CacheConfig {
            enabled: true,
            ttl_s: 300,
            max_entries: 2000
        }
    );
    assert!(c.scraping.enabled);
}

#[test]
fn lowered_ceilings_pull_their_defaults_down() {
    // Verifies: REQ-CFG-003 (a default never exceeds the ceiling the operator set)
    let c = load("[search]\nmax_results_ceiling = 3\n[fetch]\nmax_chars_ceiling = 1000");
    assert_eq!(c.search.max_results, 3);
    assert_eq!(c.fetch.max_chars, 1000);
}

#[test]
fn egress_section_builds_the_policy() {
    // Verifies: REQ-CFG-005 (egress rules and static hosts are parsed at start)
    let c = load(
        r#"
        [egress]
        allow = ["Intranet.Example.:8080", "[fd00::]/8:*"]
        deny = ["*.tracker.example"]
        [egress.hosts]
        "Intranet.Example." = ["192.0.2.10", "fd00::10"]
        "#,
    );
    let policy = &c.egress.policy;
    assert_eq!(
        policy.allow[0].target,
        RuleTarget::Host("intranet.example".to_owned())
    );
    assert_eq!(policy.allow[0].port, RulePort::Port(8080));
    assert_eq!(policy.allow[1].port, RulePort::Any);
    assert_eq!(
        policy.deny[0].target,
        RuleTarget::Suffix("tracker.example".to_owned())
    );
    let addrs: Vec<IpAddr> = vec!["192.0.2.10".parse().unwrap(), "fd00::10".parse().unwrap()];
    assert_eq!(
        policy.hosts,
        [StaticHost {
            name: "intranet.example".to_owned(),
            addrs
        }]
    );
}

#[test]
fn endpoint_port_is_admitted_by_a_matching_allow_rule() {
    // Verifies: REQ-CFG-005 (a port outside LIM-F8 needs an allow rule)
    let endpoint = |allow: &str, url: &str| {
        problems(&format!(
            "[egress]\nallow = [{allow}]\n[engines.w]\ntype = \"wikipedia\"\nendpoint = \"{url}\"\n"
        ))
    };
    let refused = [
        "engines.w.endpoint: port outside 80 and 443 needs an [egress] allow rule, an address, or a name pinned in [egress] hosts",
    ];
    assert!(endpoint(r#""*.example.org:8443""#, "https://w.example.org:8443/").is_empty());
    assert!(endpoint(r#""example.org:*""#, "https://example.org:8443/").is_empty());
    assert!(endpoint(r#""10.0.0.0/8:8080""#, "http://10.1.2.3:8080/").is_empty());
    assert!(endpoint(r#""[::1]:8080""#, "http://[::1]:8080/{lang}").is_empty());
    assert_eq!(
        endpoint(r#""example.org:8080""#, "https://example.org:8443/"),
        refused
    );
    assert_eq!(
        endpoint(r#""10.0.0.0/8""#, "http://intranet.example:8080/"),
        refused
    );
    // An explicit default port is a default port.
    assert!(endpoint("", "https://{lang}.wikipedia.org:443/w/api.php").is_empty());
}

// Verifies: REQ-SEC-017, REQ-CFG-005 (an endpoint written as an address or as a name pinned in [egress] hosts needs no allow rule, and travels with the policy for its engine; an ordinary name does not)
#[test]
fn an_endpoint_written_as_an_address_or_a_pinned_name_is_admitted_for_its_engine() {
    let config = load_str(
        r#"[egress]
hosts = { "searx.lan" = ["192.168.1.20"] }
[engines.by_address]
type = "searxng"
endpoint = "http://10.0.0.5:8888/"
[engines.by_pinned_name]
type = "searxng"
endpoint = "http://searx.lan:8080/"
[engines.by_public_name]
type = "searxng"
endpoint = "https://searx.example/"
"#,
    )
    .unwrap();
    let policy = &config.egress.policy;
    let admitted: Vec<(String, u16)> = policy
        .endpoints
        .iter()
        .map(|e| match &e.host {
            rypsok_egress::AdmittedHost::Addr(addr) => (addr.to_string(), e.port),
            rypsok_egress::AdmittedHost::Name(name) => (name.clone(), e.port),
        })
        .collect();
    assert_eq!(
        admitted,
        [
            ("10.0.0.5".to_owned(), 8888),
            ("searx.lan".to_owned(), 8080)
        ]
    );
    // No allow rule was made of them.
    assert!(policy.allow.is_empty());
    let public = config
        .engines
        .iter()
        .find(|e| e.id == "by_public_name")
        .unwrap();
    assert_eq!(public.admitted_endpoint(policy), None);
}

#[test]
fn keys_that_name_a_secret_are_refused_as_inline_secrets() {
    // Verifies: REQ-CFG-004 (secrets only by reference)
    let api = "inline secrets are refused; use api_key_env or api_key_file";
    let auth = "inline secrets are refused; use auth_token_env or auth_token_file";
    let cases = [
        (
            "[engines.b]\ntype = \"brave\"\napi_key = \"x\"",
            "engines.b.api_key",
            api,
        ),
        (
            "[engines.b]\ntype = \"brave\"\nAPI-KEY = \"x\"",
            "engines.b.API-KEY",
            api,
        ),
        (
            "[engines.b]\ntype = \"brave\"\nsubscription_token = \"x\"",
            "engines.b.subscription_token",
            api,
        ),
        ("[engines]\nbrave_key = \"x\"", "engines.brave_key", api),
        ("[search]\npassword = \"x\"", "search.password", api),
        (
            "[search]\nproxy_password = \"x\"",
            "search.proxy_password",
            api,
        ),
        ("secret = \"x\"", "secret", api),
        ("client_secret = \"x\"", "client_secret", api),
        ("[http]\ntoken = \"x\"", "http.token", auth),
        ("[http]\nbearer_token = \"x\"", "http.bearer_token", auth),
    ];
    for (text, path, message) in cases {
        assert_eq!(problems(text), [format!("{path}: {message}")], "{text}");
    }
}

#[test]
fn problems_never_echo_a_value_from_the_file() {
    // Verifies: REQ-CFG-004 (a pasted secret is not shown back)
    const SECRET: &str = "sk-live-0123456789abcdef";
    let text = format!(
        r#"
        config_version = 1
        token = "{SECRET}"
        [service]
        contact = "{SECRET}\u0007"
        [search]
        languages = ["{SECRET}"]
        region = "{SECRET}"
        safe_search = "{SECRET}"
        [egress]
        allow = ["{SECRET}:x"]
        [egress.hosts]
        "example.org" = ["{SECRET}"]
        [privacy]
        secret_detection = "{SECRET}"
        [http]
        bind = "{SECRET}"
        auth_token_env = "{SECRET}-"
        [engines.b]
        type = "{SECRET}"
        endpoint = "https://u:{SECRET}@example.org/"
        categories = ["{SECRET}"]
        api_key_env = "{SECRET}!"
        "#
    );
    let found = problems(&text);
    assert!(found.len() >= 12, "{found:#?}");
    for problem in &found {
        assert!(!problem.contains(SECRET), "{problem}");
        assert!(!problem.contains("sk-live"), "{problem}");
    }
}

#[test]
fn a_credential_in_a_key_s_name_is_not_shown_in_a_problem() {
    // Verifies: REQ-CFG-004 (found by fuzzing: a credential the file holds,
    // pasted into a table's name too, came back in the unknown key's path,
    // and in a syntax problem's message)
    let text = "[enginAKIAJ7Q2X5RZ3WBN4K6Pes.github]\n\
                type = \"github\"\n\
                api_key_env = \"AKIAJ7Q2X5RZ3WBN4K6P\"\n\
                [limits]\n\
                \"AKIAJ7Q2X5RZ3WBN4K6P\" = 1\n";
    let found = problems(text);
    assert_eq!(found.len(), 2, "{found:?}");
    for problem in &found {
        assert!(!problem.contains("AKIAJ7Q2X5RZ3WBN4K6P"), "{found:?}");
    }
    assert!(
        found
            .iter()
            .any(|p| p.starts_with("engin[aws_access_key_id]es: unknown key")),
        "{found:?}"
    );
    assert!(
        found
            .iter()
            .any(|p| p.starts_with("limits.[aws_access_key_id]: unknown key")),
        "{found:?}"
    );
    // A syntax problem names the key being read: that too.
    let found = problems(
        "[enginAKIAJ7Q2X5RZ3WBN4K6Pes.github]\n\
         api_key_env = \"AKIAJ7Q2X5RZ3WBN4K6P\"\n\
         pdf_type = d\n",
    );
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].contains("reading the key engin[aws_access_key_id]es.github.pdf_type"),
        "{found:?}"
    );
}

#[test]
fn a_secret_pasted_into_a_reference_key_is_refused_without_being_shown() {
    // Verifies: REQ-CFG-004 (a secret written where its reference belongs is refused and never printed back)
    let pasted = [
        "BSAq7Xk2Lm9Pz4Rt8Wv1Yb3Nc6Hd5Jf0",         // a Brave-shaped key
        "q1W2e3R4t5Y6u7I8o9P0aSdFgHjKlZx+cVbNm/8=", // base64
        "3f9a1c0e7b2d4f6a8c1e3b5d7f9a0c2e4b6d8f1a", // hex, lower case
        "AKIAJ7Q2X5RZ3WBN4K6P",                     // a key id the secret check knows
    ];
    for value in pasted {
        for (section, env, file) in [
            (
                "[engines.brave]\ntype = \"brave\"",
                "api_key_env",
                "api_key_file",
            ),
            ("[http]", "auth_token_env", "auth_token_file"),
        ] {
            for key in [env, file] {
                let found = problems(&format!("{section}\n{key} = \"{value}\""));
                assert_eq!(found.len(), 1, "{key} = {value}: {found:?}");
                assert!(found[0].contains("is not shown"), "{found:?}");
                assert!(!found[0].contains(value), "{found:?}");
            }
        }
    }
    // What references look like stays accepted: names in any case, paths.
    for (key, value) in [
        ("api_key_env", "BRAVE_API_KEY"),
        ("api_key_env", "BRAVE_SEARCH_KEY_2026Q1_PRODUCTION"),
        ("api_key_env", "braveKey"),
        ("api_key_file", "/run/secrets/brave_api_key"),
        (
            "api_key_file",
            "/var/lib/rypsok/credentials/Brave-Search-2026.key",
        ),
        ("api_key_file", "brave.key"),
    ] {
        let text = format!("[engines.brave]\ntype = \"brave\"\n{key} = \"{value}\"");
        assert!(
            problems(&text).is_empty(),
            "{key} = {value}: {:?}",
            problems(&text)
        );
    }
}

#[test]
fn toml_syntax_error_tells_where_and_which_key_but_never_the_text() {
    // Verifies: REQ-CFG-004, REQ-CFG-005 (line, column and key; the parser's text, which quotes the file, is dropped)
    let found = problems("[http]\nbind = \"127.0.0.1:1\"\nauth_token = \"sk-live-x\n");
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("the file is not valid TOML (line 3, column ")
            && found[0].ends_with(", reading the key http.auth_token)"),
        "{found:?}"
    );
    assert!(!found[0].contains("sk-live"), "{found:?}");
    // A key that is not a bare key is not repeated: it may be the secret.
    let found = problems("[http]\n\"sk-live-x\" = \n");
    assert_eq!(
        found,
        ["the file is not valid TOML (line 2, column 15, in the table [http])"]
    );
    // Columns count characters, not bytes; no table before the line.
    let found = problems("region = \"Zürich\" x\n");
    assert_eq!(
        found,
        ["the file is not valid TOML (line 1, column 19, reading the key region)"]
    );
    // Whitespace around a header's or a key's dots, a tab too, is TOML's:
    // the key is repeated as its parts joined by dots, never the tab.
    let found = problems("[engines\t.wiki]\ntype = \"wikipedia\"\nendpoint = \"a\"\"b\"\n");
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].ends_with(", reading the key engines.wiki.endpoint)"),
        "{found:?}"
    );
    // A carriage return beside a dot is not TOML's whitespace: the key is
    // not repeated, so the control character cannot reach the message.
    let found = problems("[limits]\nfetch_concu.\rrency = 4\n");
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].ends_with(", in the table [limits])") && !found[0].contains('\r'),
        "{found:?}"
    );
}

#[test]
fn unsupported_version_stops_validation() {
    // Verifies: REQ-MAIN-003 (a file of another version is refused as a whole)
    assert_eq!(
        problems("config_version = 2\nunknown = 1"),
        ["config_version: unsupported configuration version; this build reads version 1"]
    );
    assert_eq!(
        problems("config_version = 0"),
        ["config_version: unsupported configuration version; this build reads version 1"]
    );
    assert!(problems("config_version = 1").is_empty());
}

#[test]
fn problem_display_joins_path_and_message() {
    // Verifies: REQ-CFG-005 (problems name their key path)
    let problem = ConfigProblem {
        path: "engines.brave.timeout_ms".to_owned(),
        message: "must be between 100 and 60000".to_owned(),
    };
    assert_eq!(
        problem.to_string(),
        "engines.brave.timeout_ms: must be between 100 and 60000"
    );
}

#[test]
fn keys_that_need_quotes_are_quoted_in_paths() {
    // Verifies: REQ-CFG-005 (paths can be pasted back into the file)
    assert_eq!(
        problems("[search]\n\"max results\" = 5"),
        [r#"search."max results": unknown key (did you mean `max_results`?)"#]
    );
}

#[test]
fn choice_spellings_round_trip() {
    // Verifies: REQ-CFG-005 (each vocabulary is spelled once, through as_str)
    for level in [SafeSearch::Off, SafeSearch::Moderate, SafeSearch::Strict] {
        let c = load(&format!("[search]\nsafe_search = \"{}\"", level.as_str()));
        assert_eq!(c.search.safe_search, level);
    }
    for mode in [
        SecretDetection::Refuse,
        SecretDetection::Warn,
        SecretDetection::Mask,
        SecretDetection::Off,
    ] {
        let c = load(&format!(
            "[privacy]\nsecret_detection = \"{}\"",
            mode.as_str()
        ));
        assert_eq!(c.privacy.secret_detection, mode);
    }
    for level in [
        LogLevel::Error,
        LogLevel::Warn,
        LogLevel::Info,
        LogLevel::Debug,
        LogLevel::Trace,
    ] {
        let c = load(&format!("[logging]\nlevel = \"{}\"", level.as_str()));
        assert_eq!(c.logging.level, level);
    }
    for &kind in EngineKind::ALL {
        let endpoint = if kind.spec().endpoint_required {
            "\nendpoint = \"https://search.example.org/search\""
        } else {
            ""
        };
        let c = load(&format!(
            "[scraping]\nenabled = true\n[engines.e]\ntype = \"{}\"{endpoint}",
            kind.as_str()
        ));
        assert_eq!(c.engines[0].kind, kind);
    }
}

#[test]
fn credential_keys_name_each_reference_with_its_key_and_whether_the_file_wrote_it() {
    // Verifies: REQ-CFG-004 (secrets by reference: check can say which key names an unreadable one)
    let c = load(
        "[http]\nauth_token_file = \"token\"\n\
         [engines.brave]\ntype = \"brave\"\n\
         [engines.code]\ntype = \"github\"\napi_key_env = \"GH\"\n\
         [engines.off]\ntype = \"brave\"\nenabled = false\napi_key_file = \"off-key\"\n\
         [engines.wiki]\ntype = \"wikipedia\"\n",
    );
    let keys: Vec<(String, String, Option<&str>, bool)> = c
        .credential_keys()
        .into_iter()
        .map(|k| (k.key, k.reference.name().into_owned(), k.engine, k.written))
        .collect();
    let owned = |key: &str, name: &str| (key.to_owned(), name.to_owned());
    assert_eq!(
        keys.iter()
            .map(|(key, name, _, _)| (key.clone(), name.clone()))
            .collect::<Vec<_>>(),
        [
            owned("http.auth_token_file", "token"),
            owned("engines.brave.api_key_env", "BRAVE_API_KEY"),
            owned("engines.code.api_key_env", "GH"),
        ],
        "a disabled engine's and a keyless driver's are not read"
    );
    assert_eq!(
        keys.iter()
            .map(|(_, _, engine, written)| (*engine, *written))
            .collect::<Vec<_>>(),
        [(None, true), (Some("brave"), false), (Some("code"), true)]
    );
}

#[test]
fn both_text_formats_are_read_and_json_is_the_default() {
    // Verifies: REQ-MCP-011, REQ-CFG-005 (the text block's format, as set)
    assert_eq!(load("").service.text_format, TextFormat::Json);
    for format in TextFormat::ALL {
        let c = load(&format!("[service]\ntext_format = \"{}\"", format.as_str()));
        assert_eq!(c.service.text_format, *format);
    }
    assert_eq!(
        problems("[service]\ntext_format = \"Markdown\""),
        ["service.text_format: expected one of json, markdown"]
    );
}

/// The operator reference's key names: `## \`[section]\`` (or
/// `## \`[engines.<name>]\``, `## top level`) headings, then table rows whose
/// first cell is the key in backticks; each becomes its dotted path.
fn documented_keys(page: &str) -> Vec<String> {
    let mut section = String::new();
    let mut keys = Vec::new();
    for line in page.lines() {
        if let Some(heading) = line.strip_prefix("## ") {
            section = heading
                .trim()
                .strip_prefix("`[")
                .and_then(|h| h.strip_suffix("]`"))
                .unwrap_or_default()
                .to_owned();
            continue;
        }
        let Some(cell) = line.strip_prefix("| `") else {
            continue;
        };
        let Some((key, _)) = cell.split_once('`') else {
            continue;
        };
        keys.push(if section.is_empty() {
            key.to_owned()
        } else {
            format!("{section}.{key}")
        });
    }
    keys
}

// The reference is a file of the project's book; the core reads no file
// outside its tests.
#[allow(clippy::disallowed_methods)]
#[test]
fn the_operator_reference_documents_every_key_the_validator_accepts() {
    // Verifies: REQ-CFG-005 (every accepted key is documented for operators)
    let page_path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../packaging/docs/src/reference/configuration.md");
    let page = std::fs::read_to_string(&page_path).unwrap();
    let documented = documented_keys(&page);
    let accepted = accepted_keys();
    // A table's own name is a key too; its keys document it.
    let undocumented: Vec<&String> = accepted
        .iter()
        .filter(|key| {
            let is_table = accepted.iter().any(|k| k.starts_with(&format!("{key}.")));
            !is_table && !documented.contains(key)
        })
        .collect();
    assert!(
        undocumented.is_empty(),
        "keys the validator accepts but {} does not document: {undocumented:?}",
        page_path.display()
    );
    // The list is the validator's: it holds keys of every section and of an
    // engine table, and a key it does not read is refused.
    for key in [
        "config_version",
        "limits.fetch_concurrency",
        "engines.<name>.api_key_file",
        "egress.hosts",
    ] {
        assert!(
            accepted.contains(&key.to_owned()),
            "{key} missing from {accepted:?}"
        );
    }
    assert!(!problems("[limits]\nnot_a_key = 1\n").is_empty());
}

/// One row of the reference's engine table, written from the driver's
/// admission record and registry entry.
fn engine_row(kind: EngineKind) -> String {
    use crate::engine::{CredentialRule, LanguageSupport};
    let spec = kind.spec();
    let a = &spec.admission;
    let categories: Vec<&str> = spec.default_categories.iter().map(|c| c.as_str()).collect();
    let key = match spec.credential {
        CredentialRule::None => "none".to_owned(),
        CredentialRule::Required { default_env } => format!("required (`{default_env}`)"),
        CredentialRule::Optional => "optional".to_owned(),
    };
    let rate = match (a.rate_limit_per_minute, a.min_interval_ms) {
        (_, Some(ms)) => format!("one every {} s", ms / 1000),
        (Some(n), None) => format!("{n} a minute"),
        (None, None) => "none published".to_owned(),
    };
    let languages = match a.languages {
        LanguageSupport::Any => "any".to_owned(),
        LanguageSupport::Listed(codes) if codes.len() <= 3 => codes.join(", "),
        LanguageSupport::Listed(codes) => format!("{} listed", codes.len()),
    };
    let yes = |b: bool| if b { "yes" } else { "no" };
    let zero = if spec.in_default_set {
        if spec.credential.is_required() {
            "yes, inactive without a key"
        } else {
            "yes"
        }
    } else if spec.scraping {
        "never (a scraping driver: needs `[scraping] enabled = true`)"
    } else if spec.endpoint_required {
        "never (needs `endpoint`: the operator's own instance)"
    } else {
        "never"
    };
    format!(
        "| `{}` | {} | {key} | {rate} | {} | {} | {languages} | {} | {} | {} | {zero} |",
        kind.as_str(),
        categories.join(", "),
        a.concurrency_cap,
        a.max_query_chars,
        yes(a.time_ranges),
        yes(a.cacheable),
        yes(a.attribution_required),
    )
}

#[allow(clippy::disallowed_methods)]
#[test]
fn the_operator_reference_engine_table_matches_each_admission_record() {
    // Verifies: REQ-ENG-001 (each engine type's limits as the operator reads them)
    let page_path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../packaging/docs/src/reference/configuration.md");
    let page = std::fs::read_to_string(&page_path).unwrap();
    let missing: Vec<String> = EngineKind::ALL
        .iter()
        .map(|&kind| engine_row(kind))
        .filter(|row| !page.lines().any(|line| line == row))
        .collect();
    assert!(
        missing.is_empty(),
        "{} lacks these engine rows (or has them otherwise):\n{}",
        page_path.display(),
        missing.join("\n")
    );
}

// Verifies: REQ-SEC-018 ([metrics] is off by default; off loopback its listener needs a token by reference, the rule of [http])
#[test]
fn metrics_listener_is_off_by_default_and_needs_a_token_off_loopback() {
    let defaults = load_str("").unwrap();
    assert_eq!(defaults.metrics.bind, None);
    assert_eq!(defaults.metrics.auth_token, None);
    let on = load_str("[metrics]\nbind = \"127.0.0.1:9464\"\n").unwrap();
    assert_eq!(on.metrics.bind, "127.0.0.1:9464".parse().ok());
    assert_eq!(
        problems("[metrics]\nbind = \"0.0.0.0:9464\"\n"),
        vec!["metrics.bind: a non-loopback bind needs auth_token_env or auth_token_file"]
    );
    let with_token =
        load_str("[metrics]\nbind = \"0.0.0.0:9464\"\nauth_token_env = \"SCRAPE_TOKEN\"\n")
            .unwrap();
    assert_eq!(
        with_token.metrics.auth_token,
        Some(SecretRef::Env("SCRAPE_TOKEN".to_owned()))
    );
    assert!(
        with_token
            .credential_keys()
            .iter()
            .any(|k| k.key == "metrics.auth_token_env")
    );
    assert_eq!(
        problems("[metrics]\nbind = \"localhost\"\n"),
        vec!["metrics.bind: expected a socket address such as 127.0.0.1:8808"]
    );
    assert_eq!(
        problems("[metrics]\nauth_token = \"abc\"\n"),
        vec![
            "metrics.auth_token: inline secrets are refused; use auth_token_env or auth_token_file"
        ]
    );
}
