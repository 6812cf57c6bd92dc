//! The instruction-like detector (design §9; REQ-SEC-003): whether an
//! external text reads like an instruction addressed to an AI reader.
//!
//! It is a signal for the `instruction_like_content` notice, not a gate, so
//! it is tuned for precision: benign text that uses the same trigger words
//! ("ignore the previous error message", "forget everything you know about
//! sourdough") stays quiet, and so does a sentence that reports an
//! injection by quoting it under a verb of saying or showing.
//!
//! Hidden forms are decoded first ([`decode`]): Unicode tag characters as
//! the ASCII they spell, HTML entities, percent-encoding, long base64 and
//! hex runs that decode to text; the decoded text is judged too, and the
//! forms found are returned for a log field. Then three judges, any of
//! which suffices:
//!
//! - word patterns that need a shape, not a word: an override verb *and* a
//!   reference to earlier instructions, a note *addressed to* a model, a
//!   fake conversation or a fake end of the tool's output followed by a new
//!   turn, a Markdown image whose address carries a template placeholder, a
//!   claim that the user granted the reader some authority;
//! - a small learned model ([`model`]), logistic regression over hashed
//!   character n-grams and words, which carries the shapes of the other
//!   languages (the twenty most used on the web) and of the classes the
//!   patterns do not name;
//! - words spelled invisibly in tag characters, which no honest page hides.
//!
//! The patterns read through invisible characters, with Cyrillic and Greek
//! look-alikes folded to Latin, digits of leetspeak read as letters in a
//! second pass, and letters spaced out one by one joined again. The figures
//! measured on the development corpus are in `tests/bench/instruction_eval.sh`
//! and the regression examples in this module's tests.

mod decode;
mod model;
mod patterns;

pub(crate) use decode::DecodedForms;
use patterns::*;

use crate::invisible::renders_as_nothing;

/// What the detector found in one text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Detection {
    /// Whether the text reads like an instruction to an AI reader.
    pub(crate) instruction_like: bool,
    /// The hidden forms decoded before judging (for a log field; the text
    /// itself is never logged).
    pub(crate) decoded: DecodedForms,
}

/// Whether `text` reads like an instruction to an AI reader.
pub(crate) fn is_instruction_like(text: &str) -> bool {
    detect(text).instruction_like
}

/// Judges `text` and its decoded forms. Pass the text before invisible
/// characters are removed, so that tag characters can be read.
pub(crate) fn detect(text: &str) -> Detection {
    // Invisible characters slipped between letters carry nothing a judge
    // reads and must not change the verdict (the fuzz target's invariant);
    // tag characters spell text, so they stay for the decoder.
    let visible = without_invisible_but_tags(text);
    let text = visible.as_ref();
    let decoded = decode::decode(text);
    let instruction_like = judge(text, &decoded);
    Detection {
        instruction_like,
        decoded: decoded.forms,
    }
}

