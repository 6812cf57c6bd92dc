//! Feeding the tree builder: the plain tags and text of a page go to
//! html5ever's tree builder as tokens made here; everything else goes
//! through html5ever's own tokenizer.
//!
//! html5ever's tokenizer reads a tag character by character, through a
//! state machine and a queue of buffers: on the bench pages, once scripts,
//! styles and unread attributes are left out (`skip`), about two thirds of
//! the parse is spent there, mostly on tag and attribute names. Most tags
//! are plain (`<div class="a b">`, `</p>`): for those, the token the
//! tokenizer would make is easy to make at once. html5ever lets a caller
//! hand tokens to its tree builder (`TokenSink`), so the tree is still
//! built by html5ever; only the reading of plain markup is ours. No crate
//! offers a faster tokenizer for html5ever's tree builder, which is why
//! this is our own.
//!
//! What is made here is only what has a single reading: a start or end
//! tag with no NUL or carriage return outside its values, whose
//! attributes are set off by spaces and their values by quotes or spaces;
//! text and attribute values without NUL whose character references read
//! the same whatever follows them (`&amp;`, `&#233;`), their line breaks
//! read as the tokenizer's input reads them ([`decoded`]); and empty
//! comments (the scan leaves comments empty). Whatever else (doctypes, other character references,
//! raw-text elements such as `<script>` or `<title>` with content, for
//! which the tree builder switches the tokenizer's state, drawings with
//! content, odd tags) goes to html5ever's tokenizer, from where the last
//! plain token ended to the end of that markup, after which the tokenizer
//! is back in its data state. Past the point where the scan before
//! parsing stopped following the tokenizer, everything goes to it.
//!
//! The tree is the same either way: the property tests of `dom`, every
//! bench page and the `html_skip` fuzz target compare the two.

use std::borrow::Cow;

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::{CharacterTokens, CommentToken, EndTag, StartTag, Tag, TagToken, Token};
use html5ever::{Attribute, LocalName, QualName, local_name, ns};

/// Bytes of text handed to html5ever's tokenizer at a time, when it reads
/// the rest of a page: parsing overruns a bound by at most this much.
const CHUNK: usize = 4096;

/// What the tokens go to: html5ever's tree builder, and its tokenizer for
/// what is not read here.
pub(crate) trait Parser {
    /// A token to the tree builder.
    fn token(&self, token: Token);
    /// Text to html5ever's tokenizer, which reads it to the end.
    fn tokenize(&self, text: &str);
    /// A bound was hit: stop feeding.
    fn cut(&self) -> bool;
}

/// Feeds `src` to `parser`; the scan before parsing followed the
/// tokenizer up to `read_to`. Text and attribute values are handed on as
/// slices of `src`, which share its buffer, or decoded where they hold a
/// character reference or a carriage return.
pub(crate) fn feed(parser: &impl Parser, src: &StrTendril, read_to: usize, scripting: bool) {
    let html: &str = src;
    let b = html.as_bytes();
    let mut i = 0;
    // Text not yet handed on, which goes to the tokenizer with the markup
    // after it (a character reference may wait for what follows).
    let mut held: Option<usize> = None;
    while i < read_to {
        if parser.cut() {
            return;
        }
        let lt = markup_start(b, i).min(read_to);
        if lt > i {
            let text = &html[i..lt];
            if held.is_none() && plain_text(text) {
                parser.token(CharacterTokens(slice(src, i, lt)));
            } else if held.is_none()
                && lt < read_to
                && let Some(text) = decoded(text)
            {
                // Markup follows: no reference or line break goes on into it.
                parser.token(CharacterTokens(StrTendril::from(text)));
            } else {
                held.get_or_insert(i);
            }
        }
        if lt >= read_to {
            i = lt;
            break;
        }
        if held.is_none()
            && let Some(end) = plain_markup(parser, src, lt, read_to)
        {
            i = end;
            continue;
        }
        let from = held.take().unwrap_or(lt);
        match super::skip::markup_end(html, lt, scripting) {
            Some(end) if end <= read_to => {
                tokenize(parser, &html[from..end]);
                i = end;
            }
            _ => {
                i = from;
                break;
            }
        }
    }
    // The rest, if any, is read by the tokenizer.
    tokenize(parser, &html[held.unwrap_or(i).min(html.len())..]);
}

