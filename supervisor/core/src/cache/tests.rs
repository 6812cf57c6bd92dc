//! The cache's own rules: keying, lifetime on a paused clock, LRU order,
//! the entry and byte bounds.

use std::time::Duration;

use rypsok_proto::EngineHit;

use super::*;

fn config(ttl_s: u64, max_entries: usize) -> CacheConfig {
    CacheConfig {
        enabled: true,
        ttl_s,
        max_entries,
    }
}

fn key(query: &str) -> CacheKey {
    CacheKey {
        caller: Caller::process("stdio"),
        engine: "wikipedia".to_owned(),
        query: query.to_owned(),
        language: "en".to_owned(),
        region: "US".to_owned(),
        safe_search: SafeSearch::Moderate,
        time_range: None,
        count: 10,
        max_results: 10,
    }
}

fn hits(n: usize, text_len: usize) -> Vec<EngineHit> {
    (0..n)
        .map(|i| EngineHit {
            title: "t".repeat(text_len),
            url: format!("https://example.org/{i}"),
            snippet: "s".repeat(text_len),
            date: None,
        })
        .collect()
}

#[test]
fn is_off_unless_enabled() {
    // Verifies: REQ-CACHE-001
    let mut off = config(900, 1000);
    off.enabled = false;
    assert!(SearchCache::from_config(&off).is_none());
    assert!(SearchCache::from_config(&config(900, 1000)).is_some());
}

#[tokio::test(start_paused = true)]
async fn answers_a_stored_answer_until_its_lifetime_ends() {
    // Verifies: REQ-CACHE-005 (expiry LIM-K2, on a paused clock)
    let cache = SearchCache::from_config(&config(900, 10)).unwrap();
    assert_eq!(cache.put(key("q"), hits(3, 10)), Stored::Yes);
    tokio::time::advance(Duration::from_secs(899)).await;
    assert_eq!(cache.get(&key("q")), Some(hits(3, 10)));
    tokio::time::advance(Duration::from_secs(1)).await;
    assert_eq!(cache.get(&key("q")), None);
    // Gone from memory, not only hidden.
    assert_eq!(cache.len(), 0);
    assert_eq!(cache.bytes(), 0);
}

#[tokio::test(start_paused = true)]
async fn a_use_does_not_extend_the_lifetime() {
    // Verifies: REQ-CACHE-005, REQ-PRIV-003 (retention is LIM-K2 from storage)
    let cache = SearchCache::from_config(&config(60, 10)).unwrap();
    cache.put(key("q"), hits(1, 10));
    for _ in 0..5 {
        tokio::time::advance(Duration::from_secs(11)).await;
        assert!(cache.get(&key("q")).is_some());
    }
    tokio::time::advance(Duration::from_secs(5)).await;
    assert!(cache.get(&key("q")).is_none());
}

#[tokio::test(start_paused = true)]
async fn expired_entries_leave_at_the_next_use_of_any_key() {
    // Verifies: REQ-PRIV-003 (nothing kept past LIM-K2 once the cache is used again)
    let cache = SearchCache::from_config(&config(10, 10)).unwrap();
    cache.put(key("a"), hits(1, 10));
    cache.put(key("b"), hits(1, 10));
    tokio::time::advance(Duration::from_secs(10)).await;
    assert!(cache.get(&key("other")).is_none());
    assert_eq!(cache.len(), 0);
}

#[tokio::test(start_paused = true)]
async fn every_part_of_the_engine_request_and_the_caller_is_in_the_key() {
    // Verifies: REQ-CACHE-002, REQ-CACHE-004
    {
        let cache = SearchCache::from_config(&config(900, 100)).unwrap();
        cache.put(key("q"), hits(2, 10));
        let variants: Vec<CacheKey> = vec![
            CacheKey {
                caller: Caller::remote("session-b"),
                ..key("q")
            },
            CacheKey {
                engine: "brave".to_owned(),
                ..key("q")
            },
            key("Q"),
            CacheKey {
                language: "de".to_owned(),
                ..key("q")
            },
            CacheKey {
                region: "DE".to_owned(),
                ..key("q")
            },
            CacheKey {
                safe_search: SafeSearch::Strict,
                ..key("q")
            },
            CacheKey {
                time_range: Some(TimeRange::Week),
                ..key("q")
            },
            CacheKey {
                count: 5,
                ..key("q")
            },
            CacheKey {
                max_results: 20,
                ..key("q")
            },
        ];
        for variant in variants {
            assert_eq!(cache.get(&variant), None, "{variant:?}");
        }
        assert!(cache.get(&key("q")).is_some());
    }
}

