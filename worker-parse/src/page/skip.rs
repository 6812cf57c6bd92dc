//! What the parser need not read, found before parsing: the contents of
//! `<script>` and `<style>` elements and of inline drawings (`<svg>`,
//! `<math>`), the text of comments, and the attributes extraction never
//! reads.
//!
//! Scripts, style sheets, drawings and attributes such as `srcset` or
//! `data-*` are about two thirds of the bench pages' bytes and never
//! content. html5ever reads them character by character into nodes and
//! attributes that extraction then ignores; leaving them out of its input
//! roughly halves the work. No crate offers this (a tokenizer that skips
//! raw text still tokenizes it), so the scan is our own.
//!
//! The scan follows the tokenizer's states far enough to know where such
//! content starts and ends: tags with their quoted attribute values,
//! comments, doctypes and bogus comments, the elements whose content is raw
//! text or RCDATA, and a script's escape states (`<!--`, and a `<script>`
//! inside it). Which of those states the tokenizer is in also depends on
//! the tree builder: inside SVG and MathML nothing is raw text, and a
//! `<frameset>` changes which start tags count. The scan follows SVG and
//! MathML elements on a stack of its own and, wherever it cannot be sure it
//! agrees with the parser, stops and leaves the rest of the document to the
//! parser whole:
//!
//! - a `<frameset>` (then nothing is skipped at all), `<plaintext>` or
//!   CDATA section;
//! - inside SVG or MathML: a tag that leaves foreign content (`<p>`,
//!   `<div>`, …), markup inside an integration point (`<foreignObject>`,
//!   `<title>`, `<mi>`, …), or an end tag for no open foreign element.
//!
//! Attributes are left out only where the tree builder never reads them
//! (not on formatting elements, `<template>` or drawings) and only when
//! spaces before and a space or `>` after keep their neighbours apart.
//!
//! The tree is the same either way: the property tests of `dom` (which
//! reads the page with and without the scan), every bench page (checked
//! while building it) and the `html_skip` fuzz target compare the two.

use std::borrow::Cow;
use std::ops::Range;

use super::attrs::{attrs_unread, kept_attr_name};

/// What the scan before parsing found: the byte ranges of `html` the
/// parser may skip, and how far the scan followed the tokenizer.
pub(crate) struct Scanned {
    /// The contents of `<script>` and `<style>` elements and the text of
    /// comments in HTML content, and SVG and MathML drawings (which
    /// extraction never reads) that hold nothing that would reach outside
    /// them, in document order. Every bound is at an ASCII byte, so on a
    /// character boundary.
    pub(crate) skip: Vec<Range<usize>>,
    /// The scan knows the tokenizer's state before this index: the `<` of
    /// the construct it stopped at (see the module's notes), or the end.
    /// Every range of `skip` ends before it.
    pub(crate) read_to: usize,
}

/// Scans `html` before parsing (see the module's notes).
///
/// `scripting` must be the parser's scripting flag: with it, `<noscript>`
/// content is raw text.
pub(crate) fn scan(html: &str, scripting: bool) -> Scanned {
    let mut scan = Scan::new(html, 0, scripting);
    // `None` ends the scan: the end of the input, or a construct after which
    // the scan cannot be sure it agrees with the parser.
    let _ = scan.run();
    // Text inside SVG or MathML tells the tree builder that a later
    // `<frameset>` may no longer replace the body; on a page that might
    // have one, the parser reads everything.
    if scan.frameset || contains_ignore_case(&scan.b[scan.pos.min(scan.b.len())..], b"<frameset") {
        return Scanned {
            skip: Vec::new(),
            read_to: 0,
        };
    }
    let read_to = if scan.done { html.len() } else { scan.at };
    // The attributes of the tag the scan stopped at may have been noted.
    scan.out.retain(|r| r.end <= read_to);
    Scanned {
        skip: scan.out,
        read_to,
    }
}

/// The ranges of [`scan`].
#[cfg(test)]
pub(crate) fn skippable(html: &str, scripting: bool) -> Vec<Range<usize>> {
    scan(html, scripting).skip
}

