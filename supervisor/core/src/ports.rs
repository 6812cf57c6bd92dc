//! The two ports through which the services reach the workers. The binary
//! plugs in process-backed implementations; tests plug in stand-ins and run
//! the whole pipeline in one process.

use std::future::Future;
use std::pin::Pin;

use rypsok_proto::{ExchangeRequest, ExchangeResponse, NetFailure, ParseRequest, ParseResponse};
use tokio::time::Instant;

/// A boxed future, so the ports can be trait objects.
pub type PortFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Why a port produced no answer. The worker side of a failure: the
/// services classify it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum PortError {
    /// No worker could be started, or restarts are backing off.
    #[error("no worker is available")]
    Unavailable,
    /// The worker died or broke the protocol while holding the request.
    #[error("the worker failed while holding the request")]
    WorkerFailed,
    /// The worker did not answer by the deadline; it was killed.
    #[error("the worker did not answer in time")]
    Timeout,
}

/// worker-net: HTTP exchanges.
pub trait NetPort: Send + Sync {
    /// Performs one exchange. Dropping the future cancels the work in the
    /// worker. `deadline` bounds the wait for the worker's answer.
    fn exchange(
        &self,
        request: ExchangeRequest,
        deadline: Instant,
    ) -> PortFuture<'_, Result<Result<ExchangeResponse, NetFailure>, PortError>>;
}

/// worker-parse: hostile bytes to data.
pub trait ParsePort: Send + Sync {
    /// Parses one request. Dropping the future cancels it.
    fn parse(
        &self,
        request: ParseRequest,
        deadline: Instant,
    ) -> PortFuture<'_, Result<ParseResponse, PortError>>;
}
