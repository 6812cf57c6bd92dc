//! Content that lives only in a page's structured data (REQ-PAGE-002,
//! REQ-PAGE-006): the fallback for a page whose markup is an empty shell
//! filled in by a script, but which carries its text in a data block.
//!
//! Two kinds of block are read, both found by a scan of the raw HTML (the
//! DOM parse skips the text of scripts):
//!
//! - **JSON-LD** (`<script type="application/ld+json">`): an object with an
//!   `articleBody` string is an article's body whatever its `@type`
//!   (Article, NewsArticle, BlogPosting, Report…), in a `@graph` array or
//!   nested anywhere; failing that, an object with a `text` string beside a
//!   `headline` (a CreativeWork's header); failing that, a `HowTo` or a
//!   `Recipe`, whose text is schema.org's parts of one: its `description`,
//!   a recipe's ingredients as a list, and its steps in order (`step`,
//!   `recipeInstructions`: strings, or steps with a `name` and a `text`,
//!   grouped in sections or not). Failing all these, a `Product`'s
//!   `description` (a thing sold: its text on its page), where it is
//!   longer than the prose of the page data below. Its `headline` (or
//!   `name`) becomes the title when the page has none.
//! - **Embedded page data**: `<script type="application/json">` blocks (a
//!   framework's serialized page state) and scripts that are one assignment
//!   of plain JSON to a `window` property. No field name is trusted: the
//!   longest prose is taken, either one string or an array of content
//!   blocks (an article stored as a list of paragraphs, each a string or an
//!   object holding one), read whole; a string that is itself JSON is
//!   parsed and walked in turn.
//!
//! The article body a page's JSON-LD declares (`articleBody`) is read
//! instead of a page whose own reading is an opening of a few paragraphs
//! (under 400 words, so that most pages pay no search of their data) and
//! holds a third of the body's words or fewer, where that reading is part
//! of the body ([`continued`]): the rest of the article is in the page's
//! data, held back from the markup until a script reveals it (a dynamic
//! paywall's hidden block). Measured: one of Fundus's test pages from its
//! opening paragraph to its whole article (F1 0.13 to 0.96); no page of
//! any other set reaches the comparison of texts.
//!
//! A string reads like prose when, its markup left aside, it has at least
//! [`PROSE_MIN_CHARS`] characters, mostly letters, words of natural length,
//! sentence ends at a natural rate, and markup is less than half of it
//! ([`prose_text_chars`]). HTML goes through the same extraction and
//! Markdown path as a page; plain text becomes paragraphs at blank lines,
//! through that same path (so the same escaping and decoding apply).
//!
//! Measured by emptying the body of the bench pages that have data blocks
//! (keeping their scripts): of 1,027 such shells, 156 are read from their
//! data, word F1 0.53 and 0.51 on the two halves of the mixed development
//! set (precision 0.72 and 0.74), 0.78 and 0.93 on the article set's; the
//! rest stay `extraction_failed`. Whole pages are read from their markup as
//! before. Reading HowTo and Recipe objects, measured the same way, reads
//! two shells more (a recipe card and a guide's steps: word precision 0.85
//! and 0.99, recall lower, as each page's text is longer than its data),
//! and on trafilatura's evaluation pages one page whose markup is a script
//! shell (all its text passages found, none it leaves out); no page read
//! from its markup changed. A product's description reads eight shells
//! more, all product pages (mean word precision 0.90, F1 0.65). Any
//! object's description would read 41, mostly an article's summary
//! (precision 0.70, recall 0.20): not the page's text, so only a
//! product's is.
//!
//! Everything is bounded like the page: the bytes of each block and of all
//! blocks read, the JSON depth (serde_json's own recursion limit first,
//! then [`DEPTH_MAX`] for the walk), the strings looked at, and the HTML
//! parse of the chosen string (LIM-F12).

use std::borrow::Cow;

use serde_json::Value;

use super::{Page, dom, extract, is_cjk, markdown, words_upto};

/// The largest script read; a longer one is left alone (3 of the 3,258
/// data blocks of the bench pages are longer). With the values bound, it
/// keeps the worst case of the fallback near that of reading a page of the
/// same size: a few hundred milliseconds.
const SCRIPT_MAX_BYTES: usize = 1 << 20;

/// Bytes of all scripts read per page at most.
const SCRIPTS_TOTAL_BYTES: usize = 2 << 20;

/// Scripts read per page at most.
const SCRIPTS_MAX: usize = 64;

/// Levels of JSON walked; deeper values are not looked at.
const DEPTH_MAX: usize = 64;

/// Values looked at per page at most.
const VALUES_MAX: usize = 200_000;

/// Longest headline kept, in bytes (the supervisor bounds titles again).
const HEADLINE_MAX_BYTES: usize = 1024;

/// Fewest characters of text (markup aside) a prose string has.
const PROSE_MIN_CHARS: usize = 400;

/// Fewest sentence ends in a prose string.
const SENTENCES_MIN: usize = 3;