/// `text` without the characters that render as nothing, other than tag
/// characters.
fn without_invisible_but_tags(text: &str) -> std::borrow::Cow<'_, str> {
    let dropped = |c: char| renders_as_nothing(c) && !('\u{E0000}'..='\u{E007F}').contains(&c);
    // None of them is ASCII, and most text is.
    if !text.is_ascii() && text.chars().any(dropped) {
        std::borrow::Cow::Owned(text.chars().filter(|&c| !dropped(c)).collect())
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

/// How each judge saw `text`: whether the hidden words or the patterns
/// matched, the model's score and its threshold. For the evaluation
/// command (choosing a threshold on the tuning half), through
/// `crate::measure`.
#[cfg(feature = "measure")]
pub(crate) fn explain(text: &str) -> (bool, f64, f64) {
    let decoded = decode::decode(text);
    let changed = !decoded.forms.is_empty();
    let rules = hidden_words(&decoded.hidden_tag_text)
        || patterns_match(text)
        || (changed && patterns_match(&decoded.text));
    let judged = mask_reported_quotes(&decoded.text);
    (rules, model::MODEL.score(&judged), model_threshold(&judged))
}

fn judge(text: &str, decoded: &decode::Decoded) -> bool {
    if hidden_words(&decoded.hidden_tag_text) {
        return true;
    }
    let masked = mask_reported_quotes(text);
    if patterns_match_masked(text, &masked) {
        return true;
    }
    // Nothing decoded: the decoded text is the text, already masked.
    let judged = if decoded.forms.is_empty() {
        masked
    } else {
        let masked = mask_reported_quotes(&decoded.text);
        if patterns_match_masked(&decoded.text, &masked) {
            return true;
        }
        masked
    };
    model::MODEL.score(&judged) >= model_threshold(&judged)
}

/// Texts of fewer words than this need the model's score above its
/// threshold by [`SHORT_MARGIN`]: the score is normalized by the square
/// root of the number of features, so in a short text a few n-grams ("your
/// response", "answer") weigh much; most of the tuning half's page-sentence
/// false positives were such short lines.
const SHORT_WORDS: usize = 12;
const SHORT_MARGIN: f64 = 1.3;

fn model_threshold(text: &str) -> f64 {
    if text.split_whitespace().nth(SHORT_WORDS - 1).is_none() {
        model::MODEL.threshold + SHORT_MARGIN
    } else {
        model::MODEL.threshold
    }
}

/// Tag characters that spell at least two words of letters: text hidden
/// from the human reader on purpose (an emoji flag's tag letters are one
/// short run without a space).
fn hidden_words(hidden: &str) -> bool {
    hidden
        .split(' ')
        .filter(|w| w.chars().filter(char::is_ascii_alphabetic).count() >= 2)
        .count()
        >= 2
}

#[cfg(feature = "measure")]
fn patterns_match(text: &str) -> bool {
    patterns_match_masked(text, &mask_reported_quotes(text))
}

/// Whether the patterns match `text`, given `masked`, the text's
/// [`mask_reported_quotes`].
fn patterns_match_masked(text: &str, masked: &str) -> bool {
    let plain = normalize(masked, false);
    if matches_any(&plain) {
        return true;
    }
    if !has_leet(text) {
        return false;
    }
    let leet = normalize(text, true);
    let leet = normalize(&mask_reported_quotes(&leet), false);
    leet != plain && matches_any(&leet)
}

/// A digit of leetspeak next to a letter (`1gn0r3`): only then is the
/// second, leet-reading pass worth its cost.
fn has_leet(text: &str) -> bool {
    let b = text.as_bytes();
    b.windows(2).any(|w| {
        let digit = |c: u8| matches!(c, b'0' | b'1' | b'3' | b'4' | b'5' | b'7');
        (digit(w[0]) && w[1].is_ascii_alphabetic()) || (w[0].is_ascii_alphabetic() && digit(w[1]))
    })
}

/// Words that, shortly before a quotation, make it reported speech: a verb
/// of saying or showing, or a noun naming what is quoted.
const REPORTING: &[&str] = &[
    "said",
    "says",
    "say",
    "saying",
    "wrote",
    "writes",
    "write",
    "written",
    "reads",
    "read",
    "reading",
    "typed",
    "type",
    "types",
    "contain",
    "contains",
    "contained",
    "containing",
    "include",
    "includes",
    "included",
    "including",
    "like",
    "as",
    "such",
    "phrase",
    "phrases",
    "message",
    "messages",
    "prompt",
    "prompts",
    "text",
    "example",
    "examples",
    "e.g",
    "eg",
    "called",
    "titled",
    "known",
    "claims",
    "claimed",
    "told",
    "tells",
    "asked",
    "asks",
    "shows",
    "showed",
    "shown",
    "show",
    "displayed",
    "displays",
    "quoted",
    "quote",
    "quotes",
    "words",
    "line",
    "lines",
    "string",
    "strings",
    "sentence",
    "sentences",
    "command",
    "commands",
    "payload",
    "payloads",
    "injection",
    "injections",
    "attack",
    "attacks",
    "instruction",
    "instructions",
    "inserted",
    "hidden",
    "embedded",
    "posted",
    "tweeted",
    "replied",
    "answered",
    "stating",
    "stated",
    "states",
    "reportedly",
    "dubbed",
    "labelled",
    "labeled",
    "sagte",
    "schrieb",
    "wie",
    "dit",
    "écrit",
    "comme",
    "dijo",
    "escribió",
    "como",
    "disse",
    "scrisse",
    "сказал",
    "написал",
    "как",
];

/// Pairs of quotation marks.
const QUOTES: &[(char, char)] = &[
    ('"', '"'),
    ('“', '”'),
    ('„', '“'),
    ('«', '»'),
    ('‘', '’'),
    ('「', '」'),
    ('『', '』'),
];

/// The text with the inside of each quotation that follows a reporting
/// word (within six words) blanked: a sentence that reports an injection by
/// quoting it is not an order. Text outside the quotation is judged as
/// usual, so an order after a quoted mention is still seen.
fn mask_reported_quotes(text: &str) -> std::borrow::Cow<'_, str> {
    if !text
        .chars()
        .any(|c| QUOTES.iter().any(|&(open, _)| open == c))
    {
        return std::borrow::Cow::Borrowed(text);
    }
    let chars: Vec<char> = text.chars().collect();
    // Copied only once a quotation is blanked.
    let mut out: Option<Vec<char>> = None;
    let mut i = 0;
    while i < chars.len() {
        let Some(&(_, close)) = QUOTES.iter().find(|(open, _)| *open == chars[i]) else {
            i += 1;
            continue;
        };
        let Some(len) = chars[i + 1..].iter().position(|&c| c == close) else {
            break;
        };
        let end = i + 1 + len;
        if reported_before(&chars[..i]) {
            let out = out.get_or_insert_with(|| chars.clone());
            for c in &mut out[i + 1..end] {
                *c = ' ';
            }
        }
        i = end + 1;
    }
    match out {
        Some(out) => std::borrow::Cow::Owned(out.into_iter().collect()),
        None => std::borrow::Cow::Borrowed(text),
    }
}

