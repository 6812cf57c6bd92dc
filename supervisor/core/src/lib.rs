//! rypsok-core: the application services and every policy decision.
//!
//! The tools are [`Services::web_search`], [`Services::web_fetch`] and
//! [`Services::engine_status`]; each takes the caller's raw argument object,
//! validates it itself, and answers a [`ToolOutput`]: a typed
//! [`ToolResponse`] or a [`ToolError`] from the contract's closed
//! vocabulary, each turned into the wire's JSON in one place. The services reach
//! the two workers only through the [`NetPort`] and [`ParsePort`] traits, so
//! tests run the whole pipeline in one process and the binary plugs in the
//! process-backed ports.
//!
//! [`Config`] is the validated configuration; [`tools`] renders the tool
//! definitions that follow it. This crate has no MCP SDK dependency (I9).
//!
//! The policy modules themselves (the secret check, the instruction-like
//! detector, the content boundary) stay private: the fuzz targets reach
//! them through `fuzzing` and the measuring examples through `measure`,
//! each a narrow door compiled only with its feature.
#![forbid(unsafe_code)]

mod boundary;
mod cache;
pub mod config;
mod context;
mod engine;
pub mod error;
mod fetch;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
mod health;
mod instruction;
mod invisible;
mod limits;
#[cfg(feature = "measure")]
pub mod measure;
pub mod ports;
pub mod probe;
mod ratelimit;
pub mod response;
mod returned;
mod search;
mod secret;
mod services;
mod status;
pub mod tools;
mod validate;
mod vocabulary;

pub use config::{Config, ConfigProblem};
pub use context::user_agent;
pub use error::{EngineCause, ErrorKind, FailureCause, ToolError};
pub use ports::{NetPort, Observer, ParsePort, PortError, PortFuture, Unobserved};
pub use ratelimit::Caller;
pub use response::{ToolOutput, ToolResponse};
pub use services::Services;
