//! Each worker's confinement, proved on this kernel against the real
//! binary (ARCHITECTURE.md "Three processes"; SECURITY.md; REQ-SEC-014,
//! REQ-SEC-020): the kernel's own view of every worker (`NoNewPrivs`,
//! `Seccomp`, limits, descriptors), and workers asked through the test-only
//! probes (rypsok_proto::probe, compiled in by this crate's dependencies)
//! to do what they must not: each is killed or refused, the call still ends
//! within its deadline, and the supervisor answers the next call.
//!
//! These tests expect Linux with seccomp and Landlock (ABI 4 or later);
//! where a layer is missing they fail and say which.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::support::{
    FakeHttp, Reply, Server, structured, wikipedia_config, wikipedia_config_with_deadline,
    workspace_file,
};

fn fixture() -> Vec<u8> {
    std::fs::read(workspace_file(
        "worker-parse/testdata/wikipedia/en_search_counter_strike_2021.json",
    ))
    .expect("fixture")
}

/// A server with one parser, its engine on a loopback fake.
fn server_for(fake: &FakeHttp) -> Server {
    server_with_deadline(fake, 1500)
}

fn server_with_deadline(fake: &FakeHttp, deadline_ms: u64) -> Server {
    let mut server = Server::start_armed(Some(&wikipedia_config_with_deadline(
        fake.port(),
        deadline_ms,
        "[limits]\nparse_workers = 1\n",
    )));
    server.initialize();
    assert_eq!(server.await_workers(2, Duration::from_secs(5)).len(), 2);
    server
}

/// Fails clearly when the binary was built without the probes.
fn assert_probe_ran(server: &Server, probe: &str) {
    assert!(
        server
            .await_log(
                &[("event", json!("probe")), ("probe", json!(probe))],
                Duration::from_secs(2)
            )
            .is_some(),
        "no probe ran: build the binary with `cargo build --workspace` (the probe feature)"
    );
}

/// The `worker_exited` line of the first `worker` the supervisor reaped.
fn await_exit(server: &Server, worker: &str) -> serde_json::Value {
    server
        .await_log(
            &[("event", json!("worker_exited")), ("worker", json!(worker))],
            Duration::from_secs(3),
        )
        .unwrap_or_else(|| panic!("the dead {worker} is reaped and logged"))
}

/// One search whose answer makes the parser attempt `probe`: the call ends
/// within its deadline with `unavailable`, the parser dies of `signal`,
/// and the next call, on a fresh parser, answers.
fn parser_dies_of(probe: &str, signal: &str) {
    parser_dies_of_within(probe, signal, 1500);
}

