//! `rypsok serve --transport http`: the listener and its gate (design §2,
//! RFC 019 D6; REQ-SEC-018, REQ-SEC-019, REQ-SEC-022, REQ-SEC-024,
//! REQ-OPS-002).
//!
//! The SDK's Streamable HTTP service (`mcp.rs`) answers the protocol's own
//! statuses; this gate, in front of it, answers the rest: 404 for another
//! path, 403 for an ambiguous authority (`authority`), 401, 413 for a
//! declared body over LIM-H2, 408 (LIM-H5, or a body slower than LIM-H9;
//! a request head that slow closes the connection, `bounds::HeadPace`),
//! 400 for a POST body that is not JSON, and past LIM-H6 sessions closes
//! the one used least recently (`sessions`; none exist when the operator
//! switched the handshake-based revisions off). LIM-H1, LIM-H2 and LIM-H6
//! are the operator's `[limits]`. hyper answers 431 (LIM-H7). Below hyper
//! the listener holds LIM-H1 connections, one peer address at most a
//! quarter of them; past either bound the connection idle longest that
//! never presented a token gives way, else the new one is closed
//! unanswered (`table`). It reads a new connection's first bytes itself
//! under LIM-H3 to learn HTTP/1 or HTTP/2 before handing them back to
//! hyper (`rewind`): hyper's own auto-detection would wait for them
//! forever. An HTTP/2 connection with no open stream is closed after
//! LIM-H3, and one sending control frames past LIM-H8 gets GOAWAY
//! (`bounds`). The SDK's 415 text, its parser's message, is replaced by a
//! fixed one, since it can quote the body; its 403 is told with the key that
//! admits the header, and its 202 for a DELETE that ends a session is
//! answered 200, as the clients expect.

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use anyhow::{Context as _, Result};
use bytes::{Bytes, BytesMut};
use http::{HeaderValue, Method, Request, Response, StatusCode, header};
use http_body::{Body, Frame, SizeHint};
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use rypsok_core::{Caller, Config};
use rypsok_proto::limits;
use tokio::io::AsyncReadExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::signal::unix::{SignalKind, signal};
use tokio::sync::Semaphore;
use tokio::time::{Instant, Sleep};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::mcp::{HttpResponse, McpHttp};

mod authority;
mod bounds;
mod counts;
mod forwarded;
mod rewind;
mod sessions;
mod table;

use bounds::{ControlFrames, Ended, HeadPace, PeerLimit, PeerPermit, StreamGuard};
use counts::{Counts, Reason};
use rewind::{Rewind, Watch};
use sessions::SessionUse;
use table::{Freed, Place, Table};

/// The one path served.
const PATH: &str = "/mcp";
/// The HTTP/2 connection preface (RFC 9113 §3.4).
const H2_PREFACE: &[u8; 24] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
/// How long a shutdown waits for calls in flight: the longest call
/// (LIM-F5) and a second to write its answer.
const SHUTDOWN_GRACE: Duration = Duration::from_millis(limits::FETCH_CALL_MAX_MS + 1000);
/// How often the refusal counts are logged when they changed.
const COUNTS_EVERY: Duration = Duration::from_secs(60);
/// hyper's read buffer per HTTP/1 connection: above LIM-H7 so that a
/// header block over it is refused with 431, small enough that LIM-H1
/// connections stay cheap.
const READ_BUFFER_BYTES: usize = 64 * 1024;
/// The Retry-After of a 503 (design §2).
const RETRY_AFTER_S: &str = "30";
/// Streams one HTTP/2 connection may have open at once: a client runs a
/// few calls in parallel; the bound keeps one connection from holding a
/// whole session's worth of gate work.
const H2_MAX_STREAMS: u32 = 32;

/// POST responses not yet finished: a shutdown waits for them.
#[derive(Debug, Default)]
struct InFlight(AtomicUsize);

struct InFlightGuard(Arc<Gate>);

