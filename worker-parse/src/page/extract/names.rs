//! What class and id values say about a block (pass 1, exclusion):
//! boilerplate, a comment section, a content container, a hiding class, a
//! caption.
//!
//! The words are matched on every element of a page, most of which repeat
//! the same classes, so they are worked out once per distinct value
//! (`Names`) and the answer kept in the element.

use std::borrow::Cow;
use std::collections::HashMap;

use html5ever::local_name;

use crate::page::dom::Element;

/// Whether a class or id word (a whole token, or a part of one between
/// `-` and `_`) is one of blocks that are boilerplate wherever they are.
fn boilerplate_word(w: &str) -> bool {
    matches!(
        w,
        "share"
            | "sharing"
            | "social"
            | "cookie"
            | "consent"
            | "gdpr"
            | "newsletter"
            | "subscribe"
            | "related"
            | "recommend"
            | "breadcrumb"
            | "sidebar"
            | "advert"
            | "sponsor"
            | "promo"
            | "popup"
            | "modal"
            | "skip-link"
            | "pagination"
            | "comments"
            // A product's customers' reviews, its readers' comments.
            | "reviews"
            | "disqus"
            | "respond"
            | "pager"
            | "toolbar"
            // The byline (author and date) stays out of the content. Measured
            // with a detector of the short block after the article's `<h1>`
            // that carries a `<time>`, a `datetime`, `rel=author` or an
            // author or publication-date `itemprop`, its text set as one
            // line above the content where the content lacked it: F1 (half
            // A / half B) 0.956 / 0.974 -> 0.954 / 0.971 on the article
            // benchmark, 0.856 / 0.851 -> 0.855 / 0.851 on the mixed
            // benchmark's development split (articles 0.934 / 0.945 ->
            // 0.933 / 0.944). It costs on both halves: the ground truth of
            // both leaves bylines out, and the caller has the page's URL
            // and title beside the content.
            | "byline"
            | "author-bio"
            | "tags"
            | "masthead"
            // A forum member's signature, repeated under each of their posts.
            | "signature"
            | "site-header"
            | "site-footer"
            | "menu"
            | "navbar"
    )
}

/// Whether a class or id value names a cookie or consent banner (a
/// word of a token, as [`boilerplate_word`] matches them).
pub(crate) fn names_consent(value: &str) -> bool {
    value
        .split(|c: char| c.is_whitespace() || c == '-' || c == '_')
        .any(|w| {
            ["cookie", "cookies", "consent", "gdpr"]
                .iter()
                .any(|k| w.eq_ignore_ascii_case(k))
        })
}

/// Parts of class or id tokens that mark navigation wherever they appear
/// in a token.
const BOILERPLATE_AFFIXES: &[&str] = &["nav-", "-nav"];

/// The bit that marks an element's [`Words`] as worked out.
const WORKED_OUT: u8 = 0x80;

/// What the words of a class or id value say about its block.
#[derive(Debug, Clone, Copy, Default)]
struct Words {
    /// A [`boilerplate_word`] or one of [`BOILERPLATE_AFFIXES`].
    boilerplate: bool,
    /// A word of a content container ("main-content"); looked for only
    /// where `boilerplate` is set, the only case where it counts.
    content: bool,
    /// A comment section's name (a subset of the boilerplate words, and
    /// the containers named after them).
    comments: bool,
    /// Of those, a product's customers' reviews.
    reviews: bool,
    /// As a class: one that hides the block ([`hiding_class`]).
    hides: bool,
}

impl Words {
    /// The words as the non-zero bits an element keeps them in: one bit
    /// each, and [`WORKED_OUT`] so that no words is not 0.
    fn bits(self) -> u8 {
        WORKED_OUT
            | u8::from(self.boilerplate)
            | u8::from(self.content) << 1
            | u8::from(self.comments) << 2
            | u8::from(self.hides) << 3
            | u8::from(self.reviews) << 4
    }