/// Prose has a sentence end at least once per this many characters of text.
const CHARS_PER_SENTENCE_MAX: usize = 600;

/// Least share of a prose string that is text rather than markup.
const TEXT_SHARE_MIN: f64 = 0.5;

/// Least share of letters among a prose string's non-space characters.
const LETTER_SHARE_MIN: f64 = 0.6;

/// Longest mean word (with its space) of prose, in characters: longer is an
/// identifier, a URL or encoded data.
const MEAN_WORD_MAX: usize = 12;

/// A page read by the DOM with fewer words than this may be read from its
/// structured data instead (the bound below which a page is read again
/// leniently: "little or nothing").
const NEAR_EMPTY_WORDS: usize = 50;

/// The structured content must have this many times the words the DOM
/// extraction found, and at least [`FALLBACK_MIN_WORDS`].
const WORDS_RATIO: usize = 3;

/// Fewest words of structured content that replace the DOM's.
const FALLBACK_MIN_WORDS: usize = 40;

/// Reads the page from its structured data when the DOM extraction found
/// nothing or nearly nothing (`dom_page`: what it found, `None` for
/// nothing) and the structured data holds clearly more. The page's own
/// title is kept; the JSON-LD `headline` stands in when it has none.
pub(crate) fn fallback(
    html: &str,
    url: Option<&url::Url>,
    dom_page: Option<&Page>,
) -> Option<Page> {
    let dom_words = dom_page.map_or(0, |p| words_upto(&p.markdown, usize::MAX));
    if dom_words >= NEAR_EMPTY_WORDS {
        return None;
    }
    let found = find(html)?;
    let (markdown, partial) = render(&found.body, url)?;
    let words = words_upto(&markdown, usize::MAX);
    if words < FALLBACK_MIN_WORDS.max(WORDS_RATIO * dom_words) {
        return None;
    }
    let title = match dom_page {
        Some(p) => p.title.clone(),
        None => dom::parse(html, true).title(),
    }
    .or_else(|| found.headline.as_deref().and_then(headline_text));
    Some(Page {
        title,
        markdown,
        partial,
        from_structured_data: true,
    })
}

/// Least share of the DOM read's word pairs that the declared article
/// body holds for the read to be part of that body (see [`continued`]).
const CONTAINED_MIN: f64 = 0.5;

/// Reads the page from the article body its JSON-LD declares
/// (`articleBody`) where the DOM read (`dom_page`) is part of that body
/// and holds far less of it ([`WORDS_RATIO`]): the rest of the article is
/// in the page's data but not in what it shows, held back until a script
/// reveals it (a dynamic paywall) or left out of the markup. Part of the
/// body: [`CONTAINED_MIN`] of the read's word pairs (link targets aside)
/// are the body's, so that a body declared for another text than the one
/// read (a teaser, a summary) is not taken for it. Asked (by the caller)
/// only of a page with a JSON-LD script whose own reading is an opening
/// of a few paragraphs, and read only where the page names an
/// `articleBody` key at all.
pub(crate) fn continued(html: &str, url: Option<&url::Url>, dom_page: &Page) -> Option<Page> {
    let found = declared_article(html)?;
    let dom_words = words_upto(&dom_page.markdown, usize::MAX);
    // The raw body's words bound the rendered ones: most pages stop here.
    if words_upto(&found.body, WORDS_RATIO * dom_words) < WORDS_RATIO * dom_words {
        return None;
    }
    let (markdown, partial) = render(&found.body, url)?;
    if words_upto(&markdown, WORDS_RATIO * dom_words) < WORDS_RATIO * dom_words
        || contained(&dom_page.markdown, &markdown) < CONTAINED_MIN
    {
        return None;
    }
    Some(Page {
        title: dom_page.title.clone(),
        markdown,
        partial,
        from_structured_data: true,
    })
}

/// The longest article body the page's JSON-LD declares (`articleBody`);
/// other data blocks are not read, nor a page that names no such key.
fn declared_article(html: &str) -> Option<Found> {
    let bytes = html.as_bytes();
    // A JSON key: the quoted name and a colon (microdata's
    // `itemprop="articleBody"` has none).
    let key = b"\"articleBody\"";
    let declares = memchr::memmem::find_iter(bytes, key).any(|i| {
        bytes[i + key.len()..]
            .iter()
            .find(|b| !b.is_ascii_whitespace())
            == Some(&b':')
    });
    if !declares {
        return None;
    }
    let mut budget = Budget { values: VALUES_MAX };
    let mut best: Option<Candidate> = None;
    for (_, text) in scripts(html)
        .into_iter()
        .filter(|(block, _)| *block == Block::LinkedData)
    {
        if let Some(value) = parse_json(text)
            && let (Some((chars, found)), _) = best_linked(&value, &mut budget)
            && found.article
            && best.as_ref().is_none_or(|(c, _)| chars > *c)
        {
            best = Some((chars, found));
        }
        if budget.values == 0 {
            break;
        }
    }
    best.map(|(_, found)| found)
}

