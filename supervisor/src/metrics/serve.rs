//! The scrape listener (`[metrics] bind`): `GET /metrics` over HTTP/1.1,
//! in the Prometheus text format, or OpenMetrics when the scraper's Accept
//! asks for `application/openmetrics-text`.
//!
//! It is bounded like the MCP listener, at a scraper's scale: a few
//! connections at once (one more is closed unanswered), a request head
//! within five seconds, a connection's whole life within ten. A scrape
//! reads the registry's own counters and takes no lock a tool call holds
//! beyond a family's read lock for the time of one copy. Off loopback a
//! bearer token is required (the configuration refuses it without one),
//! checked as the MCP listener checks its own; without one, a request must
//! name a loopback host, so that DNS rebinding cannot make a page a
//! scraper.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context as _, Result};
use bytes::Bytes;
use http::{HeaderValue, Method, Request, Response, StatusCode, header};
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use rypsok_core::config::MetricsConfig;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

use super::Metrics;

/// The one path served.
const PATH: &str = "/metrics";
/// Connections open at once: a scraper or two, and room for a probe.
const MAX_CONNECTIONS: usize = 8;
/// The longest wait for a request head.
const HEAD_WITHIN: Duration = Duration::from_secs(5);
/// The longest a connection lives, keep-alive included: a scrape of a few
/// kilobytes takes milliseconds.
const CONNECTION_LIFETIME: Duration = Duration::from_secs(10);
const PROMETHEUS_TEXT: &str = "text/plain; version=0.0.4; charset=utf-8";
const OPENMETRICS_TEXT: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// The bound scrape listener, before it serves.
#[derive(Debug)]
pub(crate) struct Listener {
    listener: TcpListener,
    token: Option<[u8; 32]>,
}

/// Reads the token and binds `[metrics] bind`; `Ok(None)` when metrics
/// are off. An error (the token unreadable, the address taken) is a
/// start-up failure: the operator asked for metrics.
pub(crate) async fn bind(config: &MetricsConfig) -> Result<Option<Listener>> {
    let Some(addr) = config.bind else {
        return Ok(None);
    };
    let token = match &config.auth_token {
        None => None,
        Some(reference) => Some(
            crate::secrets::token_digest(reference, "metrics")
                .context("the [metrics] token could not be read")?,
        ),
    };
    let listener = TcpListener::bind(addr)
        .await
        .with_context(|| format!("cannot listen on [metrics] bind {addr}"))?;
    Ok(Some(Listener { listener, token }))
}

impl Listener {
    /// The address bound (a port 0 in the configuration is chosen here).
    pub(crate) fn local_addr(&self) -> Option<SocketAddr> {
        self.listener.local_addr().ok()
    }

    /// Serves scrapes of `metrics` until the runtime ends.
    pub(crate) async fn serve(self, metrics: &'static Metrics) {
        let token = Arc::new(self.token);
        let permits = Arc::new(Semaphore::new(MAX_CONNECTIONS));
        loop {
            let (stream, _) = match self.listener.accept().await {
                Ok(accepted) => accepted,
                Err(e) => {
                    tracing::warn!(event = "accept_failed", listener = "metrics", error = %e.kind(), "accept failed");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            };
            // Past the bound the connection is closed unanswered.
            let Ok(permit) = Arc::clone(&permits).try_acquire_owned() else {
                continue;
            };
            let token = Arc::clone(&token);
            tokio::spawn(async move {
                let service = service_fn(move |request| {
                    let response = answer(metrics, token.as_ref().as_ref(), &request);
                    async move { Ok::<_, Infallible>(response) }
                });
                let mut builder = hyper::server::conn::http1::Builder::new();
                builder
                    .timer(TokioTimer::new())
                    .header_read_timeout(HEAD_WITHIN)
                    .max_buf_size(16 * 1024);
                let conn = builder.serve_connection(TokioIo::new(stream), service);
                let _ = tokio::time::timeout(CONNECTION_LIFETIME, conn).await;
                drop(permit);
            });
        }
    }
}

/// The answer to one request; its body is never read (a scrape has none).
fn answer(
    metrics: &Metrics,
    token: Option<&[u8; 32]>,
    request: &Request<Incoming>,
) -> Response<Full<Bytes>> {
    if token.is_none() && !names_loopback(request.headers()) {
        return plain(
            StatusCode::FORBIDDEN,
            "Forbidden: a listener without a token answers loopback names only",
        );
    }
    if request.uri().path() != PATH {
        return plain(StatusCode::NOT_FOUND, "Not Found");
    }
    if let Some(expected) = token
        && !crate::secrets::presents_token(request.headers(), expected)
    {
        let mut response = plain(StatusCode::UNAUTHORIZED, "Unauthorized");
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        return response;
    }
    if request.method() != Method::GET && request.method() != Method::HEAD {
        let mut response = plain(StatusCode::METHOD_NOT_ALLOWED, "Method Not Allowed");
        response
            .headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
        return response;
    }
    let openmetrics = wants_openmetrics(request.headers().get(header::ACCEPT));
    let body = metrics.encode(openmetrics);
    let mut response = Response::new(Full::new(Bytes::from(body)));
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(if openmetrics {
            OPENMETRICS_TEXT
        } else {
            PROMETHEUS_TEXT
        }),
    );
    response
}

/// Whether the request's one `Host` names this machine's loopback:
/// `localhost` or a loopback address, with or without a port. A listener
/// without a token is on loopback (the configuration allows no other), and
/// a page whose own name was made to resolve to 127.0.0.1 (DNS rebinding)
/// reaches it with that name in `Host`: it is refused, as the MCP listener
/// refuses it (REQ-SEC-018).
pub(super) fn names_loopback(headers: &http::HeaderMap) -> bool {
    let mut hosts = headers.get_all(header::HOST).iter();
    let (Some(host), None) = (hosts.next(), hosts.next()) else {
        return false;
    };
    let Ok(host) = host.to_str() else {
        return false;
    };
    let name = match host.strip_prefix('[') {
        Some(rest) => match rest.split_once(']') {
            Some((inside, "")) => inside,
            Some((inside, after)) if after.strip_prefix(':').is_some_and(is_port) => inside,
            _ => return false,
        },
        None => match host.split_once(':') {
            Some((name, port)) if is_port(port) => name,
            Some(_) => return false,
            None => host,
        },
    };
    name.eq_ignore_ascii_case("localhost")
        || name
            .parse::<std::net::IpAddr>()
            .is_ok_and(|addr| addr.is_loopback())
}

/// One to five digits.
fn is_port(text: &str) -> bool {
    (1..=5).contains(&text.len()) && text.bytes().all(|b| b.is_ascii_digit())
}

fn plain(status: StatusCode, text: &'static str) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from_static(text.as_bytes())));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

/// Whether an Accept header asks for OpenMetrics: it names
/// `application/openmetrics-text` with a weight above zero (Prometheus
/// sends it first, weighted, beside the text format).
pub(super) fn wants_openmetrics(accept: Option<&HeaderValue>) -> bool {
    let Some(accept) = accept.and_then(|v| v.to_str().ok()) else {
        return false;
    };
    accept.split(',').any(|range| {
        let mut parts = range.split(';').map(str::trim);
        let media = parts.next().unwrap_or_default();
        if !media.eq_ignore_ascii_case("application/openmetrics-text") {
            return false;
        }
        let weight = parts
            .filter_map(|p| p.split_once('='))
            .find(|(k, _)| k.trim().eq_ignore_ascii_case("q"))
            .and_then(|(_, v)| v.trim().parse::<f64>().ok())
            .unwrap_or(1.0);
        weight > 0.0
    })
}
