//! The DuckDuckGo HTML answer parser (REQ-SEC-023, REQ-ENG-015): any
//! status, headers and body give hits or a failure class, deterministically,
//! within the DOM's node and depth bounds. At most fifty hits, each with a
//! title and an http(s) URL with an authority that is not a DuckDuckGo
//! redirect wrapper, without whitespace or control characters; title and
//! snippet at most 2048 characters; dates real `YYYY-MM-DD`. A 403 or 429
//! is always `blocked`; a page is never rate-limited (no delay is read).
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use rypsok_proto::{
    EngineFailure, EngineKind, EngineParse, ParseRequest, ParseResponse, is_iso_date,
};
use rypsok_worker_parse::parse;

fuzz_target!(|data: &[u8]| {
    let answer = common::answer(data);
    let request = || ParseRequest::EngineAnswer {
        engine: EngineKind::DuckDuckGo,
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
    if matches!(answer.status, 403 | 429) {
        assert_eq!(result, EngineParse::Failure(EngineFailure::Blocked));
    }
    match result {
        EngineParse::Hits(hits) => {
            assert!(hits.len() <= 50);
            for hit in hits {
                assert!(!hit.title.is_empty());
                assert!(hit.title.chars().count() <= 2048);
                assert!(hit.snippet.chars().count() <= 2048);
                let lower = hit.url.to_ascii_lowercase();
                let rest = lower
                    .strip_prefix("https://")
                    .or_else(|| lower.strip_prefix("http://"))
                    .expect("an http(s) URL");
                assert!(!rest.starts_with(['/', '?', '#']) && !rest.is_empty());
                assert!(!rest.starts_with("duckduckgo.com/l"));
                assert!(!hit.url.chars().any(|c| c.is_whitespace() || c.is_control()));
                assert!(hit.date.as_deref().is_none_or(is_iso_date));
            }
        }
        EngineParse::Failure(failure) => {
            assert!(!matches!(failure, EngineFailure::RateLimited { .. }));
        }
        // The page carries no provider's pause.
        EngineParse::Paced { .. } => panic!("a results page asks for no pause"),
    }
});
