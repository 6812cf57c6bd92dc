//! Helpers shared by the drivers' parser tests.

use rypsok_proto::{EngineFailure, EngineHit, EngineParse, Header};

/// The hits of an answer that must be hits.
pub(crate) fn hits(parse: EngineParse) -> Vec<EngineHit> {
    match parse {
        EngineParse::Hits(hits) | EngineParse::Paced { hits, .. } => hits,
        EngineParse::Failure(failure) => panic!("expected hits, got {failure:?}"),
    }
}

/// The failure of an answer that must be a failure.
pub(crate) fn failure(parse: EngineParse) -> EngineFailure {
    match parse {
        EngineParse::Failure(failure) => failure,
        EngineParse::Hits(hits) | EngineParse::Paced { hits, .. } => {
            panic!("expected a failure, got {} hits", hits.len())
        }
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

/// Reads a `.headers.txt` fixture: `HTTP <status> ...`, then `name: value`
/// lines (names lowered).
pub(crate) fn status_and_headers(text: &str) -> (u16, Vec<Header>) {
    let mut lines = text.lines();
    let status = lines
        .next()
        .and_then(|line| line.strip_prefix("HTTP "))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|code| code.parse().ok())
        .expect("status line");
    let headers = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| Header {
            name: name.to_ascii_lowercase(),
            value: value.trim().to_owned(),
        })
        .collect();
    (status, headers)
}
