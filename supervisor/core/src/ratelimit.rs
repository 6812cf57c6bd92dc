//! The tools' own rate limits, LIM-C6..C8 (REQ-MCP-010): a sliding window
//! of one minute per tool and caller; on stdio the one caller is the
//! process, in HTTP mode each caller has its own window (REQ-SEC-019).

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

const WINDOW: Duration = Duration::from_secs(60);

/// Windows kept before the idle ones are dropped: a closed session's
/// window must not stay in memory for the life of the process.
const PRUNE_ABOVE: usize = 64;

/// Who a call counts against (REQ-SEC-019): the whole process on stdio;
/// in HTTP mode one caller, the token's identity or the session. The
/// label is rypsok's own (never a secret or a session id) and is what the
/// logs show as `caller`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Caller {
    label: Arc<str>,
    shared: bool,
}

impl Caller {
    /// The process as the one caller (stdio): process-wide limits apply.
    pub fn process(label: &str) -> Self {
        Self {
            label: label.into(),
            shared: false,
        }
    }

    /// One of several callers of an HTTP listener: its own windows, and a
    /// share of the process's concurrency ([`Caller::share_of`]).
    pub fn remote(label: &str) -> Self {
        Self {
            label: label.into(),
            shared: true,
        }
    }

    /// The label for logs.
    pub fn as_str(&self) -> &str {
        &self.label
    }

    /// This caller's part of a process-wide concurrency limit such as
    /// LIM-F10: all of it for the process, `per_caller` (at least 1, at
    /// most the whole) for one of several callers.
    pub fn share_of(&self, process_limit: u32, per_caller: u32) -> u32 {
        if self.shared {
            per_caller.clamp(1, process_limit.max(1))
        } else {
            process_limit
        }
    }
}

/// One caller's part of a process-wide concurrency limit in HTTP mode when
/// the operator does not set it: a quarter, at least 1 (LIM-F10).
pub(crate) const fn default_share(process_limit: u32) -> u32 {
    if process_limit / 4 > 1 {
        process_limit / 4
    } else {
        1
    }
}

/// Calls admitted in the last minute, at most `per_minute` per caller.
#[derive(Debug)]
pub(crate) struct RateLimit {
    per_minute: usize,
    admitted: Mutex<HashMap<Caller, VecDeque<Instant>>>,
}

impl RateLimit {
    pub(crate) fn per_minute(n: u32) -> Self {
        let per_minute = usize::try_from(n).unwrap_or(usize::MAX);
        Self {
            per_minute,
            admitted: Mutex::new(HashMap::new()),
        }
    }

    /// Admits a call of `caller` now, or says in how many milliseconds one
    /// will be admitted again.
    pub(crate) fn admit(&self, caller: &Caller) -> Result<(), u64> {
        let now = Instant::now();
        let mut windows = self
            .admitted
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if windows.len() > PRUNE_ABOVE {
            windows.retain(|_, w| w.back().is_some_and(|t| now.duration_since(*t) < WINDOW));
        }
        let admitted = windows.entry(caller.clone()).or_default();
        while admitted
            .front()
            .is_some_and(|t| now.duration_since(*t) >= WINDOW)
        {
            admitted.pop_front();
        }
        if admitted.len() >= self.per_minute {
            let oldest = admitted.front().copied().unwrap_or(now);
            let wait = (oldest + WINDOW).saturating_duration_since(now);
            // Rounded up, so retrying after the hint always succeeds.
            return Err(u64::try_from(wait.as_millis()).unwrap_or(u64::MAX).max(1));
        }
        admitted.push_back(now);
        Ok(())
    }
}

/// A caller's share of a process-wide concurrency limit (LIM-F10 in HTTP
/// mode: a quarter, at least 1), held beside the process-wide semaphore so
/// that one caller cannot take every slot.
#[derive(Debug)]
pub(crate) struct CallerPermits {
    process_limit: u32,
    per_caller: u32,
    callers: Mutex<HashMap<Caller, Arc<Semaphore>>>,
}

impl CallerPermits {
    /// `per_caller` is one caller's share in HTTP mode
    /// (`[limits] fetch_concurrency_per_caller`).
    pub(crate) fn new(process_limit: u32, per_caller: u32) -> Self {
        Self {
            process_limit,
            per_caller,
            callers: Mutex::new(HashMap::new()),
        }
    }

