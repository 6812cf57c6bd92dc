//! The seccomp entries both workers need, whatever their job (REQ-SEC-020):
//! their pipes, the async runtime, the heap, locks, clocks, randomness and
//! the ways a process ends. Each worker's list is this one plus its own
//! additions (`net.rs`, `parse.rs`); an entry that only one worker needs
//! does not belong here.
//!
//! Measured, not guessed: what both workers' steady state (frames, work,
//! logging) and their deaths (panic, failed allocation) use under
//! `strace -f`, after confinement.

use super::{Allow, Only, allow, allow_only};

pub(super) const ALLOWED: &[Allow] = &[
    // Frames in on stdin and out on stdout; log lines on stderr.
    allow(libc::SYS_read),
    allow(libc::SYS_write),
    allow(libc::SYS_writev),
    // The runtime waits for its descriptors to become ready (mio's epoll).
    #[cfg(target_arch = "x86_64")]
    allow(libc::SYS_epoll_wait),
    allow(libc::SYS_epoll_pwait),
    allow(libc::SYS_epoll_pwait2),
    allow(libc::SYS_epoll_ctl),
    // Closing is always safe; the runtime closes its descriptors at exit.
    allow(libc::SYS_close),
    // Reading a descriptor's flags: std checks a descriptor is open
    // before closing it. Only the two reading commands, nothing that
    // duplicates or changes a descriptor.
    allow_only(
        libc::SYS_fcntl,
        Only::OneOf(1, &[libc::F_GETFD as u64, libc::F_GETFL as u64]),
    ),
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
    // Hash-map keys are seeded from the kernel's random source; TLS and
    // DNS query ids need it in worker-net.
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
