//! `rypsok serve --transport http` on a real loopback listener, driven by
//! raw HTTP/1.1 requests: every row of the listener's status table (design
//! §2), the connection bounds (LIM-H1, LIM-H3), both protocol eras, callers
//! and their limits, cancellation and graceful shutdown.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::{FakeHttp, Reply, Server, TempDir, structured, wikipedia_config};

const LOOPBACK: &str = "[http]\nbind = \"127.0.0.1:0\"\n";
const ACCEPT: &str = "application/json, text/event-stream";
const CURRENT: &str = "2026-07-28";
const LEGACY: &str = "2025-11-25";

fn start() -> Server {
    Server::start_http(&format!("config_version = 1\n{LOOPBACK}"), &[])
}

/// A connection from another loopback source address (all of 127.0.0.0/8
/// is loopback), so that a test can be two peers at once.
#[allow(clippy::disallowed_methods)] // the test is the client of its own loopback server
fn connect_from(source: [u8; 4], addr: SocketAddr) -> TcpStream {
    use socket2::{Domain, Socket, Type};
    let socket = Socket::new(Domain::IPV4, Type::STREAM, None).expect("socket");
    socket
        .bind(&SocketAddr::from((source, 0)).into())
        .expect("bind a loopback source");
    socket
        .connect_timeout(&addr.into(), Duration::from_secs(2))
        .expect("connect");
    let stream: TcpStream = socket.into();
    stream
        .set_read_timeout(Some(Duration::from_secs(40)))
        .expect("read timeout");
    stream
}

/// The HTTP/2 preface and an empty SETTINGS frame.
const H2_START: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00";

#[allow(clippy::disallowed_methods)] // the test is the client of its own loopback server
fn connect(addr: SocketAddr) -> TcpStream {
    let stream = TcpStream::connect_timeout(&addr, Duration::from_secs(2)).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(40)))
        .expect("read timeout");
    stream
}

/// One HTTP answer.
#[derive(Debug)]
struct Answer {
    status: u16,
    head: String,
    body: String,
}

impl Answer {
    fn header(&self, name: &str) -> Option<String> {
        self.head.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.trim()
                .eq_ignore_ascii_case(name)
                .then(|| v.trim().to_owned())
        })
    }

    /// The JSON-RPC message of the answer: the body, or its SSE event.
    fn message(&self) -> Value {
        if let Ok(v) = serde_json::from_str(&self.body) {
            return v;
        }
        self.body
            .lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
            .find(|v| v.get("id").is_some())
            .unwrap_or_else(|| panic!("no JSON-RPC message in {self:?}"))
    }
}

/// Reads an answer to its end (the requests say `Connection: close`).
fn read_answer(stream: &mut TcpStream) -> Answer {
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    parse_answer(&raw)
}

fn parse_answer(raw: &[u8]) -> Answer {
    let text = String::from_utf8_lossy(raw).into_owned();
    let (head, rest) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let chunked = head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked");
    let body = if chunked {
        dechunk(rest)
    } else {
        rest.to_owned()
    };
    Answer {
        status,
        head: head.to_owned(),
        body,
    }
}

fn dechunk(mut rest: &str) -> String {
    let mut body = String::new();
    while let Some((size, after)) = rest.split_once("\r\n") {
        let Ok(n) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if n == 0 || after.len() < n {
            body.push_str(&after[..after.len().min(n)]);
            break;
        }
        body.push_str(&after[..n]);
        rest = after[n..].strip_prefix("\r\n").unwrap_or(&after[n..]);
    }
    body
}

/// Sends raw bytes and reads the answer.
fn exchange(addr: SocketAddr, request: &[u8]) -> Answer {
    let mut stream = connect(addr);
    stream.write_all(request).expect("write");
    read_answer(&mut stream)
}

fn post_request(addr: SocketAddr, headers: &[(&str, &str)], body: &str) -> String {
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    let has = |name: &str| headers.iter().any(|(k, _)| k.eq_ignore_ascii_case(name));
    if !has("content-type") {
        request.push_str("Content-Type: application/json\r\n");
    }
    if !has("accept") {
        request.push_str(&format!("Accept: {ACCEPT}\r\n"));
    }
    for (k, v) in headers {
        request.push_str(&format!("{k}: {v}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    request
}

fn post(addr: SocketAddr, headers: &[(&str, &str)], body: &str) -> Answer {
    exchange(addr, post_request(addr, headers, body).as_bytes())
}

fn meta() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": CURRENT,
           "io.modelcontextprotocol/clientCapabilities": {}})
}

/// The headers and body of a 2026-07-28 request.
fn current_request(method: &str, mut params: Value) -> (Vec<(String, String)>, String) {
    params["_meta"] = meta();
    let mut headers = vec![
        ("MCP-Protocol-Version".to_owned(), CURRENT.to_owned()),
        ("Mcp-Method".to_owned(), method.to_owned()),
    ];
    if let Some(name) = params["name"].as_str() {
        headers.push(("Mcp-Name".to_owned(), name.to_owned()));
    }
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    (headers, body.to_string())
}

/// A 2026-07-28 request: no handshake, its metadata on the request.
fn current(addr: SocketAddr, extra: &[(&str, &str)], method: &str, params: Value) -> Answer {
    let (headers, body) = current_request(method, params);
    let mut all: Vec<(&str, &str)> = headers
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    all.extend_from_slice(extra);
    post(addr, &all, &body)
}

/// A session of a handshake-based revision.
struct Session {
    addr: SocketAddr,
    id: String,
    extra: Vec<(String, String)>,
}

impl Session {
    fn open(addr: SocketAddr, extra: &[(&str, &str)]) -> Result<Self, Answer> {
        let extra: Vec<(String, String)> = extra
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        let headers: Vec<(&str, &str)> = extra
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": LEGACY, "capabilities": {},
            "clientInfo": {"name": "blackbox", "version": "1"}}});
        let answer = post(addr, &headers, &init.to_string());
        let Some(id) = answer.header("mcp-session-id") else {
            return Err(answer);
        };
        let session = Self { addr, id, extra };
        let done = session.post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        assert_eq!(done.status, 202, "{done:?}");
        Ok(session)
    }

    fn request_text(&self, message: &Value) -> String {
        let mut headers: Vec<(&str, &str)> = vec![
            ("Mcp-Session-Id", self.id.as_str()),
            ("MCP-Protocol-Version", LEGACY),
        ];
        headers.extend(self.extra.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        post_request(self.addr, &headers, &message.to_string())
    }

    fn post(&self, message: &Value) -> Answer {
        exchange(self.addr, self.request_text(message).as_bytes())
    }

    fn call(&self, id: u64, name: &str, arguments: Value) -> Value {
        let answer = self.post(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments}}));
        assert_eq!(answer.status, 200, "{answer:?}");
        answer.message()
    }
}

/// Waits until a connection is closed by the server; `None` if it is
/// still open after `within`.
fn closed_within(stream: &mut TcpStream, within: Duration) -> Option<Duration> {
    let started = Instant::now();
    stream.set_read_timeout(Some(within)).expect("timeout");
    let mut buf = [0_u8; 64];
    loop {
        match stream.read(&mut buf) {
            Ok(0) => return Some(started.elapsed()),
            Ok(_) => continue,
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => {
                return Some(started.elapsed());
            }
            Err(_) => return None,
        }
    }
}

/// The `http_counts` line a stopped server wrote.
fn final_counts(server: &mut Server) -> Value {
    server.terminate();
    let status = server
        .wait(Duration::from_secs(20))
        .expect("exit after SIGTERM");
    assert_eq!(status.code(), Some(0));
    server
        .log()
        .into_iter()
        .rfind(|l| l["event"] == json!("http_counts"))
        .expect("an http_counts line at shutdown")
}

