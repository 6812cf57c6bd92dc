//! The typed responses of the three tools (design §3; REQ-MCP-011,
//! REQ-CTX-001): what the pipelines build and the adapter renders. Each
//! serializes to the contract's object; the adapter's logs read the same
//! typed values. The words they carry (outcomes, notice codes and reasons,
//! engine states) are vocabularies declared here.

use serde::Serialize;
use serde_json::Value;

use crate::error::ToolError;
use crate::vocabulary::vocabulary;

vocabulary! {
    /// Outcomes of a successful call (§3, §7).
    pub Outcome {
        /// Every engine answered.
        Ok => "ok",
        /// Results, but an engine failed.
        Partial => "partial",
        /// An engine answered and nothing remained.
        Empty => "empty",
    }
}

vocabulary! {
    /// Notice codes (§3.1).
    pub NoticeCode {
        /// An engine failed; with `engine` and `reason`.
        EngineUnavailable => "engine_unavailable",
        /// An engine was not queried; with `engine` and `reason`.
        EngineSkipped => "engine_skipped",
        /// Snippets were cut; with `count`.
        SnippetTruncated => "snippet_truncated",
        /// Titles were cut; with `count`.
        TitleTruncated => "title_truncated",
        /// Invisible or control characters were removed; with `count`.
        CharactersRemoved => "characters_removed",
        /// Text that reads like an instruction.
        InstructionLikeContent => "instruction_like_content",
        /// Results were dropped; with `reason` and `count`.
        ResultsDropped => "results_dropped",
        /// A secret was masked.
        CredentialMasked => "credential_masked",
        /// The document was read in part.
        ExtractionPartial => "extraction_partial",
        /// An engine's answer came from the cache.
        FromCache => "from_cache",
        /// The page's markup held no content: it was read from the page's
        /// structured data (JSON-LD, embedded page data).
        FromStructuredData => "from_structured_data",
    }
}

vocabulary! {
    /// Why an engine failed: the reasons of `engine_unavailable`.
    pub EngineErrorClass {
        /// No answer within the engine's timeout or the deadline.
        Timeout => "timeout",
        /// The provider's rate limit.
        RateLimited => "rate_limited",
        /// An anti-bot or policy block.
        Blocked => "blocked",
        /// The answer could not be read.
        ParseFailure => "parse_failure",
        /// The credential was refused.
        AuthFailure => "auth_failure",
        /// Any other failure of the request.
        RequestFailure => "request_failure",
    }
}

vocabulary! {
    /// Why an engine was not queried: the reasons of `engine_skipped`.
    pub SkipReason {
        /// It cannot honour `time_range`.
        TimeRange => "time_range",
        /// It cannot honour `language`.
        Language => "language",
        /// The query exceeds its limit.
        QueryTooLong => "query_too_long",
        /// No word of the query is long enough for it to search.
        QueryTooShort => "query_too_short",
        /// Its circuit is open.
        Cooldown => "cooldown",
        /// Its own rate limit would be exceeded.
        RateLimited => "rate_limited",
    }
}

vocabulary! {
    /// Why results were dropped: the reasons of `results_dropped`.
    pub DropReason {
        /// The result reads like an instruction (optional drop).
        InstructionLikeContent => "instruction_like_content",
        /// Its URL exceeds LIM-F9.
        UrlTooLong => "url_too_long",
        /// Its URL is not http(s), or names a host web_fetch would refuse.
        UrlInvalid => "url_invalid",
        /// Its host is a literal address that is not globally reachable
        /// (private, loopback, link-local, metadata and the other classes
        /// egress refuses), which web_fetch would refuse too.
        UrlNotPublic => "url_not_public",
    }
}

vocabulary! {
    /// Engine states of `engine_status` (§3.3).
    pub EngineState {
        /// The operator switched it off, or it has no credential.
        Disabled => "disabled",
        /// Circuit closed: in use.
        Closed => "closed",
        /// Circuit open: cooling down.
        Open => "open",
        /// Circuit half open: the next call probes it.
        HalfOpen => "half_open",
    }
}

vocabulary! {
    /// Why a configured engine is not in use (the `reason` of a disabled
    /// engine in `engine_status`).
    pub DisabledReason {
        /// The operator switched it off.
        Disabled => "disabled",
        /// It needs a key and none could be read.
        NoCredential => "no_credential",
    }
}

vocabulary! {
    /// What an active engine runs on, when that is worth an operator's
    /// attention (the `allowance` of an engine in `engine_status`).
    pub Allowance {
        /// No key: the provider's keyless allowance, too small for regular
        /// use (OpenAlex: about ten searches a day).
        Keyless => "keyless",
    }
}

/// The reason a notice carries, from the vocabulary its code names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum NoticeReason {
    /// Of `engine_unavailable`.
    Failed(EngineErrorClass),
    /// Of `engine_skipped`.
    Skipped(SkipReason),
    /// Of `results_dropped`.
    Dropped(DropReason),
}

impl NoticeReason {
    /// The wire spelling.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Failed(class) => class.as_str(),
            Self::Skipped(reason) => reason.as_str(),
            Self::Dropped(reason) => reason.as_str(),
        }
    }
}

/// One notice of the envelope. Every key comes from a fixed vocabulary,
/// except `count` (and `engine`, an operator-set identifier).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Notice {
    /// The code.
    pub code: NoticeCode,
    /// The engine concerned.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub engine: Option<String>,
    /// The reason, from the vocabulary the code names.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<NoticeReason>,
    /// How many.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
}