/// The share of the word pairs of `part` (Markdown, its link targets
/// left aside) that `whole` holds, words compared in lower case.
fn contained(part: &str, whole: &str) -> f64 {
    fn words(s: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut rest = s;
        // A link's target, `](…)`, is no word of the text.
        while !rest.is_empty() {
            let (text, after) = match rest.find("](") {
                Some(i) => (
                    &rest[..i],
                    rest[i + 2..]
                        .find(')')
                        .map_or("", |j| &rest[i + 2 + j + 1..]),
                ),
                None => (rest, ""),
            };
            out.extend(
                text.split(|c: char| !c.is_alphanumeric())
                    .filter(|w| !w.is_empty())
                    .map(str::to_lowercase),
            );
            rest = after;
        }
        out
    }
    let part = words(part);
    let whole = words(whole);
    let pairs: std::collections::HashSet<(&str, &str)> = whole
        .windows(2)
        .map(|w| (w[0].as_str(), w[1].as_str()))
        .collect();
    let total = part.len().saturating_sub(1);
    if total == 0 {
        return 0.0;
    }
    let held = part
        .windows(2)
        .filter(|w| pairs.contains(&(w[0].as_str(), w[1].as_str())))
        .count();
    held as f64 / total as f64
}

/// schema.org's types of a page that is a discussion: a forum's thread,
/// a question and its answers. Its replies are its text.
const DISCUSSION_TYPES: &[&str] = &["DiscussionForumPosting", "QAPage"];

/// Whether the page declares itself a discussion ([`DISCUSSION_TYPES`]):
/// in its JSON-LD, or as the `itemtype` of its microdata. Looked for
/// only where the type's name is in the page at all.
pub(crate) fn declares_discussion(html: &str) -> bool {
    let bytes = html.as_bytes();
    if !DISCUSSION_TYPES
        .iter()
        .any(|t| memchr::memmem::find(bytes, t.as_bytes()).is_some())
    {
        return false;
    }
    if microdata_declares(bytes) {
        return true;
    }
    let mut budget = Budget { values: VALUES_MAX };
    scripts(html)
        .into_iter()
        .filter(|(block, _)| *block == Block::LinkedData)
        .filter_map(|(_, text)| parse_json(text))
        .any(|value| {
            let mut found = false;
            walk(&value, &mut budget, |v| {
                found |= matches!(v, Value::Object(map) if is_type(map, DISCUSSION_TYPES));
            });
            found
        })
}

/// Bytes of an `itemtype` value read at most.
const ITEMTYPE_MAX_BYTES: usize = 256;

/// Whether an `itemtype` attribute names a discussion type (a schema.org
/// address whose last part is one of [`DISCUSSION_TYPES`]).
fn microdata_declares(bytes: &[u8]) -> bool {
    memchr::memmem::find_iter(bytes, b"itemtype=").any(|at| {
        // A value is an address or a few: its first bytes, not the rest
        // of the page, are read.
        let value = &bytes[at + b"itemtype=".len()..];
        let value = &value[..value.len().min(ITEMTYPE_MAX_BYTES)];
        let (quote, value) = match value.first() {
            Some(&q @ (b'"' | b'\'')) => (Some(q), &value[1..]),
            _ => (None, value),
        };
        let ends = |b: u8| match quote {
            Some(q) => b == q,
            None => b == b'>' || b.is_ascii_whitespace(),
        };
        let end = value.iter().position(|&b| ends(b)).unwrap_or(value.len());
        value[..end]
            .split(|&b| b.is_ascii_whitespace())
            .filter_map(|t| t.rsplit(|&b| b == b'/').next())
            .any(|last| DISCUSSION_TYPES.iter().any(|t| last == t.as_bytes()))
    })
}

/// The chosen string and, from JSON-LD, its headline.
#[derive(Debug)]
struct Found {
    body: String,
    headline: Option<String>,
    /// Whether the body is a JSON-LD `articleBody`: the article's text as
    /// its publisher declares it.
    article: bool,
}

/// How a script's text is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Block {
    LinkedData,
    PageData,
}

/// A body found and the characters of text it holds, by which bodies of
/// one kind are compared.
type Candidate = (usize, Found);

/// The best body in the page's data blocks: JSON-LD's first (an article
/// body is declared there), else the longer of a JSON-LD product's
/// description and the longest prose string of page data.
fn find(html: &str) -> Option<Found> {
    let mut budget = Budget { values: VALUES_MAX };
    let mut linked: Option<Candidate> = None;
    let mut described: Option<Candidate> = None;
    let mut data: Option<(usize, String)> = None;
    for (block, text) in scripts(html) {
        let Some(value) = parse_json(text) else {
            continue;
        };
        match block {
            Block::LinkedData => {
                let (body, description) = best_linked(&value, &mut budget);
                if let Some((chars, found)) = body
                    && linked.as_ref().is_none_or(|(c, _)| chars > *c)
                {
                    linked = Some((chars, found));
                }
                if let Some((chars, found)) = description
                    && described.as_ref().is_none_or(|(c, _)| chars > *c)
                {
                    described = Some((chars, found));
                }
            }
            Block::PageData => {
                if let Some((chars, s)) = best_prose(&value, &mut budget)
                    && data.as_ref().is_none_or(|(c, _)| chars > *c)
                {
                    data = Some((chars, s));
                }
            }
        }
        if budget.values == 0 {
            break;
        }
    }
    if let Some((_, found)) = linked {
        return Some(found);
    }
    match (described, data) {
        (Some((d, found)), Some((c, _))) if d >= c => Some(found),
        (Some((_, found)), None) => Some(found),
        (_, Some((_, body))) => Some(Found {
            body,
            headline: None,
            article: false,
        }),
        (None, None) => None,
    }
}

