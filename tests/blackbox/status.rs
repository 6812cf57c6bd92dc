//! `engine_status` (design §3.3).

use std::time::Duration;

use serde_json::json;

use crate::support::{
    FakeHttp, Reply, Server, assert_text_mirrors_structure, structured, wikipedia_config,
    workspace_file,
};

// Verifies: REQ-STATUS-001, REQ-STATUS-002, REQ-OPS-003 (zero configuration: the keyless engines closed, OpenAlex on its small keyless allowance, Brave without a key)
#[test]
fn reports_zero_configuration_engines_in_identifier_order() {
    let mut server = Server::start(None);
    server.initialize();
    let result = server.call("engine_status", json!({}));
    assert_text_mirrors_structure(&result);
    assert_eq!(
        structured(&result),
        &json!({"outcome": "ok", "notices": [], "engines": [
            {"id": "arxiv", "state": "closed", "latency_ms": null},
            {"id": "brave", "state": "disabled", "latency_ms": null, "reason": "no_credential"},
            {"id": "crossref", "state": "closed", "latency_ms": null},
            {"id": "gdelt", "state": "closed", "latency_ms": null},
            {"id": "github", "state": "closed", "latency_ms": null},
            {"id": "hackernews", "state": "closed", "latency_ms": null},
            {"id": "openalex", "state": "closed", "latency_ms": null, "allowance": "keyless"},
            {"id": "stackexchange", "state": "closed", "latency_ms": null},
            {"id": "wikipedia", "state": "closed", "latency_ms": null}]})
    );
    server.await_log(
        &[("event", json!("engine_inactive"))],
        Duration::from_secs(2),
    );
    let inactive: Vec<_> = server
        .log()
        .into_iter()
        .filter(|l| l["event"] == json!("engine_inactive"))
        .collect();
    assert_eq!(
        inactive.len(),
        1,
        "one log line for the keyless Brave: {inactive:?}"
    );
}

// Verifies: REQ-STATUS-001, REQ-OBS-002 (latency appears once the engine answered; disabled engines keep their reason)
#[test]
fn reports_latency_after_a_search_and_the_reason_of_a_disabled_engine() {
    let body = std::fs::read(workspace_file(
        "worker-parse/testdata/wikipedia/en_search_counter_strike_2021.json",
    ))
    .expect("fixture");
    let fake = FakeHttp::start(Reply::json(&body));
    let config = wikipedia_config(
        fake.port(),
        "[engines.spare]\ntype = \"wikipedia\"\nenabled = false\ntimeout_ms = 1200\n",
    );
    let mut server = Server::start(Some(&config));
    server.initialize();
    let search = server.call("web_search", json!({"query": "counter strike"}));
    assert_eq!(structured(&search)["outcome"], json!("ok"), "{search}");
    let status = server.call("engine_status", json!({}));
    let engines = &structured(&status)["engines"];
    assert_eq!(
        engines[0],
        json!({"id": "spare", "state": "disabled", "latency_ms": null, "reason": "disabled"})
    );
    assert_eq!(engines[1]["id"], json!("wikipedia"));
    assert!(engines[1]["latency_ms"].as_u64().is_some(), "{engines}");
    // Nothing about where the engine lives.
    assert!(!status.to_string().contains("127.0.0.1"), "{status}");
}
