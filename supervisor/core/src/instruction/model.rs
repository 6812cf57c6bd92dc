//! A logistic regression over hashed character 2- to 4-grams and words,
//! each bucket counted once whatever the number of occurrences (so a
//! repeated n-gram cannot grow the score), trained by `tests/bench/instruction_train.py` from the tuning half of the
//! development corpus, the tuning half of the page sets' sentences and the
//! phrases of `tests/bench/instruction_shapes.py`.
//!
//! The weights file (`model.bin`): the magic `RYIM`, then little-endian the
//! bucket bits (u32), the weight scale, the bias and the threshold (f32),
//! then one signed byte per bucket. The text transform and the features
//! here are the script's, step for step.

use std::sync::LazyLock;

const WEIGHTS: &[u8] = include_bytes!("model.bin");

/// Windows of this many characters, every half window, are scored
/// separately in a longer text, so that a short payload inside a long
/// document is not diluted by it.
const WINDOW: usize = 400;
const WHOLE_UP_TO: usize = 600;

const FNV32_BASIS: u32 = 0x811C_9DC5;
const FNV32_PRIME: u32 = 0x0100_0193;
const WORD_MARK: u8 = 0xFF;

pub(super) struct Model {
    mask: u32,
    scale: f64,
    bias: f64,
    pub(super) threshold: f64,
    weights: &'static [u8],
}

fn f32_at(bytes: &[u8], at: usize) -> f64 {
    let mut b = [0u8; 4];
    b.copy_from_slice(&bytes[at..at + 4]);
    f64::from(f32::from_le_bytes(b))
}

impl Model {
    fn parse(bytes: &'static [u8]) -> Self {
        assert_eq!(&bytes[..4], b"RYIM", "instruction model: bad magic");
        let mut b = [0u8; 4];
        b.copy_from_slice(&bytes[4..8]);
        let bits = u32::from_le_bytes(b);
        let weights = &bytes[20..];
        assert_eq!(weights.len(), 1usize << bits, "instruction model: size");
        Self {
            mask: (1u32 << bits) - 1,
            scale: f32_at(bytes, 8),
            bias: f32_at(bytes, 12),
            threshold: f32_at(bytes, 16),
            weights,
        }
    }

    /// The score of already normalized text (see [`normalize`]): the mean
    /// weight of the distinct buckets its features fall in, times the
    /// square root of their number. Each bucket counts once, so a text and
    /// the same text repeated score alike and repeated filler cannot grow
    /// a score.
    pub(super) fn score_normalized(&self, norm: &[char]) -> f64 {
        let buckets = feature_buckets(norm, self.mask);
        // One bit per bucket marks those already counted; only the bits
        // set here are cleared again, so a text costs its length, not the
        // table's.
        let (sum, count) = SEEN.with_borrow_mut(|seen| {
            seen.resize(self.weights.len().div_ceil(64), 0);
            let (mut sum, mut count) = (0i64, 0u32);
            for &j in &buckets {
                let (word, bit) = (j as usize / 64, 1u64 << (j % 64));
                if seen[word] & bit == 0 {
                    seen[word] |= bit;
                    sum += i64::from(self.weights[j as usize] as i8);
                    count += 1;
                }
            }
            for &j in &buckets {
                seen[j as usize / 64] = 0;
            }
            (sum, count)
        });
        if count == 0 {
            return self.bias;
        }
        self.bias + self.scale * sum as f64 / f64::from(count).sqrt()
    }

    /// The highest score of the text, whole when short, else of each
    /// window.
    pub(super) fn score(&self, text: &str) -> f64 {
        let norm = normalize(text);
        if norm.len() <= WHOLE_UP_TO {
            return self.score_normalized(&norm);
        }
        let mut best = f64::NEG_INFINITY;
        let mut start = 0;
        loop {
            let end = (start + WINDOW).min(norm.len());
            best = best.max(self.score_normalized(trim_spaces(&norm[start..end])));
            if end == norm.len() {
                return best;
            }
            start += WINDOW / 2;
        }
    }
}

