//! One HTTP exchange: URL → judged addresses → our own connection → one
//! GET → a response whose body is bounded while it streams (design §8;
//! REQ-SEC-007 connect-time enforcement, REQ-SEC-010 byte bounds,
//! REQ-SEC-011 deadlines; invariants I2 and I3).
//!
//! The steps, each with its failure in the closed [`NetFailure`]
//! vocabulary:
//!
//! 1. parse the URL; https, or http under [`Profile::Engine`], or under
//!    [`Profile::Agent`] when the operator allowed it (`agent_http`)
//!    ([`NetFailure::InvalidUrl`]);
//! 2. a literal address is judged as is; a name is normalised, judged by
//!    name rules, answered from `[egress] hosts` or the resolver
//!    ([`NetFailure::Resolve`]), and every answer is judged (under
//!    [`Profile::EngineEndpoint`] the endpoint's own addresses are
//!    admitted, `EgressPolicy::judge_endpoint`);
//!    nothing allowed is [`NetFailure::Refused`];
//! 3. [`connect_judged`] connects to the allowed addresses in turn, judges
//!    the connected peer again and, for https, completes TLS with the URL's
//!    host as server name, each address within LIM-F6
//!    ([`NetFailure::Connect`], [`NetFailure::Tls`]);
//! 4. one HTTP/1.1 GET, no redirect followed (a 3xx is returned with its
//!    headers and without its body), the response head bounded,
//!    the body decoded from its content coding and counted after decoding
//!    while it streams, abandoned past its bound ([`crate::body`];
//!    [`NetFailure::TooLarge`], [`NetFailure::Protocol`]);
//!
//! all under the request's deadline ([`NetFailure::Timeout`]).
//!
//! Steps 2 and 3 are skipped when a connection kept from an earlier
//! exchange with the same origin and profile is still open
//! ([`crate::pool`]): it was judged for exactly that when it was opened. A
//! connection goes back to the pool only when its response was read to its
//! end and the server keeps it alive.
//!
//! No environment proxy is ever used: nothing here reads the environment,
//! and the HTTP layer is hyper's bare connection API over a socket this
//! module opened. The operator's `[egress] proxy` takes steps 2 and 3's
//! place for the exchanges it serves ([`proxy`]).
//! Logs carry fixed event names and numbers: never a URL, a path, a query,
//! a host name or a body.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::header::{
    ACCEPT_ENCODING, CONNECTION, CONTENT_ENCODING, CONTENT_LENGTH, CONTENT_TYPE, HOST, HeaderName,
    HeaderValue,
};
use http_body_util::Empty;
use hyper::body::Body as _;
use rustls::pki_types::{CertificateDer, ServerName};
use rypsok_egress::{AddressVerdict, EgressPolicy, EndpointHost, Refusal, parse_host_name};
use rypsok_proto::limits::{CONNECT_TIMEOUT_MS, TLS_SESSION_SERVERS};
use rypsok_proto::{
    ExchangeRequest, ExchangeResponse, Header, NetFailure, NetInit, NetPool, NetProxy, Profile,
};
use tokio_rustls::TlsConnector;
use url::{Host, Position, Url};

use crate::body::{
    ACCEPT_ENCODING as ACCEPTED_CODINGS, BodyBound, Coding, content_coding, read_body_to_end,
};
use crate::connector::{QuickAck, connect_judged};
use crate::pool::{Conn, OriginKey, Pool, http_handshake};
#[cfg(test)]
use crate::pool::{MAX_RESPONSE_HEAD_BYTES, MAX_WIRE_HEADERS};
use crate::resolve::NameResolver;

/// Response headers kept, at most.
const MAX_RESPONSE_HEADERS: usize = 64;
/// Longest response header value kept, in bytes.
const MAX_HEADER_VALUE_BYTES: usize = 4096;
/// Request headers worker-net sets itself or that make no sense on a
/// bodiless GET: a caller's copy is dropped, never sent twice.
const RESERVED_REQUEST_HEADERS: [&str; 10] = [
    "host",
    "accept-encoding",
    "connection",
    "content-length",
    "transfer-encoding",
    "te",
    "upgrade",
    "keep-alive",
    "proxy-connection",
    "proxy-authorization",
];

