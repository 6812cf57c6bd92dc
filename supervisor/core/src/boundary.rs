//! Content boundary for titles and snippets (design §9; REQ-CTX-004,
//! REQ-SEC-015, REQ-CTX-006, REQ-CTX-007).
//!
//! Two cleaners, chosen by where the text came from (RFC 019 D3):
//! [`clean_markup_text`] for raw provider text that still carries markup and
//! entities (the JSON engines), and [`clean_decoded_text`] for text a parser
//! already decoded, so that a title such as `std::vec::Vec<T> - Rust` comes
//! back as the page wrote it. Both end in the same steps: removal of
//! invisible and control characters (counted, for the `characters_removed`
//! notice), joiners kept only where they carry orthography, whitespace
//! collapsed, and a bound in Unicode scalar values with a truncation flag
//! (for the `*_truncated` notices).
//!
//! Text is normalised to NFC (after the invisible characters are gone, so
//! that a removal cannot leave a sequence that composes differently).
//! Everything here is a pure function of its input, and cleaning cleaned
//! text changes nothing.

#[cfg(test)]
mod tests;

use unicode_normalization::{IsNormalized, UnicodeNormalization as _};

/// Text after the boundary, with what the notices need to know.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Cleaned {
    /// Cleaned text, at most the bound in Unicode scalar values.
    pub(crate) text: String,
    /// The bound cut the text.
    pub(crate) truncated: bool,
    /// Invisible or control characters removed.
    pub(crate) removed: usize,
}

/// Appended to a cut text, inside the bound.
const ELLIPSIS: char = '\u{2026}';
/// A cut moves back to the last space within this many characters, so that
/// words stay whole unless one word is longer than that.
const WORD_CUT_WINDOW: usize = 20;
/// Longest tag the markup stripper looks for the end of. Provider markup is
/// short (`<span class="searchmatch">`, `<strong>`); the bound keeps a text
/// full of `<` linear in practice. Past it, the `<` is text.
const MAX_TAG_BYTES: usize = 512;

const ZWNJ: char = '\u{200C}';
const ZWJ: char = '\u{200D}';

/// Cleans raw provider text: markup removed (tags dropped, their text kept;
/// line breaks and block tags become a space), HTML entities decoded once,
/// then everything [`clean_decoded_text`] does.
pub(crate) fn clean_markup_text(raw: &str, max_chars: usize) -> Cleaned {
    let stripped = strip_markup(raw);
    // Decoding after stripping keeps `&lt;script&gt;` as the text
    // `<script>`: an entity never becomes markup.
    let decoded = html_escape::decode_html_entities(&stripped);
    clean_decoded_text(&decoded, max_chars)
}

/// Highlight tags some providers put around matched words in otherwise
/// plain text (SearXNG's `content`), compared without case.
const HIGHLIGHT_TAGS: [&str; 8] = [
    "<b>",
    "</b>",
    "<strong>",
    "</strong>",
    "<em>",
    "</em>",
    "<mark>",
    "</mark>",
];

/// Cleans plain text in which matched words may be wrapped in highlight
/// tags: those tags alone go (any other `<` is text, so `Option<T>` stays),
/// no entity is decoded, then everything [`clean_decoded_text`] does. The
/// tags are looked for after the invisible characters are gone, and the
/// output never holds one, so cleaning again changes nothing.
pub(crate) fn clean_highlighted_text(raw: &str, max_chars: usize) -> Cleaned {
    let first = clean_decoded_text(raw, usize::MAX);
    let mut out = String::with_capacity(first.text.len());
    for c in first.text.chars() {
        out.push(c);
        if c == '>'
            && let Some(tag) = HIGHLIGHT_TAGS.iter().find(|tag| {
                out.len()
                    .checked_sub(tag.len())
                    .and_then(|start| out.get(start..))
                    .is_some_and(|end| end.eq_ignore_ascii_case(tag))
            })
        {
            out.truncate(out.len() - tag.len());
        }
    }
    let mut cleaned = clean_decoded_text(&out, max_chars);
    cleaned.removed += first.removed;
    cleaned
}

