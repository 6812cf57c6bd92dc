//! Hidden forms read before judging: Unicode tag characters as the ASCII
//! they spell, HTML entities, percent-encoding, and long base64 or hex runs
//! that decode to text. The same steps, in the same order, are in the
//! training script (`tests/bench/instruction_train.py`), so the model is
//! trained on what it is shown here.

use std::fmt;

/// Which hidden forms a text held, as a closed set for a log field (never
/// the text).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct DecodedForms(u8);

impl DecodedForms {
    pub(crate) const UNICODE_TAGS: Self = Self(1);
    pub(crate) const HTML_ENTITIES: Self = Self(1 << 1);
    pub(crate) const PERCENT: Self = Self(1 << 2);
    pub(crate) const BASE64: Self = Self(1 << 3);
    pub(crate) const HEX: Self = Self(1 << 4);

    const NAMES: [(Self, &'static str); 5] = [
        (Self::UNICODE_TAGS, "unicode_tags"),
        (Self::HTML_ENTITIES, "html_entities"),
        (Self::PERCENT, "percent"),
        (Self::BASE64, "base64"),
        (Self::HEX, "hex"),
    ];

    /// No form decoded.
    pub(crate) fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether every form of `other` is in `self`.
    pub(crate) fn contains(self, other: Self) -> bool {
        self.0 & other.0 == other.0
    }

    /// Both sets together.
    #[must_use]
    pub(crate) fn union(self, other: Self) -> Self {
        Self(self.0 | other.0)
    }

    fn insert(&mut self, other: Self) {
        self.0 |= other.0;
    }

    /// The names of the forms, from the fixed vocabulary `unicode_tags`,
    /// `html_entities`, `percent`, `base64`, `hex`.
    pub(crate) fn names(self) -> impl Iterator<Item = &'static str> {
        Self::NAMES
            .into_iter()
            .filter(move |(f, _)| self.contains(*f))
            .map(|(_, n)| n)
    }
}

/// The names joined by `+` (`none` for the empty set), for a log field.
impl fmt::Display for DecodedForms {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return f.write_str("none");
        }
        for (i, name) in self.names().enumerate() {
            if i > 0 {
                f.write_str("+")?;
            }
            f.write_str(name)?;
        }
        Ok(())
    }
}

/// The text with every hidden form decoded in place, the forms found, and
/// the ASCII spelled by tag characters alone (which is invisible when the
/// text is shown).
pub(super) struct Decoded {
    pub text: String,
    pub forms: DecodedForms,
    pub hidden_tag_text: String,
}

/// The ASCII character a tag character (U+E0020 to U+E007E) spells.
fn tag_ascii(c: char) -> Option<char> {
    let v = u32::from(c);
    (0xE0020..=0xE007E)
        .contains(&v)
        .then(|| char::from_u32(v - 0xE0000))
        .flatten()
}

pub(super) fn decode(text: &str) -> Decoded {
    let mut forms = DecodedForms::default();
    let mut hidden_tag_text = String::new();
    let mut out: String;
    // Tag characters are outside ASCII.
    if !text.is_ascii() && text.chars().any(|c| tag_ascii(c).is_some()) {
        forms.insert(DecodedForms::UNICODE_TAGS);
        out = String::with_capacity(text.len());
        for c in text.chars() {
            match tag_ascii(c) {
                Some(a) => {
                    out.push(a);
                    hidden_tag_text.push(a);
                }
                None => out.push(c),
            }
        }
    } else {
        out = text.to_owned();
    }
    if out.contains('&') && out.contains(';') {
        let un = html_escape::decode_html_entities(&out);
        if un != out {
            forms.insert(DecodedForms::HTML_ENTITIES);
            out = un.into_owned();
        }
    }
    if percent_escapes(&out) >= 2 {
        let un = percent_encoding::percent_decode_str(&out).decode_utf8_lossy();
        if un != out {
            forms.insert(DecodedForms::PERCENT);
            out = un.into_owned();
        }
    }
    if may_hold_base64_run(out.as_bytes())
        && let Some(s) = replace_runs(&out, base64_run, decode_base64)
    {
        forms.insert(DecodedForms::BASE64);
        out = s;
    }
    if may_hold_hex_run(out.as_bytes())
        && let Some(s) = replace_runs(&out, hex_run, decode_hex)
    {
        forms.insert(DecodedForms::HEX);
        out = s;
    }
    Decoded {
        text: out,
        forms,
        hidden_tag_text,
    }
}