/// The JSON of a script's text, or `None` when it is not JSON (serde_json
/// refuses nesting past its recursion limit).
fn parse_json(text: &str) -> Option<Value> {
    let text = text.trim();
    // An HTML comment wrapped around the data, an old habit.
    let text = text
        .strip_prefix("<!--")
        .and_then(|t| t.strip_suffix("-->"))
        .map_or(text, str::trim);
    serde_json::from_str(text).ok()
}

/// Values left to look at.
#[derive(Debug)]
struct Budget {
    values: usize,
}

/// Every value under `root` to [`DEPTH_MAX`] levels, while the budget lasts.
fn walk<'a>(root: &'a Value, budget: &mut Budget, mut visit: impl FnMut(&'a Value)) {
    let mut stack = vec![(root, 0usize)];
    while let Some((value, depth)) = stack.pop() {
        if budget.values == 0 {
            return;
        }
        budget.values -= 1;
        visit(value);
        if depth >= DEPTH_MAX {
            continue;
        }
        match value {
            // Reversed, so that values are visited in document order.
            Value::Array(items) => stack.extend(items.iter().rev().map(|v| (v, depth + 1))),
            Value::Object(map) => stack.extend(map.values().rev().map(|v| (v, depth + 1))),
            _ => {}
        }
    }
}

/// The JSON-LD object with the longest prose body: `articleBody` first,
/// else `text` beside a `headline`, else a HowTo's or a Recipe's parts
/// ([`instructions`]); and apart, the product ([`PRODUCT_TYPES`]) with the
/// longest prose `description`, which [`find`] weighs against page data.
fn best_linked(root: &Value, budget: &mut Budget) -> (Option<Candidate>, Option<Candidate>) {
    let mut article: Option<(usize, &Value)> = None;
    let mut work: Option<(usize, &Value)> = None;
    let mut how_to: Option<(usize, String, &Value)> = None;
    let mut described: Option<(usize, &Value)> = None;
    walk(root, budget, |v| {
        let Value::Object(map) = v else { return };
        if is_type(map, PRODUCT_TYPES)
            && let Some(Value::String(d)) = map.get("description")
            && let Some(chars) = prose_text_chars(d)
            && described.is_none_or(|(c, _)| chars > c)
        {
            described = Some((chars, v));
        }
        if is_type(map, &["HowTo", "Recipe"])
            && let Some(body) = instructions(map)
            && let Some(chars) = prose_text_chars(&body)
            && how_to.as_ref().is_none_or(|(c, _, _)| chars > *c)
        {
            how_to = Some((chars, body, v));
        }
        let headline = map.get("headline").is_some_and(Value::is_string);
        for (key, slot, needs_headline) in [
            ("articleBody", &mut article, false),
            ("text", &mut work, true),
        ] {
            if needs_headline && !headline {
                continue;
            }
            if let Some(Value::String(s)) = map.get(key)
                && let Some(chars) = prose_text_chars(s)
                && slot.is_none_or(|(c, _)| chars > c)
            {
                *slot = Some((chars, v));
            }
        }
    });
    let found = |chars: usize, body: String, object: &Value, article: bool| {
        let headline = object
            .get("headline")
            .or_else(|| object.get("name"))
            .and_then(Value::as_str)
            .map(|h| cut(h, HEADLINE_MAX_BYTES).to_owned());
        (
            chars,
            Found {
                body,
                headline,
                article,
            },
        )
    };
    let text = |o: &Value, key: &str| o.get(key).and_then(Value::as_str).map(str::to_owned);
    let body = match (article, work, how_to) {
        (Some((c, o)), _, _) => text(o, "articleBody").map(|b| found(c, b, o, true)),
        (None, Some((c, o)), _) => text(o, "text").map(|b| found(c, b, o, false)),
        (None, None, Some((c, body, o))) => Some(found(c, body, o, false)),
        (None, None, None) => None,
    };
    let described =
        described.and_then(|(c, o)| text(o, "description").map(|b| found(c, b, o, false)));
    (body, described)
}

/// schema.org's Product and its kinds: a thing sold, whose `description`
/// is its own text on its page.
const PRODUCT_TYPES: &[&str] = &[
    "Product",
    "ProductGroup",
    "ProductModel",
    "IndividualProduct",
    "SomeProducts",
];

