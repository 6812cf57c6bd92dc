//! `rypsok health`: whether the Streamable HTTP listener of this
//! installation answers, for an orchestrator's health check (a container's
//! HEALTHCHECK, a Kubernetes probe, a systemd watchdog script).
//!
//! The listener serves one path and answers every other with 404 (design
//! §2), so the check speaks MCP itself: one `tools/list` of the 2026-07-28
//! revision, which needs no session and is served whether or not the
//! handshake revisions are (that revision has no `ping`: the SDK answers it
//! with method-not-found), POSTed to `/mcp` on the configured `[http] bind`
//! (a wildcard bind is reached on the loopback address of its family) with
//! the configured token. Healthy means a 200 answer carrying the request's
//! JSON-RPC result within [`DEADLINE`]. Nothing but that one loopback or
//! configured address is ever contacted.

use std::io::{Read, Write};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use rypsok_core::Config;
use serde_json::{Value, json};

/// The whole check: connect, send, read the answer.
const DEADLINE: Duration = Duration::from_secs(5);
/// The most of the answer that is read.
const ANSWER_BYTES: u64 = 65_536;
/// The revision whose requests need no session.
const REVISION: &str = "2026-07-28";

/// Why the listener is not healthy; each names a fixed condition, never
/// text of the answer.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Unhealthy {
    /// The token is configured but could not be read: the variable or the
    /// file it names, and why.
    TokenUnreadable(crate::secrets::Unreadable),
    /// No connection (refused, unreachable, timed out).
    Connect(std::io::ErrorKind),
    /// The connection failed or stalled while sending or reading.
    Io(std::io::ErrorKind),
    /// An answer other than 200.
    Status(u16),
    /// A 200 answer without the request's result.
    NoResult,
}

impl std::fmt::Display for Unhealthy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::TokenUnreadable(why) => write!(f, "the [http] token could not be read: {why}"),
            Self::Connect(kind) => write!(f, "no connection to the listener ({kind})"),
            Self::Io(kind) => write!(f, "the exchange with the listener failed ({kind})"),
            Self::Status(code) => write!(f, "the listener answered HTTP {code}"),
            Self::NoResult => f.write_str("the listener's answer carried no result"),
        }
    }
}

/// The address to reach for a bind address: a wildcard bind listens on
/// loopback too.
pub(crate) fn target(bind: SocketAddr) -> SocketAddr {
    let ip = match bind.ip() {
        IpAddr::V4(v4) if v4.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(v6) if v6.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
        ip => ip,
    };
    SocketAddr::new(ip, bind.port())
}

/// Asks the configured listener for its tool list once.
pub(crate) fn check(config: &Config) -> Result<SocketAddr, Unhealthy> {
    let token = match &config.http.auth_token {
        None => None,
        Some(reference) => Some(
            crate::secrets::read_secret_or_why(reference).map_err(Unhealthy::TokenUnreadable)?,
        ),
    };
    let addr = target(config.http.bind);
    ask(addr, token.as_deref())?;
    Ok(addr)
}

/// One `tools/list` POSTed to `http://addr/mcp`.
fn ask(addr: SocketAddr, token: Option<&str>) -> Result<(), Unhealthy> {
    let started = Instant::now();
    // The one connection this command opens goes to this installation's own
    // listener, named by the operator's configuration; no web address.
    #[allow(clippy::disallowed_methods)]
    let mut stream =
        TcpStream::connect_timeout(&addr, DEADLINE).map_err(|e| Unhealthy::Connect(e.kind()))?;
    let left = DEADLINE
        .saturating_sub(started.elapsed())
        .max(Duration::from_millis(1));
    let io = |e: std::io::Error| Unhealthy::Io(e.kind());
    stream.set_read_timeout(Some(left)).map_err(io)?;
    stream.set_write_timeout(Some(left)).map_err(io)?;
    stream.write_all(&request(addr, token)).map_err(io)?;
    let mut answer = Vec::new();
    stream
        .take(ANSWER_BYTES)
        .read_to_end(&mut answer)
        .map_err(io)?;
    judge(&answer)
}