fn reported_before(before: &[char]) -> bool {
    let start = before.len().saturating_sub(80);
    let tail: String = before[start..].iter().collect::<String>().to_lowercase();
    tail.split(|c: char| !c.is_alphanumeric() && c != '.')
        .filter(|w| !w.is_empty())
        .rev()
        .take(6)
        .any(|w| REPORTING.contains(&w.trim_end_matches('.')))
}

/// Lower-cased text without the characters that render as nothing
/// (decoding can bring some back), look-alikes folded, the two characters
/// `\n` read as a line break, spaced-out letters joined; with `leet`, the
/// digits of leetspeak read as letters.
fn normalize(text: &str, leet: bool) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' && chars.peek() == Some(&'n') {
            chars.next();
            out.push('\n');
            continue;
        }
        if renders_as_nothing(c) {
            continue;
        }
        let c = if leet { unleet(c) } else { c };
        // ASCII, the most of most text, without `to_lowercase`'s iterator.
        if c.is_ascii() {
            out.push(c.to_ascii_lowercase());
        } else {
            out.extend(c.to_lowercase());
        }
    }
    // Both steps leave ASCII-only text without single-letter runs as it
    // is; most text is such, and is spared their copies.
    let out = if out.is_ascii() {
        out
    } else {
        fold_lookalikes(&out)
    };
    join_spaced_letters(out)
}

/// Folds look-alike letters in each word that also has a Latin letter, so
/// `іgnore` (with a Cyrillic і) reads as `ignore` while Russian words keep
/// their own letters.
fn fold_lookalikes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        if word.chars().any(|c| c.is_ascii_alphabetic()) {
            out.extend(word.chars().map(fold_lookalike));
        } else {
            out.push_str(word);
        }
        word.clear();
    };
    for c in text.chars() {
        if c.is_alphabetic() {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// Cyrillic and Greek letters that look like Latin ones, as Latin.
fn fold_lookalike(c: char) -> char {
    match c {
        'а' => 'a',
        'е' => 'e',
        'о' | 'ο' => 'o',
        'р' | 'ρ' => 'p',
        'с' => 'c',
        'у' => 'y',
        'х' => 'x',
        'і' => 'i',
        'І' | 'Ι' => 'I',
        'ј' => 'j',
        'ѕ' => 's',
        'А' | 'Α' => 'A',
        'Е' | 'Ε' => 'E',
        'О' | 'Ο' => 'O',
        'Р' | 'Ρ' => 'P',
        'С' => 'C',
        'Т' | 'Τ' => 'T',
        'Н' | 'Η' => 'H',
        'К' | 'Κ' => 'K',
        'М' | 'Μ' => 'M',
        'В' | 'Β' => 'B',
        other => other,
    }
}

fn unleet(c: char) -> char {
    match c {
        '0' => 'o',
        '1' => 'i',
        '3' => 'e',
        '4' => 'a',
        '5' => 's',
        '7' => 't',
        other => other,
    }
}

/// A part of a text between spaces that is one letter.
fn is_single_letter(part: &str) -> bool {
    let mut chars = part.chars();
    matches!((chars.next(), chars.next()), (Some(c), None) if c.is_alphabetic())
}

/// `i g n o r e   a l l` as `ignore all`: a run of at least three single
/// letters separated by single spaces is one word; wider gaps separate
/// words. Text without such a run (most text) is returned as it is.
fn join_spaced_letters(text: String) -> String {
    let mut run = 0;
    let has_run = text.split(' ').any(|part| {
        run = if is_single_letter(part) { run + 1 } else { 0 };
        run >= 3
    });
    if !has_run {
        return text;
    }
    let parts: Vec<&str> = text.split(' ').collect();
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < parts.len() {
        let mut j = i;
        while j < parts.len() && is_single_letter(parts[j]) {
            j += 1;
        }
        if j - i >= 3 {
            out.push(parts[i..j].concat());
            i = j;
        } else {
            out.push(parts[i].to_owned());
            i += 1;
        }
    }
    out.join(" ")
}

/// Words and the punctuation that patterns need, borrowed from `text`
/// (a word with `’` is copied, the apostrophe read as `'`).
fn tokens(text: &str) -> Vec<std::borrow::Cow<'_, str>> {
    let in_word = |c: char| c.is_alphanumeric() || c == '\'' || c == '’' || c == '_';
    let mut out = Vec::new();
    let mut start = None;
    for (at, c) in text.char_indices() {
        if in_word(c) {
            start.get_or_insert(at);
            continue;
        }
        if let Some(from) = start.take() {
            out.push(word(&text[from..at]));
        }
        if matches!(
            c,
            ',' | '.' | ':' | '!' | '?' | ';' | '\n' | '<' | '>' | '/' | '*' | '='
        ) {
            out.push(std::borrow::Cow::Borrowed(&text[at..at + c.len_utf8()]));
        }
    }
    if let Some(from) = start {
        out.push(word(&text[from..]));
    }
    out
}

/// A word of [`tokens`]: borrowed unless it has `’`, read as `'`.
fn word(w: &str) -> std::borrow::Cow<'_, str> {
    if w.contains('’') {
        std::borrow::Cow::Owned(w.replace('’', "'"))
    } else {
        std::borrow::Cow::Borrowed(w)
    }
}

#[cfg(test)]
mod tests;
