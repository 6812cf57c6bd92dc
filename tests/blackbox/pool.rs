//! Kept connections (issue "warm connections"; ARCHITECTURE.md "Kept
//! connections"): a loopback site that keeps each connection open for as
//! many requests as the client sends, and counts the connections it
//! accepted. Searches and fetches through all three processes must reuse
//! one connection, never one whose body was cut at its bound, and work
//! again after worker-net is replaced.

use std::collections::HashMap;
use std::io::Write;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use nix::sys::signal::Signal;
use serde_json::{Value, json};

use crate::support::{
    Server, TLS_ENGINE_NAME, read_request_head, structured, tls_engine_config, wikipedia_config,
    workspace_file,
};
use crate::workers::{pid_of, signal};

/// A keep-alive HTTP/1.1 site: a whole response (head and body) per path,
/// 404 elsewhere; it answers every request on a connection until the
/// client closes it.
struct KeptSite {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    connections: Arc<AtomicUsize>,
    paths: Arc<Mutex<Vec<String>>>,
    routes: Arc<Mutex<HashMap<String, Vec<u8>>>>,
}

impl KeptSite {
    fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let addr = listener.local_addr().expect("local addr");
        let stop = Arc::new(AtomicBool::new(false));
        let connections: Arc<AtomicUsize> = Arc::default();
        let paths: Arc<Mutex<Vec<String>>> = Arc::default();
        let routes: Arc<Mutex<HashMap<String, Vec<u8>>>> = Arc::default();
        let (s, c, p, r) = (
            stop.clone(),
            connections.clone(),
            paths.clone(),
            routes.clone(),
        );
        thread::spawn(move || {
            for stream in listener.incoming() {
                if s.load(Ordering::Acquire) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                c.fetch_add(1, Ordering::AcqRel);
                let (p, r) = (p.clone(), r.clone());
                thread::spawn(move || serve(stream, &p, &r));
            }
        });
        Self {
            addr,
            stop,
            connections,
            paths,
            routes,
        }
    }

    fn port(&self) -> u16 {
        self.addr.port()
    }

    fn route(&self, path: &str, response: Vec<u8>) {
        self.routes
            .lock()
            .expect("routes")
            .insert(path.to_owned(), response);
    }

    fn connections(&self) -> usize {
        self.connections.load(Ordering::Acquire)
    }

    /// How many requests asked for `path` (query left out).
    fn requests_for(&self, path: &str) -> usize {
        self.paths
            .lock()
            .expect("paths")
            .iter()
            .filter(|p| *p == path)
            .count()
    }
}

impl Drop for KeptSite {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        #[allow(clippy::disallowed_methods)]
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_millis(200));
    }
}

fn serve(
    mut stream: TcpStream,
    paths: &Mutex<Vec<String>>,
    routes: &Mutex<HashMap<String, Vec<u8>>>,
) {
    // One request after another until the client closes (or stays silent
    // for the head's 5 s).
    while let Some((target, _headers)) = read_request_head(&mut stream) {
        let path = target.split('?').next().unwrap_or_default().to_owned();
        paths.lock().expect("paths").push(path.clone());
        let response = routes
            .lock()
            .expect("routes")
            .get(&path)
            .cloned()
            .unwrap_or_else(|| answer(404, "text/plain", b"not here"));
        if stream.write_all(&response).is_err() {
            return;
        }
    }
}

