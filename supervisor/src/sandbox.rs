//! Worker confinement (ARCHITECTURE.md "Three processes"; REQ-SEC-014,
//! REQ-SEC-020; SECURITY.md describes each boundary for reviewers).
//!
//! Each worker confines itself before it reads its first request, in this
//! order: every inherited descriptor but 0, 1 and 2 is closed (first thing
//! in its life, before it opens anything of its own); then, once its
//! runtime and pipes exist (and, for worker-net, once the resolver has read
//! its configuration), `PR_SET_NO_NEW_PRIVS`, resource limits, a Landlock
//! ruleset that grants no file system access (and, on kernels with network
//! rules, no TCP bind, and TCP connect only to ports the egress policy can
//! admit), and last a seccomp allow-list whose default action kills the
//! process. The result is a [`Confinement`] report that the worker sends in
//! its hello; the supervisor decides, from `[sandbox]`, whether a worker
//! missing a layer may serve.
//!
//! The allow-lists are one file per worker: [`parse`] and [`net`]. Every
//! kernel call goes through nix, landlock or seccompiler's safe wrappers,
//! except the two in [`kernel`], the one module that opts out of the
//! workspace's `unsafe_code` lint.

mod common;
mod net;
mod parse;

use std::collections::BTreeMap;
use std::collections::BTreeSet;

use landlock::{
    ABI, Access, AccessFs, AccessNet, LandlockStatus, NetPort, Ruleset, RulesetAttr,
    RulesetCreatedAttr, RulesetStatus, Scope,
};
use nix::sys::resource::{Resource, setrlimit};
use rypsok_egress::{EgressPolicy, RulePort};
use rypsok_proto::limits::{DEFAULT_PORTS, NET_WORKER_MEMORY_BYTES, PARSE_WORKER_MEMORY_BYTES};
use rypsok_proto::{Confinement, LandlockLevel, LandlockNet, SeccompLevel, WorkerKind};
use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

/// Descriptors worker-parse may hold: its pipes, stderr, the runtime's
/// epoll and waker, and a little room. Nothing it does opens more.
const PARSE_MAX_DESCRIPTORS: u64 = 16;
/// Descriptors worker-net may hold: one socket per exchange in flight and
/// the resolver's sockets, far above what the concurrency limits allow.
const NET_MAX_DESCRIPTORS: u64 = 256;
/// DNS falls back to TCP for truncated answers; resolv.conf has no port
/// syntax, so the name servers are always on 53.
const DNS_PORT: u16 = 53;
/// The Landlock ABI this code was written and tested against: newer
/// kernels get exactly these rights, older ones the subset they know
/// (best effort, reported as `partial`).
const LANDLOCK_ABI: ABI = ABI::V6;

/// Closes every descriptor the worker inherited except stdin, stdout and
/// stderr. Must run before the worker opens anything it means to keep.
pub(crate) fn close_inherited_descriptors() -> bool {
    kernel::close_from_3().is_ok()
}

/// The worker's two pipes, non-blocking and owned by the runtime, so that
/// reading and writing frames never needs a helper thread (the runtime's
/// blocking stdio would start one after seccomp forbids it).
pub(crate) fn stdio_pipes() -> std::io::Result<(
    tokio::net::unix::pipe::Receiver,
    tokio::net::unix::pipe::Sender,
)> {
    let (stdin, stdout) = kernel::take_stdio()
        .ok_or_else(|| std::io::Error::other("the worker's pipes were already taken"))?;
    Ok((
        tokio::net::unix::pipe::Receiver::from_owned_fd(stdin)?,
        tokio::net::unix::pipe::Sender::from_owned_fd(stdout)?,
    ))
}

/// Confines worker-parse: no file system, no TCP, the tightest allow-list.
pub(crate) fn confine_parse(descriptors_closed: bool) -> Confinement {
    confine(WorkerKind::Parse, None, descriptors_closed)
}

/// Confines worker-net: no file system, no TCP bind, TCP connect only to
/// the ports `policy` can admit, network system calls allowed.
pub(crate) fn confine_net(policy: &EgressPolicy, descriptors_closed: bool) -> Confinement {
    confine(WorkerKind::Net, Some(policy), descriptors_closed)
}