// Verifies: REQ-MCP-003, REQ-MCP-006 (one path serves 2026-07-28 statelessly and the handshake revisions in sessions)
#[test]
fn serves_both_eras_on_one_path() {
    let server = start();
    let addr = server.http_addr();

    let list = current(addr, &[], "tools/list", json!({}));
    assert_eq!(list.status, 200, "{list:?}");
    let message = list.message();
    let names: Vec<&str> = message["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(names.contains(&"engine_status"), "{names:?}");
    let call = current(
        addr,
        &[],
        "tools/call",
        json!({"name": "engine_status", "arguments": {}}),
    );
    assert_eq!(call.status, 200, "{call:?}");
    assert_eq!(
        structured(&call.message()["result"])["outcome"],
        json!("ok")
    );
    // No session in the 2026-07-28 revision.
    assert_eq!(call.header("mcp-session-id"), None);

    let session = Session::open(addr, &[]).expect("a legacy session");
    let result = session.call(2, "engine_status", json!({}));
    assert_eq!(structured(&result["result"])["outcome"], json!("ok"));

    // Verifies: REQ-OBS-005 (the caller is a field of the call's log lines)
    let stateless = server
        .await_log(
            &[("event", json!("call_done")), ("caller", json!("loopback"))],
            Duration::from_secs(5),
        )
        .expect("a call_done line for the loopback caller");
    assert_eq!(stateless["tool"], json!("engine_status"));
    // One line for each call; the session's may land a moment after its
    // answer. Without a token there is no identity: a session's calls are
    // the loopback caller's too (REQ-SEC-019).
    let callers: Vec<Value> = server
        .await_logs(&[("event", json!("call_done"))], 2, Duration::from_secs(5))
        .into_iter()
        .map(|l| l["caller"].clone())
        .collect();
    assert!(
        callers.len() >= 2 && callers.iter().all(|c| c == &json!("loopback")),
        "{callers:?}"
    );
    // The session id itself never reaches the log.
    assert!(
        !server
            .stderr
            .lock()
            .unwrap()
            .iter()
            .any(|l| l.contains(&session.id))
    );
}

// Verifies: REQ-SEC-018 (the gate's rows: 404 another path; 413 for a declared body over LIM-H2)
#[test]
fn the_gate_answers_its_rows() {
    let mut server = start();
    let addr = server.http_addr();

    let other = exchange(
        addr,
        format!("GET /other HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").as_bytes(),
    );
    assert_eq!(other.status, 404);

    // Declared: refused from the headers, before any byte of the body.
    let declared = exchange(
        addr,
        format!(
            "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: {ACCEPT}\r\nContent-Length: {}\r\n\r\n",
            1024 * 1024 + 1
        )
        .as_bytes(),
    );
    assert_eq!(declared.status, 413, "{declared:?}");
    assert!(
        server
            .await_log(
                &[
                    ("event", json!("http_refused")),
                    ("reason", json!("body_too_large"))
                ],
                Duration::from_secs(5)
            )
            .is_some()
    );

    let counts = final_counts(&mut server);
    assert_eq!(counts["not_found"], json!(1));
    assert_eq!(counts["body_too_large"], json!(1));
}

// Verifies: REQ-SEC-018 (the SDK's rows: 400, 403 Host and Origin naming the key that admits them, 406, 413 streamed, 415, 200 with -32602; hyper's 431)
#[test]
fn the_sdk_and_hyper_answer_theirs() {
    let mut server = start();
    let addr = server.http_addr();

    // 400: a handshake-revision POST that is not initialize, without a session.
    let no_session = post(
        addr,
        &[],
        &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).to_string(),
    );
    assert_eq!(no_session.status, 400, "{no_session:?}");
    // 400: Mcp-Method disagrees with the body.
    let (_, body) = current_request("tools/list", json!({}));
    let mismatch = post(
        addr,
        &[
            ("MCP-Protocol-Version", CURRENT),
            ("Mcp-Method", "tools/call"),
        ],
        &body,
    );
    assert_eq!(mismatch.status, 400, "{mismatch:?}");

    // 403: Origin validation is on by default: a foreign page is refused,
    // a page of this machine's loopback names is not.
    let foreign = current(
        addr,
        &[("Origin", "http://evil.example")],
        "tools/list",
        json!({}),
    );
    assert_eq!(foreign.status, 403, "{foreign:?}");
    let own = format!("http://{addr}");
    let local = current(addr, &[("Origin", &own)], "tools/list", json!({}));
    assert_eq!(local.status, 200, "{local:?}");
    // 403: a Host that is not loopback (DNS rebinding).
    let (headers, body) = current_request("tools/list", json!({}));
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nHost: rebind.example\r\nConnection: close\r\nContent-Type: application/json\r\nAccept: {ACCEPT}\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in &headers {
        request.push_str(&format!("{k}: {v}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(&body);
    let rebound = exchange(addr, request.as_bytes());
    assert_eq!(rebound.status, 403);
    // The refusal names the key that would admit it.
    assert!(rebound.body.contains("[http] allowed_hosts"), "{rebound:?}");
    assert!(
        foreign.body.contains("[http] allowed_origins"),
        "{foreign:?}"
    );

    // 406: Accept lacks text/event-stream.
    let only_json = current(
        addr,
        &[("Accept", "application/json")],
        "tools/list",
        json!({}),
    );
    assert_eq!(only_json.status, 406, "{only_json:?}");

    // 415: not application/json, and a body that is not a JSON-RPC message.
    let text = current(
        addr,
        &[("Content-Type", "text/plain")],
        "tools/list",
        json!({}),
    );
    assert_eq!(text.status, 415, "{text:?}");
    let null_id = post(
        addr,
        &[("MCP-Protocol-Version", CURRENT)],
        r#"{"jsonrpc":"2.0","id":null,"method":"tools/list"}"#,
    );
    assert_eq!(null_id.status, 415, "{null_id:?}");
    // Its text is fixed: the parser's message could quote the body.
    let unknown = post(
        addr,
        &[("MCP-Protocol-Version", CURRENT)],
        r#"{"jsonrpc":"2.0","id":1,"method":{"quoted-secret":1}}"#,
    );
    assert_eq!(unknown.status, 415, "{unknown:?}");
    assert!(!unknown.body.contains("quoted-secret"), "{unknown:?}");

    // 413 streamed: chunked, no length declared, more than LIM-H2.
    let mut stream = connect(addr);
    let (headers, _) = current_request("tools/list", json!({}));
    let mut head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nAccept: {ACCEPT}\r\nTransfer-Encoding: chunked\r\n"
    );
    for (k, v) in &headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).expect("head");
    let chunk = vec![b' '; 64 * 1024];
    for _ in 0..17 {
        if stream
            .write_all(format!("{:x}\r\n", chunk.len()).as_bytes())
            .and_then(|()| stream.write_all(&chunk))
            .and_then(|()| stream.write_all(b"\r\n"))
            .is_err()
        {
            break;
        }
    }
    let _ = stream.write_all(b"0\r\n\r\n");
    let streamed = read_answer(&mut stream);
    assert_eq!(streamed.status, 413, "{streamed:?}");

    // 200: a tool that is not served is a JSON-RPC error, not an HTTP one.
    let unknown = current(
        addr,
        &[],
        "tools/call",
        json!({"name": "no_such_tool", "arguments": {}}),
    );
    assert_eq!(unknown.status, 200, "{unknown:?}");
    assert_eq!(unknown.message()["error"]["code"], json!(-32602));

    // 431: request line and headers over LIM-H7 (16 KiB), answered by hyper.
    let big = "x".repeat(17 * 1024);
    let huge = exchange(
        addr,
        format!("POST /mcp HTTP/1.1\r\nHost: {addr}\r\nX-Big: {big}\r\nContent-Length: 0\r\n\r\n")
            .as_bytes(),
    );
    assert_eq!(huge.status, 431, "{huge:?}");

    let counts = final_counts(&mut server);
    assert_eq!(counts["sdk_bad_request"], json!(2));
    assert_eq!(counts["sdk_forbidden"], json!(2));
    assert_eq!(counts["sdk_not_acceptable"], json!(1));
    assert!(
        server
            .log()
            .iter()
            .any(|l| l["event"] == json!("http_refused") && l["reason"] == json!("sdk_forbidden"))
    );
}

// Verifies: REQ-SEC-018 (401 for a missing or wrong token; the token's holder is the caller)
#[test]
fn a_configured_token_is_required() {
    let dir = TempDir::new("token");
    let token = "s3cret-token-for-the-test";
    let file = dir.write("token", &format!("{token}\n"));
    let config = format!(
        "config_version = 1\n{LOOPBACK}auth_token_file = \"{}\"\n",
        file.display()
    );
    let server = Server::start_http(&config, &[]);
    let addr = server.http_addr();

    let missing = current(addr, &[], "tools/list", json!({}));
    assert_eq!(missing.status, 401, "{missing:?}");
    assert_eq!(
        missing.header("www-authenticate").as_deref(),
        Some("Bearer")
    );
    let wrong = current(
        addr,
        &[("Authorization", "Bearer s3cret-token-for-the-tesT")],
        "tools/list",
        json!({}),
    );
    assert_eq!(wrong.status, 401);
    let prefix = current(
        addr,
        &[("Authorization", "Bearer s3cret")],
        "tools/list",
        json!({}),
    );
    assert_eq!(prefix.status, 401);

    let bearer = format!("Bearer {token}");
    let ok = current(
        addr,
        &[("Authorization", &bearer)],
        "tools/call",
        json!({"name": "engine_status", "arguments": {}}),
    );
    assert_eq!(ok.status, 200, "{ok:?}");
    // The scheme's spelling does not matter (RFC 9110 §11.1).
    let lower = format!("bearer {token}");
    let lower = current(addr, &[("Authorization", &lower)], "tools/list", json!({}));
    assert_eq!(lower.status, 200, "{lower:?}");
    assert!(
        server
            .await_log(
                &[("event", json!("call_done")), ("caller", json!("token"))],
                Duration::from_secs(5)
            )
            .is_some()
    );
    let refusals = server
        .log()
        .into_iter()
        .filter(|l| l["event"] == json!("http_refused") && l["reason"] == json!("unauthorized"))
        .count();
    assert_eq!(refusals, 3);
    // Verifies: REQ-ERR-004 (the token never reaches the log)
    assert!(
        !server
            .stderr
            .lock()
            .unwrap()
            .iter()
            .any(|l| l.contains(token))
    );
}

// Verifies: REQ-MCP-006 (ending a session with DELETE is answered 200, as the SDKs' clients expect)
#[test]
fn ending_a_session_is_answered_200() {
    let server = start();
    let addr = server.http_addr();
    let session = Session::open(addr, &[]).expect("a session");
    let delete = format!(
        "DELETE /mcp HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nMcp-Session-Id: {}\r\nMCP-Protocol-Version: {LEGACY}\r\n\r\n",
        session.id
    );
    let ended = exchange(addr, delete.as_bytes());
    assert_eq!(ended.status, 200, "{ended:?}");
    // The session is gone: a call in it is refused.
    let after = session.post(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    assert!(after.status >= 400, "{after:?}");
}

// Verifies: REQ-SEC-024 (a handshake beyond LIM-H6 open sessions: the least recently used session gives way, its client gets 404)
#[test]
fn sessions_are_bounded() {
    let mut server = start();
    let addr = server.http_addr();
    let sessions: Vec<Session> = (0..64)
        .map(|n| Session::open(addr, &[]).unwrap_or_else(|a| panic!("session {n}: {a:?}")))
        .collect();
    // A 65th is opened: the session used least recently gives way, and
    // its client is told it is unknown.
    let _newest = Session::open(addr, &[]).expect("a 65th session");
    let gone = sessions[0].post(&json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list"}));
    assert_eq!(gone.status, 404, "{gone:?}");
    // The other sessions and the stateless revision go on.
    let r = sessions[2].call(5, "engine_status", json!({}));
    assert!(r.get("result").is_some(), "{r}");
    assert_eq!(current(addr, &[], "tools/list", json!({})).status, 200);
    // Closing one (DELETE) makes room for another.
    let delete = format!(
        "DELETE /mcp HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nMcp-Session-Id: {}\r\nMCP-Protocol-Version: {LEGACY}\r\n\r\n",
        sessions[1].id
    );
    let deleted = exchange(addr, delete.as_bytes());
    // 200, not the SDK's 202: the Python SDK reports any other status as a
    // failed termination.
    assert_eq!(deleted.status, 200, "{deleted:?}");
    let until = Instant::now() + Duration::from_secs(5);
    let mut reopened = Session::open(addr, &[]);
    while reopened.is_err() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(50));
        reopened = Session::open(addr, &[]);
    }
    assert!(reopened.is_ok());
    let counts = final_counts(&mut server);
    assert_eq!(counts["session_evicted"], json!(1), "{counts}");
    assert_eq!(counts["session_limit"], json!(0), "{counts}");
}

// Verifies: REQ-SEC-022 (408: a body that does not arrive within LIM-H5, though it comes faster than LIM-H9)
#[test]
fn a_request_that_outlives_its_time_gets_408() {
    let server = start();
    let addr = server.http_addr();
    let mut stream = connect(addr);
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: {ACCEPT}\r\nContent-Length: 200000\r\n\r\n{{\"jsonrpc\""
    );
    stream.write_all(head.as_bytes()).expect("write");
    let started = Instant::now();
    // 4 KiB a second, above the minimum rate: 160 KiB in 40 s at most.
    let mut writer = stream.try_clone().expect("clone");
    let trickle = std::thread::spawn(move || {
        for _ in 0..40 {
            if writer.write_all(&[b' '; 4096]).is_err() {
                return;
            }
            std::thread::sleep(Duration::from_secs(1));
        }
    });
    let answer = read_answer(&mut stream);
    let waited = started.elapsed();
    assert_eq!(answer.status, 408, "{answer:?}");
    assert!(waited >= Duration::from_secs(25), "{waited:?}");
    drop(stream);
    let _ = trickle.join();
    assert!(
        server
            .await_log(
                &[
                    ("event", json!("http_refused")),
                    ("reason", json!("request_timeout"))
                ],
                Duration::from_secs(5)
            )
            .is_some()
    );
}

// Verifies: REQ-SEC-022 (a request head slower than LIM-H9 after the LIM-H3 grace is cut off, well before LIM-H5; one that keeps pace is answered)
#[test]
fn a_slow_headers_client_is_cut_off() {
    let mut server = start();
    let addr = server.http_addr();
    let mut stream = connect(addr);
    stream
        .write_all(format!("POST /mcp HTTP/1.1\r\nHost: {addr}\r\n").as_bytes())
        .expect("write");
    // A header line every second, never the end of the head: 11 bytes a
    // second, far below LIM-H9.
    let started = Instant::now();
    let mut cut = false;
    while started.elapsed() < Duration::from_secs(45) {
        std::thread::sleep(Duration::from_secs(1));
        if stream.write_all(b"X-Slow: 1\r\n").is_err() {
            cut = true;
            break;
        }
        stream
            .set_read_timeout(Some(Duration::from_millis(10)))
            .expect("timeout");
        let mut buf = [0_u8; 16];
        if matches!(stream.read(&mut buf), Ok(0) | Ok(_)) {
            cut = true;
            break;
        }
    }
    let elapsed = started.elapsed();
    assert!(cut, "the connection was still open after {elapsed:?}");
    // Past the grace, and far before hyper's bound on the whole head.
    assert!(elapsed >= Duration::from_secs(4), "{elapsed:?}");
    assert!(elapsed < Duration::from_secs(20), "{elapsed:?}");

    // A head in pieces within the grace is read and answered.
    let mut paced = connect(addr);
    for piece in [
        "GET /elsewhere HTTP/1.1\r\n".to_owned(),
        format!("Host: {addr}\r\n"),
        "\r\n".to_owned(),
    ] {
        paced.write_all(piece.as_bytes()).expect("write");
        std::thread::sleep(Duration::from_secs(1));
    }
    paced
        .set_read_timeout(Some(Duration::from_secs(5)))
        .expect("timeout");
    let mut head = [0_u8; 12];
    paced.read_exact(&mut head).expect("an answer");
    assert_eq!(
        &head,
        b"HTTP/1.1 404",
        "{:?}",
        String::from_utf8_lossy(&head)
    );
    let counts = final_counts(&mut server);
    assert_eq!(counts["header_timeout"], json!(1));
}

// Verifies: REQ-SEC-018 (a connection that shows no protocol within LIM-H3 is closed, counted, not logged)
#[test]
fn an_idle_connection_is_closed_and_only_counted() {
    let mut server = start();
    let addr = server.http_addr();
    let started = Instant::now();
    let mut silent = connect(addr);
    let mut half_preface = connect(addr);
    half_preface
        .write_all(b"PRI * HTTP/2.0\r\n")
        .expect("write");
    for stream in [&mut silent, &mut half_preface] {
        assert!(closed_within(stream, Duration::from_secs(15)).is_some());
        // LIM-H3 is 5 s: not closed at once, not left open.
        let waited = started.elapsed();
        assert!(waited >= Duration::from_secs(4), "{waited:?}");
    }
    let lines_before = server.log().len();
    let counts = final_counts(&mut server);
    assert_eq!(counts["idle_connection"], json!(2));
    // No line of its own per connection.
    assert!(
        !server.log()[..lines_before]
            .iter()
            .any(|l| l.to_string().contains("idle_connection"))
    );
}

// Verifies: REQ-SEC-018 (HTTP/2 with prior knowledge is recognised and handed to hyper)
#[test]
fn speaks_http2_with_prior_knowledge() {
    let server = start();
    let addr = server.http_addr();
    let mut stream = connect(addr);
    // The preface and an empty SETTINGS frame.
    stream
        .write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00")
        .expect("write");
    let mut frame = [0_u8; 9];
    stream
        .read_exact(&mut frame)
        .expect("the server's first frame");
    assert_eq!(frame[3], 0x4, "the server's preface is a SETTINGS frame");
}

// Verifies: REQ-SEC-018 (past LIM-H1 a new connection takes the place of the one idle longest; the listener serves again after the flood)
#[test]
fn a_connection_flood_is_bounded() {
    let mut server = start();
    let addr = server.http_addr();
    // LIM-H1 connections that say nothing, from four sources (one source
    // holds at most a quarter), then a few more from a fifth.
    let mut held: Vec<TcpStream> = [10_u8, 11, 12, 13]
        .iter()
        .cycle()
        .take(256)
        .map(|&source| connect_from([127, 0, 0, source], addr))
        .collect();
    // Each of eight more takes the place of the connection idle longest.
    let mut extra: Vec<TcpStream> = (0..8)
        .map(|_| connect_from([127, 0, 0, 20], addr))
        .collect();
    for stream in held.iter_mut().take(8) {
        let waited = closed_within(stream, Duration::from_secs(2));
        assert!(waited.is_some(), "the connection idle longest stayed open");
    }
    held.append(&mut extra);
    // The held ones are closed at LIM-H3, and the listener serves again.
    for stream in &mut held {
        let _ = closed_within(stream, Duration::from_secs(10));
    }
    drop(held);
    let until = Instant::now() + Duration::from_secs(5);
    let mut answer = current(addr, &[], "tools/list", json!({}));
    while answer.status != 200 && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(50));
        answer = current(addr, &[], "tools/list", json!({}));
    }
    assert_eq!(answer.status, 200);
    let counts = final_counts(&mut server);
    assert_eq!(counts["connection_evicted"], json!(8));
    assert_eq!(counts["too_many_connections"], json!(0));
    assert_eq!(counts["idle_connection"], json!(256));
}

