//! Main-content extraction (REQ-PAGE-002, REQ-CTX-005).
//!
//! Why our own and not dom_smoothie (a Readability port): on the bench
//! page sets it scores 0.947 on articles but 0.625 on mixed pages (the
//! bench README's anchors), because Readability keeps one best-scored
//! subtree, which drops most of a listing, a product page or a forum
//! thread, where the content is many short blocks; it also parses with no
//! bounds, and renders Markdown we could not shape to the contract. The
//! method here, in passes over our bounded DOM, all iterative:
//!
//! 1. **Exclusion**: elements that are never content (scripts, styles,
//!    form controls, navigation, the page's header, footers, sidebars;
//!    a header inside an article or a section is that piece's), hidden or
//!    non-rendered ones (`hidden`, `aria-hidden`, inline `display:none` /
//!    `visibility:hidden`, CSS frameworks' hiding classes, `<template>`,
//!    `<noscript>`, comments), and blocks whose class or id names
//!    boilerplate (share bars, cookie banners, related links, comment
//!    sections) unless they hold much of the page's text; a comment
//!    section goes however long, when the page has prose of its own
//!    outside it; on a page of prose, image captions and credit lines
//!    (the image contributes its alternative text instead). By structure
//!    alone, a series of short dated items after an article's text
//!    (readers' comments, "more stories" teasers) goes too.
//! 2. **Weights**: each element's characters of text outside links, inside
//!    links, and in paragraphs of some length (prose): `<p>`, `<pre>`,
//!    and long runs of text set straight in a block between `<br>`s,
//!    unless the block is the long exception in a series of short ones
//!    (one post of a thread).
//! 3. **Root**: from `<body>` (or a `<main>` that holds half the text),
//!    descend into the container child that holds most of the node's
//!    weight (paragraph text on a page of prose, from a child holding a
//!    third of the text at least; elsewhere text outside links plus a
//!    third of link text), while one does. That finds an article's body
//!    without cutting a list of items in half, or a product's
//!    specifications off its blurb.
//! 4. **Pruning** inside the root: small link-heavy blocks (a tag cloud, a
//!    "read more" row) and, on prose pages, link-heavy blocks without a
//!    paragraph; not on a listing, whose items are links. The heading that
//!    repeats the document's title goes too (the title is returned apart).
//!
//! Measured with `tests/bench/extract.sh` (README): F1 0.966 on articles,
//! 0.773 on mixed pages (anchors 0.963 and 0.763). The constants below were
//! chosen by those measurements.

use std::borrow::Cow;
use std::collections::HashMap;

use html5ever::{LocalName, local_name};

use super::dom::{DOCUMENT, Data, Dom, Element, NodeId};

/// What the renderer needs: where to start and which nodes to leave out.
#[derive(Debug)]
pub(crate) struct Extraction {
    pub(crate) root: NodeId,
    pub(crate) skip: Vec<bool>,
    /// The document's title ([`Dom::title`]), worked out once here.
    pub(crate) title: Option<String>,
}

/// Share of a node's non-link text a child must hold for the root to move
/// into it.
const DESCEND_SHARE: f64 = 0.7;

/// Largest share of the page's text a block named as boilerplate may hold
/// and still be dropped.
const BOILERPLATE_SHARE_MAX: f64 = 0.3;

/// Prose outside a block named as a comment section that makes the block
/// the page's comments, not its content, however long the thread: a forum
/// page's posts are its content, an article's readers' comments are not.
const COMMENTS_REST_MIN: u32 = 400;

/// The comment section may hold at most this many times the prose outside
/// it.
const COMMENTS_REST_RATIO: u32 = 4;

/// Shortest run of text set straight in a block counted as prose: longer
/// than a teaser's or a listed item's summary.
const BARE_PARA_MIN: u32 = 400;

/// Shortest paragraph counted as prose, in characters.
const PARA_MIN: u32 = 80;

/// Share of a page's text in paragraphs that makes it a page of prose.
const PROSE_SHARE: f64 = 0.15;

/// On a page of prose, the least share of a node's text outside links a
/// child must hold for the root to move into it, however much of the
/// paragraphs it holds: a product's or a service's page has a paragraph
/// of blurb beside specifications, lists and tables that are its content
/// too, where an article's body holds most of its container's text.
const PROSE_DESCEND_TEXT_SHARE: f64 = 1.0 / 3.0;

/// Off prose, link text counts for the descent divided by this: a listing's
/// linked items count, a sidebar of links counts less than text.
const LINK_DISCOUNT: u32 = 3;

/// [`DESCEND_SHARE`] for table rows and cells.
const TABLE_DESCEND_SHARE: f64 = 0.85;

