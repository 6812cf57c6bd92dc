//! Every LIM value; the one table lives in `rypsok-proto` so that the
//! workers and the supervisor read the same numbers.

use std::time::Duration;

pub(crate) use rypsok_proto::limits::*;

/// The part of a caller's time kept back from worker-net: an exchange
/// times out this much before the caller's deadline (an engine's, the
/// fetch's network budget), so a healthy worker has answered (if only with
/// `timeout`) by the deadline, and a worker silent at the deadline is hung
/// and killed (LIM-W3). An internal margin, not a LIM value of the design.
pub(crate) const WORKER_SLACK: Duration = Duration::from_millis(100);
