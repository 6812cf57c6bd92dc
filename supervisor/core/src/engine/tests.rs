//! Tests over the whole registry: whatever engine joins the list is loaded
//! from configuration, checked for a sound admission record, built against
//! a loopback endpoint and fed its captured answers, with no test of its
//! own to write for any of that.

use std::path::{Path, PathBuf};

use rypsok_proto::{EngineKind, EngineParse, ParseRequest, ParseResponse};

use super::*;
use crate::config::{Config, SecretRef, load_str};

/// The loopback endpoint every driver is pointed at; port 80 needs no
/// egress rule.
const LOOPBACK_ENDPOINT: &str = "http://127.0.0.1/{lang}/search";

/// A credential no driver may put into a URL.
const KEY: &str = "registry-test-key-0123456789";

/// The decoded query parameters of a URL, in order.
pub(crate) fn params(url: &str) -> Vec<(String, String)> {
    let query = url.split_once('?').map_or("", |(_, query)| query);
    url::form_urlencoded::parse(query.as_bytes())
        .map(|(name, value)| (name.into_owned(), value.into_owned()))
        .collect()
}

/// The configuration of one engine of `kind` on the loopback endpoint.
fn engine_toml(kind: EngineKind) -> String {
    let mut text = format!(
        "[service]\ncontact = \"ops@example.org\"\n\n[engines.e]\ntype = \"{}\"\nendpoint = \"{LOOPBACK_ENDPOINT}\"\n",
        kind.as_str()
    );
    if kind.spec().credential.is_required() {
        text.push_str("api_key_env = \"RYPSOK_REGISTRY_TEST_KEY\"\n");
    }
    if kind.spec().scraping {
        text.push_str("\n[scraping]\nenabled = true\n");
    }
    text
}

// The core reads no file; its tests read their fixtures.
#[allow(clippy::disallowed_methods)]
fn fixtures(kind: EngineKind) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../worker-parse/testdata")
        .join(kind.as_str());
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: no captured answers ({e})", kind.as_str()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| {
            path.extension()
                .is_some_and(|e| matches!(e.to_str(), Some("json" | "xml" | "html")))
        })
        .collect();
    paths.sort();
    assert!(
        dir.join("PROVENANCE.md").is_file(),
        "{}: captured answers need a PROVENANCE.md",
        kind.as_str()
    );
    paths
}

fn context<'a>(lang: &'a str, credential: Option<&'a Credential>) -> SearchContext<'a> {
    SearchContext {
        lang,
        query: "registry walk",
        count: 10,
        category: Category::General,
        region: "US",
        safe_search: SafeSearch::Moderate,
        time_range: None,
        credential,
        contact: "ops@example.org",
        now_unix: 1_700_000_000,
    }
}

#[test]
fn every_engine_type_has_a_driver_of_its_own_with_default_categories() {
    // Verifies: REQ-ENG-001, REQ-CMP-001
    assert!(!EngineKind::ALL.is_empty());
    for (i, kind) in EngineKind::ALL.iter().enumerate() {
        let spec = kind.spec();
        assert!(!spec.display_name.is_empty(), "{}", kind.as_str());
        assert!(
            EngineKind::ALL[..i]
                .iter()
                .all(|other| !std::ptr::eq(other.spec(), spec)
                    && other.spec().display_name != spec.display_name),
            "{}",
            kind.as_str()
        );
        assert!(!spec.default_categories.is_empty(), "{}", kind.as_str());
    }
}

#[test]
fn every_engine_type_loads_from_configuration_with_its_defaults() {
    // Verifies: REQ-CFG-001, REQ-CFG-004, REQ-ENG-001
    for &kind in EngineKind::ALL {
        let spec = kind.spec();
        let config =
            load_str(&engine_toml(kind)).unwrap_or_else(|p| panic!("{}: {p:?}", kind.as_str()));
        let [engine] = config.engines.as_slice() else {
            panic!("{}: one engine expected", kind.as_str());
        };
        assert_eq!(engine.kind, kind);
        assert_eq!(engine.categories, spec.default_categories);
        assert_eq!(engine.endpoint.as_deref(), Some(LOOPBACK_ENDPOINT));
        match spec.credential {
            CredentialRule::Optional => {
                assert_eq!(
                    engine.credential,
                    None,
                    "{}: no key unless named",
                    kind.as_str()
                );
                let keyed = format!("{}api_key_env = \"K\"\n", engine_toml(kind));
                assert_eq!(
                    load_str(&keyed).unwrap().engines[0].credential,
                    Some(SecretRef::Env("K".to_owned()))
                );
            }
            CredentialRule::None => {
                assert_eq!(engine.credential, None);
                let keyed = format!("{}api_key_env = \"K\"\n", engine_toml(kind));
                assert!(load_str(&keyed).is_err(), "{}", kind.as_str());
            }
            CredentialRule::Required { default_env } => {
                assert_eq!(
                    engine.credential,
                    Some(SecretRef::Env("RYPSOK_REGISTRY_TEST_KEY".to_owned()))
                );
                let keyless = load_str(&format!(
                    "[service]\ncontact = \"x\"\n[engines.e]\ntype = \"{}\"\n",
                    kind.as_str()
                ))
                .unwrap();
                assert_eq!(
                    keyless.engines[0].credential,
                    Some(SecretRef::Env(default_env.to_owned()))
                );
            }
        }
    }
}

