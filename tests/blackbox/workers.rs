//! The three processes (ARCHITECTURE.md "Three processes"; REQ-SEC-014):
//! a worker killed mid-call, no orphan after the supervisor ends, logs
//! tagged with their process.

use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::json;

use crate::support::{
    FakeHttp, Reply, Server, is_alive, structured, wikipedia_config, workspace_file,
};

fn pid_of(workers: &[(String, u32)], kind: &str) -> u32 {
    workers
        .iter()
        .find(|(k, _)| k == kind)
        .map(|(_, p)| *p)
        .unwrap_or_else(|| panic!("no {kind} in {workers:?}"))
}

fn signal(pid: u32, sig: Signal) {
    kill(Pid::from_raw(i32::try_from(pid).expect("pid")), sig)
        .expect("signal a process this test started");
}

// Verifies: REQ-SEC-014 (worker-net killed during a call: the call ends in time, the next call succeeds)
#[test]
fn survives_worker_net_killed_during_a_call() {
    let body = std::fs::read(workspace_file(
        "worker-parse/testdata/wikipedia/en_search_counter_strike_2021.json",
    ))
    .expect("fixture");
    let fake = FakeHttp::start(Reply::json(&body).delayed(Duration::from_millis(900)));
    let mut server = Server::start(Some(&wikipedia_config(fake.port(), "")));
    server.initialize();
    // One net worker and the default two parsers.
    let workers = server.await_workers(3, Duration::from_secs(5));
    let net = pid_of(&workers, "worker-net");

    let started = Instant::now();
    let id = server.send_request(
        "tools/call",
        json!({"name": "web_search", "arguments": {"query": "counter strike"}}),
    );
    while fake.seen().is_empty() && started.elapsed() < Duration::from_secs(3) {
        std::thread::sleep(Duration::from_millis(5));
    }
    signal(net, Signal::SIGKILL);
    let answer = server
        .response(id, Duration::from_secs(5))
        .expect("the call still ends");
    assert!(
        started.elapsed() < Duration::from_millis(1500 + 300 + 2000),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(
        answer["result"]["structuredContent"]["error"]["detail"]["reason"],
        json!("all_failed"),
        "{answer}"
    );

    fake.set_reply(Reply::json(&body));
    let next = server.call("web_search", json!({"query": "counter strike"}));
    assert_eq!(structured(&next)["outcome"], json!("ok"), "{next}");
    let replaced = pid_of(&server.workers(), "worker-net");
    assert_ne!(replaced, net, "a new worker-net serves the next call");
    let killed = server.await_log(
        &[("event", json!("worker_killed")), ("pid", json!(net))],
        Duration::from_secs(2),
    );
    assert!(killed.is_some(), "the supervisor logged the dead worker");
}

// Verifies: REQ-SEC-014 (a parser killed while idle is replaced before the next parse)
#[test]
fn replaces_a_dead_parser_on_the_next_call() {
    let body = std::fs::read(workspace_file(
        "worker-parse/testdata/wikipedia/de_search_hallo_2019.json",
    ))
    .expect("fixture");
    let fake = FakeHttp::start(Reply::json(&body));
    let mut server = Server::start(Some(&wikipedia_config(
        fake.port(),
        "[limits]\nparse_workers = 1\n",
    )));
    server.initialize();
    let workers = server.await_workers(2, Duration::from_secs(5));
    signal(pid_of(&workers, "worker-parse"), Signal::SIGKILL);
    // The death may be noticed only when the next parse is sent; either way
    // no call hangs, and one after it succeeds.
    let mut outcomes = Vec::new();
    for _ in 0..2 {
        let r = server.call("web_search", json!({"query": "hallo"}));
        outcomes.push(structured(&r)["outcome"].clone());
    }
    assert_eq!(outcomes.last(), Some(&json!("ok")), "{outcomes:?}");
}

// Verifies: REQ-OPS-002, REQ-MCP-002 (no worker outlives the supervisor after end of input)
#[test]
fn leaves_no_process_after_end_of_input() {
    let mut server = Server::start(None);
    server.initialize();
    let workers = server.await_workers(3, Duration::from_secs(5));
    assert_eq!(workers.len(), 3, "{workers:?}");
    let status = server
        .close_and_wait(Duration::from_secs(5))
        .expect("supervisor exits");
    assert!(status.success());
    let until = Instant::now() + Duration::from_secs(2);
    while workers.iter().any(|(_, p)| is_alive(*p)) && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(10));
    }
    let alive: Vec<_> = workers.iter().filter(|(_, p)| is_alive(*p)).collect();
    assert!(alive.is_empty(), "orphans: {alive:?}");
}

