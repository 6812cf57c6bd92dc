//! The search pipeline (design §6, §7; REQ-AGG-001..009, REQ-RANK-001..007,
//! REQ-CTX-004, REQ-ERR-001, REQ-ERR-005): select engines, query them
//! concurrently under the deadline with early completion, merge, rank, clean,
//! cut, and decide the one outcome.

use std::collections::HashMap;
use std::time::Duration;

use futures_util::StreamExt;
use futures_util::stream::FuturesUnordered;
use rypsok_proto::{
    EngineFailure, EngineHit, EngineParse, ExchangeRequest, Header, NetFailure, ParseRequest,
    ParseResponse, Profile,
};
use serde_json::{Value, json};
use tokio::time::{Instant, sleep_until, timeout_at};

use crate::boundary::clean_markup_text;
use crate::config::SecretDetection;
use crate::engine::SearchContext;
use crate::error::{
    DropReason, EngineErrorClass, ErrorKind, Notice, NoticeCode, Outcome, SkipReason, ToolError,
    UnavailableReason,
};
use crate::health::{Admit, Failure, ProbeGuard};
use crate::instruction::is_instruction_like;
use crate::limits::{
    ENGINE_MAX_BYTES, ENGINES_PER_CALL, RESULTS_PER_ENGINE, RETRY_AFTER_MAX_S, SNIPPET_MAX_CHARS,
    TITLE_MAX_CHARS, URL_MAX_CHARS,
};
use crate::ports::PortError;
use crate::secret;
use crate::services::{ActiveEngine, Services};
use crate::validate::SearchArgs;

/// The part of an engine's time kept back from worker-net: its exchange
/// times out this much before the engine's deadline, so a healthy worker
/// has answered (if only with `timeout`) by the deadline, and a worker
/// silent at the deadline is hung and killed (LIM-W3). The deadline is never
/// after the search's own, so the check happens while the call still waits.
const WORKER_SLACK: Duration = Duration::from_millis(100);

/// Reciprocal-rank constant: the usual 60 of the RRF literature, which keeps
/// a first place on one engine from outweighing agreement between engines.
const RRF_K: f64 = 60.0;

/// The least time a paced engine's request is given before the deadline:
/// a pace slot later than the deadline less this is not waited for.
const PACED_REQUEST_TIME: Duration = Duration::from_millis(1000);

/// What one engine contributed.
#[derive(Debug)]
enum EngineAnswer {
    Hits(Vec<EngineHit>),
    Failed(Failure),
    /// The engine's concurrency slot did not free up in time: nothing was
    /// sent, so the engine itself did not fail.
    NotSent,
}

