//! Tool errors (design §4; REQ-ERR-001..004, REQ-SEC-016), after rustls's
//! closed, nested error enum: a [`ToolError`] is one kind, and within the
//! kinds that have one, a typed reason ([`Denied`], [`Unavailable`],
//! [`Unsupported`]) carrying exactly the data its wire form needs. Each
//! failure has one spelling: there is no second variant for the same kind
//! and reason. `wire.rs` is the one mapping to the wire's error object.
//!
//! The words of the contract (kinds, reasons, the `refused` parts, the
//! detail keys) are vocabularies, spelled once through the `vocabulary!`
//! macro (a test checks serde and `as_str()` agree); the words of
//! successful responses and notices are in `response.rs`.

use rypsok_egress::{AddressClass, AddressVerdict};
pub use rypsok_proto::FailureCause;

pub use crate::secret::SecretKind;
use crate::vocabulary::vocabulary;

mod wire;

pub use wire::{DetailKey, DetailValue, Field};

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
    /// Which part of the policy refused a destination: the words of the
    /// `refused` detail of `denied` for `egress` and `strict_mode`.
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

/// Where a secret was found: its kind and its position in Unicode scalar
/// values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SecretAt {
    /// What was found.
    pub kind: SecretKind,
    /// Unicode scalar values before it.
    pub position: u64,
}

/// A tool execution error: the wire's `{"error": {kind, message, detail}}`
/// (design §4). One variant per kind; the kinds with reasons nest a closed
/// enum of them. `wire.rs` holds every message (static text plus numbers,
/// never external text or the caller's input) and the detail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolError {
    /// `invalid_request`.
    InvalidRequest(ParamProblem),
    /// `denied`.
    Denied(Denied),
    /// `unavailable`.
    Unavailable(Unavailable),
    /// `redirected`: the page moved to another host.
    Redirected {
        /// External data, already bounded by LIM-F9.
        location: String,
    },
    /// `unsupported_content`.
    UnsupportedContent(Unsupported),
    /// `too_large`: the body exceeded LIM-F3.
    TooLarge {
        /// LIM-F3.
        limit_bytes: u64,
    },
}

/// Why policy refused a call: the reasons of `denied`, each with its data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Denied {
    /// `egress`, saying which part of the policy refused.
    Egress(Refused),
    /// `robots_txt`.
    RobotsTxt,
    /// `scheme`.
    Scheme(SchemeDenial),
    /// `strict_mode`: neither a URL rypsok returned nor one an allow rule
    /// names (its `refused` part is always `not_allowed_strict`).
    StrictMode,
    /// `credential_in_url`: the URL names a user.
    CredentialInUrl,
    /// `secret_in_query`.
    SecretInQuery(SecretAt),
    /// `secret_in_url`.
    SecretInUrl(SecretAt),
}

/// The two ways a scheme is refused; the wire says `scheme` for both.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SchemeDenial {
    /// Not https (nor http where the operator allows it).
    NotAllowed,
    /// An http URL was retried over https (plain http is not allowed) and
    /// that request failed.
    UpgradeFailed,
}

/// Which part of the egress policy refused a destination judged on its URL
/// (`denied`, `egress`). Never an address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// A port outside LIM-F8 that no allow rule opens.
    Port,
    /// An internal or special-purpose address of this class.
    AddressClass(AddressClass),
    /// An operator deny rule.
    DenyRule,
    /// A host name the policy cannot read.
    HostName,
    /// A URL the fetch leads to (a redirect location past LIM-F9, a
    /// robots.txt location) that cannot be requested.
    UrlForm,
}

impl Refused {
    /// The policy's verdict on an address, when it refuses.
    pub const fn of_verdict(verdict: AddressVerdict) -> Option<Self> {
        match verdict {
            AddressVerdict::Allowed
            | AddressVerdict::AllowedByRule
            | AddressVerdict::AllowedAsEndpoint => None,
            AddressVerdict::Refused(class) => Some(Self::AddressClass(class)),
            AddressVerdict::DeniedByRule => Some(Self::DenyRule),
            AddressVerdict::PortNotAllowed => Some(Self::Port),
        }
    }