// Verifies: REQ-SEC-018 (idle HTTP/2 connections from one source cannot lock the listener: one peer holds a quarter of LIM-H1, each one more takes the place of that peer's connection idle longest, counted; an HTTP/2 connection with no complete request within LIM-H3 of its preface, or a HEADERS frame never ended, is closed and counted)
#[test]
fn idle_http2_connections_from_one_source_leave_a_request_answered() {
    let mut server = start();
    let addr = server.http_addr();
    let started = Instant::now();
    // LIM-H1 connections from one source, each the preface and SETTINGS,
    // then nothing.
    let idle: Vec<TcpStream> = (0..256)
        .map(|_| {
            let mut stream = connect_from([127, 0, 0, 2], addr);
            // A connection already closed by the server may refuse the write.
            let _ = stream.write_all(H2_START);
            stream
        })
        .collect();
    // A HEADERS frame on stream 1 without END_HEADERS (`:method GET`), from
    // another source: its headers never complete.
    let mut headers = connect_from([127, 0, 0, 3], addr);
    headers.write_all(H2_START).expect("write");
    headers
        .write_all(b"\x00\x00\x01\x01\x00\x00\x00\x00\x01\x82")
        .expect("write");
    // A legitimate request from a third source is answered meanwhile.
    let answer = current(addr, &[], "tools/list", json!({}));
    assert_eq!(answer.status, 200, "{answer:?}");
    assert!(started.elapsed() < Duration::from_secs(4));
    // Each past the source's share took the place of that source's
    // connection idle longest, which was closed at once: a quarter of
    // LIM-H1 is held.
    let mut held: Vec<TcpStream> = idle
        .into_iter()
        .filter_map(|mut stream| {
            closed_within(&mut stream, Duration::from_millis(20))
                .is_none()
                .then_some(stream)
        })
        .collect();
    assert_eq!(held.len(), 64);
    // Those held are closed at LIM-H3 (5 s) from their preface, not
    // before and not much after.
    held.push(headers);
    for stream in &mut held {
        closed_within(stream, Duration::from_secs(15)).expect("an idle connection stayed open");
        let at = started.elapsed();
        assert!(at >= Duration::from_secs(4), "closed after {at:?}");
    }
    let last = started.elapsed();
    assert!(
        last < Duration::from_secs(9),
        "the last closed after {last:?}"
    );
    let counts = final_counts(&mut server);
    assert_eq!(counts["connection_evicted"], json!(256 - 64), "{counts}");
    assert_eq!(counts["too_many_from_peer"], json!(0), "{counts}");
    assert_eq!(counts["idle_connection"], json!(64 + 1), "{counts}");
    assert_eq!(counts["too_many_connections"], json!(0), "{counts}");
}

