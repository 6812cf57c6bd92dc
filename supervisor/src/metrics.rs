//! The metrics an operator scrapes (`[metrics]`): one registry of the
//! Prometheus project's client for the process, the observer the core
//! reports to, and the exposition in either text format (`serve`
//! listens).
//!
//! Every label value is a word of a closed vocabulary (tool names,
//! outcomes, error kinds and reasons, notice codes, worker kinds and
//! causes, listener refusal reasons) or an engine's configured id: never a
//! query, a URL, a host name, a path or a page's text.
//!
//! The registry exists only when `[metrics] bind` is set: without it every
//! recording site finds nothing to record into and costs a load of a
//! pointer. One registry per process, set once at start, is why it is a
//! process-wide cell rather than a value passed down: the worker
//! supervision, the listener's refusal counts and the MCP adapter all
//! record into it, and none of them is built by the others.

mod serve;

use std::sync::OnceLock;
use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::{Registry, Unit};
use rypsok_core::error::ToolError;
use rypsok_core::response::{EngineErrorClass, EngineState, NoticeCode};
use rypsok_core::tools::ToolName;
use rypsok_core::{Observer, ToolResponse};
use rypsok_proto::{Confinement, WorkerKind};

pub(crate) use serve::bind;

/// The process's registry, when `[metrics] bind` is set.
static METRICS: OnceLock<Metrics> = OnceLock::new();

/// The registry to record into; `None` when metrics are off.
pub(crate) fn get() -> Option<&'static Metrics> {
    METRICS.get()
}

/// Creates the registry (once; later calls keep the first).
pub(crate) fn install() -> &'static Metrics {
    METRICS.get_or_init(Metrics::new)
}

