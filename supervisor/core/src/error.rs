//! Tool errors and the one place where they become the wire's error object
//! (design §4; REQ-ERR-001..004, REQ-SEC-016), after rustls's closed error
//! enum with its wire mapping beside it.
//!
//! The error kinds and reasons are vocabularies, spelled once through the
//! `vocabulary!` macro (a test checks serde and `as_str()` agree); the
//! words of successful responses and notices are in `response.rs`. Messages
//! are static text plus numbers: never external text, never the caller's
//! input.

use rypsok_egress::{AddressClass, Refusal};
use serde_json::{Map, Value, json};

use crate::limits::ERROR_MESSAGE_MAX_CHARS;
use crate::vocabulary::vocabulary;

vocabulary! {
    /// Error kinds (§4).
    pub ErrorKind {
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
    pub UnavailableReason {
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
    pub DeniedReason {
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
    /// Which part of the policy refused a destination: the `refused` detail
    /// of `denied` for `egress` and `strict_mode`.
    pub EgressRefused {
        /// A port outside LIM-F8 that no allow rule opens.
        Port => "port",
        /// An internal or special-purpose address; `address_class` names it.
        AddressClass => "address_class",
        /// An operator deny rule.
        DenyRule => "deny_rule",
        /// A host name the policy cannot read (an empty label, a character
        /// no host name holds).
        HostName => "host_name",
        /// A URL the fetch leads to (a redirect location past LIM-F9)
        /// that cannot be requested.
        UrlForm => "url_form",
        /// Strict mode: not a URL rypsok returned, and no allow rule names it.
        NotAllowedStrict => "not_allowed_strict",
    }
}

/// The `refused` detail of a denial, and for [`EgressRefused::AddressClass`]
/// the class (a closed vocabulary of rypsok-egress). Never an address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refused {
    /// Which part of the policy refused.
    pub by: EgressRefused,
    /// The address class, for [`EgressRefused::AddressClass`].
    pub class: Option<AddressClass>,
}

impl Refused {
    /// The policy's refusal of one destination judged on the URL. The
    /// peer-mismatch refusal exists only at connect time, where the caller
    /// is answered `network`: read here as a refused address.
    pub const fn from_policy(refusal: Refusal) -> Self {
        match refusal {
            Refusal::Port => Self::by(EgressRefused::Port),
            Refusal::AddressClass(class) => Self {
                by: EgressRefused::AddressClass,
                class: Some(class),
            },
            Refusal::DenyRule => Self::by(EgressRefused::DenyRule),
            Refusal::PeerMismatch => Self::by(EgressRefused::AddressClass),
        }
    }

    /// A refusal with no class.
    pub const fn by(by: EgressRefused) -> Self {
        Self { by, class: None }
    }
}

vocabulary! {
    /// Reasons of `unsupported_content` (§4).
    pub UnsupportedReason {
        /// The media type is not one rypsok reads.
        MediaType => "media_type",
        /// Nothing could be extracted.
        ExtractionFailed => "extraction_failed",
    }
}

/// What is wrong with an argument (`invalid_request`). Parameter names and
/// allowed values come from the tool definitions, never from the caller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParamProblem {
    /// A number outside its range.
    OutOfRange {
        /// The parameter.
        parameter: &'static str,
        /// Smallest allowed.
        min: u64,
        /// Largest allowed.
        max: u64,
    },
    /// A string whose trimmed length is outside its range.
    BadLength {
        /// The parameter.
        parameter: &'static str,
        /// Fewest characters.
        min: u64,
        /// Most characters.
        max: u64,
    },
    /// The wrong JSON type.
    WrongType {
        /// The parameter.
        parameter: &'static str,
        /// What it must be, as a phrase ("an integer").
        expected: &'static str,
    },
    /// A required parameter is absent.
    Missing {
        /// The parameter.
        parameter: &'static str,
    },
    /// A value outside the parameter's enumeration.
    NotAllowed {
        /// The parameter.
        parameter: &'static str,
        /// The values the tool definition lists.
        allowed: Vec<String>,
    },
    /// A property the tool does not take (its name is not echoed).
    UnknownParameter {
        /// The parameters the tool takes.
        allowed: Vec<&'static str>,
    },
    /// The URL is longer than LIM-F9.
    UrlTooLong {
        /// LIM-F9.
        max: usize,
    },
    /// The URL does not parse as an absolute URL.
    InvalidUrl,
    /// `start_char` is at or beyond the content's length.
    StartCharBeyond {
        /// The content's length in characters (at least 1).
        length: u64,
    },
}

/// Where a secret was found: its kind (a fixed vocabulary) and its position
/// in Unicode scalar values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SecretAt {
    /// The detector's name for it.
    pub kind: &'static str,
    /// Unicode scalar values before it.
    pub position: u64,
}