/// The only request headers an agent-directed exchange carries besides Host
/// and Accept-Encoding (design §8: "only rypsok's own headers"). Whatever
/// else reaches worker-net under [`Profile::Agent`] (a credential header
/// meant for an engine, by mistake) is dropped, never sent to an agent's URL.
const AGENT_REQUEST_HEADERS: [&str; 3] = ["user-agent", "accept", "accept-language"];

/// What every exchange of this worker shares: the operator's egress
/// policy, the resolver, the TLS configuration and the configured proxy.
/// Built once at start, before the sandbox closes the file system.
pub(crate) struct NetContext {
    pub(crate) egress: EgressPolicy,
    /// Whether [`Profile::Agent`] may use plain http (REQ-FETCH-010).
    agent_http: bool,
    pub(crate) resolver: NameResolver,
    /// `None` when rustls could not be configured: every https exchange
    /// then fails with [`NetFailure::Tls`].
    pub(crate) tls: Option<TlsConnector>,
    /// `[egress] proxy`, if any (design §8, REQ-RES-008).
    proxy: Option<NetProxy>,
    /// The idle connections kept for reuse ([`crate::pool`]).
    pub(crate) pool: Pool,
}

impl std::fmt::Debug for NetContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NetContext")
            .field("egress", &self.egress)
            .field("agent_http", &self.agent_http)
            .field("resolver", &self.resolver)
            .field("tls", &self.tls.is_some())
            .field("proxy", &self.proxy.is_some())
            .field("pool", &self.pool)
            .finish()
    }
}

impl NetContext {
    /// Reads the system's name servers and sets up TLS with the webpki
    /// roots and the operator's extra ones. Never fails: what cannot be
    /// set up fails its exchanges.
    pub(crate) fn new(init: NetInit) -> NetContext {
        NetContext::with_resolver(init.egress, init.agent_http, NameResolver::from_system())
            .with_network(init.proxy, &init.extra_roots)
            .with_pool(init.pool)
    }

    pub(crate) fn with_resolver(
        egress: EgressPolicy,
        agent_http: bool,
        resolver: NameResolver,
    ) -> NetContext {
        NetContext {
            egress,
            agent_http,
            resolver,
            tls: tls_connector::<Vec<u8>>(&[]),
            proxy: None,
            pool: Pool::new(NetPool::default()),
        }
    }

    /// The bounds of the kept connections (`[limits] pool_idle_*`).
    pub(crate) fn with_pool(mut self, limits: NetPool) -> NetContext {
        self.pool = Pool::new(limits);
        self
    }

    /// The operator's proxy and extra trust anchors (`[egress] proxy`,
    /// `ca_file`).
    pub(crate) fn with_network<R: AsRef<[u8]>>(
        mut self,
        proxy: Option<NetProxy>,
        extra_roots: &[R],
    ) -> NetContext {
        self.proxy = proxy;
        if !extra_roots.is_empty() {
            self.tls = tls_connector(extra_roots);
        }
        self
    }

    /// The proxy an exchange under `profile` goes through: always for
    /// engines; for agent-directed fetches only when the operator stated
    /// that the proxy enforces the same profile.
    fn proxy_for(&self, profile: Profile) -> Option<&NetProxy> {
        self.proxy
            .as_ref()
            .filter(|proxy| profile == Profile::Engine || proxy.agent)
    }
}

fn tls_connector<R: AsRef<[u8]>>(extra_roots: &[R]) -> Option<TlsConnector> {
    let tls = tls_config(extra_roots).map(|config| TlsConnector::from(Arc::new(config)));
    if tls.is_none() {
        tracing::warn!(
            event = "tls_unconfigured",
            "TLS could not be configured; every https exchange will fail"
        );
    }
    tls
}

/// The webpki roots, plus `extra_roots` (DER, `[egress] ca_file`, already
/// checked by the supervisor: one that does not parse here is skipped and
/// counted in the log).
fn tls_config<R: AsRef<[u8]>>(extra_roots: &[R]) -> Option<rustls::ClientConfig> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut roots = rustls::RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    if !extra_roots.is_empty() {
        let (added, skipped) = roots.add_parsable_certificates(
            extra_roots
                .iter()
                .map(|der| CertificateDer::from(der.as_ref().to_vec())),
        );
        tracing::info!(
            event = "tls_roots",
            builtin = webpki_roots::TLS_SERVER_ROOTS.len(),
            extra = added,
            skipped,
            "extra trust anchors added to the built-in roots"
        );
    }
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .ok()?
        .with_root_certificates(roots)
        .with_no_client_auth();
    // We speak HTTP/1.1 only; saying so keeps a server from choosing h2.
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    // One configuration serves every connection of this worker, so a new
    // connection to a server seen before resumes its TLS session (one
    // round trip less) from this bounded store.
    config.resumption = rustls::client::Resumption::store(Arc::new(
        rustls::client::ClientSessionMemoryCache::new(TLS_SESSION_SERVERS),
    ));
    Some(config)
}

