//! `rypsok serve --transport http`: the listener and its gate (design §2,
//! RFC 019 D6; REQ-SEC-018, REQ-SEC-019, REQ-SEC-022, REQ-SEC-024,
//! REQ-OPS-002).
//!
//! The SDK's Streamable HTTP service (`mcp.rs`) answers the protocol's own
//! statuses; this gate, in front of it, answers the rest: 404 for another
//! path, 401, 413 for a declared body over LIM-H2, 408, 400 for a POST
//! body that is not JSON, and 503 beyond
//! LIM-H6 sessions (none exist when the operator switched the
//! handshake-based revisions off). LIM-H1, LIM-H2 and LIM-H6 are the
//! operator's `[limits]`. hyper answers 431 (LIM-H7). Below hyper the listener
//! holds LIM-H1 connections, closing one more unanswered, and reads a new
//! connection's first bytes itself under LIM-H3 to learn HTTP/1 or HTTP/2
//! before handing them back to hyper: hyper's own auto-detection would wait
//! for them forever. One peer address holds at most a quarter of LIM-H1, and
//! an HTTP/2 connection with no open stream is closed after LIM-H3
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
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
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
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::signal::unix::{SignalKind, signal};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::{Instant, Sleep};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::mcp::{HttpResponse, McpHttp};

mod bounds;

use bounds::{Ended, PeerLimit, PeerPermit, StreamGuard, Streams};

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

rypsok_core::vocabulary! {
    /// Why the listener refused something, counted under `http` (design §2).
    Reason {
        TooManyConnections => "too_many_connections",
        IdleConnection => "idle_connection",
        /// hyper's: a request head not complete within LIM-H5 of the previous
        /// answer, an idle keep-alive connection included.
        HeaderTimeout => "header_timeout",
        NotFound => "not_found",
        Unauthorized => "unauthorized",
        BodyTooLarge => "body_too_large",
        RequestTimeout => "request_timeout",
        SessionLimit => "session_limit",
        SdkBadRequest => "sdk_bad_request",
        SdkForbidden => "sdk_forbidden",
        SdkNotAcceptable => "sdk_not_acceptable",
        SdkBodyTooLarge => "sdk_body_too_large",
        /// A connection past one peer's share of LIM-H1.
        PeerConnections => "too_many_from_peer",
        /// A POST whose body is not JSON (broken syntax, not UTF-8, a lone
        /// surrogate escape, nesting past the parser's limit).
        InvalidJson => "invalid_json",
    }
}

impl Reason {
    /// Whether each refusal writes an `http_refused` line (the table's
    /// "Logged as" column). The others are only counted: a flood of them
    /// must not write a flood of lines.
    const fn logged(self) -> bool {
        matches!(
            self,
            Self::TooManyConnections
                | Self::Unauthorized
                | Self::BodyTooLarge
                | Self::RequestTimeout
                | Self::SessionLimit
                | Self::SdkForbidden
        )
    }
}

/// Refusals counted by reason.
#[derive(Debug, Default)]
struct Counts([AtomicU64; Reason::ALL.len()]);

impl Counts {
    fn add(&self, reason: Reason) {
        let index = Reason::ALL.iter().position(|r| *r == reason).unwrap_or(0);
        let total = self.0[index].fetch_add(1, Ordering::Relaxed) + 1;
        if reason.logged() {
            tracing::info!(
                event = "http_refused",
                reason = reason.as_str(),
                total,
                "request refused"
            );
        }
    }

    fn snapshot(&self) -> Vec<u64> {
        self.0.iter().map(|c| c.load(Ordering::Relaxed)).collect()
    }

