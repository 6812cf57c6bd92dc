//! `web_search` through all three processes against a loopback Wikipedia
//! serving captured answers (design §3.1, §6, §7; fixtures: see
//! worker-parse/testdata/wikipedia/PROVENANCE.md).

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::{
    FakeHttp, Reply, Server, assert_text_mirrors_structure, structured, wikipedia_config,
    workspace_file,
};

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(workspace_file(&format!(
        "worker-parse/testdata/wikipedia/{name}"
    )))
    .expect("fixture")
}

fn server_for(fake: &FakeHttp) -> Server {
    let mut server = Server::start(Some(&wikipedia_config(fake.port(), "")));
    server.initialize();
    server
}

// Verifies: REQ-ENG-005, REQ-CTX-004, REQ-RANK-007, REQ-CMP-004 (a real answer becomes clean, bounded results)
#[test]
fn returns_clean_wikipedia_results_through_every_process() {
    let fake = FakeHttp::start(Reply::json(&fixture("en_search_counter_strike_2021.json")));
    let mut server = server_for(&fake);
    let result = server.call(
        "web_search",
        json!({"query": "counter strike & co", "max_results": 3}),
    );
    assert_text_mirrors_structure(&result);
    let body = structured(&result);
    assert_eq!(body["outcome"], json!("ok"), "{result}");
    let results = body["results"].as_array().expect("results");
    assert_eq!(results.len(), 3);
    assert_eq!(results[0]["title"], json!("Counter-Strike"));
    assert_eq!(
        results[0]["url"],
        json!("https://en.wikipedia.org/wiki/Counter-Strike")
    );
    assert_eq!(
        results[1]["url"],
        json!("https://en.wikipedia.org/wiki/Counter-Strike:_Global_Offensive")
    );
    let snippet = results[0]["snippet"].as_str().expect("snippet");
    assert!(
        snippet.starts_with("Counter-Strike (CS) is a series"),
        "{snippet}"
    );
    assert!(
        !snippet.contains('<') && !snippet.contains("searchmatch"),
        "{snippet}"
    );
    // `timestamp` is the last edit, not a date of the page: no `date`.
    assert!(results[0].get("date").is_none());
    // The request the engine saw: the operator's endpoint, the query, our User-Agent.
    let seen = fake.seen();
    assert_eq!(seen.len(), 1);
    assert!(
        seen[0].target.starts_with("/w/api.php?"),
        "{}",
        seen[0].target
    );
    assert!(
        seen[0].target.contains("srsearch=counter+strike+%26+co"),
        "{}",
        seen[0].target
    );
    let ua = seen[0]
        .headers
        .iter()
        .find(|(n, _)| n == "user-agent")
        .map(|(_, v)| v.clone())
        .unwrap_or_default();
    assert!(
        ua.starts_with("rypsok/") && ua.ends_with("; ops@example.org)"),
        "{ua}"
    );
}

// Verifies: REQ-ERR-005 (an engine that answered with nothing is empty, not an error)
#[test]
fn answers_empty_when_the_engine_finds_nothing() {
    let fake = FakeHttp::start(Reply::json(&fixture(
        "en_search_no_results_gobbilygook_2017.json",
    )));
    let mut server = server_for(&fake);
    let result = server.call("web_search", json!({"query": "gobbilygook"}));
    assert_eq!(
        structured(&result),
        &json!({"outcome": "empty", "notices": [], "results": []})
    );
}

// Verifies: REQ-ENG-006, REQ-ENG-009, REQ-ERR-005 (an API error body and the 403 block are failures, never results)
#[test]
fn answers_unavailable_for_an_api_error_body_and_the_user_agent_block() {
    let fake = FakeHttp::start(Reply::json(&fixture("frwiktionary_error_nosrsearch.json")));
    let mut server = server_for(&fake);
    let result = server.call("web_search", json!({"query": "anything"}));
    assert_eq!(result["isError"], json!(true));
    assert_eq!(structured(&result)["error"]["kind"], json!("unavailable"));
    assert_eq!(
        structured(&result)["error"]["detail"]["reason"],
        json!("all_failed")
    );

    fake.set_reply(
        Reply::json(&fixture("wikimedia_403_user_agent_policy.txt")).with_status(403, "text/plain"),
    );
    let result = server.call("web_search", json!({"query": "anything"}));
    assert_eq!(
        structured(&result)["error"]["detail"]["reason"],
        json!("all_failed"),
        "{result}"
    );
    // No provider text crosses into the envelope.
    assert!(!result.to_string().contains("robot policy"), "{result}");
    let blocked = server.await_log(
        &[
            ("event", json!("engine_result")),
            ("class", json!("blocked")),
        ],
        Duration::from_secs(2),
    );
    assert!(blocked.is_some(), "the block is classified in the log");
}

