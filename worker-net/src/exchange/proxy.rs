//! The operator's forward proxy (`[egress] proxy`; design §8, REQ-RES-008:
//! "the configured proxy, if any; environment proxies ignored").
//!
//! The destination is still judged here, before anything leaves: a literal
//! address by the address rules, a name by the name rules and LIM-F8's
//! ports (and by its `[egress] hosts` answers, when it has some). The name
//! itself is resolved by the proxy, so the addresses it stands for are the
//! proxy's to judge. The proxy's own address is admitted for the proxy
//! connection only: nothing else may connect to it because it is the proxy.
//!
//! https goes through a CONNECT tunnel, and TLS is then made end to end
//! with the URL's host as server name; plain http goes to the proxy with
//! the absolute URL, as proxies expect. hyper makes both requests (its
//! upgrade API hands the tunnel back), so no HTTP is written by hand. The
//! proxy's own failures have their own classes: it did not accept
//! ([`NetFailure::ProxyConnect`]), it wants or refused credentials (407,
//! [`NetFailure::ProxyAuth`]), it refused the tunnel otherwise
//! ([`NetFailure::ProxyStatus`]). The `Proxy-Authorization` value is never
//! logged.

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use bytes::Bytes;
use http::header::{HOST, HeaderValue, PROXY_AUTHORIZATION};
use http::{Method, StatusCode, Uri};
use http_body_util::Empty;
use hyper::client::conn::http1;
use hyper_util::rt::TokioIo;
use rypsok_egress::{
    AddressVerdict, DEFAULT_PORTS, EgressPolicy, EgressRule, Refusal, RulePort, RuleTarget,
    parse_host_name,
};
use rypsok_proto::limits::CONNECT_TIMEOUT_MS;
use rypsok_proto::{ExchangeResponse, NetFailure, NetInit, NetProxy, Profile};
use tokio::net::TcpStream;

use crate::body::BodyBound;

use super::{
    AbortOnDrop, NetContext, Target, TargetHost, judge_one, refused, send_get, server_name,
};
use crate::connector::connect_judged;
use crate::resolve::static_answer;

/// Header fields a CONNECT answer may have at all.
const MAX_PROXY_HEADERS: usize = 64;
/// The read buffer for a CONNECT answer's head.
const MAX_PROXY_HEAD_BYTES: usize = 16 * 1024;

/// One exchange through `proxy`: the destination judged, the proxy
/// reached, the request sent through it.
pub(crate) async fn exchange_via(
    ctx: &NetContext,
    proxy: &NetProxy,
    target: &Target,
    mut request: http::Request<Empty<Bytes>>,
    bound: BodyBound,
) -> Result<ExchangeResponse, NetFailure> {
    judge_destination(&ctx.egress, target)?;
    let candidates = proxy_addresses(ctx, proxy).await?;
    // The proxy's addresses are admitted for this connection only; the
    // connector still checks that the peer is the address it dialled.
    let judge = |_peer: SocketAddr| AddressVerdict::AllowedByRule;
    let per_address = Duration::from_millis(CONNECT_TIMEOUT_MS);
    let authorization = proxy
        .authorization
        .as_ref()
        .map(|auth| HeaderValue::from_str(&auth.0).map(sensitive))
        .transpose()
        .map_err(|_| NetFailure::ProxyAuth)?;
    let unreachable = |failure| match failure {
        NetFailure::Connect => NetFailure::ProxyConnect,
        other => other,
    };
    if target.tls {
        let connector = ctx.tls.as_ref().ok_or(NetFailure::Tls)?;
        let server_name = server_name(target)?;
        let authority = target_authority(target);
        let tunnel_then_tls = |tcp| {
            let server_name = server_name.clone();
            let authorization = authorization.clone();
            let authority = authority.clone();
            async move {
                let tunnel = open_tunnel(tcp, &authority, authorization).await?;
                connector
                    .connect(server_name, tunnel)
                    .await
                    .map_err(|_| NetFailure::Tls)
            }
        };
        let tls = connect_judged(&candidates, per_address, judge, tunnel_then_tls)
            .await
            .map_err(unreachable)?;
        send_get(tls, request, bound).await
    } else {
        // Absolute form: the proxy reads the destination from the target.
        let absolute = format!("http://{}{}", target.authority, target.path_and_query);
        *request.uri_mut() = absolute
            .parse::<Uri>()
            .map_err(|_| NetFailure::InvalidUrl)?;
        if let Some(value) = authorization {
            request.headers_mut().insert(PROXY_AUTHORIZATION, value);
        }
        let plain = |tcp| std::future::ready(Ok(tcp));
        let tcp = connect_judged(&candidates, per_address, judge, plain)
            .await
            .map_err(unreachable)?;
        let response = send_get(tcp, request, bound).await?;
        // An origin does not answer 407: this is the proxy's.
        if response.status == StatusCode::PROXY_AUTHENTICATION_REQUIRED.as_u16() {
            return Err(NetFailure::ProxyAuth);
        }
        Ok(response)
    }
}

fn sensitive(mut value: HeaderValue) -> HeaderValue {
    value.set_sensitive(true);
    value
}

/// The CONNECT target: `host:port`, always with the port.
fn target_authority(target: &Target) -> String {
    match &target.host {
        TargetHost::Name(name) => format!("{name}:{}", target.port),
        TargetHost::Addr(IpAddr::V4(v4)) => format!("{v4}:{}", target.port),
        TargetHost::Addr(IpAddr::V6(v6)) => format!("[{v6}]:{}", target.port),
    }
}

