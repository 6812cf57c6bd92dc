//! The search cache (design §12, M5; REQ-CACHE-001..007, RFC 014): one
//! entry per engine answer, the parsed and bounded hits of one engine
//! before fusion, so that a hit goes through merging, ranking, cleaning and
//! notices exactly as a fresh answer does.
//!
//! An entry is keyed by the caller and by everything the engine request is
//! built from: the engine, the query as the privacy check left it, the
//! language, the region, the safe-search level, the time range, the result
//! count asked of the engine and the call's own result count
//! (`max_results`). Entries never cross callers (REQ-CACHE-004).
//!
//! Bounds: an entry lives LIM-K2 ([`CacheConfig::ttl_s`]); at most LIM-K3
//! entries ([`CacheConfig::max_entries`]) are kept, the least recently used
//! leaving first; one entry holds at most LIM-K4 bytes
//! ([`CACHE_ENTRY_MAX_BYTES`], counted as the memory it holds, key
//! included), so the whole cache holds at most LIM-K3 × LIM-K4 bytes. An
//! answer that does not fit is not stored: the next call misses, which
//! costs time and nothing else (failure degrades performance only).
//!
//! Expired entries are never answered and are dropped at the next use of
//! the cache, so retained results outlive LIM-K2 only until the next search.
//!
//! Which answers may be stored or looked up (the admission record's
//! `cacheable`, a circuit's probe, a query the privacy check warned about)
//! is decided by the search pipeline; this module only keeps what it is
//! given.
//!
//! The configuration of a process is immutable, so every entry was produced
//! under the configuration in force (I11). A future configuration reload
//! must call [`SearchCache::clear`] (or build a new cache) before the new
//! configuration answers its first call.

use std::collections::{BTreeMap, HashMap};
use std::mem::size_of;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rypsok_proto::EngineHit;
use tokio::time::Instant;

use crate::config::{CacheConfig, SafeSearch};
use crate::limits::CACHE_ENTRY_MAX_BYTES;
use crate::ratelimit::Caller;
use crate::validate::TimeRange;

/// What identifies one engine answer: the caller and the engine request.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct CacheKey {
    /// Whose call it was; entries never cross callers.
    pub(crate) caller: Caller,
    /// The engine's configured identifier.
    pub(crate) engine: String,
    /// The query as sent, after the privacy check (masked in `mask` mode).
    pub(crate) query: String,
    /// The call's language, as configuration spells it.
    pub(crate) language: String,
    /// `[search] region`.
    pub(crate) region: String,
    /// `[search] safe_search`.
    pub(crate) safe_search: SafeSearch,
    /// The call's time range.
    pub(crate) time_range: Option<TimeRange>,
    /// Results asked of the engine.
    pub(crate) count: u32,
    /// The call's `max_results`: the design keys an entry by the result
    /// count (§12), so a call for more or fewer results than an earlier one
    /// misses even where the engine request itself would be the same.
    pub(crate) max_results: u32,
}

impl CacheKey {
    /// Heap bytes the key holds besides its own struct.
    fn heap_bytes(&self) -> usize {
        self.caller.as_str().len()
            + self.engine.capacity()
            + self.query.capacity()
            + self.language.capacity()
            + self.region.capacity()
    }
}

/// Whether an answer was stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stored {
    /// Kept for later calls.
    Yes,
    /// Larger than LIM-K4: not kept; later calls miss.
    TooLarge,
}

/// The search cache of one process.
#[derive(Debug)]
pub(crate) struct SearchCache {
    ttl: Duration,
    max_entries: usize,
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    entries: HashMap<Arc<CacheKey>, Entry>,
    /// Entries by last use (a tick), the least recent first.
    by_use: BTreeMap<u64, Arc<CacheKey>>,
    /// Entries by storage (a tick): with one lifetime for all, the first
    /// is the first to expire.
    by_age: BTreeMap<u64, Arc<CacheKey>>,
    /// The next tick; ticks only grow.
    tick: u64,
    /// Bytes held by all entries, as [`entry_bytes`] counts them.
    bytes: usize,
}

#[derive(Debug)]
struct Entry {
    hits: Vec<EngineHit>,
    stored_at: Instant,
    stored_tick: u64,
    used_tick: u64,
    bytes: usize,
}

/// The memory one entry holds: its key, its hits and its share of the
/// three indexes. This is what LIM-K4 bounds, so the whole cache holds at
/// most LIM-K3 × LIM-K4 bytes of heap (measured: `examples/cache_memory.rs`).
fn entry_bytes(key: &CacheKey, hits: &[EngineHit]) -> usize {
    // A hash map keeps its slots at most 7/8 full and doubles when it
    // grows, and a B-tree's nodes are at least half full: each index holds
    // up to twice the room of its entries.
    let map_slot = size_of::<Arc<CacheKey>>() + size_of::<Entry>() + 1;
    let order_slot = size_of::<u64>() + size_of::<Arc<CacheKey>>();
    let fixed = size_of::<CacheKey>()
        // Arc's two counters beside the key and beside the caller's label.
        + 4 * size_of::<usize>()
        + 2 * map_slot
        + 2 * 2 * order_slot
        // The B-tree nodes' own headers, per entry at worst.
        + 64;
    let hits_bytes: usize = hits
        .iter()
        .map(|h| {
            size_of::<EngineHit>()
                + h.title.capacity()
                + h.url.capacity()
                + h.snippet.capacity()
                + h.date.as_ref().map_or(0, String::capacity)
        })
        .sum();
    fixed + key.heap_bytes() + hits_bytes
}

