//! `engine_status` (design §3.3; REQ-STATUS-001..003, REQ-OBS-001,
//! REQ-OBS-004): a snapshot of memory, no request made, so it ends well
//! within LIM-S13.

use serde_json::{Value, json};

use crate::error::Outcome;
use crate::health::CircuitState;
use crate::services::{EngineSlot, Services};

/// Engine states of the contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EngineState {
    Disabled,
    Closed,
    Open,
    HalfOpen,
}

impl EngineState {
    pub(crate) const fn as_str(self) -> &'static str {
        match self {
            Self::Disabled => "disabled",
            Self::Closed => "closed",
            Self::Open => "open",
            Self::HalfOpen => "half_open",
        }
    }
}

impl From<CircuitState> for EngineState {
    fn from(state: CircuitState) -> Self {
        match state {
            CircuitState::Closed => Self::Closed,
            CircuitState::Open => Self::Open,
            CircuitState::HalfOpen => Self::HalfOpen,
        }
    }
}

/// The response of `engine_status`: every configured engine, in identifier
/// order; no endpoint, credential or provider text (REQ-STATUS-002).
pub(crate) fn engine_status(services: &Services) -> Value {
    let mut slots: Vec<&EngineSlot> = services.engines.iter().collect();
    slots.sort_by(|a, b| a.id().cmp(b.id()));
    let engines: Vec<Value> = slots
        .into_iter()
        .map(|slot| match slot {
            EngineSlot::Active(engine) => json!({
                "id": engine.config.id,
                "state": EngineState::from(services.health.state(&engine.config.id)).as_str(),
                "latency_ms": services.health.median_latency_ms(&engine.config.id),
            }),
            EngineSlot::Disabled { id, reason } => json!({
                "id": id,
                "state": EngineState::Disabled.as_str(),
                "latency_ms": null,
                "reason": reason.as_str(),
            }),
        })
        .collect();
    json!({ "outcome": Outcome::Ok.as_str(), "notices": [], "engines": engines })
}