/// Cleans text that carries no markup: invisible and control characters
/// removed and counted, joiners kept only where they carry orthography,
/// whitespace collapsed to single spaces and trimmed, then bounded to
/// `max_chars` Unicode scalar values (an ellipsis, inside the bound, marks
/// a cut).
pub(crate) fn clean_decoded_text(text: &str, max_chars: usize) -> Cleaned {
    let (visible, mut removed) = remove_invisible(text);
    // As in `clean_document_text`: text the quick check finds in NFC
    // already is left as it is.
    let visible: Vec<char> =
        if unicode_normalization::is_nfc_quick(visible.iter().copied()) == IsNormalized::Yes {
            visible
        } else {
            visible.into_iter().nfc().collect()
        };
    let (mut joined, dropped_joiners) = settle_joiners(&visible);
    removed += dropped_joiners;
    if dropped_joiners > 0 {
        // A joiner blocks composition: once dropped, a letter and its
        // accent it stood between compose (cleaning stays idempotent).
        joined = joined.into_iter().nfc().collect();
    }
    let collapsed = collapse_whitespace(&joined);
    let (text, truncated) = bound(collapsed, max_chars);
    Cleaned {
        text,
        truncated,
        removed,
    }
}

/// Cleans a document's decoded text (a fetched page's Markdown): invisible
/// and control characters removed and counted, joiners kept only where they
/// carry orthography, NFC, like [`clean_decoded_text`], but the layout
/// stays: line ends become `\n`, tabs stay, other whitespace becomes a
/// space, nothing is collapsed and nothing is cut (the caller windows the
/// text). Cleaning cleaned text changes nothing.
pub(crate) fn clean_document_text(text: &str) -> Cleaned {
    // Most pages are printable ASCII with line ends and tabs, which this
    // cleaning leaves as they are: a 5 MiB page then costs one scan.
    if text
        .bytes()
        .all(|b| matches!(b, b'\n' | b'\t' | 0x20..=0x7E))
    {
        return Cleaned {
            text: text.to_owned(),
            truncated: false,
            removed: 0,
        };
    }
    let mut kept = String::with_capacity(text.len());
    let mut removed = 0;
    let mut has_joiner = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            // CR LF is one line end; a lone CR is one too.
            '\r' if chars.peek() == Some(&'\n') => {}
            '\r' | '\u{0B}' | '\u{0C}' | '\u{85}' | '\u{2028}' | '\u{2029}' => kept.push('\n'),
            '\n' | '\t' => kept.push(c),
            _ => match classify(c) {
                CharClass::Keep => kept.push(c),
                CharClass::Joiner => {
                    has_joiner = true;
                    kept.push(c);
                }
                CharClass::Space => kept.push(' '),
                CharClass::Remove => removed += 1,
            },
        }
    }
    // Normalising text that is already NFC changes nothing: skip it when
    // the quick check can tell.
    if unicode_normalization::is_nfc_quick(kept.chars()) != IsNormalized::Yes {
        kept = kept.nfc().collect();
    }
    if has_joiner {
        let chars: Vec<char> = kept.chars().collect();
        let (joined, dropped_joiners) = settle_joiners(&chars);
        removed += dropped_joiners;
        kept = if dropped_joiners > 0 {
            // As in `clean_decoded_text`: compose what the joiner kept apart.
            joined.into_iter().nfc().collect()
        } else {
            joined.into_iter().collect()
        };
    }
    Cleaned {
        text: kept,
        truncated: false,
        removed,
    }
}

/// What the boundary does with one character.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CharClass {
    Keep,
    Space,
    Joiner,
    Remove,
}

fn classify(c: char) -> CharClass {
    if c == ZWNJ || c == ZWJ {
        CharClass::Joiner
    } else if c.is_whitespace() {
        // Tab, line feed, carriage return, NEL, no-break and the other
        // Unicode spaces: rendered as space, so collapsed rather than
        // counted as removed.
        CharClass::Space
    } else if c.is_control() || is_invisible_format(c) {
        CharClass::Remove
    } else {
        CharClass::Keep
    }
}

