//! Tool argument validation (REQ-SEC-023): arbitrary JSON as the arguments
//! of `web_search`, `web_fetch` and `engine_status`, under the default
//! configuration. Invariants: anything but an object is not tried (the MCP
//! layer refuses it); a valid `web_search` call has a trimmed query of 1
//! to `query_max_chars` characters, `max_results` within the ceiling and a
//! configured language; a valid `web_fetch` call has a URL within LIM-F9
//! and `max_chars` within its floor and ceiling; a refusal is
//! `invalid_request` (or `unavailable` when no engine serves), its message
//! static text and numbers (no character an argument could bring,
//! no credential found in an argument), its detail ASCII; validation is
//! deterministic.
#![no_main]

use std::sync::LazyLock;

mod common;

use libfuzzer_sys::fuzz_target;
use rypsok_core::fuzzing::{fetch_args, search_args, status_args};
use rypsok_core::{Config, ErrorKind, ToolError};
use rypsok_proto::limits::{FETCH_MAX_CHARS_FLOOR, URL_MAX_CHARS};
use serde_json::{Map, Value};

static CONFIG: LazyLock<Config> = LazyLock::new(Config::defaults);

fn strings(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(s) => out.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
        Value::Object(map) => {
            for (k, v) in map {
                out.push(k.clone());
                strings(v, out);
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

fn check_error(e: &ToolError, args: &Map<String, Value>) {
    assert!(
        matches!(e.kind(), ErrorKind::InvalidRequest | ErrorKind::Unavailable),
        "{:?}",
        e.kind()
    );
    common::assert_static(&e.message());
    let detail = serde_json::to_string(&e.detail()).unwrap_or_default();
    assert!(detail.is_ascii(), "{detail}");
    let mut given = Vec::new();
    strings(&Value::Object(args.clone()), &mut given);
    for secret in given.iter().flat_map(|s| common::credentials(s)) {
        assert!(
            !e.message().contains(&secret) && !detail.contains(&secret),
            "{detail}"
        );
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(Value::Object(args)) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let config = &*CONFIG;

    match search_args(config, &args) {
        Ok(call) => {
            assert_eq!(call.query, call.query.trim());
            let n = call.query.chars().count();
            assert!(n >= 1 && n <= config.search.query_max_chars);
            assert!(call.max_results >= 1 && call.max_results <= config.search.max_results_ceiling);
            assert!(config.search.languages.contains(&call.language));
            assert_eq!(search_args(config, &args).ok(), Some(call));
        }
        Err(e) => check_error(&e, &args),
    }
    match fetch_args(config, &args) {
        Ok((url, max_chars, start_char)) => {
            assert!(url.chars().count() <= URL_MAX_CHARS);
            assert!(max_chars >= FETCH_MAX_CHARS_FLOOR as usize);
            assert!(max_chars as u64 <= u64::from(config.fetch.max_chars_ceiling));
            assert!(start_char as u64 <= config.fetch.max_bytes);
        }
        Err(e) => check_error(&e, &args),
    }
    match status_args(&args) {
        Ok(()) => assert!(args.is_empty()),
        Err(e) => check_error(&e, &args),
    }
});
