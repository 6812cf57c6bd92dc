//! A PDF's page texts as Markdown: the text lines lopdf gives for each
//! page, in content order, become paragraphs (lines joined, a word
//! hyphenated at a line end joined), lines repeated at the top or bottom of
//! most pages (running headers, footers, page numbers) are dropped, and a
//! `Page N` line set apart opens each page so that the agent can cite it.

use std::collections::HashMap;

/// The pages of one document, their lines cleaned.
#[derive(Debug)]
pub(super) struct Pages {
    /// Per page, its lines, running lines removed (empty strings separate
    /// blocks).
    pages: Vec<Vec<String>>,
}

/// Lines at each end of a page that may be a running header or footer.
const EDGE_LINES: usize = 2;

/// A document needs this many pages before a line repeated on them is
/// taken for a running header or footer.
const RUNNING_MIN_PAGES: usize = 3;

/// The most words a running header or footer has: a line of body text,
/// repeated because the pages say the same thing, is longer.
const RUNNING_MAX_WORDS: usize = 12;

/// The longest line taken for a title, in characters.
const HEADING_MAX_CHARS: usize = 200;

impl Pages {
    /// Cleans the text of each page (one string per page, lines separated
    /// by line breaks).
    pub(super) fn new(texts: Vec<String>) -> Self {
        let mut pages: Vec<Vec<String>> = texts
            .iter()
            .map(|t| t.lines().map(clean_line).collect())
            .collect();
        drop_running_lines(&mut pages);
        Self { pages }
    }

    /// Whether any page holds a letter or a digit.
    pub(super) fn has_text(&self) -> bool {
        self.pages
            .iter()
            .flatten()
            .any(|l| l.chars().any(char::is_alphanumeric))
    }

    /// The first line of the document when it reads like a heading: short
    /// and with letters.
    pub(super) fn first_heading(&self) -> Option<String> {
        let line = self.pages.iter().flatten().find(|l| !l.is_empty())?;
        (line.chars().count() <= HEADING_MAX_CHARS && line.chars().any(char::is_alphabetic))
            .then(|| line.clone())
    }

    /// The Markdown: per page, `Page N` set apart, then its paragraphs.
    pub(super) fn markdown(&self) -> String {
        let mut out = String::new();
        for (i, lines) in self.pages.iter().enumerate() {
            if !out.is_empty() {
                out.push_str("\n\n");
            }
            out.push_str(&format!("Page {}", i + 1));
            for paragraph in paragraphs(lines) {
                out.push_str("\n\n");
                out.push_str(&paragraph);
            }
        }
        out
    }
}

/// One line: ligatures spelt out, runs of whitespace made one space,
/// trimmed.
fn clean_line(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    for word in line.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        for c in word.chars() {
            match c {
                '\u{fb00}' => out.push_str("ff"),
                '\u{fb01}' => out.push_str("fi"),
                '\u{fb02}' => out.push_str("fl"),
                '\u{fb03}' => out.push_str("ffi"),
                '\u{fb04}' => out.push_str("ffl"),
                '\u{fb05}' | '\u{fb06}' => out.push_str("st"),
                // Soft hyphens and zero-width characters some producers
                // leave in the text layer.
                '\u{ad}' | '\u{200b}' => {}
                c if c.is_control() => {}
                c => out.push(c),
            }
        }
    }
    out
}

/// The shape of a line as repeated on every page: digits stand for any
/// number (a page number changes from page to page).
fn shape(line: &str) -> String {
    line.chars()
        .map(|c| if c.is_ascii_digit() { '#' } else { c })
        .collect()
}

/// Whether a line is only a page number (`7`, `- 7 -`, `Page 7`,
/// `7 of 30`, `vii`).
fn is_page_number(line: &str) -> bool {
    let words: Vec<&str> = line
        .split(|c: char| c.is_whitespace() || c == '-' || c == '|')
        .filter(|w| !w.is_empty())
        .collect();
    let numeric = |w: &str| {
        w.chars().all(|c| c.is_ascii_digit())
            || (w.len() <= 6 && w.chars().all(|c| "ivxlcdm".contains(c)))
    };
    match words.as_slice() {
        [n] => numeric(n),
        [p, n] => p.eq_ignore_ascii_case("page") && numeric(n),
        [n, of, m] => numeric(n) && of.eq_ignore_ascii_case("of") && numeric(m),
        [p, n, of, m] => {
            p.eq_ignore_ascii_case("page")
                && numeric(n)
                && of.eq_ignore_ascii_case("of")
                && numeric(m)
        }
        _ => false,
    }
}