/// A tool execution error: the wire's `{"error": {kind, message, detail}}`
/// (design §4). Each variant carries its typed data; [`Self::to_wire`] is
/// the one mapping to the wire, and [`Self::message`] holds every message,
/// static text plus numbers, never external text or the caller's input.
/// The constructors below are the way to build one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolError {
    /// `invalid_request`.
    InvalidRequest(ParamProblem),
    /// `denied`; the secret reasons say where the secret is.
    Denied {
        /// The reason.
        reason: DeniedReason,
        /// The secret found, for `secret_in_query` and `secret_in_url`.
        secret: Option<SecretAt>,
        /// Which part of the policy refused, for `egress` and `strict_mode`.
        refused: Option<Refused>,
    },
    /// `denied`, `scheme`: an http URL was retried over https (plain http
    /// is not allowed) and that request failed.
    UpgradeFailed,
    /// `unavailable`, with a retry hint where there is one.
    Unavailable {
        /// The reason.
        reason: UnavailableReason,
        /// When to retry.
        retry_after_ms: Option<u64>,
    },
    /// `unavailable`, `http_status`: the site answered 4xx or 5xx.
    HttpStatus {
        /// The status.
        status: u16,
        /// The site's retry hint; sent only where retrying helps.
        retry_after_ms: Option<u64>,
    },
    /// `unavailable`, `deadline`, for a fetch.
    FetchDeadline,
    /// `redirected`: the page moved to another host.
    Redirected {
        /// External data, already bounded by LIM-F9.
        location: String,
    },
    /// `unsupported_content`.
    UnsupportedContent {
        /// The reason.
        reason: UnsupportedReason,
        /// For `media_type`: external data, already cleaned and bounded.
        media_type: Option<String>,
    },
    /// `too_large`: the body exceeded LIM-F3.
    TooLarge {
        /// LIM-F3.
        limit_bytes: u64,
    },
    /// `unsupported_content`, `extraction_failed`, with a message of its
    /// own: the page shows no text without running its scripts (a frame
    /// that scripts fill, a consent banner alone).
    NeedsScripts,
}

impl ToolError {
    /// A parameter outside its numeric range.
    pub fn out_of_range(parameter: &'static str, min: u64, max: u64) -> Self {
        Self::InvalidRequest(ParamProblem::OutOfRange {
            parameter,
            min,
            max,
        })
    }

    /// A string parameter whose length is outside its range.
    pub fn bad_length(parameter: &'static str, min: u64, max: u64) -> Self {
        Self::InvalidRequest(ParamProblem::BadLength {
            parameter,
            min,
            max,
        })
    }

    /// A parameter of the wrong JSON type.
    pub fn wrong_type(parameter: &'static str, expected: &'static str) -> Self {
        Self::InvalidRequest(ParamProblem::WrongType {
            parameter,
            expected,
        })
    }

    /// A required parameter is missing.
    pub fn missing(parameter: &'static str) -> Self {
        Self::InvalidRequest(ParamProblem::Missing { parameter })
    }

    /// A parameter outside its enumeration.
    pub fn not_allowed(parameter: &'static str, allowed: &[&str]) -> Self {
        Self::InvalidRequest(ParamProblem::NotAllowed {
            parameter,
            allowed: allowed.iter().map(|&word| word.to_owned()).collect(),
        })
    }