impl SearchCache {
    /// The cache `[cache]` asks for, or `None` when it is off (the
    /// default; REQ-CACHE-001).
    pub(crate) fn from_config(config: &CacheConfig) -> Option<Self> {
        config.enabled.then(|| Self {
            ttl: Duration::from_secs(config.ttl_s),
            max_entries: config.max_entries.max(1),
            inner: Mutex::new(Inner::default()),
        })
    }

    /// The stored hits of `key`, if an entry lives; a hit counts as a use.
    pub(crate) fn get(&self, key: &CacheKey) -> Option<Vec<EngineHit>> {
        let now = Instant::now();
        let mut inner = self.lock();
        inner.expire(now, self.ttl);
        let tick = inner.next_tick();
        let inner = &mut *inner;
        let (shared, entry) = inner.entries.get_key_value(key)?;
        let shared = Arc::clone(shared);
        let previous = entry.used_tick;
        inner.by_use.remove(&previous);
        inner.by_use.insert(tick, shared);
        let entry = inner.entries.get_mut(key)?;
        entry.used_tick = tick;
        Some(entry.hits.clone())
    }

    /// Keeps `hits` under `key`, replacing an entry of the same key; the
    /// least recently used entries leave to make room. An answer larger
    /// than LIM-K4 is not kept.
    pub(crate) fn put(&self, key: CacheKey, hits: Vec<EngineHit>) -> Stored {
        let bytes = entry_bytes(&key, &hits);
        let now = Instant::now();
        let mut inner = self.lock();
        inner.expire(now, self.ttl);
        if bytes > CACHE_ENTRY_MAX_BYTES {
            // An older answer to the same request is not what the engine
            // says now: it goes too.
            inner.remove(&key);
            return Stored::TooLarge;
        }
        inner.remove(&key);
        while inner.entries.len() >= self.max_entries {
            let Some((_, oldest)) = inner.by_use.pop_first() else {
                break;
            };
            inner.remove(&oldest);
        }
        let tick = inner.next_tick();
        let key = Arc::new(key);
        inner.by_use.insert(tick, Arc::clone(&key));
        inner.by_age.insert(tick, Arc::clone(&key));
        inner.bytes += bytes;
        inner.entries.insert(
            key,
            Entry {
                hits,
                stored_at: now,
                stored_tick: tick,
                used_tick: tick,
                bytes,
            },
        );
        Stored::Yes
    }

    /// Drops every entry. A configuration reload must call this (I11).
    #[cfg_attr(not(any(test, feature = "measure")), allow(dead_code))]
    pub(crate) fn clear(&self) {
        let mut inner = self.lock();
        *inner = Inner {
            tick: inner.tick,
            ..Inner::default()
        };
    }

    /// Entries and bytes held, read together (metrics).
    pub(crate) fn usage(&self) -> (usize, usize) {
        let inner = self.lock();
        (inner.entries.len(), inner.bytes)
    }

    /// Entries held (expired ones included until the next use).
    #[cfg_attr(not(any(test, feature = "measure")), allow(dead_code))]
    pub(crate) fn len(&self) -> usize {
        self.lock().entries.len()
    }

    /// Bytes held, as LIM-K4 counts them.
    #[cfg_attr(not(any(test, feature = "measure")), allow(dead_code))]
    pub(crate) fn bytes(&self) -> usize {
        self.lock().bytes
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // A panic while holding the lock leaves whole entries behind: a
        // half-updated index can only make an entry leave early.
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl Inner {
    fn next_tick(&mut self) -> u64 {
        self.tick += 1;
        self.tick
    }

    /// Drops the entries stored `ttl` or longer ago.
    fn expire(&mut self, now: Instant, ttl: Duration) {
        while let Some((&tick, key)) = self.by_age.first_key_value() {
            let expired = self
                .entries
                .get(key)
                .is_none_or(|e| now.saturating_duration_since(e.stored_at) >= ttl);
            if !expired {
                break;
            }
            let key = Arc::clone(key);
            self.by_age.remove(&tick);
            self.remove(&key);
        }
    }

    fn remove(&mut self, key: &CacheKey) {
        if let Some(entry) = self.entries.remove(key) {
            self.by_use.remove(&entry.used_tick);
            self.by_age.remove(&entry.stored_tick);
            self.bytes -= entry.bytes;
        }
    }
}

#[cfg(test)]
mod tests;
