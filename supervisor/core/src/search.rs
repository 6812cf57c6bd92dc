//! The search pipeline (design §6, §7; REQ-AGG-001..009, REQ-RANK-001..007,
//! REQ-CTX-004, REQ-ERR-001, REQ-ERR-005): select engines, query them
//! concurrently under the deadline with early completion, merge, rank, clean,
//! cut, and decide the one outcome.
//!
//! Engine selection (`select.rs`) and ranking (`rank.rs`) are pure
//! functions of their inputs; one engine's round trip through the two
//! workers is `round_trip.rs`, which reports what happened and records
//! nothing. This file holds the pipeline that ties them under the deadline,
//! and is the one place that records what a call teaches about an engine's
//! health (latency, provider pauses, circuit): only here is it known whether
//! an engine that did not answer was late or cut by early completion.

mod rank;
mod round_trip;

pub(crate) use round_trip::engine_exchange;
mod select;

use std::time::Duration;

use futures_util::StreamExt;
use futures_util::stream::FuturesUnordered;
use rypsok_proto::EngineHit;
use tokio::time::{Instant, sleep_until};

use self::round_trip::EngineAnswer;
use crate::cache::CacheKey;
use crate::config::SecretDetection;
use crate::context::{ActiveEngine, Context};
use crate::engine::Driver;
use crate::error::{DeniedReason, EngineCause, FailureCause, NoEngineFor, ToolError};
use crate::health::{Failure, ProbeGuard};
use crate::limits::RESULTS_PER_ENGINE;
use crate::ratelimit::Caller;
use crate::response::SearchResponse;
use crate::response::{EngineErrorClass, Notice, NoticeCode, NoticeReason, Outcome, SkipReason};
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
    let mut notices: Vec<Notice> = Vec::new();
    let mut args = args;
    // A query the privacy check found something in, and that goes out all
    // the same (`warn`, `mask`), bypasses the cache both ways (§12).
    let warned = check_secrets(ctx.config.privacy.secret_detection, &mut args, &mut notices)?;
    let call = Call {
        ctx,
        caller,
        args,
        warned,
        deadline: started + Duration::from_millis(ctx.config.search.deadline_ms),
    };
    let select::Selected {
        engines,
        probes,
        cached,
        starts,
    } = select_engines(&call, started, &mut notices)?;
    let gathered = gather(&call, &engines, &starts, cached).await;
    let answered = record_answers(&call, engines, probes, gathered, &mut notices);
    store_complete(&call, &answered);
    finish(&call, answered, notices)
}

/// One call's inputs once its query passed the secret check.
struct Call<'a> {
    ctx: &'a Context,
    caller: &'a Caller,
    args: SearchArgs,
    /// The query carries a credential the operator lets go out (`warn`,
    /// `mask`): the call neither reads nor fills the cache.
    warned: bool,
    deadline: Instant,
}

impl Call<'_> {
    /// The cache key of `engine`'s request in this call, when its answers
    /// may be cached.
    fn cache_key(&self, engine: &ActiveEngine) -> Option<CacheKey> {
        self.ctx
            .cache
            .as_ref()
            .filter(|_| !self.warned && engine.config.kind.admission().cacheable)
            .map(|_| cache_key(self.ctx, self.caller, engine, &self.args))
    }

    /// The cache's copy of `engine`'s answer to this call, if it may be
    /// read and holds one.
    fn cached(&self, engine: &ActiveEngine) -> Option<Vec<EngineHit>> {
        let key = self.cache_key(engine)?;
        let cache = self.ctx.cache.as_ref()?;
        let hits = cache.get(&key);
        self.ctx.observer.cache_lookup(hits.is_some());
        let (entries, bytes) = cache.usage();
        self.ctx.observer.cache_usage(entries, bytes);
        hits
    }

    /// Keeps `engine`'s fresh answer for later calls, when it may be kept.
    fn store(&self, engine: &ActiveEngine, hits: &[EngineHit]) {
        if let (Some(cache), Some(key)) = (&self.ctx.cache, self.cache_key(engine)) {
            let bounded = hits.iter().take(RESULTS_PER_ENGINE as usize);
            // An answer too large to keep is a miss next time.
            let _ = cache.put(key, bounded.cloned().collect());
            let (entries, bytes) = cache.usage();
            self.ctx.observer.cache_usage(entries, bytes);
        }
    }
}

