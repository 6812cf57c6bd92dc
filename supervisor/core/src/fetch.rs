//! The fetch pipeline (design §3.2, §7, §8, §14; ARCHITECTURE.md "Request
//! flow"; REQ-PAGE-001): URL policy → robots.txt → one hop in worker-net →
//! redirect (same host: robots again and loop up to LIM-F7; another host:
//! `redirected`, or follow when the operator allowed it) → status → the
//! document read in worker-parse → content boundary → window → envelope.
//!
//! The supervisor reads only headers here (status, `Location`,
//! `Retry-After`, `Content-Type` passed on untouched); every body goes to
//! worker-parse. Each step says how it failed with a [`FetchFailure`];
//! `failure.rs` alone turns those into the contract's error.

mod failure;
mod hop;
pub(crate) mod policy;
mod robots;
#[cfg(test)]
mod tests;

use std::time::Duration;

use rypsok_proto::limits::{FETCH_CALL_MAX_MS, FETCH_MAX_REDIRECTS, FETCH_NETWORK_BUDGET_MS};
use rypsok_proto::{FailureCause, PageParse, retry_after_ms};
use tokio::sync::Semaphore;
use tokio::time::{Instant, timeout_at};

use crate::boundary::{clean_decoded_text, clean_document_text};
use crate::config::Config;
use crate::context::Context;
use crate::error::ToolError;
use crate::limits::TITLE_MAX_CHARS;
use crate::ports::Document;
use crate::ratelimit::{Caller, CallerPermits, RateLimit};
use crate::response::FetchResponse;
use crate::response::{Notice, NoticeCode, Outcome};
use crate::validate::FetchArgs;

use failure::FetchFailure;
use hop::{exchange, header, redirect_location};
use policy::{Strict, Target};

/// The longest media type an `unsupported_content` error carries.
const MEDIA_TYPE_MAX_CHARS: usize = 100;

/// What a page request accepts: Markdown first, then HTML, then PDF
/// (REQ-FETCH-002).
const PAGE_ACCEPT: &str = "text/markdown, text/html;q=0.9, application/xhtml+xml;q=0.9, \
     application/pdf;q=0.85, text/plain;q=0.8, */*;q=0.1";

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
    let target = policy::check(&args.url, config, &ctx.returned, Strict::Check)
        .inspect_err(|e| log_failure("fetch_refused", "fetch refused by policy", e))?;
    state
        .rate
        .admit(caller)
        .map_err(|retry_after_ms| FetchFailure::RateLimited { retry_after_ms })?;
    // A full limit answers at once (busy), it does not queue: the caller's
    // share first (in HTTP mode `fetch_concurrency_per_caller`, a quarter
    // by default), then the process's.
    let Some(_caller_permit) = state.callers.try_acquire(caller) else {
        return Err(FetchFailure::Busy.into());
    };
    let Ok(_permit) = state.in_flight.try_acquire() else {
        return Err(FetchFailure::Busy.into());
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
    let mut cause = None;
    let outcome = match timeout_at(
        call_deadline,
        run(env, target, &args, network_deadline, call_deadline),
    )
    .await
    {
        Ok(outcome) => outcome.map_err(|failure| {
            cause = failure.cause();
            ToolError::from(failure)
        }),
        Err(_) => Err(FetchFailure::CallDeadline.into()),
    };
    match &outcome {
        Ok(_) => tracing::info!(event = "fetch_result", outcome = "ok", "fetch answered"),
        // The cause says why a site could not be reached; the caller's
        // answer stays as §4 fixes it.
        Err(e) => log_failure_with_cause("fetch_result", "fetch failed", e, cause),
    }
    outcome
}

/// The log line of a fetch that ended in `e`: refused by the URL policy
/// (`fetch_refused`) or failed after it (`fetch_result`). Closed words
/// only: which part of the policy refused and the address class, never the
/// address or the URL.
fn log_failure(event: &'static str, message: &'static str, e: &ToolError) {
    log_failure_with_cause(event, message, e, None);
}

/// As [`log_failure`], with the cause of a hop that produced no response.
fn log_failure_with_cause(
    event: &'static str,
    message: &'static str,
    e: &ToolError,
    cause: Option<FailureCause>,
) {
    let kind = e.kind().as_str();
    tracing::info!(
        event,
        // `outcome` as the line of a fetch that answered has it, `kind` as
        // the call's own `call_refused` line has it.
        outcome = kind,
        kind,
        reason = e.reason().map_or("", |reason| reason.as_str()),
        refused = e.refused().map(|part| part.as_str()),
        address_class = e.address_class().map(|class| class.as_str()),
        cause = cause.map(FailureCause::as_str),
        "{message}"
    );
}