    /// Its word in the `refused` detail.
    pub const fn part(self) -> EgressRefused {
        match self {
            Self::Port => EgressRefused::Port,
            Self::AddressClass(_) => EgressRefused::AddressClass,
            Self::DenyRule => EgressRefused::DenyRule,
            Self::HostName => EgressRefused::HostName,
            Self::UrlForm => EgressRefused::UrlForm,
        }
    }

    /// The refusing class, for [`Self::AddressClass`].
    pub const fn address_class(self) -> Option<AddressClass> {
        match self {
            Self::AddressClass(class) => Some(class),
            Self::Port | Self::DenyRule | Self::HostName | Self::UrlForm => None,
        }
    }
}

/// What left a search with no engine, so that its message says what to
/// change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoEngineFor {
    /// The category, the language or the query's length, or engines
    /// resting: no one argument to name.
    Arguments,
    /// Every engine of the category that was left was skipped for the
    /// call's `time_range`.
    TimeRange,
}

/// Why nothing could be returned: the reasons of `unavailable`, each with
/// its data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unavailable {
    /// `no_engine`, with what left none.
    NoEngine(NoEngineFor),
    /// `all_failed`: each engine that failed, with why (the additive
    /// `engines` detail key).
    AllFailed(Vec<EngineCause>),
    /// `rate_limited`: the tool's rate limit, free again after this long.
    RateLimited {
        /// When to retry.
        retry_after_ms: u64,
    },
    /// `network`: a fetch could not reach the site.
    Network,
    /// `deadline`, of a search or of a fetch.
    Deadline(DeadlineOf),
    /// `http_status`: the site answered 4xx or 5xx.
    HttpStatus {
        /// The status.
        status: u16,
        /// The site's retry hint; sent only where retrying helps.
        retry_after_ms: Option<u64>,
    },
    /// `busy`: rypsok cannot take the work now.
    Busy(BusyWith),
}

/// What keeps rypsok from the work now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BusyWith {
    /// A concurrency limit was reached.
    Calls,
    /// The worker reading the page (or its robots.txt) died holding it
    /// (killed, or crashed) or is being replaced: a passing failure of
    /// rypsok's own, not a verdict on the page.
    ReaderLost,
}

/// Whose deadline passed with nothing to return.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeadlineOf {
    /// A search: no engine answered in time.
    Search,
    /// A fetch: the page was not retrieved in time.
    Fetch,
}

/// Why a page could not be read: the reasons of `unsupported_content`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unsupported {
    /// `media_type`: external data, already cleaned and bounded.
    MediaType(String),
    /// `extraction_failed`, and what the message says of it.
    ExtractionFailed(Extraction),
}

/// Why nothing could be extracted: one reason on the wire
/// (`extraction_failed`), a message for each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Extraction {
    /// No main content (an empty shell, a broken document, a dead parser).
    NoContent,
    /// A PDF with no text layer (a scan; no OCR).
    NoTextLayer,
    /// A PDF encrypted with a password other than the empty one.
    Encrypted,
    /// A page that shows no text without running its scripts (an empty
    /// frame that scripts fill, a consent banner alone).
    NeedsScripts,
}

/// The `reason` of an error's detail: a word of one of the three reason
/// vocabularies (safe to log and count).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Reason {
    /// A reason of `denied`.
    Denied(DeniedReason),
    /// A reason of `unavailable`.
    Unavailable(UnavailableReason),
    /// A reason of `unsupported_content`.
    Unsupported(UnsupportedReason),
}

impl Reason {
    /// The wire spelling.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Denied(reason) => reason.as_str(),
            Self::Unavailable(reason) => reason.as_str(),
            Self::Unsupported(reason) => reason.as_str(),
        }
    }
}