/// Call latencies, in seconds: a cached search answers in milliseconds, a
/// fetch may take LIM-F5.
const CALL_BUCKETS: [f64; 12] = [
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
];
/// Engine latencies, in seconds, up to LIM-S4.
const ENGINE_BUCKETS: [f64; 10] = [0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0];

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CallLabels {
    tool: &'static str,
    /// `ok`, `partial`, `empty`, or the error's kind.
    outcome: &'static str,
    /// The error's reason; `none` for an answer or a kind without one.
    reason: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ToolLabel {
    tool: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct EngineLabel {
    engine: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct EngineResult {
    engine: String,
    /// `ok` or the failure class of `engine_unavailable`.
    result: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct EngineStateLabels {
    engine: String,
    state: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct EgressLabels {
    /// Which part of the policy refused (`refused` of `denied`).
    part: &'static str,
    /// The refusing address class; `none` for the other parts.
    address_class: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct WorkerLabel {
    worker: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct WorkerCause {
    worker: &'static str,
    cause: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct WorkerLevel {
    worker: &'static str,
    level: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ReasonLabel {
    reason: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ResultLabel {
    result: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct NoticeLabel {
    tool: &'static str,
    code: &'static str,
}

type Histograms<L> = Family<L, Histogram, fn() -> Histogram>;

/// Every metric of the process, registered once.
pub(crate) struct Metrics {
    registry: Registry,
    tool_calls: Family<CallLabels, Counter>,
    tool_call_seconds: Histograms<ToolLabel>,
    rate_limited: Family<ToolLabel, Counter>,
    notices: Family<NoticeLabel, Counter>,
    egress_refusals: Family<EgressLabels, Counter>,
    robots_refusals: Counter,
    redirects: Counter,
    engine_requests: Family<EngineResult, Counter>,
    engine_seconds: Histograms<EngineLabel>,
    engine_state: Family<EngineStateLabels, Gauge>,
    engine_cooldowns: Family<EngineLabel, Counter>,
    cache_lookups: Family<ResultLabel, Counter>,
    cache_entries: Gauge,
    cache_bytes: Gauge,
    worker_starts: Family<WorkerLabel, Counter>,
    worker_kills: Family<WorkerCause, Counter>,
    worker_exits: Family<WorkerCause, Counter>,
    worker_confinement: Family<WorkerLevel, Gauge>,
    http_refusals: Family<ReasonLabel, Counter>,
    http_connections: Gauge,
    http_sessions: Gauge,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics").finish_non_exhaustive()
    }
}

fn call_histogram() -> Histogram {
    Histogram::new(CALL_BUCKETS)
}

fn engine_histogram() -> Histogram {
    Histogram::new(ENGINE_BUCKETS)
}

/// The confinement levels a worker reports (`Confinement::summary`).
const CONFINEMENT_LEVELS: [&str; 3] = ["full", "partial", "none"];
/// The circuit states an active engine can be in.
const CIRCUIT_STATES: [EngineState; 3] = [
    EngineState::Closed,
    EngineState::Open,
    EngineState::HalfOpen,
];

impl Metrics {
    fn new() -> Self {
        let mut m = Self {
            registry: Registry::with_prefix("rypsok"),
            tool_calls: Family::default(),
            tool_call_seconds: Family::new_with_constructor(call_histogram),
            rate_limited: Family::default(),
            notices: Family::default(),
            egress_refusals: Family::default(),
            robots_refusals: Counter::default(),
            redirects: Counter::default(),
            engine_requests: Family::default(),
            engine_seconds: Family::new_with_constructor(engine_histogram),
            engine_state: Family::default(),
            engine_cooldowns: Family::default(),
            cache_lookups: Family::default(),
            cache_entries: Gauge::default(),
            cache_bytes: Gauge::default(),
            worker_starts: Family::default(),
            worker_kills: Family::default(),
            worker_exits: Family::default(),
            worker_confinement: Family::default(),
            http_refusals: Family::default(),
            http_connections: Gauge::default(),
            http_sessions: Gauge::default(),
        };
        m.register();
        m.create_known_series();
        m
    }

    fn register(&mut self) {
        let r = &mut self.registry;
        r.register(
            "tool_calls",
            "Tool calls answered, by tool and outcome (or error kind) and reason",
            self.tool_calls.clone(),
        );
        r.register_with_unit(
            "tool_call_duration",
            "Time to answer a tool call, by tool",
            Unit::Seconds,
            self.tool_call_seconds.clone(),
        );
        r.register(
            "rate_limit_refusals",
            "Tool calls refused by the tool's own rate limit, by tool",
            self.rate_limited.clone(),
        );
        r.register(
            "notices",
            "Notices given in tool answers, by tool and notice code",
            self.notices.clone(),
        );
        r.register(
            "egress_refusals",
            "Fetches denied by the egress policy, by the refusing part and address class",
            self.egress_refusals.clone(),
        );
        r.register(
            "robots_refusals",
            "Fetches denied by the site's robots.txt",
            self.robots_refusals.clone(),
        );
        r.register(
            "redirects_returned",
            "Fetches redirected to another host, handed back to the caller",
            self.redirects.clone(),
        );
        r.register(
            "engine_requests",
            "Engine requests ended, by engine and result (ok or failure class)",
            self.engine_requests.clone(),
        );
        r.register_with_unit(
            "engine_request_duration",
            "Time an engine took to answer, by engine",
            Unit::Seconds,
            self.engine_seconds.clone(),
        );
        r.register(
            "engine_state",
            "1 for the circuit state each engine is in (closed, open, half_open)",
            self.engine_state.clone(),
        );
        r.register(
            "engine_cooldowns",
            "Times an engine's circuit opened (cooldowns entered), by engine",
            self.engine_cooldowns.clone(),
        );
        r.register(
            "cache_lookups",
            "Search cache lookups, by result (hit or miss)",
            self.cache_lookups.clone(),
        );
        r.register(
            "cache_entries",
            "Engine answers held by the search cache",
            self.cache_entries.clone(),
        );
        r.register_with_unit(
            "cache_size",
            "Memory held by the search cache: its entries, their results and their share of its indexes",
            Unit::Bytes,
            self.cache_bytes.clone(),
        );
        r.register(
            "worker_starts",
            "Worker processes started, by worker kind",
            self.worker_starts.clone(),
        );
        r.register(
            "worker_kills",
            "Worker processes killed by the supervisor, by worker kind and cause",
            self.worker_kills.clone(),
        );
        r.register(
            "worker_exits",
            "Worker processes reaped, by worker kind and how they ended",
            self.worker_exits.clone(),
        );
        r.register(
            "worker_confinement",
            "1 for the confinement level the last started worker of each kind reached",
            self.worker_confinement.clone(),
        );
        r.register(
            "http_refusals",
            "Requests and connections the MCP listener refused, by reason",
            self.http_refusals.clone(),
        );
        r.register(
            "http_connections",
            "Open connections of the MCP listener",
            self.http_connections.clone(),
        );
        r.register(
            "http_sessions",
            "Open MCP sessions of the handshake-based revisions, as last counted",
            self.http_sessions.clone(),
        );
    }

    /// A zero series for each word that is known before anything happens,
    /// so that rates and alerts see the series from the first scrape.
    fn create_known_series(&self) {
        for tool in ToolName::ALL {
            let tool = tool.as_str();
            let _ = self.tool_call_seconds.get_or_create(&ToolLabel { tool });
            let _ = self.rate_limited.get_or_create(&ToolLabel { tool });
        }
        // The notices an operator watches for: text that reads like an
        // instruction, and a secret masked.
        for tool in [ToolName::WebSearch, ToolName::WebFetch] {
            for code in [
                NoticeCode::InstructionLikeContent,
                NoticeCode::CredentialMasked,
            ] {
                let _ = self.notices.get_or_create(&NoticeLabel {
                    tool: tool.as_str(),
                    code: code.as_str(),
                });
            }
        }
        for result in ["hit", "miss"] {
            let _ = self.cache_lookups.get_or_create(&ResultLabel { result });
        }
        for kind in [WorkerKind::Net, WorkerKind::Parse] {
            let worker = kind.as_str();
            let _ = self.worker_starts.get_or_create(&WorkerLabel { worker });
            let _ = self.worker_exits.get_or_create(&WorkerCause {
                worker,
                cause: "exit",
            });
            let _ = self.worker_kills.get_or_create(&WorkerCause {
                worker,
                cause: KillCause::Deadline.as_str(),
            });
        }
    }

    /// A series for every active engine of `engines` in its state, so that
    /// a dashboard sees each engine from the first scrape.
    pub(crate) fn engines(&self, engines: &[(String, EngineState)]) {
        for (engine, state) in engines {
            if *state != EngineState::Disabled {
                self.set_engine_state(engine, *state);
                let _ = self.engine_cooldowns.get_or_create(&EngineLabel {
                    engine: engine.clone(),
                });
            }
        }
    }

    /// One tool call answered, in `elapsed`.
    pub(crate) fn call(
        &self,
        tool: ToolName,
        output: &Result<ToolResponse, ToolError>,
        elapsed: Duration,
    ) {
        let tool = tool.as_str();
        let (outcome, reason) = match output {
            Ok(response) => (response.outcome().as_str(), "none"),
            Err(error) => (
                error.kind().as_str(),
                error.reason().map_or("none", |r| r.as_str()),
            ),
        };
        self.tool_calls
            .get_or_create(&CallLabels {
                tool,
                outcome,
                reason,
            })
            .inc();
        self.tool_call_seconds
            .get_or_create(&ToolLabel { tool })
            .observe(elapsed.as_secs_f64());
        match output {
            Ok(response) => {
                for code in response_notices(response) {
                    self.notices
                        .get_or_create(&NoticeLabel {
                            tool,
                            code: code.as_str(),
                        })
                        .inc();
                }
            }
            Err(error) => self.refusal(tool, error),
        }
    }

    fn refusal(&self, tool: &'static str, error: &ToolError) {
        use rypsok_core::error::{DeniedReason, ErrorKind, Reason, UnavailableReason};
        if let Some(part) = error.refused() {
            self.egress_refusals
                .get_or_create(&EgressLabels {
                    part: part.as_str(),
                    address_class: error.address_class().map_or("none", |c| c.as_str()),
                })
                .inc();
        }
        match (error.kind(), error.reason()) {
            (_, Some(Reason::Denied(DeniedReason::RobotsTxt))) => {
                self.robots_refusals.inc();
            }
            (_, Some(Reason::Unavailable(UnavailableReason::RateLimited))) => {
                self.rate_limited.get_or_create(&ToolLabel { tool }).inc();
            }
            (ErrorKind::Redirected, _) => {
                self.redirects.inc();
            }
            _ => {}
        }
    }

    fn set_engine_state(&self, engine: &str, now: EngineState) {
        for state in CIRCUIT_STATES {
            self.engine_state
                .get_or_create(&EngineStateLabels {
                    engine: engine.to_owned(),
                    state: state.as_str(),
                })
                .set(i64::from(state == now));
        }
    }

    /// A worker started with `confinement`.
    pub(crate) fn worker_started(&self, kind: WorkerKind, confinement: &Confinement) {
        let worker = kind.as_str();
        self.worker_starts
            .get_or_create(&WorkerLabel { worker })
            .inc();
        let reached = confinement.summary();
        for level in CONFINEMENT_LEVELS {
            self.worker_confinement
                .get_or_create(&WorkerLevel { worker, level })
                .set(i64::from(level == reached));
        }
    }

    /// The supervisor killed a worker.
    pub(crate) fn worker_killed(&self, kind: WorkerKind, cause: KillCause) {
        self.worker_kills
            .get_or_create(&WorkerCause {
                worker: kind.as_str(),
                cause: cause.as_str(),
            })
            .inc();
    }

    /// A worker was reaped; `cause` is how it ended (`log_exit`'s words).
    pub(crate) fn worker_exited(&self, kind: WorkerKind, cause: &'static str) {
        self.worker_exits
            .get_or_create(&WorkerCause {
                worker: kind.as_str(),
                cause,
            })
            .inc();
    }

    /// A zero series for a refusal reason of the MCP listener, which
    /// exists only in `serve --transport http`.
    pub(crate) fn http_refusal_known(&self, reason: &'static str) {
        let _ = self.http_refusals.get_or_create(&ReasonLabel { reason });
    }

    /// The MCP listener refused something for `reason` (its vocabulary).
    pub(crate) fn http_refused(&self, reason: &'static str) {
        self.http_refusals
            .get_or_create(&ReasonLabel { reason })
            .inc();
    }

    /// A connection of the MCP listener opened (`+1`) or closed (`-1`).
    pub(crate) fn http_connection(&self, delta: i64) {
        self.http_connections.inc_by(delta);
    }

    /// The MCP listener counted `open` sessions.
    pub(crate) fn http_sessions(&self, open: usize) {
        self.http_sessions
            .set(i64::try_from(open).unwrap_or(i64::MAX));
    }

    /// The exposition: OpenMetrics text when `openmetrics`, else the
    /// Prometheus text format (version 0.0.4).
    pub(crate) fn encode(&self, openmetrics: bool) -> String {
        let mut text = String::new();
        // Writing into a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut text, &self.registry);
        if openmetrics {
            text
        } else {
            prometheus_text(&text)
        }
    }
}

/// The notice codes of a response.
fn response_notices(response: &ToolResponse) -> impl Iterator<Item = NoticeCode> + '_ {
    let notices = match response {
        ToolResponse::Search(r) => r.notices.as_slice(),
        ToolResponse::Fetch(r) => r.notices.as_slice(),
        ToolResponse::Status(r) => r.notices.as_slice(),
    };
    notices.iter().map(|n| n.code)
}

/// The Prometheus text format (0.0.4) of an OpenMetrics exposition: the
/// client writes only the latter. The two differ, for what this registry
/// holds, in three things: a counter's HELP and TYPE name its samples'
/// name (`_total` included), there is no UNIT line and no EOF marker.
fn prometheus_text(openmetrics: &str) -> String {
    let mut out = String::with_capacity(openmetrics.len());
    let mut help: Option<&str> = None;
    for line in openmetrics.lines() {
        if line == "# EOF" || line.starts_with("# UNIT ") {
            continue;
        }
        if line.starts_with("# HELP ") {
            // Held until the TYPE line says whether the name changes.
            help = Some(line);
            continue;
        }
        if let Some(rest) = line.strip_prefix("# TYPE ") {
            let (name, kind) = rest.split_once(' ').unwrap_or((rest, ""));
            let name = if kind == "counter" {
                format!("{name}_total")
            } else {
                name.to_owned()
            };
            if let Some(help) = help.take() {
                let text = help
                    .strip_prefix("# HELP ")
                    .and_then(|h| h.split_once(' '))
                    .map_or("", |(_, text)| text);
                out.push_str(&format!("# HELP {name} {text}\n"));
            }
            out.push_str(&format!("# TYPE {name} {kind}\n"));
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

rypsok_core::vocabulary! {
    /// Why the supervisor killed a worker.
    pub(crate) KillCause {
        /// Its parse was cancelled (a parser cannot stop in place).
        Cancelled => "cancelled",
        /// Given back at shutdown or when replaced.
        Released => "released",
        /// It missed a request's deadline.
        Deadline => "deadline",
        /// Its pipe closed or failed.
        PipeClosed => "pipe_closed",
        /// It ended on its own (its stream closed): reaped and replaced.
        Exited => "exited",
        /// It broke the protocol (an answer of another kind, an unknown
        /// request id, a frame that does not decode).
        Protocol => "protocol",
    }
}

/// The observer the core reports to: the registry's engine and cache
/// metrics.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Recorder(&'static Metrics);

impl Recorder {
    pub(crate) const fn new(metrics: &'static Metrics) -> Self {
        Self(metrics)
    }
}

impl Observer for Recorder {
    fn engine_answered(
        &self,
        engine: &str,
        failure: Option<EngineErrorClass>,
        latency: Option<Duration>,
    ) {
        let result = failure.map_or("ok", EngineErrorClass::as_str);
        self.0
            .engine_requests
            .get_or_create(&EngineResult {
                engine: engine.to_owned(),
                result,
            })
            .inc();
        if let Some(latency) = latency {
            self.0
                .engine_seconds
                .get_or_create(&EngineLabel {
                    engine: engine.to_owned(),
                })
                .observe(latency.as_secs_f64());
        }
    }

    fn engine_state(&self, engine: &str, state: EngineState) {
        self.0.set_engine_state(engine, state);
    }

    fn cooldown_entered(&self, engine: &str) {
        self.0
            .engine_cooldowns
            .get_or_create(&EngineLabel {
                engine: engine.to_owned(),
            })
            .inc();
    }

    fn cache_lookup(&self, hit: bool) {
        let result = if hit { "hit" } else { "miss" };
        self.0
            .cache_lookups
            .get_or_create(&ResultLabel { result })
            .inc();
    }

    fn cache_usage(&self, entries: usize, bytes: usize) {
        self.0
            .cache_entries
            .set(i64::try_from(entries).unwrap_or(i64::MAX));
        self.0
            .cache_bytes
            .set(i64::try_from(bytes).unwrap_or(i64::MAX));
    }
}

#[cfg(test)]
mod tests;
