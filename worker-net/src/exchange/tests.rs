//! Exchanges against loopback servers written on plain tokio listeners.
//! Each server counts its connections, so a test can prove that no
//! connection was made; each exchange has its own short deadline, and each
//! test is bounded again by [`bounded`].

use std::future::Future;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rypsok_egress::{AddressClass, EgressRule, RulePort, RuleTarget, StaticHost, parse_rule};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use super::*;

/// A loopback destination no rule admits, as worker-net answers it.
const LOOPBACK_REFUSED: NetFailure =
    NetFailure::Refused(Refusal::AddressClass(AddressClass::Loopback));

/// What a test server does with each connection.
#[derive(Clone)]
enum Behaviour {
    /// Reads the request head, writes these bytes, closes.
    Respond(Vec<u8>),
    /// Reads the request head, writes a 200 head without a length, then
    /// `total` body bytes in 16 KiB writes until the client goes away.
    Stream { total: usize },
    /// Accepts, reads, never answers.
    Silent,
    /// Writes these bytes at once, without reading anything, and closes.
    Blurt(Vec<u8>),
    /// Reads the request head, writes a 200 head declaring `length` body
    /// bytes, then one byte every `every` until the client goes away.
    Trickle { length: usize, every: Duration },
    /// Answers each request on the connection with these bytes and keeps
    /// the connection open for the next.
    KeepAlive(Vec<u8>),
}

struct TestServer {
    addr: SocketAddr,
    connections: Arc<AtomicUsize>,
    heads: Arc<Mutex<Vec<String>>>,
}

impl TestServer {
    async fn start(behaviour: Behaviour) -> TestServer {
        TestServer::start_at("127.0.0.1:0".parse().unwrap(), behaviour)
            .await
            .unwrap()
    }

    /// A server on `addr`, or `None` when it cannot be bound.
    async fn start_at(addr: SocketAddr, behaviour: Behaviour) -> Option<TestServer> {
        let listener = TcpListener::bind(addr).await.ok()?;
        let addr = listener.local_addr().unwrap();
        let connections = Arc::new(AtomicUsize::new(0));
        let heads = Arc::new(Mutex::new(Vec::new()));
        let (count, seen) = (Arc::clone(&connections), Arc::clone(&heads));
        tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                count.fetch_add(1, Ordering::SeqCst);
                tokio::spawn(handle(socket, behaviour.clone(), Arc::clone(&seen)));
            }
        });
        Some(TestServer {
            addr,
            connections,
            heads,
        })
    }

    fn connections(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }

    fn port(&self) -> u16 {
        self.addr.port()
    }
}

async fn handle(mut socket: TcpStream, behaviour: Behaviour, heads: Arc<Mutex<Vec<String>>>) {
    if let Behaviour::KeepAlive(bytes) = &behaviour {
        let mut pending = Vec::new();
        let mut buf = [0u8; 4096];
        loop {
            let Some(end) = pending.windows(4).position(|w| w == b"\r\n\r\n") else {
                match socket.read(&mut buf).await {
                    Ok(0) | Err(_) => return,
                    Ok(n) => pending.extend_from_slice(&buf[..n]),
                }
                continue;
            };
            let head: Vec<u8> = pending.drain(..end + 4).collect();
            heads
                .lock()
                .unwrap()
                .push(String::from_utf8_lossy(&head).into_owned());
            if socket.write_all(bytes).await.is_err() {
                return;
            }
        }
    }
    if let Behaviour::Blurt(bytes) = &behaviour {
        let _ = socket.write_all(bytes).await;
        let _ = socket.shutdown().await;
        return;
    }
    let mut head = Vec::new();
    let mut buf = [0u8; 4096];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 16 * 1024 {
        match socket.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
    }
    heads
        .lock()
        .unwrap()
        .push(String::from_utf8_lossy(&head).into_owned());
    match behaviour {
        Behaviour::Respond(bytes) => {
            let _ = socket.write_all(&bytes).await;
            let _ = socket.shutdown().await;
        }
        Behaviour::Stream { total } => {
            let head = b"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nConnection: close\r\n\r\n";
            if socket.write_all(head).await.is_err() {
                return;
            }
            let chunk = vec![b'x'; 16 * 1024];
            let mut sent = 0;
            while sent < total {
                if socket.write_all(&chunk).await.is_err() {
                    return;
                }
                sent += chunk.len();
            }
            let _ = socket.shutdown().await;
        }
        Behaviour::Silent => {
            tokio::time::sleep(Duration::from_secs(30)).await;
        }
        Behaviour::Trickle { length, every } => {
            let head = format!("HTTP/1.1 200 OK\r\nContent-Length: {length}\r\n\r\n");
            if socket.write_all(head.as_bytes()).await.is_err() {
                return;
            }
            for _ in 0..length {
                if socket.write_all(b"x").await.is_err() {
                    return;
                }
                tokio::time::sleep(every).await;
            }
        }
        Behaviour::Blurt(_) | Behaviour::KeepAlive(_) => {}
    }
}

fn response(status_line: &str, extra_headers: &str, body: &str) -> Behaviour {
    Behaviour::Respond(
        format!(
            "HTTP/1.1 {status_line}\r\nContent-Length: {}\r\nConnection: close\r\n{extra_headers}\r\n{body}",
            body.len()
        )
        .into_bytes(),
    )
}

/// A complete response with a binary body.
fn response_bytes(status_line: &str, extra_headers: &str, body: &[u8]) -> Behaviour {
    let mut bytes = format!(
        "HTTP/1.1 {status_line}\r\nContent-Length: {}\r\nConnection: close\r\n{extra_headers}\r\n",
        body.len()
    )
    .into_bytes();
    bytes.extend_from_slice(body);
    Behaviour::Respond(bytes)
}