/// The indices of the first and last [`EDGE_LINES`] non-empty lines.
fn edges(lines: &[String]) -> Vec<usize> {
    let filled: Vec<usize> = (0..lines.len()).filter(|&i| !lines[i].is_empty()).collect();
    let mut out: Vec<usize> = filled.iter().take(EDGE_LINES).copied().collect();
    for &i in filled.iter().rev().take(EDGE_LINES) {
        if !out.contains(&i) {
            out.push(i);
        }
    }
    out
}

/// Blanks the lines at a page's edges that repeat (by shape) at the edges
/// of at least half the pages, and bare page numbers there.
fn drop_running_lines(pages: &mut [Vec<String>]) {
    if pages.len() < 2 {
        return;
    }
    let mut seen: HashMap<String, usize> = HashMap::new();
    for lines in pages.iter() {
        let mut shapes: Vec<String> = edges(lines).iter().map(|&i| shape(&lines[i])).collect();
        shapes.sort();
        shapes.dedup();
        for s in shapes {
            *seen.entry(s).or_default() += 1;
        }
    }
    let needed = pages.len().div_ceil(2).max(2);
    let running = pages.len() >= RUNNING_MIN_PAGES;
    for lines in pages.iter_mut() {
        for i in edges(lines) {
            let repeated = running
                && lines[i].split_whitespace().count() <= RUNNING_MAX_WORDS
                && seen.get(&shape(&lines[i])).is_some_and(|&n| n >= needed);
            if repeated || is_page_number(&lines[i]) {
                lines[i].clear();
            }
        }
    }
}

/// The paragraphs of one page: lines up to an empty one joined with a
/// space, or with nothing where a word was hyphenated at the line end.
fn paragraphs(lines: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for line in lines {
        if line.is_empty() {
            if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
            continue;
        }
        if current.is_empty() {
            current.push_str(line);
        } else if is_hyphenated(&current, line) {
            current.pop();
            current.push_str(line);
        } else {
            current.push(' ');
            current.push_str(line);
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// A line ending in a letter and a hyphen, followed by one starting with
/// a lower-case letter: a word split across the line break.
fn is_hyphenated(current: &str, next: &str) -> bool {
    let mut tail = current.chars().rev();
    tail.next() == Some('-')
        && tail.next().is_some_and(char::is_alphabetic)
        && next.chars().next().is_some_and(char::is_lowercase)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pages(texts: &[&str]) -> Pages {
        Pages::new(texts.iter().map(|t| (*t).to_owned()).collect())
    }

    #[test]
    // Verifies: REQ-FETCH-002 (PDF text as paragraphs, hyphenation joined)
    fn joins_lines_into_paragraphs_and_hyphenated_words() {
        let p = pages(&["A first line\nand its experi-\nment.\n\nNext block\n"]);
        assert_eq!(
            p.markdown(),
            "Page 1\n\nA first line and its experiment.\n\nNext block"
        );
    }

    #[test]
    // Verifies: REQ-FETCH-002 (a hyphen before a capital or a number stays)
    fn keeps_a_hyphen_that_does_not_split_a_word() {
        let p = pages(&["North-\nSouth axis, 1990-\n2000"]);
        assert_eq!(p.markdown(), "Page 1\n\nNorth- South axis, 1990- 2000");
    }

    #[test]
    // Verifies: REQ-FETCH-002 (running headers, footers and page numbers dropped)
    fn drops_running_headers_footers_and_page_numbers() {
        let p = pages(&[
            "Journal 7\nBody one.\n1",
            "Journal 7\nBody two.\n2",
            "Journal 7\nBody three.\n3",
        ]);
        assert_eq!(
            p.markdown(),
            "Page 1\n\nBody one.\n\nPage 2\n\nBody two.\n\nPage 3\n\nBody three."
        );
    }

    #[test]
    // Verifies: REQ-FETCH-002 (a body line that repeats is text, not a running head)
    fn keeps_long_lines_that_repeat_on_every_page() {
        let line = "one two three four five six seven eight nine ten eleven twelve thirteen";
        let p = pages(&[line, line, line]);
        assert_eq!(p.markdown().matches("thirteen").count(), 3);
    }

    #[test]
    // Verifies: REQ-FETCH-002 (ligatures spelt out)
    fn spells_out_ligatures() {
        let p = pages(&["\u{fb01}ne \u{fb02}ow o\u{fb03}ce"]);
        assert_eq!(p.markdown(), "Page 1\n\nfine flow office");
    }

    #[test]
    // Verifies: REQ-FETCH-002 (the first heading-like line is the fallback title)
    fn takes_a_short_first_line_for_a_title() {
        assert_eq!(
            pages(&["\n\nField Report\n\nText."]).first_heading(),
            Some("Field Report".to_owned())
        );
        assert_eq!(pages(&["\n\n12\n"]).first_heading(), None);
    }
}
