//! The application services: one entry point per tool, transport-independent
//! (REQ-ARCH-007, REQ-MAIN-002). Each takes the caller's raw argument object
//! and answers a [`ToolOutput`]. This is the top of the core: it validates,
//! applies the tool's rate limit and hands over to a pipeline; no pipeline
//! imports it.

use std::collections::HashMap;
use std::sync::Arc;

use rypsok_proto::LogLevel;
use serde_json::{Map, Value};
use tokio::time::Instant;

use crate::config::Config;
use crate::context::Context;
use crate::error::ToolError;
use crate::fetch::FetchState;
use crate::ports::{NetPort, Observer, ParsePort, Unobserved};
use crate::ratelimit::{Caller, RateLimit};
use crate::response::EngineState;
use crate::response::{ToolOutput, ToolResponse};
use crate::validate;

/// The services of one process: the shared context, the fetch pipeline's
/// own state, and the tools' rate limits.
pub struct Services {
    pub(crate) ctx: Context,
    pub(crate) fetch: FetchState,
    search_limit: RateLimit,
    status_limit: RateLimit,
}

impl std::fmt::Debug for Services {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Services")
            .field("engines", &self.ctx.engines)
            .finish_non_exhaustive()
    }
}

impl Services {
    /// Builds the services. `credentials` holds each engine's credential by
    /// engine id, as the adapter read it once at start from where the
    /// engine's `credential` reference points (REQ-CFG-004); an engine that
    /// needs one and has none is inactive, with one log line (REQ-OPS-003).
    pub fn new(
        config: Arc<Config>,
        net: Arc<dyn NetPort>,
        parse: Arc<dyn ParsePort>,
        credentials: &HashMap<String, String>,
    ) -> Self {
        Self::observed(config, net, parse, credentials, Arc::new(Unobserved))
    }

    /// [`Services::new`], telling `observer` of engine answers, circuit
    /// changes and cache use as they happen.
    pub fn observed(
        config: Arc<Config>,
        net: Arc<dyn NetPort>,
        parse: Arc<dyn ParsePort>,
        credentials: &HashMap<String, String>,
        observer: Arc<dyn Observer>,
    ) -> Self {
        if matches!(config.logging.level, LogLevel::Debug | LogLevel::Trace) {
            tracing::warn!(
                event = "debug_logging",
                "debug logging is on: it may record queries and provider text"
            );
        }
        Self {
            fetch: FetchState::new(&config),
            search_limit: RateLimit::per_minute(config.limits.web_search_per_minute),
            status_limit: RateLimit::per_minute(config.limits.engine_status_per_minute),
            ctx: Context::new(config, net, parse, credentials, observer),
        }
    }

    /// The configuration in force.
    pub fn config(&self) -> &Config {
        &self.ctx.config
    }

    /// Every configured engine's state now, in identifier order: what
    /// `engine_status` would say, read once (metrics start from it).
    pub fn engine_states(&self) -> Vec<(String, EngineState)> {
        crate::status::engine_status(&self.ctx)
            .engines
            .into_iter()
            .map(|report| (report.id, report.state))
            .collect()
    }

    /// The tool definitions for this configuration, in the fixed order.
    pub fn tool_definitions(&self) -> Vec<crate::tools::ToolDefinition> {
        let served = validate::served_categories(&self.ctx.config, |id| self.ctx.is_active(id));
        crate::tools::definitions(&self.ctx.config, &served)
    }

    /// `web_search` (§3.1) with the process as the caller.
    pub async fn web_search(&self, args: &Map<String, Value>) -> ToolOutput {
        self.web_search_as(&Caller::process("stdio"), args).await
    }

    /// `web_search` (§3.1) counted against `caller` (REQ-SEC-019).
    pub async fn web_search_as(&self, caller: &Caller, args: &Map<String, Value>) -> ToolOutput {
        let started = Instant::now();
        let served = validate::served_categories(&self.ctx.config, |id| self.ctx.is_active(id));
        let args = validate::search_args(&self.ctx.config, &served, args)?;
        self.search_limit.admit(caller).map_err(rate_limited)?;
        crate::search::search(&self.ctx, caller, args, started)
            .await
            .map(ToolResponse::Search)
    }

    /// `web_fetch` (§3.2) with the process as the caller.
    pub async fn web_fetch(&self, args: &Map<String, Value>) -> ToolOutput {
        self.web_fetch_as(&Caller::process("stdio"), args).await
    }

    /// `web_fetch` (§3.2) counted against `caller`: its rate limit and its
    /// share of LIM-F10 (REQ-SEC-019).
    pub async fn web_fetch_as(&self, caller: &Caller, args: &Map<String, Value>) -> ToolOutput {
        let started = Instant::now();
        let args = validate::fetch_args(&self.ctx.config, args)?;
        crate::fetch::fetch(&self.ctx, &self.fetch, caller, args, started)
            .await
            .map(ToolResponse::Fetch)
    }

    /// `engine_status` (§3.3) with the process as the caller.
    pub async fn engine_status(&self, args: &Map<String, Value>) -> ToolOutput {
        self.engine_status_as(&Caller::process("stdio"), args).await
    }

    /// `engine_status` (§3.3) counted against `caller` (REQ-SEC-019).
    pub async fn engine_status_as(&self, caller: &Caller, args: &Map<String, Value>) -> ToolOutput {
        validate::status_args(args)?;
        self.status_limit.admit(caller).map_err(rate_limited)?;
        Ok(ToolResponse::Status(crate::status::engine_status(
            &self.ctx,
        )))
    }
}

fn rate_limited(retry_after_ms: u64) -> ToolError {
    ToolError::rate_limited(retry_after_ms)
}
