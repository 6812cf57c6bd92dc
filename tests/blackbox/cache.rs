//! The search cache through all three processes (design §12, M5): loopback
//! engines count the requests they receive (fixtures:
//! worker-parse/testdata/wikipedia/ and brave/, see their PROVENANCE.md).

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::{FakeHttp, Reply, Server, structured, workspace_file};

/// A tool call's structured content.
fn call(server: &mut Server, name: &str, arguments: Value) -> Value {
    structured(&server.call(name, arguments)).clone()
}

const KEY: &str = "BSA-test-key-for-the-fake-0123456789";

fn config(wikipedia: u16, brave: u16, extra: &str) -> String {
    format!(
        r#"[service]
contact = "ops@example.org"
[search]
deadline_ms = 1500
grace_ms = 200
[egress]
allow = ["127.0.0.1:{wikipedia}", "127.0.0.1:{brave}"]
{extra}
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

fn fakes() -> (FakeHttp, FakeHttp) {
    let read = |path: &str| std::fs::read(workspace_file(path)).expect("fixture");
    (
        FakeHttp::start(Reply::json(&read(
            "worker-parse/testdata/wikipedia/en_search_counter_strike_2021.json",
        ))),
        FakeHttp::start(Reply::json(&read(
            "worker-parse/testdata/brave/web_search_hello_world_2024.json",
        ))),
    )
}

fn start(wikipedia: &FakeHttp, brave: &FakeHttp, extra: &str) -> Server {
    let mut server = Server::start_with_env(
        Some(&config(wikipedia.port(), brave.port(), extra)),
        &[("RYPSOK_TEST_BRAVE_KEY", KEY)],
    );
    server.initialize();
    server
}

fn from_cache(body: &Value) -> Vec<Value> {
    body["notices"]
        .as_array()
        .expect("notices")
        .iter()
        .filter(|n| n["code"] == json!("from_cache"))
        .cloned()
        .collect()
}

// Verifies: REQ-CACHE-001, REQ-CACHE-003, M5 acceptance (a cached search returns without engine requests; an engine that forbids storage is never served from the cache)
#[test]
fn a_cached_search_asks_no_engine_that_allows_storage() {
    let (wikipedia, brave) = fakes();
    let mut server = start(&wikipedia, &brave, "[cache]\nenabled = true\n");
    let query = json!({"query": "counter strike", "max_results": 10});
    let first = call(&mut server, "web_search", query.clone());
    assert_eq!(first["outcome"], json!("ok"), "{first}");
    assert!(from_cache(&first).is_empty());
    let second = call(&mut server, "web_search", query);
    assert_eq!(second["outcome"], json!("ok"), "{second}");
    assert_eq!(
        from_cache(&second),
        [json!({"code": "from_cache", "engine": "wikipedia"})]
    );
    assert_eq!(wikipedia.seen().len(), 1, "Wikipedia was asked once");
    assert_eq!(
        brave.seen().len(),
        2,
        "Brave forbids storage: asked each time"
    );
    assert_eq!(first["results"], second["results"]);
    // The call's log says how many engines the cache answered.
    let line = server.await_log(
        &[
            ("event", json!("search_engines")),
            ("from_cache", json!(1)),
            ("asked", json!(1)),
        ],
        Duration::from_secs(5),
    );
    assert!(line.is_some(), "{:?}", server.log());
    let done = server.await_log(
        &[("event", json!("call_done")), ("from_cache", json!(1))],
        Duration::from_secs(5),
    );
    assert!(
        done.is_some(),
        "the call's own line counts the cached engines"
    );
}

// Verifies: REQ-CACHE-001 (off by default: every search asks every engine)
#[test]
fn without_the_cache_every_search_asks() {
    let (wikipedia, brave) = fakes();
    let mut server = start(&wikipedia, &brave, "");
    for _ in 0..2 {
        let body = call(
            &mut server,
            "web_search",
            json!({"query": "counter strike"}),
        );
        assert!(from_cache(&body).is_empty(), "{body}");
    }
    assert_eq!(wikipedia.seen().len(), 2);
}

// Verifies: REQ-CACHE-002 (another language or time range is another engine request)
#[test]
fn another_language_or_time_range_misses() {
    let (wikipedia, brave) = fakes();
    let config = config(wikipedia.port(), brave.port(), "[cache]\nenabled = true\n").replace(
        "grace_ms = 200\n",
        "grace_ms = 200\nlanguages = [\"en\", \"de\"]\n",
    );
    let mut server = Server::start_with_env(Some(&config), &[("RYPSOK_TEST_BRAVE_KEY", KEY)]);
    server.initialize();
    server.call("web_search", json!({"query": "counter strike"}));
    let german = call(
        &mut server,
        "web_search",
        json!({"query": "counter strike", "language": "de"}),
    );
    assert!(from_cache(&german).is_empty(), "{german}");
    assert_eq!(wikipedia.seen().len(), 2);
    // Wikipedia cannot honour a time range (skipped); Brave can and is
    // never stored: nothing from the cache.
    let week = call(
        &mut server,
        "web_search",
        json!({"query": "counter strike", "time_range": "week"}),
    );
    assert!(from_cache(&week).is_empty(), "{week}");
}

// Verifies: REQ-CACHE-002 (another result count is another entry; the same one hits)
#[test]
fn another_result_count_misses() {
    let (wikipedia, brave) = fakes();
    let mut server = start(&wikipedia, &brave, "[cache]\nenabled = true\n");
    let five = json!({"query": "counter strike", "max_results": 5});
    call(&mut server, "web_search", five.clone());
    let seven = call(
        &mut server,
        "web_search",
        json!({"query": "counter strike", "max_results": 7}),
    );
    assert!(from_cache(&seven).is_empty(), "{seven}");
    assert_eq!(wikipedia.seen().len(), 2);
    let again = call(&mut server, "web_search", five);
    assert_eq!(
        from_cache(&again),
        [json!({"code": "from_cache", "engine": "wikipedia"})],
        "{again}"
    );
    assert_eq!(wikipedia.seen().len(), 2);
}

// Verifies: REQ-CACHE-003, REQ-PRIV-002 (a query the privacy check warned about bypasses the cache)
#[test]
fn a_warned_query_asks_every_time() {
    let (wikipedia, brave) = fakes();
    let mut server = start(
        &wikipedia,
        &brave,
        "[cache]\nenabled = true\n[privacy]\nsecret_detection = \"warn\"\n",
    );
    // An access key id of the kind the secret check recognises.
    let query = json!({"query": format!("why does AKIA{} fail", "Q2ZR7MXV4KPL3TWN")});
    for _ in 0..2 {
        let body = call(&mut server, "web_search", query.clone());
        assert!(from_cache(&body).is_empty(), "{body}");
    }
    assert_eq!(wikipedia.seen().len(), 2);
}
