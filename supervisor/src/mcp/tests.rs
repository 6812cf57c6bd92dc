//! The adapter in process: JSON-RPC lines over a `tokio::io::duplex` pipe
//! into the SDK's line transport, as rmcp's own tests drive a server, with
//! stand-in workers that are never reached. The protocol behaviour is
//! tested here without starting the binary; the black-box tests keep the
//! binary's own.

use std::collections::HashMap;
use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::transport::async_rw::AsyncRwTransport;
use rypsok_core::ports::{Document, EngineResponse, ExchangeError};
use rypsok_core::{NetPort, ParsePort, PortError, PortFuture};
use rypsok_proto::{EngineParse, ExchangeRequest, ExchangeResponse, PageParse, RobotsRules};
use serde_json::json;
use tokio::io::{
    AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadHalf, WriteHalf,
};

use super::*;

/// The tool list at zero configuration, shared with the black-box test
/// that owns its update switch.
const GOLDEN: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/golden/tools_list_zero_config.json"
);

/// Caller text that must never come back.
const MARKER: &str = "ZZ-caller-text-ZZ";

/// How long a test waits for one answer before it fails.
const ANSWER_WITHIN: Duration = Duration::from_secs(10);

/// Both workers, never started: the calls tested here end before any
/// work would reach one.
#[derive(Debug)]
struct NoWorkers;

impl NetPort for NoWorkers {
    fn exchange(
        &self,
        _request: ExchangeRequest,
        _deadline: tokio::time::Instant,
    ) -> PortFuture<'_, Result<ExchangeResponse, ExchangeError>> {
        Box::pin(async { Err(ExchangeError::Port(PortError::Unavailable)) })
    }
}

impl ParsePort for NoWorkers {
    fn parse_engine_answer(
        &self,
        _answer: EngineResponse,
        _deadline: tokio::time::Instant,
    ) -> PortFuture<'_, Result<EngineParse, PortError>> {
        Box::pin(async { Err(PortError::Unavailable) })
    }

    fn parse_page(
        &self,
        _document: Document,
        _deadline: tokio::time::Instant,
    ) -> PortFuture<'_, Result<PageParse, PortError>> {
        Box::pin(async { Err(PortError::Unavailable) })
    }

    fn parse_robots(
        &self,
        _body: Vec<u8>,
        _deadline: tokio::time::Instant,
    ) -> PortFuture<'_, Result<RobotsRules, PortError>> {
        Box::pin(async { Err(PortError::Unavailable) })
    }
}

/// The client end of the pipe: one JSON-RPC message a line each way.
struct Client {
    lines: Lines<BufReader<ReadHalf<DuplexStream>>>,
    writer: WriteHalf<DuplexStream>,
    next_id: u64,
}

impl Client {
    /// An adapter on `config` served over a fresh pipe, as the stdio
    /// transport serves it, and the client end of that pipe.
    fn start(config: &str) -> Self {
        let config = rypsok_core::config::load_str(config).expect("a valid configuration");
        let workers = Arc::new(NoWorkers);
        let services = Arc::new(Services::new(
            Arc::new(config),
            workers.clone(),
            workers,
            &HashMap::new(),
        ));
        let adapter = Adapter::new(services, Caller::process("stdio"));
        let (client, server) = tokio::io::duplex(64 * 1024);
        let (read, write) = tokio::io::split(server);
        tokio::spawn(async move {
            let transport = AsyncRwTransport::new_server(read, write);
            if let Ok(running) = adapter.serve(transport).await {
                let _ = running.waiting().await;
            }
        });
        let (read, writer) = tokio::io::split(client);
        Self {
            lines: BufReader::new(read).lines(),
            writer,
            next_id: 1,
        }
    }

    async fn send(&mut self, message: &Value) {
        let line = format!("{message}\n");
        self.writer
            .write_all(line.as_bytes())
            .await
            .expect("the adapter reads");
    }

    /// Sends a request and answers the response with its id.
    async fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        loop {
            let line = tokio::time::timeout(ANSWER_WITHIN, self.lines.next_line())
                .await
                .expect("an answer in time")
                .expect("a readable pipe")
                .expect("a line before the end");
            let message: Value = serde_json::from_str(&line).expect("a JSON line");
            if message["id"] == json!(id) {
                return message;
            }
        }
    }

    /// The handshake of the revisions that have one; answers the
    /// `initialize` response.
    async fn initialize(&mut self) -> Value {
        let init = self
            .request(
                "initialize",
                json!({"protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": {"name": "adapter-test", "version": "0"}}),
            )
            .await;
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        init
    }

    async fn call(&mut self, name: &str, arguments: Value) -> Value {
        self.request("tools/call", json!({"name": name, "arguments": arguments}))
            .await
    }
}

fn golden_tools() -> Value {
    let text = std::fs::read_to_string(GOLDEN).expect("the golden file");
    serde_json::from_str(&text).expect("golden JSON")
}

#[test]
fn the_switch_keeps_only_the_revisions_without_a_handshake() {
    // Verifies: REQ-MCP-006 (earlier revisions served until disabled)
    let all = revisions(true);
    assert!(all.contains(&ProtocolVersion::V_2025_06_18));
    assert!(all.contains(&ProtocolVersion::V_2026_07_28));
    let current = revisions(false);
    assert!(current.contains(&ProtocolVersion::V_2026_07_28));
    assert!(current.iter().all(|v| !v.has_initialize()), "{current:?}");
}