/// Where the data state resumes after the markup that starts at `lt` (a
/// `<` followed by a letter, `!`, `/` or `?`) in HTML content: after a
/// tag, a comment, a doctype; after the end tag of an element whose content
/// is raw text or RCDATA; after an SVG or MathML element closed at once.
/// `None` when the tokenizer's state after it is not known here: the input
/// ends first, an element whose content is read as markup of another kind
/// (`<plaintext>`, a drawing with content).
pub(crate) fn markup_end(html: &str, lt: usize, scripting: bool) -> Option<usize> {
    let mut scan = Scan::new(html, lt, scripting);
    let b = scan.b;
    match *b.get(lt + 1)? {
        b'!' => scan.markup_declaration(lt + 2),
        b'?' => scan.after(b'>', lt + 2),
        b'/' => match *b.get(lt + 2)? {
            c if c.is_ascii_alphabetic() => scan.tag(lt + 2).map(|t| t.end),
            b'>' => Some(lt + 3),
            _ => scan.after(b'>', lt + 2),
        },
        c if c.is_ascii_alphabetic() => {
            let tag = scan.tag(lt + 1)?;
            scan.pos = tag.end;
            let name = &*tag.name;
            let content_end = match name {
                b"script" => scan.script_end()?,
                b"style" | b"title" | b"textarea" | b"xmp" | b"iframe" | b"noembed"
                | b"noframes" => scan.raw_text_end(name)?,
                b"noscript" if scripting => scan.raw_text_end(name)?,
                b"plaintext" => return None,
                b"svg" | b"math" if !tag.self_closing => {
                    scan.end_tag_at(tag.end, name)?;
                    tag.end
                }
                _ => return Some(tag.end),
            };
            // The element's end tag, attributes and all.
            scan.tag(content_end + 2).map(|t| t.end)
        }
        _ => None,
    }
}

struct Scan<'a> {
    b: &'a [u8],
    pos: usize,
    /// The `<` of the construct being read.
    at: usize,
    /// The scan reached the end of the input.
    done: bool,
    /// Open SVG and MathML elements (lower-cased names), outermost first;
    /// empty in HTML content.
    foreign: Vec<Vec<u8>>,
    /// Attributes of the last tag that the parser may skip.
    attrs: Vec<Range<usize>>,
    /// Where the content of the outermost open foreign element starts.
    foreign_from: usize,
    /// A `<frameset>` start tag was seen.
    frameset: bool,
    scripting: bool,
    out: Vec<Range<usize>>,
}

/// Start tags that end foreign content (the tree builder's list, with
/// `font` whatever its attributes and `html` for good measure).
const BREAKOUT: &[&[u8]] = &[
    b"b",
    b"big",
    b"blockquote",
    b"body",
    b"br",
    b"center",
    b"code",
    b"dd",
    b"div",
    b"dl",
    b"dt",
    b"em",
    b"embed",
    b"font",
    b"h1",
    b"h2",
    b"h3",
    b"h4",
    b"h5",
    b"h6",
    b"head",
    b"hr",
    b"html",
    b"i",
    b"img",
    b"li",
    b"listing",
    b"menu",
    b"meta",
    b"nobr",
    b"ol",
    b"p",
    b"pre",
    b"ruby",
    b"s",
    b"small",
    b"span",
    b"strike",
    b"strong",
    b"sub",
    b"sup",
    b"table",
    b"tt",
    b"u",
    b"ul",
    b"var",
];

/// HTML start tags whose attributes the tree builder reads: the formatting
/// elements (it compares their attributes to decide which to reopen), a
/// template's shadow root mode, and the drawings (whose `/>` matters).
/// Not `<a>`: a new one closes the open one first, so no two are ever
/// compared.
const ATTRIBUTES_MATTER: &[&[u8]] = &[
    b"b",
    b"big",
    b"code",
    b"em",
    b"font",
    b"i",
    b"nobr",
    b"s",
    b"small",
    b"strike",
    b"strong",
    b"tt",
    b"u",
    b"template",
    b"svg",
    b"math",
];

/// SVG and MathML elements whose content the tree builder reads as HTML.
const INTEGRATION: &[&[u8]] = &[
    b"foreignobject",
    b"desc",
    b"title",
    b"mi",
    b"mo",
    b"mn",
    b"ms",
    b"mtext",
    b"annotation-xml",
];