/// Format characters that render as nothing and can hide or reorder text
/// (REQ-SEC-015). Variation selectors and private-use characters are kept:
/// they change how a visible character looks, not what is read.
fn is_invisible_format(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'                   // soft hyphen
        | '\u{061C}'                 // Arabic letter mark (a bidi control)
        | '\u{200B}'                 // zero-width space
        | '\u{200E}' | '\u{200F}'    // left-to-right and right-to-left marks
        | '\u{202A}'..='\u{202E}'    // bidi embeddings and overrides
        | '\u{2060}'..='\u{2064}'    // word joiner, invisible operators
        | '\u{2066}'..='\u{2069}'    // bidi isolates
        | '\u{206A}'..='\u{206F}'    // deprecated format characters
        | '\u{3164}' | '\u{FFA0}'    // Hangul fillers: blank, no use in modern text
        | '\u{FEFF}'                 // byte order mark, zero-width no-break space
        | '\u{FFF9}'..='\u{FFFB}'    // interlinear annotation: hides text
        | '\u{1D173}'..='\u{1D17A}'  // musical format characters
        | '\u{E0000}'..='\u{E007F}'  // tag characters
    )
}

/// Drops invisible and control characters and turns every whitespace
/// character into a plain space. Returns the characters and the count
/// dropped.
fn remove_invisible(text: &str) -> (Vec<char>, usize) {
    let mut kept = Vec::with_capacity(text.len());
    let mut removed = 0;
    for c in text.chars() {
        match classify(c) {
            CharClass::Keep | CharClass::Joiner => kept.push(c),
            CharClass::Space => kept.push(' '),
            CharClass::Remove => removed += 1,
        }
    }
    (kept, removed)
}

/// Keeps a ZWNJ or ZWJ only between two characters of a script that uses
/// it, and a ZWJ also inside an emoji sequence; drops and counts the rest.
///
/// The left neighbour is the last character kept, the right one the next
/// character of the input, so of a run of joiners at most the last survives
/// and every joiner kept still sits between the same two characters in the
/// output: cleaning again keeps it again.
fn settle_joiners(chars: &[char]) -> (Vec<char>, usize) {
    let mut out: Vec<char> = Vec::with_capacity(chars.len());
    let mut removed = 0;
    for (i, &c) in chars.iter().enumerate() {
        let is_joiner = classify(c) == CharClass::Joiner;
        if !is_joiner || joiner_carries_orthography(c, &out, chars.get(i + 1).copied()) {
            out.push(c);
        } else {
            removed += 1;
        }
    }
    (out, removed)
}

fn joiner_carries_orthography(joiner: char, before: &[char], next: Option<char>) -> bool {
    let (Some(&prev), Some(next)) = (before.last(), next) else {
        return false;
    };
    if uses_joiners(prev) && uses_joiners(next) {
        return true;
    }
    // An emoji before a ZWJ may carry a variation selector (U+FE0F in
    // 🏳️‍🌈); the pictograph is the one before it.
    let base = before
        .iter()
        .rev()
        .find(|&&c| !is_variation_selector(c))
        .copied();
    joiner == ZWJ && is_pictographic(next) && base.is_some_and(is_pictographic)
}

/// Scripts whose orthography uses ZWNJ and ZWJ: the Arabic family (Persian
/// ZWNJ inside words), Syriac, N'Ko, Mandaic, the Indic scripts (half forms
/// and conjuncts), Myanmar, Mongolian, Phags-pa and Hanifi Rohingya. Judged
/// by block, without a script table.
fn uses_joiners(c: char) -> bool {
    matches!(
        c,
        '\u{0600}'..='\u{08FF}'      // Arabic, Syriac, Thaana, N'Ko, Samaritan, Mandaic, Arabic extensions
        | '\u{0900}'..='\u{0DFF}'    // Devanagari to Sinhala
        | '\u{1000}'..='\u{109F}'    // Myanmar
        | '\u{1800}'..='\u{18AF}'    // Mongolian
        | '\u{1CD0}'..='\u{1CFF}'    // Vedic extensions
        | '\u{A840}'..='\u{A87F}'    // Phags-pa
        | '\u{A8E0}'..='\u{A8FF}'    // Devanagari extended
        | '\u{FB50}'..='\u{FDFF}'    // Arabic presentation forms A
        | '\u{FE70}'..='\u{FEFE}'    // Arabic presentation forms B (not U+FEFF)
        | '\u{10D00}'..='\u{10D3F}'  // Hanifi Rohingya
    )
}