impl Denied {
    /// Its word.
    pub const fn reason(&self) -> DeniedReason {
        match self {
            Self::Egress(_) => DeniedReason::Egress,
            Self::RobotsTxt => DeniedReason::RobotsTxt,
            Self::Scheme(_) => DeniedReason::Scheme,
            Self::StrictMode => DeniedReason::StrictMode,
            Self::CredentialInUrl => DeniedReason::CredentialInUrl,
            Self::SecretInQuery(_) => DeniedReason::SecretInQuery,
            Self::SecretInUrl(_) => DeniedReason::SecretInUrl,
        }
    }
}

/// One engine of an `all_failed` answer and why it failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineCause {
    /// The engine's configured id (the operator's word, not external text).
    pub engine: String,
    /// Why it failed.
    pub cause: FailureCause,
}

impl Unavailable {
    /// Its word.
    pub const fn reason(&self) -> UnavailableReason {
        match self {
            Self::NoEngine(_) => UnavailableReason::NoEngine,
            Self::AllFailed(_) => UnavailableReason::AllFailed,
            Self::RateLimited { .. } => UnavailableReason::RateLimited,
            Self::Network => UnavailableReason::Network,
            Self::Deadline(_) => UnavailableReason::Deadline,
            Self::HttpStatus { .. } => UnavailableReason::HttpStatus,
            Self::Busy(_) => UnavailableReason::Busy,
        }
    }
}

impl Unsupported {
    /// Its word.
    pub const fn reason(&self) -> UnsupportedReason {
        match self {
            Self::MediaType(_) => UnsupportedReason::MediaType,
            Self::ExtractionFailed(_) => UnsupportedReason::ExtractionFailed,
        }
    }
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

    /// `unavailable`, `no_engine`.
    pub fn no_engine(why: NoEngineFor) -> Self {
        Self::Unavailable(Unavailable::NoEngine(why))
    }

    /// `unavailable`, `all_failed`, naming why each engine failed.
    pub fn all_failed(causes: Vec<EngineCause>) -> Self {
        Self::Unavailable(Unavailable::AllFailed(causes))
    }

    /// `unavailable`, `deadline` for a search.
    pub fn search_deadline() -> Self {
        Self::Unavailable(Unavailable::Deadline(DeadlineOf::Search))
    }

    /// `unavailable`, `deadline` for a fetch.
    pub fn fetch_deadline() -> Self {
        Self::Unavailable(Unavailable::Deadline(DeadlineOf::Fetch))
    }

    /// `unavailable`, `rate_limited`: the tool's rate limit, free again in
    /// `retry_after_ms`.
    pub fn rate_limited(retry_after_ms: u64) -> Self {
        Self::Unavailable(Unavailable::RateLimited { retry_after_ms })
    }

    /// `unavailable`, `network`.
    pub fn network() -> Self {
        Self::Unavailable(Unavailable::Network)
    }

    /// `unavailable`, `busy`.
    pub fn busy() -> Self {
        Self::Unavailable(Unavailable::Busy(BusyWith::Calls))
    }

    /// `unavailable`, `busy`: the page's reader died or is being replaced.
    pub fn reader_lost() -> Self {
        Self::Unavailable(Unavailable::Busy(BusyWith::ReaderLost))
    }

    /// `unavailable`, `http_status`: the site answered 4xx or 5xx. 408, 425,
    /// 429 and 5xx say retry later; any other 4xx says retrying will not
    /// help (design §14, REQ-FETCH-011).
    pub fn http_status(status: u16, retry_after_ms: Option<u64>) -> Self {
        Self::Unavailable(Unavailable::HttpStatus {
            status,
            retry_after_ms,
        })
    }

    /// `denied`, `egress`, saying which part of the policy refused.
    pub fn denied_egress(refused: Refused) -> Self {
        Self::Denied(Denied::Egress(refused))
    }

    /// `denied`, `robots_txt`.
    pub fn denied_robots_txt() -> Self {
        Self::Denied(Denied::RobotsTxt)
    }

