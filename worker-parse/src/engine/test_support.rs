//! Helpers shared by the drivers' parser tests.

use rypsok_proto::{EngineFailure, EngineHit, EngineParse, Header};

/// The hits of an answer that must be hits.
pub(crate) fn hits(parse: EngineParse) -> Vec<EngineHit> {
    match parse {
        EngineParse::Hits(hits) => hits,
        EngineParse::Failure(failure) => panic!("expected hits, got {failure:?}"),
    }
}

/// The failure of an answer that must be a failure.
pub(crate) fn failure(parse: EngineParse) -> EngineFailure {
    match parse {
        EngineParse::Failure(failure) => failure,
        EngineParse::Hits(hits) => panic!("expected a failure, got {} hits", hits.len()),
    }
}

/// Headers from name/value pairs.
pub(crate) fn headers(pairs: &[(&str, &str)]) -> Vec<Header> {
    pairs
        .iter()
        .map(|(name, value)| Header {
            name: (*name).to_owned(),
            value: (*value).to_owned(),
        })
        .collect()
}