// Verifies: REQ-OPS-002 (SIGTERM shuts down cleanly, workers included)
#[test]
fn shuts_down_cleanly_on_sigterm() {
    let mut server = Server::start(None);
    server.initialize();
    let workers = server.await_workers(3, Duration::from_secs(5));
    signal(server.pid(), Signal::SIGTERM);
    let status = server
        .wait(Duration::from_secs(5))
        .expect("supervisor exits on SIGTERM");
    assert!(status.success(), "{status:?}");
    let until = Instant::now() + Duration::from_secs(2);
    while workers.iter().any(|(_, p)| is_alive(*p)) && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(workers.iter().all(|(_, p)| !is_alive(*p)), "{workers:?}");
}

// Verifies: REQ-SEC-014 (a worker dies with its supervisor even when the supervisor is killed outright)
#[test]
fn workers_die_with_a_killed_supervisor() {
    let mut server = Server::start(None);
    server.initialize();
    let workers = server.await_workers(3, Duration::from_secs(5));
    signal(server.pid(), Signal::SIGKILL);
    let _ = server.wait(Duration::from_secs(5));
    let until = Instant::now() + Duration::from_secs(3);
    while workers.iter().any(|(_, p)| is_alive(*p)) && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(workers.iter().all(|(_, p)| !is_alive(*p)), "{workers:?}");
}

// Verifies: REQ-OBS-005, REQ-PRIV-004 (JSON log lines tagged by process; no query text at info)
#[test]
fn logs_json_lines_tagged_by_process_without_query_text() {
    let body = std::fs::read(workspace_file(
        "worker-parse/testdata/wikipedia/en_search_counter_strike_2021.json",
    ))
    .expect("fixture");
    let fake = FakeHttp::start(Reply::json(&body));
    let mut server = Server::start(Some(&wikipedia_config(fake.port(), "")));
    server.initialize();
    let marker = "zebra-quokka-secret-query";
    let _ = server.call("web_search", json!({"query": marker}));
    let _ = server.close_and_wait(Duration::from_secs(5));
    let raw = server.stderr.lock().expect("stderr").clone();
    assert!(!raw.is_empty());
    let mut processes = std::collections::BTreeSet::new();
    for line in &raw {
        let v: serde_json::Value =
            serde_json::from_str(line).unwrap_or_else(|_| panic!("not JSON: {line}"));
        for key in ["timestamp", "level", "process"] {
            assert!(v.get(key).is_some(), "{key} missing: {line}");
        }
        processes.insert(v["process"].as_str().unwrap_or_default().to_owned());
        assert!(!line.contains(marker), "query text logged: {line}");
        assert!(!line.contains("/w/api.php"), "URL path logged: {line}");
    }
    assert!(
        processes.contains("supervisor")
            && processes.contains("worker-net")
            && processes.contains("worker-parse"),
        "{processes:?}"
    );
    let done = raw.iter().any(|l| {
        l.contains("\"event\":\"call_done\"")
            && l.contains("\"request_id\"")
            && l.contains("\"caller\":\"stdio\"")
    });
    assert!(done, "the call's span fields are top-level keys");
}