fn confine(
    kind: WorkerKind,
    policy: Option<&EgressPolicy>,
    descriptors_closed: bool,
) -> Confinement {
    let mut report = Confinement::NONE;
    report.descriptors_closed = descriptors_closed;
    // Landlock restricts only the calling thread (before ABI 8): a second
    // thread here would escape it. The pipes are non-blocking, so none is
    // expected; refuse to claim Landlock rather than claim it falsely.
    let single_threaded = thread_count() == Some(1);
    report.capabilities_dropped = drop_capabilities();
    report.no_new_privs = nix::sys::prctl::set_no_new_privs().is_ok();
    report.rlimits = set_rlimits(kind).is_ok();
    if single_threaded {
        let (level, abi, net) = restrict_with_landlock(kind, policy);
        report.landlock = level;
        report.landlock_abi = abi;
        report.landlock_net = net;
    } else {
        tracing::warn!(
            event = "landlock_skipped",
            "more than one thread before confinement; Landlock not applied"
        );
    }
    let list = allow_list(kind);
    match install_seccomp(&list) {
        Ok(()) => {
            report.seccomp = SeccompLevel::Applied;
            report.syscalls = u16::try_from(list.len()).unwrap_or(u16::MAX);
        }
        Err(e) => {
            tracing::warn!(event = "seccomp_unavailable", error = %e, "seccomp filter not installed");
        }
    }
    report
}

/// Drops every capability: the bounding set first (that needs
/// CAP_SETPCAP, which the later steps remove), then the ambient,
/// inheritable, effective and permitted sets. A worker started by root
/// would otherwise keep root's powers inside its filter, such as raw
/// sockets that no port rule sees. True when nothing is left.
fn drop_capabilities() -> bool {
    use caps::CapSet;
    for set in [
        CapSet::Bounding,
        CapSet::Ambient,
        CapSet::Inheritable,
        CapSet::Effective,
        CapSet::Permitted,
    ] {
        // Failing to clear the bounding set is harmless when there is
        // nothing to lose (an unprivileged user): judged by the reads below.
        let _ = caps::clear(None, set);
    }
    [
        CapSet::Effective,
        CapSet::Permitted,
        CapSet::Inheritable,
        CapSet::Ambient,
    ]
    .into_iter()
    .all(|set| caps::read(None, set).is_ok_and(|c| c.is_empty()))
}

/// The allow-list of one kind of worker: the entries both share, then the
/// worker's own.
pub(crate) fn allow_list(kind: WorkerKind) -> Vec<Allow> {
    let own = match kind {
        WorkerKind::Net => net::ALLOWED,
        WorkerKind::Parse => parse::ALLOWED,
    };
    common::ALLOWED.iter().chain(own).copied().collect()
}

fn thread_count() -> Option<u32> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("Threads:"))?
        .trim()
        .parse()
        .ok()
}

fn set_rlimits(kind: WorkerKind) -> nix::Result<()> {
    let (memory, descriptors) = match kind {
        WorkerKind::Net => (NET_WORKER_MEMORY_BYTES, NET_MAX_DESCRIPTORS),
        WorkerKind::Parse => (PARSE_WORKER_MEMORY_BYTES, PARSE_MAX_DESCRIPTORS),
    };
    // LIM-W2: a bomb ends in a failed allocation, which aborts the worker.
    setrlimit(Resource::RLIMIT_AS, memory, memory)?;
    // No new processes. The kernel does not apply this to root (or to
    // CAP_SYS_RESOURCE); seccomp forbids process creation regardless.
    setrlimit(Resource::RLIMIT_NPROC, 0, 0)?;
    setrlimit(Resource::RLIMIT_NOFILE, descriptors, descriptors)?;
    // A crash leaves no image of hostile data on disk.
    setrlimit(Resource::RLIMIT_CORE, 0, 0)?;
    Ok(())
}

/// The TCP ports worker-net may connect to: LIM-F8's, every `:PORT` of an
/// allow rule, the port of every admitted engine endpoint, and DNS. `None`
/// when an allow rule admits any port.
pub(crate) fn connect_ports(policy: &EgressPolicy) -> Option<BTreeSet<u16>> {
    let mut ports: BTreeSet<u16> = DEFAULT_PORTS.into_iter().collect();
    ports.insert(DNS_PORT);
    ports.extend(policy.endpoints.iter().map(|endpoint| endpoint.port));
    for rule in &policy.allow {
        match rule.port {
            RulePort::Default => {}
            RulePort::Port(p) => {
                ports.insert(p);
            }
            RulePort::Any => return None,
        }
    }
    Some(ports)
}