/// The request's bytes.
fn request(addr: SocketAddr, token: Option<&str>) -> Vec<u8> {
    let body = json!({
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/list",
        "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": REVISION,
            "io.modelcontextprotocol/clientCapabilities": {},
        }},
    })
    .to_string();
    let mut head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\
         Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
         MCP-Protocol-Version: {REVISION}\r\nMcp-Method: tools/list\r\nContent-Length: {}\r\n",
        body.len()
    );
    if let Some(token) = token {
        head.push_str("Authorization: Bearer ");
        head.push_str(token);
        head.push_str("\r\n");
    }
    head.push_str("\r\n");
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(body.as_bytes());
    bytes
}

/// Whether an answer (head and body as read until the server closed) is a
/// 200 carrying the request's result, as JSON or as a server-sent event.
pub(crate) fn judge(answer: &[u8]) -> Result<(), Unhealthy> {
    let text = String::from_utf8_lossy(answer);
    let (head, body) = text.split_once("\r\n\r\n").ok_or(Unhealthy::NoResult)?;
    let status = head
        .lines()
        .next()
        .and_then(|line| line.split(' ').nth(1))
        .and_then(|code| code.parse::<u16>().ok())
        .ok_or(Unhealthy::NoResult)?;
    if status != 200 {
        return Err(Unhealthy::Status(status));
    }
    let chunked = head.lines().any(|line| {
        line.split_once(':').is_some_and(|(name, value)| {
            name.trim().eq_ignore_ascii_case("transfer-encoding")
                && value.to_ascii_lowercase().contains("chunked")
        })
    });
    let body = if chunked {
        dechunk(body)
    } else {
        body.to_owned()
    };
    let answered = |v: &Value| v.get("id") == Some(&json!(1)) && v.get("result").is_some();
    let found = serde_json::from_str::<Value>(body.trim()).is_ok_and(|v| answered(&v))
        || body
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
            .any(|v| answered(&v));
    if found {
        Ok(())
    } else {
        Err(Unhealthy::NoResult)
    }
}

/// The payload of a chunked body (as much of it as is well formed).
fn dechunk(mut rest: &str) -> String {
    let mut out = String::new();
    while let Some((size, after)) = rest.split_once("\r\n") {
        let Ok(n) = usize::from_str_radix(size.split(';').next().unwrap_or("").trim(), 16) else {
            break;
        };
        if n == 0 || after.len() < n || !after.is_char_boundary(n) {
            break;
        }
        out.push_str(&after[..n]);
        rest = after[n..].strip_prefix("\r\n").unwrap_or(&after[n..]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wildcard_bind_is_reached_on_loopback() {
        // Verifies: REQ-DEP-004 (the health check reaches a container's wildcard listener)
        let at = |s: &str| s.parse::<SocketAddr>().unwrap();
        assert_eq!(target(at("0.0.0.0:8808")), at("127.0.0.1:8808"));
        assert_eq!(target(at("[::]:9000")), at("[::1]:9000"));
        assert_eq!(target(at("10.1.2.3:8808")), at("10.1.2.3:8808"));
    }

    #[test]
    fn only_a_200_with_the_request_result_is_healthy() {
        // Verifies: REQ-DEP-004 (health: the request answered, nothing less)
        let json = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}";
        assert_eq!(judge(json), Ok(()));
        let sse = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n2c\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n\r\n0\r\n\r\n";
        assert_eq!(judge(sse), Ok(()));
        let error =
            b"HTTP/1.1 200 OK\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32601}}";
        assert_eq!(judge(error), Err(Unhealthy::NoResult));
        assert_eq!(
            judge(b"HTTP/1.1 401 Unauthorized\r\n\r\n"),
            Err(Unhealthy::Status(401))
        );
        assert_eq!(judge(b""), Err(Unhealthy::NoResult));
        assert_eq!(judge(b"garbage\r\n\r\n"), Err(Unhealthy::NoResult));
    }
}
