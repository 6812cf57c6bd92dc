//! Every way a fetch fails once the URL policy has admitted it, and the one
//! place each becomes the contract's error (design §4, §8, §14;
//! REQ-FETCH-006, REQ-FETCH-011, REQ-CMP-005, REQ-ERR-002). The pipeline
//! (`fetch.rs`, `hop.rs`, `robots.rs`) only says what happened; the match
//! below, with no `_` arm, says what the caller is answered, so a new
//! failure cannot slip through unclassified.

use rypsok_proto::limits::ROBOTS_MAX_BYTES;
use rypsok_proto::{FailureCause, NetFailure, Unreadable};

use super::hop::HopFailure;
use crate::error::{Refused, ToolError};
use crate::ports::PortError;

/// What went wrong in one fetch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum FetchFailure {
    /// The tool's rate limit (LIM-C7), free again after this long.
    RateLimited { retry_after_ms: u64 },
    /// The caller's share or the process's LIM-F10 is in use.
    Busy,
    /// The call's deadline (LIM-F5) passed.
    CallDeadline,
    /// A hop for the page produced no response. `upgraded`: the URL was
    /// an http one retried over https; `max_bytes`: the page's bound,
    /// `pdf_max_bytes` a PDF's (worker-net applies the one of the body's
    /// kind while it streams).
    Hop {
        failure: HopFailure,
        upgraded: bool,
        max_bytes: u64,
        pdf_max_bytes: u64,
    },
    /// A redirect location that does not resolve against the page: a
    /// broken site, not a policy matter.
    UnresolvableLocation,
    /// More redirects than LIM-F7.
    TooManyRedirects,
    /// The URL policy refuses a redirect target, as it refused it.
    RedirectRefused(ToolError),
    /// Redirected to another host, handed back to the caller.
    CrossHost { location: String },
    /// The site answered 4xx or 5xx.
    ErrorStatus {
        status: u16,
        retry_after_ms: Option<u64>,
    },
    /// A status that is neither success, error nor a redirect with a
    /// location (1xx, a 3xx without one).
    UnexpectedStatus,
    /// The page's media type is not one the reader takes (cleaned and
    /// bounded).
    MediaType(String),
    /// The page reader's worker failed or ran out of time.
    PageReader(PortError),
    /// Nothing could be extracted: no content, nothing left after the
    /// content boundary, or the step that windows it died.
    NothingExtracted,
    /// The page shows no text without running its scripts.
    NeedsScripts,
    /// A PDF that cannot be read, and why.
    Unreadable(Unreadable),
    /// The body is larger than the bound of its kind (LIM-F3, or LIM-F14
    /// for a PDF), found once its type was known.
    TooLarge { max_bytes: u64 },
    /// `start_char` is at or past the content's `length` characters.
    StartCharBeyond { length: u64 },
    /// robots.txt does not allow the page, answered 5xx, or cannot be read
    /// (RFC 9309 §2.3.1: everything disallowed).
    RobotsDisallow,
    /// `/robots.txt` does not resolve against the page's URL.
    RobotsUrl,
    /// A hop for robots.txt produced no response.
    RobotsHop { failure: HopFailure, upgraded: bool },
    /// The robots.txt reader's worker failed or ran out of time.
    RobotsReader(PortError),
}

impl FetchFailure {
    /// Why a hop produced no response, in the words of the `fetch_result`
    /// log line (the caller's answer stays `network`, `deadline`, ...).
    pub(super) fn cause(&self) -> Option<FailureCause> {
        let (Self::Hop { failure, .. } | Self::RobotsHop { failure, .. }) = self else {
            return None;
        };
        Some(match failure {
            HopFailure::Net(net) => FailureCause::from(*net),
            HopFailure::Port(PortError::Timeout) | HopFailure::BudgetSpent => FailureCause::Timeout,
            HopFailure::Port(PortError::Unavailable | PortError::WorkerFailed) => {
                FailureCause::Internal
            }
        })
    }
}