/// Whether a JSON-LD object is of one of `types` (its `@type`, or one of
/// them, is; as a full schema.org address too).
fn is_type(map: &serde_json::Map<String, Value>, types: &[&str]) -> bool {
    let named = |t: &Value| {
        t.as_str()
            .map(|t| t.rsplit(['/', ':']).next().unwrap_or(t))
            .is_some_and(|t| types.contains(&t))
    };
    match map.get("@type") {
        Some(Value::Array(types)) => types.iter().any(named),
        Some(t) => named(t),
        None => false,
    }
}

/// A HowTo's or a Recipe's text as HTML, in schema.org's order: its
/// `description`, a recipe's `recipeIngredient` as a list, then its steps
/// (`step`, `recipeInstructions`) as an ordered list ([`push_step`]),
/// sections [`STEP_DEPTH_MAX`] levels deep at most. Strings that are HTML
/// stay so; plain ones are escaped. `None` without steps or ingredients: a
/// bare description is what a page's own markup says too. Bounded like a
/// script: parts past [`SCRIPT_MAX_BYTES`] are left out.
fn instructions(map: &serde_json::Map<String, Value>) -> Option<String> {
    let mut out = String::new();
    if let Some(Value::String(d)) = map.get("description") {
        push_html(&mut out, d);
    }
    let mut parts = 0usize;
    if let Some(Value::Array(items)) = map.get("recipeIngredient") {
        out.push_str("<ul>");
        for item in items.iter().filter_map(Value::as_str) {
            if out.len() > SCRIPT_MAX_BYTES {
                break;
            }
            out.push_str("<li>");
            push_escaped(&mut out, item);
            out.push_str("</li>");
            parts += 1;
        }
        out.push_str("</ul>");
    }
    for key in ["step", "recipeInstructions"] {
        match map.get(key) {
            Some(Value::String(s)) => {
                push_html(&mut out, s);
                parts += 1;
            }
            Some(Value::Array(steps)) => parts += push_steps(&mut out, steps, 0),
            Some(step @ Value::Object(_)) => {
                parts += push_steps(&mut out, std::slice::from_ref(step), 0);
            }
            _ => {}
        }
    }
    (parts > 0).then_some(out)
}

/// Levels of sections in a HowTo's steps read.
const STEP_DEPTH_MAX: usize = 3;

/// Appends steps as an ordered list; returns how many were read.
fn push_steps(out: &mut String, steps: &[Value], depth: usize) -> usize {
    let mut read = 0usize;
    out.push_str("<ol>");
    for step in steps {
        if out.len() > SCRIPT_MAX_BYTES {
            break;
        }
        out.push_str("<li>");
        read += push_step(out, step, depth);
        out.push_str("</li>");
    }
    out.push_str("</ol>");
    read
}

/// Appends one step: a string; a section (`HowToSection`: its `name` as a
/// heading over its own steps); or a step: its `name` as a heading where
/// it is not the start of its own text (often it is, cut short), its
/// `text`, and the texts of its parts (`itemListElement`: directions and
/// tips) as paragraphs of it. Returns how many steps were read.
fn push_step(out: &mut String, step: &Value, depth: usize) -> usize {
    let m = match step {
        Value::String(s) => {
            push_html(out, s);
            return 1;
        }
        Value::Object(m) => m,
        _ => return 0,
    };
    let name = m.get("name").and_then(Value::as_str);
    let text = m.get("text").and_then(Value::as_str);
    let named = name.filter(|n| {
        let n = n.trim().trim_end_matches(['.', '…']);
        !n.is_empty() && !text.is_some_and(|t| t.trim_start().starts_with(n))
    });
    if let Some(n) = named {
        out.push_str("<h3>");
        push_escaped(out, n);
        out.push_str("</h3>");
    }
    let parts: &[Value] = match m.get("itemListElement") {
        Some(Value::Array(items)) => items,
        Some(item @ Value::Object(_)) => std::slice::from_ref(item),
        _ => &[],
    };
    if is_type(m, &["HowToSection"]) {
        return if depth < STEP_DEPTH_MAX {
            push_steps(out, parts, depth + 1)
        } else {
            0
        };
    }
    if let Some(t) = text {
        push_html(out, t);
    }
    for part in parts {
        if let Some(t) = part.get("text").and_then(Value::as_str) {
            push_html(out, t);
        }
    }
    usize::from(named.is_some() || text.is_some() || !parts.is_empty())
}

/// Appends plain text to HTML: only `<` is escaped (see [`text_to_html`]).
fn push_escaped(out: &mut String, s: &str) {
    let mut rest = s;
    while let Some(i) = rest.find('<') {
        out.push_str(&rest[..i]);
        out.push_str("&lt;");
        rest = &rest[i + 1..];
    }
    out.push_str(rest);
}

/// Appends a data string as HTML: as it is when it is HTML, else as
/// paragraphs ([`text_to_html`]).
fn push_html(out: &mut String, s: &str) {
    if looks_like_html(s) {
        out.push_str(s);
    } else {
        out.push_str(&text_to_html(s));
    }
}

