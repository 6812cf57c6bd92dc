//! Engine health: the latency window of `engine_status` (LIM-S11), the
//! per-engine circuit breaker and the engine's own request rate
//! (REQ-OBS-001..004, REQ-RES-002, REQ-RES-004, REQ-RES-005, REQ-RES-009,
//! REQ-CMP-002). State lives in memory for the life of the process.
//!
//! The circuit: *closed* while the engine answers; *open* after
//! [`FAILURES_TO_OPEN`] consecutive failures of its own (timeouts at its
//! deadline, refused requests, unreadable answers), or at once for the
//! failures that say "stay away" (the provider's rate limit, an anti-bot
//! block, a refused key). While open the engine is skipped with
//! `engine_skipped`, `cooldown`. The first call after the cooldown carries
//! one probe (*half_open*); other calls meanwhile skip the engine. A probe
//! that answers closes the circuit; one that fails opens it again for twice
//! as long, up to [`MAX_COOLDOWN`]. A probe whose call ends before it
//! finished leaves the circuit open with the cooldown spent, so the next
//! call probes again.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::Instant;

use crate::limits::{LATENCY_WINDOW, RETRY_AFTER_MAX_S};
use crate::ports::{Observer, Unobserved};
use crate::response::{EngineErrorClass, EngineState};

/// Consecutive failures of the counted classes that open the circuit.
pub(crate) const FAILURES_TO_OPEN: u32 = 3;
/// Cooldown after the circuit opens on counted failures, or on a block.
pub(crate) const BASE_COOLDOWN: Duration = Duration::from_secs(30);
/// Longest cooldown a failed probe can grow to.
pub(crate) const MAX_COOLDOWN: Duration = Duration::from_secs(600);
/// A provider's per-request rate limit without a delay of its own: Brave's
/// rate windows are one second.
pub(crate) const RATE_LIMIT_COOLDOWN: Duration = Duration::from_secs(1);
/// A spent quota (a monthly allowance) without a delay of its own: retrying
/// soon cannot help, so the engine rests as long as a Retry-After may say.
pub(crate) const QUOTA_COOLDOWN: Duration = Duration::from_secs(RETRY_AFTER_MAX_S);
/// A refused credential: the key is read once at start, so only the
/// provider's side can change; look again now and then.
pub(crate) const AUTH_COOLDOWN: Duration = Duration::from_secs(900);

/// One failure of an engine, as the pipeline classified it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Failure {
    pub(crate) class: EngineErrorClass,
    /// The provider's own delay (Retry-After, X-RateLimit-Reset), bounded.
    pub(crate) retry_after_ms: Option<u64>,
    /// A rate limit that is a spent quota, not a request rate.
    pub(crate) quota: bool,
}

impl Failure {
    pub(crate) const fn of(class: EngineErrorClass) -> Self {
        Self {
            class,
            retry_after_ms: None,
            quota: false,
        }
    }
}

/// The circuit's state, as `engine_status` shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CircuitState {
    Closed,
    Open,
    HalfOpen,
}

/// What engine selection may do with an engine now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Admit {
    /// Query it.
    Yes,
    /// Query it as the circuit's one probe.
    Probe,
    /// Skip it: the circuit is open or a probe is in flight.
    Cooldown,
    /// Skip it: its own request rate is spent.
    RateLimited,
}

/// Per-engine records, keyed by engine id.
pub(crate) struct Health {
    engines: Mutex<HashMap<String, EngineHealth>>,
    /// Told of each change of a circuit (metrics).
    observer: Arc<dyn Observer>,
}

impl Default for Health {
    fn default() -> Self {
        Self::observed(Arc::new(Unobserved))
    }
}

impl std::fmt::Debug for Health {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Health").finish_non_exhaustive()
    }
}

#[derive(Debug, Default)]
struct EngineHealth {
    /// Latencies of the last LIM-S11 completed requests, oldest first.
    latencies_ms: VecDeque<u64>,
    circuit: Circuit,
    /// Requests sent in the last minute, for the driver's rate limit.
    sent: VecDeque<Instant>,
    /// The provider asked for a pause (Stack Exchange's `backoff`): no
    /// request before this instant.
    held_until: Option<Instant>,
    /// The earliest start of the next request of a paced driver (one
    /// request per interval, as arXiv asks).
    next_slot: Option<Instant>,
}