    /// `denied`, `scheme`: not https (nor http where allowed).
    pub fn denied_scheme() -> Self {
        Self::Denied(Denied::Scheme(SchemeDenial::NotAllowed))
    }

    /// `denied`, `scheme`: the https retry of an http URL failed.
    pub fn denied_upgrade_failed() -> Self {
        Self::Denied(Denied::Scheme(SchemeDenial::UpgradeFailed))
    }

    /// `denied`, `strict_mode`: the URL is neither one rypsok returned nor
    /// one an allow rule names.
    pub fn denied_strict_mode() -> Self {
        Self::Denied(Denied::StrictMode)
    }

    /// `denied`, `credential_in_url`: the URL names a user.
    pub fn denied_credential_in_url() -> Self {
        Self::Denied(Denied::CredentialInUrl)
    }

    /// `denied`, `secret_in_query`, with the secret's kind and its position
    /// in Unicode scalar values.
    pub fn secret_in_query(kind: SecretKind, position: u64) -> Self {
        Self::Denied(Denied::SecretInQuery(SecretAt { kind, position }))
    }

    /// `denied`, `secret_in_url`, with the secret's kind and its position
    /// in Unicode scalar values.
    pub fn secret_in_url(kind: SecretKind, position: u64) -> Self {
        Self::Denied(Denied::SecretInUrl(SecretAt { kind, position }))
    }

    /// `redirected`: the page moved to another host. `location` is
    /// external data, already bounded by LIM-F9.
    pub fn redirected(location: String) -> Self {
        Self::Redirected { location }
    }

    /// `unsupported_content`, `media_type`: `media_type` is external data,
    /// already cleaned and bounded.
    pub fn unsupported_media_type(media_type: String) -> Self {
        Self::UnsupportedContent(Unsupported::MediaType(media_type))
    }

    /// `unsupported_content`, `extraction_failed`.
    pub fn extraction_failed() -> Self {
        Self::UnsupportedContent(Unsupported::ExtractionFailed(Extraction::NoContent))
    }

    /// `unsupported_content`, `extraction_failed`: a PDF without a text
    /// layer.
    pub fn no_text_layer() -> Self {
        Self::UnsupportedContent(Unsupported::ExtractionFailed(Extraction::NoTextLayer))
    }

    /// `unsupported_content`, `extraction_failed`: a PDF that needs a
    /// password.
    pub fn encrypted() -> Self {
        Self::UnsupportedContent(Unsupported::ExtractionFailed(Extraction::Encrypted))
    }

    /// `unsupported_content`, `extraction_failed`: the page needs scripts
    /// to show its text.
    pub fn needs_scripts() -> Self {
        Self::UnsupportedContent(Unsupported::ExtractionFailed(Extraction::NeedsScripts))
    }

    /// `too_large`: the body exceeded LIM-F3.
    pub fn too_large(limit_bytes: u64) -> Self {
        Self::TooLarge { limit_bytes }
    }

    /// The kind.
    pub const fn kind(&self) -> ErrorKind {
        match self {
            Self::InvalidRequest(_) => ErrorKind::InvalidRequest,
            Self::Denied(_) => ErrorKind::Denied,
            Self::Unavailable(_) => ErrorKind::Unavailable,
            Self::Redirected { .. } => ErrorKind::Redirected,
            Self::UnsupportedContent(_) => ErrorKind::UnsupportedContent,
            Self::TooLarge { .. } => ErrorKind::TooLarge,
        }
    }

    /// The `reason` of the detail, when the kind has one.
    pub const fn reason(&self) -> Option<Reason> {
        match self {
            Self::Denied(denied) => Some(Reason::Denied(denied.reason())),
            Self::Unavailable(unavailable) => Some(Reason::Unavailable(unavailable.reason())),
            Self::UnsupportedContent(unsupported) => {
                Some(Reason::Unsupported(unsupported.reason()))
            }
            Self::InvalidRequest(_) | Self::Redirected { .. } | Self::TooLarge { .. } => None,
        }
    }

