//! The contract's closed vocabularies and the one place where failures
//! become the wire's error object (design §4, §7; REQ-ERR-001..004,
//! REQ-SEC-016).
//!
//! Every word rypsok asserts is an enum here, spelled once through serde and
//! once through `as_str()` (a test checks the two agree). Messages are static
//! text plus numbers: never external text, never the caller's input.

use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::limits::ERROR_MESSAGE_MAX_CHARS;

macro_rules! vocabulary {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $variant:ident => $text:literal,)+ }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
        #[serde(rename_all = "snake_case")]
        pub enum $name { $($(#[$vm])* $variant,)+ }
        impl $name {
            /// Every word of the vocabulary.
            pub const ALL: &'static [Self] = &[$(Self::$variant,)+];
            /// The wire spelling.
            pub const fn as_str(self) -> &'static str {
                match self { $(Self::$variant => $text,)+ }
            }
        }
    };
}

vocabulary! {
    /// Error kinds (§4).
    ErrorKind {
        /// A parameter fails validation.
        InvalidRequest => "invalid_request",
        /// Policy refuses the call.
        Denied => "denied",
        /// Nothing could be returned.
        Unavailable => "unavailable",
        /// A fetch was redirected to another host.
        Redirected => "redirected",
        /// Media type not extractable, or nothing extracted.
        UnsupportedContent => "unsupported_content",
        /// Response exceeded LIM-F3.
        TooLarge => "too_large",
    }
}

vocabulary! {
    /// Reasons of `unavailable` (§4).
    UnavailableReason {
        /// No engine serves the call.
        NoEngine => "no_engine",
        /// Every engine failed.
        AllFailed => "all_failed",
        /// The tool's rate limit.
        RateLimited => "rate_limited",
        /// A fetch could not reach the site.
        Network => "network",
        /// The deadline passed with nothing to return.
        Deadline => "deadline",
        /// The target answered 4xx or 5xx.
        HttpStatus => "http_status",
        /// A concurrency limit was reached.
        Busy => "busy",
    }
}

vocabulary! {
    /// Reasons of `denied` (§4).
    DeniedReason {
        /// The egress policy refuses the destination.
        Egress => "egress",
        /// The site's robots.txt does not allow the page.
        RobotsTxt => "robots_txt",
        /// The URL scheme is not allowed.
        Scheme => "scheme",
        /// Strict mode admits only URLs rypsok returned or the operator allowed.
        StrictMode => "strict_mode",
        /// The URL names a user.
        CredentialInUrl => "credential_in_url",
        /// The query carries a secret.
        SecretInQuery => "secret_in_query",
        /// The URL carries a password or a secret.
        SecretInUrl => "secret_in_url",
    }
}

vocabulary! {
    /// Reasons of `unsupported_content` (§4).
    UnsupportedReason {
        /// The media type is not one rypsok reads.
        MediaType => "media_type",
        /// Nothing could be extracted.
        ExtractionFailed => "extraction_failed",
    }
}