/// Performs one exchange under the request's deadline.
pub(crate) async fn exchange(
    ctx: &NetContext,
    req: ExchangeRequest,
) -> Result<ExchangeResponse, NetFailure> {
    let started = Instant::now();
    let deadline = Duration::from_millis(req.timeout_ms);
    let outcome = match tokio::time::timeout(deadline, exchange_within_deadline(ctx, &req)).await {
        Ok(outcome) => outcome,
        Err(_) => Err(NetFailure::Timeout),
    };
    let elapsed_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    match &outcome {
        Ok(resp) => tracing::debug!(
            event = "exchange_done",
            status = resp.status,
            body_bytes = resp.body.len(),
            elapsed_ms,
        ),
        Err(failure) => tracing::debug!(
            event = "exchange_failed",
            failure = failure.as_str(),
            elapsed_ms,
        ),
    }
    outcome
}

/// Where an exchange goes, once the URL has been read.
#[derive(Debug)]
pub(crate) struct Target {
    /// Whether TLS wraps the connection.
    pub(crate) tls: bool,
    /// The host as the URL names it: a normalised name or an address.
    pub(crate) host: TargetHost,
    /// The port connected to.
    pub(crate) port: u16,
    /// The `Host` header value.
    pub(crate) authority: String,
    /// Origin-form request target: path and query, no fragment.
    pub(crate) path_and_query: String,
}

#[derive(Debug)]
pub(crate) enum TargetHost {
    Name(String),
    Addr(IpAddr),
}

impl TargetHost {
    /// The host as a pool key names it.
    fn key(&self) -> String {
        match self {
            TargetHost::Name(name) => name.clone(),
            TargetHost::Addr(addr) => addr.to_string(),
        }
    }
}

async fn exchange_within_deadline(
    ctx: &NetContext,
    req: &ExchangeRequest,
) -> Result<ExchangeResponse, NetFailure> {
    let target = parse_target(&req.url, req.profile, ctx.agent_http)?;
    let proxy = ctx.proxy_for(req.profile);
    let bound = BodyBound {
        max: req.max_body_bytes,
        pdf: req.pdf_max_body_bytes,
    };
    let key = OriginKey {
        tls: target.tls,
        host: target.host.key(),
        port: target.port,
        profile: req.profile,
        via_proxy: proxy.is_some(),
    };
    // A kept connection first: the peer it reaches was judged when it was
    // opened, for this very key. If the server closed it meanwhile, the
    // request never left and a new connection takes it.
    if let Some(conn) = ctx.pool.take(&key)
        && let Some(conn) = ready(conn).await
    {
        let request = request_for(proxy, &target, req)?;
        match send_get(conn, request, bound).await {
            Sent::Answered { response, reusable } => {
                return finish(ctx, key, proxy, &target, response, reusable);
            }
            Sent::Unsent => tracing::debug!(
                event = "kept_connection_closed",
                "a kept connection was closed by its peer; opening a new one"
            ),
        }
    }
    let conn = match proxy {
        Some(proxy) => proxy::connect_via(ctx, proxy, &target).await?,
        None => connect_direct(ctx, &target, req.profile).await?,
    };
    let request = request_for(proxy, &target, req)?;
    match send_get(conn, request, bound).await {
        Sent::Answered { response, reusable } => {
            finish(ctx, key, proxy, &target, response, reusable)
        }
        Sent::Unsent => Err(NetFailure::Protocol),
    }
}

/// The GET for `target`, in the form its way there needs.
fn request_for(
    proxy: Option<&NetProxy>,
    target: &Target,
    req: &ExchangeRequest,
) -> Result<http::Request<Empty<Bytes>>, NetFailure> {
    let request = build_request(target, &req.headers, req.profile)?;
    match proxy {
        Some(proxy) if !target.tls => proxy::plain_request(proxy, target, request),
        _ => Ok(request),
    }
}

