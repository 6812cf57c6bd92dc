//! Text helpers the scholarly, news and code parsers share: markup removed
//! from abstracts (JATS, HTML), the first sentences of a long text, names
//! joined, dates read from the forms providers send. Every function is
//! bounded by its output size, whatever the input.

use std::fmt::Write as _;

use rypsok_proto::is_iso_date;

/// Characters of text read from one field before anything else is done
/// with it: an abstract longer than this is cut before its markup is
/// removed, so no field costs more than this much work.
pub(crate) const FIELD_READ_CHARS: usize = 8192;

/// Names listed in a snippet before "et al.".
const NAMES_LISTED: usize = 3;

/// `text` cut to at most `max_chars` characters, on a character boundary.
pub(crate) fn bounded(text: &str, max_chars: usize) -> &str {
    match text.char_indices().nth(max_chars) {
        Some((at, _)) => &text[..at],
        None => text,
    }
}

/// `markup` with its tags removed (JATS `<jats:p>`, HTML `<i>`, ...) and
/// its whitespace collapsed to single spaces. Entities are left for the
/// supervisor's content boundary, which decodes them. A `<` that opens no
/// tag (no `>` follows) is kept as text.
pub(crate) fn plain_text(markup: &str) -> String {
    let markup = bounded(markup, FIELD_READ_CHARS);
    let mut out = String::with_capacity(markup.len());
    let mut rest = markup;
    while let Some(open) = rest.find('<') {
        push_collapsed(&mut out, &rest[..open]);
        match rest[open..].find('>') {
            Some(close) => {
                // A tag separates words as whitespace does.
                push_collapsed(&mut out, " ");
                rest = &rest[open + close + 1..];
            }
            None => {
                push_collapsed(&mut out, &rest[open..]);
                rest = "";
            }
        }
    }
    push_collapsed(&mut out, rest);
    let trimmed = out.trim_end().len();
    out.truncate(trimmed);
    out
}

/// `text` with its whitespace collapsed to single spaces, for plain text
/// that arrives hard-wrapped (arXiv's titles and summaries).
pub(crate) fn collapse_whitespace(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(FIELD_READ_CHARS));
    push_collapsed(&mut out, bounded(text, FIELD_READ_CHARS));
    let trimmed = out.trim_end().len();
    out.truncate(trimmed);
    out
}

/// Appends `text` to `out` with runs of whitespace as one space and no
/// space at the start of `out`.
fn push_collapsed(out: &mut String, text: &str) {
    for c in text.chars() {
        if c.is_whitespace() {
            if !out.is_empty() && !out.ends_with(' ') {
                out.push(' ');
            }
        } else {
            out.push(c);
        }
    }
}

/// The first sentences of `text` (already plain, whitespace collapsed)
/// that fit in `max_chars` characters; the first sentence alone, cut at
/// `max_chars`, when even it is longer. A sentence ends at `.`, `!` or `?`
/// followed by a space.
pub(crate) fn first_sentences(text: &str, max_chars: usize) -> String {
    let mut end = 0;
    let mut chars = 0;
    let mut iter = text.char_indices().peekable();
    while let Some((at, c)) = iter.next() {
        chars += 1;
        if chars > max_chars {
            break;
        }
        if matches!(c, '.' | '!' | '?') && iter.peek().is_none_or(|(_, next)| *next == ' ') {
            end = at + c.len_utf8();
        }
    }
    if end == 0 {
        return bounded(text, max_chars).trim_end().to_owned();
    }
    text[..end].to_owned()
}

/// Names joined with commas, at most three, then "et al." for the rest.
pub(crate) fn join_names<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    let mut out = String::new();
    for (i, name) in names
        .into_iter()
        .filter(|name| !name.trim().is_empty())
        .enumerate()
    {
        if i == NAMES_LISTED {
            out.push_str(" et al.");
            break;
        }
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(bounded(name.trim(), 100));
    }
    out
}