fn percent_escapes(text: &str) -> usize {
    text.as_bytes()
        .windows(3)
        .filter(|w| w[0] == b'%' && w[1].is_ascii_hexdigit() && w[2].is_ascii_hexdigit())
        .count()
}

/// Replaces each run found by `run` (leftmost first, from a byte offset to
/// the run's end) whose decoding reads as text by ` decoded `; `None` when
/// nothing was replaced.
fn replace_runs(
    text: &str,
    run: fn(&[u8], usize) -> Option<usize>,
    decode: fn(&str) -> Option<String>,
) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = String::new();
    let mut copied = 0;
    let mut i = 0;
    let mut changed = false;
    while i < bytes.len() {
        if let Some(end) = run(bytes, i) {
            if let Some(s) = decode(&text[i..end]) {
                out.push_str(&text[copied..i]);
                out.push(' ');
                out.push_str(&s);
                out.push(' ');
                copied = end;
                changed = true;
            }
            // A run that does not read as text is passed whole: no start
            // inside it is tried again.
            i = end;
            continue;
        }
        // Runs are ASCII: a start inside a multi-byte character is never a
        // run, so stepping one byte keeps `i` on a boundary when a run
        // starts.
        i += 1;
    }
    if !changed {
        return None;
    }
    out.push_str(&text[copied..]);
    Some(out)
}

fn is_base64_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'_' | b'-')
}

/// Whether `bytes` has 24 base64 characters in a row, which every run of
/// [`base64_run`] starts with: one pass that spares most text the search
/// for runs from every byte.
fn may_hold_base64_run(bytes: &[u8]) -> bool {
    let mut run = 0;
    bytes.iter().any(|&b| {
        run = if is_base64_byte(b) { run + 1 } else { 0 };
        run >= 24
    })
}

/// Whether `bytes` has 24 hex digits with at most one space or colon
/// between any two, which every run of [`hex_run`] holds: one pass, as
/// [`may_hold_base64_run`].
fn may_hold_hex_run(bytes: &[u8]) -> bool {
    let (mut digits, mut after_separator) = (0, true);
    bytes.iter().any(|&b| {
        if b.is_ascii_hexdigit() {
            digits += 1;
            after_separator = false;
        } else if matches!(b, b' ' | b':') && !after_separator {
            after_separator = true;
        } else {
            (digits, after_separator) = (0, true);
        }
        digits >= 24
    })
}

/// A maximal run of at least 24 base64 characters starting at `at` (and
/// not continuing one that starts earlier), with up to two `=`.
fn base64_run(bytes: &[u8], at: usize) -> Option<usize> {
    if at > 0 && is_base64_byte(bytes[at - 1]) {
        return None;
    }
    let mut end = at;
    while end < bytes.len() && is_base64_byte(bytes[end]) {
        end += 1;
    }
    if end - at < 24 {
        return None;
    }
    let mut pad = 0;
    while pad < 2 && end < bytes.len() && bytes[end] == b'=' {
        end += 1;
        pad += 1;
    }
    Some(end)
}

/// At least twelve hex byte pairs from `at`, each followed by at most one
/// space or colon.
fn hex_run(bytes: &[u8], at: usize) -> Option<usize> {
    let mut end = at;
    let mut pairs = 0;
    while end + 1 < bytes.len()
        && bytes[end].is_ascii_hexdigit()
        && bytes[end + 1].is_ascii_hexdigit()
    {
        end += 2;
        pairs += 1;
        if end < bytes.len() && matches!(bytes[end], b' ' | b':') {
            end += 1;
        }
    }
    (pairs >= 12).then_some(end)
}

fn base64_value(b: u8) -> Option<u32> {
    Some(u32::from(match b {
        b'A'..=b'Z' => b - b'A',
        b'a'..=b'z' => b - b'a' + 26,
        b'0'..=b'9' => b - b'0' + 52,
        b'+' | b'-' => 62,
        b'/' | b'_' => 63,
        _ => return None,
    }))
}