/// Whitespace as the tokenizer sees it (CR is read as LF before it).
fn space(c: u8) -> bool {
    matches!(c, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ')
}

impl<'a> Scan<'a> {
    /// A scan of `html` from `pos`, in HTML content.
    fn new(html: &'a str, pos: usize, scripting: bool) -> Self {
        Self {
            b: html.as_bytes(),
            pos,
            at: pos,
            done: false,
            foreign: Vec::new(),
            attrs: Vec::new(),
            foreign_from: 0,
            scripting,
            frameset: false,
            out: Vec::new(),
        }
    }

    fn run(&mut self) -> Option<()> {
        loop {
            let Some(lt) = memchr(b'<', &self.b[self.pos..]).map(|k| self.pos + k) else {
                self.done = true;
                return None;
            };
            self.at = lt;
            let Some(&next) = self.b.get(lt + 1) else {
                // A `<` at the end is text.
                self.done = true;
                return None;
            };
            if next == b'!' {
                self.pos = self.markup_declaration(lt + 2)?;
            } else if next == b'?' {
                self.pos = self.after(b'>', lt + 2)?;
            } else if next == b'/' {
                match *self.b.get(lt + 2)? {
                    c if c.is_ascii_alphabetic() => {
                        let tag = self.tag(lt + 2)?;
                        self.pos = tag.end;
                        self.end_tag(&tag.name, lt)?;
                    }
                    b'>' => self.pos = lt + 3,
                    _ => self.pos = self.after(b'>', lt + 2)?,
                }
            } else if next.is_ascii_alphabetic() {
                let tag = self.tag(lt + 1)?;
                self.pos = tag.end;
                if self.foreign.is_empty() && !ATTRIBUTES_MATTER.contains(&&*tag.name) {
                    self.out.extend(self.attrs.iter().cloned());
                }
                self.start_tag(&tag)?;
            } else {
                self.pos = lt + 1;
            }
        }
    }

    /// After `<!`: a comment, a doctype or a bogus comment. Answers where the
    /// data state resumes. A comment's text is never read: in HTML content
    /// it is skipped (`<!--` and `-->` stay, an empty comment in its place).
    fn markup_declaration(&mut self, at: usize) -> Option<usize> {
        let rest = &self.b[at..];
        if rest.starts_with(b"--") {
            let (text_end, resume) = self.comment_end(at + 2)?;
            // In a drawing the comment is the drawing's, skipped with it.
            if self.foreign.is_empty() && text_end > at + 2 {
                self.out.push(at + 2..text_end);
            }
            return Some(resume);
        }
        if rest.starts_with(b"[CDATA[") {
            // CDATA in foreign content, a bogus comment elsewhere: which one
            // depends on the tree; stop.
            return None;
        }
        // A doctype or a bogus comment: both end at the first `>`.
        self.after(b'>', at)
    }

    /// The end of a comment whose text starts at `at` (after `<!--`): where
    /// its text ends (the `--` of `-->` or `--!>`) and where the data state
    /// resumes.
    fn comment_end(&self, at: usize) -> Option<(usize, usize)> {
        let rest = &self.b[at..];
        // `<!-->` and `<!--->` end at once.
        if rest.starts_with(b">") {
            return Some((at, at + 1));
        }
        if rest.starts_with(b"->") {
            return Some((at, at + 2));
        }
        let mut i = at;
        loop {
            i += memchr(b'-', &self.b[i..])?;
            let tail = &self.b[i..];
            if tail.starts_with(b"-->") {
                return Some((i, i + 3));
            }
            if tail.starts_with(b"--!>") {
                return Some((i, i + 4));
            }
            i += 1;
        }
    }

    /// The index after the next `c` at or after `at`.
    fn after(&self, c: u8, at: usize) -> Option<usize> {
        Some(at + memchr(c, self.b.get(at..)?)? + 1)
    }

    /// A tag whose name starts at `at`: its lower-cased name (copied only
    /// when it has capitals), whether it is self-closing, and the index
    /// after its `>`. Attribute values are followed through their quotes,
    /// as the tokenizer does.
    fn tag(&mut self, at: usize) -> Option<Tag<'a>> {
        let b = self.b;
        self.attrs.clear();
        let mut i = at;
        while i < b.len() && !space(b[i]) && b[i] != b'/' && b[i] != b'>' {
            i += 1;
        }
        let raw = &b[at..i];
        let name = if raw.iter().any(u8::is_ascii_uppercase) {
            Cow::Owned(raw.to_ascii_lowercase())
        } else {
            Cow::Borrowed(raw)
        };
        let unread = attrs_unread(&name);
        // Where the run of spaces before the next attribute started.
        let mut spaces: Option<usize> = None;
        // Before an attribute name (or right after the tag name).
        loop {
            match *b.get(i)? {
                c if space(c) => {
                    spaces.get_or_insert(i);
                    i += 1;
                }
                b'>' => return Some(Tag::new(name, false, i + 1)),
                b'/' => {
                    // Self-closing only when `>` follows at once.
                    if b.get(i + 1) == Some(&b'>') {
                        return Some(Tag::new(name, true, i + 2));
                    }
                    spaces = None;
                    i += 1;
                }
                _ => {
                    // An attribute name: up to space, `/`, `>` or `=` (its
                    // first character may be `=`).
                    let from = i;
                    i += 1;
                    while !matches!(*b.get(i)?, b'/' | b'>' | b'=') && !space(b[i]) {
                        i += 1;
                    }
                    let name_end = i;
                    while space(*b.get(i)?) {
                        i += 1;
                    }
                    if b[i] != b'=' {
                        self.attribute(spaces, from..name_end, name_end, unread);
                        spaces = (i > name_end).then_some(name_end);
                        continue;
                    }
                    i += 1;
                    while space(*b.get(i)?) {
                        i += 1;
                    }
                    match b[i] {
                        q @ (b'"' | b'\'') => i = self.after(q, i + 1)?,
                        b'>' => {}
                        _ => {
                            // Unquoted: up to space or `>`.
                            while !space(*b.get(i)?) && b[i] != b'>' {
                                i += 1;
                            }
                        }
                    }
                    self.attribute(spaces, from..name_end, i, unread);
                    spaces = None;
                }
            }
        }
    }

    /// Notes an attribute named by `name`, ending at `end`, whose spaces
    /// before it start at `spaces`, if extraction does not read it (none
    /// is read when `unread`: see `attrs_unread`). One not set off by
    /// spaces before it and a space or `>` after it stays: removing it
    /// would join its neighbours into something else (an unquoted value
    /// before it would take in a `/` after it).
    fn attribute(&mut self, spaces: Option<usize>, name: Range<usize>, end: usize, unread: bool) {
        let Some(from) = spaces else { return };
        if !self.b.get(end).is_some_and(|&c| space(c) || c == b'>') {
            return;
        }
        let name = &self.b[name];
        let kept = !unread
            && if name.iter().any(u8::is_ascii_uppercase) {
                kept_attr_name(&name.to_ascii_lowercase())
            } else {
                kept_attr_name(name)
            };
        if !kept {
            self.attrs.push(from..end);
        }
    }

    fn start_tag(&mut self, tag: &Tag<'_>) -> Option<()> {
        let name = &*tag.name;
        if !self.foreign.is_empty() {
            return self.foreign_start(tag);
        }
        match name {
            b"script" => {
                let end = self.script_end()?;
                self.skip_to(end);
            }
            b"style" => {
                let end = self.raw_text_end(b"style")?;
                self.skip_to(end);
            }
            b"title" | b"textarea" | b"xmp" | b"iframe" | b"noembed" | b"noframes" => {
                self.pos = self.raw_text_end(name)?;
            }
            b"noscript" if self.scripting => self.pos = self.raw_text_end(name)?,
            b"frameset" => {
                self.frameset = true;
                return None;
            }
            b"plaintext" => return None,
            b"svg" | b"math" if !tag.self_closing => {
                self.foreign.push(tag.name.to_vec());
                self.foreign_from = self.pos;
            }
            _ => {}
        }
        Some(())
    }

    fn foreign_start(&mut self, tag: &Tag<'_>) -> Option<()> {
        let name = &*tag.name;
        if BREAKOUT.contains(&name) {
            return None;
        }
        if tag.self_closing {
            return Some(());
        }
        if INTEGRATION.contains(&name) {
            // Text only: the next tag must be this element's end tag.
            let lt = self.pos + memchr(b'<', &self.b[self.pos..])?;
            self.end_tag_at(lt, name)?;
        }
        self.foreign.push(tag.name.to_vec());
        Some(())
    }

    /// An end tag whose `<` is at `lt`.
    fn end_tag(&mut self, name: &[u8], lt: usize) -> Option<()> {
        if self.foreign.is_empty() {
            return Some(());
        }
        // The foreign end tag closes the nearest open element of its name;
        // one that names none would reach the HTML elements below.
        let open = self.foreign.iter().rposition(|n| n == name)?;
        self.foreign.truncate(open);
        if self.foreign.is_empty() && lt > self.foreign_from {
            // A drawing, closed with nothing in it that reaches outside:
            // extraction never reads it.
            self.out.push(self.foreign_from..lt);
        }
        Some(())
    }

    /// Where the raw text (or RCDATA) of element `name`, starting at
    /// `self.pos`, ends: the `<` of its end tag.
    fn raw_text_end(&self, name: &[u8]) -> Option<usize> {
        let mut i = self.pos;
        loop {
            i += memchr(b'<', &self.b[i..])?;
            if self.end_tag_at(i, name).is_some() {
                return Some(i);
            }
            i += 1;
        }
    }

    /// Where the content of a script starting at `self.pos` ends: the `<`
    /// of its end tag. The tokenizer's script data states are followed
    /// through `<!--` (escaped) and a `<script` inside it (double escaped),
    /// where `</script>` ends the inner script, not this one.
    fn script_end(&self) -> Option<usize> {
        #[derive(Clone, Copy, PartialEq)]
        enum State {
            Data,
            Escaped,
            DoubleEscaped,
        }
        let b = self.b;
        let mut state = State::Data;
        let mut i = self.pos;
        loop {
            // Only `<` matters outside an escape; `-` too inside one.
            i += match state {
                State::Data => memchr(b'<', b.get(i..)?)?,
                _ => memchr::memchr2(b'<', b'-', b.get(i..)?)?,
            };
            let c = b[i];
            if c == b'-' && b[i..].starts_with(b"-->") {
                // `-->` leaves either escape (the dash-dash states).
                state = State::Data;
                i += 3;
                continue;
            }
            if c != b'<' {
                i += 1;
                continue;
            }
            let rest = &b[i + 1..];
            if rest.first() == Some(&b'/') {
                let is_end = tag_named(&rest[1..], b"script")?;
                match state {
                    State::Data | State::Escaped if is_end => return Some(i),
                    State::DoubleEscaped if is_end => state = State::Escaped,
                    _ => {}
                }
                i += 2;
            } else if state == State::Data && rest.starts_with(b"!--") {
                // The dashes of `<!--` count towards a following `-->`, so
                // `<!-->` goes in and out at once.
                state = State::Escaped;
                i += 2;
            } else if state == State::Escaped && tag_named(rest, b"script")? {
                state = State::DoubleEscaped;
                i += 1;
            } else {
                i += 1;
            }
        }
    }

    /// Whether `</name` followed by space, `/` or `>` starts at `lt`.
    fn end_tag_at(&self, lt: usize, name: &[u8]) -> Option<()> {
        let rest = self.b.get(lt..)?;
        let after = rest.get(2 + name.len())?;
        (rest.starts_with(b"</")
            && rest[2..2 + name.len()].eq_ignore_ascii_case(name)
            && (space(*after) || *after == b'/' || *after == b'>'))
            .then_some(())
    }

    /// Records the content from `self.pos` to `end` as skippable and moves
    /// to the end tag.
    fn skip_to(&mut self, end: usize) {
        if end > self.pos {
            self.out.push(self.pos..end);
        }
        self.pos = end;
    }
}