vocabulary! {
    /// Outcomes of a successful call (§3, §7).
    Outcome {
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
    NoticeCode {
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
    }
}

vocabulary! {
    /// Why an engine failed: the reasons of `engine_unavailable`.
    EngineErrorClass {
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
    SkipReason {
        /// It cannot honour `time_range`.
        TimeRange => "time_range",
        /// It cannot honour `language`.
        Language => "language",
        /// The query exceeds its limit.
        QueryTooLong => "query_too_long",
        /// Its circuit is open.
        Cooldown => "cooldown",
        /// Its own rate limit would be exceeded.
        RateLimited => "rate_limited",
    }
}

vocabulary! {
    /// Why results were dropped: the reasons of `results_dropped`.
    DropReason {
        /// The result reads like an instruction (optional drop).
        InstructionLikeContent => "instruction_like_content",
        /// Its URL exceeds LIM-F9.
        UrlTooLong => "url_too_long",
        /// Its URL is not http(s), or names a host web_fetch would refuse.
        UrlInvalid => "url_invalid",
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
    pub reason: Option<&'static str>,
    /// How many.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
}

impl Notice {
    /// A notice about an engine, with a reason.
    pub fn engine(code: NoticeCode, engine: &str, reason: &'static str) -> Self {
        Self {
            code,
            engine: Some(engine.to_owned()),
            reason: Some(reason),
            count: None,
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
}

/// A tool execution error: the wire's `{"error": {kind, message, detail}}`.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolError {
    /// The kind.
    pub kind: ErrorKind,
    /// Static text plus numbers, at most LIM-I4 characters.
    pub message: String,
    /// Keys from §4's table.
    pub detail: Map<String, Value>,
}

impl ToolError {
    /// The `reason` of the detail, when the kind has one (a closed
    /// vocabulary: safe to log).
    pub fn reason(&self) -> &str {
        self.detail
            .get("reason")
            .and_then(Value::as_str)
            .unwrap_or_default()
    }

    fn new(kind: ErrorKind, message: String, detail: Value) -> Self {
        debug_assert!(
            message.chars().count() <= ERROR_MESSAGE_MAX_CHARS,
            "{message}"
        );
        let detail = match detail {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        Self {
            kind,
            message,
            detail,
        }
    }

    /// A parameter outside its numeric range.
    pub fn out_of_range(parameter: &'static str, min: u64, max: u64) -> Self {
        Self::new(
            ErrorKind::InvalidRequest,
            format!("{parameter} must be between {min} and {max}"),
            json!({ "parameter": parameter, "min": min, "max": max }),
        )
    }

    /// A string parameter whose length is outside its range.
    pub fn bad_length(parameter: &'static str, min: u64, max: u64) -> Self {
        Self::new(
            ErrorKind::InvalidRequest,
            format!("{parameter} must be {min} to {max} characters after trimming"),
            json!({ "parameter": parameter, "min": min, "max": max }),
        )
    }

    /// A parameter of the wrong JSON type.
    pub fn wrong_type(parameter: &'static str, expected: &'static str) -> Self {
        Self::new(
            ErrorKind::InvalidRequest,
            format!("{parameter} must be {expected}"),
            json!({ "parameter": parameter }),
        )
    }

    /// A required parameter is missing.
    pub fn missing(parameter: &'static str) -> Self {
        Self::new(
            ErrorKind::InvalidRequest,
            format!("{parameter} is required"),
            json!({ "parameter": parameter }),
        )
    }

    /// A parameter outside its enumeration.
    pub fn not_allowed(parameter: &'static str, allowed: &[&str]) -> Self {
        Self::new(
            ErrorKind::InvalidRequest,
            format!("{parameter} must be one of the allowed values"),
            json!({ "parameter": parameter, "allowed": allowed }),
        )
    }

    /// A property the tool does not take. Its name is the caller's input, so
    /// it is not echoed; the allowed names are.
    pub fn unknown_parameter(allowed: &[&str]) -> Self {
        let message = if allowed.is_empty() {
            "this tool takes no parameters".to_owned()
        } else {
            "unknown parameter; see allowed for the parameters this tool takes".to_owned()
        };
        Self::new(
            ErrorKind::InvalidRequest,
            message,
            json!({ "allowed": allowed }),
        )
    }

    /// `unavailable` with a reason and an optional retry hint.
    pub fn unavailable(reason: UnavailableReason, retry_after_ms: Option<u64>) -> Self {
        let message = match reason {
            UnavailableReason::NoEngine => {
                "no enabled engine can serve this search (its category, time_range, language or query length)"
            }
            UnavailableReason::AllFailed => "every engine failed; retry later",
            UnavailableReason::RateLimited => "the tool's rate limit was reached; retry later",
            UnavailableReason::Network => "the site could not be reached",
            UnavailableReason::Deadline => "no engine answered before the deadline; retry later",
            UnavailableReason::HttpStatus => "the site answered with an error status",
            UnavailableReason::Busy => "too many calls are in flight; retry later",
        };
        let mut detail = json!({ "reason": reason.as_str() });
        if let (Some(ms), Some(map)) = (retry_after_ms, detail.as_object_mut()) {
            map.insert("retry_after_ms".to_owned(), json!(ms));
        }
        Self::new(ErrorKind::Unavailable, message.to_owned(), detail)
    }

    /// `denied` with a reason (the secret reasons carry more: see
    /// [`Self::denied_secret`]).
    pub fn denied(reason: DeniedReason) -> Self {
        let message = match reason {
            DeniedReason::Egress => {
                "the egress policy refuses this destination (an internal address, or a port that is not allowed)"
            }
            DeniedReason::RobotsTxt => {
                "the site's robots.txt does not allow rypsok to read this page"
            }
            DeniedReason::Scheme => {
                "the URL scheme is not allowed: use https (http only where the operator allows it)"
            }
            DeniedReason::StrictMode => {
                "strict mode: only URLs web_search returned in this process or the operator allowed can be fetched"
            }
            DeniedReason::CredentialInUrl => {
                "the URL names a user; remove the credentials from the URL"
            }
            DeniedReason::SecretInQuery => {
                "the query looks like it carries a credential; remove it"
            }
            DeniedReason::SecretInUrl => {
                "the URL looks like it carries a password or a credential; remove it"
            }
        };
        Self::new(
            ErrorKind::Denied,
            message.to_owned(),
            json!({ "reason": reason.as_str() }),
        )
    }

    /// `denied`, `scheme`: an http URL was retried over https (plain http
    /// is not allowed) and that request failed.
    pub fn denied_upgrade_failed() -> Self {
        Self::new(
            ErrorKind::Denied,
            "the http URL was retried over https and that request failed; plain http is not allowed"
                .to_owned(),
            json!({ "reason": DeniedReason::Scheme.as_str() }),
        )
    }

    /// `denied` for a secret, with its kind (a fixed vocabulary) and its
    /// position in Unicode scalar values.
    pub fn denied_secret(reason: DeniedReason, kind: &'static str, position: u64) -> Self {
        let mut e = Self::denied(reason);
        e.detail.insert("kind".to_owned(), json!(kind));
        e.detail.insert("position".to_owned(), json!(position));
        e
    }

    /// `unavailable`, `http_status`: the site answered 4xx or 5xx. 408, 425,
    /// 429 and 5xx say retry later; any other 4xx says retrying will not
    /// help (design §14, REQ-FETCH-011).
    pub fn http_status(status: u16, retry_after_ms: Option<u64>) -> Self {
        let retryable = matches!(status, 408 | 425 | 429) || status >= 500;
        let message = if retryable {
            format!("the site answered with status {status}; retry later")
        } else {
            format!(
                "the site answered with status {status}: it refused the request or has no such page; retrying the same URL will not help"
            )
        };
        let mut detail =
            json!({ "reason": UnavailableReason::HttpStatus.as_str(), "status": status });
        if let (Some(ms), true, Some(map)) = (retry_after_ms, retryable, detail.as_object_mut()) {
            map.insert("retry_after_ms".to_owned(), json!(ms));
        }
        Self::new(ErrorKind::Unavailable, message, detail)
    }

    /// `unavailable`, `deadline` for a fetch.
    pub fn fetch_deadline() -> Self {
        Self::new(
            ErrorKind::Unavailable,
            "the page was not retrieved before the deadline; retry later".to_owned(),
            json!({ "reason": UnavailableReason::Deadline.as_str() }),
        )
    }

    /// `redirected`: the page moved to another host. `location` is
    /// external data, already bounded by LIM-F9.
    pub fn redirected(location: String) -> Self {
        Self::new(
            ErrorKind::Redirected,
            "the page redirects to another host; fetch the location to follow it".to_owned(),
            json!({ "location": location }),
        )
    }

    /// `unsupported_content`, `media_type`: `media_type` is external data,
    /// already cleaned and bounded.
    pub fn unsupported_media_type(media_type: String) -> Self {
        Self::new(
            ErrorKind::UnsupportedContent,
            "the page's media type cannot be read; only HTML, XHTML, plain text and Markdown are"
                .to_owned(),
            json!({ "reason": UnsupportedReason::MediaType.as_str(), "media_type": media_type }),
        )
    }

    /// `unsupported_content`, `extraction_failed`.
    pub fn extraction_failed() -> Self {
        Self::new(
            ErrorKind::UnsupportedContent,
            "no main content could be extracted from the page".to_owned(),
            json!({ "reason": UnsupportedReason::ExtractionFailed.as_str() }),
        )
    }

    /// `too_large`: the body exceeded LIM-F3.
    pub fn too_large(limit_bytes: u64) -> Self {
        Self::new(
            ErrorKind::TooLarge,
            format!("the page is larger than the limit of {limit_bytes} bytes"),
            json!({ "limit_bytes": limit_bytes }),
        )
    }

    /// `invalid_request`: the URL is longer than LIM-F9.
    pub fn url_too_long(max: usize) -> Self {
        Self::new(
            ErrorKind::InvalidRequest,
            format!("url must be at most {max} characters"),
            json!({ "parameter": "url", "max": max }),
        )
    }

    /// `invalid_request`: the URL does not parse as an absolute URL.
    pub fn invalid_url() -> Self {
        Self::new(
            ErrorKind::InvalidRequest,
            "url must be an absolute http or https URL".to_owned(),
            json!({ "parameter": "url" }),
        )
    }

    /// `invalid_request`: `start_char` is at or beyond the content, which
    /// is `length` characters long (at least 1).
    pub fn start_char_beyond(length: u64) -> Self {
        Self::new(
            ErrorKind::InvalidRequest,
            format!("start_char must be below the content length of {length} characters"),
            json!({ "parameter": "start_char", "min": 0, "max": length.saturating_sub(1) }),
        )
    }

    /// The wire form: `{"error": {kind, message, detail}}`.
    pub fn to_json(&self) -> Value {
        json!({ "error": { "kind": self.kind.as_str(), "message": self.message, "detail": self.detail } })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn assert_serde_agrees<T: Serialize + Copy>(all: &[T], as_str: fn(T) -> &'static str) {
        for &v in all {
            assert_eq!(serde_json::to_value(v).unwrap(), json!(as_str(v)));
        }
    }

    // Verifies: REQ-SEC-016 (each vocabulary is spelled once: serde and as_str agree)
    #[test]
    fn vocabularies_spell_every_word_the_same_way_twice() {
        assert_serde_agrees(ErrorKind::ALL, ErrorKind::as_str);
        assert_serde_agrees(UnavailableReason::ALL, UnavailableReason::as_str);
        assert_serde_agrees(Outcome::ALL, Outcome::as_str);
        assert_serde_agrees(NoticeCode::ALL, NoticeCode::as_str);
        assert_serde_agrees(EngineErrorClass::ALL, EngineErrorClass::as_str);
        assert_serde_agrees(SkipReason::ALL, SkipReason::as_str);
        assert_serde_agrees(DropReason::ALL, DropReason::as_str);
        assert_serde_agrees(DeniedReason::ALL, DeniedReason::as_str);
        assert_serde_agrees(UnsupportedReason::ALL, UnsupportedReason::as_str);
    }

    // Verifies: REQ-ERR-004 (messages stay within LIM-I4)
    #[test]
    fn every_message_fits_the_error_bound() {
        let mut all = vec![
            ToolError::out_of_range("max_results", 1, 20),
            ToolError::bad_length("query", 1, 400),
            ToolError::wrong_type("max_results", "an integer"),
            ToolError::missing("query"),
            ToolError::not_allowed("category", &["general"]),
            ToolError::unknown_parameter(&["query"]),
            ToolError::unknown_parameter(&[]),
        ];
        all.extend(
            UnavailableReason::ALL
                .iter()
                .map(|&r| ToolError::unavailable(r, Some(1000))),
        );
        all.extend(
            DeniedReason::ALL
                .iter()
                .map(|&r| ToolError::denied_secret(r, "kind", 1)),
        );
        all.extend([
            ToolError::denied_upgrade_failed(),
            ToolError::http_status(404, None),
            ToolError::http_status(503, Some(3_600_000)),
            ToolError::fetch_deadline(),
            ToolError::redirected(String::new()),
            ToolError::unsupported_media_type(String::new()),
            ToolError::extraction_failed(),
            ToolError::too_large(u64::MAX),
            ToolError::url_too_long(usize::MAX),
            ToolError::invalid_url(),
            ToolError::start_char_beyond(u64::MAX),
        ]);
        for e in all {
            assert!(
                e.message.chars().count() <= ERROR_MESSAGE_MAX_CHARS,
                "{}",
                e.message
            );
        }
    }

    // Verifies: REQ-ERR-002 (the wire shape of §4)
    #[test]
    fn renders_the_error_object_of_the_contract() {
        let e = ToolError::out_of_range("max_results", 1, 20);
        assert_eq!(
            e.to_json(),
            json!({"error": {"kind": "invalid_request", "message": "max_results must be between 1 and 20",
                "detail": {"parameter": "max_results", "min": 1, "max": 20}}})
        );
    }
}

#[cfg(test)]
mod fetch_error_tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    // Verifies: REQ-FETCH-011 (retry later with retry_after_ms for 408, 425, 429, 5xx; other 4xx: retrying will not help)
    #[test]
    fn http_status_says_whether_retrying_helps() {
        for status in [408, 425, 429, 500, 503] {
            let e = ToolError::http_status(status, Some(5000));
            assert!(e.message.ends_with("retry later"), "{}", e.message);
            assert_eq!(e.detail["retry_after_ms"], json!(5000));
            assert_eq!(e.detail["status"], json!(status));
            assert_eq!(e.detail["reason"], json!("http_status"));
        }
        for status in [400, 403, 404, 410] {
            let e = ToolError::http_status(status, Some(5000));
            assert!(e.message.contains("will not help"), "{}", e.message);
            assert!(e.detail.get("retry_after_ms").is_none());
        }
    }
}