fn rule(text: &str) -> EgressRule {
    parse_rule(text).unwrap()
}

fn context(allow: &[&str], hosts: &[(&str, &[&str])]) -> NetContext {
    let egress = EgressPolicy {
        allow: allow.iter().map(|r| rule(r)).collect(),
        deny: Vec::new(),
        hosts: hosts
            .iter()
            .map(|(name, addrs)| StaticHost {
                name: (*name).to_owned(),
                addrs: addrs.iter().map(|a| a.parse().unwrap()).collect(),
            })
            .collect(),
        endpoints: Vec::new(),
    };
    // No test may reach a real resolver: names come from `[egress] hosts`.
    NetContext::with_resolver(egress, false, NameResolver::unconfigured())
}

fn request(url: String, profile: Profile) -> ExchangeRequest {
    ExchangeRequest {
        url,
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

/// A second bound around each test, so a regression hangs nothing.
async fn bounded<F: Future>(test: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(20), test)
        .await
        .expect("test exceeded its time bound")
}

const ALLOW_LOOPBACK: &str = "127.0.0.1:*";

// Verifies: REQ-SEC-010
#[tokio::test]
async fn returns_status_headers_and_body_of_a_200() {
    bounded(async {
        let server = TestServer::start(response("200 OK", "X-Test: yes\r\n", "hello")).await;
        let ctx = context(&[ALLOW_LOOPBACK], &[]);
        let url = format!("http://127.0.0.1:{}/path?q=1#frag", server.port());
        let resp = exchange(&ctx, request(url, Profile::Engine)).await.unwrap();
        assert_eq!(resp.status, 200);
        assert_eq!(resp.body, b"hello");
        assert!(
            resp.headers
                .iter()
                .any(|h| h.name == "x-test" && h.value == "yes")
        );
        assert_eq!(server.connections(), 1);
    })
    .await;
}

// Verifies: REQ-SEC-007
#[tokio::test]
async fn sends_one_get_with_host_the_given_headers_and_the_decoded_codings_only() {
    bounded(async {
        let server = TestServer::start(response("204 No Content", "", "")).await;
        let ctx = context(&[ALLOW_LOOPBACK], &[]);
        let port = server.port();
        let mut req = request(
            format!("http://127.0.0.1:{port}/a/b?c=d#frag"),
            Profile::Engine,
        );
        req.headers.push(Header {
            name: "Host".to_owned(),
            value: "evil.example".to_owned(),
        });
        req.headers.push(Header {
            name: "accept-encoding".to_owned(),
            value: "gzip".to_owned(),
        });
        let resp = exchange(&ctx, req).await.unwrap();
        assert_eq!(resp.status, 204);
        let heads = server.heads.lock().unwrap().clone();
        assert_eq!(heads.len(), 1);
        let head = heads[0].to_ascii_lowercase();
        let lines: Vec<&str> = head.split("\r\n").filter(|l| !l.is_empty()).collect();
        assert_eq!(lines[0], "get /a/b?c=d http/1.1");
        let mut fields: Vec<&str> = lines[1..].to_vec();
        fields.sort_unstable();
        let host = format!("host: 127.0.0.1:{port}");
        let mut want = vec![
            "accept-encoding: gzip, deflate, br, zstd",
            host.as_str(),
            "user-agent: rypsok-test",
        ];
        want.sort_unstable();
        assert_eq!(fields, want);
    })
    .await;
}

// Verifies: REQ-SEC-010
#[tokio::test]
async fn stops_reading_a_body_past_its_bound() {
    bounded(async {
        let server = TestServer::start(Behaviour::Stream {
            total: 2 * 1024 * 1024,
        })
        .await;
        let ctx = context(&[ALLOW_LOOPBACK], &[]);
        let url = format!("http://127.0.0.1:{}/big", server.port());
        let got = exchange(&ctx, request(url, Profile::Engine)).await;
        assert_eq!(got.err(), Some(NetFailure::TooLarge));
    })
    .await;
}

// Verifies: REQ-SEC-010
#[tokio::test]
async fn refuses_a_declared_length_over_the_bound_without_reading_it() {
    bounded(async {
        let body = "x".repeat(70 * 1024);
        let server = TestServer::start(response("200 OK", "", &body)).await;
        let ctx = context(&[ALLOW_LOOPBACK], &[]);
        let url = format!("http://127.0.0.1:{}/declared", server.port());
        let got = exchange(&ctx, request(url, Profile::Engine)).await;
        assert_eq!(got.err(), Some(NetFailure::TooLarge));
    })
    .await;
}

// Verifies: REQ-SEC-011
#[tokio::test]
async fn times_out_within_the_deadline_when_the_server_never_answers() {
    bounded(async {
        let server = TestServer::start(Behaviour::Silent).await;
        let ctx = context(&[ALLOW_LOOPBACK], &[]);
        let mut req = request(
            format!("http://127.0.0.1:{}/slow", server.port()),
            Profile::Engine,
        );
        req.timeout_ms = 300;
        let started = Instant::now();
        let got = exchange(&ctx, req).await;
        let elapsed = started.elapsed();
        assert_eq!(got.err(), Some(NetFailure::Timeout));
        assert!(elapsed >= Duration::from_millis(300), "{elapsed:?}");
        assert!(elapsed < Duration::from_millis(1_500), "{elapsed:?}");
        assert_eq!(server.connections(), 1);
    })
    .await;
}

// Verifies: REQ-SEC-007
#[tokio::test]
async fn refuses_loopback_without_an_allow_rule_and_never_connects() {
    bounded(async {
        let server = TestServer::start(response("200 OK", "", "secret")).await;
        let ctx = context(&[], &[]);
        for url in [
            format!("http://127.0.0.1:{}/", server.port()),
            format!("https://127.0.0.1:{}/", server.port()),
            format!("https://[::ffff:127.0.0.1]:{}/", server.port()),
        ] {
            let got = exchange(&ctx, request(url, Profile::Engine)).await;
            assert_eq!(got.err(), Some(LOOPBACK_REFUSED));
        }
        assert_eq!(server.connections(), 0);
    })
    .await;
}

// Verifies: REQ-SEC-007
#[tokio::test]
async fn an_allow_rule_for_a_port_admits_loopback_on_that_port_only() {
    bounded(async {
        let server = TestServer::start(response("200 OK", "", "ok")).await;
        let port = server.port();
        let other_port = if port == u16::MAX { port - 1 } else { port + 1 };
        let ctx = context(&[&format!("127.0.0.1:{other_port}")], &[]);
        let got = exchange(
            &ctx,
            request(format!("http://127.0.0.1:{port}/"), Profile::Engine),
        )
        .await;
        assert_eq!(got.err(), Some(LOOPBACK_REFUSED));
        assert_eq!(server.connections(), 0);

        let ctx = context(&[&format!("127.0.0.1:{port}")], &[]);
        let resp = exchange(
            &ctx,
            request(format!("http://127.0.0.1:{port}/"), Profile::Engine),
        )
        .await
        .unwrap();
        assert_eq!(resp.body, b"ok");
        assert_eq!(server.connections(), 1);
    })
    .await;
}

// Verifies: REQ-SEC-017, REQ-SEC-007 (an engine endpoint written as a literal address, or as a name pinned in [egress] hosts, is reached without an allow rule under the engine-endpoint profile only)
#[tokio::test]
async fn admits_a_literal_or_pinned_engine_endpoint_without_an_allow_rule() {
    bounded(async {
        let server = TestServer::start(response("200 OK", "", "engine")).await;
        let port = server.port();
        let mut ctx = context(&[], &[("searx.test", &["127.0.0.1"])]);
        let endpoints = [
            EndpointHost::Addr("127.0.0.1".parse().unwrap()),
            EndpointHost::Name("searx.test"),
        ]
        .map(|host| ctx.egress.admit_endpoint(host, port).unwrap());
        ctx.egress.endpoints = endpoints.to_vec();
        for (sent, url) in [
            format!("http://127.0.0.1:{port}/search"),
            format!("http://searx.test:{port}/search"),
        ]
        .into_iter()
        .enumerate()
        {
            // Under any other profile the same URL stays refused, unsent.
            for profile in [Profile::Engine, Profile::Agent] {
                let got = exchange(&ctx, request(url.clone(), profile)).await;
                assert!(got.is_err(), "{url} {profile:?}");
            }
            assert_eq!(server.connections(), sent);
            let resp = exchange(&ctx, request(url.clone(), Profile::EngineEndpoint))
                .await
                .unwrap();
            assert_eq!(resp.body, b"engine", "{url}");
        }
        assert_eq!(server.connections(), 2);
        // A host or port the operator did not write as an endpoint is judged
        // as usual, whatever the request says.
        for url in [
            format!("http://[::1]:{port}/"),
            format!("http://127.0.0.2:{port}/"),
        ] {
            let got = exchange(&ctx, request(url.clone(), Profile::EngineEndpoint)).await;
            assert!(got.is_err(), "{url}");
        }
        assert_eq!(server.connections(), 2);
    })
    .await;
}

// Verifies: REQ-SEC-007
#[tokio::test]
async fn uses_the_static_host_answer_for_a_name() {
    bounded(async {
        let server = TestServer::start(response("200 OK", "", "static")).await;
        let ctx = context(&[ALLOW_LOOPBACK], &[("fixture.test", &["127.0.0.1"])]);
        let port = server.port();
        let resp = exchange(
            &ctx,
            request(format!("http://Fixture.Test.:{port}/"), Profile::Engine),
        )
        .await
        .unwrap();
        assert_eq!(resp.body, b"static");
        let head = server.heads.lock().unwrap()[0].to_ascii_lowercase();
        assert!(
            head.contains(&format!("\r\nhost: fixture.test:{port}\r\n")),
            "{head}"
        );
    })
    .await;
}

// Verifies: REQ-SEC-007
#[tokio::test]
async fn skips_refused_answers_and_connects_only_to_allowed_ones() {
    bounded(async {
        let server = TestServer::start(response("200 OK", "", "second")).await;
        // 10.0.0.1 is refused (private, no rule); 127.0.0.1 is allowed.
        let ctx = context(
            &[ALLOW_LOOPBACK],
            &[("fixture.test", &["10.0.0.1", "127.0.0.1"])],
        );
        let url = format!("http://fixture.test:{}/", server.port());
        let resp = exchange(&ctx, request(url, Profile::Engine)).await.unwrap();
        assert_eq!(resp.body, b"second");
        assert_eq!(server.connections(), 1);
    })
    .await;
}

// Verifies: REQ-SEC-007
#[tokio::test]
async fn a_name_with_only_refused_answers_is_refused_without_connecting() {
    bounded(async {
        let server = TestServer::start(response("200 OK", "", "secret")).await;
        let ctx = context(
            &[],
            &[(
                "internal.test",
                &["127.0.0.1", "::1", "::ffff:127.0.0.1", "169.254.169.254"],
            )],
        );
        let port = server.port();
        for (url, profile) in [
            (format!("http://internal.test:{port}/"), Profile::Engine),
            (format!("https://internal.test:{port}/"), Profile::Agent),
        ] {
            let got = exchange(&ctx, request(url, profile)).await;
            // The first answer's refusal is the one reported.
            assert_eq!(got.err(), Some(LOOPBACK_REFUSED), "{profile:?}");
        }
        assert_eq!(server.connections(), 0);
    })
    .await;
}

// Verifies: REQ-SEC-007
#[tokio::test]
async fn a_name_without_answers_fails_to_resolve() {
    bounded(async {
        let ctx = context(&[ALLOW_LOOPBACK], &[("empty.test", &[])]);
        let got = exchange(
            &ctx,
            request("https://empty.test/".to_owned(), Profile::Agent),
        )
        .await;
        assert_eq!(got.err(), Some(NetFailure::Resolve));
        let got = exchange(
            &ctx,
            request("https://unknown.test/".to_owned(), Profile::Agent),
        )
        .await;
        assert_eq!(got.err(), Some(NetFailure::Resolve));
    })
    .await;
}

// Verifies: REQ-SEC-007
#[tokio::test]
async fn a_tls_url_to_a_plain_tcp_server_fails_tls() {
    bounded(async {
        // A plain HTTP server answering whatever arrives, as a
        // misconfigured endpoint would.
        let server = TestServer::start(Behaviour::Blurt(
            b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n".to_vec(),
        ))
        .await;
        let ctx = context(&[ALLOW_LOOPBACK], &[]);
        let url = format!("https://127.0.0.1:{}/", server.port());
        let got = exchange(&ctx, request(url, Profile::Agent)).await;
        assert_eq!(got.err(), Some(NetFailure::Tls));
        assert_eq!(server.connections(), 1);
    })
    .await;
}

// Verifies: REQ-SEC-008
#[tokio::test]
async fn returns_a_redirect_without_following_it() {
    bounded(async {
        let target = TestServer::start(response("200 OK", "", "followed")).await;
        let location = format!("Location: http://127.0.0.1:{}/next\r\n", target.port());
        let server = TestServer::start(response("302 Found", &location, "")).await;
        let ctx = context(&[ALLOW_LOOPBACK], &[]);
        let url = format!("http://127.0.0.1:{}/", server.port());
        let resp = exchange(&ctx, request(url, Profile::Engine)).await.unwrap();
        assert_eq!(resp.status, 302);
        let want = format!("http://127.0.0.1:{}/next", target.port());
        let locations: Vec<&str> = resp
            .headers
            .iter()
            .filter(|h| h.name == "location")
            .map(|h| h.value.as_str())
            .collect();
        assert_eq!(locations, [want.as_str()]);
        assert_eq!(server.connections(), 1);
        assert_eq!(target.connections(), 0);
    })
    .await;
}

// Verifies: REQ-SEC-006
#[tokio::test]
async fn refuses_urls_that_cannot_be_requested_under_the_profile() {
    bounded(async {
        let server = TestServer::start(response("200 OK", "", "x")).await;
        let ctx = context(&[ALLOW_LOOPBACK], &[("fixture.test", &["127.0.0.1"])]);
        let port = server.port();
        let rows = [
            (
                "agent http",
                format!("http://127.0.0.1:{port}/"),
                Profile::Agent,
            ),
            ("ftp", format!("ftp://127.0.0.1:{port}/"), Profile::Engine),
            ("not a url", "no scheme".to_owned(), Profile::Engine),
            (
                "credentials",
                format!("http://user:pw@127.0.0.1:{port}/"),
                Profile::Engine,
            ),
            (
                "empty label",
                format!("http://fixture..test:{port}/"),
                Profile::Engine,
            ),
            (
                "two root dots",
                format!("http://fixture.test..:{port}/"),
                Profile::Engine,
            ),
        ];
        for (row, url, profile) in rows {
            let got = exchange(&ctx, request(url, profile)).await;
            assert_eq!(got.err(), Some(NetFailure::InvalidUrl), "row {row}");
        }
        assert_eq!(server.connections(), 0);
    })
    .await;
}

// Verifies: REQ-SEC-007
#[tokio::test]
async fn a_deny_rule_by_name_refuses_before_resolution() {
    bounded(async {
        let server = TestServer::start(response("200 OK", "", "x")).await;
        let mut ctx = context(&[ALLOW_LOOPBACK], &[("blocked.test", &["127.0.0.1"])]);
        ctx.egress.deny.push(EgressRule {
            target: RuleTarget::Host("blocked.test".to_owned()),
            port: RulePort::Any,
        });
        let url = format!("http://blocked.test:{}/", server.port());
        let got = exchange(&ctx, request(url, Profile::Engine)).await;
        assert_eq!(got.err(), Some(NetFailure::Refused(Refusal::DenyRule)));
        assert_eq!(server.connections(), 0);
    })
    .await;
}

// Verifies: REQ-SEC-010
#[test]
fn keeps_bounded_utf8_headers_with_lower_case_names() {
    let mut map = http::HeaderMap::new();
    map.insert("X-Short", HeaderValue::from_static("ok"));
    map.insert(
        "x-long",
        HeaderValue::from_str(&"v".repeat(MAX_HEADER_VALUE_BYTES + 1)).unwrap(),
    );
    map.insert("x-latin1", HeaderValue::from_bytes(b"caf\xe9").unwrap());
    map.insert(
        "x-utf8",
        HeaderValue::from_bytes("café".as_bytes()).unwrap(),
    );
    for i in 0..100 {
        map.append(
            HeaderName::from_bytes(format!("x-many-{i}").as_bytes()).unwrap(),
            HeaderValue::from_static("1"),
        );
    }
    let kept = keep_headers(&map, false);
    assert_eq!(kept.len(), MAX_RESPONSE_HEADERS);
    assert!(kept.iter().any(|h| h.name == "x-short" && h.value == "ok"));
    assert!(kept.iter().any(|h| h.name == "x-utf8" && h.value == "café"));
    assert!(
        !kept
            .iter()
            .any(|h| h.name == "x-long" || h.name == "x-latin1")
    );
}

// Verifies: REQ-SEC-007
#[tokio::test]
async fn builds_its_context_from_the_system_configuration_without_network() {
    bounded(async {
        // Whatever the host's resolver configuration, building the context
        // neither fails nor queries anything; a refused literal proves the
        // context judges before any I/O.
        let ctx = NetContext::new(NetInit {
            egress: EgressPolicy::default(),
            agent_http: false,
            proxy: None,
            extra_roots: Vec::new(),
            pool: NetPool::default(),
        });
        let got = exchange(
            &ctx,
            request("https://10.0.0.1/".to_owned(), Profile::Agent),
        )
        .await;
        assert_eq!(
            got.err(),
            Some(NetFailure::Refused(Refusal::AddressClass(
                AddressClass::Private
            )))
        );
    })
    .await;
}

// Verifies: REQ-FETCH-010
#[tokio::test]
async fn an_agent_http_url_goes_out_only_when_the_operator_allowed_http() {
    bounded(async {
        let server = TestServer::start(response("200 OK", "", "plain")).await;
        let url = format!("http://127.0.0.1:{}/", server.port());
        let mut ctx = context(&[ALLOW_LOOPBACK], &[]);
        let got = exchange(&ctx, request(url.clone(), Profile::Agent)).await;
        assert_eq!(got.err(), Some(NetFailure::InvalidUrl));
        assert_eq!(server.connections(), 0);

        ctx.agent_http = true;
        let resp = exchange(&ctx, request(url, Profile::Agent)).await.unwrap();
        assert_eq!(resp.body, b"plain");
        assert_eq!(server.connections(), 1);
    })
    .await;
}

/// An agent's exchange over plain http under the fetch byte limit (LIM-F3).
fn agent_request(url: String) -> ExchangeRequest {
    ExchangeRequest {
        max_body_bytes: rypsok_proto::limits::FETCH_MAX_BYTES,
        pdf_max_body_bytes: None,
        timeout_ms: 10_000,
        ..request(url, Profile::Agent)
    }
}

fn agent_context() -> NetContext {
    let mut ctx = context(&[ALLOW_LOOPBACK], &[]);
    ctx.agent_http = true;
    ctx
}

// Verifies: REQ-SEC-010
#[tokio::test]
async fn a_gzip_bomb_of_one_gib_stops_at_the_fetch_limit() {
    bounded(async {
        // 1 GiB of zeros in about 1 MiB of gzip, built now.
        let bomb = crate::test_support::gzip_bomb(1024);
        assert!(bomb.len() < 4 << 20, "{}", bomb.len());
        let server = TestServer::start(response_bytes(
            "200 OK",
            "Content-Encoding: gzip\r\n",
            &bomb,
        ))
        .await;
        let url = format!("http://127.0.0.1:{}/bomb", server.port());
        let got = exchange(&agent_context(), agent_request(url)).await;
        assert_eq!(got.err(), Some(NetFailure::TooLarge));
    })
    .await;
}

// Verifies: REQ-SEC-010
#[tokio::test]
async fn every_offered_coding_decodes_and_loses_its_coding_headers() {
    bounded(async {
        use crate::test_support::{TestCoding, encode, sample_text};
        let text = sample_text(100 * 1024);
        for coding in TestCoding::ALL {
            let encoded = encode(coding, &text).await;
            let headers = format!(
                "Content-Encoding: {}\r\nX-Kept: yes\r\n",
                coding.header_value()
            );
            let server = TestServer::start(response_bytes("200 OK", &headers, &encoded)).await;
            let url = format!("http://127.0.0.1:{}/", server.port());
            let resp = exchange(&agent_context(), agent_request(url))
                .await
                .unwrap_or_else(|f| panic!("{coding:?}: {f:?}"));
            assert!(resp.body == text, "{coding:?}");
            let names: Vec<&str> = resp.headers.iter().map(|h| h.name.as_str()).collect();
            assert!(names.contains(&"x-kept"), "{coding:?}: {names:?}");
            let decoded = coding != TestCoding::Identity;
            assert_eq!(names.contains(&"content-encoding"), !decoded, "{coding:?}");
            assert_eq!(names.contains(&"content-length"), !decoded, "{coding:?}");
        }
    })
    .await;
}

// Verifies: REQ-SEC-010
#[tokio::test]
async fn a_coding_not_offered_is_refused_rather_than_passed_on() {
    bounded(async {
        for value in ["compress", "gzip, br", "x-custom"] {
            let headers = format!("Content-Encoding: {value}\r\n");
            let server = TestServer::start(response("200 OK", &headers, "garbage")).await;
            let url = format!("http://127.0.0.1:{}/", server.port());
            let got = exchange(&agent_context(), agent_request(url)).await;
            assert_eq!(got.err(), Some(NetFailure::Protocol), "{value}");
        }
    })
    .await;
}

// Verifies: REQ-SEC-010
#[tokio::test]
async fn a_12_mib_body_is_too_large_for_a_fetch() {
    bounded(async {
        let server = TestServer::start(Behaviour::Stream {
            total: 12 * 1024 * 1024,
        })
        .await;
        let url = format!("http://127.0.0.1:{}/big", server.port());
        let got = exchange(&agent_context(), agent_request(url)).await;
        assert_eq!(got.err(), Some(NetFailure::TooLarge));
    })
    .await;
}

// Verifies: REQ-SEC-011
#[tokio::test]
async fn a_body_trickling_one_byte_a_second_ends_at_the_deadline() {
    bounded(async {
        let server = TestServer::start(Behaviour::Trickle {
            length: 1000,
            every: Duration::from_secs(1),
        })
        .await;
        let url = format!("http://127.0.0.1:{}/slow", server.port());
        let req = ExchangeRequest {
            timeout_ms: 2_500,
            ..agent_request(url)
        };
        let started = Instant::now();
        let got = exchange(&agent_context(), req).await;
        let elapsed = started.elapsed();
        assert_eq!(got.err(), Some(NetFailure::Timeout));
        assert!(elapsed >= Duration::from_millis(2_500), "{elapsed:?}");
        assert!(elapsed < Duration::from_millis(5_000), "{elapsed:?}");
    })
    .await;
}

// Verifies: REQ-SEC-010
#[tokio::test]
async fn an_overfull_or_oversized_response_head_is_a_protocol_failure() {
    bounded(async {
        let many: String = (0..MAX_WIRE_HEADERS + 10)
            .map(|i| format!("X-Many-{i}: 1\r\n"))
            .collect();
        let long = format!(
            "X-Long: {}\r\n",
            "v".repeat(2 * MAX_RESPONSE_HEAD_BYTES + 1)
        );
        for (row, headers) in [("many", many), ("long", long)] {
            let server = TestServer::start(response("200 OK", &headers, "x")).await;
            let url = format!("http://127.0.0.1:{}/", server.port());
            let got = exchange(&agent_context(), agent_request(url)).await;
            assert_eq!(got.err(), Some(NetFailure::Protocol), "{row}");
        }
    })
    .await;
}

// Verifies: REQ-SEC-011
#[tokio::test]
async fn a_tls_handshake_that_never_finishes_gives_way_to_the_next_address_after_lim_f6() {
    bounded(async {
        // The same port on 127.0.0.1 (accepts, never speaks) and 127.0.0.2
        // (answers plain HTTP at once, so its TLS fails): a name answering
        // both reaches the second once LIM-F6 has passed on the first.
        let mut pair = None;
        for _ in 0..20 {
            let silent = TestServer::start(Behaviour::Silent).await;
            let second: SocketAddr = format!("127.0.0.2:{}", silent.port()).parse().unwrap();
            let blurt = Behaviour::Blurt(b"HTTP/1.1 400 Bad Request\r\n\r\n".to_vec());
            if let Some(other) = TestServer::start_at(second, blurt).await {
                pair = Some((silent, other));
                break;
            }
        }
        let (silent, other) = pair.expect("no port free on both loopback addresses");
        let port = silent.port();
        let ctx = context(
            &["127.0.0.0/8:*"],
            &[
                ("two.test", &["127.0.0.1", "127.0.0.2"]),
                ("one.test", &["127.0.0.1"]),
            ],
        );
        let per_address = Duration::from_millis(CONNECT_TIMEOUT_MS);
        let two = async {
            let started = Instant::now();
            let got = exchange(&ctx, agent_request(format!("https://two.test:{port}/"))).await;
            (got.err(), started.elapsed())
        };
        let one = async {
            let started = Instant::now();
            let got = exchange(&ctx, agent_request(format!("https://one.test:{port}/"))).await;
            (got.err(), started.elapsed())
        };
        let ((two, two_elapsed), (one, one_elapsed)) = tokio::join!(two, one);
        assert_eq!(two, Some(NetFailure::Tls));
        assert!(two_elapsed >= per_address, "{two_elapsed:?}");
        assert_eq!(one, Some(NetFailure::Connect));
        assert!(one_elapsed >= per_address, "{one_elapsed:?}");
        assert!(one_elapsed < per_address * 2, "{one_elapsed:?}");
        assert_eq!(silent.connections(), 2);
        assert_eq!(other.connections(), 1);
    })
    .await;
}

/// Where the child process of [`environment_proxies_are_ignored`] finds
/// its target server.
const PROXY_TEST_TARGET: &str = "RYPSOK_TEST_PROXY_TARGET";

// Verifies: REQ-SEC-017
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn environment_proxies_are_ignored() {
    bounded(async {
        let target = TestServer::start(response("200 OK", "", "direct")).await;
        // Speaks plain HTTP at once: a TLS client reaching it fails fast.
        let tls_target = TestServer::start(Behaviour::Blurt(
            b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n".to_vec(),
        ))
        .await;
        let proxy = TestServer::start(response("200 OK", "", "proxied")).await;
        let proxy_url = format!("http://127.0.0.1:{}", proxy.port());
        // The test reruns itself in a child with a proxy environment.
        #[allow(clippy::disallowed_methods)]
        let mut child = std::process::Command::new(std::env::current_exe().unwrap());
        child
            .args([
                "--exact",
                "exchange::tests::exchange_under_proxy_environment",
                "--ignored",
                "--test-threads=1",
            ])
            .env(
                PROXY_TEST_TARGET,
                format!("{},{}", target.port(), tls_target.port()),
            );
        for var in [
            "HTTP_PROXY",
            "http_proxy",
            "HTTPS_PROXY",
            "https_proxy",
            "ALL_PROXY",
            "all_proxy",
        ] {
            child.env(var, &proxy_url);
        }
        child.env_remove("NO_PROXY").env_remove("no_proxy");
        let output = tokio::task::spawn_blocking(move || child.output())
            .await
            .unwrap()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(output.status.success(), "{stdout}");
        assert!(
            stdout.contains("1 passed"),
            "the child ran no test: {stdout}"
        );
        // The http and the https exchange each went straight to its target.
        assert_eq!(target.connections(), 1);
        assert_eq!(tls_target.connections(), 1);
        assert_eq!(proxy.connections(), 0);
    })
    .await;
}

/// Run only by [`environment_proxies_are_ignored`], in a child process
/// whose environment names a proxy.
#[tokio::test]
#[ignore = "run in a child process by environment_proxies_are_ignored"]
async fn exchange_under_proxy_environment() {
    let Some(ports) = std::env::var(PROXY_TEST_TARGET).ok() else {
        return;
    };
    let (port, tls_port) = ports.split_once(',').unwrap();
    assert!(std::env::var_os("HTTP_PROXY").is_some());
    let ctx = context(&[ALLOW_LOOPBACK], &[("proxied.test", &["127.0.0.1"])]);
    let resp = exchange(
        &ctx,
        request(format!("http://proxied.test:{port}/"), Profile::Engine),
    )
    .await
    .unwrap();
    assert_eq!(resp.body, b"direct");
    // The target speaks no TLS: reaching it at all is what counts.
    let got = exchange(
        &ctx,
        request(format!("https://proxied.test:{tls_port}/"), Profile::Agent),
    )
    .await;
    assert_eq!(got.err(), Some(NetFailure::Tls));
}

// Verifies: REQ-SEC-006
#[tokio::test]
async fn an_agent_request_carries_only_rypsoks_own_headers() {
    bounded(async {
        let server = TestServer::start(response("204 No Content", "", "")).await;
        let port = server.port();
        let mut req = agent_request(format!("http://127.0.0.1:{port}/"));
        for (name, value) in [
            ("Accept", "text/markdown, text/html;q=0.9"),
            ("Accept-Language", "en"),
            ("Authorization", "Bearer secret"),
            ("Cookie", "a=b"),
            ("X-Subscription-Token", "secret"),
        ] {
            req.headers.push(Header {
                name: name.to_owned(),
                value: value.to_owned(),
            });
        }
        let resp = exchange(&agent_context(), req).await.unwrap();
        assert_eq!(resp.status, 204);
        let head = server.heads.lock().unwrap()[0].to_ascii_lowercase();
        let mut fields: Vec<&str> = head
            .split("\r\n")
            .skip(1)
            .filter(|l| !l.is_empty())
            .collect();
        fields.sort_unstable();
        let host = format!("host: 127.0.0.1:{port}");
        let mut want = vec![
            "accept: text/markdown, text/html;q=0.9",
            "accept-encoding: gzip, deflate, br, zstd",
            "accept-language: en",
            host.as_str(),
            "user-agent: rypsok-test",
        ];
        want.sort_unstable();
        assert_eq!(fields, want);
    })
    .await;
}

// Verifies: REQ-SEC-008
#[tokio::test]
async fn a_redirect_is_returned_whatever_its_body() {
    bounded(async {
        let location = "Location: /elsewhere?a=1&b=%20\r\n";
        let rows = [
            (
                "undecodable",
                response(
                    "301 Moved Permanently",
                    &format!("{location}Content-Encoding: x-custom\r\n"),
                    "garbage",
                ),
            ),
            (
                "oversized",
                response("307 Temporary Redirect", location, &"x".repeat(128 * 1024)),
            ),
        ];
        for (row, behaviour) in rows {
            let server = TestServer::start(behaviour).await;
            let url = format!("http://127.0.0.1:{}/", server.port());
            let req = ExchangeRequest {
                max_body_bytes: 1024,
                pdf_max_body_bytes: None,
                ..agent_request(url)
            };
            let resp = exchange(&agent_context(), req).await.unwrap();
            assert!(resp.status == 301 || resp.status == 307, "{row}");
            assert!(resp.body.is_empty(), "{row}");
            let location: Vec<&str> = resp
                .headers
                .iter()
                .filter(|h| h.name == "location")
                .map(|h| h.value.as_str())
                .collect();
            assert_eq!(location, ["/elsewhere?a=1&b=%20"], "{row}");
            assert!(
                !resp
                    .headers
                    .iter()
                    .any(|h| h.name == "content-encoding" || h.name == "content-length"),
                "{row}"
            );
        }
    })
    .await;
}

/// A keep-alive answer: no `Connection: close`.
fn kept(status_line: &str, extra_headers: &str, body: &[u8]) -> Behaviour {
    let mut bytes = format!(
        "HTTP/1.1 {status_line}\r\nContent-Length: {}\r\n{extra_headers}\r\n",
        body.len()
    )
    .into_bytes();
    bytes.extend_from_slice(body);
    Behaviour::KeepAlive(bytes)
}

// Verifies: REQ-SEC-007 (a connection is kept for its origin and profile, and reused)
#[tokio::test]
async fn exchanges_with_one_origin_share_one_kept_connection() {
    bounded(async {
        let server = TestServer::start(kept("200 OK", "", b"hello")).await;
        let ctx = agent_context();
        let url = |n: usize| format!("http://127.0.0.1:{}/page?n={n}", server.port());
        for n in 0..3 {
            let resp = exchange(&ctx, request(url(n), Profile::Engine))
                .await
                .unwrap();
            assert_eq!(resp.body, b"hello");
        }
        assert_eq!(server.connections(), 1);
        assert_eq!(server.heads.lock().unwrap().len(), 3);
        // The same origin under another profile never shares it: the
        // agent's fetch opens its own, and each is reused for its own.
        for n in 3..5 {
            exchange(&ctx, agent_request(url(n))).await.unwrap();
            exchange(&ctx, request(url(n), Profile::Engine))
                .await
                .unwrap();
        }
        assert_eq!(server.connections(), 2);
        assert_eq!(server.heads.lock().unwrap().len(), 7);
    })
    .await;
}

// Verifies: REQ-SEC-010 (a connection whose body was cut at its bound is closed, never reused)
#[tokio::test]
async fn a_body_cut_at_its_bound_closes_its_connection() {
    bounded(async {
        let body = vec![b'x'; 100 * 1024];
        // Chunked, so the cut happens while the body streams.
        let mut bytes = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec();
        bytes.extend_from_slice(format!("{:x}\r\n", body.len()).as_bytes());
        bytes.extend_from_slice(&body);
        bytes.extend_from_slice(b"\r\n0\r\n\r\n");
        let server = TestServer::start(Behaviour::KeepAlive(bytes)).await;
        let ctx = context(&[ALLOW_LOOPBACK], &[]);
        let url = format!("http://127.0.0.1:{}/big", server.port());
        for _ in 0..2 {
            let got = exchange(&ctx, request(url.clone(), Profile::Engine)).await;
            assert_eq!(got.err(), Some(NetFailure::TooLarge));
        }
        assert_eq!(server.connections(), 2);
        assert_eq!(ctx.pool.idle(), 0);
    })
    .await;
}

// Verifies: REQ-SEC-010 (a response without keep-alive closes its connection)
#[tokio::test]
async fn a_response_without_keep_alive_is_not_kept() {
    bounded(async {
        for (name, behaviour) in [
            ("close", kept("200 OK", "Connection: close\r\n", b"hi")),
            ("http/1.0", {
                let Behaviour::KeepAlive(mut bytes) = kept("200 OK", "", b"hi") else {
                    unreachable!()
                };
                bytes[..8].copy_from_slice(b"HTTP/1.0");
                Behaviour::KeepAlive(bytes)
            }),
        ] {
            let server = TestServer::start(behaviour).await;
            let ctx = context(&[ALLOW_LOOPBACK], &[]);
            let url = format!("http://127.0.0.1:{}/", server.port());
            for _ in 0..2 {
                let resp = exchange(&ctx, request(url.clone(), Profile::Engine))
                    .await
                    .unwrap();
                assert_eq!(resp.body, b"hi", "{name}");
            }
            assert_eq!(server.connections(), 2, "{name}");
        }
    })
    .await;
}

// Verifies: REQ-CFG-005 (pool_idle_per_origin = 0: every exchange opens its own connection)
#[tokio::test]
async fn with_reuse_off_every_exchange_opens_a_connection() {
    bounded(async {
        let server = TestServer::start(kept("200 OK", "", b"hello")).await;
        let ctx = context(&[ALLOW_LOOPBACK], &[]).with_pool(NetPool {
            idle_per_origin: 0,
            ..NetPool::default()
        });
        let url = format!("http://127.0.0.1:{}/", server.port());
        for _ in 0..3 {
            exchange(&ctx, request(url.clone(), Profile::Engine))
                .await
                .unwrap();
        }
        assert_eq!(server.connections(), 3);
    })
    .await;
}

// Verifies: REQ-SEC-007 (a kept connection the server closed meanwhile is replaced; the exchange succeeds)
#[tokio::test]
async fn a_kept_connection_closed_by_the_server_gives_way_to_a_new_one() {
    bounded(async {
        // Answers one request per connection, keep-alive promised, then
        // closes: the kept connection is dead when the next exchange
        // takes it.
        let once = kept("200 OK", "", b"hello");
        let Behaviour::KeepAlive(bytes) = once else {
            unreachable!()
        };
        let server = TestServer::start(Behaviour::Respond(bytes)).await;
        let ctx = context(&[ALLOW_LOOPBACK], &[]);
        let url = format!("http://127.0.0.1:{}/", server.port());
        for _ in 0..3 {
            let resp = exchange(&ctx, request(url.clone(), Profile::Engine))
                .await
                .unwrap();
            assert_eq!(resp.body, b"hello");
        }
        assert_eq!(server.connections(), 3);
    })
    .await;
}

// Verifies: REQ-SEC-010 (a redirect's connection is kept only when it has no body left unread)
#[tokio::test]
async fn a_redirect_keeps_its_connection_only_without_an_unread_body() {
    bounded(async {
        for (body, connections) in [("", 1), ("moved elsewhere", 2)] {
            let server = TestServer::start(kept(
                "301 Moved Permanently",
                "Location: https://example.org/next\r\n",
                body.as_bytes(),
            ))
            .await;
            let ctx = context(&[ALLOW_LOOPBACK], &[]);
            let url = format!("http://127.0.0.1:{}/old", server.port());
            for _ in 0..2 {
                let resp = exchange(&ctx, request(url.clone(), Profile::Engine))
                    .await
                    .unwrap();
                assert_eq!(resp.status, 301);
            }
            assert_eq!(server.connections(), connections, "body {body:?}");
        }
    })
    .await;
}
