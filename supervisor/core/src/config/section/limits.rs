//! `[limits]`: the configurable LIM values, each within its range.

use crate::config::LimitsConfig;
use crate::config::reader::{Problems, Range, Section, default_of};
use crate::limits;
use crate::ratelimit::default_share;

/// The largest LIM-H2 an operator may set: a body is held in memory whole,
/// once per request in flight.
const HTTP_BODY_BYTES_CEILING: i64 = 8 * 1024 * 1024;

/// The smallest LIM-H2 an operator may set: a tool call at its argument
/// bounds (a URL of LIM-F9 characters) fits even with every character
/// escaped as `\uXXXX`.
const HTTP_BODY_BYTES_FLOOR: i64 = 16 * 1024;

pub(in crate::config) fn limits(s: &mut Section<'_>, p: &mut Problems) -> Option<LimitsConfig> {
    let per_minute = Range::new(1, 100_000);
    let search = s.number(
        p,
        "web_search_per_minute",
        per_minute,
        limits::SEARCH_PER_MINUTE.into(),
    );
    let fetch = s.number(
        p,
        "web_fetch_per_minute",
        per_minute,
        limits::FETCH_PER_MINUTE.into(),
    );
    let status = s.number(
        p,
        "engine_status_per_minute",
        per_minute,
        limits::STATUS_PER_MINUTE.into(),
    );
    let fetch_concurrency = s.number(
        p,
        "fetch_concurrency",
        Range::new(1, 256),
        limits::FETCH_CONCURRENCY.into(),
    );
    // One HTTP caller's share of LIM-F10: at most the whole, a quarter by
    // default, so that several callers cannot starve one another unless
    // the operator says there is one.
    let fetch_concurrency_limit = fetch_concurrency.map(i64::from);
    let fetch_concurrency_per_caller = s.number(
        p,
        "fetch_concurrency_per_caller",
        Range::up_to(1, "fetch_concurrency", fetch_concurrency_limit, 256),
        fetch_concurrency.map_or(1, |all: u32| default_share(all).into()),
    );
    let parse_workers = s.number(
        p,
        "parse_workers",
        Range::new(1, 16),
        limits::PARSE_WORKERS.into(),
    );
    // The listener's bounds (LIM-H1, LIM-H2, LIM-H6): usable at the floor
    // (one connection, one session, a body that holds any tool call),
    // memory still bounded at the ceiling.
    let http_connections = s.number(
        p,
        "http_connections",
        Range::new(1, 4096),
        default_of(limits::HTTP_MAX_CONNECTIONS),
    );
    let http_request_body_bytes = s.number(
        p,
        "http_request_body_bytes",
        Range::new(HTTP_BODY_BYTES_FLOOR, HTTP_BODY_BYTES_CEILING),
        default_of(limits::HTTP_MAX_BODY_BYTES),
    );
    let http_sessions = s.number(
        p,
        "http_sessions",
        Range::new(1, 1024),
        default_of(limits::HTTP_MAX_SESSIONS),
    );
    // worker-net's idle connections (kept for reuse by origin and
    // profile): 0 per origin turns reuse off.
    let pool_idle_per_origin = s.number(
        p,
        "pool_idle_per_origin",
        Range::new(0, 64),
        limits::POOL_IDLE_PER_ORIGIN.into(),
    );
    let pool_idle_total = s.number(
        p,
        "pool_idle_total",
        Range::new(1, 1024),
        limits::POOL_IDLE_TOTAL.into(),
    );
    let pool_idle_secs = s.number(
        p,
        "pool_idle_secs",
        Range::new(1, 3600),
        limits::POOL_IDLE_SECS.into(),
    );
    Some(LimitsConfig {
        web_search_per_minute: search?,
        web_fetch_per_minute: fetch?,
        engine_status_per_minute: status?,
        fetch_concurrency: fetch_concurrency?,
        fetch_concurrency_per_caller: fetch_concurrency_per_caller?,
        parse_workers: parse_workers?,
        http_connections: http_connections?,
        http_request_body_bytes: http_request_body_bytes?,
        http_sessions: http_sessions?,
        pool: rypsok_proto::NetPool {
            idle_per_origin: pool_idle_per_origin?,
            idle_total: pool_idle_total?,
            idle_secs: pool_idle_secs?,
        },
    })
}