// Verifies: REQ-AGG-003, REQ-ERR-001 (an engine that never answers ends the call at the deadline)
#[test]
fn ends_at_the_deadline_when_the_engine_hangs() {
    let fake = FakeHttp::start(Reply::json(b"{}").delayed(Duration::from_secs(8)));
    let mut server = server_for(&fake);
    let started = Instant::now();
    let result = server.call("web_search", json!({"query": "slow"}));
    let elapsed = started.elapsed();
    assert_eq!(
        structured(&result)["error"]["detail"]["reason"],
        json!("deadline"),
        "{result}"
    );
    // LIM-S7 is the configured 1500 ms deadline plus 300 ms; the margin
    // absorbs a loaded machine, never an engine's 8 s.
    assert!(
        elapsed < Duration::from_millis(1500 + 300 + 2000),
        "{elapsed:?}"
    );
}

// Verifies: REQ-MCP-007, REQ-AGG-006 (notifications/cancelled stops the engine request in worker-net)
#[test]
fn cancellation_reaches_the_engine_request() {
    let fake = FakeHttp::start(Reply::json(b"{}").delayed(Duration::from_secs(3)));
    let mut server = server_for(&fake);
    let id = server.send_request(
        "tools/call",
        json!({"name": "web_search", "arguments": {"query": "cancel me"}}),
    );
    let until = Instant::now() + Duration::from_secs(3);
    while fake.seen().is_empty() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(fake.seen().len(), 1, "the engine request started");
    server.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id, "reason": "user"}}));
    // A cancelled request gets no response.
    assert!(server.response(id, Duration::from_millis(1200)).is_none());
    let until = Instant::now() + Duration::from_secs(2);
    while !fake.seen()[0].abandoned && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(
        fake.seen()[0].abandoned,
        "worker-net closed the engine connection"
    );
    // The server goes on serving.
    let status = server.call("engine_status", json!({}));
    assert_eq!(structured(&status)["outcome"], json!("ok"));
}

