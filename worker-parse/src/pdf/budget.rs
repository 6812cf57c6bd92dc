//! The CPU time one PDF may take (LIM-F15), on this thread's own CPU clock
//! (`CLOCK_THREAD_CPUTIME_ID`): time the worker spends waiting, or another
//! process spends on the same core, does not count against the document.
//! `clock_gettime` is on the workers' seccomp allow-list for every clock
//! (the vDSO does not answer for CPU clocks, so this one is a system call).
//! Should the clock be unreadable, the wall clock stands in for it.

use std::time::{Duration, Instant};

use nix::time::{ClockId, clock_gettime};

/// A document's CPU budget, started when it is created.
pub(super) struct CpuBudget {
    start: Option<Duration>,
    wall: Instant,
    limit: Duration,
}

impl CpuBudget {
    pub(super) fn new(limit: Duration) -> Self {
        Self {
            start: thread_cpu(),
            wall: Instant::now(),
            limit,
        }
    }

    /// Whether the budget is spent.
    pub(super) fn spent(&self) -> bool {
        let used = match (self.start, thread_cpu()) {
            (Some(start), Some(now)) => now.saturating_sub(start),
            _ => self.wall.elapsed(),
        };
        used > self.limit
    }
}

/// This thread's CPU time so far.
fn thread_cpu() -> Option<Duration> {
    let t = clock_gettime(ClockId::CLOCK_THREAD_CPUTIME_ID).ok()?;
    let secs = u64::try_from(t.tv_sec()).ok()?;
    let nanos = u32::try_from(t.tv_nsec()).ok()?;
    Some(Duration::new(secs, nanos))
}