/// The outcome of a tool call, or its error's reason.
fn outcome_of(message: &Value) -> Value {
    let result = structured(&message["result"]).clone();
    result["outcome"]
        .as_str()
        .map_or_else(|| result["error"]["detail"]["reason"].clone(), |o| json!(o))
}

// Verifies: REQ-MCP-010, REQ-SEC-019 (a tokenless listener has no caller identity: every session, and the stateless revision, share one budget, as stdio does)
#[test]
fn tokenless_callers_share_one_rate_limit_budget() {
    let server = Server::start_http(
        &format!("config_version = 1\n[limits]\nengine_status_per_minute = 2\n{LOOPBACK}"),
        &[],
    );
    let addr = server.http_addr();
    let a = Session::open(addr, &[]).expect("session a");
    for id in 2..4 {
        let r = a.call(id, "engine_status", json!({}));
        assert_eq!(outcome_of(&r), json!("ok"), "{r}");
    }
    assert_eq!(
        outcome_of(&a.call(4, "engine_status", json!({}))),
        json!("rate_limited")
    );
    // Another session is the same caller.
    let b = Session::open(addr, &[]).expect("session b");
    assert_eq!(
        outcome_of(&b.call(2, "engine_status", json!({}))),
        json!("rate_limited")
    );
    // Ending a session and opening a new one buys no fresh budget.
    let delete = format!(
        "DELETE /mcp HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nMcp-Session-Id: {}\r\nMCP-Protocol-Version: {LEGACY}\r\n\r\n",
        a.id
    );
    assert!(exchange(addr, delete.as_bytes()).status < 300);
    let c = Session::open(addr, &[]).expect("session c");
    assert_eq!(
        outcome_of(&c.call(2, "engine_status", json!({}))),
        json!("rate_limited")
    );
    // Nor does the stateless revision, with or without a made-up session id.
    for extra in [&[][..], &[("Mcp-Session-Id", "made-up-1")][..]] {
        let answer = current(
            addr,
            extra,
            "tools/call",
            json!({"name": "engine_status", "arguments": {}}),
        );
        assert_eq!(answer.status, 200, "{answer:?}");
        assert_eq!(outcome_of(&answer.message()), json!("rate_limited"));
    }
}