impl Drop for InFlightGuard {
    fn drop(&mut self) {
        self.0.in_flight.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// What every request passes before the SDK sees it.
struct Gate {
    mcp: McpHttp,
    /// SHA-256 of the bearer token, when one is configured: comparing
    /// digests in constant time hides the token's length too.
    token: Option<[u8; 32]>,
    counts: Counts,
    /// LIM-H2.
    max_body_bytes: usize,
    /// `[http] trusted_proxies`.
    trusted_proxies: Vec<rypsok_core::config::IpBlock>,
    /// Requests in progress per client behind a trusted proxy, a quarter
    /// of LIM-H1 each (`forwarded`).
    clients: Arc<PeerLimit>,
    /// LIM-H6; `None` when the handshake revisions are switched off and no
    /// session can be opened.
    max_sessions: Option<usize>,
    /// One handshake at a time, so that two cannot both pass LIM-H6.
    handshake: tokio::sync::Mutex<()>,
    /// Which session gives way past LIM-H6.
    session_use: SessionUse,
    in_flight: InFlight,
    /// Cancelled on shutdown: connections stop taking requests.
    draining: CancellationToken,
}

type GateResponse = Response<Guarded>;

impl Gate {
    async fn answer(
        self: Arc<Self>,
        request: Request<Incoming>,
    ) -> Result<GateResponse, Infallible> {
        let received = Instant::now();
        let response = self.judge(request, received).await;
        Ok(response)
    }

    fn refuse(&self, reason: Reason, status: StatusCode) -> GateResponse {
        self.counts.add(reason);
        let text = match reason {
            Reason::InvalidJson => "Bad Request: the body is not valid JSON",
            _ => status.canonical_reason().unwrap_or(""),
        };
        let mut response = Response::new(Guarded::plain(text));
        *response.status_mut() = status;
        let headers = response.headers_mut();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/plain; charset=utf-8"),
        );
        match reason {
            Reason::Unauthorized => {
                headers.insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            }
            Reason::SessionLimit => {
                headers.insert(header::RETRY_AFTER, HeaderValue::from_static(RETRY_AFTER_S));
            }
            // The rest of the body is not read: the connection cannot be reused.
            Reason::BodyTooLarge | Reason::RequestTimeout => {
                headers.insert(header::CONNECTION, HeaderValue::from_static("close"));
            }
            _ => {}
        }
        response
    }

    fn authorized(&self, request: &Request<Incoming>) -> bool {
        let Some(expected) = &self.token else {
            return true;
        };
        crate::secrets::presents_token(request.headers(), expected)
    }

    /// Whether the request presents the configured token (none configured:
    /// no request proves anything).
    fn is_authenticated(&self, request: &Request<Incoming>) -> bool {
        self.token.is_some() && self.authorized(request)
    }

    /// The caller a call counts against (REQ-SEC-019): the token's
    /// identity, else the loopback host as one caller. Without a token
    /// there is no identity: a session is no caller of its own, or ending
    /// one and opening the next (DELETE, initialize) would buy a fresh
    /// rate-limit budget each time. Every caller of a tokenless listener
    /// shares one budget, as stdio's one client does.
    fn caller(&self) -> Caller {
        if self.token.is_some() {
            Caller::remote("token")
        } else {
            Caller::remote("loopback")
        }
    }

    /// Closes the session used least recently, for a new one past LIM-H6
    /// (`sessions`); whether one was closed.
    async fn make_room(&self, open: &[String]) -> bool {
        let Some(id) = self.session_use.least_recent(open) else {
            return false;
        };
        self.session_use.forget(&id);
        if !self.mcp.close_session(&id).await {
            return false;
        }
        // Counted, never logged per session: a client that opens sessions
        // in a loop must not write a line for each.
        self.counts.add(Reason::SessionEvicted);
        true
    }

    /// Tells the metrics how many sessions are open, when they change
    /// here (a handshake, a DELETE); sessions the SDK ends on its own are
    /// counted at the next change.
    async fn count_sessions(&self) {
        if let Some(metrics) = crate::metrics::get() {
            metrics.http_sessions(self.mcp.open_sessions().await.len());
        }
    }

    async fn judge(self: Arc<Self>, request: Request<Incoming>, received: Instant) -> GateResponse {
        if request.uri().path() != PATH {
            return self.refuse(Reason::NotFound, StatusCode::NOT_FOUND);
        }
        // Refused as the SDK refuses a foreign Host or Origin, and counted
        // with them.
        if authority::is_ambiguous(&request) {
            return self.refuse(Reason::SdkForbidden, StatusCode::FORBIDDEN);
        }
        if !self.authorized(&request) {
            return self.refuse(Reason::Unauthorized, StatusCode::UNAUTHORIZED);
        }
        let declared = request
            .headers()
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok());
        if declared.is_some_and(|n| n > self.max_body_bytes as u64) {
            return self.refuse(Reason::BodyTooLarge, StatusCode::PAYLOAD_TOO_LARGE);
        }
        let caller = self.caller();
        let (mut parts, body) = request.into_parts();
        let deadline = received + Duration::from_millis(limits::HTTP_REQUEST_MS);
        // One byte past LIM-H2 is enough for the SDK to answer 413 for a
        // streamed body; the rest is never read.
        let body = match read_at_most(body, self.max_body_bytes + 1, received, deadline).await {
            Ok(Some(bytes)) => bytes,
            Err(_) => {
                // The client broke its own request; no one is left to read an answer.
                let mut response = Response::new(Guarded::plain("Bad Request"));
                *response.status_mut() = StatusCode::BAD_REQUEST;
                return response;
            }
            Ok(None) => return self.refuse(Reason::RequestTimeout, StatusCode::REQUEST_TIMEOUT),
        };
        let is_post = parts.method == Method::POST;
        let is_delete = parts.method == Method::DELETE;
        // The SDK would answer 415 with its parser's message, which can
        // quote the body: a body that is not JSON is refused here with a
        // fixed text.
        // A body over LIM-H2 was cut after one byte more: the SDK answers
        // 413 for it.
        if is_post
            && body.len() <= self.max_body_bytes
            && serde_json::from_slice::<serde_json::Value>(&body).is_err()
        {
            return self.refuse(Reason::InvalidJson, StatusCode::BAD_REQUEST);
        }
        let session_limit = self.max_sessions.filter(|_| {
            is_post && !parts.headers.contains_key("mcp-session-id") && is_initialize(&body)
        });
        let session = parts
            .headers
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        parts.extensions.insert(caller);
        let request = Request::from_parts(parts, Full::new(body));
        let guard = is_post.then(|| {
            self.in_flight.0.fetch_add(1, Ordering::AcqRel);
            InFlightGuard(Arc::clone(&self))
        });
        let response = if let Some(max_sessions) = session_limit {
            let _one_at_a_time = self.handshake.lock().await;
            let open = self.mcp.open_sessions().await;
            if open.len() >= max_sessions && !self.make_room(&open).await {
                return self.refuse(Reason::SessionLimit, StatusCode::SERVICE_UNAVAILABLE);
            }
            let response = self.mcp.handle(request).await;
            if let Some(id) = response
                .headers()
                .get("mcp-session-id")
                .and_then(|v| v.to_str().ok())
            {
                self.session_use.touch(id);
            }
            self.count_sessions().await;
            response
        } else {
            let response = self.mcp.handle(request).await;
            // A 404 is an unknown session: nothing to remember.
            if let Some(id) = &session
                && response.status() != StatusCode::NOT_FOUND
            {
                self.session_use.touch(id);
            }
            response
        };
        if response.status() == StatusCode::UNSUPPORTED_MEDIA_TYPE {
            // The SDK's text is its parser's message, which can quote a
            // field of the body: a fixed one instead.
            let mut fixed = Response::new(Guarded::plain(
                "Unsupported Media Type: the body must be one JSON-RPC message sent as application/json",
            ));
            *fixed.status_mut() = StatusCode::UNSUPPORTED_MEDIA_TYPE;
            fixed.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/plain; charset=utf-8"),
            );
            return fixed;
        }
        if is_delete && response.status() == StatusCode::ACCEPTED {
            self.count_sessions().await;
            // A session ended is answered 200, as the protocol's examples
            // and the SDKs' clients expect; the SDK answers 202.
            return plain(StatusCode::OK, "");
        }
        if response.status() == StatusCode::FORBIDDEN {
            self.counts.add(Reason::SdkForbidden);
            return plain(StatusCode::FORBIDDEN, forbidden_text(response).await);
        }
        match response.status() {
            StatusCode::BAD_REQUEST => self.counts.add(Reason::SdkBadRequest),
            StatusCode::NOT_ACCEPTABLE => self.counts.add(Reason::SdkNotAcceptable),
            StatusCode::PAYLOAD_TOO_LARGE => self.counts.add(Reason::SdkBodyTooLarge),
            _ => {}
        }
        Guarded::wrap(response, guard)
    }
}

