//! The state the pipelines share, below them: the configuration, the
//! engines in use, their health, the two ports, the User-Agent and the URLs
//! strict mode admits. The pipelines read it; only the tools' entry points
//! (`services.rs`) build it, and nothing here knows a pipeline.

use std::collections::HashMap;
use std::sync::Arc;

use rypsok_proto::Header;
use tokio::sync::Semaphore;

use crate::cache::SearchCache;
use crate::config::{Config, EngineConfig, SecretRef};
use crate::engine::{Credential, Driver};
use crate::health::Health;
use crate::ports::{NetPort, Observer, ParsePort};
use crate::response::{Allowance, DisabledReason};
use crate::returned::ReturnedUrls;

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

/// The shared state of one process.
pub(crate) struct Context {
    pub(crate) config: Arc<Config>,
    pub(crate) engines: Vec<EngineSlot>,
    pub(crate) health: Health,
    /// Told of engine answers and cache use (metrics).
    pub(crate) observer: Arc<dyn Observer>,
    pub(crate) net: Arc<dyn NetPort>,
    pub(crate) parse: Arc<dyn ParsePort>,
    pub(crate) user_agent: String,
    /// The URLs `web_search` returned, kept in strict mode only.
    pub(crate) returned: ReturnedUrls,
    /// The search cache, when `[cache] enabled` (design §12). Built once
    /// from the configuration, which never changes in a process (I11): a
    /// future reload must clear it or build it anew.
    pub(crate) cache: Option<SearchCache>,
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context")
            .field("engines", &self.engines)
            .finish_non_exhaustive()
    }
}

/// The User-Agent of every request rypsok makes (REQ-CMP-004).
pub fn user_agent(config: &Config) -> String {
    format!(
        "rypsok/{} (+{}; {})",
        env!("CARGO_PKG_VERSION"),
        crate::config::PROJECT_URL,
        config.service.contact.trim()
    )
}

impl ActiveEngine {
    /// `keyless` when the engine runs without a key on a provider
    /// allowance too small for regular use (its driver says so).
    pub(crate) fn allowance(&self) -> Option<Allowance> {
        let small = self.config.kind.spec().keyless_allowance.is_some();
        (small && self.credential.is_none()).then_some(Allowance::Keyless)
    }
}

impl Context {
    /// The User-Agent header of every request rypsok makes (REQ-CMP-004).
    pub(crate) fn user_agent_header(&self) -> Header {
        Header {
            name: "user-agent".to_owned(),
            value: self.user_agent.clone(),
        }
    }

    /// `credentials` holds each engine's credential by engine id, as the
    /// adapter read it once at start (REQ-CFG-004); an engine that needs one,
    /// or whose operator named one, and has none is inactive, with one log
    /// line (REQ-OPS-003).
    pub(crate) fn new(
        config: Arc<Config>,
        net: Arc<dyn NetPort>,
        parse: Arc<dyn ParsePort>,
        credentials: &HashMap<String, String>,
        observer: Arc<dyn Observer>,
    ) -> Self {
        let engines = config
            .engines
            .iter()
            .map(|engine| {
                let id = engine.id.clone();
                if !engine.enabled {
                    return EngineSlot::Disabled { id, reason: DisabledReason::Disabled };
                }
                let credential = credentials.get(&id).cloned().map(Credential::new);
                let has_credential = credential.is_some();
                let spec = engine.kind.spec();
                if (spec.credential.is_required() || engine.credential.is_some()) && !has_credential {
                    // What it names (a variable or a file, from the
                    // operator's own file), never what it holds.
                    let credential = engine.credential.as_ref().map(SecretRef::name).unwrap_or_default();
                    tracing::info!(event = "engine_inactive", engine = %id, credential = %credential, "no credential could be read; engine inactive");
                    return EngineSlot::Disabled { id, reason: DisabledReason::NoCredential };
                }
                if let (false, Some(allowance)) = (has_credential, spec.keyless_allowance) {
                    tracing::warn!(event = "engine_keyless", engine = %id, allowance, "engine active without a key; its keyless allowance is small");
                }
                let concurrency = Semaphore::new(spec.admission.concurrency_cap as usize);
                EngineSlot::Active(ActiveEngine { config: engine.clone(), credential, concurrency })
            })
            .collect();
        Self {
            cache: SearchCache::from_config(&config.cache),
            user_agent: user_agent(&config),
            config,
            engines,
            health: Health::observed(Arc::clone(&observer)),
            observer,
            net,
            parse,
            returned: ReturnedUrls::default(),
        }
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

    /// Remembers the URLs a search returned, when strict mode needs them.
    pub(crate) fn record_returned<'a>(&self, urls: impl IntoIterator<Item = &'a str>) {
        if self.config.fetch.strict_mode {
            self.returned.record(urls);
        }
    }
}