    fn from_bits(bits: u8) -> Self {
        Self {
            boilerplate: bits & 1 != 0,
            content: bits & 2 != 0,
            comments: bits & 4 != 0,
            hides: bits & 8 != 0,
            reviews: bits & 0x10 != 0,
        }
    }

    fn of(value: &str) -> Self {
        let v = lower(value);
        // A word matches a whole token or a part of one between `-` and
        // `_` or at a capital inside a word; a word with a dash at an end
        // (`nav-`) matches inside a token. The words matched inside tokens
        // hold no whitespace: they are looked for in the whole value, the
        // others in one pass over the tokens.
        let mut boilerplate = false;
        let mut comments = false;
        let mut reviews = false;
        let mut hiding_word = false;
        for (token, written) in v.split_whitespace().zip(value.split_whitespace()) {
            boilerplate = boilerplate || boilerplate_word(token);
            // The token's parts, read once for both questions they answer.
            if !boilerplate || !reviews {
                for part in parts(token) {
                    boilerplate = boilerplate || boilerplate_word(part);
                    reviews = reviews || part == "reviews";
                }
            }
            boilerplate = boilerplate || camel_boilerplate(written);
            comments = comments || reviews || token.starts_with("comments");
            hiding_word = hiding_word || hides_word(token) || desktop_hides_word(token);
        }
        let boilerplate = boilerplate || BOILERPLATE_AFFIXES.iter().any(|w| has(&v, w));
        let comments = comments || has(&v, "disqus") || has(&v, "commentlist");
        Self {
            boilerplate,
            content: false,
            comments,
            reviews,
            hides: hiding_word && hiding_class(&v),
        }
    }
}

/// Whether a token written in camel case (`SiteFooter`, `shareButtons`,
/// as CSS modules and component libraries name their blocks) holds a
/// [`boilerplate_word`], or two that make one (`site-footer`): its words
/// are split at each capital that follows a small letter or a digit, as
/// they are at `-` and `_`. Measured: WCXB's development pages 5 up, 4
/// down, sum +0.46; trafilatura's evaluation pages 2 better, 1 worse; the
/// article set one page up (+0.03), the third corpus unchanged.
fn camel_boilerplate(token: &str) -> bool {
    let words = camel_words(token);
    let mut pair = String::new();
    words.iter().any(|w| boilerplate_word(w))
        || words.windows(2).any(|p| {
            pair.clear();
            pair.push_str(&p[0]);
            pair.push('-');
            pair.push_str(&p[1]);
            boilerplate_word(&pair)
        })
}

/// The parts of a class or id token between `-` and `_`, as
/// `token.split(['-', '_'])` gives them: both are single bytes, found
/// by a byte search rather than by decoding the token's characters.
pub(super) fn parts(token: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(token);
    std::iter::from_fn(move || {
        let r = rest?;
        match memchr::memchr2(b'-', b'_', r.as_bytes()) {
            Some(i) => {
                rest = Some(&r[i + 1..]);
                Some(&r[..i])
            }
            None => {
                rest = None;
                Some(r)
            }
        }
    })
}

/// The words of a token written in camel case, in lower case: split at
/// each capital that follows a small letter or a digit, and at `-` and
/// `_`. No words for a token without capitals, which the plain split
/// reads.
fn camel_words(token: &str) -> Vec<String> {
    if !token.bytes().any(|b| b.is_ascii_uppercase()) {
        return Vec::new();
    }
    let mut words: Vec<String> = Vec::new();
    for part in parts(token) {
        let mut word = String::new();
        let mut prev_lower = false;
        for c in part.chars() {
            if c.is_ascii_uppercase() && prev_lower {
                words.push(std::mem::take(&mut word));
            }
            prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
            word.push(c.to_ascii_lowercase());
        }
        if !word.is_empty() {
            words.push(word);
        }
    }
    words
}

/// Whether a class or id value holds a word of a content container.
fn content_word(value: &str) -> bool {
    let v = lower(value);
    ["article", "content", "main", "post-body", "entry"]
        .iter()
        .any(|w| has(&v, w))
}