#[derive(Debug, Clone, Copy, Default)]
enum Circuit {
    #[default]
    Closed,
    /// Counting consecutive failures.
    Failing {
        failures: u32,
    },
    Open {
        until: Instant,
        cooldown: Duration,
    },
    HalfOpen {
        cooldown: Duration,
    },
}

impl Health {
    /// Records that tell `observer` of every change of a circuit.
    pub(crate) fn observed(observer: Arc<dyn Observer>) -> Self {
        Self {
            engines: Mutex::default(),
            observer,
        }
    }

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

    /// The circuit's state now. An open circuit whose cooldown has passed
    /// is still open: it stays open until a call carries the probe.
    pub(crate) fn state(&self, engine: &str) -> CircuitState {
        match self.lock().get(engine).map(|r| r.circuit) {
            None | Some(Circuit::Closed | Circuit::Failing { .. }) => CircuitState::Closed,
            Some(Circuit::Open { .. }) => CircuitState::Open,
            Some(Circuit::HalfOpen { .. }) => CircuitState::HalfOpen,
        }
    }

    /// Decides whether a call may query `engine` now, and takes the probe
    /// or a request of the rate limit when it may. `per_minute` is the
    /// driver's published rate.
    pub(crate) fn admit(&self, engine: &str, per_minute: Option<u32>) -> Admit {
        let now = Instant::now();
        let mut engines = self.lock();
        let record = engines.entry(engine.to_owned()).or_default();
        let probe = match record.circuit {
            Circuit::Closed | Circuit::Failing { .. } => false,
            Circuit::HalfOpen { .. } => return Admit::Cooldown,
            Circuit::Open { until, .. } if now < until => return Admit::Cooldown,
            Circuit::Open { .. } => true,
        };
        if record.held_until.is_some_and(|until| now < until) {
            return Admit::RateLimited;
        }
        if let Some(limit) = per_minute {
            let window = Duration::from_secs(60);
            while record
                .sent
                .front()
                .is_some_and(|t| now.duration_since(*t) >= window)
            {
                record.sent.pop_front();
            }
            if record.sent.len() >= limit as usize {
                return Admit::RateLimited;
            }
            record.sent.push_back(now);
        }
        if probe {
            if let Circuit::Open { cooldown, .. } = record.circuit {
                record.circuit = Circuit::HalfOpen { cooldown };
            }
            tracing::info!(event = "circuit_half_open", engine, "probing the engine");
            self.observer.engine_state(engine, EngineState::HalfOpen);
            Admit::Probe
        } else {
            Admit::Yes
        }
    }

    /// The provider asked for a pause of `wait` before its next request;
    /// until then calls skip the engine as rate limited. A shorter pause
    /// never shortens a longer one already running.
    pub(crate) fn hold(&self, engine: &str, wait: Duration) {
        let until = Instant::now() + wait;
        let mut engines = self.lock();
        let record = engines.entry(engine.to_owned()).or_default();
        record.held_until = Some(record.held_until.map_or(until, |held| held.max(until)));
    }

    /// Reserves the start of a paced driver's next request: one request
    /// per `interval`, the first free slot at or after now. Returns the
    /// reserved start, or `None` (nothing reserved) when that slot is after
    /// `latest`: the call's deadline does not leave room for it.
    pub(crate) fn reserve_slot(
        &self,
        engine: &str,
        interval: Duration,
        latest: Instant,
    ) -> Option<Instant> {
        let now = Instant::now();
        let mut engines = self.lock();
        let record = engines.entry(engine.to_owned()).or_default();
        let start = record.next_slot.map_or(now, |slot| slot.max(now));
        if start > latest {
            return None;
        }
        record.next_slot = Some(start + interval);
        Some(start)
    }

    /// The engine answered: its circuit closes.
    pub(crate) fn record_success(&self, engine: &str) {
        let mut engines = self.lock();
        let record = engines.entry(engine.to_owned()).or_default();
        if matches!(record.circuit, Circuit::HalfOpen { .. }) {
            tracing::info!(event = "circuit_closed", engine, "the probe answered");
        }
        if matches!(
            record.circuit,
            Circuit::HalfOpen { .. } | Circuit::Open { .. }
        ) {
            self.observer.engine_state(engine, EngineState::Closed);
        }
        record.circuit = Circuit::Closed;
    }

