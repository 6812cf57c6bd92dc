//! The live probe of `rypsok check --online` (REQ-TEST-003): one probe
//! query to every enabled engine, through the same workers, drivers and
//! parsers as a search, and per engine what happened, in a closed set of
//! words. It bypasses the search cache, the engines' health and their
//! pacing (one request each, once), and records nothing: a probe neither
//! opens a circuit nor fills the cache. Nothing but the probe query leaves.
//!
//! The failure words are this module's own, kept apart from the notice
//! vocabulary of `engine_unavailable`: they name the network failure
//! worker-net saw (resolve, connect, tls, …) and the HTTP status of a
//! refused answer, which a notice never shows.

use std::time::Duration;

use rypsok_proto::{EngineFailure, EngineParse, NetFailure};
use tokio::time::Instant;

use crate::context::EngineSlot;
use crate::engine::{Driver, SearchContext};
use crate::limits::{RESULTS_PER_ENGINE, WORKER_SLACK};
use crate::ports::{EngineResponse, ExchangeError, PortError};
use crate::services::Services;
use crate::vocabulary::TimeRange;

/// The query every engine is sent: common enough that every engine type
/// has results for it, long enough for the ones that refuse short phrases.
pub const PROBE_QUERY: &str = "rust programming language";

/// The time one probe may take at least, whatever the engine's own
/// timeout: a probe is run by hand, once, and a slow first answer (a cold
/// name lookup, a TLS handshake) is not a failure.
const PROBE_MIN_TIMEOUT: Duration = Duration::from_secs(10);

/// What one engine's probe found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProbeOutcome {
    /// The engine answered with this many results (possibly none).
    Answered(usize),
    /// The engine failed.
    Failed(ProbeFailure),
    /// Not probed: the engine is switched off.
    Disabled,
    /// Not probed: the engine needs a key and none could be read.
    NoCredential,
}

/// Why a probe failed: a closed set of words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProbeFailure {
    /// The endpoint's name did not resolve.
    Resolve,
    /// The egress policy refused every address of the endpoint.
    Refused,
    /// No address accepted a connection.
    Connect,
    /// The TLS handshake failed.
    Tls,
    /// The deadline passed.
    Timeout,
    /// The peer broke HTTP, or the answer was too large.
    Protocol,
    /// The endpoint URL cannot be requested.
    InvalidUrl,
    /// The provider's rate limit.
    RateLimit,
    /// The credential was refused.
    Auth,
    /// An anti-bot or policy block.
    Blocked,
    /// The answer was not what the driver reads.
    Parse,
    /// The provider refused the request with this HTTP status.
    Http(u16),
    /// The provider refused the request in a 200 answer.
    Request,
    /// A worker did not answer.
    Worker,
    /// The configured proxy refused the connection or could not be reached.
    ProxyConnect,
    /// The configured proxy asked for credentials (407).
    ProxyAuth,
    /// The configured proxy answered the tunnel request with another status.
    ProxyStatus,
}

impl ProbeFailure {
    /// The word `check --online` prints.
    #[must_use]
    pub fn word(self) -> String {
        match self {
            Self::Resolve => "resolve".to_owned(),
            Self::Refused => "refused by egress policy".to_owned(),
            Self::Connect => "connect".to_owned(),
            Self::Tls => "tls".to_owned(),
            Self::Timeout => "timeout".to_owned(),
            Self::Protocol => "protocol".to_owned(),
            Self::InvalidUrl => "invalid url".to_owned(),
            Self::RateLimit => "rate limit".to_owned(),
            Self::Auth => "auth".to_owned(),
            Self::Blocked => "blocked".to_owned(),
            Self::Parse => "parse".to_owned(),
            Self::Http(status) => format!("HTTP {status}"),
            Self::Request => "request refused".to_owned(),
            Self::Worker => "worker".to_owned(),
            Self::ProxyConnect => "proxy connect".to_owned(),
            Self::ProxyAuth => "proxy auth".to_owned(),
            Self::ProxyStatus => "proxy status".to_owned(),
        }
    }
}

/// One engine's line of the report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeReport {
    /// The configured identifier.
    pub id: String,
    /// The engine type.
    pub kind: &'static str,
    /// What happened.
    pub outcome: ProbeOutcome,
    /// What a keyless operator should expect of this engine, when that is
    /// worth saying.
    pub keyless_allowance: Option<&'static str>,
}

