//! The allow-lists as data: each compiles, names each call once, and leaves
//! out what the design forbids.

use rypsok_egress::parse_rule;

use super::*;

fn numbers(kind: WorkerKind) -> Vec<libc::c_long> {
    allow_list(kind).iter().map(|a| a.nr).collect()
}

// Verifies: REQ-SEC-020 (both allow-lists compile to BPF for this machine)
#[test]
fn both_allow_lists_compile() {
    for kind in [WorkerKind::Net, WorkerKind::Parse] {
        let program = compile(&allow_list(kind)).unwrap();
        assert!(!program.is_empty());
    }
}

// Verifies: REQ-SEC-020 (an allow-list names each system call once)
#[test]
fn allow_lists_name_each_call_once() {
    for kind in [WorkerKind::Net, WorkerKind::Parse] {
        let all = numbers(kind);
        let unique: BTreeSet<_> = all.iter().collect();
        assert_eq!(unique.len(), all.len(), "{kind:?}");
    }
}

// Verifies: REQ-SEC-014 (worker-parse: no file, no socket, no exec, no process, no ptrace)
#[test]
fn parse_list_has_no_file_network_process_or_debug_call() {
    let parse = numbers(WorkerKind::Parse);
    let forbidden = [
        libc::SYS_openat,
        libc::SYS_openat2,
        libc::SYS_socket,
        libc::SYS_socketpair,
        libc::SYS_connect,
        libc::SYS_bind,
        libc::SYS_listen,
        libc::SYS_execve,
        libc::SYS_execveat,
        libc::SYS_clone,
        libc::SYS_clone3,
        libc::SYS_ptrace,
        libc::SYS_process_vm_readv,
        libc::SYS_kill,
        libc::SYS_ioctl,
        libc::SYS_prctl,
        libc::SYS_seccomp,
        libc::SYS_bpf,
        libc::SYS_io_uring_setup,
        libc::SYS_userfaultfd,
    ];
    for nr in forbidden {
        assert!(!parse.contains(&nr), "worker-parse allows {nr}");
    }
}

// Verifies: REQ-SEC-014 (worker-net: sockets, but no file, no exec, no process, no listening)
#[test]
fn net_list_has_no_file_process_or_listening_call() {
    let net = numbers(WorkerKind::Net);
    for nr in [
        libc::SYS_openat,
        libc::SYS_openat2,
        libc::SYS_execve,
        libc::SYS_execveat,
        libc::SYS_clone,
        libc::SYS_clone3,
        libc::SYS_ptrace,
        libc::SYS_listen,
        libc::SYS_accept4,
        libc::SYS_socketpair,
        libc::SYS_ioctl,
    ] {
        assert!(!net.contains(&nr), "worker-net allows {nr}");
    }
    // Everything the parser may do, worker-net may do too.
    for nr in numbers(WorkerKind::Parse) {
        assert!(net.contains(&nr), "{nr}");
    }
}

// Verifies: REQ-SEC-007 (Landlock's connect ports follow the egress policy; `:*` lifts them)
#[test]
fn connect_ports_follow_the_allow_rules() {
    let mut policy = EgressPolicy::default();
    assert_eq!(
        connect_ports(&policy),
        Some(BTreeSet::from([DNS_PORT, 80, 443]))
    );
    policy.allow.push(parse_rule("127.0.0.1:8080").unwrap());
    policy.allow.push(parse_rule("example.org").unwrap());
    assert_eq!(
        connect_ports(&policy),
        Some(BTreeSet::from([DNS_PORT, 80, 443, 8080]))
    );
    // An engine endpoint admitted without an allow rule opens its port.
    policy.endpoints.push(rypsok_egress::AdmittedEndpoint {
        host: rypsok_egress::AdmittedHost::Addr("10.0.0.5".parse().unwrap()),
        port: 8888,
    });
    assert_eq!(
        connect_ports(&policy),
        Some(BTreeSet::from([DNS_PORT, 80, 443, 8080, 8888]))
    );
    policy.allow.push(parse_rule("*.example.org:*").unwrap());
    assert_eq!(connect_ports(&policy), None);
}