// Verifies: REQ-MCP-001, REQ-MCP-008 (the handshake names rypsok and carries the instructions of §2)
#[tokio::test]
async fn answers_the_handshake_with_its_name_and_instructions() {
    let mut client = Client::start("");
    let init = client.initialize().await;
    let result = &init["result"];
    assert_eq!(result["protocolVersion"], json!("2025-06-18"), "{init}");
    assert_eq!(result["serverInfo"]["name"], json!("rypsok"));
    assert_eq!(result["instructions"], json!(INSTRUCTIONS));
    assert!(result["capabilities"]["tools"].is_object(), "{init}");
}

// Verifies: REQ-MCP-005, REQ-MCP-008, REQ-MCP-009 (tools/list at zero configuration is the golden list)
#[tokio::test]
async fn lists_the_golden_tools_at_zero_configuration() {
    let mut client = Client::start("");
    client.initialize().await;
    let list = client.request("tools/list", json!({})).await;
    assert_eq!(
        list["result"]["tools"],
        golden_tools(),
        "tools/list changed; review it and update the golden file from the black-box test"
    );
}

// Verifies: REQ-MCP-009, REQ-STATUS-003 (the list follows the configuration; a removed tool is unknown)
#[tokio::test]
async fn drops_engine_status_from_the_list_and_the_calls_when_configured() {
    let mut client = Client::start("[status]\nenabled = false\n");
    client.initialize().await;
    let list = client.request("tools/list", json!({})).await;
    let names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(names, ["web_search", "web_fetch"]);
    let call = client.call("engine_status", json!({})).await;
    assert_eq!(call["error"]["code"], json!(-32602), "{call}");
    assert_eq!(call["error"]["message"], json!("unknown tool"), "{call}");
}

// Verifies: REQ-ERR-003, REQ-ERR-004, REQ-SEARCH-006 (bad arguments: invalid_request as a tool error, input never echoed)
#[tokio::test]
async fn refuses_bad_arguments_as_invalid_request_without_echo() {
    let mut client = Client::start("");
    client.initialize().await;
    for (tool, arguments) in [
        ("web_search", json!({"query": MARKER, "max_results": 0})),
        ("web_search", json!({"query": MARKER, "category": MARKER})),
        ("web_search", json!({"query": MARKER, MARKER: true})),
        ("web_search", json!({"query": 42})),
        ("web_search", json!({})),
        (
            "web_fetch",
            json!({"url": "https://example.org/", MARKER: 1}),
        ),
        ("web_fetch", json!({"url": 42})),
        ("web_fetch", json!({"max_chars": MARKER})),
        ("engine_status", json!({MARKER: MARKER})),
    ] {
        let call = client.call(tool, arguments.clone()).await;
        let result = &call["result"];
        assert_eq!(result["isError"], json!(true), "{tool} {arguments}: {call}");
        assert_eq!(
            result["structuredContent"]["error"]["kind"],
            json!("invalid_request"),
            "{tool} {arguments}: {call}"
        );
        let text: Value =
            serde_json::from_str(result["content"][0]["text"].as_str().expect("a text block"))
                .expect("the text block is JSON");
        assert_eq!(text, result["structuredContent"], "{call}");
        assert!(
            !call.to_string().contains(MARKER),
            "{tool} {arguments} echoed: {call}"
        );
    }
}

// Verifies: REQ-MCP-005, REQ-ERR-004 (an unknown tool is a protocol error that does not echo its name)
#[tokio::test]
async fn answers_an_unknown_tool_without_echoing_its_name() {
    let mut client = Client::start("");
    client.initialize().await;
    for name in [MARKER, "Web_Search", "web_search "] {
        let call = client.call(name, json!({})).await;
        assert_eq!(call["error"]["code"], json!(-32602), "{call}");
        assert_eq!(call["error"]["message"], json!("unknown tool"), "{call}");
        assert!(call.get("result").is_none(), "{call}");
        assert!(!call.to_string().contains(MARKER), "{call}");
    }
}

// Verifies: REQ-MCP-004, REQ-ERR-004 (tools/call whose arguments are not an object: a fixed message, no echo)
#[tokio::test]
async fn refuses_arguments_that_are_not_an_object_without_echo() {
    let mut client = Client::start("");
    client.initialize().await;
    let call = client
        .request(
            "tools/call",
            json!({"name": "web_search", "arguments": [MARKER]}),
        )
        .await;
    assert_eq!(call["error"]["code"], json!(-32602), "{call}");
    assert_eq!(
        call["error"]["message"],
        json!("tools/call takes a name and an arguments object"),
        "{call}"
    );
    assert!(!call.to_string().contains(MARKER), "{call}");
}

// Verifies: REQ-STATUS-001, REQ-MCP-011 (engine_status answers in process, structured and as the same JSON text)
#[tokio::test]
async fn answers_engine_status_with_structured_content_and_its_text() {
    let mut client = Client::start("");
    client.initialize().await;
    let call = client.call("engine_status", json!({})).await;
    let result = &call["result"];
    assert_eq!(result["isError"], json!(false), "{call}");
    assert_eq!(
        result["structuredContent"]["outcome"],
        json!("ok"),
        "{call}"
    );
    let text: Value = serde_json::from_str(result["content"][0]["text"].as_str().expect("text"))
        .expect("JSON text");
    assert_eq!(text, result["structuredContent"]);
}