fn engine_server(fake: &FakeHttp) -> Server {
    Server::start_http(&wikipedia_config(fake.port(), LOOPBACK), &[])
}

fn await_engine_request(fake: &FakeHttp) {
    let until = Instant::now() + Duration::from_secs(5);
    while fake.seen().is_empty() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(fake.seen().len(), 1, "the engine request started");
}

fn await_abandoned(fake: &FakeHttp) {
    let until = Instant::now() + Duration::from_secs(3);
    while !fake.seen()[0].abandoned && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(
        fake.seen()[0].abandoned,
        "worker-net closed the engine connection"
    );
}

// Verifies: REQ-MCP-007 (2026-07-28: closing the response stream cancels the call and the engine request behind it)
#[test]
fn closing_the_stream_cancels_the_call() {
    let fake = FakeHttp::start(Reply::json(b"{}").delayed(Duration::from_secs(4)));
    let server = engine_server(&fake);
    let addr = server.http_addr();
    let (headers, body) = current_request(
        "tools/call",
        json!({"name": "web_search", "arguments": {"query": "cancel me"}}),
    );
    let headers: Vec<(&str, &str)> = headers
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let mut stream = connect(addr);
    stream
        .write_all(post_request(addr, &headers, &body).as_bytes())
        .expect("write");
    await_engine_request(&fake);
    drop(stream);
    await_abandoned(&fake);
    assert!(
        server
            .await_log(
                &[("event", json!("call_cancelled"))],
                Duration::from_secs(3)
            )
            .is_some()
    );
}

// Verifies: REQ-MCP-007 (a handshake-revision notifications/cancelled cancels the call over HTTP too)
#[test]
fn a_legacy_cancellation_cancels_the_call() {
    let fake = FakeHttp::start(Reply::json(b"{}").delayed(Duration::from_secs(4)));
    let server = engine_server(&fake);
    let addr = server.http_addr();
    let session = Session::open(addr, &[]).expect("session");
    let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "web_search", "arguments": {"query": "cancel me"}}});
    let mut stream = connect(addr);
    stream
        .write_all(session.request_text(&call).as_bytes())
        .expect("write");
    await_engine_request(&fake);
    let cancel = session.post(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 7, "reason": "user"}}),
    );
    assert_eq!(cancel.status, 202, "{cancel:?}");
    await_abandoned(&fake);
    assert!(
        server
            .await_log(
                &[("event", json!("call_cancelled"))],
                Duration::from_secs(3)
            )
            .is_some()
    );
}

// Verifies: REQ-OPS-002 (SIGTERM: no new connection, the call in flight is answered, exit 0)
#[test]
fn sigterm_lets_the_call_in_flight_finish() {
    let fake = FakeHttp::start(Reply::json(b"{}").delayed(Duration::from_millis(800)));
    let mut server = engine_server(&fake);
    let addr = server.http_addr();
    let (headers, body) = current_request(
        "tools/call",
        json!({"name": "web_search", "arguments": {"query": "finish me"}}),
    );
    let headers: Vec<(&str, &str)> = headers
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let mut stream = connect(addr);
    stream
        .write_all(post_request(addr, &headers, &body).as_bytes())
        .expect("write");
    await_engine_request(&fake);
    server.terminate();
    let answer = read_answer(&mut stream);
    assert_eq!(answer.status, 200, "{answer:?}");
    // The call's own answer, whatever the engine's fake said.
    let message = answer.message();
    let result = structured(&message["result"]);
    assert!(
        result["outcome"].is_string() || result["error"]["kind"].is_string(),
        "{result}"
    );
    let status = server.wait(Duration::from_secs(20)).expect("exit");
    assert_eq!(status.code(), Some(0));
    #[allow(clippy::disallowed_methods)]
    let refused = TcpStream::connect_timeout(&addr, Duration::from_millis(500));
    assert!(refused.is_err(), "the listener still accepts");
}

/// Writes `total` bytes of body in chunks, with no length declared.
fn post_chunked(addr: SocketAddr, headers: &[(String, String)], total: usize) -> Answer {
    let mut stream = connect(addr);
    let mut head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nAccept: {ACCEPT}\r\nTransfer-Encoding: chunked\r\n"
    );
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).expect("head");
    let chunk = vec![b' '; 4096];
    let mut sent = 0;
    while sent < total {
        if stream
            .write_all(format!("{:x}\r\n", chunk.len()).as_bytes())
            .and_then(|()| stream.write_all(&chunk))
            .and_then(|()| stream.write_all(b"\r\n"))
            .is_err()
        {
            break;
        }
        sent += chunk.len();
    }
    let _ = stream.write_all(b"0\r\n\r\n");
    read_answer(&mut stream)
}

// Verifies: REQ-SEC-018, REQ-SEC-024, REQ-CFG-005 (lowered [limits] http_sessions and http_request_body_bytes are what the listener enforces)
#[test]
fn lowered_listener_limits_are_enforced() {
    let mut server = Server::start_http(
        &format!(
            "config_version = 1\n[limits]\nhttp_sessions = 1\nhttp_request_body_bytes = 16384\n{LOOPBACK}"
        ),
        &[],
    );
    let addr = server.http_addr();

    // LIM-H6 = 1: the second handshake closes the first session.
    let first = Session::open(addr, &[]).expect("one session");
    let second = Session::open(addr, &[]).expect("a second session in place of the first");
    let gone = first.post(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}));
    assert_eq!(gone.status, 404, "{gone:?}");
    let r = second.call(2, "engine_status", json!({}));
    assert_eq!(structured(&r["result"])["outcome"], json!("ok"), "{r}");

    // LIM-H2 = 16 KiB: a body under it is served; one declared over it is
    // refused by the gate, one streamed over it by the SDK.
    let (headers, body) = current_request("tools/list", json!({}));
    let padded = format!("{body}{}", " ".repeat(12 * 1024));
    let pairs: Vec<(&str, &str)> = headers
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    assert_eq!(post(addr, &pairs, &padded).status, 200);
    let over = format!("{body}{}", " ".repeat(16 * 1024));
    let declared = post(addr, &pairs, &over);
    assert_eq!(declared.status, 413, "{declared:?}");
    let streamed = post_chunked(addr, &headers, 20 * 1024);
    assert_eq!(streamed.status, 413, "{streamed:?}");

    let counts = final_counts(&mut server);
    assert_eq!(counts["session_evicted"], json!(1));
    assert_eq!(counts["body_too_large"], json!(1));
    assert_eq!(counts["sdk_body_too_large"], json!(1));
}

