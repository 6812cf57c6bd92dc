//! rypsok-proto: what rypsok's three processes say to each other.
//!
//! The supervisor talks to two kinds of worker over a pair of pipes each:
//! [`NetRequest`]/[`NetResponse`] with worker-net (one HTTP exchange under a
//! profile, a deadline and a byte bound) and [`ParseRequest`]/[`ParseResponse`]
//! with worker-parse (hostile bytes in, structured data out). Every message
//! travels in a [`ToWorker`] or [`FromWorker`] envelope carrying a request id,
//! so answers may come back in any order and a call can be cancelled.
//!
//! `frame` reads and writes those envelopes as length-prefixed postcard
//! frames bounded by LIM-W1; a frame that does not decode is a
//! [`FrameError`], and the peer that sent it is never trusted again.
//!
//! [`EngineKind`] names an engine type on the wire; it is made from the
//! engine list, [`engine_list!`], from which the supervisor's driver registry
//! and worker-parse's parser dispatch are made as well.
//! [`retry_after_ms`] is the one reading of a wait from headers, shared by
//! the supervisor's fetch and the engine parsers.
//!
//! [`FailureCause`] is the closed vocabulary of why an engine's request
//! failed, shared by the search's answer, its logs and `check --online`.
//!
//! [`limits`] holds every LIM value of the project in one place. The egress
//! policy and the robots.txt matcher are rypsok-egress's: this crate only
//! carries their data ([`NetInit`]'s policy, [`ParseResponse::Robots`]).
#![forbid(unsafe_code)]

mod cause;
mod date;
mod engine;
mod frame;
mod header;
pub mod limits;
mod message;
#[cfg(feature = "probe")]
pub mod probe;
pub mod probe_gate;
mod serve;

pub use cause::FailureCause;
pub use date::{is_iso_date, is_result_date, iso_date_of_unix};
pub use engine::EngineKind;
pub use frame::{FrameError, READ_BUFFER_BYTES, decode_frame, read_frame, write_frame};
pub use header::{capped_ms, capped_wait_ms, header_value, retry_after_ms, whole_number};
pub use message::{
    Confinement, EngineFailure, EngineHit, EngineParse, ExchangeRequest, ExchangeResponse,
    FromWorker, Header, LandlockLevel, LandlockNet, LogLevel, NetFailure, NetInit, NetRequest,
    NetResponse, PageParse, ParseRequest, ParseResponse, Profile, SeccompLevel, ToWorker,
    Unreadable, WorkerHello, WorkerKind,
};
pub use message::{NetPool, NetProxy, ProxyAuthorization};
// The robots.txt rules are a parse answer's payload: named here with the
// other messages, defined with their matcher.
pub use rypsok_egress::robots::{RobotsRule, RobotsRules};
pub use serve::{Dispatch, serve_requests};