/// Keeps a connection that may carry another request, and reads the
/// proxy's own refusal out of a plain-http answer.
fn finish(
    ctx: &NetContext,
    key: OriginKey,
    proxy: Option<&NetProxy>,
    target: &Target,
    response: Result<ExchangeResponse, NetFailure>,
    reusable: Option<Conn>,
) -> Result<ExchangeResponse, NetFailure> {
    let response = match proxy {
        Some(_) if !target.tls => response.and_then(proxy::plain_answer),
        _ => response,
    };
    if let (Ok(_), Some(conn)) = (&response, reusable) {
        ctx.pool.put(key, conn);
    }
    response
}

/// A kept connection once it can take a request, or `None` when it closed
/// or does not become ready within LIM-F6.
async fn ready(mut conn: Conn) -> Option<Conn> {
    let wait = Duration::from_millis(CONNECT_TIMEOUT_MS);
    match tokio::time::timeout(wait, conn.sender.ready()).await {
        Ok(Ok(())) => Some(conn),
        _ => None,
    }
}

/// A new connection straight to the target: its addresses judged, the
/// connected peer judged again, TLS completed for https.
async fn connect_direct(
    ctx: &NetContext,
    target: &Target,
    profile: Profile,
) -> Result<Conn, NetFailure> {
    let candidates = judged_candidates(ctx, target, profile).await?;
    let judge =
        |peer: SocketAddr| judge_one(&ctx.egress, &target.host, profile, peer.ip(), peer.port());
    let per_address = Duration::from_millis(CONNECT_TIMEOUT_MS);
    if target.tls {
        let connector = ctx.tls.as_ref().ok_or(NetFailure::Tls)?;
        let server_name = server_name(target)?;
        // LIM-F6 covers the handshake too: a peer that accepts TCP but
        // never finishes TLS has not accepted a connection in time, and the
        // next address is tried.
        let handshake = |tcp| {
            let server_name = server_name.clone();
            async move {
                connector
                    .connect(server_name, QuickAck::new(tcp))
                    .await
                    .map_err(|_| NetFailure::Tls)
            }
        };
        let tls = connect_judged(&candidates, per_address, judge, handshake).await?;
        http_handshake(tls).await
    } else {
        let plain = |tcp| std::future::ready(Ok(QuickAck::new(tcp)));
        let tcp = connect_judged(&candidates, per_address, judge, plain).await?;
        http_handshake(tcp).await
    }
}

/// The name TLS verifies: the URL's host.
pub(crate) fn server_name(target: &Target) -> Result<ServerName<'static>, NetFailure> {
    match &target.host {
        TargetHost::Name(name) => {
            ServerName::try_from(name.clone()).map_err(|_| NetFailure::InvalidUrl)
        }
        TargetHost::Addr(addr) => Ok(ServerName::IpAddress((*addr).into())),
    }
}

/// Reads the URL: scheme under the profile, host, port, request target.
/// `agent_http` is the operator's `[egress] allow_http`.
fn parse_target(raw: &str, profile: Profile, agent_http: bool) -> Result<Target, NetFailure> {
    let url = Url::parse(raw).map_err(|_| NetFailure::InvalidUrl)?;
    let tls = match (url.scheme(), profile) {
        ("https", _) => true,
        // Plain http for an endpoint the operator wrote, or for an agent's
        // URL when the operator allowed http (REQ-FETCH-010).
        ("http", Profile::Engine | Profile::EngineEndpoint) => false,
        ("http", Profile::Agent) if agent_http => false,
        _ => return Err(NetFailure::InvalidUrl),
    };
    // Credentials never travel in a URL we request.
    if !url.username().is_empty() || url.password().is_some() {
        return Err(NetFailure::InvalidUrl);
    }
    let port = url.port_or_known_default().ok_or(NetFailure::InvalidUrl)?;
    let host = match url.host() {
        Some(Host::Domain(domain)) => {
            TargetHost::Name(parse_host_name(domain).ok_or(NetFailure::InvalidUrl)?)
        }
        Some(Host::Ipv4(v4)) => TargetHost::Addr(IpAddr::V4(v4)),
        Some(Host::Ipv6(v6)) => TargetHost::Addr(IpAddr::V6(v6)),
        None => return Err(NetFailure::InvalidUrl),
    };
    let host_text = match &host {
        TargetHost::Name(name) => name.clone(),
        TargetHost::Addr(IpAddr::V4(v4)) => v4.to_string(),
        TargetHost::Addr(IpAddr::V6(v6)) => format!("[{v6}]"),
    };
    // `Url::port` is `None` for the scheme's default port.
    let authority = match url.port() {
        Some(port) => format!("{host_text}:{port}"),
        None => host_text,
    };
    let path_and_query = url[Position::BeforePath..Position::AfterQuery].to_owned();
    Ok(Target {
        tls,
        host,
        port,
        authority,
        path_and_query,
    })
}