#[tokio::test(start_paused = true)]
async fn the_least_recently_used_entry_leaves_when_full() {
    // Verifies: REQ-CACHE-006 (LIM-K3, least recently used first)
    let cache = SearchCache::from_config(&config(900, 3)).unwrap();
    for q in ["a", "b", "c"] {
        cache.put(key(q), hits(1, 10));
    }
    // "a" used again: "b" is now the least recent.
    assert!(cache.get(&key("a")).is_some());
    cache.put(key("d"), hits(1, 10));
    assert_eq!(cache.len(), 3);
    assert!(cache.get(&key("b")).is_none());
    for q in ["a", "c", "d"] {
        assert!(cache.get(&key(q)).is_some(), "{q}");
    }
}

#[tokio::test(start_paused = true)]
async fn storing_a_key_again_replaces_its_entry() {
    // Verifies: REQ-CACHE-006 (one entry per engine answer)
    let cache = SearchCache::from_config(&config(900, 3)).unwrap();
    cache.put(key("a"), hits(1, 10));
    cache.put(key("a"), hits(2, 10));
    assert_eq!(cache.len(), 1);
    assert_eq!(cache.get(&key("a")), Some(hits(2, 10)));
    assert_eq!(cache.bytes(), entry_bytes(&key("a"), &hits(2, 10)));
}

#[tokio::test(start_paused = true)]
async fn an_answer_larger_than_an_entry_is_not_kept() {
    // Verifies: REQ-CACHE-006, REQ-CACHE-007 (LIM-K4; a store that fails is a miss)
    let cache = SearchCache::from_config(&config(900, 10)).unwrap();
    cache.put(key("q"), hits(1, 10));
    // Ten hits of 4 KiB title and snippet each: 80 KiB.
    let big = hits(10, 4096);
    assert!(entry_bytes(&key("q"), &big) > CACHE_ENTRY_MAX_BYTES);
    assert_eq!(cache.put(key("q"), big), Stored::TooLarge);
    // The older answer to the same request went too.
    assert_eq!(cache.get(&key("q")), None);
    assert_eq!(cache.bytes(), 0);
}

#[tokio::test(start_paused = true)]
async fn the_whole_cache_stays_within_entries_times_the_entry_bound() {
    // Verifies: REQ-CACHE-006 (the cache's memory is bounded)
    let max_entries = 50;
    let cache = SearchCache::from_config(&config(900, max_entries)).unwrap();
    for i in 0..200 {
        // Entries close to LIM-K4, of varying size.
        let text = 2900 + (i % 7) * 10;
        assert_eq!(
            cache.put(key(&format!("query {i}")), hits(10, text)),
            Stored::Yes
        );
        assert!(cache.len() <= max_entries);
        assert!(cache.bytes() <= max_entries * CACHE_ENTRY_MAX_BYTES);
    }
    assert_eq!(cache.len(), max_entries);
}

#[tokio::test(start_paused = true)]
async fn clearing_drops_every_entry() {
    // Verifies: REQ-CACHE-003 (I11: a reload clears the cache)
    let cache = SearchCache::from_config(&config(900, 10)).unwrap();
    cache.put(key("a"), hits(1, 10));
    cache.clear();
    assert_eq!(cache.len(), 0);
    assert_eq!(cache.bytes(), 0);
    assert!(cache.get(&key("a")).is_none());
    cache.put(key("a"), hits(1, 10));
    assert!(cache.get(&key("a")).is_some());
}