/// Prose before a series of dated items (see [`drop_appended_series`])
/// that makes the series an appendix of an article: a text of its own,
/// longer than a thread's title or a listing's introduction.
const APPENDED_PROSE_MIN: u32 = 400;

/// Fewest dated items that make a series.
const SERIES_MIN: usize = 3;

/// How many times an item's mean text the prose before a series must be
/// for the series to be an appendix.
const APPENDED_ITEM_RATIO: u32 = 3;

/// Elements that are never main content.
fn never_content(name: &LocalName) -> bool {
    matches!(
        *name,
        local_name!("head")
            | local_name!("script")
            | local_name!("style")
            | local_name!("noscript")
            | local_name!("template")
            | local_name!("iframe")
            | local_name!("object")
            | local_name!("embed")
            | local_name!("svg")
            | local_name!("math")
            | local_name!("canvas")
            | local_name!("button")
            | local_name!("input")
            | local_name!("select")
            | local_name!("textarea")
            | local_name!("option")
            | local_name!("nav")
            | local_name!("aside")
            | local_name!("footer")
            | local_name!("header")
            | local_name!("dialog")
            | local_name!("link")
            | local_name!("meta")
            | local_name!("label")
            | local_name!("menu")
            | local_name!("figcaption")
    )
}

/// Hidden or non-rendered by its attributes.
fn hidden(e: &Element, lenient: bool) -> bool {
    if e.has_attr(&local_name!("hidden")) {
        // React's streamed server rendering parks the page's content in
        // `<div hidden id="S:0">` until a script moves it in place.
        let streamed = e
            .attr(&local_name!("id"))
            .is_some_and(|id| id.starts_with("S:"));
        return !(lenient && streamed);
    }
    if e.attr(&local_name!("aria-hidden"))
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
    {
        return true;
    }
    if e.attr(&local_name!("type"))
        .is_some_and(|v| v.eq_ignore_ascii_case("hidden"))
    {
        return true;
    }
    !lenient && e.attr(&local_name!("style")).is_some_and(style_hides)
}

/// Whether an inline style hides its element.
fn style_hides(style: &str) -> bool {
    // Only a value right after a colon can: most styles have none that
    // starts with `n`, `h` or `c`, and need no closer look.
    let may_hide = |colon: usize| {
        style[colon + 1..]
            .trim_start()
            .starts_with(['n', 'N', 'h', 'H', 'c', 'C'])
    };
    if !memchr::memchr_iter(b':', style.as_bytes()).any(may_hide) {
        return false;
    }
    let s: String = style
        .chars()
        .filter(|c| !c.is_whitespace())
        .flat_map(char::to_lowercase)
        .collect();
    s.contains("display:none")
        || s.contains("visibility:hidden")
        || s.contains("visibility:collapse")
}

/// Roles that mark navigation and page furniture.
fn furniture_role(e: &Element) -> bool {
    e.attr(&local_name!("role")).is_some_and(|r| {
        matches!(
            r.trim().to_ascii_lowercase().as_str(),
            "navigation"
                | "banner"
                | "contentinfo"
                | "complementary"
                | "search"
                | "menu"
                | "menubar"
                | "dialog"
                | "alertdialog"
                | "tooltip"
        )
    })
}

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

/// Parts of class or id tokens that mark navigation wherever they appear
/// in a token.
const BOILERPLATE_AFFIXES: &[&str] = &["nav-", "-nav"];

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
    /// As a class: one that hides the block ([`hiding_class`]).
    hides: bool,
}

impl Words {
    /// The words as the non-zero bits an element keeps them in.
    fn bits(self) -> u8 {
        0x10 | u8::from(self.boilerplate)
            | u8::from(self.content) << 1
            | u8::from(self.comments) << 2
            | u8::from(self.hides) << 3
    }

    fn from_bits(bits: u8) -> Self {
        Self {
            boilerplate: bits & 1 != 0,
            content: bits & 2 != 0,
            comments: bits & 4 != 0,
            hides: bits & 8 != 0,
        }
    }

    fn of(value: &str) -> Self {
        let v = lower(value);
        // A word matches a whole token or a part of one between `-` and
        // `_`; a word with a dash at an end (`nav-`) matches inside a token.
        // The words matched inside tokens hold no whitespace: they are
        // looked for in the whole value, the others in one pass over the
        // tokens.
        let mut boilerplate = false;
        let mut comments = false;
        let mut hiding_word = false;
        for token in v.split_whitespace() {
            boilerplate = boilerplate
                || boilerplate_word(token)
                || token.split(['-', '_']).any(boilerplate_word);
            comments = comments || token.starts_with("comments");
            hiding_word = hiding_word || hides_word(token) || desktop_hides_word(token);
        }
        let boilerplate = boilerplate || BOILERPLATE_AFFIXES.iter().any(|w| has(&v, w));
        let comments = comments || has(&v, "disqus") || has(&v, "commentlist");
        Self {
            boilerplate,
            content: false,
            comments,
            hides: hiding_word && hiding_class(&v),
        }
    }
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
#[derive(Debug, Default)]
struct Names<'a> {
    seen: HashMap<&'a str, Words>,
}