/// Whether `rest` starts with `name` (any case) followed by space, `/` or
/// `>`; `None` when the input ends before that is known.
fn tag_named(rest: &[u8], name: &[u8]) -> Option<bool> {
    let after = *rest.get(name.len())?;
    Some(
        rest[..name.len()].eq_ignore_ascii_case(name)
            && (space(after) || after == b'/' || after == b'>'),
    )
}

struct Tag<'a> {
    name: Cow<'a, [u8]>,
    self_closing: bool,
    end: usize,
}

impl<'a> Tag<'a> {
    fn new(name: Cow<'a, [u8]>, self_closing: bool, end: usize) -> Self {
        Self {
            name,
            self_closing,
            end,
        }
    }
}

fn contains_ignore_case(hay: &[u8], needle: &[u8]) -> bool {
    let mut i = 0;
    while let Some(at) = hay.get(i..).and_then(|rest| memchr(needle[0], rest)) {
        i += at;
        if hay
            .get(i..i + needle.len())
            .is_some_and(|w| w.eq_ignore_ascii_case(needle))
        {
            return true;
        }
        i += 1;
    }
    false
}

fn memchr(c: u8, hay: &[u8]) -> Option<usize> {
    memchr::memchr(c, hay)
}

#[cfg(test)]
mod tests;