// Verifies: REQ-ARCH-004, I8 (identical engine answers give byte-identical output)
#[test]
fn gives_identical_output_for_identical_answers() {
    let fake = FakeHttp::start(Reply::json(&fixture("de_search_hallo_2019.json")));
    let mut server = server_for(&fake);
    let mut texts = Vec::new();
    for _ in 0..3 {
        let result = server.call("web_search", json!({"query": "hallo", "max_results": 10}));
        texts.push(result["content"][0]["text"].clone());
    }
    assert_eq!(texts[0], texts[1]);
    assert_eq!(texts[1], texts[2]);
    let body: Value = serde_json::from_str(texts[0].as_str().expect("text")).expect("json");
    let urls: Vec<&str> = body["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter_map(|r| r["url"].as_str())
        .collect();
    assert!(urls.iter().any(|u| u.contains("H%C3%B6here")), "{urls:?}");
}

/// A query carrying an AWS key id (a structural format: no checksum to
/// keep out of the repository), with a canary word beside it.
fn query_with_key() -> (String, String) {
    let key = format!("AKIA{}", "Q2ZR7MXV4KPL3TWN");
    (format!("canary-kestrel {key} rotation"), key)
}

// Verifies: REQ-PRIV-002, REQ-PRIV-004, REQ-SEARCH-006, I6 (refused: denied with kind and position; nothing sent; neither the key nor the query in any log line)
#[test]
fn refuses_a_credential_in_the_query_and_never_logs_it() {
    let fake = FakeHttp::start(Reply::json(&fixture("en_search_counter_strike_2021.json")));
    let mut server = server_for(&fake);
    let (query, key) = query_with_key();
    let result = server.call("web_search", json!({"query": query}));
    assert_eq!(result["isError"], json!(true));
    assert_eq!(
        structured(&result)["error"]["detail"],
        json!({"reason": "secret_in_query", "kind": "aws_access_key_id", "position": 15})
    );
    assert!(!result.to_string().contains(&key));
    let _ = server.close_and_wait(Duration::from_secs(5));
    assert!(fake.seen().is_empty(), "no engine was asked");
    let raw = server.stderr.lock().expect("stderr").clone();
    assert!(
        raw.iter().any(|l| l.contains("secret_in_query")),
        "the refusal is logged"
    );
    for line in &raw {
        assert!(
            !line.contains(&key) && !line.contains("canary-kestrel"),
            "{line}"
        );
    }
}

// Verifies: REQ-PRIV-002, REQ-PRIV-004 (mask: the engine sees the masked query, the caller gets credential_masked, no log line has the key)
#[test]
fn masks_a_credential_when_the_operator_chose_mask() {
    let fake = FakeHttp::start(Reply::json(&fixture("en_search_counter_strike_2021.json")));
    let mut server = Server::start(Some(&wikipedia_config(
        fake.port(),
        "[privacy]\nsecret_detection = \"mask\"\n",
    )));
    server.initialize();
    let (query, key) = query_with_key();
    let result = server.call("web_search", json!({"query": query, "max_results": 1}));
    let body = structured(&result);
    assert_eq!(body["outcome"], json!("ok"), "{result}");
    assert!(
        body["notices"]
            .as_array()
            .expect("notices")
            .contains(&json!({"code": "credential_masked", "count": 1}))
    );
    let seen = fake.seen();
    assert_eq!(seen.len(), 1);
    assert!(!seen[0].target.contains(&key), "{}", seen[0].target);
    assert!(
        seen[0].target.contains("%5Baws_access_key_id%5D"),
        "{}",
        seen[0].target
    );
    let _ = server.close_and_wait(Duration::from_secs(5));
    for line in server.stderr.lock().expect("stderr").iter() {
        assert!(
            !line.contains(&key) && !line.contains("canary-kestrel"),
            "{line}"
        );
    }
}

// Verifies: REQ-ERR-005, REQ-SEARCH-005 (§7 N = 0: every engine skipped is unavailable, no_engine, and nothing is sent)
#[test]
fn answers_no_engine_when_every_engine_is_skipped() {
    let fake = FakeHttp::start(Reply::json(&fixture("en_search_counter_strike_2021.json")));
    let mut server = server_for(&fake);
    let result = server.call("web_search", json!({"query": "news", "time_range": "day"}));
    assert_eq!(result["isError"], json!(true));
    assert_eq!(
        structured(&result)["error"]["detail"],
        json!({"reason": "no_engine"})
    );
    assert!(fake.seen().is_empty());
}

// Verifies: REQ-MCP-010 (§7: the tool's rate limit answers unavailable, rate_limited, with retry_after_ms; no engine asked)
#[test]
fn answers_rate_limited_past_the_tools_limit() {
    let fake = FakeHttp::start(Reply::json(&fixture("en_search_counter_strike_2021.json")));
    let mut server = Server::start(Some(&wikipedia_config(
        fake.port(),
        "[limits]\nweb_search_per_minute = 1\n",
    )));
    server.initialize();
    let first = server.call("web_search", json!({"query": "one"}));
    assert_eq!(structured(&first)["outcome"], json!("ok"), "{first}");
    let second = server.call("web_search", json!({"query": "two"}));
    let detail = &structured(&second)["error"]["detail"];
    assert_eq!(detail["reason"], json!("rate_limited"), "{second}");
    let retry = detail["retry_after_ms"].as_u64().expect("retry_after_ms");
    assert!(retry > 0 && retry <= 60_000, "{retry}");
    assert_eq!(fake.seen().len(), 1);
}