// Verifies: REQ-SEC-018, REQ-SEC-024, REQ-CFG-005 (a lowered [limits] http_connections is what the listener enforces)
#[test]
fn a_lowered_connection_bound_is_enforced() {
    // A server of its own, first: connections of earlier requests that the
    // server is still closing would take places.
    let mut server = Server::start_http(
        &format!("config_version = 1\n[limits]\nhttp_connections = 4\n{LOOPBACK}"),
        &[],
    );
    let addr = server.http_addr();
    // LIM-H1 = 4: four silent connections hold every place; a fifth takes
    // the place of the one idle longest, and a sixth from the fifth's
    // source (one source holds at most a quarter of LIM-H1) takes the
    // fifth's: four stay open.
    let mut held: Vec<TcpStream> = (0..4)
        .map(|n| connect_from([127, 0, 0, 30 + n], addr))
        .collect();
    let mut extra: Vec<TcpStream> = Vec::new();
    for _ in 0..2 {
        std::thread::sleep(Duration::from_millis(50));
        extra.push(connect_from([127, 0, 0, 40], addr));
    }
    assert!(closed_within(&mut held[0], Duration::from_secs(2)).is_some());
    assert!(closed_within(&mut extra[0], Duration::from_secs(2)).is_some());
    assert!(closed_within(&mut extra[1], Duration::from_millis(200)).is_none());
    held.remove(0);
    // Still held: nothing else closed them.
    assert!(closed_within(&mut held[0], Duration::from_millis(200)).is_none());
    drop(extra);
    // Ending them (the server sees end of input and closes its side) frees
    // their places, as soon as the server has let them go.
    for stream in &mut held {
        stream
            .shutdown(std::net::Shutdown::Write)
            .expect("shutdown");
        assert!(closed_within(stream, Duration::from_secs(2)).is_some());
    }
    drop(held);
    let until = Instant::now() + Duration::from_secs(5);
    let mut answer = current(addr, &[], "tools/list", json!({}));
    while answer.status != 200 && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(50));
        answer = current(addr, &[], "tools/list", json!({}));
    }
    assert_eq!(answer.status, 200, "{answer:?}");
    let counts = final_counts(&mut server);
    assert_eq!(counts["connection_evicted"], json!(2), "{counts}");
}

// Verifies: REQ-MCP-006, REQ-MCP-009, REQ-SEC-018 (handshake revisions off over HTTP: no session, an initialize refused with the supported revisions, a handshake-revision request refused, 2026-07-28 served with the same tools)
#[test]
fn the_earlier_revisions_can_be_switched_off() {
    let mut server = Server::start_http(
        &format!(
            "config_version = 1\n[service]\nhandshake_revisions = false\n[limits]\nhttp_sessions = 1\n{LOOPBACK}"
        ),
        &[],
    );
    let addr = server.http_addr();
    assert!(
        server
            .await_log(
                &[
                    ("event", json!("listening")),
                    ("handshake_revisions", json!(false))
                ],
                Duration::from_secs(1)
            )
            .is_some(),
        "the listening line says what is served"
    );

    // The handshake is answered with the SDK's unsupported-version error
    // and opens no session, so LIM-H6 (1 here) never refuses one.
    for _ in 0..2 {
        let refused = Session::open(addr, &[])
            .err()
            .expect("no session is opened");
        assert_eq!(refused.status, 200, "{refused:?}");
        let error = &refused.message()["error"];
        assert_eq!(error["code"], json!(-32022), "{refused:?}");
        assert_eq!(error["data"]["supported"], json!([CURRENT]), "{refused:?}");
    }
    // A request of a handshake revision (no metadata) is refused before any
    // handler, with or without a session id.
    let tools_list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}).to_string();
    let bare = post(addr, &[], &tools_list);
    assert_eq!(bare.status, 400, "{bare:?}");
    assert_eq!(bare.message()["error"]["code"], json!(-32020), "{bare:?}");
    let legacy = post(
        addr,
        &[
            ("MCP-Protocol-Version", LEGACY),
            ("Mcp-Session-Id", "made-up"),
        ],
        &tools_list,
    );
    assert_eq!(legacy.status, 400, "{legacy:?}");
    assert_eq!(
        legacy.message()["error"]["code"],
        json!(-32602),
        "{legacy:?}"
    );
    // No session stream to open either.
    let get = exchange(
        addr,
        format!("GET /mcp HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nAccept: text/event-stream\r\nMcp-Session-Id: made-up\r\nMCP-Protocol-Version: {LEGACY}\r\n\r\n").as_bytes(),
    );
    assert_eq!(get.status, 405, "{get:?}");

    // The current revision is served, with the tool list of the defaults.
    let list = current(addr, &[], "tools/list", json!({}));
    assert_eq!(list.status, 200, "{list:?}");
    let golden: Value = serde_json::from_str(
        &std::fs::read_to_string(crate::support::workspace_file(
            "tests/golden/tools_list_zero_config.json",
        ))
        .expect("golden file"),
    )
    .expect("golden JSON");
    assert_eq!(list.message()["result"]["tools"], golden);
    let call = current(
        addr,
        &[],
        "tools/call",
        json!({"name": "engine_status", "arguments": {}}),
    );
    assert_eq!(call.status, 200, "{call:?}");
    assert_eq!(call.header("mcp-session-id"), None);
    assert_eq!(
        structured(&call.message()["result"])["outcome"],
        json!("ok")
    );

    let counts = final_counts(&mut server);
    assert_eq!(counts["session_limit"], json!(0));
    assert_eq!(counts["sdk_bad_request"], json!(2));
}

// Verifies: REQ-MCP-003, REQ-MCP-004, REQ-SEC-016 (a body that is not JSON, with invalid UTF-8, a lone surrogate escape or nesting past the parser's limit, gets a 400 whose text does not echo the body)
#[test]
fn a_body_that_is_not_json_gets_a_clear_400_without_echo() {
    let mut server = start();
    let addr = server.http_addr();
    let deep = format!("{}{}", "[".repeat(300), "]".repeat(300));
    let bodies = [
        "this is not json, echo-me".to_owned(),
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"echo-me\ud800"}}"#
            .to_owned(),
        deep,
    ];
    for body in &bodies {
        let (headers, _) = current_request("tools/list", json!({}));
        let headers: Vec<(&str, &str)> = headers
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        let answer = post(addr, &headers, body);
        assert_eq!(answer.status, 400, "{answer:?}");
        assert!(answer.body.contains("not valid JSON"), "{answer:?}");
        assert!(!answer.body.contains("echo-me") && !answer.body.contains("[["));
    }
    let counts = final_counts(&mut server);
    assert_eq!(counts["invalid_json"], json!(3), "{counts}");
}

/// A tokenless loopback listener whose fetches reach `site.test` on the
/// fake's port, with `extra` in `[limits]`.
fn fetch_server(fake: &FakeHttp, limits: &str) -> Server {
    let port = fake.port();
    Server::start_http(
        &format!(
            "config_version = 1\n{LOOPBACK}[limits]\nfetch_concurrency = 8\n{limits}[fetch]\nrobots_txt = false\n[egress]\nallow_http = true\nallow = [\"127.0.0.1:{port}\"]\n[egress.hosts]\n\"site.test\" = [\"127.0.0.1\"]\n"
        ),
        &[],
    )
}

/// Six fetches of one slow page at once by one caller: how many were
/// answered and how many were refused as busy.
fn six_parallel_fetches(server: &Server, port: u16) -> (usize, usize) {
    let addr = server.http_addr();
    let calls: Vec<_> = (0..6)
        .map(|i| {
            std::thread::spawn(move || {
                let url = format!("http://site.test:{port}/page-{i}");
                let answer = current(
                    addr,
                    &[],
                    "tools/call",
                    json!({"name": "web_fetch", "arguments": {"url": url}}),
                );
                outcome_of(&answer.message())
            })
        })
        .collect();
    let outcomes: Vec<Value> = calls
        .into_iter()
        .map(|call| call.join().expect("call thread"))
        .collect();
    let count = |word: &str| outcomes.iter().filter(|o| **o == json!(word)).count();
    assert_eq!(count("ok") + count("busy"), 6, "{outcomes:?}");
    (count("ok"), count("busy"))
}