/// The longest prose string under `root`, with its text length. A string
/// that is itself JSON (page data serialized twice) is not prose: it is
/// parsed and walked in turn, [`NESTED_JSON_MAX`] levels deep at most.
fn best_prose(root: &Value, budget: &mut Budget) -> Option<(usize, String)> {
    best_prose_nested(root, budget, 0)
}

fn best_prose_nested(root: &Value, budget: &mut Budget, nesting: usize) -> Option<(usize, String)> {
    let mut best: Option<(usize, Cow<'_, str>)> = None;
    let mut nested: Vec<&str> = Vec::new();
    let mut arrays: Vec<&[Value]> = Vec::new();
    walk(root, budget, |v| match v {
        Value::String(s) if s.len() >= PROSE_MIN_CHARS => {
            if is_json_text(s) {
                if nesting < NESTED_JSON_MAX {
                    nested.push(s);
                }
            } else if let Some(chars) = prose_text_chars(s)
                && best.as_ref().is_none_or(|(c, _)| chars > *c)
            {
                best = Some((chars, Cow::Borrowed(s)));
            }
        }
        Value::Array(items) if items.len() >= BLOCKS_MIN => arrays.push(items),
        _ => {}
    });
    for items in arrays {
        if let Some(joined) = blocks_text(items, budget)
            && let Some(chars) = prose_text_chars(&joined)
            && best.as_ref().is_none_or(|(c, _)| chars > *c)
        {
            best = Some((chars, Cow::Owned(joined)));
        }
    }
    let mut best = best.map(|(c, s)| (c, s.into_owned()));
    for text in nested {
        if budget.values == 0 {
            break;
        }
        if let Some(value) = parse_json(text)
            && let Some((chars, s)) = best_prose_nested(&value, budget, nesting + 1)
            && best.as_ref().is_none_or(|(c, _)| chars > *c)
        {
            best = Some((chars, s));
        }
    }
    best
}

/// Fewest paragraphs an array of content blocks has.
const BLOCKS_MIN: usize = 3;

/// Levels below an array's item searched for the item's paragraph.
const BLOCK_DEPTH_MAX: usize = 3;

/// Fewest characters of a block's paragraph.
const PARAGRAPH_MIN_CHARS: usize = 40;

/// The text of an array of content blocks (an article stored as a list of
/// paragraphs, each a string or an object holding one): each item's
/// longest sentence, paragraphs apart. `None` when fewer than
/// [`BLOCKS_MIN`] items hold one.
fn blocks_text(items: &[Value], budget: &mut Budget) -> Option<String> {
    let mut out = String::new();
    let mut paragraphs = 0usize;
    for item in items {
        let mut longest: Option<&str> = None;
        let mut stack = vec![(item, 0usize)];
        while let Some((v, depth)) = stack.pop() {
            if budget.values == 0 {
                return None;
            }
            budget.values -= 1;
            match v {
                Value::String(s)
                    if longest.is_none_or(|l| s.len() > l.len()) && is_paragraph(s) =>
                {
                    longest = Some(s);
                }
                Value::Object(map) if depth < BLOCK_DEPTH_MAX => {
                    stack.extend(map.values().map(|v| (v, depth + 1)));
                }
                Value::Array(list) if depth < BLOCK_DEPTH_MAX => {
                    stack.extend(list.iter().map(|v| (v, depth + 1)));
                }
                _ => {}
            }
        }
        if let Some(p) = longest {
            if paragraphs > 0 {
                out.push_str("\n\n");
            }
            out.push_str(p.trim());
            paragraphs += 1;
            if out.len() > SCRIPT_MAX_BYTES {
                break;
            }
        }
    }
    (paragraphs >= BLOCKS_MIN).then_some(out)
}

/// Whether a string reads like one paragraph: words, mostly letters, a
/// sentence end; not JSON.
fn is_paragraph(s: &str) -> bool {
    if s.len() < PARAGRAPH_MIN_CHARS || is_json_text(s) {
        return false;
    }
    let (mut letters, mut visible, mut spaces) = (0usize, 0usize, 0usize);
    for c in s.chars() {
        if c.is_whitespace() {
            spaces += 1;
        } else {
            visible += 1;
            letters += usize::from(c.is_alphabetic());
        }
    }
    spaces * MEAN_WORD_MAX >= visible
        && (letters as f64) >= LETTER_SHARE_MIN * (visible as f64)
        && s.contains(['.', '!', '?', '。'])
}

/// Levels of JSON inside JSON strings read.
const NESTED_JSON_MAX: usize = 2;

/// Whether a string is JSON text (an object or an array), not prose.
fn is_json_text(s: &str) -> bool {
    let t = s.trim();
    matches!(
        (t.as_bytes().first(), t.as_bytes().last()),
        (Some(b'{'), Some(b'}')) | (Some(b'['), Some(b']'))
    ) && t[1..].trim_start().starts_with(['"', '{', '[', ']', '}'])
}

/// Whether `s` reads like prose (HTML or plain text), and if so how many
/// characters of text it holds outside markup.
fn prose_text_chars(s: &str) -> Option<usize> {
    if s.len() < PROSE_MIN_CHARS {
        return None;
    }
    let mut chars = 0usize;
    let mut markup = 0usize;
    let mut letters = 0usize;
    let mut visible = 0usize;
    let mut words = 0usize;
    let mut sentences = 0usize;
    let mut in_tag = false;
    let mut in_word = false;
    let mut after_end = false;
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        if in_tag {
            markup += 1;
            if c == '>' {
                in_tag = false;
                // A tag ends a word and, after a sentence end, a sentence.
                in_word = false;
            }
            continue;
        }
        if c == '<'
            && it
                .peek()
                .is_some_and(|n| n.is_ascii_alphabetic() || *n == '/' || *n == '!')
        {
            in_tag = true;
            markup += 1;
            if after_end {
                sentences += 1;
                after_end = false;
            }
            continue;
        }
        chars += 1;
        if c.is_whitespace() {
            in_word = false;
            if after_end {
                sentences += 1;
                after_end = false;
            }
            continue;
        }
        visible += 1;
        if c.is_alphabetic() {
            letters += 1;
        }
        if !in_word {
            words += 1;
            in_word = true;
        }
        after_end = matches!(c, '.' | '!' | '?' | '。' | '！' | '？' | '؟' | '।');
        if matches!(c, '。' | '！' | '？') {
            sentences += 1;
            after_end = false;
        }
    }
    if after_end {
        sentences += 1;
    }
    let prose = chars >= PROSE_MIN_CHARS
        && (chars as f64) >= TEXT_SHARE_MIN * ((chars + markup) as f64)
        && (letters as f64) >= LETTER_SHARE_MIN * (visible as f64)
        && sentences >= SENTENCES_MIN
        && sentences * CHARS_PER_SENTENCE_MAX >= chars
        && (words * MEAN_WORD_MAX >= chars || cjk_share(s) > 0.3);
    prose.then_some(chars)
}

