//! Kept connections (issue "warm connections"; ARCHITECTURE.md "Kept
//! connections"): a loopback site ([`FakeHttp::start_kept`]) that keeps
//! each connection open for as many requests as the client sends, and
//! counts the connections it accepted. Searches and fetches through all three processes must reuse
//! one connection, never one whose body was cut at its bound, and work
//! again after worker-net is replaced.

use std::sync::atomic::Ordering;
use std::time::Duration;

use nix::sys::signal::Signal;
use serde_json::{Value, json};

use crate::support::{
    FakeHttp, Reply, Server, TLS_ENGINE_NAME, start_tls_engine, structured, wikipedia_config,
    workspace_file,
};
use crate::workers::{pid_of, signal};

/// How many requests asked for `path` (query left out).
fn requests_for(site: &FakeHttp, path: &str) -> usize {
    site.seen()
        .iter()
        .filter(|seen| seen.target.split('?').next() == Some(path))
        .count()
}

fn connections(site: &FakeHttp) -> usize {
    site.connections.load(Ordering::Acquire)
}

const ENGINE_PATH: &str = "/w/api.php";

fn engine_answer() -> Reply {
    let body = std::fs::read(workspace_file(
        "worker-parse/testdata/wikipedia/en_search_counter_strike_2021.json",
    ))
    .expect("fixture");
    Reply::json(&body)
}

fn engine(extra: &str) -> (FakeHttp, Server) {
    let site = FakeHttp::start_kept(engine_answer());
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
    assert_eq!(requests_for(&site, ENGINE_PATH), 6);
    assert_eq!(connections(&site), 1);
}

// Verifies: REQ-CFG-005 (pool_idle_per_origin = 0: every request opens its own connection)
#[test]
fn with_reuse_off_six_searches_use_six_connections() {
    let (site, mut server) = engine("[limits]\npool_idle_per_origin = 0\n");
    for n in 0..6 {
        assert_ok(&search(&mut server, n));
    }
    assert_eq!(requests_for(&site, ENGINE_PATH), 6);
    assert_eq!(connections(&site), 6);
}

// Verifies: REQ-SEC-010 (a connection whose response was cut at its byte bound is never reused)
#[test]
fn a_connection_cut_at_the_byte_bound_is_not_reused() {
    let (site, mut server) = engine("");
    assert_ok(&search(&mut server, 0));
    // Past the engine answer's bound (1 MiB), streamed: cut while read.
    site.set_reply(Reply::json(&vec![b' '; 2 * 1024 * 1024]).chunked());
    let cut = search(&mut server, 1);
    assert_ne!(cut["outcome"], json!("ok"), "{cut}");
    assert_eq!(connections(&site), 1, "the first connection was reused");
    site.set_reply(engine_answer());
    assert_ok(&search(&mut server, 2));
    assert_eq!(requests_for(&site, ENGINE_PATH), 3);
    assert_eq!(connections(&site), 2, "the cut connection was not reused");
}

// Verifies: REQ-SEC-014, REQ-RES-009 (worker-net's connections go with it; the next search after a kill works)
#[test]
fn after_a_worker_net_kill_the_next_search_works_on_a_new_connection() {
    let (site, mut server) = engine("");
    let workers = server.await_workers(3, Duration::from_secs(5));
    let net = pid_of(&workers, "worker-net");
    assert_ok(&search(&mut server, 0));
    assert_ok(&search(&mut server, 1));
    assert_eq!(connections(&site), 1);
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
    assert_eq!(requests_for(&site, ENGINE_PATH), 4);
    assert_eq!(connections(&site), 2);
}

// Verifies: REQ-PERF-004, REQ-CMP-005 (three fetches of one page: one connection, one robots.txt request)
#[test]
fn three_fetches_of_one_page_use_one_connection_and_one_robots_request() {
    // robots.txt gets the page's text too: it holds no rule, so the page
    // may be read.
    let site = FakeHttp::start_kept(
        Reply::json(b"Hello, loopback.").with_status(200, "text/plain; charset=utf-8"),
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
    assert_eq!(requests_for(&site, "/robots.txt"), 1);
    assert_eq!(requests_for(&site, "/page.txt"), 3);
    assert_eq!(site.seen().len(), 4, "nothing else was asked");
    assert_eq!(connections(&site), 1);
}

// Verifies: REQ-PERF-004, REQ-SEC-007 (a new TLS connection to an engine seen before resumes its session; the certificate is still verified by name)
#[test]
fn a_new_tls_connection_to_the_same_engine_resumes_its_session() {
    let body = std::fs::read(workspace_file(
        "worker-parse/testdata/wikipedia/en_search_counter_strike_2021.json",
    ))
    .expect("fixture");
    let engine = start_tls_engine(body);
    let (port, resumed) = (engine.port, engine.resumed);
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
