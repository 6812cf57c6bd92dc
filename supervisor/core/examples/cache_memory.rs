//! Measures the search cache's memory at 1000 full entries (LIM-K3 at its
//! default, every entry filled to LIM-K4): the heap bytes the process holds
//! after filling, minus those before, counted by a global allocator that
//! tallies every allocation and deallocation.
//!
//! Run: `cargo run --release -p rypsok-core --features measure --example
//! cache_memory [ENTRIES]`. A measurement, not a test: it prints and exits.

// The counting allocator is the one place here that must implement an
// unsafe trait; it only forwards to the system allocator.
#![allow(unsafe_code)]
// A measuring command, not the core: it reads its own arguments, which the
// core's architecture rule forbids the library.
#![allow(clippy::disallowed_methods)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use rypsok_core::measure::fill_cache;
use rypsok_proto::limits::CACHE_ENTRY_MAX_BYTES;

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call forwards to `System` with the caller's arguments; the
// counter is only arithmetic on the sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        // SAFETY: the caller's contract for `alloc` is passed on unchanged.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: `ptr` was allocated by `System` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        LIVE.fetch_add(new_size, Ordering::Relaxed);
        // SAFETY: the caller's contract for `realloc` is passed on unchanged.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

// A measurement command prints its figures and stops loudly when it cannot
// start its runtime.
#[allow(clippy::print_stdout, clippy::expect_used)]
fn main() {
    let entries: usize = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(1000);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime");
    let _guard = runtime.enter();
    let before = LIVE.load(Ordering::Relaxed);
    let cache = fill_cache(entries);
    let after = LIVE.load(Ordering::Relaxed);
    let heap = after.saturating_sub(before);
    let bound = entries * CACHE_ENTRY_MAX_BYTES;
    println!("entries: {}", cache.len());
    println!(
        "accounted (LIM-K4 counting): {} bytes",
        cache.accounted_bytes()
    );
    println!("heap held (allocator count): {heap} bytes");
    println!("per entry: {} bytes", heap / entries.max(1));
    println!("bound, entries x LIM-K4: {bound} bytes");
    drop(cache);
}
