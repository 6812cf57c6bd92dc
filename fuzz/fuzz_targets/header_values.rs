//! Header values from the network (REQ-SEC-023): Retry-After as the fetch
//! pipeline and the engine parsers read it, Brave's X-RateLimit-Reset and
//! X-RateLimit-Remaining, and the charset of a Content-Type. The input is
//! `name: value` lines. Invariants: a delay is whole seconds within
//! RETRY_AFTER_MAX_S and exactly the digits given; the fetch reading and
//! the engine reading agree wherever the fetch reading carries one; a 429
//! is a rate limit with a bounded delay; a Content-Type charset that names
//! an encoding (other than UTF-16, which needs a BOM) decodes an ASCII
//! body with that encoding, and is read the same way twice.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use rypsok_core::fuzzing::fetch_retry_after_ms;
use rypsok_proto::limits::RETRY_AFTER_MAX_S;
use rypsok_proto::{EngineFailure, EngineKind, EngineParse, ParseRequest, ParseResponse};
use rypsok_worker_parse::fuzzing::{decode_charset, engine_retry_after_ms};

const CAP_MS: u64 = RETRY_AFTER_MAX_S * 1000;

fn charset_param(value: &str) -> Option<String> {
    value.split(';').skip(1).find_map(|p| {
        let (k, v) = p.split_once('=')?;
        k.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| v.trim().trim_matches(['"', '\'']).to_owned())
    })
}

fuzz_target!(|data: &[u8]| {
    let headers = common::headers(data);
    let retry = headers.iter().find(|h| h.name == "retry-after");
    let digits = retry
        .map(|h| h.value.trim())
        .filter(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()));

    let fetch = fetch_retry_after_ms(&headers);
    let engine = engine_retry_after_ms(&headers);
    if let Some(ms) = fetch {
        assert!(ms <= CAP_MS && ms % 1000 == 0);
        assert_eq!(digits.and_then(|d| d.parse::<u64>().ok()), Some(ms / 1000));
        assert_eq!(engine, Some(ms));
    }
    if let Some(ms) = engine {
        assert!(ms <= CAP_MS && ms % 1000 == 0);
        assert!(digits.is_some());
    } else {
        assert!(digits.is_none());
    }

    let brave = ParseRequest::EngineAnswer {
        engine: EngineKind::Brave,
        base_url: String::new(),
        status: 429,
        headers: headers.clone(),
        body: Vec::new(),
    };
    match rypsok_worker_parse::parse(brave) {
        ParseResponse::Engine(EngineParse::Failure(EngineFailure::RateLimited {
            retry_after_ms,
            ..
        })) => assert!(retry_after_ms.is_none_or(|ms| ms <= CAP_MS)),
        other => panic!("a 429 is a rate limit: {other:?}"),
    }

    for header in headers.iter().filter(|h| h.name == "content-type") {
        let body = b"plain ASCII text";
        let (name, text) = decode_charset(body, Some(&header.value), false, None);
        assert_eq!(
            (name, text),
            decode_charset(body, Some(&header.value), false, None)
        );
        let named = charset_param(&header.value)
            .and_then(|label| encoding_rs::Encoding::for_label(label.as_bytes()))
            .filter(|e| *e != encoding_rs::UTF_16LE && *e != encoding_rs::UTF_16BE);
        if let Some(encoding) = named {
            assert_eq!(name, encoding.name(), "{:?}", header.value);
        }
    }
});