/// Parts joined with " · ", the empty ones left out.
pub(crate) fn join_parts<'a>(parts: impl IntoIterator<Item = &'a str>) -> String {
    let mut out = String::new();
    for part in parts.into_iter().map(str::trim).filter(|p| !p.is_empty()) {
        if !out.is_empty() {
            out.push_str(" · ");
        }
        out.push_str(part);
    }
    out
}

/// The date part of an RFC 3339 timestamp or a bare date
/// (`2024-12-27T15:49:55Z`, `2024-12-27 15:49:55`, `2024-12-27`), when it
/// is a real calendar date.
pub(crate) fn iso_date_prefix(value: &str) -> Option<String> {
    let date = value.get(..10)?;
    let rest = &value[10..];
    (is_iso_date(date) && (rest.is_empty() || rest.starts_with(['T', ' '])))
        .then(|| date.to_owned())
}

/// A date from its numeric parts, when they name a real day.
pub(crate) fn ymd(year: i64, month: i64, day: i64) -> Option<String> {
    if !(1..=9999).contains(&year) || !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    let mut date = String::with_capacity(10);
    // Writing into a String cannot fail.
    let _ = write!(date, "{year:04}-{month:02}-{day:02}");
    is_iso_date(&date).then_some(date)
}

/// The UTC date of a Unix time in seconds (Stack Exchange's dates).
pub(crate) fn date_of_unix(seconds: i64) -> Option<String> {
    rypsok_proto::iso_date_of_unix(seconds)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn removes_jats_markup_and_collapses_whitespace() {
        // Verifies: REQ-ENG-005, REQ-ENG-012
        assert_eq!(
            plain_text("<jats:title>Abstract</jats:title>\n<jats:p>Two  words.</jats:p>"),
            "Abstract Two words."
        );
        assert_eq!(plain_text("a <i>b</i>c"), "a b c");
        assert_eq!(plain_text("x < y"), "x < y");
        assert_eq!(plain_text("  "), "");
    }

    #[test]
    fn takes_the_sentences_that_fit() {
        // Verifies: REQ-ENG-012
        let text = "First one. Second one! Third is longer than the rest of them.";
        assert_eq!(first_sentences(text, 30), "First one. Second one!");
        assert_eq!(first_sentences(text, 12), "First one.");
        assert_eq!(first_sentences("No end at all here", 8), "No end a");
        // A dot inside a number or a name does not end a sentence.
        assert_eq!(
            first_sentences("Version 1.5 is out. Then", 30),
            "Version 1.5 is out."
        );
        assert_eq!(first_sentences("", 10), "");
    }

    #[test]
    fn lists_three_names_then_et_al() {
        // Verifies: REQ-ENG-012
        assert_eq!(join_names(["A", "B"]), "A, B");
        assert_eq!(join_names(["A", " ", "B", "C", "D"]), "A, B, C et al.");
        assert_eq!(join_parts(["x", "", " y "]), "x · y");
    }

    #[test]
    fn reads_dates_of_every_form_only_when_real() {
        // Verifies: REQ-ENG-005
        assert_eq!(
            iso_date_prefix("2024-02-29T10:00:00Z").as_deref(),
            Some("2024-02-29")
        );
        assert_eq!(
            iso_date_prefix("2024-02-29 10:00:00").as_deref(),
            Some("2024-02-29")
        );
        assert_eq!(iso_date_prefix("2023-02-29"), None);
        assert_eq!(iso_date_prefix("2024-02-2"), None);
        assert_eq!(ymd(2014, 12, 1).as_deref(), Some("2014-12-01"));
        assert_eq!(ymd(2014, 13, 1), None);
        assert_eq!(ymd(0, 1, 1), None);
        assert_eq!(date_of_unix(0).as_deref(), Some("1970-01-01"));
        assert_eq!(date_of_unix(1_340_805_096).as_deref(), Some("2012-06-27"));
        assert_eq!(date_of_unix(951_782_400).as_deref(), Some("2000-02-29"));
        assert_eq!(date_of_unix(i64::MAX), None);
        assert_eq!(date_of_unix(i64::MIN), None);
    }
}