/// The [`Words`] of elements' class and id values, worked out once per
/// distinct value: a page repeats the same classes on many elements.
#[derive(Debug)]
pub(super) struct Names<'a> {
    seen: HashMap<&'a str, Words>,
}

/// Distinct class and id values room is made for at once: about as many
/// as a page holds (the article set's median page has some 200), so that
/// the table seldom grows; growing hashes every value again.
const DISTINCT_VALUES: usize = 256;

impl<'a> Names<'a> {
    pub(super) fn new() -> Self {
        Self {
            seen: HashMap::with_capacity(DISTINCT_VALUES),
        }
    }

    /// The words of an element's class and id together (`hides` its
    /// class's alone), worked out once per element and kept in it.
    fn of(&mut self, e: &'a Element) -> Words {
        let memo = e.words.get();
        if memo != 0 {
            return Words::from_bits(memo);
        }
        let mut all = Words::default();
        for a in [local_name!("class"), local_name!("id")] {
            if let Some(v) = e.attr(&a) {
                let w = self.words(v);
                all.boilerplate |= w.boilerplate;
                all.comments |= w.comments;
                all.reviews |= w.reviews;
                if a == local_name!("class") {
                    all.hides = w.hides;
                }
            }
        }
        all.content = all.boilerplate
            && [local_name!("class"), local_name!("id")]
                .iter()
                .any(|a| e.attr(a).is_some_and(content_word));
        e.words.set(all.bits());
        all
    }

    /// Whether a class or id names boilerplate. Content containers often
    /// carry a boilerplate word too ("article-with-sidebar",
    /// "main-content"): those win.
    pub(super) fn boilerplate(&mut self, e: &'a Element) -> bool {
        let w = self.of(e);
        w.boilerplate && !w.content
    }

    /// Whether the class alone names boilerplate (whatever the id says).
    pub(super) fn class_boilerplate(&mut self, e: &'a Element) -> bool {
        e.attr(&local_name!("class"))
            .is_some_and(|v| self.words(v).boilerplate)
    }

    /// Whether a class or id names a comment section.
    pub(super) fn comments(&mut self, e: &'a Element) -> bool {
        self.of(e).comments
    }

    /// Whether a class or id names a product's customers' reviews (a
    /// comment section too).
    pub(super) fn reviews(&mut self, e: &'a Element) -> bool {
        self.of(e).reviews
    }

    /// Whether the class hides the element.
    pub(super) fn hides(&mut self, e: &'a Element) -> bool {
        self.of(e).hides
    }

    fn words(&mut self, v: &'a str) -> Words {
        *self.seen.entry(v).or_insert_with(|| Words::of(v))
    }
}

/// Whether an element's class hides it only the way a script lifts once
/// the page has loaded (`hide`, `hidden`, `d-none`, `invisible`), not for
/// a screen reader or a width: the lenient read shows such blocks, as it
/// shows inline-styled ones.
pub(super) fn hidden_until_loaded(e: &Element) -> bool {
    e.attr(&local_name!("class")).is_some_and(|v| {
        let v = lower(v);
        let mut hiding = v
            .split_whitespace()
            .filter(|t| hides_word(t) || desktop_hides_word(t));
        let mut any = false;
        let only_lifted = hiding.all(|t| {
            any = true;
            matches!(t, "hide" | "hidden" | "d-none" | "invisible")
        });
        any && only_lifted
    })
}

