//! rypsok: a local MCP server that gives AI agents the web safely.
//!
//! One binary, three processes: this supervisor (MCP, configuration,
//! policy, secrets), worker-net (all outbound I/O) and a pool of
//! worker-parse (all hostile bytes). The workers are this binary again,
//! started with the hidden `__worker` subcommand (ARCHITECTURE.md).

mod boot;
mod cli;
mod config_file;
mod health;
mod http;
mod mcp;
mod metrics;
mod network;
mod sandbox;
mod secrets;
mod stdio;
mod stdio_lines;
mod telemetry;
mod worker;
mod workers;

use std::process::ExitCode;

fn main() -> ExitCode {
    match cli::run() {
        Ok(code) => code,
        Err(e) => {
            #[allow(clippy::print_stderr)] // before any logger exists
            {
                eprintln!("rypsok: {e:#}");
            }
            ExitCode::FAILURE
        }
    }
}
