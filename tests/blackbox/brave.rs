//! Brave beside Wikipedia, both on loopback fakes: the key travels only to
//! Brave, results merge across engines, and attribution follows the
//! driver's admission record (design §3.1, §8 engine profile, §11;
//! fixtures: worker-parse/testdata/brave/PROVENANCE.md).

use serde_json::json;

use crate::support::{FakeHttp, Reply, Server, structured, workspace_file};

const KEY: &str = "BSA-test-key-for-the-fake-0123456789";

fn two_engine_config(wikipedia: u16, brave: u16) -> String {
    format!(
        r#"[service]
contact = "ops@example.org"
[search]
deadline_ms = 1500
grace_ms = 200
[egress]
allow = ["127.0.0.1:{wikipedia}", "127.0.0.1:{brave}"]
[engines.wikipedia]
type = "wikipedia"
endpoint = "http://127.0.0.1:{wikipedia}/w/api.php"
timeout_ms = 1200
[engines.brave]
type = "brave"
endpoint = "http://127.0.0.1:{brave}/res/v1/web/search"
timeout_ms = 1200
api_key_env = "RYPSOK_TEST_BRAVE_KEY"
"#
    )
}

fn header<'a>(seen: &'a crate::support::Seen, name: &str) -> Option<&'a str> {
    seen.headers
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
}

// Verifies: REQ-SEC-017, REQ-CFG-004, REQ-RANK-004, REQ-CMP-003 (key only to its engine; merged, attributed results)
#[test]
fn merges_two_engines_and_sends_the_key_only_to_brave() {
    let wiki_body = std::fs::read(workspace_file(
        "worker-parse/testdata/wikipedia/en_search_counter_strike_2021.json",
    ))
    .expect("fixture");
    let brave_body = std::fs::read(workspace_file(
        "worker-parse/testdata/brave/web_search_hello_world_2024.json",
    ))
    .expect("fixture");
    let wikipedia = FakeHttp::start(Reply::json(&wiki_body));
    let brave = FakeHttp::start(Reply::json(&brave_body));
    let mut server = Server::start_with_env(
        Some(&two_engine_config(wikipedia.port(), brave.port())),
        &[("RYPSOK_TEST_BRAVE_KEY", KEY)],
    );
    server.initialize();
    let result = server.call(
        "web_search",
        json!({"query": "hello world", "max_results": 20}),
    );
    let body = structured(&result);
    assert_eq!(body["outcome"], json!("ok"), "{result}");
    let results = body["results"].as_array().expect("results");
    assert_eq!(results.len(), 20);
    let from = |engine: &str| {
        results
            .iter()
            .filter(|r| {
                r["engines"]
                    .as_array()
                    .is_some_and(|e| e.contains(&json!(engine)))
            })
            .count()
    };
    assert!(from("brave") > 0, "Brave requires attribution: {result}");
    assert!(results.iter().any(|r| {
        r["url"]
            .as_str()
            .is_some_and(|u| u.contains("wikipedia.org"))
    }));

    let to_brave = brave.seen();
    assert_eq!(header(&to_brave[0], "x-subscription-token"), Some(KEY));
    assert!(
        !to_brave[0].target.contains(KEY),
        "the key never rides in the URL"
    );
    let to_wikipedia = wikipedia.seen();
    assert_eq!(header(&to_wikipedia[0], "x-subscription-token"), None);
    assert!(
        !to_wikipedia
            .iter()
            .any(|s| s.headers.iter().any(|(_, v)| v.contains(KEY)))
    );
    assert!(!result.to_string().contains(KEY));
    assert!(
        !server
            .stderr
            .lock()
            .expect("stderr")
            .iter()
            .any(|l| l.contains(KEY)),
        "the key is never logged"
    );
}