/// Whether a class names an image's caption or credit line: text about
/// an image, which contributes its alternative text instead (a caption
/// that wraps the image itself is kept for that text). Its words are
/// split at `-` and `_`, and in camel case as [`camel_boilerplate`]
/// splits them (`newsCaption`). Measured, the camel case: WCXB's
/// development pages 5 up and none down, Fundus's 3 up (both halves),
/// newspaper's 3 up and 2 down (+0.0001); the article set 4 up and 2 down
/// (−0.0002); trafilatura's pages and the third corpus unchanged.
pub(super) fn caption_name(e: &Element) -> bool {
    let caption = |p: &str| {
        matches!(
            p,
            "caption" | "credit" | "credits" | "copyright" | "figcaption"
        )
    };
    e.attr(&local_name!("class")).is_some_and(|v| {
        v.split_whitespace().any(|t| {
            let l = lower(t);
            // Most tokens hold none of the words, all of which start with
            // a `c`, and are not split.
            let b = l.as_bytes();
            memchr::memchr_iter(b'c', b).any(|i| {
                [&b"caption"[..], b"credit", b"copyright"]
                    .iter()
                    .any(|w| b[i..].starts_with(w))
            }) && (parts(&l).any(caption) || camel_words(t).iter().any(|w| caption(w)))
        })
    })
}

/// A class or id value in lower case, copied only when it has capitals.
fn lower(v: &str) -> Cow<'_, str> {
    if v.bytes().any(|c| c.is_ascii_uppercase()) {
        Cow::Owned(v.to_ascii_lowercase())
    } else {
        Cow::Borrowed(v)
    }
}

/// Whether `needle` occurs in `hay`: for the short words and class names
/// matched here, a scan for the needle's first byte costs less than
/// `str::contains`, which prepares a searcher on every call.
fn has(hay: &str, needle: &str) -> bool {
    let (hay, needle) = (hay.as_bytes(), needle.as_bytes());
    match needle.first() {
        Some(&first) => memchr::memchr_iter(first, hay).any(|i| hay[i..].starts_with(needle)),
        None => true,
    }
}

/// Class names that hide an element in the common CSS frameworks (content
/// for screen readers only is also text no reader of the page sees). A
/// responsive variant that shows it again (`hidden md:block`,
/// `d-none d-md-block`) keeps it; one that hides it from a desktop's
/// width on (`lg:hidden`, `d-md-none`, `mobile-only`) drops it. `class`
/// is in lower case.
fn hiding_class(class: &str) -> bool {
    let tokens: Vec<&str> = class.split_whitespace().collect();
    let hides = tokens.iter().any(|t| hides_word(t));
    let shows_again = tokens.iter().any(|t| {
        (t.contains(':') && !t.ends_with(":hidden"))
            || (t.starts_with("d-") && *t != "d-none" && !t.ends_with("-none"))
    });
    // Hidden at a desktop's width, unless shown again at a wider one: the
    // page is read as a desktop browser shows it, and blocks for phones
    // only are mostly mobile menus and copies of the desktop's content.
    let desktop_hides = tokens.iter().any(|t| desktop_hides_word(t));
    let desktop_shows = tokens.iter().any(|t| {
        ((t.starts_with("lg:") || t.starts_with("xl:")) && !t.ends_with(":hidden"))
            || ((t.starts_with("d-lg-") || t.starts_with("d-xl-")) && !t.ends_with("-none"))
    });
    (hides && !shows_again) || (desktop_hides && !desktop_shows)
}

/// A class of [`hiding_class`] that hides an element at any width.
fn hides_word(t: &str) -> bool {
    matches!(
        t,
        "hidden"
            | "d-none"
            | "hide"
            | "invisible"
            | "sr-only"
            | "visually-hidden"
            | "visuallyhidden"
            | "screen-reader-text"
            | "screen-reader-only"
            | "offscreen"
    )
}

/// A class of [`hiding_class`] that hides an element at a desktop's width.
fn desktop_hides_word(t: &str) -> bool {
    matches!(
        t,
        "md:hidden"
            | "lg:hidden"
            | "d-md-none"
            | "d-lg-none"
            | "hidden-lg"
            | "visible-xs"
            | "hide-on-desktop"
            | "hide-desktop"
            | "mobile-only"
            | "show-mobile"
            | "show-for-small-only"
            | "hide-for-large"
            | "only-mobile"
    )
}
