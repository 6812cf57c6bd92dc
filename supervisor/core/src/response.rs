//! The typed responses of the three tools (design §3; REQ-MCP-011,
//! REQ-CTX-001): what the pipelines build and the adapter renders. Each
//! serializes to the contract's object; the adapter's logs read the same
//! typed values.

use serde::Serialize;
use serde_json::Value;

use crate::error::{DisabledReason, EngineState, Notice, Outcome, ToolError};

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
                .filter(|n| n.code == crate::error::NoticeCode::FromCache)
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
    /// `YYYY-MM-DD`, when the engine gave a date.
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
}

#[cfg(test)]
mod tests;