// Verifies: REQ-SEC-019 (LIM-F10 per caller: a quarter by default; `[limits] fetch_concurrency_per_caller` raises one caller's share)
#[test]
fn one_caller_gets_the_fetch_share_the_operator_set() {
    // Each page takes 3 s, so the six calls overlap; LIM-F4 is 10 s.
    let fake = FakeHttp::start(
        Reply::json(b"a slow page")
            .with_status(200, "text/plain; charset=utf-8")
            .delayed(Duration::from_secs(3)),
    );
    let raised = fetch_server(&fake, "fetch_concurrency_per_caller = 6\n");
    assert_eq!(six_parallel_fetches(&raised, fake.port()), (6, 0));
    drop(raised);
    let quarter = fetch_server(&fake, "");
    let (ok, busy) = six_parallel_fetches(&quarter, fake.port());
    assert_eq!(ok, 2, "a quarter of 8 by default");
    assert_eq!(busy, 4);
}

/// An HTTP/2 frame.
fn h2_frame(kind: u8, flags: u8, stream: u32, payload: &[u8]) -> Vec<u8> {
    let n = u32::try_from(payload.len()).expect("a short payload");
    let mut frame = n.to_be_bytes()[1..].to_vec();
    frame.extend_from_slice(&[kind, flags]);
    frame.extend_from_slice(&stream.to_be_bytes());
    frame.extend_from_slice(payload);
    frame
}

/// A header block of literal fields, never indexed, no Huffman coding
/// (RFC 7541 §6.2.3); every name and value under 127 bytes.
fn hpack_literals(fields: &[(&str, &str)]) -> Vec<u8> {
    let mut block = Vec::new();
    for (name, value) in fields {
        block.push(0x10);
        block.push(u8::try_from(name.len()).expect("a short name"));
        block.extend_from_slice(name.as_bytes());
        block.push(u8::try_from(value.len()).expect("a short value"));
        block.extend_from_slice(value.as_bytes());
    }
    block
}

/// Reads frames until the response HEADERS of stream 1; the first byte of
/// its header block (0x88: `:status 200` from the static table), or
/// `None` if the connection ended or went away first.
fn h2_response_start(stream: &mut TcpStream) -> Option<u8> {
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .expect("timeout");
    loop {
        let mut head = [0_u8; 9];
        stream.read_exact(&mut head).ok()?;
        let n = usize::from(head[0]) << 16 | usize::from(head[1]) << 8 | usize::from(head[2]);
        let mut payload = vec![0_u8; n];
        stream.read_exact(&mut payload).ok()?;
        match head[3] {
            0x1 => return payload.first().copied(),
            0x7 => return None,
            _ => {}
        }
    }
}

// Verifies: REQ-SEC-018 (a second Origin after a loopback one, a Host whose port runs into a foreign name, an empty Host, an absolute-form target naming a foreign authority, and HTTP/2 with a foreign :authority beside a loopback host are each refused with 403 and counted as sdk_forbidden; an ordinary request still passes)
#[test]
fn ambiguous_hosts_and_origins_are_refused() {
    let mut server = start();
    let addr = server.http_addr();
    let port = addr.port();
    let (headers, body) = current_request("tools/list", json!({}));
    let mut extra = String::new();
    for (k, v) in &headers {
        extra.push_str(&format!("{k}: {v}\r\n"));
    }
    let raw = |target: &str, host_lines: &str| {
        format!(
            "POST {target} HTTP/1.1\r\n{host_lines}Connection: close\r\nContent-Type: application/json\r\nAccept: {ACCEPT}\r\n{extra}Content-Length: {}\r\n\r\n{body}",
            body.len()
        )
    };
    let fine = exchange(addr, raw("/mcp", &format!("Host: {addr}\r\n")).as_bytes());
    assert_eq!(fine.status, 200, "{fine:?}");
    let refused = [
        raw(
            "/mcp",
            &format!("Host: {addr}\r\nOrigin: http://{addr}\r\nOrigin: http://evil.example\r\n"),
        ),
        raw("/mcp", &format!("Host: 127.0.0.1:{port}.evil.example\r\n")),
        raw("/mcp", "Host: \r\n"),
        raw("http://evil.example/mcp", &format!("Host: {addr}\r\n")),
    ];
    for request in &refused {
        let answer = exchange(addr, request.as_bytes());
        assert_eq!(answer.status, 403, "{request}\n{answer:?}");
    }
    // HTTP/2: `:authority` foreign, `host` loopback.
    let mut stream = connect(addr);
    let authority = addr.to_string();
    let mut fields = vec![
        (":method", "POST"),
        (":scheme", "http"),
        (":path", "/mcp"),
        (":authority", "evil.example"),
        ("host", authority.as_str()),
        ("content-type", "application/json"),
        ("accept", ACCEPT),
    ];
    let lower: Vec<(String, String)> = headers
        .iter()
        .map(|(k, v)| (k.to_ascii_lowercase(), v.clone()))
        .collect();
    fields.extend(lower.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    let mut bytes = H2_START.to_vec();
    bytes.extend(h2_frame(0x1, 0x4, 1, &hpack_literals(&fields)));
    bytes.extend(h2_frame(0x0, 0x1, 1, body.as_bytes()));
    stream.write_all(&bytes).expect("write");
    let start = h2_response_start(&mut stream);
    assert!(start.is_some(), "no response on stream 1");
    assert_ne!(start, Some(0x88), "a foreign :authority was served");
    drop(stream);
    let counts = final_counts(&mut server);
    assert_eq!(
        counts["sdk_forbidden"],
        json!(refused.len() + 1),
        "{counts}"
    );
}

// Verifies: REQ-SEC-024 (past LIM-H6 the session used least recently gives way to a new initialize; its client gets 404; the others go on; counted as session_evicted)
#[test]
fn the_least_recently_used_session_gives_way_to_a_new_one() {
    let mut server = Server::start_http(
        &format!("config_version = 1\n[limits]\nhttp_sessions = 2\n{LOOPBACK}"),
        &[],
    );
    let addr = server.http_addr();
    let first = Session::open(addr, &[]).expect("a first session");
    let second = Session::open(addr, &[]).expect("a second session");
    // The first is used again: the second is now the least recently used.
    let r = first.call(2, "engine_status", json!({}));
    assert!(r.get("result").is_some(), "{r}");
    let third = Session::open(addr, &[]).expect("a third session past LIM-H6");
    let gone = second.post(&json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}));
    assert_eq!(gone.status, 404, "{gone:?}");
    for (n, session) in [&first, &third].into_iter().enumerate() {
        let r = session.call(4 + n as u64, "engine_status", json!({}));
        assert!(r.get("result").is_some(), "{r}");
    }
    let counts = final_counts(&mut server);
    assert_eq!(counts["session_evicted"], json!(1), "{counts}");
    assert_eq!(counts["session_limit"], json!(0), "{counts}");
}

/// Sends `frame` `count` times on a new HTTP/2 connection while a thread
/// reads what comes back; the frame types the server sent, in order.
fn flood_http2(addr: SocketAddr, frame: &[u8], count: usize) -> Vec<u8> {
    let mut stream = connect(addr);
    stream
        .set_write_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    let mut reader = stream.try_clone().expect("clone");
    reader
        .set_read_timeout(Some(Duration::from_secs(20)))
        .expect("timeout");
    let read = std::thread::spawn(move || {
        let mut kinds = Vec::new();
        loop {
            let mut head = [0_u8; 9];
            if reader.read_exact(&mut head).is_err() {
                return kinds;
            }
            let n = usize::from(head[0]) << 16 | usize::from(head[1]) << 8 | usize::from(head[2]);
            let mut payload = vec![0_u8; n];
            if reader.read_exact(&mut payload).is_err() {
                return kinds;
            }
            kinds.push(head[3]);
        }
    });
    let _ = stream.write_all(H2_START);
    let batch: Vec<u8> = frame.repeat(500);
    for _ in 0..count / 500 {
        // The server stops reading a flooding peer, then closes it.
        if stream.write_all(&batch).is_err() {
            break;
        }
    }
    read.join().unwrap_or_default()
}