/// Step 1: the engines this call asks (skipped ones become notices), or
/// `unavailable` when none is left.
fn select_engines<'a>(
    call: &Call<'a>,
    started: Instant,
    notices: &mut Vec<Notice>,
) -> Result<select::Selected<'a>, ToolError> {
    let ctx = call.ctx;
    let selected = select::select(
        ctx.active_engines(),
        &call.args,
        &ctx.health,
        started,
        call.deadline,
        |engine| call.cached(engine),
        notices,
    );
    if selected.engines.is_empty() {
        // When time_range alone turned the engines away, say so: the caller
        // can drop it, the operator can add an engine that filters by date.
        let time_range = NoticeReason::Skipped(SkipReason::TimeRange);
        let only_time_range =
            !notices.is_empty() && notices.iter().all(|n| n.reason == Some(time_range));
        return Err(ToolError::no_engine(if only_time_range {
            NoEngineFor::TimeRange
        } else {
            NoEngineFor::Arguments
        }));
    }
    let from_cache = selected.cached.iter().filter(|c| c.is_some()).count();
    tracing::info!(
        event = "search_engines",
        asked = selected.engines.len() - from_cache,
        from_cache,
        "engines selected"
    );
    Ok(selected)
}

/// What the engines said by the time the call stopped waiting, by the
/// index of the selected engines; `None` for an engine still running.
struct Gathered {
    answers: Vec<Option<EngineAnswer>>,
    /// The wait ended at the grace after an engine filled `max_results`,
    /// not at the deadline: an engine still running was cut, not late.
    cut_early: bool,
}

/// When the call stops waiting for engines: the deadline, or earlier, at
/// the end of the grace that the first answer filling `max_results` starts
/// (early completion, REQ-AGG-004).
struct StopAt {
    at: Instant,
    grace: Duration,
    cut_early: bool,
}

impl StopAt {
    /// An answer of `hits` results came in.
    fn heard(&mut self, hits: usize, max_results: usize) {
        if hits < max_results {
            return;
        }
        let grace_end = Instant::now() + self.grace;
        if grace_end < self.at {
            self.at = grace_end;
            self.cut_early = true;
        }
    }
}

/// Step 2: queries every selected engine not answered from the cache at
/// once (a paced driver at its slot in `starts`), and collects answers
/// until all are in, or one engine filled `max_results` and the grace ran
/// out, or the deadline.
async fn gather(
    call: &Call<'_>,
    engines: &[&ActiveEngine],
    starts: &[Option<Instant>],
    cached: Vec<Option<Vec<EngineHit>>>,
) -> Gathered {
    let max_results = call.args.max_results as usize;
    let mut running: FuturesUnordered<_> = engines
        .iter()
        .enumerate()
        .filter(|(i, _)| cached[*i].is_none())
        .map(|(i, engine)| {
            let start = starts[i];
            async move {
                if let Some(start) = start {
                    sleep_until(start).await;
                }
                let answer =
                    round_trip::query_engine(call.ctx, engine, &call.args, call.deadline).await;
                (i, answer)
            }
        })
        .collect();
    let mut stop = StopAt {
        at: call.deadline,
        grace: Duration::from_millis(call.ctx.config.search.grace_ms),
        cut_early: false,
    };
    // A cached answer is in at once: one that fills max_results starts the
    // grace, as the same answer fresh would have.
    for hits in cached.iter().flatten() {
        stop.heard(hits.len(), max_results);
    }
    let mut answers: Vec<Option<EngineAnswer>> = cached
        .into_iter()
        .map(|hits| hits.map(EngineAnswer::Cached))
        .collect();
    loop {
        tokio::select! {
            next = running.next() => match next {
                Some((i, answer)) => {
                    if let EngineAnswer::Hits { hits, .. } = &answer {
                        stop.heard(hits.len(), max_results);
                    }
                    answers[i] = Some(answer);
                }
                None => break,
            },
            () = sleep_until(stop.at) => break,
        }
    }
    // Engines still running can no longer matter: dropping their futures
    // cancels their work in the workers (REQ-AGG-006).
    drop(running);
    Gathered {
        answers,
        cut_early: stop.cut_early,
    }
}

/// The hits of each engine that gave some, in selection order, and the
/// failure class of each engine that gave none.
struct Answered<'a> {
    per_engine: Vec<(&'a ActiveEngine, Vec<EngineHit>)>,
    /// Each failed engine's notice class and its finer cause.
    failures: Vec<(EngineErrorClass, EngineCause)>,
    /// Indexes into `per_engine` of the fresh answers the cache may keep:
    /// asked now (not from the cache), and not paced by the provider.
    storable: Vec<usize>,
    /// An engine asked in this call failed or was late at the deadline: the
    /// call's answer is partial, and none of its parts is kept.
    partial: bool,
}