    /// One line with every count, each reason a field.
    fn log(&self) {
        let n = self.snapshot();
        tracing::info!(
            event = "http_counts",
            too_many_connections = n[0],
            idle_connection = n[1],
            header_timeout = n[2],
            not_found = n[3],
            unauthorized = n[4],
            body_too_large = n[5],
            request_timeout = n[6],
            session_limit = n[7],
            sdk_bad_request = n[8],
            sdk_forbidden = n[9],
            sdk_not_acceptable = n[10],
            sdk_body_too_large = n[11],
            too_many_from_peer = n[12],
            invalid_json = n[13],
            "refusals by reason"
        );
    }
}

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
    /// LIM-H6; `None` when the handshake revisions are switched off and no
    /// session can be opened.
    max_sessions: Option<usize>,
    /// One handshake at a time, so that two cannot both pass LIM-H6.
    handshake: tokio::sync::Mutex<()>,
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
        // The scheme is case-insensitive (RFC 9110 §11.1).
        let presented = request
            .headers()
            .get(header::AUTHORIZATION)
            .map(HeaderValue::as_bytes)
            .filter(|v| v.len() > 7 && v[..7].eq_ignore_ascii_case(b"bearer "))
            .map(|v| &v[7..])
            .unwrap_or_default();
        let digest: [u8; 32] = Sha256::digest(presented).into();
        bool::from(digest.ct_eq(expected)) && !presented.is_empty()
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

    async fn judge(self: Arc<Self>, request: Request<Incoming>, received: Instant) -> GateResponse {
        if request.uri().path() != PATH {
            return self.refuse(Reason::NotFound, StatusCode::NOT_FOUND);
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
        let body =
            match tokio::time::timeout_at(deadline, read_at_most(body, self.max_body_bytes + 1))
                .await
            {
                Ok(Ok(bytes)) => bytes,
                Ok(Err(_)) => {
                    // The client broke its own request; no one is left to read an answer.
                    let mut response = Response::new(Guarded::plain("Bad Request"));
                    *response.status_mut() = StatusCode::BAD_REQUEST;
                    return response;
                }
                Err(_) => return self.refuse(Reason::RequestTimeout, StatusCode::REQUEST_TIMEOUT),
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
        parts.extensions.insert(caller);
        let request = Request::from_parts(parts, Full::new(body));
        let guard = is_post.then(|| {
            self.in_flight.0.fetch_add(1, Ordering::AcqRel);
            InFlightGuard(Arc::clone(&self))
        });
        let response = if let Some(max_sessions) = session_limit {
            let _one_at_a_time = self.handshake.lock().await;
            if self.mcp.open_sessions().await >= max_sessions {
                return self.refuse(Reason::SessionLimit, StatusCode::SERVICE_UNAVAILABLE);
            }
            self.mcp.handle(request).await
        } else {
            self.mcp.handle(request).await
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

/// Reads a body, stopping once it holds more than `max` bytes.
async fn read_at_most(body: Incoming, max: usize) -> Result<Bytes, hyper::Error> {
    let mut body = std::pin::pin!(body);
    let mut collected = BytesMut::new();
    while collected.len() <= max {
        match body.frame().await {
            None => break,
            Some(frame) => {
                if let Ok(data) = frame?.into_data() {
                    collected.extend_from_slice(&data);
                }
            }
        }
    }
    Ok(collected.freeze())
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

/// A stream that first yields the bytes the listener already read.
struct Rewind {
    seen: Bytes,
    stream: TcpStream,
}

impl AsyncRead for Rewind {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if !this.seen.is_empty() {
            let n = this.seen.len().min(buf.remaining());
            buf.put_slice(&this.seen.split_to(n));
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut this.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for Rewind {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}

/// Serves one accepted connection while it holds one of LIM-H1 permits
/// and one of its peer's.
async fn connection(
    gate: Arc<Gate>,
    mut stream: TcpStream,
    _permit: OwnedSemaphorePermit,
    _peer: PeerPermit,
) {
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
    let io = TokioIo::new(Rewind {
        seen: Bytes::from(seen),
        stream,
    });
    let streams = Streams::new();
    let service = {
        let gate = Arc::clone(&gate);
        let streams = Arc::clone(&streams);
        service_fn(move |request| {
            let gate = Arc::clone(&gate);
            let open = streams.enter();
            async move {
                let mut response = gate.answer(request).await?;
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
            }
        }
    };
    if let Err(e) = result
        && e.is_timeout()
    {
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
        Some(reference) => match crate::secrets::read_secret_or_why(reference) {
            Ok(token) => Some(Sha256::digest(token.as_bytes()).into()),
            Err(why) => {
                // The key and what it names (the operator's own file),
                // as `rypsok check` says it; never the token.
                let key = match reference {
                    rypsok_core::config::SecretRef::Env(_) => "http.auth_token_env",
                    rypsok_core::config::SecretRef::File(_) => "http.auth_token_file",
                };
                tracing::error!(
                    event = "auth_token_unreadable",
                    key,
                    reason = %why,
                    "the [http] token could not be read; nothing started"
                );
                return Ok(ExitCode::from(1));
            }
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

    let (workers, services) = crate::boot::start(&config, "http").await?;
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
        max_sessions: config
            .service
            .handshake_revisions
            .then_some(config.limits.http_sessions),
        handshake: tokio::sync::Mutex::new(()),
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
    loop {
        tokio::select! {
            _ = term.recv() => break,
            _ = int.recv() => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, peer)) => match peers.admit(peer.ip()) {
                    // Past the peer's share: closed unanswered, counted,
                    // not logged per connection (a flood of them must not
                    // write a flood of lines).
                    None => {
                        drop(stream);
                        gate.counts.add(Reason::PeerConnections);
                    }
                    Some(peer) => match Arc::clone(&permits).try_acquire_owned() {
                        Ok(permit) => {
                            connections.spawn(connection(Arc::clone(&gate), stream, permit, peer));
                        }
                        // Closed unanswered (design §2).
                        Err(_) => {
                            drop(stream);
                            gate.counts.add(Reason::TooManyConnections);
                        }
                    },
                },
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
mod tests {
    use super::*;

    #[test]
    fn recognises_the_handshake() {
        assert!(is_initialize(
            br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#
        ));
        assert!(!is_initialize(
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#
        ));
        assert!(!is_initialize(b"not json"));
    }

    #[test]
    fn only_listed_reasons_are_logged() {
        assert!(!Reason::IdleConnection.logged());
        assert!(Reason::TooManyConnections.logged());
        assert!(!Reason::SdkBadRequest.logged());
    }
}