/// Hands `html` to html5ever's tokenizer a chunk at a time, until a bound
/// is hit.
pub(crate) fn tokenize(parser: &impl Parser, mut html: &str) {
    while !html.is_empty() && !parser.cut() {
        let mut end = html.len().min(CHUNK);
        while !html.is_char_boundary(end) {
            end += 1;
        }
        let (chunk, tail) = html.split_at(end);
        parser.tokenize(chunk);
        html = tail;
    }
}

/// Hands on the plain markup at `lt`, if it is, and answers the index
/// after it: a plain tag; an empty comment (the scan before parsing leaves
/// comments' text out); an element of those the tokenizer reads
/// ([`tokenizer_reads`]) with nothing in it, whose end tag follows its
/// start tag at once: the tokenizer makes the same two tokens whether or
/// not the tree builder switches its state between them.
fn plain_markup(
    parser: &impl Parser,
    src: &StrTendril,
    lt: usize,
    read_to: usize,
) -> Option<usize> {
    let b = src.as_bytes();
    if b[lt + 1] == b'!' {
        if !b[lt..read_to].starts_with(b"<!---->") {
            return None;
        }
        parser.token(CommentToken(StrTendril::new()));
        return Some(lt + 7);
    }
    let (tag, end) = plain_tag(src, lt)?;
    if end > read_to {
        return None;
    }
    if !tokenizer_reads(tag.name.as_bytes()) {
        parser.token(TagToken(tag));
        return Some(end);
    }
    if tag.kind != StartTag || tag.name == local_name!("plaintext") {
        return None;
    }
    if tag.self_closing && matches!(&*tag.name, "svg" | "math") {
        parser.token(TagToken(tag));
        return Some(end);
    }
    let (end_tag, after) = plain_tag(src, end)
        .filter(|(t, after)| t.kind == EndTag && t.name == tag.name && *after <= read_to)?;
    parser.token(TagToken(tag));
    parser.token(TagToken(end_tag));
    Some(after)
}

/// The next `<` at or after `i` that starts markup (followed by a letter,
/// `!`, `/` or `?`), or the end: any other `<` is text.
fn markup_start(b: &[u8], mut i: usize) -> usize {
    while let Some(k) = memchr::memchr(b'<', &b[i..]) {
        let lt = i + k;
        match b.get(lt + 1) {
            Some(c) if c.is_ascii_alphabetic() || matches!(c, b'!' | b'/' | b'?') => return lt,
            _ => i = lt + 1,
        }
    }
    b.len()
}

/// Text the tokenizer passes on as it is.
fn plain_text(text: &str) -> bool {
    memchr::memchr3(b'&', b'\0', b'\r', text.as_bytes()).is_none()
}

