//! Entry points for measurement commands (`examples/`), compiled only with
//! the `measure` feature; never in a build that ships: the search cache
//! filled to its bound (`cache_memory`) and the instruction-like detector
//! with its judges apart (`instruction_eval`).

use rypsok_proto::EngineHit;

use crate::cache::{CacheKey, SearchCache, Stored};
use crate::config::{CacheConfig, SafeSearch};
use crate::limits::RESULTS_PER_ENGINE;
use crate::ratelimit::Caller;

/// A search cache filled by [`fill_cache`].
#[derive(Debug)]
pub struct FilledCache {
    cache: SearchCache,
}

impl FilledCache {
    /// Entries held.
    pub fn len(&self) -> usize {
        self.cache.len()
    }

    /// Whether it holds nothing.
    pub fn is_empty(&self) -> bool {
        self.cache.len() == 0
    }

    /// Bytes held, as LIM-K4 counts them.
    pub fn accounted_bytes(&self) -> usize {
        self.cache.bytes()
    }
}

/// A cache of `entries` full entries: each LIM-S3 hits whose title and
/// snippet are as long as LIM-K4 lets the entry be, under a distinct query
/// of LIM-S1 characters. Must run inside a tokio runtime with time
/// enabled (the cache reads tokio's clock).
pub fn fill_cache(entries: usize) -> FilledCache {
    let cache = SearchCache::from_config(&CacheConfig {
        enabled: true,
        ttl_s: 900,
        max_entries: entries,
    })
    .unwrap_or_else(unreachable_disabled);
    let text_len = full_text_len(&cache);
    for i in 0..entries {
        let stored = cache.put(key(i), hits(text_len));
        debug_assert_eq!(stored, Stored::Yes);
    }
    FilledCache { cache }
}

#[allow(clippy::panic)] // the configuration above enables the cache
fn unreachable_disabled() -> SearchCache {
    panic!("an enabled cache configuration built no cache")
}

fn key(i: usize) -> CacheKey {
    let query = format!("{i:0>400}");
    CacheKey {
        caller: Caller::process("stdio"),
        engine: "wikipedia".to_owned(),
        query,
        language: "en".to_owned(),
        region: "US".to_owned(),
        safe_search: SafeSearch::Moderate,
        time_range: None,
        count: RESULTS_PER_ENGINE,
        max_results: RESULTS_PER_ENGINE,
    }
}

fn hits(text_len: usize) -> Vec<EngineHit> {
    (0..RESULTS_PER_ENGINE)
        .map(|n| EngineHit {
            title: "t".repeat(text_len),
            url: format!("https://example.org/{n:0>200}"),
            snippet: "s".repeat(text_len),
            date: Some("2026-01-01".to_owned()),
        })
        .collect()
}

/// The longest title and snippet with which an entry is still stored.
fn full_text_len(probe: &SearchCache) -> usize {
    let (mut fits, mut too_long) = (0, 64 * 1024);
    while too_long - fits > 1 {
        let mid = usize::midpoint(fits, too_long);
        if probe.put(key(usize::MAX), hits(mid)) == Stored::Yes {
            fits = mid;
        } else {
            too_long = mid;
        }
    }
    probe.clear();
    fits
}

/// The instruction-like detector's verdict on `text` (the whole detection,
/// decoding included: the cost measured is the one a snippet pays).
pub fn is_instruction_like(text: &str) -> bool {
    crate::instruction::is_instruction_like(text)
}

/// How each judge of the detector saw `text`: whether the hidden words or
/// the patterns matched, the model's score and its threshold.
pub fn explain_instruction(text: &str) -> (bool, f64, f64) {
    crate::instruction::explain(text)
}
