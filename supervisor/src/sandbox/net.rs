//! worker-net's seccomp allow-list: worker-parse's, plus what an HTTP
//! client and a DNS resolver need on IPv4 and IPv6 sockets (REQ-SEC-014,
//! REQ-SEC-020). Anything not listed kills the process. Notably absent:
//! every way to open a file (the resolver read its configuration before
//! confinement), `listen` and `accept` (nothing can be served from here),
//! sockets of any family but `AF_INET`/`AF_INET6` (no Unix, netlink or raw
//! packet sockets), `execve`/`execveat`, `fork`/`vfork`/`clone`/`clone3`,
//! `ptrace`, `ioctl`, `prctl`, `bpf`, `io_uring_*`.
//!
//! `bind` is allowed because the resolver binds its UDP sockets to a random
//! source port; seccomp cannot read the address a `bind` names, so on
//! kernels with Landlock network rules Landlock refuses every TCP bind
//! instead, and without `listen` a bound socket serves nothing.
//!
//! The runtime entries (heap, locks, clocks, randomness, abort and exit)
//! appear in both workers' lists on purpose: each file is one worker's
//! whole allow-list, readable and auditable on its own.

use super::{Allow, Only, allow, allow_only};

pub(super) const ALLOWED: &[Allow] = &[
    // Frames in on stdin and out on stdout; log lines on stderr; bytes on
    // connected sockets.
    allow(libc::SYS_read),
    allow(libc::SYS_write),
    allow(libc::SYS_writev),
    allow(libc::SYS_readv),
    // The runtime waits for its pipes and sockets (mio's epoll).
    #[cfg(target_arch = "x86_64")]
    allow(libc::SYS_epoll_wait),
    allow(libc::SYS_epoll_pwait),
    allow(libc::SYS_epoll_pwait2),
    allow(libc::SYS_epoll_ctl),
    // Closing is always safe: sockets are closed after each exchange.
    allow(libc::SYS_close),
    // Reading a descriptor's flags: std checks a descriptor is open
    // before closing it. Only the two reading commands, nothing that
    // duplicates or changes a descriptor.
    allow_only(
        libc::SYS_fcntl,
        Only::OneOf(1, &[libc::F_GETFD as u64, libc::F_GETFL as u64]),
    ),
    // Sockets: IPv4 and IPv6, stream (HTTP, DNS over TCP) or datagram
    // (DNS) only: no raw or packet socket, which no port rule would see.
    allow_only(libc::SYS_socket, Only::InternetStreamOrDatagram),
    // Connecting to the address the egress policy judged (I3).
    allow(libc::SYS_connect),
    // The resolver's UDP sockets take a random source port.
    allow(libc::SYS_bind),
    // The connected peer is checked again (I3); the local end for logs.
    allow(libc::SYS_getpeername),
    allow(libc::SYS_getsockname),
    // TCP_NODELAY, and reading the outcome of a non-blocking connect.
    allow(libc::SYS_setsockopt),
    allow(libc::SYS_getsockopt),
    // DNS datagrams, and stream I/O where the runtime uses these.
    allow(libc::SYS_sendto),
    allow(libc::SYS_recvfrom),
    allow(libc::SYS_sendmsg),
    allow(libc::SYS_recvmsg),
    allow(libc::SYS_sendmmsg),
    allow(libc::SYS_recvmmsg),
    // Ending a connection's write side.
    allow(libc::SYS_shutdown),
    // Heap: the allocator maps and unmaps memory, never executable.
    allow_only(libc::SYS_mmap, Only::NotExecutable(2)),
    allow_only(libc::SYS_mprotect, Only::NotExecutable(2)),
    allow(libc::SYS_munmap),
    allow(libc::SYS_mremap),
    allow(libc::SYS_brk),
    allow(libc::SYS_madvise),
    // Locks and the runtime's parking.
    allow(libc::SYS_futex),
    allow(libc::SYS_sched_yield),
    // Deadlines and timestamps (the vDSO usually answers without a call).
    allow(libc::SYS_clock_gettime),
    // TLS and DNS query ids need randomness.
    allow(libc::SYS_getrandom),
    // A failed allocation or a panic aborts: abort() blocks signals,
    // resets SIGABRT's handler and raises it at itself (only itself).
    allow(libc::SYS_rt_sigprocmask),
    allow(libc::SYS_rt_sigaction),
    allow(libc::SYS_rt_sigreturn),
    allow(libc::SYS_getpid),
    allow(libc::SYS_gettid),
    allow_only(libc::SYS_tgkill, Only::OwnProcess(0)),
    // The end of the process: std removes the main thread's alternate
    // signal stack before exiting.
    allow(libc::SYS_sigaltstack),
    allow(libc::SYS_exit),
    allow(libc::SYS_exit_group),
];