    /// Which part of the policy refused, for a denial that says so
    /// (`egress`, `strict_mode`).
    pub const fn refused(&self) -> Option<EgressRefused> {
        match self {
            Self::Denied(Denied::Egress(refused)) => Some(refused.part()),
            Self::Denied(Denied::StrictMode) => Some(EgressRefused::NotAllowedStrict),
            Self::Denied(
                Denied::RobotsTxt
                | Denied::Scheme(_)
                | Denied::CredentialInUrl
                | Denied::SecretInQuery(_)
                | Denied::SecretInUrl(_),
            )
            | Self::InvalidRequest(_)
            | Self::Unavailable(_)
            | Self::Redirected { .. }
            | Self::UnsupportedContent(_)
            | Self::TooLarge { .. } => None,
        }
    }

    /// The refusing address class, for an `egress` denial by one.
    pub const fn address_class(&self) -> Option<AddressClass> {
        match self {
            Self::Denied(Denied::Egress(refused)) => refused.address_class(),
            Self::Denied(
                Denied::RobotsTxt
                | Denied::Scheme(_)
                | Denied::StrictMode
                | Denied::CredentialInUrl
                | Denied::SecretInQuery(_)
                | Denied::SecretInUrl(_),
            )
            | Self::InvalidRequest(_)
            | Self::Unavailable(_)
            | Self::Redirected { .. }
            | Self::UnsupportedContent(_)
            | Self::TooLarge { .. } => None,
        }
    }
}

/// One of each error the contract can say: every kind, every reason and,
/// within a reason, each typed variant (every part of the policy, every
/// address class, both deadlines, both scheme refusals, a retryable and a
/// final status): the vocabulary the wire tests run over.
#[cfg(test)]
pub(crate) fn every_error() -> Vec<ToolError> {
    let mut errors = vec![
        ToolError::out_of_range("max_results", 1, 20),
        ToolError::bad_length("query", 1, 400),
        ToolError::wrong_type("max_results", "an integer"),
        ToolError::missing("query"),
        ToolError::not_allowed("category", &["general", "news"]),
        ToolError::unknown_parameter(&["query"]),
        ToolError::unknown_parameter(&[]),
        ToolError::url_too_long(2048),
        ToolError::invalid_url(),
        ToolError::start_char_beyond(10),
        ToolError::denied_egress(Refused::Port),
        ToolError::denied_egress(Refused::DenyRule),
        ToolError::denied_egress(Refused::HostName),
        ToolError::denied_egress(Refused::UrlForm),
        ToolError::denied_robots_txt(),
        ToolError::denied_scheme(),
        ToolError::denied_upgrade_failed(),
        ToolError::denied_strict_mode(),
        ToolError::denied_credential_in_url(),
        ToolError::secret_in_query(SecretKind::GithubToken, 3),
        ToolError::secret_in_url(SecretKind::UrlPassword, 8),
        ToolError::no_engine(NoEngineFor::Arguments),
        ToolError::no_engine(NoEngineFor::TimeRange),
        ToolError::all_failed(vec![EngineCause {
            engine: "duckduckgo".to_owned(),
            cause: FailureCause::Resolve,
        }]),
        ToolError::rate_limited(1500),
        ToolError::network(),
        ToolError::search_deadline(),
        ToolError::fetch_deadline(),
        ToolError::http_status(404, Some(1000)),
        ToolError::http_status(503, Some(1000)),
        ToolError::http_status(503, None),
        ToolError::busy(),
        ToolError::reader_lost(),
        ToolError::redirected("https://example.net/".to_owned()),
        ToolError::unsupported_media_type("image/png".to_owned()),
        ToolError::extraction_failed(),
        ToolError::too_large(5_000_000),
    ];
    errors.extend(
        AddressClass::ALL
            .into_iter()
            .map(|class| ToolError::denied_egress(Refused::AddressClass(class))),
    );
    errors
}

#[cfg(test)]
mod tests;
