//! The forms a receiver may decode a text to (REQ-PRIV-002): a site
//! percent-decodes a URL's path and query, often more than once, and reads
//! `+` in a query as a space; an engine does the same with a query it puts
//! in its own URL. A credential written `%41KIA…` or with one character
//! encoded reaches the receiver whole, so the check reads every such form.
//!
//! Each decoded character remembers the span of the original text it came
//! from (`%5F` is three characters), so that a finding in a decoded form is
//! reported, and masked, over what the caller wrote.

use super::{Finding, find};

/// Decoding rounds after the first: a site that decodes twice is common,
/// three times rare; the bound keeps `%252525…` from costing more.
const MAX_ROUNDS: usize = 4;

/// A character of a decoded form and the span of the original text, in
/// Unicode scalar values, that it came from.
type Traced = Vec<((usize, usize), char)>;

/// Every credential in `text` and in the forms a receiver may decode it to
/// (percent-decoded, repeatedly while that changes it, with `+` kept and
/// with `+` read as a space), in order of position in `text`, without
/// overlaps: findings that overlap across forms are merged into one span,
/// under the kind found first.
pub(crate) fn find_decoded(text: &str) -> Vec<Finding> {
    let mut all = find(text);
    if text.contains(['%', '+']) {
        let original: Traced = text
            .chars()
            .enumerate()
            .map(|(i, c)| ((i, i + 1), c))
            .collect();
        for plus_as_space in [false, true] {
            let mut form = original.clone();
            for _ in 0..MAX_ROUNDS {
                let next = decode_once(&form, plus_as_space);
                if next.iter().map(|t| t.1).eq(form.iter().map(|t| t.1)) {
                    break;
                }
                form = next;
                all.extend(findings_in(&form));
            }
        }
    }
    merge(all)
}

/// The findings of one decoded form, placed over the original text.
fn findings_in(form: &Traced) -> Vec<Finding> {
    let decoded: String = form.iter().map(|t| t.1).collect();
    find(&decoded)
        .into_iter()
        .map(|f| {
            let start = form[f.position].0.0;
            let end = form[f.position + f.len - 1].0.1;
            Finding {
                kind: f.kind,
                position: start,
                len: end - start,
            }
        })
        .collect()
}

/// Sorted by position, overlapping findings joined.
fn merge(mut all: Vec<Finding>) -> Vec<Finding> {
    all.sort_by_key(|f| (f.position, std::cmp::Reverse(f.len)));
    let mut out: Vec<Finding> = Vec::with_capacity(all.len());
    for f in all {
        match out.last_mut() {
            Some(last) if f.position < last.position + last.len => {
                let end = (last.position + last.len).max(f.position + f.len);
                last.len = end - last.position;
            }
            _ => out.push(f),
        }
    }
    out
}

/// One round of percent-decoding (`%` and two hex digits is one byte;
/// anything else stays), optionally `+` as a space. Bytes that do not form
/// UTF-8 become U+FFFD, one per byte, as a lenient receiver reads them.
fn decode_once(form: &Traced, plus_as_space: bool) -> Traced {
    let mut bytes: Vec<((usize, usize), u8)> = Vec::with_capacity(form.len());
    let mut i = 0;
    while i < form.len() {
        let (span, c) = form[i];
        if c == '%'
            && let (Some(hi), Some(lo)) = (hex(form.get(i + 1)), hex(form.get(i + 2)))
        {
            bytes.push(((span.0, form[i + 2].0.1), hi << 4 | lo));
            i += 3;
            continue;
        }
        if plus_as_space && c == '+' {
            bytes.push((span, b' '));
        } else {
            let mut buf = [0_u8; 4];
            for &b in c.encode_utf8(&mut buf).as_bytes() {
                bytes.push((span, b));
            }
        }
        i += 1;
    }
    let mut out: Traced = Vec::with_capacity(bytes.len());
    let mut j = 0;
    while j < bytes.len() {
        let width = match bytes[j].1 {
            0x00..=0x7F => 1,
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF7 => 4,
            _ => 0,
        };
        let raw: Vec<u8> = bytes[j..bytes.len().min(j + width)]
            .iter()
            .map(|b| b.1)
            .collect();
        match std::str::from_utf8(&raw)
            .ok()
            .and_then(|s| s.chars().next())
        {
            Some(c) if width > 0 && raw.len() == width => {
                out.push(((bytes[j].0.0, bytes[j + width - 1].0.1), c));
                j += width;
            }
            _ => {
                out.push((bytes[j].0, char::REPLACEMENT_CHARACTER));
                j += 1;
            }
        }
    }
    out
}

fn hex(t: Option<&((usize, usize), char)>) -> Option<u8> {
    t.and_then(|t| t.1.to_digit(16))
        .and_then(|d| u8::try_from(d).ok())
}
