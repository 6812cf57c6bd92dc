//! The DuckDuckGo scraping driver through all three processes, against a
//! loopback server serving captured and written result pages (design §11;
//! fixtures: worker-parse/testdata/duckduckgo/PROVENANCE.md).
// Black-box tests start the binary as an operator would.
#![allow(clippy::disallowed_methods)]

use std::process::Command;
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::{FakeHttp, Reply, Server, TempDir, binary, structured, workspace_file};

/// A tool call's structured content.
fn call(server: &mut Server, name: &str, arguments: Value) -> Value {
    structured(&server.call(name, arguments)).clone()
}

fn page(name: &str) -> Vec<u8> {
    std::fs::read(workspace_file(&format!(
        "worker-parse/testdata/duckduckgo/{name}"
    )))
    .expect("fixture")
}

fn html(body: &[u8]) -> Reply {
    Reply::json(body).with_status(200, "text/html; charset=UTF-8")
}

fn config(port: u16, scraping: bool) -> String {
    format!(
        r#"[search]
deadline_ms = 1500
grace_ms = 200
[scraping]
enabled = {scraping}
[egress]
allow = ["127.0.0.1:{port}"]
[engines.ddg]
type = "duckduckgo"
endpoint = "http://127.0.0.1:{port}/html/"
timeout_ms = 1200
"#
    )
}

// Verifies: REQ-ENG-013 (a scraping type is refused unless the operator opted in)
#[test]
fn check_and_serve_refuse_the_driver_without_the_opt_in() {
    let dir = TempDir::new("ddg-opt-in");
    let refused = dir.write("refused.toml", &config(9, false));
    let out = Command::new(binary())
        .args(["check", "--config"])
        .arg(&refused)
        .output()
        .expect("run check");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "engines.ddg.type: a scraping engine type; allowed only with [scraping] enabled = true"
        ),
        "{stderr}"
    );
    let accepted = dir.write("accepted.toml", &config(9, true));
    let out = Command::new(binary())
        .args(["check", "--config"])
        .arg(&accepted)
        .output()
        .expect("run check");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = Command::new(binary())
        .args(["serve", "--transport", "stdio", "--config"])
        .arg(&refused)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run serve");
    assert_eq!(out.status.code(), Some(1), "serve refuses it too");
}

// Verifies: REQ-ENG-005, REQ-ENG-014, REQ-ENG-015, REQ-CTX-004 (a captured results page becomes results; the request is a plain GET with the standard User-Agent)
#[test]
fn returns_the_results_of_a_captured_page_through_every_process() {
    let fake = FakeHttp::start(html(&page("html_eino_2025.html")));
    let mut server = Server::start(Some(&config(fake.port(), true)));
    server.initialize();
    let body = call(
        &mut server,
        "web_search",
        json!({"query": "eino", "max_results": 10, "time_range": "week"}),
    );
    assert_eq!(body["outcome"], json!("ok"), "{body}");
    let results = body["results"].as_array().expect("results");
    assert_eq!(results.len(), 10);
    assert_eq!(
        results[0]["url"],
        json!("https://github.com/cloudwego/eino")
    );
    assert_eq!(results[1]["date"], json!("2025-06-23"));
    // Decoded text is cleaned as such: no markup left, entities resolved
    // once, nothing decoded twice.
    let snippet = results[1]["snippet"].as_str().expect("snippet");
    assert!(snippet.contains("Eino['aino]"), "{snippet}");
    assert!(!snippet.contains("&#x27;") && !snippet.contains("<b>"));
    let seen = fake.seen();
    assert_eq!(seen.len(), 1);
    assert!(
        seen[0].target.starts_with("/html/?q=eino&"),
        "{}",
        seen[0].target
    );
    assert!(seen[0].target.contains("&df=w"), "{}", seen[0].target);
    let names: Vec<&str> = seen[0].headers.iter().map(|(n, _)| n.as_str()).collect();
    for browser_header in ["cookie", "accept-language", "sec-fetch-mode", "referer"] {
        assert!(!names.contains(&browser_header), "{names:?}");
    }
    let ua = seen[0]
        .headers
        .iter()
        .find(|(n, _)| n == "user-agent")
        .map(|(_, v)| v.as_str())
        .unwrap_or_default();
    assert!(ua.starts_with("rypsok/"), "{ua}");
}

// Verifies: REQ-RANK-003 (redirect wrappers are unwrapped to the target URLs; ads are no results)
#[test]
fn returns_target_urls_not_redirect_wrappers() {
    let fake = FakeHttp::start(html(&page("written_redirect_wrappers_and_ad.html")));
    let mut server = Server::start(Some(&config(fake.port(), true)));
    server.initialize();
    let body = call(&mut server, "web_search", json!({"query": "rust"}));
    let urls: Vec<&str> = body["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter_map(|r| r["url"].as_str())
        .collect();
    assert_eq!(
        urls,
        [
            "https://www.rust-lang.org/",
            "https://doc.rust-lang.org/book/ch01-00-getting-started.html?q=1&r=%C3%A9",
            "https://en.wikipedia.org/wiki/Rust_(programming_language)",
        ]
    );
}

// Verifies: REQ-ENG-009, REQ-ENG-013, REQ-RES-004 (the challenge page is blocked, never results, and opens the circuit)
#[test]
fn the_challenge_page_is_blocked_and_opens_the_circuit() {
    let fake = FakeHttp::start(html(&page("written_anomaly_challenge.html")));
    let mut server = Server::start(Some(&config(fake.port(), true)));
    server.initialize();
    let result = server.call("web_search", json!({"query": "eino"}));
    let body = structured(&result).clone();
    assert_eq!(body["error"]["kind"], json!("unavailable"), "{result}");
    assert_eq!(body["error"]["detail"]["reason"], json!("all_failed"));
    let blocked = server.await_log(
        &[
            ("event", json!("engine_result")),
            ("engine", json!("ddg")),
            ("class", json!("blocked")),
        ],
        Duration::from_secs(5),
    );
    assert!(blocked.is_some(), "the block is classified in the log");
    let status = call(&mut server, "engine_status", json!({}));
    assert_eq!(status["engines"][0]["state"], json!("open"), "{status}");
    // While open, the engine is not asked again.
    server.call("web_search", json!({"query": "eino"}));
    assert_eq!(fake.seen().len(), 1);
    // A 429 is a block too.
    let fake = FakeHttp::start(Reply::json(b"").with_status(429, "text/html"));
    let mut server = Server::start(Some(&config(fake.port(), true)));
    server.initialize();
    server.call("web_search", json!({"query": "eino"}));
    let status = call(&mut server, "engine_status", json!({}));
    assert_eq!(status["engines"][0]["state"], json!("open"), "{status}");
}