/// The bucket of each character 2-, 3- and 4-gram of ` text ` and of each
/// word, one per occurrence.
fn feature_buckets(norm: &[char], mask: u32) -> Vec<u32> {
    let mut out = Vec::with_capacity(norm.len() * 4 + 8);
    let padded_len = norm.len() + 2;
    let at = |i: usize| -> char {
        if i == 0 || i == padded_len - 1 {
            ' '
        } else {
            norm[i - 1]
        }
    };
    // Each character's bytes once, for the four n-grams that read it.
    let encoded: Vec<([u8; 4], usize)> = (0..padded_len)
        .map(|i| {
            let mut buf = [0u8; 4];
            let len = at(i).encode_utf8(&mut buf).len();
            (buf, len)
        })
        .collect();
    let mut buf = [0u8; 4];
    for i in 0..padded_len - 1 {
        let mut h = FNV32_BASIS;
        for (k, (bytes, len)) in encoded[i..].iter().take(4).enumerate() {
            h = fnv32_feed(h, &bytes[..*len]);
            if k >= 1 {
                out.push(h & mask);
            }
        }
    }
    for word in norm.split(|&c| c == ' ').filter(|w| !w.is_empty()) {
        let mut h = fnv32_feed(FNV32_BASIS, &[WORD_MARK]);
        for &c in word {
            h = fnv32_feed(h, c.encode_utf8(&mut buf).as_bytes());
        }
        out.push(h & mask);
    }
    out
}

fn trim_spaces(chars: &[char]) -> &[char] {
    let start = chars.iter().position(|&c| c != ' ').unwrap_or(chars.len());
    let end = chars
        .iter()
        .rposition(|&c| c != ' ')
        .map_or(start, |e| e + 1);
    &chars[start..end]
}

thread_local! {
    /// The buckets already counted in the text being scored.
    static SEEN: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
}

pub(super) static MODEL: LazyLock<Model> = LazyLock::new(|| Model::parse(WEIGHTS));

/// The model's weights file, for the test that checks its recorded size
/// and hash.
#[cfg(test)]
pub(super) const WEIGHTS_FILE: &[u8] = WEIGHTS;

/// The invisible characters of [`normalize`], as the training script lists
/// them (so that the features stay the script's). `detect` has dropped
/// every character that renders as nothing, the tag characters aside,
/// before the model reads a text.
fn is_invisible(c: char) -> bool {
    // Every invisible character is outside ASCII.
    !c.is_ascii()
        && matches!(
            c,
            '\u{00AD}'
                | '\u{061C}'
                | '\u{180E}'
                | '\u{200B}'..='\u{200F}'
                | '\u{202A}'..='\u{202E}'
                | '\u{2060}'..='\u{2064}'
                | '\u{2066}'..='\u{206F}'
                | '\u{FEFF}'
                | '\u{E0000}'..='\u{E007F}'
        )
}

fn fnv32_feed(mut h: u32, data: &[u8]) -> u32 {
    for &b in data {
        h ^= u32::from(b);
        h = h.wrapping_mul(FNV32_PRIME);
    }
    h
}

/// Lower case, ASCII digits as `0`, invisible characters dropped, the two
/// characters `\n` and every run of whitespace as one space, no space at
/// either end.
pub(super) fn normalize(text: &str) -> Vec<char> {
    let mut out = Vec::with_capacity(text.len());
    let mut space = true;
    let mut chars = text.chars().peekable();
    while let Some(mut c) = chars.next() {
        if c == '\\' && chars.peek() == Some(&'n') {
            chars.next();
            c = ' ';
        }
        if is_invisible(c) {
            continue;
        }
        if c.is_whitespace() {
            if !space {
                out.push(' ');
            }
            space = true;
            continue;
        }
        space = false;
        if c.is_ascii_digit() {
            out.push('0');
        } else if c.is_ascii() {
            out.push(c.to_ascii_lowercase());
        } else {
            out.extend(c.to_lowercase());
        }
    }
    while out.last() == Some(&' ') {
        out.pop();
    }
    out
}
