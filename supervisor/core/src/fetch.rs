//! The fetch pipeline (design §3.2, §7, §8, §14; ARCHITECTURE.md "Request
//! flow"; REQ-PAGE-001): URL policy → robots.txt → one hop in worker-net →
//! redirect (same host: robots again and loop up to LIM-F7; another host:
//! `redirected`, or follow when the operator allowed it) → status → the
//! document read in worker-parse → content boundary → window → envelope.
//!
//! The supervisor reads only headers here (status, `Location`,
//! `Retry-After`, `Content-Type` passed on untouched); every body goes to
//! worker-parse.

pub(crate) mod policy;
mod robots;
#[cfg(test)]
mod tests;

use std::time::Duration;

use futures_util::FutureExt as _;
use rypsok_proto::limits::{
    FETCH_CALL_MAX_MS, FETCH_MAX_REDIRECTS, FETCH_NETWORK_BUDGET_MS, RETRY_AFTER_MAX_S,
};
use rypsok_proto::{
    ExchangeRequest, ExchangeResponse, Header, NetFailure, PageParse, ParseRequest, ParseResponse,
    Profile,
};
use serde_json::{Value, json};
use tokio::sync::Semaphore;
use tokio::time::{Instant, timeout_at};
use url::Url;

use crate::boundary::{clean_decoded_text, clean_document_text};
use crate::config::{Config, SecretDetection};
use crate::error::{DeniedReason, ErrorKind, Notice, NoticeCode, ToolError, UnavailableReason};
use crate::limits::TITLE_MAX_CHARS;
use crate::ports::PortError;
use crate::ratelimit::{Caller, CallerPermits, RateLimit};
use crate::services::Services;
use crate::validate::FetchArgs;

pub(crate) use policy::ReturnedUrls;
use policy::{Strict, Target};

/// Kept back from worker-net's timeout so that a healthy worker answers
/// (if only with `timeout`) before the port's deadline.
const WORKER_SLACK: Duration = Duration::from_millis(100);

/// The longest media type an `unsupported_content` error carries.
const MEDIA_TYPE_MAX_CHARS: usize = 100;

/// What a page request accepts: Markdown first, then HTML (REQ-FETCH-002).
const PAGE_ACCEPT: &str =
    "text/markdown, text/html;q=0.9, application/xhtml+xml;q=0.9, text/plain;q=0.8, */*;q=0.1";

/// The fetch state of one process: the tool's rate limit (LIM-C7), its
/// concurrency (LIM-F10, for the process and each caller's share), the
/// robots.txt cache (LIM-F13) and, in strict mode, the URLs `web_search`
/// returned.
#[derive(Debug)]
pub(crate) struct FetchState {
    rate: RateLimit,
    in_flight: Semaphore,
    callers: CallerPermits,
    robots: robots::RobotsCache,
    pub(crate) returned: ReturnedUrls,
}

impl FetchState {
    pub(crate) fn new(config: &Config) -> Self {
        Self {
            rate: RateLimit::per_minute(config.limits.web_fetch_per_minute),
            in_flight: Semaphore::new(config.limits.fetch_concurrency as usize),
            callers: CallerPermits::new(config.limits.fetch_concurrency),
            robots: robots::RobotsCache::default(),
            returned: ReturnedUrls::default(),
        }
    }

    /// Remembers the URLs a search returned, when strict mode needs them.
    pub(crate) fn record_returned<'a>(
        &self,
        config: &Config,
        urls: impl IntoIterator<Item = &'a str>,
    ) {
        if config.fetch.strict_mode {
            self.returned.record(urls);
        }
    }
}

