//! worker-net's seccomp additions to the common list (`common.rs`): what an
//! HTTP client and a DNS resolver need on IPv4 and IPv6 sockets
//! (REQ-SEC-014, REQ-SEC-020). Anything in neither list kills the process.
//! Notably absent: every way to open a file (the resolver read its
//! configuration before confinement), `listen` and `accept` (nothing can be
//! served from here), sockets of any family but `AF_INET`/`AF_INET6` (no
//! Unix, netlink or raw packet sockets), `execve`/`execveat`,
//! `fork`/`vfork`/`clone`/`clone3`, `ptrace`, `ioctl`, `prctl`, `bpf`,
//! `io_uring_*`.
//!
//! `bind` is allowed because the resolver binds its UDP sockets to a random
//! source port; seccomp cannot read the address a `bind` names, so on
//! kernels with Landlock network rules Landlock refuses every TCP bind
//! instead, and without `listen` a bound socket serves nothing.

use super::{Allow, Only, allow, allow_only};

pub(super) const ALLOWED: &[Allow] = &[
    // Bytes on connected sockets, where the runtime reads into several
    // buffers at once.
    allow(libc::SYS_readv),
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
];