    /// The engine failed; its circuit may open.
    pub(crate) fn record_failure(&self, engine: &str, failure: Failure) {
        let now = Instant::now();
        let mut engines = self.lock();
        let record = engines.entry(engine.to_owned()).or_default();
        let provider_delay = failure.retry_after_ms.map(Duration::from_millis);
        let cooldown = match record.circuit {
            // A failed probe: open again, longer, unless the provider said
            // how long.
            Circuit::HalfOpen { cooldown } => provider_delay
                .unwrap_or_else(|| opening_cooldown(failure).max((cooldown * 2).min(MAX_COOLDOWN))),
            // Already open (a call admitted before it opened): keep the
            // later end of the two.
            Circuit::Open { until, .. } => {
                let wanted = opening_cooldown(failure);
                if now + wanted <= until {
                    return;
                }
                wanted
            }
            Circuit::Closed | Circuit::Failing { .. } => {
                let failures = match record.circuit {
                    Circuit::Failing { failures } => failures + 1,
                    _ => 1,
                };
                let at_once = !matches!(
                    failure.class,
                    EngineErrorClass::Timeout
                        | EngineErrorClass::RequestFailure
                        | EngineErrorClass::ParseFailure
                );
                if at_once || failures >= FAILURES_TO_OPEN {
                    opening_cooldown(failure)
                } else {
                    record.circuit = Circuit::Failing { failures };
                    return;
                }
            }
        };
        record.circuit = Circuit::Open {
            until: now + cooldown,
            cooldown,
        };
        let cooldown_ms = u64::try_from(cooldown.as_millis()).unwrap_or(u64::MAX);
        tracing::info!(
            event = "circuit_open",
            engine,
            class = failure.class.as_str(),
            cooldown_ms,
            "engine cools down"
        );
        self.observer.cooldown_entered(engine);
        self.observer.engine_state(engine, EngineState::Open);
    }

    /// A probe whose call ended before it finished: the circuit stays open
    /// with its cooldown spent, so the next call probes again.
    pub(crate) fn abandon_probe(&self, engine: &str) {
        let mut engines = self.lock();
        if let Some(record) = engines.get_mut(engine)
            && let Circuit::HalfOpen { cooldown } = record.circuit
        {
            record.circuit = Circuit::Open {
                until: Instant::now(),
                cooldown,
            };
            self.observer.engine_state(engine, EngineState::Open);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, EngineHealth>> {
        // A panic while holding this lock leaves plain numbers behind; they
        // are still usable.
        self.engines
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// The cooldown a failure of this kind opens the circuit for.
fn opening_cooldown(failure: Failure) -> Duration {
    let provider = failure.retry_after_ms.map(Duration::from_millis);
    match failure.class {
        EngineErrorClass::RateLimited if failure.quota => provider.unwrap_or(QUOTA_COOLDOWN),
        EngineErrorClass::RateLimited => provider.unwrap_or(RATE_LIMIT_COOLDOWN),
        EngineErrorClass::AuthFailure => AUTH_COOLDOWN,
        EngineErrorClass::Timeout
        | EngineErrorClass::Blocked
        | EngineErrorClass::ParseFailure
        | EngineErrorClass::RequestFailure => provider.unwrap_or(BASE_COOLDOWN),
    }
}

/// The probe of one call: unless the call records how the probe ended, its
/// end (a drop) gives the probe back.
#[derive(Debug)]
pub(crate) struct ProbeGuard<'a> {
    health: &'a Health,
    engine: Arc<str>,
    settled: bool,
}

impl<'a> ProbeGuard<'a> {
    pub(crate) fn new(health: &'a Health, engine: &str) -> Self {
        Self {
            health,
            engine: Arc::from(engine),
            settled: false,
        }
    }

    /// The probe's outcome was recorded.
    pub(crate) fn settle(mut self) {
        self.settled = true;
    }
}

impl Drop for ProbeGuard<'_> {
    fn drop(&mut self) {
        if !self.settled {
            self.health.abandon_probe(&self.engine);
        }
    }
}

#[cfg(test)]
mod tests;