/// An approximation of Unicode's Extended_Pictographic property, enough to
/// recognise the characters emoji ZWJ sequences join.
fn is_pictographic(c: char) -> bool {
    matches!(
        c,
        '\u{00A9}'
            | '\u{00AE}'
            | '\u{203C}'
            | '\u{2049}'
            | '\u{2122}'
            | '\u{2139}'
            | '\u{2194}'..='\u{21FF}'
            | '\u{2300}'..='\u{23FF}'
            | '\u{24C2}'
            | '\u{25A0}'..='\u{25FF}'
            | '\u{2600}'..='\u{27BF}'
            | '\u{2934}'..='\u{2935}'
            | '\u{2B00}'..='\u{2BFF}'
            | '\u{3030}'
            | '\u{303D}'
            | '\u{3297}'
            | '\u{3299}'
            | '\u{1F000}'..='\u{1FAFF}'
            | '\u{1FC00}'..='\u{1FFFD}'
    )
}

fn is_variation_selector(c: char) -> bool {
    matches!(c, '\u{FE00}'..='\u{FE0F}' | '\u{E0100}'..='\u{E01EF}')
}

/// One space for each run of spaces; none at either end.
fn collapse_whitespace(chars: &[char]) -> String {
    let mut out = String::with_capacity(chars.len());
    let mut pending_space = false;
    for &c in chars {
        if c == ' ' {
            pending_space = !out.is_empty();
        } else {
            if pending_space {
                out.push(' ');
                pending_space = false;
            }
            out.push(c);
        }
    }
    out
}

/// Bounds collapsed text to `max_chars` Unicode scalar values. A cut keeps
/// words whole when a space lies within [`WORD_CUT_WINDOW`] characters of
/// it, drops a trailing joiner (it would join nothing), and appends an
/// ellipsis inside the bound.
fn bound(text: String, max_chars: usize) -> (String, bool) {
    if text.chars().count() <= max_chars {
        return (text, false);
    }
    let Some(room) = max_chars.checked_sub(1) else {
        return (String::new(), true);
    };
    // The character just after the kept part counts too: a space there means
    // the cut already falls between words.
    let head: Vec<char> = text.chars().take(room + 1).collect();
    let window_start = room.saturating_sub(WORD_CUT_WINDOW);
    let end = head[window_start..]
        .iter()
        .rposition(|&c| c == ' ')
        .map_or(room, |pos| window_start + pos);
    let mut kept = &head[..end];
    while let Some((&last, rest)) = kept.split_last() {
        if last == ' ' || classify(last) == CharClass::Joiner {
            kept = rest;
        } else {
            break;
        }
    }
    let mut out: String = kept.iter().collect();
    out.push(ELLIPSIS);
    (out, true)
}

/// Removes markup: tags, comments, declarations and processing
/// instructions. A `<` that does not open well-formed markup is text.
fn strip_markup(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    // Past the last `>` nothing can close; this keeps text full of `<`
    // from being scanned again and again.
    let last_gt = raw.rfind('>');
    // Likewise for comments: once no `-->` follows a `<!--`, none follows a
    // later one.
    let mut comment_close_absent = false;
    let mut copied_to = 0;
    let mut search_from = 0;
    while let Some(offset) = raw[search_from..].find('<') {
        let lt = search_from + offset;
        if last_gt.is_none_or(|gt| gt < lt) {
            break;
        }
        match markup_at(raw, lt, &mut comment_close_absent) {
            Some(markup) => {
                out.push_str(&raw[copied_to..lt]);
                if markup.is_break {
                    out.push(' ');
                }
                copied_to = markup.end;
                search_from = markup.end;
            }
            None => search_from = lt + 1,
        }
    }
    let end = cut_tag_start(raw, copied_to, last_gt).unwrap_or(raw.len());
    out.push_str(&raw[copied_to..end]);
    out
}