impl Notice {
    /// `engine_unavailable`: an engine failed.
    pub fn engine_failed(engine: &str, class: EngineErrorClass) -> Self {
        Self::about_engine(
            NoticeCode::EngineUnavailable,
            engine,
            NoticeReason::Failed(class),
        )
    }

    /// `from_cache`: an engine's answer came from the search cache
    /// (design §12).
    pub fn from_cache(engine: &str) -> Self {
        Self {
            code: NoticeCode::FromCache,
            engine: Some(engine.to_owned()),
            reason: None,
            count: None,
        }
    }

    /// `engine_skipped`: an engine was not queried.
    pub fn engine_skipped(engine: &str, reason: SkipReason) -> Self {
        Self::about_engine(
            NoticeCode::EngineSkipped,
            engine,
            NoticeReason::Skipped(reason),
        )
    }

    fn about_engine(code: NoticeCode, engine: &str, reason: NoticeReason) -> Self {
        Self {
            code,
            engine: Some(engine.to_owned()),
            reason: Some(reason),
            count: None,
        }
    }

    /// `results_dropped`: `count` results left out for `reason`.
    pub fn dropped(reason: DropReason, count: u64) -> Self {
        Self {
            code: NoticeCode::ResultsDropped,
            engine: None,
            reason: Some(NoticeReason::Dropped(reason)),
            count: Some(count),
        }
    }

    /// A counted notice.
    pub fn counted(code: NoticeCode, count: u64) -> Self {
        Self {
            code,
            engine: None,
            reason: None,
            count: Some(count),
        }
    }

    /// A notice that is only its code.
    pub fn bare(code: NoticeCode) -> Self {
        Self {
            code,
            engine: None,
            reason: None,
            count: None,
        }
    }
}

/// What a tool call answers: a response, or a tool error.
pub type ToolOutput = Result<ToolResponse, ToolError>;

/// One tool's response.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ToolResponse {
    /// `web_search`.
    Search(SearchResponse),
    /// `web_fetch`.
    Fetch(FetchResponse),
    /// `engine_status`.
    Status(StatusResponse),
}

impl ToolResponse {
    /// The outcome.
    pub const fn outcome(&self) -> Outcome {
        match self {
            Self::Search(r) => r.outcome,
            Self::Fetch(r) => r.outcome,
            Self::Status(r) => r.outcome,
        }
    }

    /// How many results a search returned; 0 for the other tools.
    pub fn result_count(&self) -> usize {
        match self {
            Self::Search(r) => r.results.len(),
            Self::Fetch(_) | Self::Status(_) => 0,
        }
    }

    /// How many engines a search had answered from the cache (its
    /// `from_cache` notices); 0 for the other tools.
    pub fn from_cache_count(&self) -> usize {
        match self {
            Self::Search(r) => r
                .notices
                .iter()
                .filter(|n| n.code == NoticeCode::FromCache)
                .count(),
            Self::Fetch(_) | Self::Status(_) => 0,
        }
    }

    /// The wire object: structured content, and as text the same JSON.
    pub fn to_wire(&self) -> Value {
        // Only strings, numbers, booleans, vectors and maps with string
        // keys: serialization cannot fail.
        serde_json::to_value(self).unwrap_or_default()
    }
}

/// `web_search` (§3.1).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SearchResponse {
    /// `ok`, `partial` or `empty`.
    pub outcome: Outcome,
    /// In the order they arose.
    pub notices: Vec<Notice>,
    /// In rank order.
    pub results: Vec<SearchResult>,
}

/// One search result: cleaned and bounded external data.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SearchResult {
    /// Cleaned title.
    pub title: String,
    /// The URL, less tracking parameters.
    pub url: String,
    /// Cleaned snippet.
    pub snippet: String,
    /// `YYYY-MM-DD`, or `YYYY-MM` or `YYYY` when the engine knows only the
    /// month or the year, when the engine gave a date.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    /// The engines that returned it, when attribution applies.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub engines: Option<Vec<String>>,
}

/// `web_fetch` (§3.2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FetchResponse {
    /// Always `ok`: a fetch that fails is a tool error.
    pub outcome: Outcome,
    /// In the order they arose.
    pub notices: Vec<Notice>,
    /// The URL read, after redirects.
    pub url: String,
    /// Cleaned and bounded title; empty when the page has none.
    pub title: String,
    /// The window of the content asked for, as Markdown.
    pub content: String,
    /// Whether content remains after the window.
    pub truncated: bool,
    /// Where the next window starts, when content remains.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_start_char: Option<u64>,
}

/// `engine_status` (§3.3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StatusResponse {
    /// Always `ok`.
    pub outcome: Outcome,
    /// Always empty.
    pub notices: Vec<Notice>,
    /// Every configured engine, in identifier order.
    pub engines: Vec<EngineReport>,
}

/// One engine in `engine_status`: no endpoint, credential or provider text
/// (REQ-STATUS-002).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EngineReport {
    /// The configured identifier.
    pub id: String,
    /// Circuit state, or `disabled`.
    pub state: EngineState,
    /// Median latency of recent completions; `null` when none.
    pub latency_ms: Option<u64>,
    /// Why a disabled engine is not in use.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<DisabledReason>,
    /// Present when an active engine runs on a small keyless allowance.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allowance: Option<Allowance>,
}

pub mod markdown;

#[cfg(test)]
mod tests;