fn decode_base64(run: &str) -> Option<String> {
    let body = run.trim_end_matches('=').as_bytes();
    if body.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(body.len() * 3 / 4);
    for chunk in body.chunks(4) {
        let mut acc = 0u32;
        for (k, &b) in chunk.iter().enumerate() {
            acc |= base64_value(b)? << (18 - 6 * k);
        }
        let [_, b0, b1, b2] = acc.to_be_bytes();
        out.push(b0);
        if chunk.len() > 2 {
            out.push(b1);
        }
        if chunk.len() > 3 {
            out.push(b2);
        }
    }
    texty(String::from_utf8(out).ok()?)
}

fn decode_hex(run: &str) -> Option<String> {
    let digits: Vec<u8> = run
        .bytes()
        .filter(u8::is_ascii_hexdigit)
        .map(|b| match b {
            b'0'..=b'9' => b - b'0',
            b'a'..=b'f' => b - b'a' + 10,
            _ => b - b'A' + 10,
        })
        .collect();
    let out: Vec<u8> = digits.chunks_exact(2).map(|p| p[0] << 4 | p[1]).collect();
    texty(String::from_utf8(out).ok()?)
}

/// Decoded bytes that read as text: at least eight characters, no control
/// character but line breaks and tabs, at least seven in ten letters or
/// spaces, and a space.
fn texty(s: String) -> Option<String> {
    let n = s.chars().count();
    if n < 8 || !s.contains(' ') {
        return None;
    }
    let good = s.chars().filter(|&c| c.is_alphabetic() || c == ' ').count();
    let bad = s
        .chars()
        .filter(|&c| (c < ' ' && c != '\n' && c != '\t') || c == '\u{FFFD}')
        .count();
    (bad == 0 && good * 10 >= n * 7).then_some(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Whether `run` finds a run from any byte of `text`.
    fn any_run(text: &str, run: fn(&[u8], usize) -> Option<usize>) -> bool {
        (0..text.len()).any(|at| run(text.as_bytes(), at).is_some())
    }

    // Verifies: REQ-SEC-003 (the one-pass checks only spare work: a text
    // they pass over holds no run the decoder would have read)
    #[test]
    fn the_quick_checks_pass_every_text_that_holds_a_run() {
        for text in [
            "key 49:67:6e:6f:72:65:20:61:6c:6c:20:70 end",
            "49 67 6e 6f 72 65 20 61 6c 6c 20 70",
            "SWdub3JlIGFsbCBwcmV2aW91cw==",
        ] {
            let (hex, base64) = (any_run(text, hex_run), any_run(text, base64_run));
            assert!(hex || base64, "{text}");
            assert!(!hex || may_hold_hex_run(text.as_bytes()), "{text}");
            assert!(!base64 || may_hold_base64_run(text.as_bytes()), "{text}");
        }
        // Two separators in a row end a run: 11 pairs after them are too few.
        assert!(!may_hold_hex_run(b"49  67 6e 6f 72 65 20 61 6c 6c 20 70"));
        assert!(may_hold_base64_run(b"SWdub3JlIGFsbCBwcmV2aW91cw=="));
        assert!(!may_hold_base64_run(b"a decade of facade bead"));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        // Verifies: REQ-SEC-003 (as above, on texts of hex digits, base64
        // characters and separators, where runs are common)
        #[test]
        fn a_text_the_quick_checks_pass_over_holds_no_run(
            text in proptest::collection::vec(
                prop_oneof![
                    8 => "[0-9a-f]{2}[ :]?",
                    1 => "[0-9a-fA-F][ :]{0,2}",
                    2 => "[g-zG-Z+/_-]{1,6}",
                    1 => "[=.]",
                ],
                0..40,
            )
            .prop_map(|parts| parts.concat())
        ) {
            if !may_hold_hex_run(text.as_bytes()) {
                prop_assert!(!any_run(&text, hex_run));
            }
            if !may_hold_base64_run(text.as_bytes()) {
                prop_assert!(!any_run(&text, base64_run));
            }
        }
    }
}