/// Step 3: records what each engine's answer says of its health, keeps
/// fresh answers in the cache, and gives a notice for each engine that
/// failed.
fn record_answers<'a>(
    call: &Call<'a>,
    engines: Vec<&'a ActiveEngine>,
    probes: Vec<Option<ProbeGuard<'_>>>,
    gathered: Gathered,
    notices: &mut Vec<Notice>,
) -> Answered<'a> {
    let health = &call.ctx.health;
    let observer = &call.ctx.observer;
    let mut answered = Answered {
        per_engine: Vec::new(),
        failures: Vec::new(),
        storable: Vec::new(),
        partial: false,
    };
    for ((engine, answer), probe) in engines.into_iter().zip(gathered.answers).zip(probes) {
        let id = engine.config.id.as_str();
        // The circuit hears of failures of the engine's own: not of a wait
        // for its concurrency slot, nor of a cut by early completion, nor of
        // a worker's death (a probe cut short is given back when its guard
        // drops).
        let (class, cause) = match answer {
            Some(EngineAnswer::Hits {
                hits,
                latency_ms,
                pause_until,
            }) => {
                health.record_completion(id, latency_ms);
                observer.engine_answered(id, None, Some(Duration::from_millis(latency_ms)));
                if let Some(until) = pause_until {
                    // The provider asked for a pause: its answer counts,
                    // and the engine is skipped as rate limited until then.
                    health.hold(id, until.saturating_duration_since(Instant::now()));
                }
                health.record_success(id);
                settle(probe);
                // A provider that asked for a pause was throttling: what it
                // sent may be cut short.
                if pause_until.is_none() {
                    answered.storable.push(answered.per_engine.len());
                }
                answered.per_engine.push((engine, hits));
                continue;
            }
            // The engine was not asked: its health hears nothing.
            Some(EngineAnswer::Cached(hits)) => {
                answered.per_engine.push((engine, hits));
                continue;
            }
            Some(EngineAnswer::Failed {
                failure,
                cause,
                latency_ms,
            }) => {
                if let Some(latency_ms) = latency_ms {
                    health.record_completion(id, latency_ms);
                }
                observer.engine_answered(
                    id,
                    Some(failure.class),
                    latency_ms.map(Duration::from_millis),
                );
                health.record_failure(id, failure);
                settle(probe);
                answered.partial = true;
                (failure.class, cause)
            }
            // A worker failed, not the engine: its circuit hears nothing
            // (a probe is given back when its guard drops).
            Some(EngineAnswer::Lost(class)) => {
                observer.engine_answered(id, Some(class), None);
                answered.partial = true;
                (class, FailureCause::Internal)
            }
            Some(EngineAnswer::NotSent) => {
                answered.partial = true;
                (EngineErrorClass::Timeout, FailureCause::Timeout)
            }
            None => {
                let class = EngineErrorClass::Timeout;
                if !gathered.cut_early {
                    observer.engine_answered(id, Some(class), None);
                    health.record_failure(id, Failure::of(class));
                    settle(probe);
                    answered.partial = true;
                }
                tracing::info!(
                    event = "engine_result",
                    engine = id,
                    class = class.as_str(),
                    cause = FailureCause::Timeout.as_str(),
                    "engine did not answer in time"
                );
                (class, FailureCause::Timeout)
            }
        };
        answered.failures.push((
            class,
            EngineCause {
                engine: id.to_owned(),
                cause,
            },
        ));
        notices.push(Notice::engine_failed(&engine.config.id, class));
    }
    answered
}

/// Keeps the call's fresh answers for later calls, complete ones only
/// (§12): an engine's answer with at least one hit, in a call where no
/// engine asked failed. An empty answer or one part of a partial call
/// served from the cache would repeat a passing failure for the entry's
/// whole lifetime; asking again costs time only.
fn store_complete(call: &Call<'_>, answered: &Answered<'_>) {
    if answered.partial {
        return;
    }
    for &i in &answered.storable {
        let (engine, hits) = &answered.per_engine[i];
        if !hits.is_empty() {
            call.store(engine, hits);
        }
    }
}

/// Step 4: the one outcome. No hits at all is `unavailable`; otherwise the
/// hits are merged and ranked, and the URLs returned remembered for strict
/// mode.
fn finish(
    call: &Call<'_>,
    answered: Answered<'_>,
    mut notices: Vec<Notice>,
) -> Result<SearchResponse, ToolError> {
    let Answered {
        per_engine,
        failures,
        ..
    } = answered;
    if per_engine.is_empty() {
        // Nothing answered: the deadline when every engine ran out of time,
        // otherwise a failure of every engine (§7).
        return Err(
            if failures
                .iter()
                .all(|(c, _)| *c == EngineErrorClass::Timeout)
            {
                ToolError::search_deadline()
            } else {
                ToolError::all_failed(failures.into_iter().map(|(_, cause)| cause).collect())
            },
        );
    }
    let config = &call.ctx.config;
    let options = rank::RankOptions {
        attribution: config.service.attribution,
        drop_instruction_like: config.search.drop_instruction_like,
        egress: &config.egress.policy,
    };
    let max_results = call.args.max_results as usize;
    let results = rank::merge(per_engine, max_results, options, &mut notices);
    // Strict mode admits to web_fetch the URLs returned here (REQ-SEC-021).
    call.ctx
        .record_returned(results.iter().map(|result| result.url.as_str()));
    let outcome = match (results.is_empty(), failures.len()) {
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
                tool = crate::tools::ToolName::WebSearch.as_str(),
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
use rank::{Tally, check_url, comparison_key, names_refused_address, returned_url};

#[cfg(test)]
mod tests;