    /// A property the tool does not take. Its name is the caller's input, so
    /// it is not echoed; the allowed names are.
    pub fn unknown_parameter(allowed: &[&'static str]) -> Self {
        Self::InvalidRequest(ParamProblem::UnknownParameter {
            allowed: allowed.to_vec(),
        })
    }

    /// `invalid_request`: the URL is longer than LIM-F9.
    pub fn url_too_long(max: usize) -> Self {
        Self::InvalidRequest(ParamProblem::UrlTooLong { max })
    }

    /// `invalid_request`: the URL does not parse as an absolute URL.
    pub fn invalid_url() -> Self {
        Self::InvalidRequest(ParamProblem::InvalidUrl)
    }

    /// `invalid_request`: `start_char` is at or beyond the content, which
    /// is `length` characters long (at least 1).
    pub fn start_char_beyond(length: u64) -> Self {
        Self::InvalidRequest(ParamProblem::StartCharBeyond { length })
    }

    /// `unavailable` with a reason and an optional retry hint.
    pub fn unavailable(reason: UnavailableReason, retry_after_ms: Option<u64>) -> Self {
        Self::Unavailable {
            reason,
            retry_after_ms,
        }
    }

    /// `denied` with a reason (the secret reasons carry more: see
    /// [`Self::denied_secret`]).
    pub fn denied(reason: DeniedReason) -> Self {
        Self::Denied {
            reason,
            secret: None,
            refused: None,
        }
    }

    /// `denied`, `egress`, saying which part of the policy refused.
    pub fn denied_egress(refused: Refused) -> Self {
        Self::Denied {
            reason: DeniedReason::Egress,
            secret: None,
            refused: Some(refused),
        }
    }

    /// `denied`, `strict_mode`: the URL is neither one rypsok returned nor
    /// one an allow rule names.
    pub fn denied_strict_mode() -> Self {
        Self::Denied {
            reason: DeniedReason::StrictMode,
            secret: None,
            refused: Some(Refused::by(EgressRefused::NotAllowedStrict)),
        }
    }

    /// Which part of the policy refused, for a denial that says so.
    pub const fn refused(&self) -> Option<Refused> {
        match self {
            Self::Denied { refused, .. } => *refused,
            Self::InvalidRequest(_)
            | Self::UpgradeFailed
            | Self::Unavailable { .. }
            | Self::HttpStatus { .. }
            | Self::FetchDeadline
            | Self::Redirected { .. }
            | Self::UnsupportedContent { .. }
            | Self::TooLarge { .. }
            | Self::NeedsScripts => None,
        }
    }

    /// `denied` for a secret, with its kind (a fixed vocabulary) and its
    /// position in Unicode scalar values.
    pub fn denied_secret(reason: DeniedReason, kind: &'static str, position: u64) -> Self {
        Self::Denied {
            reason,
            secret: Some(SecretAt { kind, position }),
            refused: None,
        }
    }

    /// `denied`, `scheme`: the https retry of an http URL failed.
    pub fn denied_upgrade_failed() -> Self {
        Self::UpgradeFailed
    }

    /// `unavailable`, `http_status`: the site answered 4xx or 5xx. 408, 425,
    /// 429 and 5xx say retry later; any other 4xx says retrying will not
    /// help (design §14, REQ-FETCH-011).
    pub fn http_status(status: u16, retry_after_ms: Option<u64>) -> Self {
        Self::HttpStatus {
            status,
            retry_after_ms,
        }
    }

    /// `unavailable`, `deadline` for a fetch.
    pub fn fetch_deadline() -> Self {
        Self::FetchDeadline
    }

    /// `redirected`: the page moved to another host. `location` is
    /// external data, already bounded by LIM-F9.
    pub fn redirected(location: String) -> Self {
        Self::Redirected { location }
    }

    /// `unsupported_content`, `media_type`: `media_type` is external data,
    /// already cleaned and bounded.
    pub fn unsupported_media_type(media_type: String) -> Self {
        Self::UnsupportedContent {
            reason: UnsupportedReason::MediaType,
            media_type: Some(media_type),
        }
    }

    /// `unsupported_content`, `extraction_failed`.
    pub fn extraction_failed() -> Self {
        Self::UnsupportedContent {
            reason: UnsupportedReason::ExtractionFailed,
            media_type: None,
        }
    }

    /// `unsupported_content`, `extraction_failed`: the page needs scripts
    /// to show its text.
    pub fn needs_scripts() -> Self {
        Self::NeedsScripts
    }

    /// `too_large`: the body exceeded LIM-F3.
    pub fn too_large(limit_bytes: u64) -> Self {
        Self::TooLarge { limit_bytes }
    }

    /// The kind.
    pub const fn kind(&self) -> ErrorKind {
        match self {
            Self::InvalidRequest(_) => ErrorKind::InvalidRequest,
            Self::Denied { .. } | Self::UpgradeFailed => ErrorKind::Denied,
            Self::Unavailable { .. } | Self::HttpStatus { .. } | Self::FetchDeadline => {
                ErrorKind::Unavailable
            }
            Self::Redirected { .. } => ErrorKind::Redirected,
            Self::UnsupportedContent { .. } => ErrorKind::UnsupportedContent,
            Self::TooLarge { .. } => ErrorKind::TooLarge,
            Self::NeedsScripts => ErrorKind::UnsupportedContent,
        }
    }

    /// The `reason` of the detail, when the kind has one (a closed
    /// vocabulary: safe to log).
    pub const fn reason(&self) -> Option<&'static str> {
        match self {
            Self::Denied { reason, .. } => Some(reason.as_str()),
            Self::UpgradeFailed => Some(DeniedReason::Scheme.as_str()),
            Self::Unavailable { reason, .. } => Some(reason.as_str()),
            Self::HttpStatus { .. } => Some(UnavailableReason::HttpStatus.as_str()),
            Self::FetchDeadline => Some(UnavailableReason::Deadline.as_str()),
            Self::UnsupportedContent { reason, .. } => Some(reason.as_str()),
            Self::NeedsScripts => Some(UnsupportedReason::ExtractionFailed.as_str()),
            Self::InvalidRequest(_) | Self::Redirected { .. } | Self::TooLarge { .. } => None,
        }
    }