// Verifies: REQ-AGG-004, REQ-AGG-007 (one engine failing leaves the other's results, with a notice)
#[test]
fn answers_partial_when_brave_refuses_the_key() {
    let wiki_body = std::fs::read(workspace_file(
        "worker-parse/testdata/wikipedia/de_search_hallo_2019.json",
    ))
    .expect("fixture");
    let refusal = std::fs::read(workspace_file(
        "worker-parse/testdata/brave/docs_example_error_422_subscription_token_invalid.json",
    ))
    .expect("fixture");
    let wikipedia = FakeHttp::start(Reply::json(&wiki_body));
    let brave = FakeHttp::start(Reply::json(&refusal).with_status(422, "application/json"));
    let mut server = Server::start_with_env(
        Some(&two_engine_config(wikipedia.port(), brave.port())),
        &[("RYPSOK_TEST_BRAVE_KEY", KEY)],
    );
    server.initialize();
    let result = server.call("web_search", json!({"query": "hallo"}));
    let body = structured(&result);
    assert_eq!(body["outcome"], json!("partial"), "{result}");
    assert!(body["notices"].as_array().expect("notices").contains(
        &json!({"code": "engine_unavailable", "engine": "brave", "reason": "auth_failure"})
    ));
    assert_eq!(body["results"].as_array().map(Vec::len), Some(5));
}

// Verifies: REQ-CFG-004 (workers never see the environment, so never a key)
#[test]
fn workers_start_with_an_empty_environment() {
    let mut server = Server::start_with_env(None, &[("BRAVE_API_KEY", KEY)]);
    server.initialize();
    let workers = server.await_workers(3, std::time::Duration::from_secs(5));
    for (kind, pid) in workers {
        let environ = std::fs::read(format!("/proc/{pid}/environ")).expect("environ");
        assert!(environ.is_empty(), "{kind} has an environment");
    }
    // With the key, Brave is active.
    let status = server.call("engine_status", json!({}));
    // Engines are listed by identifier; Brave is among the zero
    // configuration's keyless ones.
    let brave = structured(&status)["engines"]
        .as_array()
        .expect("engines")
        .iter()
        .find(|e| e["id"] == json!("brave"))
        .cloned();
    assert_eq!(
        brave,
        Some(json!({"id": "brave", "state": "closed", "latency_ms": null}))
    );
}

// Verifies: REQ-RES-002, REQ-RES-004, REQ-OBS-004, REQ-CMP-002 (M2: Brave's 429 with its reset header opens the circuit, engine_status shows it open, the next call skips it with cooldown)
#[test]
fn a_rate_limited_brave_cools_down_and_is_skipped() {
    let wiki_body = std::fs::read(workspace_file(
        "worker-parse/testdata/wikipedia/en_search_counter_strike_2021.json",
    ))
    .expect("fixture");
    let wikipedia = FakeHttp::start(Reply::json(&wiki_body));
    let brave = FakeHttp::start(
        Reply::json(br#"{"type":"ErrorResponse","error":{"code":"RATE_LIMITED","status":429}}"#)
            .with_status(429, "application/json")
            .with_header("x-ratelimit-remaining", "0, 1999")
            .with_header("x-ratelimit-reset", "60, 1419704"),
    );
    let mut server = Server::start_with_env(
        Some(&two_engine_config(wikipedia.port(), brave.port())),
        &[("RYPSOK_TEST_BRAVE_KEY", KEY)],
    );
    server.initialize();
    let first = server.call("web_search", json!({"query": "hello"}));
    let body = structured(&first);
    assert_eq!(body["outcome"], json!("partial"), "{first}");
    assert!(body["notices"].as_array().expect("notices").contains(
        &json!({"code": "engine_unavailable", "engine": "brave", "reason": "rate_limited"})
    ));
    let status = server.call("engine_status", json!({}));
    let brave_status = &structured(&status)["engines"][0];
    assert_eq!(brave_status["id"], json!("brave"));
    assert_eq!(brave_status["state"], json!("open"), "{status}");
    assert!(
        brave_status.get("reason").is_none(),
        "a reason only when disabled"
    );
    let second = server.call("web_search", json!({"query": "hello again"}));
    let body = structured(&second);
    assert_eq!(body["outcome"], json!("ok"), "{second}");
    assert!(
        body["notices"]
            .as_array()
            .expect("notices")
            .contains(&json!({"code": "engine_skipped", "engine": "brave", "reason": "cooldown"}))
    );
    assert_eq!(
        brave.seen().len(),
        1,
        "Brave was not asked during its cooldown"
    );
    assert_eq!(wikipedia.seen().len(), 2);
}
