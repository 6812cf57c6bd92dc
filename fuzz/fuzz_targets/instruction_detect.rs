//! The instruction-like detector (REQ-SEC-023, REQ-SEC-003). Invariants:
//! the verdict is deterministic, and the same when zero-width spaces are
//! slipped in after letters and digits (the detector reads through
//! invisible characters); it stays linear enough for the fuzzer's timeout
//! on any text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rypsok_core::fuzzing::is_instruction_like;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let verdict = is_instruction_like(&text);
    assert_eq!(verdict, is_instruction_like(&text));
    let spaced: String = text
        .chars()
        .flat_map(|c| {
            let zwsp = c.is_alphanumeric().then_some('\u{200B}');
            std::iter::once(c).chain(zwsp)
        })
        .collect();
    assert_eq!(verdict, is_instruction_like(&spaced), "{text:?}");
});
