//! The hidden `__worker` subcommand: the life of a worker process.
//!
//! A worker dies with its supervisor, closes what it inherited, builds a
//! single-threaded runtime over non-blocking pipes, confines itself
//! ([`crate::sandbox`]) and only then serves requests.

use std::process::ExitCode;

use nix::sys::signal::Signal;
use rypsok_proto::{LogLevel, WorkerKind};

use crate::sandbox;

/// Runs a worker until the supervisor closes its pipe.
pub(crate) fn run(kind: WorkerKind, parent: u32, level: LogLevel) -> ExitCode {
    // Never an orphan: die with the supervisor, and check that the
    // supervisor did not die before the signal was armed.
    if nix::sys::prctl::set_pdeathsig(Signal::SIGKILL).is_err()
        || u32::try_from(nix::unistd::getppid().as_raw()).ok() != Some(parent)
    {
        return ExitCode::FAILURE;
    }
    // First, before this process opens anything of its own.
    let descriptors_closed = sandbox::close_inherited_descriptors();
    crate::telemetry::init(kind.as_str(), level);
    // I/O and timers: a worker handles no signal itself.
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()
    {
        Ok(rt) => rt,
        Err(_) => return ExitCode::FAILURE,
    };
    let result = runtime.block_on(async {
        let (stdin, stdout) = sandbox::stdio_pipes().map_err(rypsok_proto::FrameError::Io)?;
        match kind {
            WorkerKind::Net => {
                rypsok_worker_net::serve(stdin, stdout, |egress| {
                    sandbox::confine_net(egress, descriptors_closed)
                })
                .await
            }
            WorkerKind::Parse => {
                rypsok_worker_parse::serve(stdin, stdout, || {
                    sandbox::confine_parse(descriptors_closed)
                })
                .await
            }
        }
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!(event = "worker_protocol_error", error = %e, "worker ends: the supervisor's stream broke");
            ExitCode::FAILURE
        }
    }
}
