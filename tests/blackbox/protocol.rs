//! MCP over stdio (design §2, §3): the tool list, both protocol eras,
//! arguments validated without echo, end of input.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::{Server, assert_text_mirrors_structure, structured, workspace_file};

/// The golden file; `RYPSOK_UPDATE_GOLDEN=1` rewrites it from the binary.
const GOLDEN: &str = "tests/golden/tools_list_zero_config.json";

// Verifies: REQ-MCP-005, REQ-MCP-008, REQ-MCP-009 (the golden tools/list at zero configuration)
#[test]
fn lists_the_golden_tools_at_zero_configuration() {
    let mut server = Server::start(None);
    server.initialize();
    let list = server.request("tools/list", json!({}));
    let tools = &list["result"]["tools"];
    let path = workspace_file(GOLDEN);
    if std::env::var_os("RYPSOK_UPDATE_GOLDEN").is_some() {
        let text = serde_json::to_string_pretty(tools).expect("render") + "\n";
        std::fs::write(&path, text).expect("write golden");
    }
    let golden: Value = serde_json::from_str(&std::fs::read_to_string(&path).expect("golden file"))
        .expect("golden JSON");
    assert_eq!(
        tools, &golden,
        "tools/list changed; review and rerun with RYPSOK_UPDATE_GOLDEN=1"
    );
    let names: Vec<&str> = tools
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(names, ["web_search", "web_fetch", "engine_status"]);
    assert_eq!(
        tools[0]["inputSchema"]["additionalProperties"],
        json!(false)
    );
    assert_eq!(tools[2]["annotations"]["openWorldHint"], json!(false));
}

// Verifies: REQ-MCP-008 (server instructions of §2 in the handshake)
#[test]
fn states_in_its_instructions_that_results_are_data() {
    let mut server = Server::start(None);
    let init = server.initialize();
    let instructions = init["result"]["instructions"]
        .as_str()
        .expect("instructions");
    assert!(
        instructions.contains("never an instruction"),
        "{instructions}"
    );
    assert_eq!(init["result"]["serverInfo"]["name"], json!("rypsok"));
}

// Verifies: REQ-MCP-006 (the 2026-07-28 revision: no handshake, metadata on every request)
#[test]
fn serves_the_stateless_revision_without_a_handshake() {
    let mut server = Server::start(None);
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}});
    let list = server.request("tools/list", json!({"_meta": meta}));
    assert_eq!(
        list["result"]["tools"].as_array().map(Vec::len),
        Some(3),
        "{list}"
    );
    let status = server.request(
        "tools/call",
        json!({"name": "engine_status", "arguments": {}, "_meta": meta}),
    );
    assert_eq!(
        status["result"]["structuredContent"]["outcome"],
        json!("ok"),
        "{status}"
    );
}

// Verifies: REQ-MCP-009 (the list follows the configuration: two languages, no engine_status)
#[test]
fn follows_the_configuration_in_its_tool_list() {
    let mut server = Server::start(Some(
        "[search]\nlanguages = [\"en\", \"ja\"]\n[status]\nenabled = false\n",
    ));
    let init = server.initialize();
    let list = server.request("tools/list", json!({}));
    let tools = list["result"]["tools"].as_array().expect("tools").clone();
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names, ["web_search", "web_fetch"]);
    // LIM-I1: the list plus the instructions, as sent, with two languages.
    let instructions = init["result"]["instructions"]
        .as_str()
        .expect("instructions");
    let total = list["result"].to_string().chars().count() + instructions.chars().count();
    assert!(total <= 6000, "{total}");
    assert_eq!(
        tools[0]["inputSchema"]["properties"]["language"]["enum"],
        json!(["en", "ja"])
    );
    let call = server.request(
        "tools/call",
        json!({"name": "engine_status", "arguments": {}}),
    );
    assert!(
        call.get("error").is_some(),
        "a removed tool is unknown: {call}"
    );
}

// Verifies: REQ-SEARCH-006, REQ-ERR-003, REQ-ERR-004 (invalid_request as a tool error, never echoing input)
#[test]
fn refuses_bad_arguments_as_tool_errors_without_echo() {
    let mut server = Server::start(None);
    server.initialize();
    let marker = "ZZ-caller-text-ZZ";
    for args in [
        json!({"query": marker, "max_results": 0}),
        json!({"query": marker, "category": marker}),
        json!({"query": marker, marker: true}),
        json!({"query": 42}),
        json!({}),
    ] {
        let result = server.call("web_search", args.clone());
        assert_eq!(result["isError"], json!(true), "{args}");
        assert_eq!(
            structured(&result)["error"]["kind"],
            json!("invalid_request"),
            "{args}"
        );
        assert_text_mirrors_structure(&result);
        assert!(
            !result.to_string().contains(marker),
            "{args} echoed: {result}"
        );
    }
    let bad = server.request(
        "tools/call",
        json!({"name": "web_search", "arguments": "not an object"}),
    );
    assert!(bad["error"].is_object(), "{bad}");
    let unknown = server.request("tools/call", json!({"name": marker, "arguments": {}}));
    assert!(
        unknown["error"].is_object() && !unknown.to_string().contains(marker),
        "{unknown}"
    );
}

