//! Character references that survive the parser's decoding, decoded once
//! more where a reader sees text (REQ-PAGE-002): in the rendered content
//! and in the document's title.
//!
//! A leaf below the tree (`dom`, whose title is read this way) and the
//! renderer (`markdown`, which reads the tree): the tree need not import
//! its renderer for it.

use std::borrow::Cow;

/// Character references left in text the parser has already decoded: a
/// source that escaped its text twice (`&amp;mdash;`, from a title or a
/// body run through an escaping step too many) shows them to the reader
/// as `&mdash;`, and no page means them so outside code. They are decoded
/// here, once more and only once (the result is not scanned again):
/// `&lt;` and `&gt;` stay, because a page about markup writes them in
/// prose too, and so does a reference to a character the reader cannot
/// be shown (NUL, a control character, beyond Unicode). Only complete
/// references (with their `;`) are read.
pub(crate) fn decode_leftover(t: &str) -> Cow<'_, str> {
    let Some(first) = memchr::memchr(b'&', t.as_bytes()) else {
        return Cow::Borrowed(t);
    };
    let mut out = String::with_capacity(t.len());
    out.push_str(&t[..first]);
    let mut rest = &t[first..];
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        match reference(rest) {
            Some((len, chars)) => {
                out.extend(chars.into_iter().flatten());
                rest = &rest[len..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// The character reference at the start of `s` (which starts with `&`):
/// its length in bytes and the one or two characters it stands for.
fn reference(s: &str) -> Option<(usize, [Option<char>; 2])> {
    let end = s.as_bytes().iter().take(34).position(|&b| b == b';')?;
    let body = &s[1..end];
    let shown = |c: char| !c.is_control() && c != '<' && c != '>';
    if let Some(num) = body.strip_prefix('#') {
        let code = match num.strip_prefix(['x', 'X']) {
            Some(hex) if !hex.is_empty() && hex.len() <= 6 => u32::from_str_radix(hex, 16).ok()?,
            None if !num.is_empty()
                && num.len() <= 7
                && num.bytes().all(|b| b.is_ascii_digit()) =>
            {
                num.parse().ok()?
            }
            _ => return None,
        };
        let c = char::from_u32(code).filter(|&c| shown(c))?;
        return Some((end + 1, [Some(c), None]));
    }
    if body.is_empty() || !body.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return None;
    }
    let &(a, b) = html5ever::data::NAMED_ENTITIES.get(&s[1..=end])?;
    let a = char::from_u32(a).filter(|&c| shown(c))?;
    let b = if b == 0 {
        None
    } else {
        Some(char::from_u32(b)?)
    };
    Some((end + 1, [Some(a), b]))
}