    /// One of `caller`'s slots if one is free now, never waiting; the slot
    /// is free again when the permit is dropped. A plain check, not an
    /// awaited acquisition polled once: tokio's semaphore answers "not
    /// yet" to a task that has used up its scheduling budget, even with
    /// slots free.
    pub(crate) fn try_acquire(&self, caller: &Caller) -> Option<OwnedSemaphorePermit> {
        let semaphore = {
            let mut callers = self
                .callers
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if callers.len() > PRUNE_ABOVE {
                // A semaphore nobody holds a permit of is idle.
                callers.retain(|_, s| Arc::strong_count(s) > 1);
            }
            let share =
                usize::try_from(caller.share_of(self.process_limit, self.per_caller)).unwrap_or(1);
            Arc::clone(
                callers
                    .entry(caller.clone())
                    .or_insert_with(|| Arc::new(Semaphore::new(share))),
            )
        };
        semaphore.try_acquire_owned().ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Verifies: REQ-MCP-010 (LIM-C6..C8: the call past the limit is refused with a retry hint)
    #[tokio::test(start_paused = true)]
    async fn refuses_the_call_past_the_limit_until_the_window_moves() {
        let limit = RateLimit::per_minute(3);
        let me = Caller::process("stdio");
        for _ in 0..3 {
            assert_eq!(limit.admit(&me), Ok(()));
            tokio::time::advance(Duration::from_secs(10)).await;
        }
        // The first call was 30 s ago: 30 s to wait.
        assert_eq!(limit.admit(&me), Err(30_000));
        tokio::time::advance(Duration::from_secs(30)).await;
        assert_eq!(limit.admit(&me), Ok(()));
        assert!(limit.admit(&me).is_err());
    }

    // Verifies: REQ-SEC-019 (one caller at its limit does not starve another)
    #[tokio::test(start_paused = true)]
    async fn each_caller_has_its_own_window() {
        let limit = RateLimit::per_minute(2);
        let (a, b) = (Caller::remote("token"), Caller::remote("session-1"));
        assert_eq!(limit.admit(&a), Ok(()));
        assert_eq!(limit.admit(&a), Ok(()));
        assert!(limit.admit(&a).is_err());
        assert_eq!(limit.admit(&b), Ok(()));
    }

    // Verifies: REQ-SEC-019 (idle windows are dropped, live ones kept)
    #[tokio::test(start_paused = true)]
    async fn idle_windows_are_dropped() {
        let limit = RateLimit::per_minute(1);
        for n in 0..=PRUNE_ABOVE {
            assert_eq!(
                limit.admit(&Caller::remote(&format!("session-{n}"))),
                Ok(())
            );
        }
        tokio::time::advance(WINDOW).await;
        let fresh = Caller::remote("fresh");
        assert_eq!(limit.admit(&fresh), Ok(()));
        assert!(limit.admit(&fresh).is_err(), "the live window was dropped");
        let windows = limit.admitted.lock().unwrap().len();
        assert_eq!(windows, 1);
    }

    // Verifies: REQ-SEC-019 (LIM-F10 per caller: a quarter each, so a busy caller leaves room for others)
    #[tokio::test]
    async fn a_caller_holds_at_most_its_share_of_slots() {
        let permits = CallerPermits::new(8, default_share(8));
        let busy = Caller::remote("session-a");
        let held = (permits.try_acquire(&busy), permits.try_acquire(&busy));
        assert!(held.0.is_some() && held.1.is_some());
        let third = permits.try_acquire(&busy);
        assert!(third.is_none(), "a third slot for one caller");
        let other = permits.try_acquire(&Caller::remote("session-b"));
        assert!(other.is_some(), "another caller was starved");
        drop(held);
        let again = permits.try_acquire(&busy);
        assert!(again.is_some());
        // The process as the one caller (stdio) has all of them.
        let stdio = Caller::process("stdio");
        let mut all = Vec::new();
        for _ in 0..8 {
            all.extend(permits.try_acquire(&stdio));
        }
        assert_eq!(all.len(), 8);
    }

    // Verifies: REQ-SEC-019 (a free slot is given however long the calling
    // task has run without yielding: one CI run saw a fetch answered busy
    // after a thousand in one task)
    #[tokio::test]
    async fn a_free_slot_is_given_to_a_task_that_has_run_long() {
        let permits = CallerPermits::new(8, default_share(8));
        let stdio = Caller::process("stdio");
        for n in 0..1_000 {
            assert!(permits.try_acquire(&stdio).is_some(), "busy at {n}");
        }
    }

    // Verifies: REQ-SEC-019 (a quarter by default; the operator's share within 1..=LIM-F10)
    #[test]
    fn a_remote_caller_gets_a_quarter_of_the_concurrency_unless_set() {
        assert_eq!(Caller::process("stdio").share_of(8, default_share(8)), 8);
        assert_eq!(Caller::remote("token").share_of(8, default_share(8)), 2);
        assert_eq!(Caller::remote("token").share_of(3, default_share(3)), 1);
        assert_eq!(Caller::remote("token").share_of(8, 8), 8);
        assert_eq!(Caller::remote("token").share_of(8, 6), 6);
        assert_eq!(Caller::remote("token").share_of(8, 20), 8);
        assert_eq!(Caller::process("stdio").share_of(8, 1), 8);
    }
}