#[test]
fn the_zero_configuration_sets_up_the_default_set_in_registry_order() {
    // Verifies: REQ-OPS-003, REQ-ENG-008
    let config = Config::defaults();
    let expected: Vec<(&str, EngineKind)> = EngineKind::ALL
        .iter()
        .filter(|kind| kind.spec().in_default_set)
        .map(|&kind| (kind.as_str(), kind))
        .collect();
    let actual: Vec<(&str, EngineKind)> = config
        .engines
        .iter()
        .map(|engine| (engine.id.as_str(), engine.kind))
        .collect();
    assert_eq!(actual, expected);
}

#[test]
fn a_scraping_driver_needs_the_opt_in_and_stays_out_of_the_default_set() {
    // Verifies: REQ-ENG-013, REQ-ENG-008
    for &kind in EngineKind::ALL {
        let spec = kind.spec();
        if !spec.scraping {
            continue;
        }
        assert!(!spec.in_default_set, "{}", kind.as_str());
        let without = engine_toml(kind).replace("\n[scraping]\nenabled = true\n", "");
        let problems = load_str(&without).unwrap_err();
        assert!(
            problems.iter().any(|p| p.path == "engines.e.type"),
            "{}: {problems:?}",
            kind.as_str()
        );
    }
    // The default set is official interfaces only.
    assert!(
        EngineKind::ALL
            .iter()
            .all(|k| !(k.spec().in_default_set && k.spec().scraping))
    );
}

#[test]
fn an_engine_that_asks_for_a_contact_refuses_an_empty_one() {
    // Verifies: REQ-CMP-004
    for &kind in EngineKind::ALL {
        let spec = kind.spec();
        let text = engine_toml(kind).replace("ops@example.org", "");
        let result = load_str(&text);
        if spec.admission.needs_contact_in_user_agent {
            let problems = result.unwrap_err();
            assert!(
                problems.iter().any(|p| p.path == "service.contact"),
                "{}",
                kind.as_str()
            );
        } else {
            assert!(result.is_ok(), "{}", kind.as_str());
        }
    }
}

#[test]
fn every_admission_record_bounds_concurrency_and_query_length() {
    // Verifies: REQ-CMP-001, REQ-CMP-002, REQ-ENG-010
    for &kind in EngineKind::ALL {
        let admission = kind.admission();
        assert!(admission.concurrency_cap >= 1, "{}", kind.as_str());
        assert!(admission.max_query_chars >= 1, "{}", kind.as_str());
        assert_ne!(
            admission.rate_limit_per_minute,
            Some(0),
            "{}",
            kind.as_str()
        );
        assert!(admission.accepts_query("registry walk"));
    }
}

#[test]
fn every_engine_type_builds_its_request_against_a_loopback_endpoint() {
    // Verifies: REQ-ENG-001, REQ-CFG-001, REQ-SEC-017
    let credential = Credential::new(KEY.to_owned());
    for &kind in EngineKind::ALL {
        let spec = kind.spec();
        let key = spec.credential.is_required().then_some(&credential);
        let built = kind.build(Some(LOOPBACK_ENDPOINT), &context("en", key));
        let url = url::Url::parse(&built.url).unwrap();
        assert_eq!(url.host_str(), Some("127.0.0.1"), "{}", kind.as_str());
        assert!(url.path().ends_with("/search"), "{}", kind.as_str());
        assert!(!built.url.contains(KEY), "{}", kind.as_str());
        assert!(!format!("{built:?}").contains(KEY), "{}", kind.as_str());
        assert_eq!(
            url.query_pairs()
                .filter(|(_, value)| value.contains("registry") && value.contains("walk"))
                .count(),
            1,
            "{}: the query is one parameter",
            kind.as_str()
        );
        if key.is_some() {
            assert!(
                built.headers.iter().any(|h| h.value == KEY),
                "{}: the credential travels in a header",
                kind.as_str()
            );
        }
        // The driver's own endpoint is an official https interface
        // (REQ-ENG-008).
        if !spec.endpoint_required {
            let default = kind.build(None, &context("en", key));
            assert!(default.url.starts_with("https://"), "{}", kind.as_str());
        }
    }
}

// The core reads no file; its tests read their fixtures.
#[allow(clippy::disallowed_methods)]
#[test]
fn every_engine_type_parses_its_captured_answers() {
    // Verifies: REQ-ENG-005, REQ-ENG-006
    for &kind in EngineKind::ALL {
        let built = kind.build(Some(LOOPBACK_ENDPOINT), &context("en", None));
        let mut with_hits = 0;
        for path in fixtures(kind) {
            let body = std::fs::read(&path).unwrap();
            let request = ParseRequest::EngineAnswer {
                engine: kind,
                base_url: built.base_url.clone(),
                status: 200,
                headers: Vec::new(),
                body,
            };
            let ParseResponse::Engine(parse) = rypsok_worker_parse::parse(request) else {
                panic!("{}: not an engine answer", path.display());
            };
            if let EngineParse::Hits(hits) | EngineParse::Paced { hits, .. } = parse
                && !hits.is_empty()
            {
                with_hits += 1;
                for hit in hits {
                    assert!(
                        hit.url.starts_with("https://") || hit.url.starts_with("http://"),
                        "{}: {}",
                        path.display(),
                        hit.url
                    );
                }
            }
        }
        assert!(
            with_hits >= 1,
            "{}: no captured answer gives hits",
            kind.as_str()
        );
    }
}
