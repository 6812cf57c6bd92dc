//! `engine_status` (design §3.3; REQ-STATUS-001..003, REQ-OBS-001,
//! REQ-OBS-004): a snapshot of memory, no request made, so it ends well
//! within LIM-S13.

use crate::context::{Context, EngineSlot};
use crate::health::CircuitState;
use crate::response::{EngineReport, StatusResponse};
use crate::response::{EngineState, Outcome};

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
pub(crate) fn engine_status(ctx: &Context) -> StatusResponse {
    let mut slots: Vec<&EngineSlot> = ctx.engines.iter().collect();
    slots.sort_by(|a, b| a.id().cmp(b.id()));
    let engines = slots
        .into_iter()
        .map(|slot| match slot {
            EngineSlot::Active(engine) => EngineReport {
                id: engine.config.id.clone(),
                state: EngineState::from(ctx.health.state(&engine.config.id)),
                latency_ms: ctx.health.median_latency_ms(&engine.config.id),
                reason: None,
                allowance: engine.allowance(),
            },
            EngineSlot::Disabled { id, reason } => EngineReport {
                id: id.clone(),
                state: EngineState::Disabled,
                latency_ms: None,
                reason: Some(*reason),
                allowance: None,
            },
        })
        .collect();
    StatusResponse {
        outcome: Outcome::Ok,
        notices: Vec::new(),
        engines,
    }
}