    /// Whether this is a denial for `reason`.
    pub fn is_denied_for(&self, reason: DeniedReason) -> bool {
        self.reason() == Some(reason.as_str()) && self.kind() == ErrorKind::Denied
    }

    /// The message: static text plus numbers, at most LIM-I4 characters.
    pub fn message(&self) -> String {
        let text = match self {
            Self::InvalidRequest(problem) => return param_message(problem),
            Self::Denied {
                refused: Some(refused),
                ..
            } => refused_message(refused.by),
            Self::Denied { reason, .. } => denied_message(*reason),
            Self::UpgradeFailed => {
                "the http URL was retried over https and that request failed; plain http is not allowed"
            }
            Self::Unavailable { reason, .. } => unavailable_message(*reason),
            Self::HttpStatus { status, .. } if is_retryable_status(*status) => {
                return format!("the site answered with status {status}; retry later");
            }
            Self::HttpStatus { status, .. } => {
                return format!(
                    "the site answered with status {status}: it refused the request or has no such page; retrying the same URL will not help"
                );
            }
            Self::FetchDeadline => "the page was not retrieved before the deadline; retry later",
            Self::Redirected { .. } => {
                "the page redirects to another host; fetch the location to follow it"
            }
            Self::UnsupportedContent {
                reason: UnsupportedReason::MediaType,
                ..
            } => {
                "the page's media type cannot be read; only HTML, XHTML, plain text and Markdown are"
            }
            Self::UnsupportedContent {
                reason: UnsupportedReason::ExtractionFailed,
                ..
            } => "no main content could be extracted from the page",
            Self::TooLarge { limit_bytes } => {
                return format!("the page is larger than the limit of {limit_bytes} bytes");
            }
            Self::NeedsScripts => {
                "the page needs scripts to show its text (it is a frame that scripts fill, or shows only a consent banner); pages are read without running scripts"
            }
        };
        text.to_owned()
    }

    /// The detail object: keys from §4's table.
    pub fn detail(&self) -> Map<String, Value> {
        let mut detail = Map::new();
        let mut put = |key: &str, value: Value| {
            detail.insert(key.to_owned(), value);
        };
        if let Some(reason) = self.reason() {
            put("reason", json!(reason));
        }
        match self {
            Self::InvalidRequest(problem) => match problem {
                ParamProblem::OutOfRange {
                    parameter,
                    min,
                    max,
                }
                | ParamProblem::BadLength {
                    parameter,
                    min,
                    max,
                } => {
                    put("parameter", json!(parameter));
                    put("min", json!(min));
                    put("max", json!(max));
                }
                ParamProblem::WrongType { parameter, .. } | ParamProblem::Missing { parameter } => {
                    put("parameter", json!(parameter));
                }
                ParamProblem::NotAllowed { parameter, allowed } => {
                    put("parameter", json!(parameter));
                    put("allowed", json!(allowed));
                }
                ParamProblem::UnknownParameter { allowed } => put("allowed", json!(allowed)),
                ParamProblem::UrlTooLong { max } => {
                    put("parameter", json!("url"));
                    put("max", json!(max));
                }
                ParamProblem::InvalidUrl => put("parameter", json!("url")),
                ParamProblem::StartCharBeyond { length } => {
                    put("parameter", json!("start_char"));
                    put("min", json!(0));
                    put("max", json!(length.saturating_sub(1)));
                }
            },
            Self::Denied {
                secret, refused, ..
            } => {
                if let Some(at) = secret {
                    put("kind", json!(at.kind));
                    put("position", json!(at.position));
                }
                if let Some(refused) = refused {
                    put("refused", json!(refused.by.as_str()));
                    if let Some(class) = refused.class {
                        put("address_class", json!(class.as_str()));
                    }
                }
            }
            Self::Unavailable { retry_after_ms, .. } => {
                if let Some(ms) = retry_after_ms {
                    put("retry_after_ms", json!(ms));
                }
            }
            Self::HttpStatus {
                status,
                retry_after_ms,
            } => {
                put("status", json!(status));
                if let (Some(ms), true) = (retry_after_ms, is_retryable_status(*status)) {
                    put("retry_after_ms", json!(ms));
                }
            }
            Self::Redirected { location } => put("location", json!(location)),
            Self::UnsupportedContent { media_type, .. } => {
                if let Some(media_type) = media_type {
                    put("media_type", json!(media_type));
                }
            }
            Self::TooLarge { limit_bytes } => put("limit_bytes", json!(limit_bytes)),
            Self::UpgradeFailed | Self::FetchDeadline | Self::NeedsScripts => {}
        }
        detail
    }

