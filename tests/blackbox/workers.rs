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

pub(crate) fn pid_of(workers: &[(String, u32)], kind: &str) -> u32 {
    workers
        .iter()
        .find(|(k, _)| k == kind)
        .map(|(_, p)| *p)
        .unwrap_or_else(|| panic!("no {kind} in {workers:?}"))
}

pub(crate) fn signal(pid: u32, sig: Signal) {
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

// Verifies: REQ-SEC-014, REQ-RES-004 (a storm of worker kills under load: no engine is blamed for them, restart backoff stays bounded, and searches and fetches work again within five seconds of the last kill)
#[test]
fn recovers_within_five_seconds_of_a_storm_of_worker_kills() {
    let body = std::fs::read(workspace_file(
        "worker-parse/testdata/wikipedia/en_search_counter_strike_2021.json",
    ))
    .expect("fixture");
    let engine = FakeHttp::start(Reply::json(&body));
    let site = FakeHttp::start(
        Reply::json(b"A plain page about the harbour bridge.\n").with_status(200, "text/plain"),
    );
    let config = format!(
        r#"config_version = 1
[service]
contact = "ops@example.org"
[search]
deadline_ms = 1500
grace_ms = 200
[fetch]
robots_txt = false
[egress]
allow_http = true
allow = ["127.0.0.1:{engine}", "127.0.0.1:{site}"]
[engines.wikipedia]
type = "wikipedia"
endpoint = "http://127.0.0.1:{engine}/w/api.php"
timeout_ms = 1200
"#,
        engine = engine.port(),
        site = site.port(),
    );
    let page = format!("http://127.0.0.1:{}/page.txt", site.port());
    let mut server = Server::start(Some(&config));
    server.initialize();
    server.await_workers(3, Duration::from_secs(5));

    // Twenty kills in about eight seconds, alternating worker-net and a
    // parser, each followed by a call.
    let storm = Instant::now();
    let mut kills = 0;
    for round in 0..20u32 {
        let kind = if round % 2 == 0 {
            "worker-net"
        } else {
            "worker-parse"
        };
        // The other kind when this one is between lives.
        let workers = server.workers();
        let victim = workers
            .iter()
            .find(|(k, _)| k == kind)
            .or_else(|| workers.first());
        if let Some((_, pid)) = victim.cloned() {
            signal(pid, Signal::SIGKILL);
            kills += 1;
        }
        if round % 2 == 0 {
            let _ = server.call("web_search", json!({"query": "counter strike"}));
        } else {
            let _ = server.call("web_fetch", json!({"url": page}));
        }
        let next = storm + Duration::from_millis(400) * (round + 1);
        if let Some(wait) = next.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
    }
    let last_kill = Instant::now();
    assert!(kills >= 12, "only {kills} kills");

    let (mut searched, mut fetched) = (None, None);
    while (searched.is_none() || fetched.is_none()) && last_kill.elapsed() < Duration::from_secs(5)
    {
        if searched.is_none() {
            let r = server.call("web_search", json!({"query": "counter strike"}));
            if structured(&r)["outcome"] == json!("ok") {
                searched = Some(last_kill.elapsed());
            }
        }
        if fetched.is_none() {
            let r = server.call("web_fetch", json!({"url": page}));
            if structured(&r)["outcome"] == json!("ok") {
                fetched = Some(last_kill.elapsed());
            }
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(
        searched.is_some() && fetched.is_some(),
        "five seconds after the last of {kills} kills: search {searched:?}, fetch {fetched:?}"
    );
    let status = server.call("engine_status", json!({}));
    assert_eq!(
        structured(&status)["engines"][0]["state"],
        json!("closed"),
        "the kills were blamed on the engine: {status}"
    );
}
