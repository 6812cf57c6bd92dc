//! Whether this process honours test-only probes (see the `probe` feature
//! and `probe.rs`). Probes are compiled only into test builds, and even
//! there a worker honours them only when the supervisor started it with
//! `--probes`, which it does only when `RYPSOK_TEST_PROBES` is set: a test
//! build used by accident still ignores a query or an answer that carries a
//! probe marker.

use std::sync::atomic::{AtomicBool, Ordering};

/// Whether probe code is compiled into this build.
pub const COMPILED: bool = cfg!(feature = "probe");

static ARMED: AtomicBool = AtomicBool::new(false);

/// Makes this process honour probes (its `--probes` argument).
pub fn arm() {
    ARMED.store(true, Ordering::Release);
}

/// Whether probes are honoured.
pub fn is_armed() -> bool {
    ARMED.load(Ordering::Acquire)
}
