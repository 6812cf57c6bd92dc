//! The fetch pipeline (design §3.2, §7, §8, §14; ARCHITECTURE.md "Request
//! flow"; REQ-PAGE-001): URL policy → robots.txt → one hop in worker-net →
//! redirect (same host: robots again and loop up to LIM-F7; another host:
//! `redirected`, or follow when the operator allowed it) → status → the
//! document read in worker-parse → content boundary → window → envelope.
//!
//! The supervisor reads only headers here (status, `Location`,
//! `Retry-After`, `Content-Type` passed on untouched); every body goes to
//! worker-parse.

mod hop;
pub(crate) mod policy;
mod robots;
#[cfg(test)]
mod tests;

use std::time::Duration;

use futures_util::FutureExt as _;
use rypsok_proto::PageParse;
use rypsok_proto::limits::{FETCH_CALL_MAX_MS, FETCH_MAX_REDIRECTS, FETCH_NETWORK_BUDGET_MS};
use tokio::sync::Semaphore;
use tokio::time::{Instant, timeout_at};

use crate::boundary::{clean_decoded_text, clean_document_text};
use crate::config::Config;
use crate::context::Context;
use crate::error::{EgressRefused, ErrorKind, Refused, ToolError, UnavailableReason};
use crate::limits::TITLE_MAX_CHARS;
use crate::ports::{Document, PortError};
use crate::ratelimit::{Caller, CallerPermits, RateLimit};
use crate::response::FetchResponse;
use crate::response::{Notice, NoticeCode, Outcome};
use crate::validate::FetchArgs;

pub(crate) use hop::retry_after_ms;
use hop::{exchange, header, redirect_location};
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
/// robots.txt cache (LIM-F13).
#[derive(Debug)]
pub(crate) struct FetchState {
    rate: RateLimit,
    in_flight: Semaphore,
    callers: CallerPermits,
    robots: robots::RobotsCache,
}

impl FetchState {
    pub(crate) fn new(config: &Config) -> Self {
        Self {
            rate: RateLimit::per_minute(config.limits.web_fetch_per_minute),
            in_flight: Semaphore::new(config.limits.fetch_concurrency as usize),
            callers: CallerPermits::new(
                config.limits.fetch_concurrency,
                config.limits.fetch_concurrency_per_caller,
            ),
            robots: robots::RobotsCache::default(),
        }
    }
}

/// What one fetch reads: the shared context and the pipeline's own state.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Env<'a> {
    pub(crate) ctx: &'a Context,
    pub(crate) state: &'a FetchState,
}

/// Runs one `web_fetch` call whose arguments are valid. `started` is when
/// the call began: LIM-F4 and LIM-F5 count from there.
pub(crate) async fn fetch(
    ctx: &Context,
    state: &FetchState,
    caller: &Caller,
    args: FetchArgs,
    started: Instant,
) -> Result<FetchResponse, ToolError> {
    let env = Env { ctx, state };
    let config = &ctx.config;
    let target =
        policy::check(&args.url, config, &ctx.returned, Strict::Check).inspect_err(log_refusal)?;
    state
        .rate
        .admit(caller)
        .map_err(|ms| ToolError::unavailable(UnavailableReason::RateLimited, Some(ms)))?;
    // A full limit answers at once (busy), it does not queue: the caller's
    // share first (in HTTP mode `fetch_concurrency_per_caller`, a quarter
    // by default), then the process's.
    let Some(_caller_permit) = state.callers.acquire(caller).now_or_never() else {
        return Err(ToolError::unavailable(UnavailableReason::Busy, None));
    };
    let Ok(_permit) = state.in_flight.try_acquire() else {
        return Err(ToolError::unavailable(UnavailableReason::Busy, None));
    };
    // The host only now that the policy admitted it (REQ-PRIV-004), and
    // never when a credential-shaped text (let through in warn mode) lies
    // in it.
    if !target.secret_in_host {
        tracing::info!(event = "fetch_started", host = %target.host, "fetch admitted");
    } else {
        tracing::info!(event = "fetch_started", "fetch admitted");
    }
    let call_deadline = started + Duration::from_millis(FETCH_CALL_MAX_MS);
    let network_deadline = started + Duration::from_millis(FETCH_NETWORK_BUDGET_MS);
    let outcome = match timeout_at(
        call_deadline,
        run(env, target, &args, network_deadline, call_deadline),
    )
    .await
    {
        Ok(outcome) => outcome,
        Err(_) => Err(ToolError::fetch_deadline()),
    };
    match &outcome {
        Ok(_) => tracing::info!(event = "fetch_result", outcome = "ok", "fetch answered"),
        Err(e) => {
            let reason = e.reason().unwrap_or_default();
            let refused = e.refused();
            tracing::info!(
                event = "fetch_result",
                outcome = e.kind().as_str(),
                reason,
                refused = refused.map(|r| r.by.as_str()),
                address_class = refused.and_then(|r| r.class).map(|class| class.as_str()),
                "fetch failed"
            );
        }
    }
    outcome
}