fn parser_dies_of_within(probe: &str, signal: &str, deadline_ms: u64) {
    let fake = FakeHttp::start(Reply::json(format!("RYPSOK-PROBE {probe}").as_bytes()));
    let mut server = server_with_deadline(&fake, deadline_ms);
    let started = Instant::now();
    let result = server.call("web_search", json!({"query": "counter strike"}));
    // The call's bound (deadline plus 300 ms), plus slack for a loaded machine.
    assert!(
        started.elapsed() < Duration::from_millis(deadline_ms + 1000),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(
        structured(&result)["error"]["kind"],
        json!("unavailable"),
        "{result}"
    );
    assert_probe_ran(&server, probe);
    let exited = await_exit(&server, "worker-parse");
    assert_eq!(exited["signal"], json!(signal), "{exited}");
    assert!(
        server
            .log()
            .iter()
            .all(|l| l["event"] != json!("probe_result")),
        "the forbidden operation returned instead of killing the parser"
    );

    fake.set_reply(Reply::json(&fixture()));
    let next = server.call("web_search", json!({"query": "counter strike"}));
    assert_eq!(structured(&next)["outcome"], json!("ok"), "{next}");
}

/// One search whose query makes worker-net attempt `probe`; returns the
/// server for further checks.
fn net_attempts(fake: &FakeHttp, probe: &str) -> Server {
    let mut server = server_for(fake);
    let started = Instant::now();
    let result = server.call(
        "web_search",
        json!({"query": format!("rypsok-probe-{probe}")}),
    );
    assert!(
        started.elapsed() < Duration::from_millis(2500),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(
        structured(&result)["error"]["kind"],
        json!("unavailable"),
        "{result}"
    );
    assert_probe_ran(
        &server,
        probe
            .split('-')
            .next()
            .filter(|p| *p == "connect")
            .unwrap_or(probe),
    );
    server
}

fn status_field(pid: u32, name: &str) -> String {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("status");
    status
        .lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(':'))
        .unwrap_or_else(|| panic!("{name} missing"))
        .trim()
        .to_owned()
}

fn fd_targets(pid: u32) -> Vec<(u32, String)> {
    let mut out: Vec<(u32, String)> = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .expect("fd dir")
        .filter_map(|e| {
            let e = e.ok()?;
            let fd = e.file_name().to_str()?.parse().ok()?;
            let target = std::fs::read_link(e.path()).ok()?;
            Some((fd, target.to_string_lossy().into_owned()))
        })
        .collect();
    out.sort();
    out
}

/// Inodes of the Unix sockets that have no name (not bound to a path or
/// an abstract address), from the worker's own view of the network.
fn unnamed_unix_sockets(pid: u32) -> BTreeSet<String> {
    let table = std::fs::read_to_string(format!("/proc/{pid}/net/unix")).expect("net/unix");
    table
        .lines()
        .skip(1)
        .filter_map(|l| {
            let fields: Vec<&str> = l.split_whitespace().collect();
            (fields.len() == 7).then(|| fields[6].to_owned())
        })
        .collect()
}

// Verifies: REQ-SEC-014, REQ-SEC-020 (every worker runs with no_new_privs and a seccomp filter, and says so at start-up)
#[test]
fn every_worker_runs_with_no_new_privs_and_a_seccomp_filter() {
    let mut server = Server::start_armed(None);
    server.initialize();
    let workers = server.await_workers(3, Duration::from_secs(5));
    assert_eq!(workers.len(), 3, "{workers:?}");
    for (kind, pid) in &workers {
        assert_eq!(status_field(*pid, "NoNewPrivs"), "1", "{kind}");
        assert_eq!(status_field(*pid, "Seccomp"), "2", "{kind}");
        // No capability left, even when the supervisor runs as root.
        for set in ["CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"] {
            assert_eq!(status_field(*pid, set), "0000000000000000", "{kind} {set}");
        }
        let started = server
            .await_log(
                &[("event", json!("worker_started")), ("pid", json!(pid))],
                Duration::from_secs(2),
            )
            .expect("worker_started line");
        assert_eq!(started["confinement"], json!("full"), "{started}");
        assert_eq!(started["seccomp"], json!("applied"), "{started}");
        assert_eq!(started["landlock"], json!("full"), "{started}");
        let net = if kind == "worker-net" {
            "connect_ports"
        } else {
            "no_tcp"
        };
        assert_eq!(started["landlock_net"], json!(net), "{started}");
    }
    // The supervisor itself is not confined by its workers' filters.
    assert_eq!(status_field(server.pid(), "Seccomp"), "0");
}

// Verifies: REQ-SEC-014 (LIM-W2 memory, no new processes, bounded descriptors, no core files)
#[test]
fn every_worker_runs_under_its_resource_limits() {
    let mut server = Server::start_armed(None);
    server.initialize();
    for (kind, pid) in server.await_workers(3, Duration::from_secs(5)) {
        let limits = std::fs::read_to_string(format!("/proc/{pid}/limits")).expect("limits");
        let soft = |name: &str| -> String {
            let line = limits
                .lines()
                .find(|l| l.starts_with(name))
                .unwrap_or_else(|| panic!("{name}"));
            line[name.len()..]
                .split_whitespace()
                .next()
                .unwrap_or_default()
                .to_owned()
        };
        assert_eq!(soft("Max address space"), "536870912", "{kind}");
        assert_eq!(soft("Max processes"), "0", "{kind}");
        assert_eq!(soft("Max core file size"), "0", "{kind}");
        let files: u64 = soft("Max open files").parse().expect("number");
        assert!(files <= 256, "{kind}: {files}");
    }
}

// Verifies: REQ-SEC-014 (a worker holds its two pipes, its own stderr pipe and its runtime's own descriptors: nothing inherited, no file, no named socket)
#[test]
fn every_worker_holds_only_its_pipes_stderr_and_runtime_descriptors() {
    let mut server = Server::start_armed(None);
    server.initialize();
    let supervisor = fd_targets(server.pid());
    let supervisor_stderr = supervisor
        .iter()
        .find(|(fd, _)| *fd == 2)
        .map(|(_, t)| t.clone())
        .expect("supervisor stderr");
    for (kind, pid) in server.await_workers(3, Duration::from_secs(5)) {
        let fds = fd_targets(pid);
        let unnamed = unnamed_unix_sockets(pid);
        for (fd, target) in &fds {
            match fd {
                0 | 1 => assert!(target.starts_with("pipe:"), "{kind} fd {fd}: {target}"),
                // Its own stderr pipe, relayed by the supervisor: not the
                // supervisor's stderr, so it cannot write as the supervisor.
                2 => {
                    assert!(target.starts_with("pipe:"), "{kind} fd 2: {target}");
                    assert_ne!(target, &supervisor_stderr, "{kind}");
                }
                _ => {
                    // The runtime's epoll and waker, and the unnamed socket
                    // pair of tokio's signal driver (part of its I/O driver
                    // whenever the binary uses signals, as the supervisor
                    // does): created by the worker after it closed what it
                    // inherited.
                    let runtime = target == "anon_inode:[eventpoll]"
                        || target == "anon_inode:[eventfd]"
                        || target
                            .strip_prefix("socket:[")
                            .and_then(|s| s.strip_suffix(']'))
                            .is_some_and(|inode| unnamed.contains(inode));
                    assert!(runtime, "{kind} fd {fd}: {target}");
                    // A socket names its inode: none is the supervisor's.
                    assert!(
                        target.starts_with("anon_inode:")
                            || supervisor.iter().all(|(_, t)| t != target),
                        "{kind} fd {fd} shares {target} with the supervisor"
                    );
                }
            }
        }
    }
}

// Verifies: REQ-SEC-014 (a parser that opens a file is killed by seccomp; the next call answers)
#[test]
fn parser_is_killed_when_it_opens_a_file() {
    parser_dies_of("open-file", "SIGSYS");
}

// Verifies: REQ-SEC-014 (a parser that creates a socket is killed by seccomp; the next call answers)
#[test]
fn parser_is_killed_when_it_creates_a_socket() {
    parser_dies_of("socket", "SIGSYS");
}

// Verifies: REQ-SEC-014 (a parser that executes a program is killed by seccomp; the next call answers)
#[test]
fn parser_is_killed_when_it_executes_a_program() {
    parser_dies_of("exec", "SIGSYS");
}

// Verifies: REQ-SEC-014 (a parser that forks is killed by seccomp; the next call answers)
#[test]
fn parser_is_killed_when_it_forks() {
    parser_dies_of("fork", "SIGSYS");
}

// Verifies: REQ-SEC-014 (a parser that starts a thread is killed by seccomp; the next call answers)
#[test]
fn parser_is_killed_when_it_starts_a_thread() {
    parser_dies_of("thread", "SIGSYS");
}

// Verifies: REQ-SEC-014, REQ-PAGE-008 (a memory bomb ends at LIM-W2: the parser aborts, the call answers unavailable in time, the next call answers)
#[test]
fn parser_fed_a_memory_bomb_dies_at_its_limit_within_the_deadline() {
    // Touching 512 MiB takes a moment on a loaded machine: a longer deadline
    // keeps the limit, not the deadline, the thing that ends the parser.
    parser_dies_of_within("allocate", "SIGABRT", 6000);
}

// Verifies: REQ-SEC-014 (worker-net may not open files, execute or fork: killed, replaced, the next call answers)
#[test]
fn worker_net_is_killed_when_it_opens_a_file_executes_or_forks() {
    let fake = FakeHttp::start(Reply::json(&fixture()));
    for probe in ["open-file", "exec", "fork"] {
        let mut server = net_attempts(&fake, probe);
        let exited = await_exit(&server, "worker-net");
        assert_eq!(exited["signal"], json!("SIGSYS"), "{probe}: {exited}");
        let next = server.call("web_search", json!({"query": "counter strike"}));
        assert_eq!(structured(&next)["outcome"], json!("ok"), "{probe}: {next}");
    }
}

// Verifies: REQ-SEC-007, REQ-SEC-014 (Landlock: worker-net binds no TCP port and connects only to ports its policy admits)
#[test]
fn worker_net_cannot_bind_or_connect_outside_its_ports() {
    const EACCES: i64 = 13;
    let fake = FakeHttp::start(Reply::json(&fixture()));
    // A loopback port nothing in the policy admits, and nothing listens on.
    let unlisted = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        l.local_addr().expect("addr").port()
    };
    let cases = [
        ("bind-tcp".to_owned(), Some(EACCES)),
        (format!("connect-{unlisted}"), Some(EACCES)),
        // The policy's own port: Landlock lets it through.
        (format!("connect-{}", fake.port()), None),
    ];
    for (probe, errno) in cases {
        let server = net_attempts(&fake, &probe);
        let result = server
            .await_log(&[("event", json!("probe_result"))], Duration::from_secs(2))
            .expect("the probe returned: Landlock refuses, it does not kill");
        match errno {
            Some(errno) => {
                assert_eq!(result["outcome"], json!("denied"), "{probe}: {result}");
                assert_eq!(result["errno"], json!(errno), "{probe}: {result}");
            }
            None => assert_eq!(result["outcome"], json!("succeeded"), "{probe}: {result}"),
        }
    }
}

// Verifies: REQ-SEC-020 (a test build not started by the tests ignores probe markers: no worker dies)
#[test]
fn probe_markers_are_ignored_unless_the_tests_arm_them() {
    let fake = FakeHttp::start(Reply::json(b"RYPSOK-PROBE exec"));
    let mut server = Server::start(Some(&wikipedia_config(
        fake.port(),
        "[limits]\nparse_workers = 1\n",
    )));
    server.initialize();
    let before = server.await_workers(2, Duration::from_secs(5));
    let result = server.call("web_search", json!({"query": "rypsok-probe-fork"}));
    // The marker answer is not an answer Wikipedia's parser can read.
    assert_eq!(
        structured(&result)["error"]["detail"]["reason"],
        json!("all_failed"),
        "{result}"
    );
    let mut after = server.workers();
    after.sort_unstable();
    let mut before = before;
    before.sort_unstable();
    assert_eq!(before, after, "no worker died");
    assert!(!server.log().iter().any(|l| l["event"] == json!("probe")));
}