// Verifies: REQ-SEC-018 (an HTTP/2 connection sending PING or SETTINGS frames past LIM-H8 gets GOAWAY and is closed long before its frames are all answered; counted as control_frame_flood; the listener serves others meanwhile)
#[test]
fn control_frame_floods_get_goaway() {
    let mut server = start();
    let addr = server.http_addr();
    let sent = 20_000;
    let ping = h2_frame(0x6, 0x0, 0, &[7; 8]);
    let settings = h2_frame(0x4, 0x0, 0, &[]);
    for frame in [ping, settings] {
        let kinds = flood_http2(addr, &frame, sent);
        assert!(
            kinds.contains(&0x7),
            "no GOAWAY: {} frames back",
            kinds.len()
        );
        let answered = kinds.iter().filter(|&&k| k == frame[3]).count();
        assert!(answered < sent / 2, "{answered} of {sent} answered");
    }
    assert_eq!(current(addr, &[], "tools/list", json!({})).status, 200);
    let counts = final_counts(&mut server);
    assert_eq!(counts["control_frame_flood"], json!(2), "{counts}");
}

// Verifies: REQ-SEC-018 (256 HTTP/2 prefaces from 127.0.0.1 do not lock out the clients at that address: each new connection takes the place of the one idle longest, and 18 requests of 18 from 127.0.0.1 are answered)
#[test]
fn prefaces_from_the_clients_own_address_leave_its_requests_answered() {
    let mut server = start();
    let addr = server.http_addr();
    let flood: Vec<TcpStream> = (0..256)
        .map(|_| {
            let mut stream = connect_from([127, 0, 0, 1], addr);
            let _ = stream.write_all(H2_START);
            stream
        })
        .collect();
    let answered = (0..18)
        .filter(|_| current(addr, &[], "tools/list", json!({})).status == 200)
        .count();
    assert_eq!(answered, 18);
    drop(flood);
    let counts = final_counts(&mut server);
    assert!(
        counts["connection_evicted"].as_u64() >= Some(256 - 64),
        "{counts}"
    );
}

// Verifies: REQ-SEC-018, REQ-SEC-022 (a body that arrives slower than LIM-H9 after its grace gets 408 long before LIM-H5, so slow bodies cannot hold their places)
#[test]
fn a_body_slower_than_the_minimum_rate_gets_408() {
    let server = start();
    let addr = server.http_addr();
    let started = Instant::now();
    let mut slow: Vec<TcpStream> = (0..8)
        .map(|_| {
            let mut stream = connect(addr);
            let head = format!(
                "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: {ACCEPT}\r\nContent-Length: 1000\r\n\r\n{{\"jsonrpc\""
            );
            stream.write_all(head.as_bytes()).expect("write");
            stream
                .set_read_timeout(Some(Duration::from_secs(20)))
                .expect("timeout");
            stream
        })
        .collect();
    for stream in &mut slow {
        let answer = read_answer(stream);
        assert_eq!(answer.status, 408, "{answer:?}");
    }
    // LIM-H5 is 30 s: the minimum rate cut them well before.
    assert!(started.elapsed() < Duration::from_secs(25));
}

/// Sends one request with the token on a kept-alive connection and reads
/// the 404 for its path.
fn authenticated_request(stream: &mut TcpStream, addr: SocketAddr, token: &str) -> bool {
    let request =
        format!("GET /elsewhere HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {token}\r\n\r\n");
    if stream.write_all(request.as_bytes()).is_err() {
        return false;
    }
    let mut raw = Vec::new();
    let mut buf = [0_u8; 1024];
    while !String::from_utf8_lossy(&raw).contains("\r\n\r\nNot Found") {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => return false,
            Ok(n) => raw.extend_from_slice(&buf[..n]),
        }
    }
    String::from_utf8_lossy(&raw).starts_with("HTTP/1.1 404")
}

// Verifies: REQ-SEC-018 (a connection that presented the token is not counted against its address's share and never gives way to a new one)
#[test]
fn authenticated_connections_keep_their_places() {
    let dir = TempDir::new("token");
    let token = "s3cret-token-for-the-test";
    let file = dir.write("token", &format!("{token}\n"));
    let config = format!(
        "config_version = 1\n[limits]\nhttp_connections = 8\n{LOOPBACK}auth_token_file = \"{}\"\n",
        file.display()
    );
    let mut server = Server::start_http(&config, &[]);
    let addr = server.http_addr();
    // One address's share is 2; three authenticated connections are held.
    let mut kept: Vec<TcpStream> = Vec::new();
    for _ in 0..3 {
        let mut stream = connect(addr);
        assert!(authenticated_request(&mut stream, addr, token));
        kept.push(stream);
    }
    // Idle connections without a token from the same address shed one
    // another, never the authenticated ones.
    let mut idle: Vec<TcpStream> = (0..8).map(|_| connect(addr)).collect();
    for stream in &mut kept {
        assert!(authenticated_request(stream, addr, token));
    }
    // The six idle longest gave way: each is closed by the listener (and
    // waiting for it means every arrival was taken in before the count).
    for stream in idle.iter_mut().take(6) {
        assert!(closed_within(stream, Duration::from_secs(10)).is_some());
    }
    drop(idle);
    let counts = final_counts(&mut server);
    assert!(counts["connection_evicted"].as_u64() >= Some(6), "{counts}");
}

/// Starts a POST whose body never completes, so that it stays in progress
/// (until LIM-H9 cuts it), from `source` with these extra header lines.
fn held_request(source: [u8; 4], addr: SocketAddr, extra: &str) -> TcpStream {
    let mut stream = connect_from(source, addr);
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\n{extra}Content-Type: application/json\r\nAccept: {ACCEPT}\r\nContent-Length: 1000\r\n\r\n{{"
    );
    stream.write_all(head.as_bytes()).expect("write");
    stream
}

/// A 2026-07-28 `tools/list` from `source` with these extra header lines.
fn list_from(source: [u8; 4], addr: SocketAddr, extra: &str) -> Answer {
    let (headers, body) = current_request("tools/list", json!({}));
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\n{extra}Connection: close\r\nContent-Type: application/json\r\nAccept: {ACCEPT}\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in &headers {
        request.push_str(&format!("{k}: {v}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(&body);
    let mut stream = connect_from(source, addr);
    stream.write_all(request.as_bytes()).expect("write");
    read_answer(&mut stream)
}

// Verifies: REQ-SEC-018 (`[http] trusted_proxies`: from a listed peer the client named by X-Forwarded-For or Forwarded holds the per-peer share, the proxy itself none; from any other peer those headers are ignored)
#[test]
fn trusted_proxies_name_the_client_for_the_share() {
    let mut server = Server::start_http(
        &format!(
            "config_version = 1\n[limits]\nhttp_connections = 8\n{LOOPBACK}trusted_proxies = [\"127.0.0.2\"]\n"
        ),
        &[],
    );
    let addr = server.http_addr();
    let proxy = [127, 0, 0, 2];
    let xff = "X-Forwarded-For: 198.51.100.7, 127.0.0.2\r\n";
    // Two requests in progress for one client fill its share (a quarter of 8).
    let held: Vec<TcpStream> = (0..2).map(|_| held_request(proxy, addr, xff)).collect();
    std::thread::sleep(Duration::from_millis(300));
    let third = list_from(proxy, addr, xff);
    assert_eq!(third.status, 503, "{third:?}");
    // Another client behind the same proxy, on the proxy's third
    // connection: the proxy itself holds no share.
    let other = list_from(proxy, addr, "Forwarded: for=\"198.51.100.8:4711\"\r\n");
    assert_eq!(other.status, 200, "{other:?}");
    // From a peer not listed the header is ignored.
    let ignored = list_from([127, 0, 0, 3], addr, xff);
    assert_eq!(ignored.status, 200, "{ignored:?}");
    drop(held);
    let counts = final_counts(&mut server);
    assert_eq!(counts["too_many_from_peer"], json!(1), "{counts}");
}