/// The hops, the status, the document.
async fn run(
    env: Env<'_>,
    mut target: Target,
    args: &FetchArgs,
    network_deadline: Instant,
    call_deadline: Instant,
) -> Result<FetchResponse, FetchFailure> {
    let config = &env.ctx.config;
    // worker-net holds the body to the bound of its kind (LIM-F3, or
    // LIM-F14 for a PDF) while it streams: an HTML page stops at
    // `max_bytes` however large `pdf_max_bytes` is.
    let max_bytes = config.fetch.max_bytes;
    let pdf_max_bytes = config.fetch.pdf_max_bytes;
    let mut hops = 0u32;
    let response = loop {
        if config.fetch.robots_txt {
            robots::check(env, &target, network_deadline, call_deadline).await?;
        }
        let bounds = (max_bytes, Some(pdf_max_bytes));
        let response = exchange(env, &target.url, PAGE_ACCEPT, bounds, network_deadline)
            .await
            .map_err(|failure| FetchFailure::Hop {
                failure,
                upgraded: target.upgraded,
                max_bytes,
                pdf_max_bytes,
            })?;
        let Some(location) = redirect_location(&response) else {
            break response;
        };
        let next = target
            .url
            .join(location)
            .map_err(|_| FetchFailure::UnresolvableLocation)?;
        hops += 1;
        if hops > FETCH_MAX_REDIRECTS {
            return Err(FetchFailure::TooManyRedirects);
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
            return Err(FetchFailure::CrossHost {
                location: next.to_string(),
            });
        }
        target = check_hop(next.as_str(), env, Strict::Check)?;
    };
    let status = response.status;
    if status >= 400 {
        return Err(FetchFailure::ErrorStatus {
            status,
            retry_after_ms: retry_after_ms(&response.headers),
        });
    }
    if !(200..300).contains(&status) {
        return Err(FetchFailure::UnexpectedStatus);
    }
    let content_type = header(&response.headers, "content-type").map(str::to_owned);
    let bound = body_bound(content_type.as_deref(), &config.fetch);
    if response.body.len() as u64 > bound {
        return Err(FetchFailure::TooLarge { max_bytes: bound });
    }
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
            return Err(FetchFailure::MediaType(media_type));
        }
        Ok(PageParse::NoContent) => return Err(FetchFailure::NothingExtracted),
        Ok(PageParse::Unreadable(why)) => return Err(FetchFailure::Unreadable(why)),
        Ok(PageParse::NeedsScripts) => return Err(FetchFailure::NeedsScripts),
        Err(e) => return Err(FetchFailure::PageReader(e)),
    };
    // Cleaning and windowing a document of up to LIM-F3 is CPU work of up
    // to a few hundred milliseconds: off the async threads, so that other
    // calls keep their deadlines.
    let url = target.url.to_string();
    let args = args.clone();
    tokio::task::spawn_blocking(move || respond(url, title.as_deref(), &markdown, read, &args))
        .await
        .unwrap_or(Err(FetchFailure::NothingExtracted))
}

/// The byte bound of a body by its declared type: LIM-F14 for one that is
/// or may be a PDF (declared so, declared as a generic binary type, or not
/// declared: worker-parse looks at its first bytes), LIM-F3 otherwise. The
/// supervisor reads the header only, never the body.
fn body_bound(content_type: Option<&str>, config: &crate::config::FetchConfig) -> u64 {
    let essence = content_type
        .and_then(|t| t.split(';').next())
        .map(|t| t.trim().to_ascii_lowercase())
        .unwrap_or_default();
    match essence.as_str() {
        "application/pdf"
        | "application/x-pdf"
        | "application/octet-stream"
        | "binary/octet-stream"
        | "" => config.pdf_max_bytes,
        _ => config.max_bytes,
    }
}

/// A redirect target passes the whole URL policy again.
fn check_hop(text: &str, env: Env<'_>, strict: Strict) -> Result<Target, FetchFailure> {
    policy::check(text, &env.ctx.config, &env.ctx.returned, strict)
        .map_err(FetchFailure::RedirectRefused)
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
) -> Result<FetchResponse, FetchFailure> {
    let title = clean_decoded_text(title.unwrap_or_default(), TITLE_MAX_CHARS);
    let content = clean_document_text(markdown);
    let length = content.text.chars().count();
    if content.text.trim().is_empty() {
        return Err(FetchFailure::NothingExtracted);
    }
    if args.start_char >= length {
        return Err(FetchFailure::StartCharBeyond {
            length: length as u64,
        });
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