fn log_refusal(e: &ToolError) {
    let reason = e.reason().unwrap_or_default();
    let refused = e.refused();
    tracing::info!(
        event = "fetch_refused",
        kind = e.kind().as_str(),
        reason,
        refused = refused.map(|r| r.by.as_str()),
        address_class = refused.and_then(|r| r.class).map(|class| class.as_str()),
        "fetch refused by policy"
    );
}

/// The hops, the status, the document.
async fn run(
    env: Env<'_>,
    mut target: Target,
    args: &FetchArgs,
    network_deadline: Instant,
    call_deadline: Instant,
) -> Result<FetchResponse, ToolError> {
    let config = &env.ctx.config;
    let max_bytes = config.fetch.max_bytes;
    let mut hops = 0u32;
    let response = loop {
        if config.fetch.robots_txt {
            robots::check(env, &target, network_deadline, call_deadline).await?;
        }
        let response = exchange(env, &target.url, PAGE_ACCEPT, max_bytes, network_deadline)
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
        let hop = check_hop(next.as_str(), env, Strict::Skip)?;
        if hop.host == target.host {
            target = hop;
            continue;
        }
        if !config.fetch.follow_cross_host_redirects {
            // Handed back: the target is not contacted at all, not even for
            // its robots.txt. The caller's next web_fetch of the location
            // reads that robots.txt before the page.
            return Err(ToolError::redirected(next.to_string()));
        }
        target = check_hop(next.as_str(), env, Strict::Check)?;
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
    let document = Document {
        url: target.url.to_string(),
        content_type,
        body: response.body,
    };
    let (title, markdown, read) = match env.ctx.parse.parse_page(document, call_deadline).await {
        Ok(PageParse::Page {
            title,
            markdown,
            partial,
            structured,
        }) => (
            title,
            markdown,
            Read {
                partial,
                structured,
            },
        ),
        Ok(PageParse::Unsupported { media_type }) => {
            let media_type = clean_decoded_text(&media_type, MEDIA_TYPE_MAX_CHARS).text;
            return Err(ToolError::unsupported_media_type(media_type));
        }
        Err(PortError::Timeout) => return Err(ToolError::fetch_deadline()),
        // No content, or a parser that died on the document or broke the
        // protocol: nothing could be extracted.
        Ok(PageParse::NoContent) | Err(PortError::Unavailable | PortError::WorkerFailed) => {
            return Err(ToolError::extraction_failed());
        }
        Ok(PageParse::NeedsScripts) => return Err(ToolError::needs_scripts()),
    };
    // Cleaning and windowing a document of up to LIM-F3 is CPU work of up
    // to a few hundred milliseconds: off the async threads, so that other
    // calls keep their deadlines.
    let url = target.url.to_string();
    let args = args.clone();
    tokio::task::spawn_blocking(move || respond(url, title.as_deref(), &markdown, read, &args))
        .await
        .unwrap_or_else(|_| Err(ToolError::extraction_failed()))
}

/// A redirect target passes the whole URL policy again; a location the
/// policy cannot even read (too long, unparsable) is refused like a
/// destination it refuses.
fn check_hop(text: &str, env: Env<'_>, strict: Strict) -> Result<Target, ToolError> {
    policy::check(text, &env.ctx.config, &env.ctx.returned, strict).map_err(|e| {
        if e.kind() == ErrorKind::InvalidRequest {
            ToolError::denied_egress(Refused::by(EgressRefused::UrlForm))
        } else {
            e
        }
    })
}

/// How the parser read the document, as the notices report it.
#[derive(Debug, Clone, Copy, Default)]
struct Read {
    /// In part (`extraction_partial`).
    partial: bool,
    /// From its structured data (`from_structured_data`).
    structured: bool,
}

/// The envelope: title and content through the content boundary, then the
/// window of `max_chars` Unicode scalar values from `start_char`.
fn respond(
    url: String,
    title: Option<&str>,
    markdown: &str,
    read: Read,
    args: &FetchArgs,
) -> Result<FetchResponse, ToolError> {
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
    if read.partial {
        notices.push(Notice::bare(NoticeCode::ExtractionPartial));
    }
    if read.structured {
        notices.push(Notice::bare(NoticeCode::FromStructuredData));
    }
    Ok(FetchResponse {
        outcome: Outcome::Ok,
        notices,
        url,
        title: title.text,
        content: window.to_owned(),
        truncated,
        next_start_char: truncated.then_some(end as u64),
    })
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
