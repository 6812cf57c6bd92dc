//! `rypsok serve --transport stdio`: start the workers, serve MCP on
//! stdin/stdout until end of input or SIGTERM, then stop every worker
//! (REQ-MCP-002, REQ-OPS-002, REQ-OPS-003).

use std::io::{IsTerminal as _, Write as _};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context as _, Result};
use rmcp::ServiceExt;
use rmcp::service::ServerInitializeError;
use rmcp::transport::async_rw::AsyncRwTransport;
use rypsok_core::{Config, Services};
use rypsok_proto::{NetInit, WorkerKind};
use tokio::signal::unix::{SignalKind, signal};
use tokio_util::sync::CancellationToken;

use crate::mcp::Adapter;
use crate::workers::{SandboxRequirements, Spawner, WorkerSpec, Workers};

/// Longest MCP message line accepted on stdin; a longer one is dropped.
/// The same bound as an HTTP request body (LIM-H2).
const MAX_LINE_BYTES: usize = 1024 * 1024;

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

/// Serves MCP over stdio.
pub(crate) fn stdio(config: Config) -> Result<ExitCode> {
    crate::telemetry::init("supervisor", config.logging.level);
    let runtime = runtime()?;
    let result = runtime.block_on(serve(config));
    // A blocking read on a terminal stdin must not keep the process alive.
    runtime.shutdown_timeout(Duration::from_millis(200));
    result
}

/// Serves MCP over Streamable HTTP (`http.rs`).
pub(crate) fn http(config: Config) -> Result<ExitCode> {
    crate::telemetry::init("supervisor", config.logging.level);
    let runtime = runtime()?;
    let result = runtime.block_on(crate::http::serve(config));
    runtime.shutdown_timeout(Duration::from_millis(200));
    result
}

fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the runtime")
}

/// Starts the workers and builds the services on them. Calls answer
/// unavailable until a worker can be started.
pub(crate) async fn start(
    config: &Arc<Config>,
    transport: &'static str,
) -> Result<(Arc<Workers>, Arc<Services>)> {
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
        workers = pids.len(),
        version = env!("CARGO_PKG_VERSION"),
        "rypsok serving"
    );

    let services = Arc::new(Services::new(
        Arc::clone(config),
        workers.clone(),
        workers.clone(),
        &crate::secrets::engine_credentials(config),
    ));
    Ok((workers, services))
}

/// Why the SDK ended a session before it began, in rypsok's words: the
/// SDK's own text can quote the client's message.
fn session_end_reason(error: &ServerInitializeError) -> &'static str {
    match error {
        ServerInitializeError::InitializeFailed(_) => "initialize_refused",
        ServerInitializeError::ExpectedInitializeRequest(_) => "not_initialize",
        ServerInitializeError::ConnectionClosed(_) => "end_of_input",
        ServerInitializeError::Cancelled => "cancelled",
        ServerInitializeError::UnexpectedInitializeResponse(_)
        | ServerInitializeError::TransportError { .. } => "transport",
        _ => "other",
    }
}

async fn serve(config: Config) -> Result<ExitCode> {
    let config = Arc::new(config);
    let (workers, services) = start(&config, "stdio").await?;
    let adapter = Adapter::new(services, rypsok_core::Caller::process("stdio"));
    let ct = CancellationToken::new();
    let mut term = signal(SignalKind::terminate()).context("installing the SIGTERM handler")?;
    let mut int = signal(SignalKind::interrupt()).context("installing the SIGINT handler")?;
    let on_signal = ct.clone();
    tokio::spawn(async move {
        tokio::select! {
            _ = term.recv() => {}
            _ = int.recv() => {}
        }
        tracing::info!(event = "shutdown", cause = "signal", "shutting down");
        on_signal.cancel();
    });

    if std::io::stdin().is_terminal() {
        // Started by hand: one line for the person at the terminal.
        let _ = writeln!(
            std::io::stderr(),
            "rypsok speaks MCP (JSON-RPC, one message a line) on stdin: start it from an MCP host; see `rypsok --help` and the README's \"Using it from an MCP host\""
        );
    }
    // Lines that are not JSON are answered before the SDK, which would
    // drop them unanswered (stdio_lines).
    let (reader, writer) = crate::stdio_lines::filtered_stdio(MAX_LINE_BYTES);
    let transport =
        AsyncRwTransport::new_server(reader, writer).with_max_line_length(MAX_LINE_BYTES);
    match adapter.serve_with_ct(transport, ct.clone()).await {
        Ok(running) => {
            let _ = running.waiting().await;
        }
        // End of input or a signal before any request, or a handshake
        // refused (a revision not served): a clean stop too.
        Err(e) => tracing::info!(
            event = "session_ended",
            reason = session_end_reason(&e),
            "session ended before it began"
        ),
    }
    workers.shutdown().await;
    tracing::info!(event = "stopped", "rypsok stopped");
    Ok(ExitCode::SUCCESS)
}