    /// The wire form: `{"error": {kind, message, detail}}` (REQ-ERR-002).
    pub fn to_wire(&self) -> Value {
        let message = self.message();
        debug_assert!(
            message.chars().count() <= ERROR_MESSAGE_MAX_CHARS,
            "{message}"
        );
        json!({ "error": { "kind": self.kind().as_str(), "message": message, "detail": self.detail() } })
    }
}

/// 408, 425, 429 and 5xx: retrying later may help (design §14).
const fn is_retryable_status(status: u16) -> bool {
    matches!(status, 408 | 425 | 429) || status >= 500
}

fn param_message(problem: &ParamProblem) -> String {
    match problem {
        ParamProblem::OutOfRange {
            parameter,
            min,
            max,
        } => format!("{parameter} must be between {min} and {max}"),
        ParamProblem::BadLength {
            parameter,
            min,
            max,
        } => format!("{parameter} must be {min} to {max} characters after trimming"),
        ParamProblem::WrongType {
            parameter,
            expected,
        } => format!("{parameter} must be {expected}"),
        ParamProblem::Missing { parameter } => format!("{parameter} is required"),
        ParamProblem::NotAllowed { parameter, .. } => {
            format!("{parameter} must be one of the allowed values")
        }
        ParamProblem::UnknownParameter { allowed } if allowed.is_empty() => {
            "this tool takes no parameters".to_owned()
        }
        ParamProblem::UnknownParameter { .. } => {
            "unknown parameter; see allowed for the parameters this tool takes".to_owned()
        }
        ParamProblem::UrlTooLong { max } => format!("url must be at most {max} characters"),
        ParamProblem::InvalidUrl => "url must be an absolute http or https URL".to_owned(),
        ParamProblem::StartCharBeyond { length } => {
            format!("start_char must be below the content length of {length} characters")
        }
    }
}

const fn denied_message(reason: DeniedReason) -> &'static str {
    match reason {
        DeniedReason::Egress => {
            "the egress policy refuses this destination (an internal address, or a port that is not allowed)"
        }
        DeniedReason::RobotsTxt => "the site's robots.txt does not allow rypsok to read this page",
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
            "the query looks like it carries a credential; remove it and search again"
        }
        DeniedReason::SecretInUrl => {
            "the URL looks like it carries a password or a credential; remove it"
        }
    }
}

const fn refused_message(by: EgressRefused) -> &'static str {
    match by {
        EgressRefused::Port => {
            "the egress policy refuses this port: only 80 and 443, unless the operator allows another"
        }
        EgressRefused::AddressClass => {
            "the egress policy refuses this address: it is internal or special-purpose (see address_class)"
        }
        EgressRefused::DenyRule => "an operator deny rule refuses this destination",
        EgressRefused::HostName => {
            "the host name cannot be requested: it has an empty label or a character no host name holds"
        }
        EgressRefused::UrlForm => {
            "a URL this fetch leads to (a redirect target) cannot be requested"
        }
        EgressRefused::NotAllowedStrict => denied_message(DeniedReason::StrictMode),
    }
}

const fn unavailable_message(reason: UnavailableReason) -> &'static str {
    match reason {
        UnavailableReason::NoEngine => {
            "no enabled engine can serve this search (its category, time_range, language or query length)"
        }
        UnavailableReason::AllFailed => "every engine failed; retry later",
        UnavailableReason::RateLimited => "the tool's rate limit was reached; retry later",
        UnavailableReason::Network => "the site could not be reached",
        UnavailableReason::Deadline => "no engine answered before the deadline; retry later",
        UnavailableReason::HttpStatus => "the site answered with an error status",
        UnavailableReason::Busy => "too many calls are in flight; retry later",
    }
}

#[cfg(test)]
mod tests;