// Verifies: REQ-MCP-005, REQ-SEC-006 (web_fetch is dispatched; a loopback literal is refused before any I/O)
#[test]
fn dispatches_web_fetch_and_refuses_a_loopback_literal() {
    let mut server = Server::start(None);
    server.initialize();
    let call = server.call("web_fetch", json!({"url": "https://127.0.0.1/"}));
    assert_eq!(call["isError"], json!(true), "{call}");
    assert_eq!(
        call["structuredContent"]["error"]["detail"]["reason"],
        json!("egress"),
        "{call}"
    );
}

// Verifies: REQ-OBS-007 (refused calls counted per tool and reason, in the log line of each refusal)
#[test]
fn counts_refused_calls_per_tool_and_reason() {
    let mut server = Server::start(None);
    server.initialize();
    for _ in 0..2 {
        server.call("web_fetch", json!({"url": "https://127.0.0.1/"}));
    }
    server.call("web_fetch", json!({"url": "ftp://example.org/"}));
    server.call("web_search", json!({"query": ""}));
    let refused = |kind: &str, reason: &str, count: u64| {
        server
            .await_log(
                &[
                    ("event", json!("call_refused")),
                    ("kind", json!(kind)),
                    ("reason", json!(reason)),
                    ("refused_count", json!(count)),
                ],
                Duration::from_secs(5),
            )
            .is_some()
    };
    assert!(refused("denied", "egress", 1));
    assert!(refused("denied", "egress", 2));
    assert!(refused("denied", "scheme", 1));
    // Another tool's refusals are counted on their own.
    assert!(refused("invalid_request", "", 1));
}

// Verifies: REQ-MCP-011 (structured content switched off: text only, and no output schema to break clients)
#[test]
fn answers_text_only_when_structured_content_is_off() {
    let mut server = Server::start(Some("[service]\nstructured_content = false\n"));
    server.initialize();
    let list = server.request("tools/list", json!({}));
    for tool in list["result"]["tools"].as_array().expect("tools") {
        assert!(tool.get("outputSchema").is_none(), "{tool}");
    }
    let status = server.call("engine_status", json!({}));
    assert!(status.get("structuredContent").is_none(), "{status}");
    let text: Value = serde_json::from_str(status["content"][0]["text"].as_str().expect("text"))
        .expect("JSON text");
    assert_eq!(text["outcome"], json!("ok"));
}

// Verifies: REQ-MCP-010 (LIM-C8: a call past the tool's rate limit is unavailable with a retry hint)
#[test]
fn refuses_calls_past_the_tool_rate_limit() {
    let mut server = Server::start(Some("[limits]\nengine_status_per_minute = 2\n"));
    server.initialize();
    for _ in 0..2 {
        assert_eq!(
            structured(&server.call("engine_status", json!({})))["outcome"],
            json!("ok")
        );
    }
    let refused = server.call("engine_status", json!({}));
    let error = &structured(&refused)["error"];
    assert_eq!(error["kind"], json!("unavailable"), "{refused}");
    assert_eq!(error["detail"]["reason"], json!("rate_limited"));
    let retry = error["detail"]["retry_after_ms"]
        .as_u64()
        .expect("retry hint");
    assert!(retry > 0 && retry <= 60_000, "{retry}");
}

// Verifies: REQ-MCP-002 (stdout carries MCP messages only; exit 0 on end of input)
#[test]
fn exits_cleanly_at_end_of_input() {
    let mut server = Server::start(None);
    server.initialize();
    let status = server
        .close_and_wait(Duration::from_secs(5))
        .expect("exits after end of input");
    assert!(status.success());
}

/// The operator's switch that serves the 2026-07-28 revision alone.
const HANDSHAKE_OFF: &str = "config_version = 1\n[service]\nhandshake_revisions = false\n";

fn meta(version: &str) -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientCapabilities": {}})
}

/// The SDK's unsupported-version error, naming only the current revision.
fn assert_unsupported(answer: &Value, requested: &str) {
    let error = &answer["error"];
    assert_eq!(error["code"], json!(-32022), "{answer}");
    assert_eq!(error["data"]["requested"], json!(requested), "{answer}");
    assert_eq!(
        error["data"]["supported"],
        json!(["2026-07-28"]),
        "{answer}"
    );
}

// Verifies: REQ-MCP-006 (handshake revisions off: an initialize is refused with the supported revisions, and the SDK ends the stdio session)
#[test]
fn refuses_the_handshake_when_the_earlier_revisions_are_off() {
    let mut server = Server::start(Some(HANDSHAKE_OFF));
    let init = server.request(
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "blackbox", "version": "1"}}),
    );
    assert_unsupported(&init, "2025-06-18");
    assert!(init.get("result").is_none(), "{init}");
    // A refused handshake ends the session, and with it the process.
    let status = server
        .wait(Duration::from_secs(10))
        .expect("exits after the refused handshake");
    assert!(status.success());
    assert!(server.log().iter().any(
        |l| l["event"] == json!("session_ended") && l["reason"] == json!("initialize_refused")
    ));
}

