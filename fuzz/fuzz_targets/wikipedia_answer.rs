//! The Wikipedia answer parser (REQ-SEC-023): any status, headers and body
//! give hits or a failure class, deterministically. Every hit has a title
//! and a URL on the configured article path (a title cannot add a query,
//! a fragment or leave the path), dates are real `YYYY-MM-DD`, and a
//! Retry-After is bounded by its cap.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use rypsok_proto::limits::RETRY_AFTER_MAX_S;
use rypsok_proto::{
    EngineFailure, EngineKind, EngineParse, ParseRequest, ParseResponse, is_iso_date,
};
use rypsok_worker_parse::parse;

const BASE: &str = "https://en.wikipedia.org/wiki/";

fuzz_target!(|data: &[u8]| {
    let answer = common::answer(data);
    let request = || ParseRequest::EngineAnswer {
        engine: EngineKind::Wikipedia,
        base_url: BASE.to_owned(),
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
            assert_eq!(answer.status, 200);
            for hit in hits {
                assert!(!hit.title.is_empty());
                let suffix = hit.url.strip_prefix(BASE).expect("URL on the article path");
                assert!(!suffix.contains(['?', '#', ' ', '\\']), "{}", hit.url);
                let url = url::Url::parse(&hit.url).expect("an absolute URL");
                assert_eq!(url.host_str(), Some("en.wikipedia.org"));
                assert!(url.path().starts_with("/wiki/"), "{}", hit.url);
                assert!(url.query().is_none() && url.fragment().is_none());
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