fn restrict_with_landlock(
    kind: WorkerKind,
    policy: Option<&EgressPolicy>,
) -> (LandlockLevel, u8, LandlockNet) {
    // Which TCP connections stay possible: none for the parser; for
    // worker-net, the policy's ports, or any port when a rule says `:*`
    // (then only bind is handled; the egress policy still judges every
    // address before connecting).
    let ports = match (kind, policy) {
        (WorkerKind::Net, Some(policy)) => connect_ports(policy),
        _ => Some(BTreeSet::new()),
    };
    let net_access = match ports {
        Some(_) => AccessNet::from_all(LANDLOCK_ABI),
        None => AccessNet::BindTcp.into(),
    };
    let result =
        Ruleset::default()
            .handle_access(AccessFs::from_all(LANDLOCK_ABI))
            .and_then(|r| r.handle_access(net_access))
            .and_then(|r| r.scope(Scope::from_all(LANDLOCK_ABI)))
            .and_then(|r| r.create())
            .and_then(|r| {
                r.add_rules(ports.iter().flatten().map(|p| {
                    Ok::<_, landlock::RulesetError>(NetPort::new(*p, AccessNet::ConnectTcp))
                }))
            })
            .and_then(|r| r.restrict_self());
    let status = match result {
        Ok(status) => status,
        Err(e) => {
            tracing::warn!(event = "landlock_unavailable", error = %e, "Landlock not applied");
            return (LandlockLevel::Unavailable, 0, LandlockNet::Unsupported);
        }
    };
    let abi = match status.landlock {
        LandlockStatus::Available {
            effective_abi,
            kernel_abi,
        } => kernel_abi.unwrap_or(effective_abi as i32),
        LandlockStatus::NotEnabled | LandlockStatus::NotImplemented => 0,
    };
    let level = match status.ruleset {
        RulesetStatus::FullyEnforced => LandlockLevel::Full,
        RulesetStatus::PartiallyEnforced => LandlockLevel::Partial,
        RulesetStatus::NotEnforced => LandlockLevel::Unavailable,
    };
    let net = if level == LandlockLevel::Unavailable || abi < 4 {
        LandlockNet::Unsupported
    } else {
        match (kind, ports) {
            (WorkerKind::Parse, _) => LandlockNet::NoTcp,
            (WorkerKind::Net, Some(_)) => LandlockNet::ConnectPorts,
            (WorkerKind::Net, None) => LandlockNet::ConnectAnyPort,
        }
    };
    (level, u8::try_from(abi).unwrap_or(u8::MAX), net)
}

/// One entry of an allow-list: a system call, and when it is allowed.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Allow {
    nr: libc::c_long,
    only: Only,
}

