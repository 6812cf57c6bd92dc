//! The character classes, runs and confirmations (CRC-32 in base62,
//! base64, an entropy floor) the format matchers share, and the reading of
//! full-width characters (invisible ones are `crate::invisible`'s).

/// Full-width ASCII (U+FF01..U+FF5E) as ASCII.
pub(super) fn fold_width(c: char) -> char {
    match c {
        '\u{FF01}'..='\u{FF5E}' => char::from_u32(c as u32 - 0xFEE0).unwrap_or(c),
        _ => c,
    }
}

// ---- character classes ----

pub(super) fn is_alnum(c: char) -> bool {
    c.is_ascii_alphanumeric()
}

pub(super) fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

pub(super) fn is_token(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

pub(super) fn is_hex_lower(c: char) -> bool {
    c.is_ascii_digit() || ('a'..='f').contains(&c)
}

pub(super) fn is_digit(c: char) -> bool {
    c.is_ascii_digit()
}

pub(super) fn is_base32_upper(c: char) -> bool {
    c.is_ascii_uppercase() || ('2'..='7').contains(&c)
}

pub(super) fn is_base36_lower(c: char) -> bool {
    c.is_ascii_digit() || c.is_ascii_lowercase()
}

pub(super) fn is_base64(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '+' || c == '/'
}

pub(super) fn is_azure_secret(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '~' | '.' | '-')
}

// ---- scanning helpers ----

/// Whether `lit` is at `s[i..]`.
pub(super) fn has(s: &[char], i: usize, lit: &str) -> bool {
    (i..).zip(lit.chars()).all(|(j, c)| s.get(j) == Some(&c))
}

/// Like [`has`], ignoring ASCII case.
pub(super) fn has_ignore_case(s: &[char], i: usize, lit: &str) -> bool {
    (i..)
        .zip(lit.chars())
        .all(|(j, c)| s.get(j).is_some_and(|d| d.eq_ignore_ascii_case(&c)))
}

/// The end of the run of `class` characters starting at `i`.
pub(super) fn run(s: &[char], i: usize, class: fn(char) -> bool) -> usize {
    let mut j = i;
    while j < s.len() && class(s[j]) {
        j += 1;
    }
    j
}

/// Whether the character before `i` cannot continue a token of `class`.
pub(super) fn starts_token(s: &[char], i: usize, class: fn(char) -> bool) -> bool {
    i == 0 || !class(s[i - 1])
}

/// Whether the character at `i` cannot continue a token of `class`.
pub(super) fn ends_token(s: &[char], i: usize, class: fn(char) -> bool) -> bool {
    s.get(i).is_none_or(|&c| !class(c))
}

/// Exactly `n` characters of `class` at `i`, followed by a boundary of
/// `boundary`: the end index.
pub(super) fn exactly(
    s: &[char],
    i: usize,
    n: usize,
    class: fn(char) -> bool,
    boundary: fn(char) -> bool,
) -> Option<usize> {
    let end = run(s, i, class);
    (end - i >= n && ends_token(s, i + n, boundary)).then_some(i + n)
}

/// A placeholder (`xxxx`, `0000`, `1234…`) has few distinct characters;
/// a random secret has many.
pub(super) fn has_entropy(s: &[char]) -> bool {
    let mut seen: Vec<char> = s.to_vec();
    seen.sort_unstable();
    seen.dedup();
    seen.len() >= (s.len() / 3).clamp(2, 8)
}

pub(super) fn text(s: &[char]) -> String {
    s.iter().collect()
}

/// The last 6 of 36 base62 characters are the CRC-32 of the first 30, in
/// base62, left-padded with `0`.
pub(super) fn crc_confirms(body: &[char]) -> bool {
    let (entropy, check) = body.split_at(30);
    let entropy: String = entropy.iter().collect();
    base62_6(crc32(entropy.as_bytes())) == text(check)
}

pub(super) const BASE62: &[u8; 62] =
    b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

pub(super) fn base62_6(mut n: u32) -> String {
    let mut digits = [b'0'; 6];
    for d in digits.iter_mut().rev() {
        *d = BASE62[(n % 62) as usize];
        n /= 62;
    }
    digits.iter().map(|&b| char::from(b)).collect()
}

/// CRC-32 (IEEE 802.3, reflected, as zlib computes it).
pub(super) fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// The start of the run of `class` characters that ends at `end`.
pub(super) fn run_back(s: &[char], end: usize, class: fn(char) -> bool) -> usize {
    let mut j = end;
    while j > 0 && class(s[j - 1]) {
        j -= 1;
    }
    j
}

/// Decodes standard or URL-safe base64 without padding; `None` on a
/// character outside both alphabets or a length no encoding produces.
pub(super) fn base64_decode(chars: &[char]) -> Option<Vec<u8>> {
    if chars.len() % 4 == 1 {
        return None;
    }
    let value = |c: char| -> Option<u32> {
        Some(match c {
            'A'..='Z' => c as u32 - 'A' as u32,
            'a'..='z' => c as u32 - 'a' as u32 + 26,
            '0'..='9' => c as u32 - '0' as u32 + 52,
            '+' | '-' => 62,
            '/' | '_' => 63,
            _ => return None,
        })
    };
    let mut out = Vec::with_capacity(chars.len() * 3 / 4);
    for chunk in chars.chunks(4) {
        let mut n = 0u32;
        for (k, &c) in chunk.iter().enumerate() {
            n |= value(c)? << (18 - 6 * k);
        }
        let bytes = n.to_be_bytes();
        out.extend_from_slice(&bytes[1..chunk.len()]);
    }
    Some(out)
}
