//! One validator per section of the file: each reads its table through
//! the reader (`reader.rs`) and answers its part of the configuration, or
//! records every problem it found.

pub(super) mod cache;
pub(super) mod egress;
pub(super) mod engines;
pub(super) mod fetch;
pub(super) mod http;
pub(super) mod limits;
pub(super) mod metrics;
pub(super) mod sandbox;
pub(super) mod search;
pub(super) mod service;
