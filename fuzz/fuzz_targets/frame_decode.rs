//! Frames from a worker that may have been taken over: any bytes decode to a
//! message or a frame error, never a panic or an allocation past LIM-W1
//! (REQ-SEC-023). Run: `cargo fuzz run frame_decode` (see fuzz/README.md).
#![no_main]

use libfuzzer_sys::fuzz_target;
use rypsok_proto::{
    FromWorker, NetRequest, NetResponse, ParseRequest, ParseResponse, ToWorker, decode_frame,
};

fuzz_target!(|data: &[u8]| {
    let _ = decode_frame::<FromWorker<NetResponse>>(data);
    let _ = decode_frame::<FromWorker<ParseResponse>>(data);
    let _ = decode_frame::<ToWorker<NetRequest>>(data);
    let _ = decode_frame::<ToWorker<ParseRequest>>(data);
});
