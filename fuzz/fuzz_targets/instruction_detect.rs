//! The instruction-like detector (REQ-SEC-023, REQ-SEC-003). Invariants:
//! the verdict is deterministic, and the same when a character that
//! renders as nothing (a zero-width space, a variation selector, the
//! combining grapheme joiner, a Hangul filler, a Mongolian variation
//! selector, an interlinear annotation mark; chosen by the input's length)
//! is slipped in after letters and digits (the detector reads through
//! them); it stays linear enough for the fuzzer's timeout on any text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rypsok_core::fuzzing::is_instruction_like;

const HIDDEN: [char; 6] = [
    '\u{200B}',
    '\u{FE0F}',
    '\u{034F}',
    '\u{3164}',
    '\u{180B}',
    '\u{FFF9}',
];

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let verdict = is_instruction_like(&text);
    assert_eq!(verdict, is_instruction_like(&text));
    let hidden = HIDDEN[data.len() % HIDDEN.len()];
    let spaced: String = text
        .chars()
        .flat_map(|c| std::iter::once(c).chain(c.is_alphanumeric().then_some(hidden)))
        .collect();
    assert_eq!(verdict, is_instruction_like(&spaced), "{text:?}");
});