/// The addresses to try, in answer order, each judged by the policy.
async fn judged_candidates(
    ctx: &NetContext,
    target: &Target,
    profile: Profile,
) -> Result<Vec<SocketAddr>, NetFailure> {
    let answers = match &target.host {
        TargetHost::Addr(addr) => vec![*addr],
        TargetHost::Name(name) => {
            if ctx.egress.judge_name(name, target.port) == Some(AddressVerdict::DeniedByRule) {
                return Err(refused(Refusal::DenyRule));
            }
            ctx.resolver.lookup(&ctx.egress, name).await?
        }
    };
    if answers.is_empty() {
        return Err(NetFailure::Resolve);
    }
    let mut allowed: Vec<SocketAddr> = Vec::with_capacity(answers.len());
    let mut first_refusal = None;
    for addr in answers {
        let verdict = judge_one(&ctx.egress, &target.host, profile, addr, target.port);
        match verdict.refusal() {
            None => {
                let candidate = SocketAddr::new(addr, target.port);
                if !allowed.contains(&candidate) {
                    allowed.push(candidate);
                }
            }
            Some(refusal) if first_refusal.is_none() => first_refusal = Some(refusal),
            Some(_) => {}
        }
    }
    match (allowed.is_empty(), first_refusal) {
        (false, _) => Ok(allowed),
        (true, Some(refusal)) => Err(refused(refusal)),
        (true, None) => Err(NetFailure::Resolve),
    }
}

/// The policy's verdict on `addr:port` as an answer for the target host,
/// under the exchange's profile.
pub(crate) fn judge_one(
    policy: &EgressPolicy,
    host: &TargetHost,
    profile: Profile,
    addr: IpAddr,
    port: u16,
) -> AddressVerdict {
    let endpoint = match host {
        TargetHost::Name(name) => EndpointHost::Name(name),
        TargetHost::Addr(literal) => EndpointHost::Addr(*literal),
    };
    match (profile, endpoint) {
        (Profile::EngineEndpoint, endpoint) => policy.judge_endpoint(endpoint, addr, port),
        (Profile::Engine | Profile::Agent, EndpointHost::Name(name)) => {
            policy.judge_resolved(name, addr, port)
        }
        (Profile::Engine | Profile::Agent, EndpointHost::Addr(_)) => policy.judge_addr(addr, port),
    }
}

/// Logs a refusal by its fixed words only (no host, no address) and
/// answers it with the part of the policy that refused, which the
/// supervisor logs with the call.
pub(crate) fn refused(refusal: Refusal) -> NetFailure {
    tracing::info!(
        event = "egress_refused",
        refused = refusal.as_str(),
        address_class = refusal.address_class().map(|class| class.as_str()),
        "destination refused by the egress policy"
    );
    NetFailure::Refused(refusal)
}

/// The GET: Host, the supervisor's headers (less the reserved ones, and
/// under [`Profile::Agent`] only [`AGENT_REQUEST_HEADERS`]),
/// `Accept-Encoding` with the codings [`read_body_to_end`] decodes, nothing else.
fn build_request(
    target: &Target,
    headers: &[Header],
    profile: Profile,
) -> Result<http::Request<Empty<Bytes>>, NetFailure> {
    let mut builder = http::Request::get(target.path_and_query.as_str()).header(
        HOST,
        HeaderValue::from_str(&target.authority).map_err(|_| NetFailure::InvalidUrl)?,
    );
    for header in headers {
        let name =
            HeaderName::from_bytes(header.name.as_bytes()).map_err(|_| NetFailure::InvalidUrl)?;
        if RESERVED_REQUEST_HEADERS.contains(&name.as_str()) {
            continue;
        }
        if profile == Profile::Agent && !AGENT_REQUEST_HEADERS.contains(&name.as_str()) {
            tracing::debug!(
                event = "agent_header_dropped",
                "a header that is not rypsok's own was dropped from an agent-directed request"
            );
            continue;
        }
        let value = HeaderValue::from_str(&header.value).map_err(|_| NetFailure::InvalidUrl)?;
        builder = builder.header(name, value);
    }
    // worker-net owns content decoding: the bound is counted after it.
    builder
        .header(ACCEPT_ENCODING, HeaderValue::from_static(ACCEPTED_CODINGS))
        .body(Empty::new())
        .map_err(|_| NetFailure::InvalidUrl)
}

