//! The engine registry: one driver per engine type (REQ-ENG-001,
//! REQ-ENG-004, REQ-ENG-010). A driver is its admission record and its
//! request builder here, and its response parser in worker-parse under the
//! same name. Adding an engine touches this registry, its two halves and the
//! configuration's type list, never the pipeline.

mod admission;
mod brave;
mod wikipedia;

pub(crate) use admission::Admission;
use rypsok_proto::{EngineKind, Header};

use crate::config::{Category, EngineConfig, EngineType, SafeSearch};
use crate::validate::TimeRange;

/// A driver this build contains.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Driver {
    /// MediaWiki Action API.
    Wikipedia,
    /// Brave Search API.
    Brave,
}

/// An engine credential, read once at start. Its `Debug` never shows the
/// value, so a debug print of the services cannot leak it.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Credential(String);

impl Credential {
    pub(crate) const fn new(secret: String) -> Self {
        Self(secret)
    }

    /// The secret itself, for the one header that carries it.
    pub(crate) fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Credential {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Credential(<redacted>)")
    }
}

/// Everything a driver may need to build one engine request: the validated
/// call and the operator's search settings.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SearchContext<'a> {
    /// One of the configured languages, as configuration spells it.
    pub(crate) lang: &'a str,
    /// The trimmed query.
    pub(crate) query: &'a str,
    /// Results to ask for (LIM-S3); drivers clamp it to what the engine
    /// allows.
    pub(crate) count: u32,
    /// The call's category.
    pub(crate) category: Category,
    /// `[search] region`: two upper-case letters.
    pub(crate) region: &'a str,
    /// `[search] safe_search`.
    pub(crate) safe_search: SafeSearch,
    /// The call's `time_range`, if any; only drivers whose admission
    /// record honours time ranges are asked with one.
    pub(crate) time_range: Option<TimeRange>,
    /// The engine's credential, when it has one.
    pub(crate) credential: Option<&'a Credential>,
}

/// What the pipeline sends for one engine: the exchange and how to parse
/// the answer.
#[derive(Clone)]
pub(crate) struct BuiltRequest {
    /// Absolute URL.
    pub(crate) url: String,
    /// Headers besides User-Agent (a credential header among them).
    pub(crate) headers: Vec<Header>,
    /// The parser that reads the answer.
    pub(crate) parser: EngineKind,
    /// Base for result URLs the parser builds.
    pub(crate) base_url: String,
}

impl std::fmt::Debug for BuiltRequest {
    // Header values may hold a credential: names only.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.headers.iter().map(|h| h.name.as_str()).collect();
        f.debug_struct("BuiltRequest")
            .field("url", &self.url)
            .field("headers", &names)
            .field("parser", &self.parser)
            .field("base_url", &self.base_url)
            .finish()
    }
}

fn accept_json() -> Header {
    Header {
        name: "accept".to_owned(),
        value: "application/json".to_owned(),
    }
}

/// Appends encoded query parameters to an endpoint that may already carry
/// a query string of its own (an operator's mirror, for example).
pub(crate) fn with_query(base: &str, params: &str) -> String {
    let separator = match base.rfind('?') {
        None => "?",
        Some(at) if at + 1 == base.len() || base.ends_with('&') => "",
        Some(_) => "&",
    };
    format!("{base}{separator}{params}")
}

impl Driver {
    /// The driver for a configured engine type, if this build has one.
    pub(crate) const fn for_type(kind: EngineType) -> Self {
        match kind {
            EngineType::Wikipedia => Self::Wikipedia,
            EngineType::Brave => Self::Brave,
        }
    }

    /// The admission record (REQ-CMP-001).
    pub(crate) const fn admission(self) -> &'static Admission {
        match self {
            Self::Wikipedia => &wikipedia::ADMISSION,
            Self::Brave => &brave::ADMISSION,
        }
    }

    /// Builds the engine request for a validated query.
    pub(crate) fn build(self, engine: &EngineConfig, ctx: &SearchContext<'_>) -> BuiltRequest {
        match self {
            Self::Wikipedia => {
                let request = wikipedia::build_request(
                    engine.endpoint.as_deref(),
                    ctx.lang,
                    ctx.query,
                    ctx.count,
                );
                BuiltRequest {
                    url: request.url,
                    headers: vec![accept_json()],
                    parser: EngineKind::Wikipedia,
                    base_url: request.article_base,
                }
            }
            Self::Brave => {
                let mut headers = vec![accept_json()];
                // Without a credential the engine is inactive and never
                // built for; were it built, Brave would refuse it as an
                // authentication failure.
                if let Some(credential) = ctx.credential {
                    headers.push(Header {
                        name: brave::TOKEN_HEADER.to_owned(),
                        value: credential.expose().to_owned(),
                    });
                }
                BuiltRequest {
                    url: brave::build_url(engine.endpoint.as_deref(), ctx),
                    headers,
                    parser: EngineKind::Brave,
                    // Brave's results carry absolute URLs.
                    base_url: String::new(),
                }
            }
        }
    }
}