/// Runs one `web_fetch` call whose arguments are valid. `started` is when
/// the call began: LIM-F4 and LIM-F5 count from there.
pub(crate) async fn fetch(
    services: &Services,
    caller: &Caller,
    args: FetchArgs,
    started: Instant,
) -> Result<Value, ToolError> {
    let config = &services.config;
    let state = &services.fetch;
    let target = policy::check(&args.url, config, &state.returned, Strict::Check)
        .inspect_err(log_refusal)?;
    state
        .rate
        .admit(caller)
        .map_err(|ms| ToolError::unavailable(UnavailableReason::RateLimited, Some(ms)))?;
    // A full limit answers at once (busy), it does not queue: the caller's
    // share first (a quarter in HTTP mode), then the process's.
    let Some(_caller_permit) = state.callers.acquire(caller).now_or_never() else {
        return Err(ToolError::unavailable(UnavailableReason::Busy, None));
    };
    let Ok(_permit) = state.in_flight.try_acquire() else {
        return Err(ToolError::unavailable(UnavailableReason::Busy, None));
    };
    // The host only now that the policy admitted it (REQ-PRIV-004), and
    // never when a credential-shaped text (let through in warn mode) lies
    // in it.
    if host_may_be_logged(config, &args.url) {
        tracing::info!(event = "fetch_started", host = %target.host, "fetch admitted");
    } else {
        tracing::info!(event = "fetch_started", "fetch admitted");
    }
    let call_deadline = started + Duration::from_millis(FETCH_CALL_MAX_MS);
    let network_deadline = started + Duration::from_millis(FETCH_NETWORK_BUDGET_MS);
    let outcome = match timeout_at(
        call_deadline,
        run(services, target, &args, network_deadline, call_deadline),
    )
    .await
    {
        Ok(outcome) => outcome,
        Err(_) => Err(ToolError::fetch_deadline()),
    };
    match &outcome {
        Ok(_) => tracing::info!(event = "fetch_result", outcome = "ok", "fetch answered"),
        Err(e) => {
            let reason = e.reason();
            tracing::info!(
                event = "fetch_result",
                outcome = e.kind.as_str(),
                reason,
                "fetch failed"
            );
        }
    }
    outcome
}

/// Whether the host of the admitted URL `text` may appear in the log: not
/// when the secret check found a credential-shaped text in it.
fn host_may_be_logged(config: &Config, text: &str) -> bool {
    config.privacy.secret_detection == SecretDetection::Off || !policy::secret_in_host(text)
}

fn log_refusal(e: &ToolError) {
    let reason = e.reason();
    tracing::info!(
        event = "fetch_refused",
        kind = e.kind.as_str(),
        reason,
        "fetch refused by policy"
    );
}

/// The hops, the status, the document.
async fn run(
    services: &Services,
    mut target: Target,
    args: &FetchArgs,
    network_deadline: Instant,
    call_deadline: Instant,
) -> Result<Value, ToolError> {
    let config = &services.config;
    let max_bytes = config.fetch.max_bytes;
    let mut hops = 0u32;
    let response = loop {
        if config.fetch.robots_txt {
            robots::check(services, &target, network_deadline, call_deadline).await?;
        }
        let response = exchange(
            services,
            &target.url,
            PAGE_ACCEPT,
            max_bytes,
            network_deadline,
        )
        .await
        .map_err(|f| f.into_error(target.upgraded, max_bytes))?;
        let Some(location) = redirect_location(&response) else {
            break response;
        };
        // A location that does not resolve against the page is a broken
        // site, not a policy matter.
        let next = target
            .url
            .join(location)
            .map_err(|_| ToolError::unavailable(UnavailableReason::Network, None))?;
        hops += 1;
        if hops > FETCH_MAX_REDIRECTS {
            return Err(ToolError::unavailable(UnavailableReason::Network, None));
        }
        let hop = check_hop(next.as_str(), services, Strict::Skip)?;
        if hop.host == target.host {
            target = hop;
            continue;
        }
        if !config.fetch.follow_cross_host_redirects {
            // The target's robots.txt is honoured too: a target it
            // disallows is denied, robots_txt; any other failure of that
            // check (unreachable, a failed https upgrade) still returns the
            // redirect, since rypsok does not read the target.
            if config.fetch.robots_txt {
                match robots::check(services, &hop, network_deadline, call_deadline).await {
                    Err(e) if is_robots_denial(&e) => return Err(e),
                    Err(_) | Ok(()) => {}
                }
            }
            return Err(ToolError::redirected(next.to_string()));
        }
        target = check_hop(next.as_str(), services, Strict::Check)?;
    };
    let status = response.status;
    if status >= 400 {
        return Err(ToolError::http_status(
            status,
            retry_after_ms(&response.headers),
        ));
    }
    if !(200..300).contains(&status) {
        return Err(ToolError::unavailable(UnavailableReason::Network, None));
    }
    let content_type = header(&response.headers, "content-type").map(str::to_owned);
    let request = ParseRequest::Page {
        body: response.body,
        content_type,
        url: target.url.to_string(),
    };
    let (title, markdown, partial) = match services.parse.parse(request, call_deadline).await {
        Ok(ParseResponse::Page(PageParse::Page {
            title,
            markdown,
            partial,
        })) => (title, markdown, partial),
        Ok(ParseResponse::Page(PageParse::Unsupported { media_type })) => {
            let media_type = clean_decoded_text(&media_type, MEDIA_TYPE_MAX_CHARS).text;
            return Err(ToolError::unsupported_media_type(media_type));
        }
        Err(PortError::Timeout) => return Err(ToolError::fetch_deadline()),
        // No content, a parser that died on the document, or an answer to
        // another question: nothing could be extracted.
        Ok(
            ParseResponse::Page(PageParse::NoContent)
            | ParseResponse::Engine(_)
            | ParseResponse::Robots(_),
        )
        | Err(PortError::Unavailable | PortError::WorkerFailed) => {
            return Err(ToolError::extraction_failed());
        }
    };
    // Cleaning and windowing a document of up to LIM-F3 is CPU work of up
    // to a few hundred milliseconds: off the async threads, so that other
    // calls keep their deadlines.
    let url = target.url.to_string();
    let args = args.clone();
    tokio::task::spawn_blocking(move || respond(url, title.as_deref(), &markdown, partial, &args))
        .await
        .unwrap_or_else(|_| Err(ToolError::extraction_failed()))
}