impl Services {
    /// Sends [`PROBE_QUERY`] once to every enabled engine, all at once, and
    /// reports each in identifier order.
    pub async fn probe_engines(&self) -> Vec<ProbeReport> {
        let ctx = &self.ctx;
        let probes = ctx.engines.iter().map(|slot| async move {
            match slot {
                EngineSlot::Disabled { id, reason } => {
                    let kind = ctx
                        .config
                        .engines
                        .iter()
                        .find(|engine| engine.id == *id)
                        .map_or("", |engine| engine.kind.as_str());
                    ProbeReport {
                        id: id.clone(),
                        kind,
                        outcome: match reason {
                            crate::response::DisabledReason::Disabled => ProbeOutcome::Disabled,
                            crate::response::DisabledReason::NoCredential => {
                                ProbeOutcome::NoCredential
                            }
                        },
                        keyless_allowance: None,
                    }
                }
                EngineSlot::Active(engine) => {
                    let spec = engine.config.kind.spec();
                    ProbeReport {
                        id: engine.config.id.clone(),
                        kind: engine.config.kind.as_str(),
                        outcome: self.probe_one(engine).await,
                        keyless_allowance: spec
                            .keyless_allowance
                            .filter(|_| engine.credential.is_none()),
                    }
                }
            }
        });
        let mut reports = futures_util::future::join_all(probes).await;
        reports.sort_by(|a, b| a.id.cmp(&b.id));
        reports
    }

    async fn probe_one(&self, engine: &crate::context::ActiveEngine) -> ProbeOutcome {
        let ctx = &self.ctx;
        let timeout = Duration::from_millis(engine.config.timeout_ms).max(PROBE_MIN_TIMEOUT);
        let deadline = Instant::now() + timeout;
        let category = engine
            .config
            .categories
            .first()
            .copied()
            .unwrap_or(crate::vocabulary::Category::General);
        let call = SearchContext {
            lang: ctx
                .config
                .search
                .languages
                .first()
                .map_or("en", String::as_str),
            query: PROBE_QUERY,
            count: RESULTS_PER_ENGINE,
            category,
            region: &ctx.config.search.region,
            safe_search: ctx.config.search.safe_search,
            time_range: None::<TimeRange>,
            credential: engine.credential.as_ref(),
            contact: &ctx.config.service.contact,
            now_unix: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |since| {
                    i64::try_from(since.as_secs()).unwrap_or(i64::MAX)
                }),
        };
        let network_time = timeout.saturating_sub(WORKER_SLACK);
        let (exchange, base_url) = crate::search::engine_exchange(ctx, engine, &call, network_time);
        let response = match ctx.net.exchange(exchange, deadline).await {
            Ok(response) => response,
            Err(ExchangeError::Net(failure)) => {
                return ProbeOutcome::Failed(match failure {
                    NetFailure::InvalidUrl => ProbeFailure::InvalidUrl,
                    NetFailure::Resolve => ProbeFailure::Resolve,
                    NetFailure::Refused(_) => ProbeFailure::Refused,
                    NetFailure::Connect => ProbeFailure::Connect,
                    NetFailure::Tls => ProbeFailure::Tls,
                    NetFailure::Timeout => ProbeFailure::Timeout,
                    NetFailure::TooLarge | NetFailure::PdfTooLarge | NetFailure::Protocol => {
                        ProbeFailure::Protocol
                    }
                    NetFailure::ProxyConnect => ProbeFailure::ProxyConnect,
                    NetFailure::ProxyAuth => ProbeFailure::ProxyAuth,
                    NetFailure::ProxyStatus => ProbeFailure::ProxyStatus,
                });
            }
            Err(ExchangeError::Port(error)) => return ProbeOutcome::Failed(port_failure(error)),
        };
        let status = response.status;
        let answer = EngineResponse {
            engine: engine.config.kind,
            base_url,
            response,
        };
        match ctx.parse.parse_engine_answer(answer, deadline).await {
            Ok(EngineParse::Hits(hits) | EngineParse::Paced { hits, .. }) => {
                ProbeOutcome::Answered(hits.len())
            }
            Ok(EngineParse::Failure(failure)) => ProbeOutcome::Failed(match failure {
                EngineFailure::RateLimited { .. } => ProbeFailure::RateLimit,
                EngineFailure::AuthFailure => ProbeFailure::Auth,
                EngineFailure::Blocked => ProbeFailure::Blocked,
                EngineFailure::ParseFailure if status == 200 => ProbeFailure::Parse,
                EngineFailure::RequestFailure if status == 200 => ProbeFailure::Request,
                EngineFailure::ParseFailure | EngineFailure::RequestFailure => {
                    ProbeFailure::Http(status)
                }
            }),
            Err(error) => ProbeOutcome::Failed(port_failure(error)),
        }
    }
}

fn port_failure(error: PortError) -> ProbeFailure {
    match error {
        PortError::Timeout => ProbeFailure::Timeout,
        PortError::Unavailable | PortError::WorkerFailed => ProbeFailure::Worker,
    }
}