/// Share of Han ideographs and kana ([`is_cjk`]) among the first
/// characters of `s`: text written without spaces between words.
fn cjk_share(s: &str) -> f64 {
    let (mut cjk, mut all) = (0usize, 0usize);
    for c in s.chars().take(4096) {
        all += 1;
        cjk += usize::from(is_cjk(c));
    }
    cjk as f64 / all.max(1) as f64
}

/// Renders the chosen string as Markdown through the page's own path:
/// HTML as it is, plain text as paragraphs at blank lines. `None` when no
/// text comes out.
fn render(body: &str, url: Option<&url::Url>) -> Option<(String, bool)> {
    let html = if looks_like_html(body) {
        Cow::Borrowed(body)
    } else {
        Cow::Owned(text_to_html(body))
    };
    let dom = dom::parse(&html, true);
    let found = extract::extract(&dom, false, url, &|| false);
    let markdown = markdown::render(&dom, found.root, &found.skip, url);
    markdown
        .chars()
        .any(char::is_alphanumeric)
        .then_some((markdown, dom.partial))
}

/// Whether a body string is HTML: it has block or line-break tags.
fn looks_like_html(s: &str) -> bool {
    let lower = s
        .get(..s.len().min(64 * 1024))
        .unwrap_or(s)
        .to_ascii_lowercase();
    ["<p>", "<p ", "<br", "</p>", "</div>", "</h2>", "</li>"]
        .iter()
        .any(|t| lower.contains(t))
}

/// Plain text as HTML paragraphs: a blank line ends a paragraph, a single
/// line break stays one. Only `<` is escaped: an entity in the text is
/// decoded once by the parser, as the author of the data meant it.
fn text_to_html(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + s.len() / 8 + 16);
    let s = s.replace("\r\n", "\n");
    for para in s.split("\n\n") {
        let para = para.trim();
        if para.is_empty() {
            continue;
        }
        out.push_str("<p>");
        for (i, line) in para.lines().enumerate() {
            if i > 0 {
                out.push_str("<br>");
            }
            push_escaped(&mut out, line);
        }
        out.push_str("</p>\n");
    }
    out
}

/// A headline as decoded text, through the parser's title path.
fn headline_text(h: &str) -> Option<String> {
    dom::parse(&format!("<title>{}</title>", h.replace('<', "&lt;")), true).title()
}