/// `text` (text between markup, or an attribute's value) as the
/// tokenizer reads it, when its character references read the same
/// whatever follows them, in text or in an attribute: a name the entity
/// table holds with its `;` (`&amp;`, `&quot;`); a `&` that no name or `#`
/// follows; a name that no name the table holds begins (`&w=300` in a
/// link), which is text; a number with its `;` that stands for a character
/// as it is (not NUL, a control character, a surrogate, a noncharacter or
/// beyond Unicode, which the tokenizer replaces or reports). Its line
/// breaks are read as the tokenizer's input reads them: CR LF, and a CR
/// alone, as LF. `None` for text with any other reference (a name the
/// table holds without `;`, as `&copy2024`, which an attribute keeps and
/// text decodes; a number without its `;`), or with NUL. Pages escape
/// quotes and ampersands, and many end their lines with CR LF: without
/// this, each such text and tag would go to the tokenizer.
fn decoded(text: &str) -> Option<String> {
    let table = &html5ever::data::NAMED_ENTITIES;
    let b = text.as_bytes();
    if memchr::memchr(b'\0', b).is_some() {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut from = 0;
    // A reference read ends before the next `&`: names and numbers are
    // letters and digits.
    for amp in memchr::memchr_iter(b'&', b) {
        push_lines(&mut out, &text[from..amp]);
        from = amp + 1;
        let rest = &b[amp + 1..];
        match rest.first() {
            Some(c) if c.is_ascii_alphanumeric() => {
                let n = rest
                    .iter()
                    .take_while(|c| c.is_ascii_alphanumeric())
                    .count();
                if rest.get(n) == Some(&b';')
                    && let Some(&(c1, c2)) = table.get(&text[amp + 1..=amp + 1 + n])
                    && c1 != 0
                {
                    // The longest match: names end at their `;`.
                    out.push(plain_char(c1)?);
                    if c2 != 0 {
                        out.push(plain_char(c2)?);
                    }
                    from = amp + 2 + n;
                    continue;
                }
                // Not read: unless a name the table holds without `;`
                // begins it, it is text.
                let name = &text[amp + 1..amp + 1 + n];
                if (1..=n).any(|k| table.get(&name[..k]).is_some_and(|m| m.0 != 0)) {
                    return None;
                }
                out.push('&');
            }
            Some(b'#') => {
                let (digits, radix) = match rest.get(1) {
                    Some(b'x' | b'X') => (&rest[2..], 16),
                    _ => (&rest[1..], 10),
                };
                let n = digits
                    .iter()
                    .take_while(|&&c| char::from(c).is_digit(radix))
                    .count();
                if n == 0 || n > 8 || digits.get(n) != Some(&b';') {
                    return None;
                }
                let code =
                    u32::from_str_radix(std::str::from_utf8(&digits[..n]).ok()?, radix).ok()?;
                out.push(plain_char(code)?);
                from = amp + 1 + (rest.len() - digits.len()) + n + 1;
            }
            _ => out.push('&'),
        }
    }
    push_lines(&mut out, &text[from..]);
    Some(out)
}

/// Appends `text` with CR LF, and a CR alone, as LF. A piece of text
/// ends before a `&` or markup, so no CR LF is split between two.
fn push_lines(out: &mut String, mut text: &str) {
    while let Some(cr) = memchr::memchr(b'\r', text.as_bytes()) {
        out.push_str(&text[..cr]);
        out.push('\n');
        text = &text[cr + 1..];
        text = text.strip_prefix('\n').unwrap_or(text);
    }
    out.push_str(text);
}

/// The character a reference stands for as it is: a printable ASCII
/// character or one from U+00A0 on that is no surrogate and no
/// noncharacter. `None` for the others, which the tokenizer reads.
fn plain_char(code: u32) -> Option<char> {
    let plain = matches!(code, 0x20..=0x7E | 0xA0..=0x10_FFFF)
        && !matches!(code, 0xFDD0..=0xFDEF)
        && code & 0xFFFE != 0xFFFE;
    char::from_u32(code).filter(|_| plain)
}

/// Whitespace as the tokenizer sees it in a tag (a carriage return is not
/// plain).
fn space(c: u8) -> bool {
    matches!(c, b'\t' | b'\n' | b'\x0c' | b' ')
}

/// Elements for whose content the tree builder switches the tokenizer's
/// state (raw text, RCDATA, plain text), or whose content is foreign:
/// their tags are made here only with nothing between them
/// ([`plain_markup`]), else they go to the tokenizer with their content.
fn tokenizer_reads(name: &[u8]) -> bool {
    matches!(
        name,
        b"script"
            | b"style"
            | b"title"
            | b"textarea"
            | b"xmp"
            | b"iframe"
            | b"noembed"
            | b"noframes"
            | b"noscript"
            | b"plaintext"
            | b"svg"
            | b"math"
    )
}

/// A plain start or end tag at `lt` and the index after it: the token
/// html5ever's tokenizer would make of it.
fn plain_tag(src: &StrTendril, lt: usize) -> Option<(Tag, usize)> {
    let html: &str = src;
    let b = html.as_bytes();
    let (kind, mut i) = match b.get(lt + 1)? {
        b'/' => (EndTag, lt + 2),
        _ => (StartTag, lt + 1),
    };
    if !b.get(i)?.is_ascii_alphabetic() {
        return None;
    }
    let name_from = i;
    while !matches!(*b.get(i)?, b'/' | b'>') && !space(b[i]) {
        if matches!(b[i], b'\0' | b'\r') {
            return None;
        }
        i += 1;
    }
    let name = lower(&html[name_from..i]);
    let mut tag = Tag {
        kind,
        name: local_name(&name),
        self_closing: false,
        attrs: Vec::new(),
        had_duplicate_attributes: false,
    };
    loop {
        while space(*b.get(i)?) {
            i += 1;
        }
        match b[i] {
            b'>' => return Some((tag, i + 1)),
            b'/' if b.get(i + 1) == Some(&b'>') && kind == StartTag => {
                tag.self_closing = true;
                return Some((tag, i + 2));
            }
            // An end tag with attributes, a lone `/`, a name that starts
            // with `=`: the tokenizer's.
            b'/' | b'=' => return None,
            _ if kind == EndTag => return None,
            _ => {}
        }
        let from = i;
        while !matches!(*b.get(i)?, b'/' | b'>' | b'=') && !space(b[i]) {
            if matches!(b[i], b'\0' | b'\r') {
                return None;
            }
            i += 1;
        }
        let attr_name = lower(&html[from..i]);
        while space(*b.get(i)?) {
            i += 1;
        }
        let mut value = i..i;
        if b[i] == b'=' {
            i += 1;
            while space(*b.get(i)?) {
                i += 1;
            }
            match b[i] {
                q @ (b'"' | b'\'') => {
                    let len = memchr::memchr(q, b.get(i + 1..)?)?;
                    value = i + 1..i + 1 + len;
                    i += len + 2;
                    // A quoted value must be set off from what follows.
                    let next = *b.get(i)?;
                    if !space(next) && next != b'>' && next != b'/' {
                        return None;
                    }
                }
                b'>' => return None,
                _ => {
                    let from = i;
                    while !space(*b.get(i)?) && b[i] != b'>' {
                        i += 1;
                    }
                    value = from..i;
                }
            }
        }
        let value = if memchr::memchr3(b'&', b'\0', b'\r', &b[value.clone()]).is_some() {
            StrTendril::from(decoded(&html[value])?)
        } else {
            slice(src, value.start, value.end)
        };
        let name = local_name(&attr_name);
        // The tokenizer keeps the first of two attributes of one name.
        if tag.attrs.iter().any(|a| a.name.local == name) {
            tag.had_duplicate_attributes = true;
            continue;
        }
        tag.attrs.push(Attribute {
            name: QualName::new(None, ns!(), name),
            value,
        });
    }
}

/// The atom of a tag or attribute name in lower case: the names most
/// pages use most are matched at once; the others are interned, which
/// hashes the name (and, for one outside html5ever's static set, takes a
/// global lock). The atom is the same either way.
fn local_name(name: &str) -> LocalName {
    match name {
        "div" => local_name!("div"),
        "a" => local_name!("a"),
        "span" => local_name!("span"),
        "li" => local_name!("li"),
        "p" => local_name!("p"),
        "ul" => local_name!("ul"),
        "img" => local_name!("img"),
        "strong" => local_name!("strong"),
        "button" => local_name!("button"),
        "i" => local_name!("i"),
        "td" => local_name!("td"),
        "br" => local_name!("br"),
        "section" => local_name!("section"),
        "class" => local_name!("class"),
        "href" => local_name!("href"),
        "id" => local_name!("id"),
        "style" => local_name!("style"),
        "src" => local_name!("src"),
        "alt" => local_name!("alt"),
        "role" => local_name!("role"),
        "title" => local_name!("title"),
        _ => LocalName::from(name),
    }
}

/// `src[from..to]`, sharing its buffer (a short one is copied: a tendril
/// holds up to eight bytes in place). The bounds are at ASCII bytes, and
/// `src` is shorter than 4 GiB (its length is a `u32`).
fn slice(src: &StrTendril, from: usize, to: usize) -> StrTendril {
    // Both fit: they are at most `src.len32()`.
    #[allow(clippy::cast_possible_truncation)]
    src.subtendril(from as u32, (to - from) as u32)
}

/// A tag or attribute name in lower case, as the tokenizer makes it (ASCII
/// letters only).
fn lower(name: &str) -> Cow<'_, str> {
    if name.bytes().any(|c| c.is_ascii_uppercase()) {
        Cow::Owned(name.to_ascii_lowercase())
    } else {
        Cow::Borrowed(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tag(html: &str) -> Option<(Tag, usize)> {
        plain_tag(&StrTendril::from_slice(html), 0)
    }

    fn attrs(t: &Tag) -> Vec<(String, String)> {
        t.attrs
            .iter()
            .map(|a| (a.name.local.to_string(), a.value.to_string()))
            .collect()
    }

    // Verifies: REQ-PAGE-006 (the same tokens as html5ever's tokenizer)
    #[test]
    fn plain_tags_are_read_as_the_tokenizer_reads_them() {
        let html = "<DIV Class=\"a b\" id=x hidden data-v='1>2'>rest";
        let (t, end) = tag(html).expect("plain");
        assert_eq!((t.kind, &*t.name, t.self_closing), (StartTag, "div", false));
        assert_eq!(
            attrs(&t),
            [
                ("class", "a b"),
                ("id", "x"),
                ("hidden", ""),
                ("data-v", "1>2")
            ]
            .map(|(n, v)| (n.to_owned(), v.to_owned()))
        );
        assert_eq!(&html[end..], "rest");
        // The first of two attributes of one name is kept.
        let (t, _) = tag("<p id=a ID=b>").expect("plain");
        assert_eq!(attrs(&t), [("id".to_owned(), "a".to_owned())]);
        assert!(t.had_duplicate_attributes);
        let (t, end) = tag("<br/>x").expect("plain");
        assert!(t.self_closing);
        assert_eq!(end, 5);
        let (t, _) = tag("</P >").expect("plain");
        assert_eq!((t.kind, &*t.name), (EndTag, "p"));
        let (t, _) = tag("<a href=/x/y>").expect("plain");
        assert_eq!(attrs(&t), [("href".to_owned(), "/x/y".to_owned())]);
    }

    // Verifies: REQ-PAGE-006 (references and line breaks read as the
    // tokenizer reads them, where that reading is the only one)
    #[test]
    fn references_with_one_reading_and_line_breaks_are_decoded_in_attributes() {
        let (t, _) = tag("<a title=\"a&amp;b &quot;c&quot; &#233;&#x41;&acE;\" href=?x=1&w=2&>")
            .expect("plain");
        assert_eq!(
            attrs(&t),
            [
                ("title", "a&b \"c\" \u{e9}A\u{223e}\u{333}"),
                ("href", "?x=1&w=2&")
            ]
            .map(|(n, v)| (n.to_owned(), v.to_owned()))
        );
        // CR LF and a CR alone read as LF, as the tokenizer's input reads
        // them.
        let (t, _) = tag("<p title=\"a\r\nb\rc\">").expect("plain");
        assert_eq!(attrs(&t), [("title".to_owned(), "a\nb\nc".to_owned())]);
    }

    // Verifies: REQ-PAGE-006
    #[test]
    fn markup_with_more_than_one_reading_is_left_to_the_tokenizer() {
        for html in [
            // A name the table holds without its `;`, a number without
            // its `;`, a number the tokenizer replaces.
            "<p title=\"&copy2024\">",
            "<p title=a&ampx>",
            "<p title=\"&#65\">",
            "<p title=\"&#128;\">",
            "<p title=\"&#0;\">",
            "<p\rclass=a>",
            "<p cl\0ass=a>",
            "</p class=a>",
            "</p/>",
            "<p a=\"1\"b=2>",
            "<p =a>",
            "<p a=>",
            "<br/ >",
            "<p class=a",
        ] {
            assert!(tag(html).is_none(), "{html:?}");
        }
    }
}
