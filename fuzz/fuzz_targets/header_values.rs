//! Header values from the network (REQ-SEC-023): Retry-After as the fetch
//! pipeline and the engine parsers read it, the rate-limit headers of Brave
//! (X-RateLimit-Reset, X-RateLimit-Remaining) and of GitHub (the same
//! names, the reset a UTC epoch moment), and the charset of a Content-Type.
//! The input is `name: value` lines. Invariants: the fetch pipeline and
//! the engine parsers read every one of these numbers by one rule, digits
//! only and capped, never refused: a delay is the digits given, held to
//! RETRY_AFTER_MAX_S however many there are, and anything else is no delay;
//! the fetch reading and the engine reading of Retry-After are equal; a 429
//! is a rate limit with a bounded delay; a Content-Type charset that names
//! an encoding (other than UTF-16, which needs a BOM) decodes an ASCII
//! body with that encoding, and is read the same way twice.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use rypsok_core::fuzzing::fetch_retry_after_ms;
use rypsok_proto::limits::RETRY_AFTER_MAX_S;
use rypsok_proto::{EngineFailure, EngineKind, EngineParse, Header, ParseRequest, ParseResponse};
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

/// The value of the first header `name` (the names are lower-case), when it
/// is digits only after trimming.
fn digits<'a>(headers: &'a [Header], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|h| h.name == name)
        .map(|h| h.value.trim())
        .filter(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()))
}

/// Seconds as digits, the way the engine parsers take them: past `u64`
/// (and so past any cap) is the most there is, not an error.
fn seconds(digits: &str) -> u64 {
    digits.parse().unwrap_or(u64::MAX)
}

/// A wait in milliseconds, held to the cap.
fn capped_ms(seconds: u64) -> u64 {
    seconds.min(RETRY_AFTER_MAX_S) * 1000
}

/// `Date` of the moment 1_700_000_000 (UTC epoch seconds).
const DATE_1_700_000_000: &str = "Tue, 14 Nov 2023 22:13:20 GMT";

fuzz_target!(|data: &[u8]| {
    let headers = common::headers(data);
    let digits_given = digits(&headers, "retry-after");

    let fetch = fetch_retry_after_ms(&headers);
    let engine = engine_retry_after_ms(&headers);
    // One rule on both sides: the digits given, capped, however many there
    // are; a wait past the cap is the cap, never dropped.
    assert_eq!(fetch, engine);
    assert_eq!(engine, digits_given.map(|d| capped_ms(seconds(d))));
    assert!(engine.is_none_or(|ms| ms <= CAP_MS && ms % 1000 == 0));

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

    // GitHub: Retry-After comes first; a 429 is a rate limit either way.
    let github = |headers: Vec<Header>| {
        let answer = ParseRequest::EngineAnswer {
            engine: EngineKind::GitHub,
            base_url: String::new(),
            status: 429,
            headers,
            body: Vec::new(),
        };
        match rypsok_worker_parse::parse(answer) {
            ParseResponse::Engine(EngineParse::Failure(EngineFailure::RateLimited {
                retry_after_ms,
                quota: false,
            })) => retry_after_ms,
            other => panic!("a 429 is a rate limit: {other:?}"),
        }
    };
    let delay = github(headers.clone());
    assert!(delay.is_none_or(|ms| ms <= CAP_MS && ms % 1000 == 0));
    if engine.is_some() {
        assert_eq!(delay, engine);
    }
    // A spent window waits until the reset, read by the same rule against
    // the answer's `Date`: the digits given less that moment, capped.
    if let Some(reset) = headers.iter().find(|h| h.name == "x-ratelimit-reset") {
        let spent = vec![
            Header {
                name: "x-ratelimit-remaining".to_owned(),
                value: "0".to_owned(),
            },
            reset.clone(),
            Header {
                name: "date".to_owned(),
                value: DATE_1_700_000_000.to_owned(),
            },
        ];
        let expected = digits(&spent, "x-ratelimit-reset")
            .map(|d| capped_ms(seconds(d).saturating_sub(1_700_000_000)));
        assert_eq!(github(spent), expected, "{:?}", reset.value);

        // Brave's reset is a list of seconds per window, each read by the
        // same rule; with no window reported spent, the first one counts.
        let first = reset.value.split(',').next().unwrap_or_default().trim();
        let expected = (!first.is_empty() && first.bytes().all(|b| b.is_ascii_digit()))
            .then(|| capped_ms(seconds(first)));
        let brave = ParseRequest::EngineAnswer {
            engine: EngineKind::Brave,
            base_url: String::new(),
            status: 429,
            headers: vec![reset.clone()],
            body: Vec::new(),
        };
        match rypsok_worker_parse::parse(brave) {
            ParseResponse::Engine(EngineParse::Failure(EngineFailure::RateLimited {
                retry_after_ms,
                quota: false,
            })) => assert_eq!(retry_after_ms, expected, "{:?}", reset.value),
            other => panic!("a 429 is a rate limit: {other:?}"),
        }
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