impl<'a> Names<'a> {
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
    fn boilerplate(&mut self, e: &'a Element) -> bool {
        let w = self.of(e);
        w.boilerplate && !w.content
    }

    /// Whether a class or id names a comment section.
    fn comments(&mut self, e: &'a Element) -> bool {
        self.of(e).comments
    }

    /// Whether the class hides the element.
    fn hides(&mut self, e: &'a Element) -> bool {
        self.of(e).hides
    }

    fn words(&mut self, v: &'a str) -> Words {
        *self.seen.entry(v).or_insert_with(|| Words::of(v))
    }
}

/// Whether the prose before a comment section makes the page an article
/// with comments rather than a thread.
fn rest_is_prose(rest: u32, comments: u32) -> bool {
    rest >= COMMENTS_REST_MIN && rest.saturating_mul(COMMENTS_REST_RATIO) >= comments
}

/// Whether a class names an image's caption or credit line: text about
/// an image, which contributes its alternative text instead (a caption
/// that wraps the image itself is kept for that text).
fn caption_name(e: &Element) -> bool {
    e.attr(&local_name!("class")).is_some_and(|v| {
        v.split_whitespace().any(|t| {
            let t = lower(t);
            t.split(['-', '_']).any(|p| {
                matches!(
                    p,
                    "caption" | "credit" | "credits" | "copyright" | "figcaption"
                )
            })
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

/// Whether an image is below a node.
fn holds_image(dom: &Dom, id: NodeId) -> bool {
    let mut stack = vec![id];
    while let Some(n) = stack.pop() {
        if is(dom, n, &local_name!("img")) {
            return true;
        }
        stack.extend(dom.children(n));
    }
    false
}

/// Whether an element (not its ancestors) is excluded.
fn excluded<'a>(e: &'a Element, lenient: bool, names: &mut Names<'a>) -> bool {
    match e.html_name() {
        Some(&local_name!("noscript")) if lenient => {}
        Some(n) if never_content(n) => return true,
        Some(_) => {}
        // SVG and MathML content is drawing, not text.
        None => return true,
    }
    hidden(e, lenient) || furniture_role(e) || names.hides(e)
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

/// Per-node character counts.
#[derive(Debug, Clone, Copy, Default)]
struct Weight {
    text: u32,
    link: u32,
    /// Text outside links in paragraphs (`<p>`, `<pre>`) of some length:
    /// prose.
    para: u32,
    /// Text outside links set straight in this element or in its inline
    /// descendants (not in a nested block).
    own: u32,
    /// Line breaks (`<br>`) among that text.
    breaks: u32,
}

/// Blocks whose own text (outside nested blocks) counts as prose.
fn bare_text_block(name: &LocalName) -> bool {
    matches!(
        *name,
        local_name!("div")
            | local_name!("section")
            | local_name!("article")
            | local_name!("main")
            | local_name!("td")
            | local_name!("blockquote")
            | local_name!("center")
            | local_name!("dd")
    )
}

/// Elements that flow within a line of text.
fn is_inline(name: &LocalName) -> bool {
    matches!(
        *name,
        local_name!("a")
            | local_name!("em")
            | local_name!("strong")
            | local_name!("b")
            | local_name!("i")
            | local_name!("u")
            | local_name!("s")
            | local_name!("span")
            | local_name!("font")
            | local_name!("cite")
            | local_name!("small")
            | local_name!("sup")
            | local_name!("sub")
            | local_name!("code")
            | local_name!("abbr")
            | local_name!("time")
            | local_name!("mark")
            | local_name!("q")
            | local_name!("br")
            | local_name!("img")
    )
}

/// Finds the main content of a parsed document.
///
/// `lenient` is the second try for a page where the first found nothing:
/// it reads `<noscript>` content (parse without scripting for it),
/// elements hidden by an inline style, and React's streamed content
/// blocks (`<div hidden id="S:…">`), which script-driven pages use for all
/// their content until a script reveals it. Other `hidden` elements,
/// `aria-hidden` and `<template>` stay excluded even then.
pub(crate) fn extract(dom: &Dom, lenient: bool) -> Extraction {
    let n = dom.nodes.len();
    let mut skip = vec![false; n];
    // Pre-order pass: exclusion is inherited.
    let mut order = Vec::with_capacity(n);
    let mut stack = vec![DOCUMENT];
    // Whether a node is inside an `<article>` or a `<section>`.
    let mut sectioned = vec![false; n];
    let mut names = Names::default();
    while let Some(id) = stack.pop() {
        order.push(id);
        let node = &dom.nodes[id];
        let parent_skipped = node.parent.is_some_and(|p| skip[p]);
        if let Some(p) = node.parent {
            sectioned[id] = sectioned[p]
                || is(dom, p, &local_name!("article"))
                || is(dom, p, &local_name!("section"));
        }
        skip[id] = parent_skipped
            || match &node.data {
                // A `<header>` inside an article or a section heads that
                // piece (its title, date, summary), not the site: HTML
                // maps only a page-level header to the banner landmark.
                Data::Element(e)
                    if sectioned[id] && e.html_name() == Some(&local_name!("header")) =>
                {
                    hidden(e, lenient) || furniture_role(e) || names.hides(e)
                }
                Data::Element(e) => excluded(e, lenient, &mut names),
                Data::Other => true,
                _ => false,
            };
        // Children pushed in reverse so they pop in document order.
        let mut child = node.last_child;
        while let Some(c) = child {
            stack.push(c);
            child = dom.nodes[c].prev;
        }
    }
    let body = order
        .iter()
        .copied()
        .find(|&id| is(dom, id, &local_name!("body")))
        .unwrap_or(DOCUMENT);
    // Long runs of text set straight in a block count as prose too, unless
    // the block is one of a repeated kind (see `bare_prose`).
    let text = TextCounts::new(dom, &order, &skip);
    let mut weight = weights(dom, &order, &skip, &text, &[]);
    let candidates = bare_candidates(dom, &order, &skip, &weight);
    if !candidates.is_empty() {
        weight = weights(dom, &order, &skip, &text, &candidates);
    }
    let plain = |id: NodeId| weight[id].text.saturating_sub(weight[id].link);
    // Blocks named as boilerplate go, unless they hold much of the page's
    // text: a layout wrapper named "has-sidebar" holds the content.
    let body_plain = f64::from(plain(body));
    // Captions are dropped from prose only: in a gallery or a collection
    // they are the items' text.
    let page_prose = f64::from(weight[body].para) >= PROSE_SHARE * body_plain;
    // Prose before each node in document order: an article's comments
    // follow its text; on a thread, what precedes the replies is the
    // question, and what prose there is elsewhere is sidebars.
    let mut before = vec![0u32; n];
    let mut nested = vec![false; n];
    let mut thread = vec![false; n];
    let mut running = 0u32;
    for &id in &order {
        before[id] = running;
        let below = dom
            .children(id)
            .fold(0u32, |sum, c| sum.saturating_add(weight[c].para));
        running = running.saturating_add(weight[id].para.saturating_sub(below));
        // Replies nested in a thread are judged with the thread (what is
        // skipped already is not read for it: only its own nodes, skipped
        // too, would be).
        thread[id] = !skip[id]
            && dom
                .element(id)
                .is_some_and(|e| names.comments(e) && names.boilerplate(e));
        if let Some(p) = dom.nodes[id].parent {
            nested[id] = nested[p] || thread[p];
        }
    }
    for &id in &order {
        if skip[id] {
            continue;
        }
        if let Some(e) = dom.element(id)
            && !matches!(
                e.html_name(),
                Some(
                    &local_name!("html")
                        | &local_name!("body")
                        | &local_name!("main")
                        | &local_name!("article")
                )
            )
            && (names.boilerplate(e) || (page_prose && caption_name(e) && !holds_image(dom, id)))
            && (f64::from(plain(id)) < BOILERPLATE_SHARE_MAX * body_plain
                || (names.comments(e) && !nested[id] && rest_is_prose(before[id], weight[id].para)))
        {
            mark_subtree(dom, id, &mut skip);
        }
    }
    drop_appended_series(dom, &order, &weight, &before, &mut skip);
    let bare = bare_prose(dom, &order, &skip, &weight, &candidates);
    let weight = weights(dom, &order, &skip, &text, &bare);
    let plain = |id: NodeId| weight[id].text.saturating_sub(weight[id].link);
    let mut root = body;
    // A <main> (or role=main) holding most of the text is the root outright.
    if let Some(main) = order.iter().copied().find(|&id| {
        !skip[id]
            && dom.element(id).is_some_and(|e| {
                e.html_name() == Some(&local_name!("main"))
                    || e.attr(&local_name!("role")) == Some("main")
            })
    }) && f64::from(plain(main)) >= 0.5 * f64::from(plain(body))
    {
        root = main;
    }
    // On a page of prose, paragraphs lead the descent (teasers, link
    // lists and widgets around an article carry text too, but rarely in
    // paragraphs); elsewhere all text outside links does.
    let prose = f64::from(weight[root].para) >= PROSE_SHARE * f64::from(plain(root));
    let measure = |id: NodeId| {
        if prose {
            weight[id].para
        } else {
            plain(id) + weight[id].link / LINK_DISCOUNT
        }
    };
    loop {
        let total = f64::from(measure(root));
        let best = dom
            .children(root)
            .filter(|&c| !skip[c] && is_container(dom, c))
            .max_by_key(|&c| measure(c));
        match best {
            Some(c)
                if total > 0.0
                    && f64::from(measure(c)) >= descend_share(dom, c) * total
                    && (!prose
                        || f64::from(plain(c))
                            >= PROSE_DESCEND_TEXT_SHARE * f64::from(plain(root))) =>
            {
                root = c
            }
            _ => break,
        }
    }
    // A table's body alone renders as rows of text: the table, which the
    // renderer writes as one, is the root instead.
    if is(dom, root, &local_name!("tbody"))
        && let Some(table) = dom.nodes[root].parent
    {
        root = table;
    }
    // Small link-heavy blocks inside the root are navigation of a kind,
    // unless the root itself is mostly links (a listing of linked items).
    let listing = weight[root].link * 2 > weight[root].text;
    for &id in &order {
        if listing {
            break;
        }
        if skip[id] || dom.element(id).is_none() || id == root {
            continue;
        }
        let w = weight[id];
        if !is_block_container(dom, id) || w.text == 0 {
            continue;
        }
        // Small and mostly links; or, on a page of prose, no paragraph
        // and many links (a "related" box, a tag list, a share row). A
        // short paragraph of the prose that is mostly a link ("For more,
        // see chapter 4") stays.
        if ((w.text < 600 && w.link * 10 > w.text * 7)
            || (prose && w.para == 0 && w.link * 2 > w.text))
            && !link_sentence_in_prose(dom, id, &weight, &skip)
        {
            skip[id] = true;
        }
    }
    // On a page of prose, what precedes the article's own heading or its
    // first prose block and is mostly links (an edition menu, sign-in and
    // subscription links, the site's name) is not the article: the
    // content starts at the heading or the prose.
    if prose {
        trim_link_lead_in(dom, root, &weight, &mut skip);
    }
    // The heading that repeats the document's title: the title is returned
    // on its own, an agent need not read it twice.
    let title = dom.title();
    if let Some(title) = &title {
        let title = title.to_lowercase();
        if let Some(h1) = order.iter().copied().find(|&id| {
            !skip[id] && is(dom, id, &local_name!("h1")) && {
                let text = text_of(dom, id).to_lowercase();
                !text.is_empty() && title.contains(&text)
            }
        }) {
            skip[h1] = true;
        }
    }
    Extraction { root, skip, title }
}

/// Skips, among the nodes of `root` that come before its first heading or
/// prose paragraph (walking down into the first container that holds
/// one), those whose text is mostly links.
fn trim_link_lead_in(dom: &Dom, root: NodeId, weight: &[Weight], skip: &mut [bool]) {
    let mut parent = root;
    // Bounded by the tree's depth: each turn goes one level down.
    'levels: loop {
        let mut lead = Vec::new();
        for c in dom.children(parent) {
            if skip[c] || weight[c].text == 0 {
                continue;
            }
            if weight[c].para > 0 || holds_heading(dom, c, skip) {
                // The start is inside this child: look at what precedes it
                // there too, unless the child is the start itself.
                for l in lead {
                    skip[l] = true;
                }
                if is_container(dom, c) && !is_heading(dom, c) {
                    parent = c;
                    continue 'levels;
                }
                break 'levels;
            }
            if weight[c].link * 2 > weight[c].text {
                lead.push(c);
            } else {
                // Text that is not links before the start: leave it all.
                break 'levels;
            }
        }
        break;
    }
}

fn is_heading(dom: &Dom, id: NodeId) -> bool {
    dom.element(id)
        .and_then(Element::html_name)
        .is_some_and(|n| matches!(*n, local_name!("h1") | local_name!("h2")))
}

/// Whether an `<h1>` or `<h2>` not skipped is at or below a node.
fn holds_heading(dom: &Dom, id: NodeId, skip: &[bool]) -> bool {
    let mut stack = vec![id];
    while let Some(n) = stack.pop() {
        if skip[n] {
            continue;
        }
        if is_heading(dom, n) {
            return true;
        }
        stack.extend(dom.children(n));
    }
    false
}

/// Whether a node is a paragraph of one link and a few words of a
/// sentence around it (three at least: "For more, see …", not a label
/// such as "Read more:") set between paragraphs of prose (the element
/// before it and the one after it, where there is one, are prose
/// paragraphs): a sentence of the article that is mostly a link, not a
/// block of links.
fn link_sentence_in_prose(dom: &Dom, id: NodeId, weight: &[Weight], skip: &[bool]) -> bool {
    if !is(dom, id, &local_name!("p")) || weight[id].link >= weight[id].text {
        return false;
    }
    let (mut links, mut words) = (0, 0);
    let mut stack = vec![(id, false)];
    while let Some((n, in_link)) = stack.pop() {
        let link = in_link || is(dom, n, &local_name!("a"));
        links += usize::from(link && !in_link);
        if let (Data::Text(t), false) = (&dom.nodes[n].data, link) {
            words += t
                .split_whitespace()
                .filter(|w| w.chars().any(char::is_alphanumeric))
                .count();
        }
        stack.extend(dom.children(n).map(|c| (c, link)));
    }
    if links != 1 || words < 3 {
        return false;
    }
    let prose_para = |n: Option<NodeId>| {
        n.is_some_and(|n| !skip[n] && is(dom, n, &local_name!("p")) && weight[n].para > 0)
    };
    let sibling = |mut n: Option<NodeId>, forward: bool| {
        while let Some(c) = n {
            if dom.element(c).is_some() {
                return Some(c);
            }
            n = if forward {
                dom.nodes[c].next
            } else {
                dom.nodes[c].prev
            };
        }
        None
    };
    let before = sibling(dom.nodes[id].prev, false);
    let after = sibling(dom.nodes[id].next, true);
    (before.is_some() || after.is_some())
        && (before.is_none() || prose_para(before))
        && (after.is_none() || prose_para(after))
}

/// The text below a node, whitespace collapsed.
fn text_of(dom: &Dom, id: NodeId) -> String {
    let mut words: Vec<&str> = Vec::new();
    let mut stack = vec![id];
    while let Some(n) = stack.pop() {
        if let Data::Text(t) = &dom.nodes[n].data {
            words.extend(t.split_whitespace());
        }
        let mut child = dom.nodes[n].last_child;
        while let Some(c) = child {
            stack.push(c);
            child = dom.nodes[c].prev;
        }
    }
    words.join(" ")
}

/// What [`weights`] reads of each text node, counted once per document.
struct TextCounts {
    /// Characters of a text node, whitespace collapsed (0 for others, and
    /// for text skipped already: the passes only skip more).
    chars: Vec<u32>,
    /// Whether a node is inside a link.
    in_link: Vec<bool>,
}

impl TextCounts {
    /// `order` is pre-order.
    fn new(dom: &Dom, order: &[NodeId], skip: &[bool]) -> Self {
        let mut chars = vec![0; dom.nodes.len()];
        let mut in_link = vec![false; dom.nodes.len()];
        for &id in order {
            if let Some(p) = dom.nodes[id].parent {
                in_link[id] = in_link[p] || is(dom, p, &local_name!("a"));
            }
            if let (Data::Text(t), false) = (&dom.nodes[id].data, skip[id]) {
                chars[id] = collapsed_chars(t);
            }
        }
        Self { chars, in_link }
    }
}

/// Characters of `t` with whitespace collapsed, one space counted after
/// each word (`t.split_whitespace()` in one pass over the characters).
fn collapsed_chars(t: &str) -> u32 {
    let (mut chars, mut in_word) = (0u32, false);
    for c in t.chars() {
        if c.is_whitespace() {
            in_word = false;
        } else {
            // A word's first character also counts the space after it.
            chars = chars.saturating_add(if in_word { 1 } else { 2 });
            in_word = true;
        }
    }
    chars
}

/// Text and link characters below each node, skipped nodes left out
/// (`order` is pre-order; walked backwards, children come before parents).
fn weights(
    dom: &Dom,
    order: &[NodeId],
    skip: &[bool],
    text: &TextCounts,
    bare: &[NodeId],
) -> Vec<Weight> {
    let mut weight = vec![Weight::default(); dom.nodes.len()];
    for &id in order.iter().rev() {
        if skip[id] {
            continue;
        }
        if let Data::Text(_) = &dom.nodes[id].data {
            let chars = text.chars[id];
            weight[id].text = chars;
            if text.in_link[id] {
                weight[id].link = chars;
            }
        }
        if let Data::Text(_) = &dom.nodes[id].data {
            weight[id].own = weight[id].text - weight[id].link;
        }
        if is(dom, id, &local_name!("br")) {
            weight[id].breaks = 1;
        }
        let name = dom.element(id).and_then(Element::html_name);
        if is(dom, id, &local_name!("p")) || is(dom, id, &local_name!("pre")) {
            let plain = weight[id].text.saturating_sub(weight[id].link);
            weight[id].para = if plain >= PARA_MIN { plain } else { 0 };
        } else if bare.binary_search(&id).is_ok() {
            // Text set straight in a block (paragraphs as `<div>`s, or
            // runs between `<br>`s) is prose as much as a `<p>` is.
            weight[id].para = weight[id].para.saturating_add(weight[id].own);
        }
        if let Some(p) = dom.nodes[id].parent {
            let w = weight[id];
            weight[p].text = weight[p].text.saturating_add(w.text);
            weight[p].link = weight[p].link.saturating_add(w.link);
            weight[p].para = weight[p].para.saturating_add(w.para);
            if name.is_none_or(is_inline) {
                weight[p].own = weight[p].own.saturating_add(w.own);
                weight[p].breaks = weight[p].breaks.saturating_add(w.breaks);
            }
        }
    }
    weight
}

/// Blocks with a long run of text set straight in them, between `<br>`s
/// (sorted by id).
fn bare_candidates(dom: &Dom, order: &[NodeId], skip: &[bool], weight: &[Weight]) -> Vec<NodeId> {
    let mut out: Vec<NodeId> = order
        .iter()
        .copied()
        .filter(|&id| {
            !skip[id]
                && weight[id].own >= BARE_PARA_MIN
                && weight[id].breaks >= 2
                && dom
                    .element(id)
                    .and_then(Element::html_name)
                    .is_some_and(bare_text_block)
        })
        .collect();
    out.sort_unstable();
    out
}

/// The candidates whose text counts as prose (sorted by id): those not
/// skipped, unless they are the long few of a series. A block whose tag
/// and class other blocks with text share is one of a series (a forum's
/// posts, a product's reviews); when most of the series is short, its
/// long member counted as prose would pull the root into itself and lose
/// the rest of the series. A series mostly of long runs (a thread of long
/// posts) is prose throughout, and an article's body is one of a kind.
fn bare_prose(
    dom: &Dom,
    order: &[NodeId],
    skip: &[bool],
    weight: &[Weight],
    candidates: &[NodeId],
) -> Vec<NodeId> {
    let live: Vec<NodeId> = candidates.iter().copied().filter(|&c| !skip[c]).collect();
    if live.is_empty() {
        return live;
    }
    let kind_of = |id: NodeId| {
        let e = dom.element(id)?;
        Some((e.html_name()?, e.attr(&local_name!("class"))?))
    };
    // Per kind of a candidate: blocks of that kind with text, and the
    // candidates among them.
    let mut kinds: HashMap<(&LocalName, &str), (u32, u32)> = live
        .iter()
        .filter_map(|&c| kind_of(c))
        .map(|k| (k, (0, 0)))
        .collect();
    for &id in order {
        if skip[id] || weight[id].text == 0 {
            continue;
        }
        if let Some(count) = kind_of(id).and_then(|k| kinds.get_mut(&k)) {
            count.0 += 1;
            count.1 += u32::from(live.binary_search(&id).is_ok());
        }
    }
    live.into_iter()
        .filter(|&c| {
            kind_of(c)
                .and_then(|k| kinds.get(&k))
                .is_none_or(|&(all, long)| long * 2 >= all)
        })
        .collect()
}

/// Drops the series of dated items that follow an article's prose: a
/// block whose children with text are mostly items that carry a date of
/// their own (a `<time>`, or an element with a `datetime`), three at
/// least, with a text of prose before it in the document outside it.
/// Readers' comments and "more stories" teasers have that shape, by
/// structure and whatever their names; an article's paragraphs do not
/// carry dates of their own. A thread's or a listing's own items have
/// little prose before them (a title, an introduction), so they stay;
/// series nested in an item of a series are judged with the outer one.
fn drop_appended_series(
    dom: &Dom,
    order: &[NodeId],
    weight: &[Weight],
    before: &[u32],
    skip: &mut [bool],
) {
    let n = dom.nodes.len();
    // Whether a date element is at or below each node (post-order), in
    // the excluded parts too: an item's date often sits in its footer.
    let mut dated = vec![false; n];
    for &id in order.iter().rev() {
        if dom.element(id).is_some_and(|e| {
            e.html_name() == Some(&local_name!("time")) || e.has_attr(&local_name!("datetime"))
        }) {
            dated[id] = true;
        }
        if dated[id]
            && let Some(p) = dom.nodes[id].parent
        {
            dated[p] = true;
        }
    }
    let mut in_series = vec![false; n];
    for &id in order {
        if let Some(p) = dom.nodes[id].parent {
            in_series[id] |= in_series[p];
        }
        if skip[id] || in_series[id] || !dated[id] || dom.element(id).is_none() {
            continue;
        }
        // Children with text, and those of them that are dated items of
        // the most frequent tag (the series' own shape).
        let mut items = 0usize;
        let mut tags: Vec<(&LocalName, usize)> = Vec::new();
        for c in dom.children(id) {
            if skip[c] || weight[c].text == 0 {
                continue;
            }
            let Some(tag) = dom.element(c).and_then(Element::html_name) else {
                continue;
            };
            items += 1;
            if dated[c] {
                match tags.iter_mut().find(|(t, _)| *t == tag) {
                    Some((_, count)) => *count += 1,
                    None => tags.push((tag, 1)),
                }
            }
        }
        let alike = tags.iter().map(|&(_, count)| count).max().unwrap_or(0);
        if alike >= SERIES_MIN && alike * 2 >= items {
            in_series[id] = true;
            // Each item is short beside the text before them: an article
            // dwarfs its comments and teasers; a thread's first post is
            // about the size of a reply.
            let per_item = weight[id].text.saturating_sub(weight[id].link)
                / u32::try_from(items).unwrap_or(u32::MAX);
            if before[id] >= APPENDED_PROSE_MIN
                && before[id] >= APPENDED_ITEM_RATIO.saturating_mul(per_item)
            {
                mark_subtree(dom, id, skip);
            }
        }
    }
}

/// Marks a node and everything below it as skipped.
fn mark_subtree(dom: &Dom, id: NodeId, skip: &mut [bool]) {
    let mut stack = vec![id];
    while let Some(n) = stack.pop() {
        skip[n] = true;
        stack.extend(dom.children(n));
    }
}

fn is(dom: &Dom, id: NodeId, name: &LocalName) -> bool {
    dom.element(id)
        .and_then(Element::html_name)
        .is_some_and(|n| n == name)
}

/// The share of its parent's text a child must hold for the root to move
/// into it: higher for table rows and cells, where a layout table's other
/// cells are sidebars but a data table's other rows are content.
fn descend_share(dom: &Dom, id: NodeId) -> f64 {
    if is(dom, id, &local_name!("tr")) || is(dom, id, &local_name!("td")) {
        TABLE_DESCEND_SHARE
    } else {
        DESCEND_SHARE
    }
}

/// Elements the root may move into: those that group blocks. A paragraph,
/// a list item or a heading is never the root, however dominant.
fn is_container(dom: &Dom, id: NodeId) -> bool {
    dom.element(id)
        .and_then(Element::html_name)
        .is_some_and(|n| {
            matches!(
                *n,
                local_name!("div")
                    | local_name!("section")
                    | local_name!("article")
                    | local_name!("main")
                    | local_name!("center")
                    | local_name!("table")
                    | local_name!("tbody")
                    | local_name!("tr")
                    | local_name!("td")
                    | local_name!("span")
                    | local_name!("font")
            )
        })
}

/// Containers whose link density decides whether they are navigation.
fn is_block_container(dom: &Dom, id: NodeId) -> bool {
    dom.element(id)
        .and_then(Element::html_name)
        .is_some_and(|n| {
            matches!(
                *n,
                local_name!("div")
                    | local_name!("ul")
                    | local_name!("ol")
                    | local_name!("section")
                    | local_name!("p")
            )
        })
}

#[cfg(test)]
mod counting {
    use proptest::prelude::*;

    use super::{collapsed_chars, style_hides};

    proptest! {
        // Verifies: REQ-PAGE-002 (the one-pass count weighs text as before)
        #[test]
        fn collapsed_chars_counts_words_and_the_spaces_after_them(
            t in "[a-zé \t\n\u{a0}\u{2003}]{0,40}",
        ) {
            let reference: usize = t.split_whitespace().map(|w| w.chars().count() + 1).sum();
            prop_assert_eq!(collapsed_chars(&t) as usize, reference);
        }

        // Verifies: REQ-PAGE-002 (an inline style that hides an element
        // is read whatever its case and spacing)
        #[test]
        fn style_hides_reads_hiding_declarations_in_any_case_and_spacing(
            parts in prop::collection::vec(
                prop::sample::select(vec![
                    "display", "DisPlay", "visibility", ":", " ", "\u{a0}", "\n", "none",
                    "NONE", "hidden", "Collapse", "block", ";", "color:red", "\u{130}",
                ]),
                0..8,
            ),
        ) {
            let style = parts.concat();
            let squeezed: String = style
                .chars()
                .filter(|c| !c.is_whitespace())
                .flat_map(char::to_lowercase)
                .collect();
            let reference = ["display:none", "visibility:hidden", "visibility:collapse"]
                .iter()
                .any(|d| squeezed.contains(d));
            prop_assert_eq!(style_hides(&style), reference);
        }
    }
}