/// A plain-text answer of the gate's own.
fn plain(status: StatusCode, text: &'static str) -> GateResponse {
    let mut response = Response::new(Guarded::plain(text));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

/// The SDK's 403, told with the key that admits the refused header: the
/// operator reading it learns what to configure.
async fn forbidden_text(response: HttpResponse) -> &'static str {
    let said = response
        .into_body()
        .collect()
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_default();
    if said.windows(4).any(|w| w == b"Host") {
        "Forbidden: the Host header names neither a loopback name nor one of [http] allowed_hosts"
    } else if said.windows(6).any(|w| w == b"Origin") {
        "Forbidden: the Origin header names neither a loopback origin nor one of [http] allowed_origins"
    } else {
        "Forbidden"
    }
}

/// Whether a body is a JSON-RPC `initialize`: the handshake of the earlier
/// revisions, which opens a session.
fn is_initialize(body: &[u8]) -> bool {
    #[derive(serde::Deserialize)]
    struct Method<'a> {
        #[serde(borrow)]
        method: Option<std::borrow::Cow<'a, str>>,
    }
    serde_json::from_slice::<Method<'_>>(body)
        .is_ok_and(|m| m.method.as_deref() == Some("initialize"))
}

/// Reads a body, stopping once it holds more than `max` bytes; `None` when
/// it is not whole by `deadline` (LIM-H5) or arrives slower than LIM-H9:
/// after a grace of LIM-H3 from `started`, each piece must come before the
/// bytes already received, at that rate, are used up. A trickled body
/// would otherwise hold its connection, and its place in the table, for
/// all of LIM-H5.
async fn read_at_most(
    body: Incoming,
    max: usize,
    started: Instant,
    deadline: Instant,
) -> Result<Option<Bytes>, hyper::Error> {
    let grace = Duration::from_millis(limits::HTTP_PROTOCOL_WAIT_MS);
    let mut body = std::pin::pin!(body);
    let mut collected = BytesMut::new();
    while collected.len() <= max {
        let bytes = u64::try_from(collected.len()).unwrap_or(u64::MAX);
        let earned =
            Duration::from_millis(bytes.saturating_mul(1000) / limits::HTTP_BODY_MIN_BYTES_PER_S);
        let due = (started + grace + earned).min(deadline);
        match tokio::time::timeout_at(due, body.frame()).await {
            Err(_) => return Ok(None),
            Ok(None) => break,
            Ok(Some(frame)) => {
                if let Ok(data) = frame?.into_data() {
                    collected.extend_from_slice(&data);
                }
            }
        }
    }
    Ok(Some(collected.freeze()))
}

