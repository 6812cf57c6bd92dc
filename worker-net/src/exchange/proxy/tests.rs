use std::sync::Arc;

use rypsok_egress::{EgressPolicy, parse_rule};
use rypsok_proto::{ExchangeRequest, Header, Profile, ProxyAuthorization};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use super::*;
use crate::exchange::exchange;
use crate::resolve::NameResolver;

/// A loopback proxy that answers every request with `answer` and records
/// each request head it read.
async fn fake_proxy(answer: &'static str) -> (SocketAddr, Arc<std::sync::Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let heads = Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = Arc::clone(&heads);
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let seen = Arc::clone(&seen);
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut buf = [0u8; 1024];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    let Ok(n) = socket.read(&mut buf).await else {
                        return;
                    };
                    if n == 0 {
                        return;
                    }
                    head.extend_from_slice(&buf[..n]);
                }
                seen.lock()
                    .unwrap()
                    .push(String::from_utf8_lossy(&head).into_owned());
                let _ = socket.write_all(answer.as_bytes()).await;
                let _ = socket.shutdown().await;
            });
        }
    });
    (addr, heads)
}

fn context(proxy: SocketAddr, deny: &[&str], agent: bool) -> NetContext {
    let egress = EgressPolicy {
        allow: Vec::new(),
        deny: deny.iter().map(|r| parse_rule(r).unwrap()).collect(),
        hosts: Vec::new(),
        endpoints: Vec::new(),
    };
    let proxy = NetProxy {
        host: proxy.ip().to_string(),
        port: proxy.port(),
        authorization: Some(ProxyAuthorization("Basic dXNlcjpwYXNz".to_owned())),
        agent,
    };
    NetContext::with_resolver(egress, true, NameResolver::unconfigured())
        .with_network::<Vec<u8>>(Some(proxy), &[])
}

fn request(url: &str, profile: Profile) -> ExchangeRequest {
    ExchangeRequest {
        url: url.to_owned(),
        headers: vec![Header {
            name: "user-agent".to_owned(),
            value: "rypsok-test".to_owned(),
        }],
        profile,
        timeout_ms: 5_000,
        max_body_bytes: 64 * 1024,
        pdf_max_body_bytes: None,
    }
}

// Verifies: REQ-RES-008
#[tokio::test]
async fn a_proxy_answering_407_to_connect_is_a_proxy_auth_failure() {
    let (proxy, heads) =
        fake_proxy("HTTP/1.1 407 Proxy Authentication Required\r\ncontent-length: 0\r\n\r\n").await;
    let ctx = context(proxy, &[], false);
    let outcome = exchange(
        &ctx,
        request("https://engine.example:443/s?q=1", Profile::Engine),
    )
    .await;
    assert_eq!(outcome.err(), Some(NetFailure::ProxyAuth));
    let heads = heads.lock().unwrap();
    assert!(
        heads[0].starts_with("CONNECT engine.example:443 HTTP/1.1\r\n"),
        "{heads:?}"
    );
    assert!(
        heads[0]
            .to_ascii_lowercase()
            .contains("proxy-authorization: basic dxnlcjpwyxnz")
    );
}

// Verifies: REQ-RES-008
#[tokio::test]
async fn a_proxy_refusing_the_tunnel_is_a_proxy_status_failure() {
    let (proxy, _) = fake_proxy("HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n").await;
    let ctx = context(proxy, &[], false);
    let outcome = exchange(&ctx, request("https://engine.example/s", Profile::Engine)).await;
    assert_eq!(outcome.err(), Some(NetFailure::ProxyStatus));
}

// Verifies: REQ-RES-008
#[tokio::test]
async fn a_proxy_that_does_not_listen_is_a_proxy_connect_failure() {
    let closed = TcpListener::bind("127.0.0.1:0")
        .await
        .unwrap()
        .local_addr()
        .unwrap();
    let ctx = context(closed, &[], false);
    let outcome = exchange(&ctx, request("https://engine.example/s", Profile::Engine)).await;
    assert_eq!(outcome.err(), Some(NetFailure::ProxyConnect));
}

// Verifies: REQ-RES-008
#[tokio::test]
async fn plain_http_goes_to_the_proxy_in_absolute_form() {
    let (proxy, heads) = fake_proxy("HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok").await;
    let ctx = context(proxy, &[], false);
    let response = exchange(
        &ctx,
        request("http://engine.example/s?q=1", Profile::Engine),
    )
    .await
    .unwrap();
    assert_eq!(
        (response.status, response.body.as_slice()),
        (200, &b"ok"[..])
    );
    let heads = heads.lock().unwrap();
    assert!(
        heads[0].starts_with("GET http://engine.example/s?q=1 HTTP/1.1\r\n"),
        "{heads:?}"
    );
}

// Verifies: REQ-RES-008, REQ-SEC-007
#[tokio::test]
async fn the_destination_is_judged_before_anything_reaches_the_proxy() {
    let (proxy, heads) = fake_proxy("HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n").await;
    let ctx = context(proxy, &["blocked.example"], true);
    for url in [
        "https://blocked.example/",
        "https://127.0.0.1/",
        "https://[::1]/",
        "https://169.254.169.254/",
        "https://engine.example:8443/",
    ] {
        let outcome = exchange(&ctx, request(url, Profile::Agent)).await;
        assert!(
            matches!(outcome, Err(NetFailure::Refused(_))),
            "{url}: {outcome:?}"
        );
    }
    assert!(heads.lock().unwrap().is_empty());
}

// Verifies: REQ-RES-008
#[tokio::test]
async fn agent_fetches_go_direct_unless_the_proxy_enforces_the_profile() {
    let (proxy, heads) = fake_proxy("HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n").await;
    let ctx = context(proxy, &[], false);
    // Direct: the name cannot resolve (no resolver in tests), and the
    // proxy hears nothing.
    let outcome = exchange(&ctx, request("http://page.example/", Profile::Agent)).await;
    assert_eq!(outcome.err(), Some(NetFailure::Resolve));
    assert!(heads.lock().unwrap().is_empty());
    let ctx = context(proxy, &[], true);
    let response = exchange(&ctx, request("http://page.example/", Profile::Agent)).await;
    assert_eq!(response.unwrap().status, 200);
    assert_eq!(heads.lock().unwrap().len(), 1);
}

// Verifies: REQ-SEC-007
#[test]
fn the_confinement_opens_the_proxy_port_only() {
    let init = NetInit {
        egress: EgressPolicy::default(),
        agent_http: false,
        proxy: Some(NetProxy {
            host: "proxy.corp.example".to_owned(),
            port: 3128,
            authorization: None,
            agent: false,
        }),
        extra_roots: Vec::new(),
        pool: rypsok_proto::NetPool::default(),
    };
    let policy = confinement_policy(&init);
    assert_eq!(policy.allow.len(), 1);
    assert_eq!(policy.allow[0].port, RulePort::Port(3128));
    assert_eq!(
        format!("{:?}", init.proxy.as_ref().map(|p| &p.authorization)),
        "Some(None)"
    );
}