impl From<FetchFailure> for ToolError {
    fn from(failure: FetchFailure) -> Self {
        match failure {
            FetchFailure::RateLimited { retry_after_ms } => Self::rate_limited(retry_after_ms),
            FetchFailure::Busy => Self::busy(),
            FetchFailure::CallDeadline
            | FetchFailure::PageReader(PortError::Timeout)
            | FetchFailure::RobotsReader(PortError::Timeout) => Self::fetch_deadline(),
            FetchFailure::Hop {
                failure: HopFailure::Net(NetFailure::PdfTooLarge),
                pdf_max_bytes,
                ..
            } => Self::too_large(pdf_max_bytes),
            FetchFailure::Hop {
                failure,
                upgraded,
                max_bytes,
                ..
            } => hop_error(failure, upgraded, max_bytes),
            FetchFailure::UnresolvableLocation
            | FetchFailure::TooManyRedirects
            | FetchFailure::UnexpectedStatus => Self::network(),
            FetchFailure::RedirectRefused(refusal) => redirect_refusal(refusal),
            FetchFailure::CrossHost { location } => Self::redirected(location),
            FetchFailure::ErrorStatus {
                status,
                retry_after_ms,
            } => Self::http_status(status, retry_after_ms),
            FetchFailure::MediaType(media_type) => Self::unsupported_media_type(media_type),
            // A reader that died while holding the document (killed, or
            // crashed), or that is being replaced: a passing failure of
            // rypsok's own, not a verdict on the document, so the caller
            // is told to try again rather than that it cannot be read.
            FetchFailure::PageReader(PortError::Unavailable | PortError::WorkerFailed)
            | FetchFailure::RobotsReader(PortError::Unavailable | PortError::WorkerFailed) => {
                Self::reader_lost()
            }
            FetchFailure::NothingExtracted => Self::extraction_failed(),
            FetchFailure::NeedsScripts => Self::needs_scripts(),
            FetchFailure::Unreadable(Unreadable::NoTextLayer) => Self::no_text_layer(),
            FetchFailure::Unreadable(Unreadable::Encrypted) => Self::encrypted(),
            FetchFailure::TooLarge { max_bytes } => Self::too_large(max_bytes),
            FetchFailure::StartCharBeyond { length } => Self::start_char_beyond(length),
            // A file that cannot be read disallows everything (RFC 9309
            // §2.3.1.4, §2.5), failing closed.
            FetchFailure::RobotsDisallow
            | FetchFailure::RobotsHop {
                failure:
                    HopFailure::Net(
                        NetFailure::Protocol | NetFailure::TooLarge | NetFailure::PdfTooLarge,
                    ),
                ..
            } => Self::denied_robots_txt(),
            FetchFailure::RobotsUrl => Self::denied_egress(Refused::UrlForm),
            // Otherwise a site that cannot be reached for its robots.txt
            // answers like its page would, never `denied`, so a refused
            // name answers exactly like one that does not resolve.
            FetchFailure::RobotsHop { failure, upgraded } => {
                hop_error(failure, upgraded, ROBOTS_MAX_BYTES as u64)
            }
        }
    }
}

/// A hop that produced no response. A name that does not resolve and a
/// name whose every address the policy refuses answer alike (`network`).
fn hop_error(failure: HopFailure, upgraded: bool, max_bytes: u64) -> ToolError {
    match failure {
        HopFailure::Net(NetFailure::Connect | NetFailure::Tls) if upgraded => {
            ToolError::denied_upgrade_failed()
        }
        HopFailure::Net(NetFailure::InvalidUrl) => ToolError::denied_scheme(),
        HopFailure::Net(NetFailure::TooLarge | NetFailure::PdfTooLarge) => {
            ToolError::too_large(max_bytes)
        }
        HopFailure::Net(NetFailure::Timeout)
        | HopFailure::Port(PortError::Timeout)
        | HopFailure::BudgetSpent => ToolError::fetch_deadline(),
        HopFailure::Net(
            NetFailure::Resolve
            | NetFailure::Refused(_)
            | NetFailure::Connect
            | NetFailure::Tls
            | NetFailure::Protocol
            | NetFailure::ProxyConnect
            | NetFailure::ProxyAuth
            | NetFailure::ProxyStatus,
        )
        | HopFailure::Port(PortError::Unavailable | PortError::WorkerFailed) => {
            ToolError::network()
        }
    }
}

/// A redirect target passes the whole URL policy again; a location the
/// policy cannot even read (too long, unparsable) is refused like a
/// destination it refuses.
fn redirect_refusal(refusal: ToolError) -> ToolError {
    match refusal {
        ToolError::InvalidRequest(_) => ToolError::denied_egress(Refused::UrlForm),
        ToolError::Denied(_)
        | ToolError::Unavailable(_)
        | ToolError::Redirected { .. }
        | ToolError::UnsupportedContent(_)
        | ToolError::TooLarge { .. } => refusal,
    }
}

#[cfg(test)]
mod tests;