/// A redirect target passes the whole URL policy again; a location the
/// policy cannot even read (too long, unparsable) is refused like a
/// destination it refuses.
/// Whether `e` is the denial of a robots.txt rule.
fn is_robots_denial(e: &ToolError) -> bool {
    e.kind == ErrorKind::Denied
        && e.detail.get("reason").and_then(Value::as_str) == Some(DeniedReason::RobotsTxt.as_str())
}

fn check_hop(text: &str, services: &Services, strict: Strict) -> Result<Target, ToolError> {
    policy::check(text, &services.config, &services.fetch.returned, strict).map_err(|e| {
        if e.kind == ErrorKind::InvalidRequest {
            ToolError::denied(DeniedReason::Egress)
        } else {
            e
        }
    })
}

/// The envelope: title and content through the content boundary, then the
/// window of `max_chars` Unicode scalar values from `start_char`.
fn respond(
    url: String,
    title: Option<&str>,
    markdown: &str,
    partial: bool,
    args: &FetchArgs,
) -> Result<Value, ToolError> {
    let title = clean_decoded_text(title.unwrap_or_default(), TITLE_MAX_CHARS);
    let content = clean_document_text(markdown);
    let length = content.text.chars().count();
    if content.text.trim().is_empty() {
        return Err(ToolError::extraction_failed());
    }
    if args.start_char >= length {
        return Err(ToolError::start_char_beyond(length as u64));
    }
    let end = window_end(&content.text, args.start_char, args.max_chars, length);
    let window = char_slice(&content.text, args.start_char, end);
    let truncated = end < length;
    let mut notices = Vec::new();
    if title.truncated {
        notices.push(Notice::counted(NoticeCode::TitleTruncated, 1));
    }
    let removed = (title.removed + content.removed) as u64;
    if removed > 0 {
        notices.push(Notice::counted(NoticeCode::CharactersRemoved, removed));
    }
    let flagged = [title.text.as_str(), window]
        .into_iter()
        .filter(|t| crate::instruction::is_instruction_like(t))
        .count() as u64;
    if flagged > 0 {
        notices.push(Notice::counted(NoticeCode::InstructionLikeContent, flagged));
    }
    if partial {
        notices.push(Notice {
            code: NoticeCode::ExtractionPartial,
            engine: None,
            reason: None,
            count: None,
        });
    }
    let mut response = json!({
        "outcome": "ok",
        "notices": notices,
        "url": url,
        "title": title.text,
        "content": window,
        "truncated": truncated,
    });
    if let (true, Some(map)) = (truncated, response.as_object_mut()) {
        map.insert("next_start_char".to_owned(), json!(end));
    }
    Ok(response)
}

