//! worker-parse's seccomp allow-list: computing on memory and talking on
//! its pipes, nothing else (REQ-SEC-014, REQ-SEC-020): the common list
//! (`common.rs`) and no addition. Anything not listed kills the process. Notably absent: every way to open a file (`open`,
//! `openat`, `openat2`, `creat`), every socket call, `execve`/`execveat`,
//! `fork`/`vfork`/`clone`/`clone3` (no process and no thread: the runtime
//! is single-threaded and its pipes non-blocking), `ptrace`,
//! `process_vm_*`, `kill` of another process, `ioctl`, `prctl`, `bpf`,
//! `mount`, `setuid` and friends, `io_uring_*`, `userfaultfd`,
//! `perf_event_open`, `keyctl`.

use super::Allow;

/// Nothing beyond the common list: worker-parse's work is computing.
/// Reading PDFs (lopdf, without its thread pool) added no call: the
/// black-box PDF tests run it under this list, hostile documents included.
pub(super) const ALLOWED: &[Allow] = &[];