/// A response body that ends after LIM-H4 and, for a POST, keeps the
/// request counted in flight until it ends. Dropping it (the client closed
/// the stream) drops the SDK's stream, which cancels the call (REQ-MCP-007).
struct Guarded {
    inner: BoxBody<Bytes, Infallible>,
    lifetime: Pin<Box<Sleep>>,
    _in_flight: Option<InFlightGuard>,
    /// Keeps the connection's request counted as open until the body ends.
    _stream: Option<StreamGuard>,
    /// A place of the client behind a trusted proxy, while the request runs.
    _client: Option<PeerPermit>,
}

impl Guarded {
    fn plain(text: &'static str) -> Self {
        Self::new(Full::new(Bytes::from_static(text.as_bytes())).boxed(), None)
    }

    fn new(inner: BoxBody<Bytes, Infallible>, in_flight: Option<InFlightGuard>) -> Self {
        Self {
            inner,
            lifetime: Box::pin(tokio::time::sleep(Duration::from_millis(
                limits::HTTP_STREAM_LIFETIME_MS,
            ))),
            _in_flight: in_flight,
            _stream: None,
            _client: None,
        }
    }

    fn wrap(response: HttpResponse, in_flight: Option<InFlightGuard>) -> GateResponse {
        let (parts, body) = response.into_parts();
        Response::from_parts(parts, Self::new(body, in_flight))
    }
}