/// Where the window of at most `max_chars` characters from `start` ends
/// (exclusive, in characters; `length` is `text`'s). When the cut would
/// fall inside a word and a whitespace lies in the window's last tenth,
/// the window ends after that whitespace instead, so that a word is not
/// split across two windows; the next window starts where this one ends.
fn window_end(text: &str, start: usize, max_chars: usize, length: usize) -> usize {
    let end = length.min(start.saturating_add(max_chars));
    if end >= length {
        return end;
    }
    let slack = max_chars / 10;
    // The window's last `slack` characters and the one after it.
    let tail: Vec<char> = text
        .chars()
        .skip(end - slack.min(end - start))
        .take(slack.min(end - start) + 1)
        .collect();
    let (Some(&next), Some(&last)) = (tail.last(), tail.iter().rev().nth(1)) else {
        return end;
    };
    if next.is_whitespace() || last.is_whitespace() {
        return end;
    }
    match tail.iter().rposition(|c| c.is_whitespace()) {
        Some(i) => end - (tail.len() - 1) + i + 1,
        None => end,
    }
}

/// The characters `start..end` of `text`, counted in Unicode scalar values.
fn char_slice(text: &str, start: usize, end: usize) -> &str {
    let byte = |n: usize| text.char_indices().nth(n).map_or(text.len(), |(i, _)| i);
    &text[byte(start)..byte(end)]
}

/// Why a hop produced no response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HopFailure {
    Net(NetFailure),
    Port(PortError),
    /// LIM-F4 was spent before the hop could start.
    BudgetSpent,
}

impl HopFailure {
    /// The caller's answer. A name that does not resolve and a name whose
    /// every address the policy refuses answer alike (`network`).
    fn into_error(self, upgraded: bool, max_bytes: u64) -> ToolError {
        match self {
            Self::Net(NetFailure::Connect | NetFailure::Tls) if upgraded => {
                ToolError::denied_upgrade_failed()
            }
            Self::Net(NetFailure::InvalidUrl) => ToolError::denied(DeniedReason::Scheme),
            Self::Net(NetFailure::TooLarge) => ToolError::too_large(max_bytes),
            Self::Net(NetFailure::Timeout) | Self::Port(PortError::Timeout) | Self::BudgetSpent => {
                ToolError::fetch_deadline()
            }
            Self::Net(
                NetFailure::Resolve
                | NetFailure::Refused
                | NetFailure::Connect
                | NetFailure::Tls
                | NetFailure::Protocol,
            )
            | Self::Port(PortError::Unavailable | PortError::WorkerFailed) => {
                ToolError::unavailable(UnavailableReason::Network, None)
            }
        }
    }
}

/// One GET through worker-net under the agent profile, within what is left
/// of LIM-F4.
async fn exchange(
    services: &Services,
    url: &Url,
    accept: &str,
    max_bytes: u64,
    network_deadline: Instant,
) -> Result<ExchangeResponse, HopFailure> {
    let left = network_deadline
        .saturating_duration_since(Instant::now())
        .saturating_sub(WORKER_SLACK);
    if left.is_zero() {
        return Err(HopFailure::BudgetSpent);
    }
    let request = ExchangeRequest {
        url: url.to_string(),
        headers: vec![
            Header {
                name: "user-agent".to_owned(),
                value: services.user_agent.clone(),
            },
            Header {
                name: "accept".to_owned(),
                value: accept.to_owned(),
            },
        ],
        profile: Profile::Agent,
        timeout_ms: u64::try_from(left.as_millis()).unwrap_or(u64::MAX),
        max_body_bytes: max_bytes,
    };
    match services.net.exchange(request, network_deadline).await {
        Ok(Ok(response)) => Ok(response),
        Ok(Err(failure)) => Err(HopFailure::Net(failure)),
        Err(e) => Err(HopFailure::Port(e)),
    }
}

/// The first value of header `name` (lower-case).
fn header<'a>(headers: &'a [Header], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|h| h.name == name)
        .map(|h| h.value.as_str())
}

/// The location of a redirect (301, 302, 303, 307, 308), when it has one.
fn redirect_location(response: &ExchangeResponse) -> Option<&str> {
    matches!(response.status, 301 | 302 | 303 | 307 | 308)
        .then(|| header(&response.headers, "location"))
        .flatten()
        .map(str::trim)
        .filter(|l| !l.is_empty())
}

/// A Retry-After in seconds, up to [`RETRY_AFTER_MAX_S`], in milliseconds.
/// An HTTP date or a larger number is not carried.
pub(crate) fn retry_after_ms(headers: &[Header]) -> Option<u64> {
    let value = header(headers, "retry-after")?.trim();
    if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    value
        .parse::<u64>()
        .ok()
        .filter(|s| *s <= RETRY_AFTER_MAX_S)
        .map(|s| s * 1000)
}
