//! `rypsok serve --transport stdio`: MCP on stdin/stdout, one message a
//! line, until end of input or SIGTERM, then every worker stopped
//! (REQ-MCP-002, REQ-MCP-004, REQ-OPS-002). The start-up is `boot.rs`'s;
//! the lines pass `stdio_lines.rs`'s filter before the SDK reads them.

use std::io::{IsTerminal as _, Write as _};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context as _, Result};
use rmcp::ServiceExt;
use rmcp::service::ServerInitializeError;
use rmcp::transport::async_rw::AsyncRwTransport;
use rypsok_core::{Caller, Config};
use tokio::signal::unix::{SignalKind, signal};
use tokio_util::sync::CancellationToken;

use crate::mcp::Adapter;

/// Longest MCP message line accepted on stdin; a longer one is dropped.
/// The same bound as an HTTP request body (LIM-H2).
const MAX_LINE_BYTES: usize = 1024 * 1024;

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

/// Serves MCP on stdin/stdout until end of input, SIGTERM or SIGINT, then
/// stops every worker.
pub(crate) async fn serve(config: Config) -> Result<ExitCode> {
    let config = Arc::new(config);
    let (workers, services) = crate::boot::start(&config, "stdio", true).await?;
    let adapter = Adapter::new(services, Caller::process("stdio"));
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