impl Body for Guarded {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let this = self.get_mut();
        if this.lifetime.as_mut().poll(cx).is_ready() {
            return Poll::Ready(None);
        }
        Pin::new(&mut this.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// The protocol a connection showed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Protocol {
    Http1,
    Http2,
}

/// Reads until the first bytes tell HTTP/2's preface from anything else
/// (HTTP/1, which hyper then judges). `None`: closed before that.
async fn sniff(stream: &mut TcpStream, seen: &mut Vec<u8>) -> io::Result<Option<Protocol>> {
    loop {
        let mut chunk = [0_u8; H2_PREFACE.len()];
        let want = H2_PREFACE.len() - seen.len();
        let n = stream.read(&mut chunk[..want]).await?;
        if n == 0 {
            return Ok(None);
        }
        seen.extend_from_slice(&chunk[..n]);
        if !H2_PREFACE.starts_with(seen) {
            return Ok(Some(Protocol::Http1));
        }
        if seen.len() == H2_PREFACE.len() {
            return Ok(Some(Protocol::Http2));
        }
    }
}

/// Counts a connection open in the metrics for as long as it lives.
struct OpenConnection(Option<&'static crate::metrics::Metrics>);

impl OpenConnection {
    fn new() -> Self {
        let metrics = crate::metrics::get();
        if let Some(metrics) = metrics {
            metrics.http_connection(1);
        }
        Self(metrics)
    }
}

impl Drop for OpenConnection {
    fn drop(&mut self) {
        if let Some(metrics) = self.0 {
            metrics.http_connection(-1);
        }
    }
}

/// Serves one accepted connection while it holds its place in the table,
/// until it ends or is shed for a new one (`table`): then it is closed
/// where it stands.
async fn connection(gate: Arc<Gate>, stream: TcpStream, place: Place, peer: std::net::IpAddr) {
    let place = Arc::new(place);
    let evicted = place.evicted.clone();
    let _open = OpenConnection::new();
    tokio::select! {
        () = serve_connection(gate, stream, place, peer) => {}
        () = evicted.cancelled() => {}
    }
}

/// Finds a place for a new connection of `peer`: a free one, else the one
/// of the connection that gives way (`table`); `None` (counted) when there
/// is none, and the connection is closed unanswered.
fn admit(
    permits: &Arc<Semaphore>,
    peers: &Arc<PeerLimit>,
    table: &Arc<Table>,
    peer: std::net::IpAddr,
    counts: &Counts,
    trusted: bool,
) -> Option<Place> {
    // A trusted proxy carries many clients: each request holds a place of
    // its own client instead (`forwarded`).
    let share = if trusted {
        None
    } else if let Some(share) = peers.admit(peer) {
        Some(share)
    } else {
        // The peer holds its share: its own connection idle longest gives
        // way. Counted, not logged per connection: a flood of them must
        // not write a flood of lines.
        return match table.shed(Some(peer)) {
            Some(Freed {
                permit,
                peer: Some(share),
            }) => {
                counts.add(Reason::ConnectionEvicted);
                Some(table.enter(permit, Some(share)))
            }
            _ => {
                counts.add(Reason::PeerConnections);
                None
            }
        };
    };
    match Arc::clone(permits).try_acquire_owned() {
        Ok(permit) => Some(table.enter(permit, share)),
        Err(_) => match table.shed(None) {
            Some(freed) => {
                counts.add(Reason::ConnectionEvicted);
                Some(table.enter(freed.permit, share))
            }
            // Closed unanswered (design §2).
            None => {
                counts.add(Reason::TooManyConnections);
                None
            }
        },
    }
}

/// Serves one connection to its end.
async fn serve_connection(
    gate: Arc<Gate>,
    mut stream: TcpStream,
    place: Arc<Place>,
    peer: std::net::IpAddr,
) {
    let trusted = forwarded::is_trusted(&gate.trusted_proxies, peer);
    let arrived = Instant::now();
    let mut seen = Vec::with_capacity(H2_PREFACE.len());
    let wait = Duration::from_millis(limits::HTTP_PROTOCOL_WAIT_MS);
    let protocol = tokio::select! {
        sniffed = tokio::time::timeout(wait, sniff(&mut stream, &mut seen)) => match sniffed {
            Ok(Ok(Some(protocol))) => protocol,
            // Closed, or broken, before it said anything.
            Ok(Ok(None) | Err(_)) => return,
            Err(_) => {
                // Counted, never logged per connection (design §2).
                gate.counts.add(Reason::IdleConnection);
                return;
            }
        },
        () = gate.draining.cancelled() => return,
    };
    let _ = stream.set_nodelay(true);
    let streams = Arc::clone(&place.streams);
    let watch = match protocol {
        Protocol::Http1 => Watch::Http1(HeadPace::new(&streams, arrived, seen.len())),
        Protocol::Http2 => Watch::Http2(ControlFrames::new(&streams)),
    };
    let io = TokioIo::new(Rewind {
        seen: Bytes::from(seen),
        stream,
        watch,
    });
    let service = {
        let gate = Arc::clone(&gate);
        let streams = Arc::clone(&streams);
        service_fn(move |request| {
            if gate.is_authenticated(&request) {
                place.authenticate();
            }
            let gate = Arc::clone(&gate);
            let open = streams.enter();
            let client = trusted.then(|| {
                let client = forwarded::client(request.headers(), &gate.trusted_proxies, peer);
                gate.clients.admit(client)
            });
            async move {
                let mut response = match client {
                    // The client behind the proxy holds its share: answered,
                    // unlike a connection past its share, since the proxy
                    // would otherwise see its connection fail.
                    Some(None) => {
                        gate.refuse(Reason::PeerConnections, StatusCode::SERVICE_UNAVAILABLE)
                    }
                    Some(Some(permit)) => {
                        let mut response = gate.answer(request).await?;
                        response.body_mut()._client = Some(permit);
                        response
                    }
                    None => gate.answer(request).await?,
                };
                response.body_mut()._stream = Some(open);
                Ok::<_, Infallible>(response)
            }
        })
    };
    let request_time = Duration::from_millis(limits::HTTP_REQUEST_MS);
    let result = match protocol {
        Protocol::Http1 => {
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder
                .timer(TokioTimer::new())
                .header_read_timeout(request_time)
                .max_header_size(limits::HTTP_MAX_HEADER_BYTES)
                .max_buf_size(READ_BUFFER_BYTES);
            let conn = builder.serve_connection(io, service);
            drive(conn, &gate.draining, |c| c.graceful_shutdown()).await
        }
        Protocol::Http2 => {
            // hyper's own bounds where it has them (pings answered within
            // LIM-H3, streams, header list); the idle bound is ours
            // (`bounds`): hyper has none for HTTP/2.
            let mut builder = hyper::server::conn::http2::Builder::new(TokioExecutor::new());
            builder
                .timer(TokioTimer::new())
                .max_header_list_size(
                    u32::try_from(limits::HTTP_MAX_HEADER_BYTES).unwrap_or(u32::MAX),
                )
                .max_concurrent_streams(H2_MAX_STREAMS)
                .keep_alive_interval(request_time)
                .keep_alive_timeout(wait);
            let conn = builder.serve_connection(io, service);
            match bounds::drive_h2(conn, &streams, wait, &gate.draining, |c| {
                c.graceful_shutdown();
            })
            .await
            {
                Ended::Done(result) => result,
                Ended::Idle => {
                    // Counted, never logged per connection, like a
                    // connection that never showed its protocol.
                    gate.counts.add(Reason::IdleConnection);
                    Ok(())
                }
                Ended::Flooded => {
                    gate.counts.add(Reason::ControlFrameFlood);
                    Ok(())
                }
            }
        }
    };
    if streams.head_was_slow() || result.is_err_and(|e| e.is_timeout()) {
        gate.counts.add(Reason::HeaderTimeout);
    }
}

/// Runs a connection to its end; once draining, asks it to finish the
/// requests it has and take no more.
async fn drive<C>(
    conn: C,
    draining: &CancellationToken,
    shutdown: impl FnOnce(Pin<&mut C>),
) -> Result<(), hyper::Error>
where
    C: Future<Output = Result<(), hyper::Error>>,
{
    let mut conn = std::pin::pin!(conn);
    tokio::select! {
        result = conn.as_mut() => return result,
        () = draining.cancelled() => {}
    }
    shutdown(conn.as_mut());
    conn.await
}

/// Serves Streamable HTTP on the configured bind until SIGTERM or SIGINT.
pub(crate) async fn serve(config: Config) -> Result<ExitCode> {
    let config = Arc::new(config);
    let token = match &config.http.auth_token {
        None => None,
        Some(reference) => match crate::secrets::token_digest(reference, "http") {
            Some(digest) => Some(digest),
            None => return Ok(ExitCode::from(1)),
        },
    };
    let listener = match TcpListener::bind(config.http.bind).await {
        Ok(listener) => listener,
        Err(e) => {
            tracing::error!(event = "bind_failed", error = %e.kind(), "cannot listen on [http] bind");
            return Ok(ExitCode::from(1));
        }
    };
    let addr = listener.local_addr().context("reading the bound address")?;
    let mut term = signal(SignalKind::terminate()).context("installing the SIGTERM handler")?;
    let mut int = signal(SignalKind::interrupt()).context("installing the SIGINT handler")?;

    let (workers, services) = crate::boot::start(&config, "http", true).await?;
    let sdk_stop = CancellationToken::new();
    let gate = Arc::new(Gate {
        mcp: McpHttp::new(
            services,
            &config.http,
            config.limits.http_request_body_bytes,
            sdk_stop.clone(),
        ),
        token,
        counts: Counts::default(),
        max_body_bytes: config.limits.http_request_body_bytes,
        trusted_proxies: config.http.trusted_proxies.clone(),
        clients: PeerLimit::new(config.limits.http_connections),
        max_sessions: config
            .service
            .handshake_revisions
            .then_some(config.limits.http_sessions),
        handshake: tokio::sync::Mutex::new(()),
        session_use: SessionUse::default(),
        in_flight: InFlight::default(),
        draining: CancellationToken::new(),
    });
    tracing::info!(
        event = "listening",
        addr = %addr,
        path = PATH,
        auth = gate.token.is_some(),
        handshake_revisions = gate.max_sessions.is_some(),
        "serving Streamable HTTP"
    );

    if let Some(metrics) = crate::metrics::get() {
        for reason in Reason::ALL {
            metrics.http_refusal_known(reason.as_str());
        }
    }

    let periodic = {
        let gate = Arc::clone(&gate);
        tokio::spawn(async move {
            let mut last = gate.counts.snapshot();
            loop {
                tokio::time::sleep(COUNTS_EVERY).await;
                let now = gate.counts.snapshot();
                if now != last {
                    gate.counts.log();
                    last = now;
                }
            }
        })
    };

    let connections = TaskTracker::new();
    let permits = Arc::new(Semaphore::new(config.limits.http_connections));
    let peers = PeerLimit::new(config.limits.http_connections);
    let table = Table::new();
    loop {
        tokio::select! {
            _ = term.recv() => break,
            _ = int.recv() => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, peer)) => {
                    let trusted = forwarded::is_trusted(&gate.trusted_proxies, peer.ip());
                    if let Some(place) = admit(&permits, &peers, &table, peer.ip(), &gate.counts, trusted) {
                        connections.spawn(connection(Arc::clone(&gate), stream, place, peer.ip()));
                    }
                }
                Err(e) => {
                    // Out of descriptors, most likely: wait rather than spin.
                    tracing::warn!(event = "accept_failed", error = %e.kind(), "accept failed");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            },
        }
    }

    // Graceful shutdown (REQ-OPS-002): stop accepting, let the calls in
    // flight end within their deadlines, then end sessions and streams.
    tracing::info!(event = "shutdown", cause = "signal", "shutting down");
    drop(listener);
    gate.draining.cancel();
    let grace_ends = Instant::now() + SHUTDOWN_GRACE;
    while gate.in_flight.0.load(Ordering::Acquire) > 0 && Instant::now() < grace_ends {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    sdk_stop.cancel();
    connections.close();
    let _ = tokio::time::timeout(Duration::from_secs(2), connections.wait()).await;
    periodic.abort();
    gate.counts.log();
    workers.shutdown().await;
    tracing::info!(event = "stopped", "rypsok stopped");
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests;
