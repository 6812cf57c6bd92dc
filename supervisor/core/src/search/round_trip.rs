//! One engine's round trip (REQ-AGG-002, REQ-ENG-005, REQ-ENG-006,
//! REQ-CMP-002): its concurrency slot, the request its driver builds,
//! worker-net, worker-parse, and the answer classified into hits or a
//! failure. The round trip reports what happened (its latency, a pause
//! the provider asked for); the pipeline in `search.rs` records it in the
//! engine's health.

use std::time::Duration;

use rypsok_egress::EgressPolicy;
use rypsok_proto::{
    EngineFailure, EngineHit, EngineParse, ExchangeRequest, FailureCause, NetFailure, Profile,
};
use tokio::time::{Instant, timeout_at};

use crate::config::admitted_endpoint_of;
use crate::context::{ActiveEngine, Context};
use crate::engine::{Driver, SearchContext};
use crate::health::Failure;
use crate::limits::{ENGINE_MAX_BYTES, RESULTS_PER_ENGINE, WORKER_SLACK};
use crate::ports::{EngineResponse, ExchangeError, PortError};
use crate::response::EngineErrorClass;
use crate::validate::SearchArgs;

/// What one engine contributed.
#[derive(Debug)]
pub(super) enum EngineAnswer {
    /// The engine answered with hits.
    Hits {
        hits: Vec<EngineHit>,
        /// How long the exchange took.
        latency_ms: u64,
        /// The provider asked for a pause before the next request: the
        /// engine is rate limited until then (a pause capped at
        /// `RETRY_AFTER_MAX_S`).
        pause_until: Option<Instant>,
    },
    /// The search cache's copy of an earlier answer; the engine was not
    /// asked.
    Cached(Vec<EngineHit>),
    /// The engine failed.
    Failed {
        failure: Failure,
        /// Why, in the finer words of `all_failed` and the logs.
        cause: FailureCause,
        /// How long the exchange took, when it completed (the answer then
        /// did not parse, or said the engine failed).
        latency_ms: Option<u64>,
    },
    /// The engine's concurrency slot did not free up in time: nothing was
    /// sent, so the engine itself did not fail.
    NotSent,
    /// A worker died holding the exchange or the parse, or is being
    /// replaced: rypsok failed, not the engine, whose circuit hears
    /// nothing of it (a kill is never blamed on a healthy engine).
    Lost(EngineErrorClass),
}

/// Queries one engine: build, exchange in worker-net, parse in worker-parse,
/// classify.
pub(super) async fn query_engine(
    ctx: &Context,
    engine: &ActiveEngine,
    args: &SearchArgs,
    search_deadline: Instant,
) -> EngineAnswer {
    let id = engine.config.id.as_str();
    let engine_deadline =
        search_deadline.min(Instant::now() + Duration::from_millis(engine.config.timeout_ms));
    let Ok(_permit) = timeout_at(engine_deadline, engine.concurrency.acquire()).await else {
        return EngineAnswer::NotSent;
    };
    let count = RESULTS_PER_ENGINE;
    let call = SearchContext {
        lang: &args.language,
        query: &args.query,
        count,
        category: args.category,
        region: &ctx.config.search.region,
        safe_search: ctx.config.search.safe_search,
        time_range: args.time_range,
        credential: engine.credential.as_ref(),
        contact: &ctx.config.service.contact,
        now_unix: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |since| {
                i64::try_from(since.as_secs()).unwrap_or(i64::MAX)
            }),
    };
    let started = Instant::now();
    let network_time = engine_deadline
        .saturating_duration_since(started)
        .saturating_sub(WORKER_SLACK)
        .max(Duration::from_millis(1));
    let (exchange, base_url) = engine_exchange(ctx, engine, &call, network_time);
    let response = match ctx.net.exchange(exchange, engine_deadline).await {
        Ok(response) => response,
        Err(ExchangeError::Net(failure)) => {
            return failed(id, Failure::of(classify_net(failure)), failure.into(), None);
        }
        Err(ExchangeError::Port(e)) => return port_failed(id, e, None),
    };
    let latency_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    let answer = EngineResponse {
        engine: engine.config.kind,
        base_url,
        response,
    };
    match ctx
        .parse
        // Parsing an engine answer takes microseconds; the search's deadline
        // bounds a parser that does not.
        .parse_engine_answer(answer, search_deadline)
        .await
    {
        Ok(EngineParse::Hits(hits)) => {
            tracing::info!(
                event = "engine_result",
                engine = id,
                latency_ms,
                count = hits.len(),
                "engine answered"
            );
            EngineAnswer::Hits {
                hits,
                latency_ms,
                pause_until: None,
            }
        }
        Ok(EngineParse::Paced { hits, wait_ms }) => {
            let pause = Duration::from_millis(rypsok_proto::capped_ms(wait_ms));
            tracing::info!(
                event = "engine_result",
                engine = id,
                latency_ms,
                count = hits.len(),
                wait_ms,
                "engine answered and asked for a pause"
            );
            EngineAnswer::Hits {
                hits,
                latency_ms,
                pause_until: Some(Instant::now() + pause),
            }
        }
        Ok(EngineParse::Failure(f)) => failed(id, classify_engine(f), f.into(), Some(latency_ms)),
        Err(e) => port_failed(id, e, Some(latency_ms)),
    }
}