/// Runs one `web_search` call whose arguments are valid. `started` is when
/// the call began; the deadline counts from there.
pub(crate) async fn search(
    services: &Services,
    args: SearchArgs,
    started: Instant,
) -> Result<Value, ToolError> {
    let config = &services.config;
    let deadline = started + Duration::from_millis(config.search.deadline_ms);
    let grace = Duration::from_millis(config.search.grace_ms);
    let mut notices: Vec<Notice> = Vec::new();
    let mut args = args;
    check_secrets(config.privacy.secret_detection, &mut args, &mut notices)?;

    let mut selected: Vec<&ActiveEngine> = Vec::new();
    // The probe each selected engine carries, if its circuit was half open.
    let mut probes: Vec<Option<ProbeGuard<'_>>> = Vec::new();
    // When each selected engine may send: now, or a paced driver's slot.
    let mut starts: Vec<Option<Instant>> = Vec::new();
    for engine in services.active_engines() {
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
        } else {
            None
        };
        // The circuit and the driver's rate come last: admitting takes the
        // probe or a request of the rate.
        let admitted = match skip {
            Some(reason) => Err(reason),
            None => match services
                .health
                .admit(&engine.config.id, admission.rate_limit_per_minute)
            {
                Admit::Yes => Ok(false),
                Admit::Probe => Ok(true),
                Admit::Cooldown => Err(SkipReason::Cooldown),
                Admit::RateLimited => Err(SkipReason::RateLimited),
            },
        };
        // A paced driver (arXiv) takes the next free slot of its pace when
        // the slot leaves the request time before the deadline; otherwise
        // it is skipped as rate limited, its probe (if any) given back.
        let admitted = admitted.and_then(|probe| {
            let guard = probe.then(|| ProbeGuard::new(&services.health, &engine.config.id));
            let Some(interval_ms) = admission.min_interval_ms else {
                return Ok((guard, None));
            };
            let latest = deadline.checked_sub(PACED_REQUEST_TIME).unwrap_or(started);
            match services.health.reserve_slot(
                &engine.config.id,
                Duration::from_millis(interval_ms),
                latest,
            ) {
                Some(start) => Ok((guard, Some(start))),
                None => Err(SkipReason::RateLimited),
            }
        });
        match admitted {
            Err(reason) => notices.push(Notice::engine(
                NoticeCode::EngineSkipped,
                &engine.config.id,
                reason.as_str(),
            )),
            Ok((guard, start)) => {
                selected.push(engine);
                probes.push(guard);
                starts.push(start);
            }
        }
    }
    if selected.is_empty() {
        return Err(ToolError::unavailable(UnavailableReason::NoEngine, None));
    }

    // Query every engine at once; collect answers until all are in, or one
    // engine filled max_results and the grace ran out, or the deadline.
    let mut running: FuturesUnordered<_> = selected
        .iter()
        .enumerate()
        .zip(&starts)
        .map(|((i, engine), start)| {
            let args = &args;
            async move {
                if let Some(start) = *start {
                    sleep_until(start).await;
                }
                (i, query_engine(services, engine, args, deadline).await)
            }
        })
        .collect();
    let mut answers: Vec<Option<EngineAnswer>> = selected.iter().map(|_| None).collect();
    let mut stop_at = deadline;
    let mut cut_early = false;
    loop {
        tokio::select! {
            next = running.next() => match next {
                Some((i, answer)) => {
                    if let EngineAnswer::Hits(hits) = &answer
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
            Some(EngineAnswer::Hits(hits)) => {
                services.health.record_success(id);
                settle(probe);
                per_engine.push((engine, hits));
                continue;
            }
            Some(EngineAnswer::Failed(failure)) => {
                services.health.record_failure(id, failure);
                settle(probe);
                failure.class
            }
            Some(EngineAnswer::NotSent) => EngineErrorClass::Timeout,
            None => {
                let class = EngineErrorClass::Timeout;
                if !cut_early {
                    services.health.record_failure(id, Failure::of(class));
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
        notices.push(Notice::engine(
            NoticeCode::EngineUnavailable,
            &engine.config.id,
            class.as_str(),
        ));
    }
    if per_engine.is_empty() {
        // Nothing answered: the deadline when every engine ran out of time,
        // otherwise a failure of every engine (§7).
        let reason = if failures.iter().all(|c| *c == EngineErrorClass::Timeout) {
            UnavailableReason::Deadline
        } else {
            UnavailableReason::AllFailed
        };
        return Err(ToolError::unavailable(reason, None));
    }
    let failed = failures.len();

    let results = merge(
        services,
        per_engine,
        args.max_results as usize,
        &mut notices,
    );
    // Strict mode admits to web_fetch the URLs returned here (REQ-SEC-021).
    services.fetch.record_returned(
        config,
        results
            .iter()
            .filter_map(|r| r.get("url").and_then(Value::as_str)),
    );
    let outcome = match (results.is_empty(), failed) {
        (true, _) => Outcome::Empty,
        (false, 0) => Outcome::Ok,
        (false, _) => Outcome::Partial,
    };
    Ok(json!({ "outcome": outcome.as_str(), "notices": notices, "results": results }))
}

/// Queries one engine: build, exchange in worker-net, parse in worker-parse,
/// classify, record health.
async fn query_engine(
    services: &Services,
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
    let ctx = SearchContext {
        lang: &args.language,
        query: &args.query,
        count,
        category: args.category,
        region: &services.config.search.region,
        safe_search: services.config.search.safe_search,
        time_range: args.time_range,
        credential: engine.credential.as_ref(),
        contact: &services.config.service.contact,
        now_unix: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |since| {
                i64::try_from(since.as_secs()).unwrap_or(i64::MAX)
            }),
    };
    let built = engine
        .config
        .kind
        .build(engine.config.endpoint.as_deref(), &ctx);
    let mut headers = vec![Header {
        name: "user-agent".to_owned(),
        value: services.user_agent.clone(),
    }];
    headers.extend(built.headers);
    let started = Instant::now();
    let network_time = engine_deadline
        .saturating_duration_since(started)
        .saturating_sub(WORKER_SLACK)
        .max(Duration::from_millis(1));
    let remaining_ms = u64::try_from(network_time.as_millis()).unwrap_or(u64::MAX);
    let exchange = ExchangeRequest {
        url: built.url,
        headers,
        profile: Profile::Engine,
        timeout_ms: remaining_ms,
        max_body_bytes: ENGINE_MAX_BYTES,
    };
    let response = match services.net.exchange(exchange, engine_deadline).await {
        Ok(Ok(response)) => response,
        Ok(Err(failure)) => return failed(id, Failure::of(classify_net(failure))),
        Err(e) => return failed(id, Failure::of(classify_port(e))),
    };
    let latency_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    services.health.record_completion(id, latency_ms);
    let parse = ParseRequest::EngineAnswer {
        engine: engine.config.kind.wire(),
        base_url: built.base_url,
        status: response.status,
        headers: response.headers,
        body: response.body,
    };
    match services
        .parse
        // Parsing an engine answer takes microseconds; the search's deadline
        // bounds a parser that does not.
        .parse(parse, search_deadline)
        .await
    {
        Ok(ParseResponse::Engine(EngineParse::Hits(hits))) => {
            tracing::info!(
                event = "engine_result",
                engine = id,
                latency_ms,
                count = hits.len(),
                "engine answered"
            );
            EngineAnswer::Hits(hits)
        }
        Ok(ParseResponse::Engine(EngineParse::Paced { hits, wait_ms })) => {
            // The provider asked for a pause: its answer counts, and the
            // engine is skipped as rate limited until the pause is over.
            services.health.hold(
                id,
                Duration::from_millis(wait_ms.min(RETRY_AFTER_MAX_S * 1000)),
            );
            tracing::info!(
                event = "engine_result",
                engine = id,
                latency_ms,
                count = hits.len(),
                wait_ms,
                "engine answered and asked for a pause"
            );
            EngineAnswer::Hits(hits)
        }
        Ok(ParseResponse::Engine(EngineParse::Failure(f))) => failed(id, classify_engine(f)),
        // An answer to another request: the worker broke the protocol.
        Ok(ParseResponse::Page(_) | ParseResponse::Robots(_)) => {
            failed(id, Failure::of(EngineErrorClass::ParseFailure))
        }
        Err(e) => failed(id, Failure::of(classify_port(e))),
    }
}

/// The probe's outcome was recorded (no probe: nothing to do).
fn settle(probe: Option<ProbeGuard<'_>>) {
    if let Some(probe) = probe {
        probe.settle();
    }
}

fn failed(engine: &str, failure: Failure) -> EngineAnswer {
    tracing::info!(
        event = "engine_result",
        engine,
        class = failure.class.as_str(),
        "engine failed"
    );
    EngineAnswer::Failed(failure)
}

fn classify_net(failure: NetFailure) -> EngineErrorClass {
    match failure {
        NetFailure::Timeout => EngineErrorClass::Timeout,
        // An answer past the driver's bound is not an answer the driver can read.
        NetFailure::TooLarge => EngineErrorClass::ParseFailure,
        NetFailure::InvalidUrl
        | NetFailure::Resolve
        | NetFailure::Refused
        | NetFailure::Connect
        | NetFailure::Tls
        | NetFailure::Protocol => EngineErrorClass::RequestFailure,
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
            retry_after_ms: retry_after_ms.map(|ms| ms.min(RETRY_AFTER_MAX_S * 1000)),
            quota,
        },
        EngineFailure::Blocked => Failure::of(EngineErrorClass::Blocked),
        EngineFailure::AuthFailure => Failure::of(EngineErrorClass::AuthFailure),
        EngineFailure::ParseFailure => Failure::of(EngineErrorClass::ParseFailure),
        EngineFailure::RequestFailure => Failure::of(EngineErrorClass::RequestFailure),
    }
}

/// The secret check (§10, LIM-P1; REQ-PRIV-002), before any engine is
/// asked. A refusal names the format and where it starts, never the text;
/// nothing of the query is logged in any mode.
fn check_secrets(
    mode: SecretDetection,
    args: &mut SearchArgs,
    notices: &mut Vec<Notice>,
) -> Result<(), ToolError> {
    if mode == SecretDetection::Off {
        return Ok(());
    }
    let findings = secret::find(&args.query);
    let Some(first) = findings.first() else {
        return Ok(());
    };
    match mode {
        SecretDetection::Refuse => {
            tracing::info!(
                event = "refused",
                tool = "web_search",
                reason = SECRET_IN_QUERY,
                kind = first.kind.as_str(),
                "query refused: it carries a credential"
            );
            Err(ToolError {
                kind: ErrorKind::Denied,
                message: "the query looks like it carries a credential; remove it and search again"
                    .to_owned(),
                detail: json!({
                    "reason": SECRET_IN_QUERY,
                    "kind": first.kind.as_str(),
                    "position": first.position,
                })
                .as_object()
                .cloned()
                .unwrap_or_default(),
            })
        }
        SecretDetection::Warn => {
            tracing::warn!(
                event = "secret_in_query",
                kind = first.kind.as_str(),
                position = first.position,
                "the query carries a credential; sent as written because the operator chose warn"
            );
            Ok(())
        }
        SecretDetection::Mask => {
            args.query = secret::mask(&args.query, &findings);
            notices.push(Notice::counted(
                NoticeCode::CredentialMasked,
                findings.len() as u64,
            ));
            Ok(())
        }
        SecretDetection::Off => Ok(()),
    }
}

/// The `denied` reason of a credential in a query (§4). The denied reasons
/// are spelled here until the fetch pipeline brings their vocabulary.
const SECRET_IN_QUERY: &str = "secret_in_query";

/// One result after merging: every observation of one comparison key.
struct Merged {
    /// The best-ranked observation (lowest rank; the earlier engine in
    /// preference order on a tie).
    hit: EngineHit,
    best_rank: usize,
    /// The best-ranked https URL seen for this key, if any.
    best_https: Option<(usize, String)>,
    score: f64,
    engines: Vec<String>,
}

/// Counts of what cleaning and checking did, for the notices.
#[derive(Default)]
struct Tally {
    titles_cut: u64,
    snippets_cut: u64,
    removed: u64,
    url_too_long: u64,
    url_invalid: u64,
    instruction_like: u64,
    instruction_dropped: u64,
}

/// Checks each engine's hits (worker-parse is not trusted to have done so),
/// deduplicates across engines by comparison key, fuses ranks, orders
/// totally, cleans and cuts (REQ-ENG-011, REQ-RANK-003..007, REQ-CTX-004).
fn merge(
    services: &Services,
    per_engine: Vec<(&ActiveEngine, Vec<EngineHit>)>,
    max_results: usize,
    notices: &mut Vec<Notice>,
) -> Vec<Value> {
    let mut tally = Tally::default();
    let mut merged: Vec<Merged> = Vec::new();
    let mut by_key: HashMap<String, usize> = HashMap::new();
    for (engine, hits) in per_engine {
        let weight = engine.config.weight;
        for (rank, mut hit) in hits
            .into_iter()
            .take(RESULTS_PER_ENGINE as usize)
            .enumerate()
        {
            let Some(parsed) = check_url(&hit.url, &mut tally) else {
                continue;
            };
            if hit
                .date
                .as_deref()
                .is_some_and(|d| !rypsok_proto::is_iso_date(d))
            {
                hit.date = None;
            }
            // The URL returned is the engine's, less its tracking
            // parameters (REQ-RANK-003).
            hit.url = returned_url(&hit.url);
            let https = (parsed.scheme() == "https").then(|| (rank, hit.url.clone()));
            let score = weight / (RRF_K + rank as f64 + 1.0);
            let key = comparison_key(&parsed);
            if let Some(&i) = by_key.get(&key) {
                let m = &mut merged[i];
                m.score += score;
                if rank < m.best_rank {
                    m.best_rank = rank;
                    m.hit = hit;
                }
                if let Some((r, url)) = https
                    && m.best_https.as_ref().is_none_or(|(best, _)| r < *best)
                {
                    m.best_https = Some((r, url));
                }
                if !m.engines.contains(&engine.config.id) {
                    m.engines.push(engine.config.id.clone());
                }
            } else {
                by_key.insert(key, merged.len());
                merged.push(Merged {
                    hit,
                    best_rank: rank,
                    best_https: https,
                    score,
                    engines: vec![engine.config.id.clone()],
                });
            }
        }
    }
    // A total order: score, then best rank, then URL bytes, so identical
    // engine answers give identical output (I8).
    merged.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then(a.best_rank.cmp(&b.best_rank))
            .then_with(|| a.hit.url.cmp(&b.hit.url))
    });
    // Clean in rank order until max_results are kept; a result whose
    // title or snippet reads like an instruction is noticed, or dropped
    // when the operator chose so, and the next one takes its place.
    let attribution = services.config.service.attribution;
    let drop_instruction_like = services.config.search.drop_instruction_like;
    let mut results = Vec::new();
    for m in merged {
        if results.len() == max_results {
            break;
        }
        let title = clean_markup_text(&m.hit.title, TITLE_MAX_CHARS);
        let snippet = clean_markup_text(&m.hit.snippet, SNIPPET_MAX_CHARS);
        if is_instruction_like(&title.text) || is_instruction_like(&snippet.text) {
            if drop_instruction_like {
                tally.instruction_dropped += 1;
                continue;
            }
            tally.instruction_like += 1;
        }
        tally.titles_cut += u64::from(title.truncated);
        tally.snippets_cut += u64::from(snippet.truncated);
        tally.removed += (title.removed + snippet.removed) as u64;
        // One resource seen over http and https is shown over https
        // (REQ-RANK-003).
        let url = match m.best_https {
            Some((_, https)) if !m.hit.url.starts_with("https:") => https,
            _ => m.hit.url,
        };
        let mut result = json!({ "title": title.text, "url": url, "snippet": snippet.text });
        if let (Some(date), Some(obj)) = (m.hit.date, result.as_object_mut()) {
            obj.insert("date".to_owned(), json!(date));
        }
        let required = m.engines.iter().any(|id| services.attribution_required(id));
        if let (true, Some(obj)) = (attribution || required, result.as_object_mut()) {
            obj.insert("engines".to_owned(), json!(m.engines));
        }
        results.push(result);
    }
    for (code, n) in [
        (NoticeCode::SnippetTruncated, tally.snippets_cut),
        (NoticeCode::TitleTruncated, tally.titles_cut),
        (NoticeCode::CharactersRemoved, tally.removed),
        (NoticeCode::InstructionLikeContent, tally.instruction_like),
    ] {
        if n > 0 {
            notices.push(Notice::counted(code, n));
        }
    }
    for (reason, n) in [
        (
            DropReason::InstructionLikeContent,
            tally.instruction_dropped,
        ),
        (DropReason::UrlTooLong, tally.url_too_long),
        (DropReason::UrlInvalid, tally.url_invalid),
    ] {
        if n > 0 {
            notices.push(Notice {
                code: NoticeCode::ResultsDropped,
                engine: None,
                reason: Some(reason.as_str()),
                count: Some(n),
            });
        }
    }
    results
}