/// A keep-alive answer with its length.
fn answer(status: u16, content_type: &str, body: &[u8]) -> Vec<u8> {
    let mut bytes = format!(
        "HTTP/1.1 {status} X\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    bytes.extend_from_slice(body);
    bytes
}

/// A keep-alive answer whose body is sent chunked, so that its size shows
/// only while it streams.
fn chunked(content_type: &str, body: &[u8]) -> Vec<u8> {
    let mut bytes = format!(
        "HTTP/1.1 200 X\r\ncontent-type: {content_type}\r\ntransfer-encoding: chunked\r\n\r\n{:x}\r\n",
        body.len()
    )
    .into_bytes();
    bytes.extend_from_slice(body);
    bytes.extend_from_slice(b"\r\n0\r\n\r\n");
    bytes
}

const ENGINE_PATH: &str = "/w/api.php";

fn engine_answer() -> Vec<u8> {
    let body = std::fs::read(workspace_file(
        "worker-parse/testdata/wikipedia/en_search_counter_strike_2021.json",
    ))
    .expect("fixture");
    answer(200, "application/json; charset=utf-8", &body)
}

fn engine(extra: &str) -> (KeptSite, Server) {
    let site = KeptSite::start();
    site.route(ENGINE_PATH, engine_answer());
    let mut server = Server::start(Some(&wikipedia_config(site.port(), extra)));
    server.initialize();
    (site, server)
}

fn search(server: &mut Server, n: usize) -> Value {
    let result = server.call(
        "web_search",
        json!({ "query": format!("counter strike {n}") }),
    );
    structured(&result).clone()
}

fn assert_ok(answer: &Value) {
    assert_eq!(answer["outcome"], json!("ok"), "{answer}");
}

// Verifies: REQ-PERF-004 (engine connections are kept between searches)
#[test]
fn six_searches_against_one_engine_use_one_connection() {
    let (site, mut server) = engine("");
    for n in 0..6 {
        assert_ok(&search(&mut server, n));
    }
    assert_eq!(site.requests_for(ENGINE_PATH), 6);
    assert_eq!(site.connections(), 1);
}

// Verifies: REQ-CFG-005 (pool_idle_per_origin = 0: every request opens its own connection)
#[test]
fn with_reuse_off_six_searches_use_six_connections() {
    let (site, mut server) = engine("[limits]\npool_idle_per_origin = 0\n");
    for n in 0..6 {
        assert_ok(&search(&mut server, n));
    }
    assert_eq!(site.requests_for(ENGINE_PATH), 6);
    assert_eq!(site.connections(), 6);
}

// Verifies: REQ-SEC-010 (a connection whose response was cut at its byte bound is never reused)
#[test]
fn a_connection_cut_at_the_byte_bound_is_not_reused() {
    let (site, mut server) = engine("");
    assert_ok(&search(&mut server, 0));
    // Past the engine answer's bound (1 MiB), streamed: cut while read.
    site.route(
        ENGINE_PATH,
        chunked("application/json", &vec![b' '; 2 * 1024 * 1024]),
    );
    let cut = search(&mut server, 1);
    assert_ne!(cut["outcome"], json!("ok"), "{cut}");
    assert_eq!(site.connections(), 1, "the first connection was reused");
    site.route(ENGINE_PATH, engine_answer());
    assert_ok(&search(&mut server, 2));
    assert_eq!(site.requests_for(ENGINE_PATH), 3);
    assert_eq!(site.connections(), 2, "the cut connection was not reused");
}

// Verifies: REQ-SEC-014, REQ-RES-009 (worker-net's connections go with it; the next search after a kill works)
#[test]
fn after_a_worker_net_kill_the_next_search_works_on_a_new_connection() {
    let (site, mut server) = engine("");
    let workers = server.await_workers(3, Duration::from_secs(5));
    let net = pid_of(&workers, "worker-net");
    assert_ok(&search(&mut server, 0));
    assert_ok(&search(&mut server, 1));
    assert_eq!(site.connections(), 1);
    signal(net, Signal::SIGKILL);
    // Once the supervisor has seen the worker go (a call sent in the
    // instant before may fail, as for any worker death).
    let seen = server.await_log(
        &[("event", json!("worker_killed")), ("pid", json!(net))],
        Duration::from_secs(5),
    );
    assert!(seen.is_some(), "the supervisor noticed the dead worker-net");
    assert_ok(&search(&mut server, 2));
    assert_ne!(pid_of(&server.workers(), "worker-net"), net);
    assert_ok(&search(&mut server, 3));
    assert_eq!(site.requests_for(ENGINE_PATH), 4);
    assert_eq!(site.connections(), 2);
}

// Verifies: REQ-PERF-004, REQ-CMP-005 (three fetches of one page: one connection, one robots.txt request)
#[test]
fn three_fetches_of_one_page_use_one_connection_and_one_robots_request() {
    let site = KeptSite::start();
    site.route(
        "/robots.txt",
        answer(200, "text/plain", b"User-agent: *\nDisallow: /private\n"),
    );
    site.route(
        "/page.txt",
        answer(200, "text/plain; charset=utf-8", b"Hello, loopback."),
    );
    let config = format!(
        "config_version = 1\n[service]\ncontact = \"ops@example.org\"\n[egress]\nallow_http = true\nallow = [\"127.0.0.1:{}\"]\n[egress.hosts]\n\"site0.test\" = [\"127.0.0.1\"]\n",
        site.port()
    );
    let mut server = Server::start(Some(&config));
    server.initialize();
    let url = format!("http://site0.test:{}/page.txt", site.port());
    for _ in 0..3 {
        let result = server.call("web_fetch", json!({ "url": url }));
        let answer = structured(&result);
        assert_ok(answer);
        assert_eq!(answer["content"], "Hello, loopback.");
    }
    assert_eq!(site.requests_for("/robots.txt"), 1);
    assert_eq!(site.requests_for("/page.txt"), 3);
    assert_eq!(site.connections(), 1);
}

/// A loopback https engine for [`TLS_ENGINE_NAME`] that answers one
/// request per connection and records whether each handshake resumed an
/// earlier session.
fn start_tls_engine(body: Vec<u8>, resumed: Arc<Mutex<Vec<bool>>>) -> u16 {
    use std::io::Read;

    let config = tls_engine_config();
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    let port = listener.local_addr().expect("local addr").port();
    thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            let (config, body, resumed) = (config.clone(), body.clone(), resumed.clone());
            thread::spawn(move || {
                let Ok(conn) = rustls::ServerConnection::new(config) else {
                    return;
                };
                let mut tls = rustls::StreamOwned::new(conn, stream);
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") && head.len() < 65_536 {
                    match tls.read(&mut byte) {
                        Ok(1) => head.push(byte[0]),
                        _ => return,
                    }
                }
                resumed
                    .lock()
                    .expect("resumed")
                    .push(tls.conn.handshake_kind() == Some(rustls::HandshakeKind::Resumed));
                let _ = tls.write_all(
                    format!(
                        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                        body.len()
                    )
                    .as_bytes(),
                );
                let _ = tls.write_all(&body);
                tls.conn.send_close_notify();
                let _ = tls.flush();
            });
        }
    });
    port
}