/// `s` cut to at most `max` bytes at a character boundary.
fn cut(s: &str, max: usize) -> &str {
    let mut end = s.len().min(max);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// The texts of the page's data scripts, in document order, within the
/// scan's bounds. Comments are passed over.
fn scripts(html: &str) -> Vec<(Block, &str)> {
    let bytes = html.as_bytes();
    let mut out = Vec::new();
    let mut total = 0usize;
    let mut seen = 0usize;
    let mut at = 0usize;
    while let Some(i) = memchr::memchr(b'<', &bytes[at..]) {
        let start = at + i;
        let rest = &bytes[start..];
        if rest.starts_with(b"<!--") {
            match memchr::memmem::find(&rest[4..], b"-->") {
                Some(j) => {
                    at = start + 4 + j + 3;
                    continue;
                }
                None => break,
            }
        }
        if !(rest.len() > 7
            && rest[1..7].eq_ignore_ascii_case(b"script")
            && matches!(
                rest[7],
                b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'>' | b'/'
            ))
        {
            at = start + 1;
            continue;
        }
        let Some((attrs, open_end)) = tag_attrs(bytes, start + 7) else {
            break;
        };
        let Some(close) = script_end(bytes, open_end) else {
            break;
        };
        at = close;
        seen += 1;
        if seen > SCRIPTS_MAX {
            break;
        }
        let len = close - open_end;
        let text = &html[open_end..close];
        let block = match classify(&attrs, text) {
            Some((block, json)) => (block, json),
            None => continue,
        };
        if len > SCRIPT_MAX_BYTES || total + len > SCRIPTS_TOTAL_BYTES {
            continue;
        }
        total += len;
        out.push(block);
    }
    out
}

/// The `type` of a script tag whose attributes start at `from`, and where
/// its text starts. `None` when the tag does not end.
fn tag_attrs(bytes: &[u8], from: usize) -> Option<(ScriptAttrs, usize)> {
    let mut attrs = ScriptAttrs::default();
    let mut i = from;
    loop {
        while i < bytes.len() && (bytes[i].is_ascii_whitespace() || bytes[i] == b'/') {
            i += 1;
        }
        let &b = bytes.get(i)?;
        if b == b'>' {
            return Some((attrs, i + 1));
        }
        let name_start = i;
        while i < bytes.len()
            && !matches!(bytes[i], b'=' | b'>' | b'/')
            && !bytes[i].is_ascii_whitespace()
        {
            i += 1;
        }
        let name = &bytes[name_start..i];
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        let mut value: &[u8] = b"";
        if bytes.get(i) == Some(&b'=') {
            i += 1;
            while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                i += 1;
            }
            match bytes.get(i) {
                Some(&q @ (b'"' | b'\'')) => {
                    let end = memchr::memchr(q, &bytes[i + 1..])?;
                    value = &bytes[i + 1..i + 1 + end];
                    i += end + 2;
                }
                Some(_) => {
                    let start = i;
                    while i < bytes.len() && bytes[i] != b'>' && !bytes[i].is_ascii_whitespace() {
                        i += 1;
                    }
                    value = &bytes[start..i];
                }
                None => return None,
            }
        }
        if name.eq_ignore_ascii_case(b"type") {
            attrs.kind = Some(String::from_utf8_lossy(value).trim().to_ascii_lowercase());
        }
    }
}

#[derive(Debug, Default)]
struct ScriptAttrs {
    kind: Option<String>,
}

/// Where the script text from `from` ends: at the next `</script` followed
/// by a space, `/` or `>` (the tokenizer's rule, escapes aside).
fn script_end(bytes: &[u8], from: usize) -> Option<usize> {
    let mut at = from;
    loop {
        let i = memchr::memmem::find(&bytes[at..], b"</")?;
        let start = at + i;
        let rest = &bytes[start..];
        if rest.len() >= 9
            && rest[2..8].eq_ignore_ascii_case(b"script")
            && matches!(
                rest[8],
                b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'>' | b'/'
            )
        {
            return Some(start);
        }
        at = start + 2;
    }
}

/// Which kind of data a script holds, and its JSON text.
fn classify<'a>(attrs: &ScriptAttrs, text: &'a str) -> Option<(Block, &'a str)> {
    let essence = attrs
        .kind
        .as_deref()
        .map(|t| t.split(';').next().unwrap_or_default().trim());
    match essence {
        Some(t) if dom::names_linked_data(t) => Some((Block::LinkedData, text)),
        Some("application/json") => Some((Block::PageData, text)),
        None | Some("" | "text/javascript" | "application/javascript" | "module") => {
            window_assignment(text).map(|json| (Block::PageData, json))
        }
        Some(_) => None,
    }
}

/// The value of a script that is one assignment `window.NAME = {…};` (or
/// `window["NAME"] = …`) of what may be plain JSON; its parse decides.
fn window_assignment(text: &str) -> Option<&str> {
    let t = text.trim_start().strip_prefix("window")?;
    let t = t.trim_start();
    let t = if let Some(rest) = t.strip_prefix('.') {
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$'))
            .unwrap_or(rest.len());
        if end == 0 {
            return None;
        }
        &rest[end..]
    } else {
        let rest = t.strip_prefix('[')?;
        let end = rest.find(']')?;
        if end > 100 {
            return None;
        }
        &rest[end + 1..]
    };
    let t = t.trim_start().strip_prefix('=')?.trim();
    let t = t.strip_suffix(';').unwrap_or(t).trim_end();
    (t.starts_with('{') || t.starts_with('[')).then_some(t)
}

#[cfg(test)]
mod tests;
