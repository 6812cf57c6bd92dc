//! The search pipeline (design §6, §7; REQ-AGG-001..009, REQ-RANK-001..007,
//! REQ-CTX-004, REQ-ERR-001, REQ-ERR-005): select engines, query them
//! concurrently under the deadline with early completion, merge, rank, clean,
//! cut, and decide the one outcome.
//!
//! Engine selection (`select.rs`) and ranking (`rank.rs`) are pure
//! functions of their inputs; one engine's round trip through the two
//! workers is `round_trip.rs`. This file holds the pipeline that ties them
//! under the deadline.

mod rank;
mod round_trip;
mod select;

use std::time::Duration;

use futures_util::StreamExt;
use futures_util::stream::FuturesUnordered;
use rypsok_proto::EngineHit;
use tokio::time::{Instant, sleep_until};

use crate::cache::CacheKey;
use crate::config::SecretDetection;
use crate::context::{ActiveEngine, Context};
use crate::error::{DeniedReason, ToolError};
use crate::health::{Failure, ProbeGuard};
use crate::limits::RESULTS_PER_ENGINE;
use crate::ratelimit::Caller;
use crate::response::SearchResponse;
use crate::response::{EngineErrorClass, Notice, NoticeCode, Outcome};
use crate::secret;
use crate::validate::SearchArgs;

/// Runs one `web_search` call whose arguments are valid. `started` is when
/// the call began; the deadline counts from there.
pub(crate) async fn search(
    ctx: &Context,
    caller: &Caller,
    args: SearchArgs,
    started: Instant,
) -> Result<SearchResponse, ToolError> {
    let config = &ctx.config;
    let deadline = started + Duration::from_millis(config.search.deadline_ms);
    let grace = Duration::from_millis(config.search.grace_ms);
    let mut notices: Vec<Notice> = Vec::new();
    let mut args = args;
    // A query the privacy check found something in, and that goes out all
    // the same (`warn`, `mask`), bypasses the cache both ways (§12).
    let warned = check_secrets(config.privacy.secret_detection, &mut args, &mut notices)?;
    // The cache key of an engine whose answers may be cached in this call.
    let key_of = |engine: &ActiveEngine| {
        ctx.cache
            .as_ref()
            .filter(|_| !warned && engine.config.kind.admission().cacheable)
            .map(|_| cache_key(ctx, caller, engine, &args))
    };
    let lookup = |engine: &ActiveEngine| {
        let key = key_of(engine)?;
        ctx.cache.as_ref()?.get(&key)
    };

    let select::Selected {
        engines: selected,
        probes,
        cached,
        starts,
    } = select::select(
        ctx.active_engines(),
        &args,
        &ctx.health,
        started,
        deadline,
        lookup,
        &mut notices,
    );
    if selected.is_empty() {
        return Err(ToolError::no_engine());
    }
    let from_cache = cached.iter().filter(|c| c.is_some()).count();
    tracing::info!(
        event = "search_engines",
        asked = selected.len() - from_cache,
        from_cache,
        "engines selected"
    );

    // Query every engine at once; collect answers until all are in, or one
    // engine filled max_results and the grace ran out, or the deadline.
    let mut running: FuturesUnordered<_> = selected
        .iter()
        .enumerate()
        .filter(|(i, _)| cached[*i].is_none())
        .map(|(i, engine)| {
            let args = &args;
            let start = starts[i];
            async move {
                if let Some(start) = start {
                    sleep_until(start).await;
                }
                (
                    i,
                    round_trip::query_engine(ctx, engine, args, deadline).await,
                )
            }
        })
        .collect();
    let mut stop_at = deadline;
    let mut cut_early = false;
    // A cached answer is in at once: one that fills max_results starts the
    // grace, as the same answer fresh would have.
    if cached
        .iter()
        .flatten()
        .any(|hits| hits.len() >= args.max_results as usize)
    {
        let grace_end = Instant::now() + grace;
        if grace_end < stop_at {
            stop_at = grace_end;
            cut_early = true;
        }
    }
    let mut answers: Vec<Option<round_trip::EngineAnswer>> = cached
        .into_iter()
        .map(|hits| hits.map(round_trip::EngineAnswer::Cached))
        .collect();
    loop {
        tokio::select! {
            next = running.next() => match next {
                Some((i, answer)) => {
                    if let round_trip::EngineAnswer::Hits(hits) = &answer
                        && hits.len() >= args.max_results as usize
                    {
                        let grace_end = Instant::now() + grace;
                        if grace_end < stop_at {
                            stop_at = grace_end;
                            cut_early = true;
                        }
                    }
                    answers[i] = Some(answer);
                }
                None => break,
            },
            () = sleep_until(stop_at) => break,
        }
    }
    // Engines still running can no longer matter: dropping their futures
    // cancels their work in the workers (REQ-AGG-006).
    drop(running);

    let mut per_engine: Vec<(&ActiveEngine, Vec<EngineHit>)> = Vec::new();
    let mut failures: Vec<EngineErrorClass> = Vec::new();
    for ((engine, answer), probe) in selected.iter().zip(answers).zip(probes) {
        let id = engine.config.id.as_str();
        // The circuit hears of failures of the engine's own: not of a wait
        // for its concurrency slot, nor of a cut by early completion (a
        // probe cut short is given back when its guard drops).
        let class = match answer {
            Some(round_trip::EngineAnswer::Hits(hits)) => {
                ctx.health.record_success(id);
                settle(probe);
                if let (Some(cache), Some(key)) = (&ctx.cache, key_of(engine)) {
                    let bounded = hits.iter().take(RESULTS_PER_ENGINE as usize);
                    // An answer too large to keep is a miss next time.
                    let _ = cache.put(key, bounded.cloned().collect());
                }
                per_engine.push((engine, hits));
                continue;
            }
            // The engine was not asked: its health hears nothing.
            Some(round_trip::EngineAnswer::Cached(hits)) => {
                per_engine.push((engine, hits));
                continue;
            }
            Some(round_trip::EngineAnswer::Failed(failure)) => {
                ctx.health.record_failure(id, failure);
                settle(probe);
                failure.class
            }
            Some(round_trip::EngineAnswer::NotSent) => EngineErrorClass::Timeout,
            None => {
                let class = EngineErrorClass::Timeout;
                if !cut_early {
                    ctx.health.record_failure(id, Failure::of(class));
                    settle(probe);
                }
                tracing::info!(
                    event = "engine_result",
                    engine = id,
                    class = class.as_str(),
                    "engine did not answer in time"
                );
                class
            }
        };
        failures.push(class);
        notices.push(Notice::engine_failed(&engine.config.id, class));
    }
    if per_engine.is_empty() {
        // Nothing answered: the deadline when every engine ran out of time,
        // otherwise a failure of every engine (§7).
        return Err(
            if failures.iter().all(|c| *c == EngineErrorClass::Timeout) {
                ToolError::search_deadline()
            } else {
                ToolError::all_failed()
            },
        );
    }
    let failed = failures.len();

    let options = rank::RankOptions {
        attribution: config.service.attribution,
        drop_instruction_like: config.search.drop_instruction_like,
    };
    let results = rank::merge(per_engine, args.max_results as usize, options, &mut notices);
    // Strict mode admits to web_fetch the URLs returned here (REQ-SEC-021).
    ctx.record_returned(results.iter().map(|result| result.url.as_str()));
    let outcome = match (results.is_empty(), failed) {
        (true, _) => Outcome::Empty,
        (false, 0) => Outcome::Ok,
        (false, _) => Outcome::Partial,
    };
    Ok(SearchResponse {
        outcome,
        notices,
        results,
    })
}

