//! The start-up that both transports share (REQ-OPS-002, REQ-OPS-003):
//! logging and the runtime, the workers and the services on them. Each
//! transport (`stdio.rs`, `http.rs`) imports this module and none is
//! imported by it; the command line picks the transport.

use std::future::Future;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use anyhow::{Context as _, Result};
use rypsok_core::{Config, Services};
use rypsok_proto::{NetInit, WorkerKind};

use crate::workers::{SandboxRequirements, Spawner, WorkerSpec, Workers};

/// The configuration file read (or that none was), for the `started` line:
/// set once by `run`, before either transport starts.
static CONFIG_FILE: OnceLock<String> = OnceLock::new();

/// How to start each kind of worker under this configuration.
pub(crate) fn worker_specs(config: &Config) -> (WorkerSpec, WorkerSpec) {
    // Re-execute this very binary, even if the file was replaced since.
    let exe = PathBuf::from("/proc/self/exe");
    let level = config.logging.level;
    let sandbox = SandboxRequirements {
        seccomp: config.sandbox.require_seccomp,
        landlock: config.sandbox.require_landlock,
    };
    // Only a test build has probes to arm; the tests ask for them.
    let probes =
        rypsok_proto::probe_gate::COMPILED && std::env::var_os("RYPSOK_TEST_PROBES").is_some();
    if rypsok_proto::probe_gate::COMPILED {
        tracing::warn!(
            event = "probe_build",
            armed = probes,
            "this is a test build: it contains test-only probes"
        );
    }
    let net = WorkerSpec {
        kind: WorkerKind::Net,
        exe: exe.clone(),
        log_level: level,
        net_init: Some(NetInit {
            egress: config.egress.policy.clone(),
            agent_http: config.egress.allow_http,
            proxy: config.egress.proxy.as_ref().map(crate::network::net_proxy),
            extra_roots: crate::network::extra_roots(config),
            pool: config.limits.pool,
        }),
        sandbox,
        probes,
    };
    let parse = WorkerSpec {
        kind: WorkerKind::Parse,
        exe,
        log_level: level,
        net_init: None,
        sandbox,
        probes,
    };
    (net, parse)
}

/// Starts logging and the runtime, then serves with `serve` (a
/// transport's entry point) until it returns. `config_file` names the
/// configuration file read, for the `started` line.
pub(crate) fn run<F, Fut>(config: Config, config_file: String, serve: F) -> Result<ExitCode>
where
    F: FnOnce(Config) -> Fut,
    Fut: Future<Output = Result<ExitCode>>,
{
    crate::telemetry::init("supervisor", config.logging.level);
    let _ = CONFIG_FILE.set(config_file);
    let runtime = runtime()?;
    let result = runtime.block_on(serve(config));
    // A blocking read of stdin (stdio) must not keep the process alive.
    runtime.shutdown_timeout(Duration::from_millis(200));
    result
}

fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the runtime")
}

/// Starts the workers and builds the services on them, and with
/// `serve_metrics` the scrape listener `[metrics]` asks for (a `serve`, not a
/// `check --online`). Calls answer unavailable until a worker can be
/// started.
pub(crate) async fn start(
    config: &Arc<Config>,
    transport: &'static str,
    serve_metrics: bool,
) -> Result<(Arc<Workers>, Arc<Services>)> {
    // The scrape listener first: an operator who asked for metrics and
    // cannot have them learns it before anything starts.
    let scrape = if serve_metrics {
        crate::metrics::bind(&config.metrics).await?
    } else {
        None
    };
    let metrics = scrape.as_ref().map(|_| crate::metrics::install());
    let spawner = Spawner::start().context("starting the spawner thread")?;
    let (net, parse) = worker_specs(config);
    let parse_workers = usize::try_from(config.limits.parse_workers).unwrap_or(1);
    let workers = Arc::new(Workers::new(net, parse, parse_workers, spawner));
    if workers.start_all().await.is_err() {
        // Calls answer unavailable until a worker can be started; the
        // reason is in the worker_start_failed line above.
        tracing::error!(
            event = "workers_unavailable",
            "not every worker could be started"
        );
    }
    let pids = workers.pids().await;
    tracing::info!(
        event = "started",
        transport,
        config_file = CONFIG_FILE.get().map_or("", String::as_str),
        workers = pids.len(),
        version = env!("CARGO_PKG_VERSION"),
        "rypsok serving"
    );

    let observer: Arc<dyn rypsok_core::Observer> = match metrics {
        Some(metrics) => Arc::new(crate::metrics::Recorder::new(metrics)),
        None => Arc::new(rypsok_core::Unobserved),
    };
    let services = Arc::new(Services::observed(
        Arc::clone(config),
        workers.clone(),
        workers.clone(),
        &crate::secrets::engine_credentials(config),
        observer,
    ));
    if let (Some(scrape), Some(metrics)) = (scrape, metrics) {
        metrics.engines(&services.engine_states());
        tracing::info!(
            event = "metrics_listening",
            addr = %scrape.local_addr().map_or_else(String::new, |a| a.to_string()),
            path = "/metrics",
            auth = config.metrics.auth_token.is_some(),
            "serving metrics"
        );
        tokio::spawn(scrape.serve(metrics));
    }
    Ok((workers, services))
}
