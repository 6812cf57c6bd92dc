//! The application services: one entry point per tool, transport-independent
//! (REQ-ARCH-007, REQ-MAIN-002). Each takes the caller's raw argument object
//! and answers a [`ToolOutput`].

use std::sync::Arc;

use rypsok_proto::LogLevel;
use serde_json::{Map, Value};
use tokio::sync::Semaphore;
use tokio::time::Instant;

use crate::config::{Config, EngineConfig, load::read_secret};
use crate::engine::Credential;
use crate::error::{ToolError, UnavailableReason};
use crate::health::Health;
use crate::ports::{NetPort, ParsePort};
use crate::ratelimit::{Caller, RateLimit};
use crate::validate;

/// What a tool call answers: the response object, or a tool error.
pub type ToolOutput = Result<Value, ToolError>;

/// Why a configured engine is not in use (the `reason` of a disabled
/// engine in `engine_status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DisabledReason {
    /// The operator switched it off.
    Disabled,
    /// It needs a key and none could be read.
    NoCredential,
}

impl DisabledReason {
    pub(crate) const fn as_str(self) -> &'static str {
        match self {
            Self::Disabled => "disabled",
            Self::NoCredential => "no_credential",
        }
    }
}

/// A configured engine that is in use.
#[derive(Debug)]
pub(crate) struct ActiveEngine {
    pub(crate) config: EngineConfig,
    /// The credential, read once at start (REQ-CFG-004).
    pub(crate) credential: Option<Credential>,
    /// The driver's concurrency cap (REQ-CMP-002).
    pub(crate) concurrency: Semaphore,
}

/// A configured engine: in use, or not and why.
#[derive(Debug)]
pub(crate) enum EngineSlot {
    Active(ActiveEngine),
    Disabled { id: String, reason: DisabledReason },
}

impl EngineSlot {
    pub(crate) fn id(&self) -> &str {
        match self {
            Self::Active(a) => &a.config.id,
            Self::Disabled { id, .. } => id,
        }
    }
}

/// The services of one process: configuration, engines, health, and the two
/// ports to the workers.
pub struct Services {
    pub(crate) config: Arc<Config>,
    pub(crate) engines: Vec<EngineSlot>,
    pub(crate) health: Health,
    pub(crate) net: Arc<dyn NetPort>,
    pub(crate) parse: Arc<dyn ParsePort>,
    pub(crate) user_agent: String,
    pub(crate) fetch: crate::fetch::FetchState,
    search_limit: RateLimit,
    status_limit: RateLimit,
}

impl std::fmt::Debug for Services {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Services")
            .field("engines", &self.engines)
            .finish_non_exhaustive()
    }
}

/// The User-Agent of every request rypsok makes (REQ-CMP-004).
pub fn user_agent(config: &Config) -> String {
    format!(
        "rypsok/{} (+{}; {})",
        env!("CARGO_PKG_VERSION"),
        crate::config::load::PROJECT_URL,
        config.service.contact.trim()
    )
}

impl Services {
    /// Builds the services. Reads each engine's credential once; an engine
    /// that needs one and has none is inactive, with one log line
    /// (REQ-OPS-003).
    pub fn new(config: Arc<Config>, net: Arc<dyn NetPort>, parse: Arc<dyn ParsePort>) -> Self {
        let engines = config
            .engines
            .iter()
            .map(|engine| {
                let id = engine.id.clone();
                if !engine.enabled {
                    return EngineSlot::Disabled { id, reason: DisabledReason::Disabled };
                }
                let credential = engine.credential.as_ref().and_then(read_secret).map(Credential::new);
                let has_credential = credential.is_some();
                let spec = engine.kind.spec();
                if (spec.credential.is_required() || engine.credential.is_some()) && !has_credential {
                    tracing::info!(event = "engine_inactive", engine = %id, "no credential could be read; engine inactive");
                    return EngineSlot::Disabled { id, reason: DisabledReason::NoCredential };
                }
                let concurrency = Semaphore::new(spec.admission.concurrency_cap as usize);
                EngineSlot::Active(ActiveEngine { config: engine.clone(), credential, concurrency })
            })
            .collect();
        let user_agent = user_agent(&config);
        if matches!(config.logging.level, LogLevel::Debug | LogLevel::Trace) {
            tracing::warn!(
                event = "debug_logging",
                "debug logging is on: it may record queries and provider text"
            );
        }
        Self {
            fetch: crate::fetch::FetchState::new(&config),
            search_limit: RateLimit::per_minute(config.limits.web_search_per_minute),
            status_limit: RateLimit::per_minute(config.limits.engine_status_per_minute),
            config,
            engines,
            health: Health::default(),
            net,
            parse,
            user_agent,
        }
    }