/// A worker gave no answer: one that missed the deadline counts as the
/// engine's timeout (worker-net's own bound, below the deadline, did not
/// end the exchange first, so the engine was still sending); one that died
/// or is backing off is rypsok's failure, [`EngineAnswer::Lost`].
fn port_failed(engine: &str, error: PortError, latency_ms: Option<u64>) -> EngineAnswer {
    match error {
        PortError::Timeout => failed(
            engine,
            Failure::of(classify_port(error)),
            cause_of_port(error),
            latency_ms,
        ),
        PortError::Unavailable | PortError::WorkerFailed => {
            let class = classify_port(error);
            tracing::info!(
                event = "engine_result",
                engine,
                class = class.as_str(),
                "a worker failed; the engine is not blamed"
            );
            EngineAnswer::Lost(class)
        }
    }
}

/// The exchange that asks `engine` for `call` within `network_time`: the
/// driver's request with rypsok's User-Agent, under the engine's egress
/// profile; with the base URL its parser resolves links against. Searches
/// and `check --online` build their requests here alike.
pub(crate) fn engine_exchange(
    ctx: &Context,
    engine: &ActiveEngine,
    call: &SearchContext<'_>,
    network_time: Duration,
) -> (ExchangeRequest, String) {
    let built = engine
        .config
        .kind
        .build(engine.config.endpoint.as_deref(), call);
    let mut headers = vec![ctx.user_agent_header()];
    headers.extend(built.headers);
    let profile = profile_for(engine, &built.url, &ctx.config.egress.policy);
    let exchange = ExchangeRequest {
        url: built.url,
        headers,
        profile,
        timeout_ms: u64::try_from(network_time.as_millis()).unwrap_or(u64::MAX),
        max_body_bytes: ENGINE_MAX_BYTES,
        pdf_max_body_bytes: None,
    };
    (exchange, built.base_url)
}

/// The egress profile of an engine's request (design §8): the engine
/// profile, with the configured endpoint admitted
/// ([`Profile::EngineEndpoint`]) when the request goes to it and the
/// operator wrote it as an address or a pinned name. A request to any
/// other origin, even one the driver built, is judged as usual.
fn profile_for(engine: &ActiveEngine, url: &str, egress: &EgressPolicy) -> Profile {
    let Some(endpoint) = engine.config.admitted_endpoint(egress) else {
        return Profile::Engine;
    };
    let goes_there = url::Url::parse(url)
        .ok()
        .and_then(|url| admitted_endpoint_of(&url, egress))
        .is_some_and(|to| to == endpoint);
    if goes_there {
        Profile::EngineEndpoint
    } else {
        Profile::Engine
    }
}

/// The `engine_result` line of a failure names its notice class and its
/// finer cause (the words of `all_failed`'s detail).
fn failed(
    engine: &str,
    failure: Failure,
    cause: FailureCause,
    latency_ms: Option<u64>,
) -> EngineAnswer {
    tracing::info!(
        event = "engine_result",
        engine,
        class = failure.class.as_str(),
        cause = cause.as_str(),
        "engine failed"
    );
    EngineAnswer::Failed {
        failure,
        cause,
        latency_ms,
    }
}

fn cause_of_port(error: PortError) -> FailureCause {
    match error {
        PortError::Timeout => FailureCause::Timeout,
        PortError::Unavailable | PortError::WorkerFailed => FailureCause::Internal,
    }
}

fn classify_net(failure: NetFailure) -> EngineErrorClass {
    match failure {
        NetFailure::Timeout => EngineErrorClass::Timeout,
        // An answer past the driver's bound is not an answer the driver can read.
        NetFailure::TooLarge | NetFailure::PdfTooLarge => EngineErrorClass::ParseFailure,
        NetFailure::InvalidUrl
        | NetFailure::Resolve
        | NetFailure::Refused(_)
        | NetFailure::Connect
        | NetFailure::Tls
        | NetFailure::Protocol
        | NetFailure::ProxyConnect
        | NetFailure::ProxyAuth
        | NetFailure::ProxyStatus => EngineErrorClass::RequestFailure,
    }
}

fn classify_port(error: PortError) -> EngineErrorClass {
    match error {
        PortError::Timeout => EngineErrorClass::Timeout,
        PortError::Unavailable | PortError::WorkerFailed => EngineErrorClass::RequestFailure,
    }
}

fn classify_engine(failure: EngineFailure) -> Failure {
    match failure {
        EngineFailure::RateLimited {
            retry_after_ms,
            quota,
        } => Failure {
            class: EngineErrorClass::RateLimited,
            retry_after_ms: retry_after_ms.map(rypsok_proto::capped_ms),
            quota,
        },
        EngineFailure::Blocked => Failure::of(EngineErrorClass::Blocked),
        EngineFailure::AuthFailure => Failure::of(EngineErrorClass::AuthFailure),
        EngineFailure::ParseFailure => Failure::of(EngineErrorClass::ParseFailure),
        EngineFailure::RequestFailure => Failure::of(EngineErrorClass::RequestFailure),
    }
}
