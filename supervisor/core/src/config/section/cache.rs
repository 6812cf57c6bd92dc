//! `[cache]` (design §12: LIM-K2, LIM-K3) and `[scraping]` (design §11:
//! the opt-in of scraping drivers, REQ-ENG-013).

use crate::config::reader::{Problems, Range, Section, child, default_of};
use crate::config::{CacheConfig, EngineConfig, ScrapingConfig};
use crate::engine::Driver;
use crate::limits;

/// The longest LIM-K2 an operator may set: a day. Search results are
/// retained no longer than this (design §10, retention classes).
const CACHE_TTL_MAX_S: i64 = 86_400;
/// The largest LIM-K3 an operator may set. The whole cache holds at most
/// `max_entries` times LIM-K4 bytes: 640 MiB here, 64 MiB at the default.
const CACHE_ENTRIES_MAX: i64 = 10_000;

pub(in crate::config) fn cache(s: &mut Section<'_>, p: &mut Problems) -> Option<CacheConfig> {
    let enabled = s.boolean(p, "enabled", false);
    let ttl_s = s.number(
        p,
        "ttl_s",
        Range::new(1, CACHE_TTL_MAX_S),
        default_of(limits::CACHE_TTL_S),
    );
    let max_entries = s.number(
        p,
        "max_entries",
        Range::new(1, CACHE_ENTRIES_MAX),
        default_of(limits::CACHE_ENTRIES),
    );
    Some(CacheConfig {
        enabled: enabled?,
        ttl_s: ttl_s?,
        max_entries: max_entries?,
    })
}

pub(in crate::config) fn scraping(s: &mut Section<'_>, p: &mut Problems) -> Option<ScrapingConfig> {
    s.boolean(p, "enabled", false)
        .map(|enabled| ScrapingConfig { enabled })
}

/// A scraping driver reads a page meant for people (design §11): the
/// operator must have said so (REQ-ENG-013). Refused whether or not the
/// engine is enabled, so that switching it on later is no surprise.
pub(in crate::config) fn check_scraping(
    p: &mut Problems,
    scraping: Option<&ScrapingConfig>,
    engines: Option<&[EngineConfig]>,
) {
    let (Some(scraping), Some(engines)) = (scraping, engines) else {
        return;
    };
    if scraping.enabled {
        return;
    }
    for engine in engines.iter().filter(|e| e.kind.spec().scraping) {
        p.push(
            child(&child("engines", &engine.id), "type"),
            "a scraping engine type; allowed only with [scraping] enabled = true",
        );
    }
}
