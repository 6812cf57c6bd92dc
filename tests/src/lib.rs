//! Black-box tests live in `blackbox/`; this library is empty by design.