/// What became of a request sent on a connection.
pub(crate) enum Sent {
    /// It failed before any response came: on a kept connection, the
    /// peer had closed it.
    Unsent,
    /// A response (or its failure), and the connection when it may carry
    /// another request: the response was read to its end and the server
    /// keeps the connection alive.
    Answered {
        response: Result<ExchangeResponse, NetFailure>,
        reusable: Option<Conn>,
    },
}

/// Sends the request on `conn` and reads the response within `bound`, by
/// the kind of body it is.
pub(crate) async fn send_get(
    mut conn: Conn,
    request: http::Request<Empty<Bytes>>,
    bound: BodyBound,
) -> Sent {
    let Ok(response) = conn.sender.send_request(request).await else {
        return Sent::Unsent;
    };
    let keep_alive = keeps_alive(&response);
    let status = response.status().as_u16();
    // A redirect is never followed here: what matters is its status and
    // Location, which neither an oversized nor an undecodable body may
    // hide. Its body is not read (so its connection is kept only when
    // there is none).
    if response.status().is_redirection() {
        let ended = response.body().is_end_stream();
        return Sent::Answered {
            response: Ok(ExchangeResponse {
                status,
                headers: keep_headers(response.headers(), true),
                body: Vec::new(),
            }),
            reusable: (keep_alive && ended).then_some(conn),
        };
    }
    let answered = |response| Sent::Answered {
        response,
        reusable: None,
    };
    let coding = match content_coding(response.headers()) {
        Ok(coding) => coding,
        Err(failure) => return answered(Err(failure)),
    };
    let headers = keep_headers(response.headers(), coding != Coding::Identity);
    let declared = response
        .headers()
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    let content_type = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let read = read_body_to_end(
        response.into_body(),
        coding,
        declared,
        content_type.as_deref(),
        bound,
    );
    match read.await {
        Ok((body, ended)) => Sent::Answered {
            response: Ok(ExchangeResponse {
                status,
                headers,
                body,
            }),
            reusable: (keep_alive && ended).then_some(conn),
        },
        Err(failure) => answered(Err(failure)),
    }
}

/// Whether the server keeps the connection open after this response:
/// HTTP/1.1 without `Connection: close` (an HTTP/1.0 answer is never kept).
fn keeps_alive<B>(response: &http::Response<B>) -> bool {
    response.version() == http::Version::HTTP_11
        && !response.headers().get_all(CONNECTION).iter().any(|value| {
            value.to_str().map_or(true, |text| {
                text.split(',')
                    .any(|token| token.trim().eq_ignore_ascii_case("close"))
            })
        })
}

/// At most [`MAX_RESPONSE_HEADERS`] headers, names lower-case, values kept
/// only when UTF-8 and at most [`MAX_HEADER_VALUE_BYTES`]. Once the body
/// has been `rewritten` (decoded, or not read), its `Content-Encoding` and
/// `Content-Length` no longer describe it and are dropped.
fn keep_headers(map: &http::HeaderMap, rewritten: bool) -> Vec<Header> {
    map.iter()
        .filter(|(name, _)| !(rewritten && (*name == CONTENT_ENCODING || *name == CONTENT_LENGTH)))
        .filter(|(_, value)| value.len() <= MAX_HEADER_VALUE_BYTES)
        .filter_map(|(name, value)| {
            let value = std::str::from_utf8(value.as_bytes()).ok()?;
            Some(Header {
                name: name.as_str().to_ascii_lowercase(),
                value: value.to_owned(),
            })
        })
        .take(MAX_RESPONSE_HEADERS)
        .collect()
}

mod proxy;

pub(crate) use proxy::confinement_policy;

#[cfg(test)]
mod tests;
