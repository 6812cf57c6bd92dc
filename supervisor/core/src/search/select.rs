//! Engine selection (design §6; REQ-AGG-001, REQ-ENG-007, REQ-ENG-010,
//! REQ-SEARCH-004, REQ-SEARCH-005): which engines one call asks, and a
//! notice for each engine the call's category selects but that cannot or
//! may not be asked now. A function of the active engines, the call's
//! arguments and the engines' health; admitting an engine takes its probe
//! or a request of its rate, and a paced driver's next slot.

use std::time::Duration;

use rypsok_proto::EngineHit;
use tokio::time::Instant;

use crate::context::ActiveEngine;
use crate::engine::Driver;
use crate::health::{Admit, CircuitState, Health, ProbeGuard};
use crate::limits::ENGINES_PER_CALL;
use crate::response::{Notice, SkipReason};
use crate::validate::SearchArgs;

/// The least time a paced engine's request is given before the deadline:
/// a pace slot later than the deadline less this is not waited for.
const PACED_REQUEST_TIME: Duration = Duration::from_millis(1000);

/// The engines to ask, in preference order, each with the probe it carries
/// when its circuit was half open, or with the answer `cached` had for it;
/// skipped engines go to `notices`, engines answered from the cache get
/// `from_cache`. A paced driver (arXiv, GDELT) is given the next free slot
/// of its pace when the slot leaves it time before `deadline`, else it is
/// skipped as rate limited.
pub(super) fn select<'a>(
    engines: impl Iterator<Item = &'a ActiveEngine>,
    args: &SearchArgs,
    health: &'a Health,
    started: Instant,
    deadline: Instant,
    mut cached: impl FnMut(&ActiveEngine) -> Option<Vec<EngineHit>>,
    notices: &mut Vec<Notice>,
) -> Selected<'a> {
    let mut selected: Vec<&ActiveEngine> = Vec::new();
    // The probe each selected engine carries, if its circuit was half open.
    let mut probes: Vec<Option<ProbeGuard<'_>>> = Vec::new();
    let mut answers: Vec<Option<Vec<EngineHit>>> = Vec::new();
    // When each selected engine may send: now, or a paced driver's slot.
    let mut starts: Vec<Option<Instant>> = Vec::new();
    for engine in engines {
        if !engine.config.categories.contains(&args.category) {
            continue;
        }
        if selected.len() == ENGINES_PER_CALL {
            break;
        }
        let admission = engine.config.kind.admission();
        let skip = if args.time_range.is_some() && !admission.time_ranges {
            Some(SkipReason::TimeRange)
        } else if !admission.languages.honours(&args.language) {
            Some(SkipReason::Language)
        } else if !admission.accepts_query(&args.query) {
            Some(SkipReason::QueryTooLong)
        } else if !admission.has_searchable_word(&args.query) {
            Some(SkipReason::QueryTooShort)
        } else {
            None
        };
        // The cache comes before the circuit and the rate: a hit sends
        // nothing. Only a closed circuit is answered from it, so that an
        // open one still waits for its probe, which must reach the engine.
        if skip.is_none()
            && health.state(&engine.config.id) == CircuitState::Closed
            && let Some(hits) = cached(engine)
        {
            notices.push(Notice::from_cache(&engine.config.id));
            selected.push(engine);
            probes.push(None);
            answers.push(Some(hits));
            starts.push(None);
            continue;
        }
        // The circuit and the driver's rate come last: admitting takes the
        // probe or a request of the rate.
        let admitted = match skip {
            Some(reason) => Err(reason),
            None => match health.admit(&engine.config.id, admission.rate_limit_per_minute) {
                Admit::Yes => Ok(false),
                Admit::Probe => Ok(true),
                Admit::Cooldown => Err(SkipReason::Cooldown),
                Admit::RateLimited => Err(SkipReason::RateLimited),
            },
        };
        // A paced driver takes the next free slot of its pace when the slot
        // leaves the request time before the deadline; otherwise it is
        // skipped as rate limited, its probe (if any) given back.
        let admitted = admitted.and_then(|probe| {
            let guard = probe.then(|| ProbeGuard::new(health, &engine.config.id));
            let Some(interval_ms) = admission.min_interval_ms else {
                return Ok((guard, None));
            };
            let latest = deadline.checked_sub(PACED_REQUEST_TIME).unwrap_or(started);
            match health.reserve_slot(
                &engine.config.id,
                Duration::from_millis(interval_ms),
                latest,
            ) {
                Some(start) => Ok((guard, Some(start))),
                None => Err(SkipReason::RateLimited),
            }
        });
        match admitted {
            Err(reason) => notices.push(Notice::engine_skipped(&engine.config.id, reason)),
            Ok((guard, start)) => {
                selected.push(engine);
                probes.push(guard);
                answers.push(None);
                starts.push(start);
            }
        }
    }
    Selected {
        engines: selected,
        probes,
        cached: answers,
        starts,
    }
}

/// The engines one call asks, by index alike.
pub(super) struct Selected<'a> {
    pub(super) engines: Vec<&'a ActiveEngine>,
    /// The probe each engine carries, if its circuit was half open.
    pub(super) probes: Vec<Option<ProbeGuard<'a>>>,
    /// The cache's answer for an engine answered from it.
    pub(super) cached: Vec<Option<Vec<EngineHit>>>,
    /// When each engine may send: now (`None`) or a paced driver's slot.
    pub(super) starts: Vec<Option<Instant>>,
}