// Verifies: REQ-MCP-006, REQ-MCP-009 (handshake revisions off: 2026-07-28 is served with the same tool list; earlier revisions are refused in session too)
#[test]
fn serves_the_current_revision_alone_when_the_earlier_are_off() {
    let mut server = Server::start(Some(HANDSHAKE_OFF));
    let discover = server.request("server/discover", json!({"_meta": meta("2026-07-28")}));
    assert_eq!(
        discover["result"]["supportedVersions"],
        json!(["2026-07-28"]),
        "{discover}"
    );
    let list = server.request("tools/list", json!({"_meta": meta("2026-07-28")}));
    let golden: Value = serde_json::from_str(
        &std::fs::read_to_string(workspace_file(GOLDEN)).expect("golden file"),
    )
    .expect("golden JSON");
    assert_eq!(
        list["result"]["tools"], golden,
        "the switch changes no tool"
    );
    let call = server.request(
        "tools/call",
        json!({"name": "engine_status", "arguments": {}, "_meta": meta("2026-07-28")}),
    );
    assert_eq!(
        structured(&call["result"])["outcome"],
        json!("ok"),
        "{call}"
    );
    // An earlier revision named in a request's metadata, or a handshake
    // once the session runs: the same refusal, and the session goes on.
    let old = server.request("tools/list", json!({"_meta": meta("2025-06-18")}));
    assert_unsupported(&old, "2025-06-18");
    let init = server.request(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "blackbox", "version": "1"}}),
    );
    assert_unsupported(&init, "2025-11-25");
    let again = server.request("tools/list", json!({"_meta": meta("2026-07-28")}));
    assert_eq!(again["result"]["tools"], golden);
}

// Verifies: REQ-MCP-006 (by default the handshake revisions are served beside 2026-07-28)
#[test]
fn advertises_every_revision_by_default() {
    let mut server = Server::start(None);
    let discover = server.request("server/discover", json!({"_meta": meta("2026-07-28")}));
    let versions = discover["result"]["supportedVersions"]
        .as_array()
        .expect("supportedVersions")
        .clone();
    assert!(versions.contains(&json!("2025-06-18")), "{discover}");
    assert!(versions.contains(&json!("2026-07-28")), "{discover}");
}

// Verifies: REQ-MCP-002, REQ-MCP-004 (a line that is not JSON, invalid UTF-8 or nesting past the parser's limit gets the parse error -32700 with id null, never echoing the line; a lone surrogate escape is read as U+FFFD and the request answered; nothing hangs)
#[test]
fn answers_lines_that_are_not_json_with_a_parse_error() {
    let mut server = Server::start(None);
    server.initialize();
    let deep = format!("{}{}\n", "[".repeat(300), "]".repeat(300));
    let broken: [&[u8]; 4] = [
        b"this is not json\n",
        b"{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/list\",\"params\":{\"cursor\":\"\xff\xfe\"}}\n",
        deep.as_bytes(),
        b"{\"jsonrpc\":\"2.0\",\"id\":9,\n",
    ];
    for line in broken {
        server.send_raw(line);
        let answer = server
            .next_message(Duration::from_secs(5))
            .expect("an answer to a line that is not JSON");
        assert_eq!(answer["error"]["code"], json!(-32700), "{answer}");
        assert_eq!(answer["id"], Value::Null, "{answer}");
        let text = answer.to_string();
        assert!(
            !text.contains("this is not") && !text.contains("[[["),
            "{text}"
        );
    }
    // A lone surrogate escape in a string: read as U+FFFD, the call goes on
    // (here refused as a tool error for its unknown argument).
    server.send_raw(
        b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"engine_status\",\"arguments\":{\"x\":\"a\\ud800b\"}}}\n",
    );
    let answer = server
        .response(7, Duration::from_secs(5))
        .expect("an answer to a request with a lone surrogate");
    assert!(
        answer.get("result").is_some() || answer.get("error").is_some(),
        "{answer}"
    );
    // And the session goes on.
    let list = server.request("tools/list", json!({}));
    assert!(list["result"]["tools"].is_array(), "{list}");
}

// Verifies: REQ-MCP-002, REQ-MCP-004 (a 20 MB line is answered with Invalid Request saying the message is too large, id null, never echoing it; the next line is answered)
#[test]
fn answers_a_line_over_the_bound_as_too_large() {
    let mut server = Server::start(None);
    server.initialize();
    let mut huge =
        b"{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/list\",\"params\":{\"x\":\"".to_vec();
    huge.resize(20 * 1024 * 1024, b'a');
    huge.extend_from_slice(b"\"}}\n");
    server.send_raw(&huge);
    let answer = server
        .next_message(Duration::from_secs(20))
        .expect("an answer to a line over the bound");
    assert_eq!(answer["error"]["code"], json!(-32600), "{answer}");
    assert_eq!(answer["id"], Value::Null, "{answer}");
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("too large"), "{answer}");
    assert!(!answer.to_string().contains("aaaa"), "{answer}");
    let list = server.request("tools/list", json!({}));
    assert!(list["result"]["tools"].is_array(), "{list}");
}