/// A result URL the caller could use: http(s), a host without empty labels,
/// within LIM-F9. Anything else is dropped and counted.
fn check_url(url: &str, tally: &mut Tally) -> Option<url::Url> {
    if url.chars().count() > URL_MAX_CHARS {
        tally.url_too_long += 1;
        return None;
    }
    let parsed = url::Url::parse(url).ok().filter(|u| {
        matches!(u.scheme(), "http" | "https")
            && u.host_str().is_some_and(|h| {
                let h = h.strip_suffix('.').unwrap_or(h);
                !h.is_empty() && !h.split('.').any(str::is_empty)
            })
    });
    if parsed.is_none() {
        tally.url_invalid += 1;
    }
    parsed
}

/// Query parameters that only track where a visitor came from
/// (REQ-RANK-002, REQ-RANK-003): campaign tags of the analytics suites and
/// the click identifiers of the ad networks. Compared ASCII
/// case-insensitively on the raw name; `utm_` is a prefix.
const TRACKING_PARAMETERS: &[&str] = &[
    "_ga",
    "_gl",
    "_hsenc",
    "_hsmi",
    "dclid",
    "fbclid",
    "gbraid",
    "gclid",
    "gclsrc",
    "igshid",
    "mc_cid",
    "mc_eid",
    "mkt_tok",
    "msclkid",
    "oly_anon_id",
    "oly_enc_id",
    "srsltid",
    "ttclid",
    "twclid",
    "vero_id",
    "wbraid",
    "yclid",
];

