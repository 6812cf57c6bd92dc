//! Engine health: the latency window of `engine_status` (LIM-S11) and the
//! engine's state (REQ-OBS-001, REQ-OBS-002, REQ-RES-009). State lives in
//! memory for the life of the process.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use crate::limits::LATENCY_WINDOW;

/// Per-engine records, keyed by engine id.
#[derive(Debug, Default)]
pub(crate) struct Health {
    engines: Mutex<HashMap<String, EngineHealth>>,
}

#[derive(Debug, Default)]
struct EngineHealth {
    /// Latencies of the last LIM-S11 completed requests, oldest first.
    latencies_ms: VecDeque<u64>,
}

impl Health {
    /// Records a completed request (an answer, whatever it said; a timeout
    /// is not a completion and leaves the window alone).
    pub(crate) fn record_completion(&self, engine: &str, latency_ms: u64) {
        let mut engines = self.lock();
        let record = engines.entry(engine.to_owned()).or_default();
        if record.latencies_ms.len() == LATENCY_WINDOW {
            record.latencies_ms.pop_front();
        }
        record.latencies_ms.push_back(latency_ms);
    }

    /// Median latency over the window, or `None` before any completion.
    /// With an even count, the lower of the two middle values: a latency
    /// that was actually observed.
    pub(crate) fn median_latency_ms(&self, engine: &str) -> Option<u64> {
        let engines = self.lock();
        let record = engines.get(engine)?;
        let mut sorted: Vec<u64> = record.latencies_ms.iter().copied().collect();
        if sorted.is_empty() {
            return None;
        }
        sorted.sort_unstable();
        Some(sorted[(sorted.len() - 1) / 2])
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, EngineHealth>> {
        // A panic while holding this lock leaves plain numbers behind; they
        // are still usable.
        self.engines
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Verifies: REQ-OBS-002 (median of the last LIM-S11 completed requests)
    #[test]
    fn reports_the_median_of_the_last_twenty_completions() {
        let health = Health::default();
        assert_eq!(health.median_latency_ms("wikipedia"), None);
        for ms in 1..=25 {
            health.record_completion("wikipedia", ms * 10);
        }
        // The window holds 60..=250; its lower median is 150.
        assert_eq!(health.median_latency_ms("wikipedia"), Some(150));
        assert_eq!(health.median_latency_ms("brave"), None);
    }
}