/// What rypsok can still judge of a destination the proxy will resolve: a
/// literal address entirely; a name by the rules that name it, LIM-F8's
/// ports and, when `[egress] hosts` answers for it, those answers.
fn judge_destination(policy: &EgressPolicy, target: &Target) -> Result<(), NetFailure> {
    let name = match &target.host {
        TargetHost::Addr(addr) => {
            return match policy.judge_addr(*addr, target.port).refusal() {
                None => Ok(()),
                Some(refusal) => Err(refused(refusal)),
            };
        }
        TargetHost::Name(name) => name,
    };
    match policy.judge_name(name, target.port) {
        Some(AddressVerdict::DeniedByRule) => return Err(refused(Refusal::DenyRule)),
        Some(AddressVerdict::AllowedByRule) => return Ok(()),
        Some(_) | None => {}
    }
    if let Some(answers) = static_answer(policy, name) {
        let mut first_refusal = None;
        for addr in answers {
            // An endpoint admitted for its engine alone goes direct, never
            // through the proxy (`proxy_for`): here the usual judgement.
            match judge_one(policy, &target.host, Profile::Engine, *addr, target.port).refusal() {
                None => return Ok(()),
                Some(refusal) => {
                    first_refusal.get_or_insert(refusal);
                }
            }
        }
        return Err(refused(first_refusal.unwrap_or(Refusal::DenyRule)));
    }
    if !DEFAULT_PORTS.contains(&target.port) {
        return Err(refused(Refusal::Port));
    }
    Ok(())
}

/// The proxy's addresses: its literal address, or its name's answers
/// (`[egress] hosts` first). Not judged by the policy: the operator named
/// the proxy, and it is reached for proxy connections only.
async fn proxy_addresses(
    ctx: &NetContext,
    proxy: &NetProxy,
) -> Result<Vec<SocketAddr>, NetFailure> {
    let answers = match proxy.host.parse::<IpAddr>() {
        Ok(addr) => vec![addr],
        Err(_) => ctx
            .resolver
            .lookup(&ctx.egress, &proxy.host)
            .await
            .map_err(|_| NetFailure::ProxyConnect)?,
    };
    let mut candidates: Vec<SocketAddr> = Vec::with_capacity(answers.len());
    for addr in answers {
        let candidate = SocketAddr::new(rypsok_egress::canonical(addr), proxy.port);
        if !candidates.contains(&candidate) {
            candidates.push(candidate);
        }
    }
    if candidates.is_empty() {
        return Err(NetFailure::ProxyConnect);
    }
    Ok(candidates)
}

/// Asks the proxy for a tunnel to `authority` and hands back the tunnel.
async fn open_tunnel(
    tcp: TcpStream,
    authority: &str,
    authorization: Option<HeaderValue>,
) -> Result<TokioIo<hyper::upgrade::Upgraded>, NetFailure> {
    let (mut sender, connection) = http1::Builder::new()
        .max_headers(MAX_PROXY_HEADERS)
        .max_buf_size(MAX_PROXY_HEAD_BYTES)
        .handshake(TokioIo::new(tcp))
        .await
        .map_err(|_| NetFailure::ProxyStatus)?;
    let _connection = AbortOnDrop(tokio::spawn(async move {
        // Its errors surface through the response future.
        let _ = connection.with_upgrades().await;
    }));
    let mut builder = http::Request::builder()
        .method(Method::CONNECT)
        .uri(authority)
        .header(
            HOST,
            HeaderValue::from_str(authority).map_err(|_| NetFailure::InvalidUrl)?,
        );
    if let Some(value) = authorization {
        builder = builder.header(PROXY_AUTHORIZATION, value);
    }
    let request = builder
        .body(Empty::<Bytes>::new())
        .map_err(|_| NetFailure::InvalidUrl)?;
    let response = sender
        .send_request(request)
        .await
        .map_err(|_| NetFailure::ProxyStatus)?;
    let status = response.status();
    if status == StatusCode::PROXY_AUTHENTICATION_REQUIRED {
        tracing::info!(
            event = "proxy_refused",
            status = status.as_u16(),
            "the proxy asked for credentials or refused them"
        );
        return Err(NetFailure::ProxyAuth);
    }
    if !status.is_success() {
        tracing::info!(
            event = "proxy_refused",
            status = status.as_u16(),
            "the proxy refused the tunnel"
        );
        return Err(NetFailure::ProxyStatus);
    }
    let upgraded = hyper::upgrade::on(response)
        .await
        .map_err(|_| NetFailure::ProxyStatus)?;
    Ok(TokioIo::new(upgraded))
}

/// The policy the kernel's confinement is built from: the operator's, plus
/// the proxy's port, so that Landlock lets worker-net reach the proxy. The
/// exchanges themselves are judged by the operator's policy alone.
pub(crate) fn confinement_policy(init: &NetInit) -> EgressPolicy {
    let mut policy = init.egress.clone();
    if let Some(proxy) = &init.proxy {
        let target = match proxy.host.parse::<IpAddr>() {
            Ok(addr) => RuleTarget::Net {
                addr,
                prefix: if addr.is_ipv4() { 32 } else { 128 },
            },
            Err(_) => RuleTarget::Host(parse_host_name(&proxy.host).unwrap_or_default()),
        };
        policy.allow.push(EgressRule {
            target,
            port: RulePort::Port(proxy.port),
        });
    }
    policy
}

#[cfg(test)]
mod tests;
