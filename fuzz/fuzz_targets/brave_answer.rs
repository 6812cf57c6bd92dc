//! The Brave answer parser (REQ-SEC-023): any status, headers and body give
//! hits or a failure class, deterministically. At most fifty hits, each
//! with a title and an http(s) URL with an authority, without whitespace or
//! control characters, within LIM-F9, dates real
//! `YYYY-MM-DD`; a rate-limit delay (X-RateLimit-Reset or Retry-After) is
//! bounded by its cap.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use rypsok_proto::limits::{RETRY_AFTER_MAX_S, URL_MAX_CHARS};
use rypsok_proto::{
    EngineFailure, EngineKind, EngineParse, ParseRequest, ParseResponse, is_iso_date,
};
use rypsok_worker_parse::parse;

fuzz_target!(|data: &[u8]| {
    let answer = common::answer(data);
    let request = || ParseRequest::EngineAnswer {
        engine: EngineKind::Brave,
        base_url: String::new(),
        status: answer.status,
        headers: answer.headers.clone(),
        body: answer.body.to_vec(),
    };
    let ParseResponse::Engine(result) = parse(request()) else {
        panic!("an engine answer gives an engine result");
    };
    let ParseResponse::Engine(again) = parse(request()) else {
        panic!("an engine answer gives an engine result");
    };
    assert_eq!(result, again);
    match result {
        EngineParse::Hits(hits) => {
            assert!(hits.len() <= 50);
            for hit in hits {
                assert!(!hit.title.is_empty());
                assert!(hit.url.chars().count() <= URL_MAX_CHARS);
                let lower = hit.url.to_ascii_lowercase();
                let rest = lower
                    .strip_prefix("https://")
                    .or_else(|| lower.strip_prefix("http://"))
                    .expect("an http(s) URL");
                assert!(!rest.starts_with(['/', '?', '#']) && !rest.is_empty());
                assert!(!hit.url.chars().any(|c| c.is_whitespace() || c.is_control()));
                assert!(hit.date.as_deref().is_none_or(is_iso_date));
            }
        }
        EngineParse::Failure(EngineFailure::RateLimited {
            retry_after_ms: Some(ms),
            ..
        }) => assert!(ms <= RETRY_AFTER_MAX_S * 1000),
        EngineParse::Failure(_) => {}
        EngineParse::Paced { .. } => panic!("this engine never asks for a pause"),
    }
});