/// The cache key of `engine`'s request in this call: the caller and what
/// the request is built from (§12).
fn cache_key(ctx: &Context, caller: &Caller, engine: &ActiveEngine, args: &SearchArgs) -> CacheKey {
    CacheKey {
        caller: caller.clone(),
        engine: engine.config.id.clone(),
        query: args.query.clone(),
        language: args.language.clone(),
        region: ctx.config.search.region.clone(),
        safe_search: ctx.config.search.safe_search,
        time_range: args.time_range,
        count: RESULTS_PER_ENGINE,
        max_results: args.max_results,
    }
}

/// The probe's outcome was recorded (no probe: nothing to do).
fn settle(probe: Option<ProbeGuard<'_>>) {
    if let Some(probe) = probe {
        probe.settle();
    }
}

/// The secret check (§10, LIM-P1; REQ-PRIV-002), before any engine is
/// asked. A refusal names the format and where it starts, never the text;
/// nothing of the query is logged in any mode. Says whether it found a
/// credential and let the query go on (`warn`, `mask`).
fn check_secrets(
    mode: SecretDetection,
    args: &mut SearchArgs,
    notices: &mut Vec<Notice>,
) -> Result<bool, ToolError> {
    if mode == SecretDetection::Off {
        return Ok(false);
    }
    // As written and as the engine may decode it (REQ-PRIV-002).
    let findings = secret::find_decoded(&args.query);
    let Some(first) = findings.first() else {
        return Ok(false);
    };
    match mode {
        SecretDetection::Refuse => {
            tracing::info!(
                event = "refused",
                tool = "web_search",
                reason = DeniedReason::SecretInQuery.as_str(),
                kind = first.kind.as_str(),
                "query refused: it carries a credential"
            );
            Err(ToolError::secret_in_query(
                first.kind,
                first.position as u64,
            ))
        }
        SecretDetection::Warn => {
            tracing::warn!(
                event = "secret_in_query",
                kind = first.kind.as_str(),
                position = first.position,
                "the query carries a credential; sent as written because the operator chose warn"
            );
            Ok(true)
        }
        SecretDetection::Mask => {
            args.query = secret::mask(&args.query, &findings);
            notices.push(Notice::counted(
                NoticeCode::CredentialMasked,
                findings.len() as u64,
            ));
            Ok(true)
        }
        SecretDetection::Off => Ok(false),
    }
}

#[cfg(test)]
use rank::{Tally, check_url, comparison_key, returned_url};

#[cfg(test)]
mod tests;