/// A condition on a system call's arguments.
#[derive(Debug, Clone, Copy)]
enum Only {
    /// Always.
    Always,
    /// When argument `0`-based `.0` does not ask for executable memory
    /// (`PROT_EXEC` clear): no new code can be mapped.
    NotExecutable(u8),
    /// When argument `.0` is one of these values.
    OneOf(u8, &'static [u64]),
    /// When argument `.0` is this process's own id.
    OwnProcess(u8),
    /// `socket(family, type, protocol)` for an IPv4 or IPv6 TCP stream or
    /// UDP datagram socket: no raw, packet, SCTP or ICMP socket and no other
    /// family, whatever the process's capabilities.
    InternetStreamOrDatagram,
}

/// Allows a system call unconditionally.
const fn allow(nr: libc::c_long) -> Allow {
    Allow {
        nr,
        only: Only::Always,
    }
}

/// Allows a system call only when its arguments satisfy `only`.
const fn allow_only(nr: libc::c_long, only: Only) -> Allow {
    Allow { nr, only }
}

fn install_seccomp(list: &[Allow]) -> Result<(), seccompiler::Error> {
    let program = compile(list)?;
    // TSYNC: every thread of the process gets the filter, not just this one.
    seccompiler::apply_filter_all_threads(&program)
}

fn compile(list: &[Allow]) -> Result<BpfProgram, seccompiler::Error> {
    let arch = TargetArch::try_from(std::env::consts::ARCH)?;
    let own = u64::from(std::process::id());
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    for entry in list {
        let eq = |arg: u8, value: u64| -> Result<SeccompRule, seccompiler::Error> {
            SeccompRule::new(vec![SeccompCondition::new(
                arg,
                SeccompCmpArgLen::Qword,
                SeccompCmpOp::Eq,
                value,
            )?])
            .map_err(seccompiler::Error::from)
        };
        let chain = match entry.only {
            Only::Always => Vec::new(),
            Only::NotExecutable(arg) => vec![SeccompRule::new(vec![SeccompCondition::new(
                arg,
                SeccompCmpArgLen::Dword,
                SeccompCmpOp::MaskedEq(libc::PROT_EXEC as u64),
                0,
            )?])?],
            Only::OneOf(arg, values) => values
                .iter()
                .map(|v| eq(arg, *v))
                .collect::<Result<_, _>>()?,
            Only::OwnProcess(arg) => vec![eq(arg, own)?],
            Only::InternetStreamOrDatagram => {
                // (type, protocol): TCP as a stream, UDP as datagrams; 0
                // picks the same. No SCTP stream, no ICMP datagram socket.
                let kinds = [
                    (libc::SOCK_STREAM, 0),
                    (libc::SOCK_STREAM, libc::IPPROTO_TCP),
                    (libc::SOCK_DGRAM, 0),
                    (libc::SOCK_DGRAM, libc::IPPROTO_UDP),
                ];
                let dword = |arg: u8, op: SeccompCmpOp, value: i32| {
                    SeccompCondition::new(
                        arg,
                        SeccompCmpArgLen::Dword,
                        op,
                        u64::try_from(value).unwrap_or(u64::MAX),
                    )
                };
                let mut rules = Vec::new();
                for family in [libc::AF_INET, libc::AF_INET6] {
                    for (kind, protocol) in kinds {
                        rules.push(SeccompRule::new(vec![
                            dword(0, SeccompCmpOp::Eq, family)?,
                            // The low bits are the type; the high bits
                            // carry SOCK_NONBLOCK and SOCK_CLOEXEC.
                            dword(1, SeccompCmpOp::MaskedEq(0xf), kind)?,
                            dword(2, SeccompCmpOp::Eq, protocol)?,
                        ])?);
                    }
                }
                rules
            }
        };
        // `c_long` is `i64` on every architecture seccompiler supports.
        rules.insert(entry.nr, chain);
    }
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::KillProcess,
        SeccompAction::Allow,
        arch,
    )?;
    BpfProgram::try_from(filter).map_err(seccompiler::Error::from)
}

/// The only code of rypsok that calls the kernel directly. Each call is
/// one that no safe wrapper offers.
#[allow(unsafe_code)] // the one module that must: see each SAFETY note
mod kernel {
    use std::os::fd::{FromRawFd as _, OwnedFd};
    use std::sync::atomic::{AtomicBool, Ordering};

    /// Closes descriptors 3 and up.
    pub(super) fn close_from_3() -> std::io::Result<()> {
        // SAFETY: close_range takes no pointers. It is called first thing
        // in a worker's life, before the worker creates any object that
        // owns a descriptor, so no live owner sees its descriptor closed.
        let rc = unsafe { libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, 0u32) };
        if rc == 0 {
            Ok(())
        } else {
            Err(std::io::Error::last_os_error())
        }
    }

    /// Takes ownership of descriptors 0 and 1, the worker's pipes, once.
    pub(super) fn take_stdio() -> Option<(OwnedFd, OwnedFd)> {
        static TAKEN: AtomicBool = AtomicBool::new(false);
        if TAKEN.swap(true, Ordering::AcqRel) {
            return None;
        }
        // SAFETY: 0 and 1 are open (the supervisor starts every worker
        // with two pipes there) and nothing else in a worker owns or uses
        // them: a worker never touches std's stdin or stdout, and stdout
        // printing is denied by lint. The flag above makes this happen at
        // most once per process, so there is never a second owner.
        Some(unsafe { (OwnedFd::from_raw_fd(0), OwnedFd::from_raw_fd(1)) })
    }
}

#[cfg(test)]
mod tests;