// Verifies: REQ-PERF-004, REQ-SEC-007 (a new TLS connection to an engine seen before resumes its session; the certificate is still verified by name)
#[test]
fn a_new_tls_connection_to_the_same_engine_resumes_its_session() {
    let body = std::fs::read(workspace_file(
        "worker-parse/testdata/wikipedia/en_search_counter_strike_2021.json",
    ))
    .expect("fixture");
    let resumed: Arc<Mutex<Vec<bool>>> = Arc::default();
    let port = start_tls_engine(body, resumed.clone());
    let ca = workspace_file("tests/certs/test-ca.pem");
    let config = format!(
        r#"config_version = 1
[service]
contact = "ops@example.org"
[egress]
allow = ["127.0.0.1:{port}"]
ca_file = {ca:?}
[egress.hosts]
"{TLS_ENGINE_NAME}" = ["127.0.0.1"]
[engines.wikipedia]
type = "wikipedia"
endpoint = "https://{TLS_ENGINE_NAME}:{port}/w/api.php"
"#,
        ca = ca.display().to_string()
    );
    let mut server = Server::start(Some(&config));
    server.initialize();
    for n in 0..3 {
        assert_ok(&search(&mut server, n));
    }
    // The engine closes each connection: three handshakes, the first in
    // full, the next two resumed from worker-net's session store.
    assert_eq!(*resumed.lock().expect("resumed"), [false, true, true]);
}