fn is_tracking_parameter(pair: &str) -> bool {
    let name = pair.split_once('=').map_or(pair, |(name, _)| name);
    let lower = name.to_ascii_lowercase();
    lower.starts_with("utm_") || TRACKING_PARAMETERS.contains(&lower.as_str())
}

/// The URL a result shows (REQ-RANK-003): the engine's, byte for byte,
/// unless it carries tracking parameters; then its query is rebuilt from
/// the other parameters, each keeping its text and its place, and the `?`
/// goes when none is left. The fragment stays.
fn returned_url(url: &str) -> String {
    let (before_fragment, fragment) = match url.find('#') {
        Some(at) => url.split_at(at),
        None => (url, ""),
    };
    let Some((base, query)) = before_fragment.split_once('?') else {
        return url.to_owned();
    };
    if !query.split('&').any(is_tracking_parameter) {
        return url.to_owned();
    }
    let kept: Vec<&str> = query
        .split('&')
        .filter(|pair| !is_tracking_parameter(pair))
        .collect();
    let kept = kept.join("&");
    if kept.is_empty() {
        format!("{base}{fragment}")
    } else {
        format!("{base}?{kept}{fragment}")
    }
}

/// The comparison key of a result URL (REQ-RANK-002): one resource, however
/// the engines wrote it. The scheme does not count (http and https merge);
/// the host is lower-cased (the URL parser has already put it in ASCII,
/// IDNA included) without one leading `www.` and without a root dot; a
/// port counts only when it is not the scheme's default; the path keeps its
/// case but not a trailing slash; the fragment does not count; tracking
/// parameters and empty pairs do not count, and the others count in sorted
/// order, so `?b=2&a=1` and `?a=1&b=2` are one resource.
fn comparison_key(url: &url::Url) -> String {
    let host = url.host_str().unwrap_or_default().to_ascii_lowercase();
    let host = host.strip_suffix('.').unwrap_or(&host);
    let host = host.strip_prefix("www.").unwrap_or(host);
    let port = url.port().map(|p| format!(":{p}")).unwrap_or_default();
    let path = url.path().trim_end_matches('/');
    let mut pairs: Vec<&str> = url
        .query()
        .unwrap_or_default()
        .split('&')
        .filter(|pair| !pair.is_empty() && !is_tracking_parameter(pair))
        .collect();
    pairs.sort_unstable();
    if pairs.is_empty() {
        format!("{host}{port}{path}")
    } else {
        format!("{host}{port}{path}?{}", pairs.join("&"))
    }
}

#[cfg(test)]
mod tests;
