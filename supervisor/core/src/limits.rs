//! Every LIM value; the one table lives in `rypsok-proto` so that the
//! workers and the supervisor read the same numbers.

pub(crate) use rypsok_proto::limits::*;
