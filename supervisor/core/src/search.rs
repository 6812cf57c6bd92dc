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
use crate::engine::SearchContext;
use crate::error::{
    DropReason, EngineErrorClass, Notice, NoticeCode, Outcome, SkipReason, ToolError,
    UnavailableReason,
};
use crate::limits::{
    ENGINE_MAX_BYTES, ENGINES_PER_CALL, RESULTS_PER_ENGINE, SNIPPET_MAX_CHARS, TITLE_MAX_CHARS,
    URL_MAX_CHARS,
};
use crate::ports::PortError;
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

/// What one engine contributed.
#[derive(Debug)]
enum EngineAnswer {
    Hits(Vec<EngineHit>),
    Failed(EngineErrorClass),
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

    let mut selected: Vec<&ActiveEngine> = Vec::new();
    for engine in services.active_engines() {
        if !engine.config.categories.contains(&args.category) {
            continue;
        }
        if selected.len() == ENGINES_PER_CALL {
            break;
        }
        let admission = engine.driver.admission();
        let skip = if args.time_range.is_some() && !admission.time_ranges {
            Some(SkipReason::TimeRange)
        } else if !admission.languages.honours(&args.language) {
            Some(SkipReason::Language)
        } else if !admission.accepts_query(&args.query) {
            Some(SkipReason::QueryTooLong)
        } else {
            None
        };
        match skip {
            Some(reason) => notices.push(Notice::engine(
                NoticeCode::EngineSkipped,
                &engine.config.id,
                reason.as_str(),
            )),
            None => selected.push(engine),
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
        .map(|(i, engine)| {
            let args = &args;
            async move { (i, query_engine(services, engine, args, deadline).await) }
        })
        .collect();
    let mut answers: Vec<Option<EngineAnswer>> = selected.iter().map(|_| None).collect();
    let mut stop_at = deadline;
    loop {
        tokio::select! {
            next = running.next() => match next {
                Some((i, answer)) => {
                    if let EngineAnswer::Hits(hits) = &answer
                        && hits.len() >= args.max_results as usize
                    {
                        stop_at = stop_at.min(Instant::now() + grace);
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
    for (engine, answer) in selected.iter().zip(answers) {
        let class = match answer {
            Some(EngineAnswer::Hits(hits)) => {
                per_engine.push((engine, hits));
                continue;
            }
            Some(EngineAnswer::Failed(class)) => class,
            None => {
                let class = EngineErrorClass::Timeout;
                tracing::info!(event = "engine_result", engine = %engine.config.id, class = class.as_str(), "engine did not answer in time");
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
        return EngineAnswer::Failed(EngineErrorClass::Timeout);
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
    };
    let built = engine.driver.build(&engine.config, &ctx);
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
        Ok(Err(failure)) => return failed(id, classify_net(failure)),
        Err(e) => return failed(id, classify_port(e)),
    };
    let latency_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    services.health.record_completion(id, latency_ms);
    let parse = ParseRequest::EngineAnswer {
        engine: built.parser,
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
        Ok(ParseResponse::Engine(EngineParse::Failure(f))) => failed(id, classify_engine(f)),
        // An answer to another request: the worker broke the protocol.
        Ok(ParseResponse::Page(_) | ParseResponse::Robots(_)) => {
            failed(id, EngineErrorClass::ParseFailure)
        }
        Err(e) => failed(id, classify_port(e)),
    }
}

fn failed(engine: &str, class: EngineErrorClass) -> EngineAnswer {
    tracing::info!(
        event = "engine_result",
        engine,
        class = class.as_str(),
        "engine failed"
    );
    EngineAnswer::Failed(class)
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

fn classify_engine(failure: EngineFailure) -> EngineErrorClass {
    match failure {
        EngineFailure::RateLimited { .. } => EngineErrorClass::RateLimited,
        EngineFailure::Blocked => EngineErrorClass::Blocked,
        EngineFailure::AuthFailure => EngineErrorClass::AuthFailure,
        EngineFailure::ParseFailure => EngineErrorClass::ParseFailure,
        EngineFailure::RequestFailure => EngineErrorClass::RequestFailure,
    }
}

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
    merged.truncate(max_results);

    let attribution = services.config.service.attribution;
    let results = merged
        .into_iter()
        .map(|m| {
            let title = clean_markup_text(&m.hit.title, TITLE_MAX_CHARS);
            let snippet = clean_markup_text(&m.hit.snippet, SNIPPET_MAX_CHARS);
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
            result
        })
        .collect();
    for (code, n) in [
        (NoticeCode::SnippetTruncated, tally.snippets_cut),
        (NoticeCode::TitleTruncated, tally.titles_cut),
        (NoticeCode::CharactersRemoved, tally.removed),
    ] {
        if n > 0 {
            notices.push(Notice::counted(code, n));
        }
    }
    for (reason, n) in [
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

/// The comparison key of a result URL: scheme-insensitive, host
/// lower-cased without one leading `www.`, the port when not the scheme's
/// default, no fragment, no trailing slash. The full key of REQ-RANK-002
/// (tracking parameters, query order) refines this.
fn comparison_key(url: &url::Url) -> String {
    let host = url.host_str().unwrap_or_default().to_ascii_lowercase();
    let host = host.strip_prefix("www.").unwrap_or(&host);
    let port = url.port().map(|p| format!(":{p}")).unwrap_or_default();
    let path = url.path().trim_end_matches('/');
    match url.query() {
        Some(q) => format!("{host}{port}{path}?{q}"),
        None => format!("{host}{port}{path}"),
    }
}

#[cfg(test)]
mod tests;