/// Where a tag cut short by the end of the text begins: a `<` and the
/// first letters of a tag name (attributes perhaps begun), with no `>`
/// after it. Provider text escapes a `<` that is text (`&lt;`), so this is
/// markup a provider's own cut left behind, and it goes like a whole tag.
/// Only the last `MAX_TAG_BYTES` are looked at, as for whole tags.
fn cut_tag_start(raw: &str, from: usize, last_gt: Option<usize>) -> Option<usize> {
    let bytes = raw.as_bytes();
    let start = from
        .max(last_gt.map_or(0, |gt| gt + 1))
        .max(bytes.len().saturating_sub(MAX_TAG_BYTES));
    (start..bytes.len()).find(|&i| {
        bytes[i] == b'<'
            && match bytes.get(i + 1) {
                Some(b'/') => bytes.get(i + 2).is_none_or(u8::is_ascii_alphabetic),
                Some(b) => b.is_ascii_alphabetic(),
                None => false,
            }
    })
}

/// A piece of markup found at a `<`.
#[derive(Debug, Clone, Copy)]
struct Markup {
    /// Byte index just past its `>`.
    end: usize,
    /// It separates words as rendered (`<br>`, block elements).
    is_break: bool,
}

/// Recognises markup starting at byte `lt` (a `<`).
fn markup_at(raw: &str, lt: usize, comment_close_absent: &mut bool) -> Option<Markup> {
    let bytes = raw.as_bytes();
    let after = lt + 1;
    if raw[after..].starts_with("!--") {
        if *comment_close_absent {
            return None;
        }
        let body = after + 3;
        let Some(close) = raw[body..].find("-->") else {
            *comment_close_absent = true;
            return None;
        };
        return Some(Markup {
            end: body + close + 3,
            is_break: false,
        });
    }
    match bytes.get(after).copied()? {
        b'!' | b'?' => {
            let limit = bytes.len().min(lt + MAX_TAG_BYTES);
            let gt = bytes[after..limit].iter().position(|&b| b == b'>')?;
            Some(Markup {
                end: after + gt + 1,
                is_break: false,
            })
        }
        b'/' if bytes.get(after + 1).is_some_and(u8::is_ascii_alphabetic) => {
            tag_at(bytes, lt, after + 1)
        }
        b if b.is_ascii_alphabetic() => tag_at(bytes, lt, after),
        _ => None,
    }
}

/// A start or end tag whose name begins at `name_start`; its end is the
/// first `>` outside a quoted attribute value.
fn tag_at(bytes: &[u8], lt: usize, name_start: usize) -> Option<Markup> {
    let name_len = bytes[name_start..]
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric())
        .count();
    let name = &bytes[name_start..name_start + name_len];
    let limit = bytes.len().min(lt + MAX_TAG_BYTES);
    let mut quote: Option<u8> = None;
    let mut after_equals = false;
    for (i, &b) in bytes
        .iter()
        .enumerate()
        .take(limit)
        .skip(name_start + name_len)
    {
        match quote {
            Some(q) => {
                if b == q {
                    quote = None;
                }
            }
            None => match b {
                b'>' => {
                    return Some(Markup {
                        end: i + 1,
                        is_break: is_break_tag(name),
                    });
                }
                b'=' => after_equals = true,
                b'"' | b'\'' if after_equals => {
                    quote = Some(b);
                    after_equals = false;
                }
                b' ' | b'\t' | b'\n' | b'\r' | 0x0C => {}
                _ => after_equals = false,
            },
        }
    }
    None
}

/// Elements a browser renders as a line or block break.
fn is_break_tag(name: &[u8]) -> bool {
    const BREAKS: &[&[u8]] = &[
        b"address",
        b"article",
        b"aside",
        b"blockquote",
        b"br",
        b"caption",
        b"dd",
        b"div",
        b"dl",
        b"dt",
        b"figcaption",
        b"figure",
        b"footer",
        b"h1",
        b"h2",
        b"h3",
        b"h4",
        b"h5",
        b"h6",
        b"header",
        b"hr",
        b"li",
        b"main",
        b"nav",
        b"ol",
        b"p",
        b"pre",
        b"section",
        b"table",
        b"tbody",
        b"td",
        b"tfoot",
        b"th",
        b"thead",
        b"tr",
        b"ul",
    ];
    BREAKS.iter().any(|tag| tag.eq_ignore_ascii_case(name))
}
