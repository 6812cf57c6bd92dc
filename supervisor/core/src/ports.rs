//! The two ports through which the services reach the workers. The binary
//! plugs in process-backed implementations; tests plug in stand-ins and run
//! the whole pipeline in one process.
//!
//! Each kind of work has its own method and its own answer type, so no
//! caller sorts answers by kind: an answer of the wrong kind is a protocol
//! violation that the worker supervision handles, once, by killing and
//! replacing the worker and failing the call with
//! [`PortError::WorkerFailed`].

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use rypsok_proto::{
    EngineKind, EngineParse, ExchangeRequest, ExchangeResponse, NetFailure, PageParse,
    ParseRequest, RobotsRules,
};
use tokio::time::Instant;

use crate::response::{EngineErrorClass, EngineState};

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

/// Why an exchange produced no response: worker-net's own answer, or no
/// answer from worker-net.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ExchangeError {
    /// worker-net tried and failed (a closed vocabulary, no peer text).
    #[error("the exchange failed")]
    Net(NetFailure),
    /// worker-net gave no answer.
    #[error(transparent)]
    Port(PortError),
}

impl From<NetFailure> for ExchangeError {
    fn from(failure: NetFailure) -> Self {
        Self::Net(failure)
    }
}

impl From<PortError> for ExchangeError {
    fn from(error: PortError) -> Self {
        Self::Port(error)
    }
}

/// worker-net: HTTP exchanges.
pub trait NetPort: Send + Sync {
    /// Performs one exchange. Dropping the future cancels the work in the
    /// worker. `deadline` bounds the wait for the worker's answer.
    fn exchange(
        &self,
        request: ExchangeRequest,
        deadline: Instant,
    ) -> PortFuture<'_, Result<ExchangeResponse, ExchangeError>>;
}

/// An engine's HTTP answer, for the parser of its driver.
#[derive(Debug, Clone)]
pub struct EngineResponse {
    /// The driver whose parser applies.
    pub engine: EngineKind,
    /// Base for result URLs the driver builds itself.
    pub base_url: String,
    /// The answer as worker-net returned it.
    pub response: ExchangeResponse,
}

/// A fetched document, for extraction.
#[derive(Debug, Clone)]
pub struct Document {
    /// The URL it came from: the base for relative links.
    pub url: String,
    /// The `Content-Type` header as received, if any.
    pub content_type: Option<String>,
    /// The body after content decoding.
    pub body: Vec<u8>,
}

impl EngineResponse {
    /// The wire request.
    pub fn into_request(self) -> ParseRequest {
        ParseRequest::EngineAnswer {
            engine: self.engine,
            base_url: self.base_url,
            status: self.response.status,
            headers: self.response.headers,
            body: self.response.body,
        }
    }
}

impl Document {
    /// The wire request.
    pub fn into_request(self) -> ParseRequest {
        ParseRequest::Page {
            body: self.body,
            content_type: self.content_type,
            url: self.url,
        }
    }
}

/// The wire request for a robots.txt body.
pub fn robots_request(body: Vec<u8>) -> ParseRequest {
    ParseRequest::Robots { body }
}

/// worker-parse: hostile bytes to data. Dropping a future cancels its work.
pub trait ParsePort: Send + Sync {
    /// An engine's answer to hits or a failure class.
    fn parse_engine_answer(
        &self,
        answer: EngineResponse,
        deadline: Instant,
    ) -> PortFuture<'_, Result<EngineParse, PortError>>;

    /// A document to its main content.
    fn parse_page(
        &self,
        document: Document,
        deadline: Instant,
    ) -> PortFuture<'_, Result<PageParse, PortError>>;

    /// A robots.txt body to the rules for rypsok.
    fn parse_robots(
        &self,
        body: Vec<u8>,
        deadline: Instant,
    ) -> PortFuture<'_, Result<RobotsRules, PortError>>;
}

/// What the services report as it happens, for the adapter's metrics
/// (`[metrics]`). Every argument is a closed vocabulary, a number or an
/// engine's configured id: never a query, a URL or a page's text. Each
/// method must return at once; the default does nothing.
pub trait Observer: Send + Sync {
    /// An engine's exchange ended: `None` when it answered, else its
    /// failure class; with how long it took, when it completed.
    fn engine_answered(
        &self,
        _engine: &str,
        _failure: Option<EngineErrorClass>,
        _latency: Option<Duration>,
    ) {
    }

    /// An engine's circuit is now in `state` (never `disabled`).
    fn engine_state(&self, _engine: &str, _state: EngineState) {}

    /// An engine's circuit opened: it cools down.
    fn cooldown_entered(&self, _engine: &str) {}

    /// A search looked an engine's answer up in the cache.
    fn cache_lookup(&self, _hit: bool) {}

    /// The cache now holds `entries` answers in `bytes` (LIM-K4's count).
    fn cache_usage(&self, _entries: usize, _bytes: usize) {}
}

/// The observer of a process that reports to no one.
#[derive(Debug, Default, Clone, Copy)]
pub struct Unobserved;

impl Observer for Unobserved {}

/// worker-parse's stand-in for the pipeline tests: the real parser, called
/// in process.
#[cfg(test)]
#[derive(Debug)]
pub(crate) struct InProcessParse;

#[cfg(test)]
#[allow(clippy::panic)] // the real parser answers every request in kind
impl ParsePort for InProcessParse {
    fn parse_engine_answer(
        &self,
        answer: EngineResponse,
        _deadline: Instant,
    ) -> PortFuture<'_, Result<EngineParse, PortError>> {
        let rypsok_proto::ParseResponse::Engine(parse) =
            rypsok_worker_parse::parse(answer.into_request())
        else {
            panic!("an engine answer parsed to another kind");
        };
        Box::pin(async move { Ok(parse) })
    }

    fn parse_page(
        &self,
        document: Document,
        _deadline: Instant,
    ) -> PortFuture<'_, Result<PageParse, PortError>> {
        let rypsok_proto::ParseResponse::Page(page) =
            rypsok_worker_parse::parse(document.into_request())
        else {
            panic!("a page parsed to another kind");
        };
        Box::pin(async move { Ok(page) })
    }

    fn parse_robots(
        &self,
        body: Vec<u8>,
        _deadline: Instant,
    ) -> PortFuture<'_, Result<RobotsRules, PortError>> {
        let rypsok_proto::ParseResponse::Robots(rules) =
            rypsok_worker_parse::parse(robots_request(body))
        else {
            panic!("a robots.txt parsed to another kind");
        };
        Box::pin(async move { Ok(rules) })
    }
}
