//! Frames from a worker that may have been taken over: any bytes decode to a
//! message or a frame error, never a panic or an allocation past LIM-W1
//! (REQ-SEC-023), in both directions. The input is tried as a whole frame
//! and, so that the fuzzer reaches the decoder, as a body behind a correct
//! length prefix. A decoded message encodes and decodes back to itself.
#![no_main]

use std::fmt::Debug;

use libfuzzer_sys::fuzz_target;
use rypsok_proto::limits::FRAME_MAX_BYTES;
use rypsok_proto::{
    FrameError, FromWorker, NetRequest, NetResponse, ParseRequest, ParseResponse, ToWorker,
    decode_frame,
};
use serde::Serialize;
use serde::de::DeserializeOwned;

fn check<T: DeserializeOwned + Serialize + Debug>(frame: &[u8]) {
    match decode_frame::<T>(frame) {
        Ok(msg) => {
            assert!(frame.len() - 4 <= FRAME_MAX_BYTES);
            let body = postcard::to_allocvec(&msg).expect("a decoded message encodes");
            let again: T = decode_frame(&framed(&body)).expect("an encoded message decodes");
            assert_eq!(format!("{msg:?}"), format!("{again:?}"));
        }
        Err(FrameError::TooLarge(n)) => assert!(n > FRAME_MAX_BYTES as u64),
        Err(FrameError::Closed) => assert!(frame.len() < 4),
        Err(FrameError::Undecodable) => {}
        Err(FrameError::Io(_)) => panic!("decoding in memory does no I/O"),
    }
}

fn framed(body: &[u8]) -> Vec<u8> {
    let mut frame = (body.len() as u32).to_le_bytes().to_vec();
    frame.extend_from_slice(body);
    frame
}

fn all(frame: &[u8]) {
    check::<FromWorker<NetResponse>>(frame);
    check::<FromWorker<ParseResponse>>(frame);
    check::<ToWorker<NetRequest>>(frame);
    check::<ToWorker<ParseRequest>>(frame);
}

fuzz_target!(|data: &[u8]| {
    all(data);
    all(&framed(data));
});