    /// The configuration in force.
    pub fn config(&self) -> &Config {
        &self.config
    }

    pub(crate) fn active_engines(&self) -> impl Iterator<Item = &ActiveEngine> {
        self.engines.iter().filter_map(|slot| match slot {
            EngineSlot::Active(a) => Some(a),
            EngineSlot::Disabled { .. } => None,
        })
    }

    pub(crate) fn is_active(&self, id: &str) -> bool {
        self.active_engines().any(|e| e.config.id == id)
    }

    pub(crate) fn attribution_required(&self, id: &str) -> bool {
        self.active_engines()
            .any(|e| e.config.id == id && e.config.kind.admission().attribution_required)
    }

    /// The tool definitions for this configuration, in the fixed order.
    pub fn tool_definitions(&self) -> Vec<crate::tools::ToolDefinition> {
        let served = validate::served_categories(&self.config, |id| self.is_active(id));
        crate::tools::definitions(&self.config, &served)
    }

    /// `web_search` (§3.1) with the process as the caller.
    pub async fn web_search(&self, args: &Map<String, Value>) -> ToolOutput {
        self.web_search_as(&Caller::process("stdio"), args).await
    }

    /// `web_search` (§3.1) counted against `caller` (REQ-SEC-019).
    pub async fn web_search_as(&self, caller: &Caller, args: &Map<String, Value>) -> ToolOutput {
        let started = Instant::now();
        let served = validate::served_categories(&self.config, |id| self.is_active(id));
        let args = validate::search_args(&self.config, &served, args)?;
        self.search_limit.admit(caller).map_err(rate_limited)?;
        crate::search::search(self, args, started).await
    }

    /// `web_fetch` (§3.2) with the process as the caller.
    pub async fn web_fetch(&self, args: &Map<String, Value>) -> ToolOutput {
        self.web_fetch_as(&Caller::process("stdio"), args).await
    }

    /// `web_fetch` (§3.2) counted against `caller`: its rate limit and its
    /// share of LIM-F10 (REQ-SEC-019).
    pub async fn web_fetch_as(&self, caller: &Caller, args: &Map<String, Value>) -> ToolOutput {
        let started = Instant::now();
        let args = validate::fetch_args(&self.config, args)?;
        crate::fetch::fetch(self, caller, args, started).await
    }

    /// `engine_status` (§3.3) with the process as the caller.
    pub async fn engine_status(&self, args: &Map<String, Value>) -> ToolOutput {
        self.engine_status_as(&Caller::process("stdio"), args).await
    }

    /// `engine_status` (§3.3) counted against `caller` (REQ-SEC-019).
    pub async fn engine_status_as(&self, caller: &Caller, args: &Map<String, Value>) -> ToolOutput {
        validate::status_args(args)?;
        self.status_limit.admit(caller).map_err(rate_limited)?;
        Ok(crate::status::engine_status(self))
    }
}

fn rate_limited(retry_after_ms: u64) -> ToolError {
    ToolError::unavailable(UnavailableReason::RateLimited, Some(retry_after_ms))
}
