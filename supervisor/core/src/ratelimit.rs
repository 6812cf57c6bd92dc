//! The tools' own rate limits, LIM-C6..C8 (REQ-MCP-010): a sliding window
//! of one minute per tool and process.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::Duration;

use tokio::time::Instant;

const WINDOW: Duration = Duration::from_secs(60);

/// Calls admitted in the last minute, at most `per_minute`.
#[derive(Debug)]
pub(crate) struct RateLimit {
    per_minute: usize,
    admitted: Mutex<VecDeque<Instant>>,
}

impl RateLimit {
    pub(crate) fn per_minute(n: u32) -> Self {
        let per_minute = usize::try_from(n).unwrap_or(usize::MAX);
        Self {
            per_minute,
            admitted: Mutex::new(VecDeque::new()),
        }
    }

    /// Admits a call now, or says in how many milliseconds one will be
    /// admitted again.
    pub(crate) fn admit(&self) -> Result<(), u64> {
        let now = Instant::now();
        let mut admitted = self
            .admitted
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
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

#[cfg(test)]
mod tests {
    use super::*;

    // Verifies: REQ-MCP-010 (LIM-C6..C8: the call past the limit is refused with a retry hint)
    #[tokio::test(start_paused = true)]
    async fn refuses_the_call_past_the_limit_until_the_window_moves() {
        let limit = RateLimit::per_minute(3);
        for _ in 0..3 {
            assert_eq!(limit.admit(), Ok(()));
            tokio::time::advance(Duration::from_secs(10)).await;
        }
        // The first call was 30 s ago: 30 s to wait.
        assert_eq!(limit.admit(), Err(30_000));
        tokio::time::advance(Duration::from_secs(30)).await;
        assert_eq!(limit.admit(), Ok(()));
        assert!(limit.admit().is_err());
    }
}
