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
//! 1. **Exclusion**: elements that are never content (scripts, styles, form
//!    controls, a video's or an audio's fallback text, the copies of a
//!    ticker's phrase after its first, navigation, the page's header,
//!    footers, sidebars; a header inside an article or a section is that
//!    piece's, and so is a footer there that holds paragraphs of a text (a
//!    video's transcript); one left open that holds the page's `<main>` is
//!    no furniture, nor, in the lenient read, one that holds the page's
//!    one article or the most of its paragraphs (a slideshow's text set in
//!    a sidebar)), hidden or non-rendered ones (`hidden`, `aria-hidden`, inline
//!    `display:none` / `visibility:hidden`, CSS frameworks' hiding classes,
//!    `<template>`, `<noscript>`, comments; not a collapsed tab or accordion
//!    panel that a control the reader sees opens, or the part that wraps it
//!    alone, nor a dialog or an aside set right after the button that opens
//!    it, which are the page's text one click away), and blocks whose class
//!    or id names boilerplate (share bars, cookie banners, related links,
//!    comment sections, a product's reviews) unless they hold much of the
//!    page's text and the rest of a page of prose does not hold twice their
//!    prose (a sidebar of long teasers beside a short article); blocks so
//!    named by their class that share a parent and a class are weighed
//!    together (a text split into chunks named for the layout they sit
//!    in), copies once (a placeholder repeated for each embed); a comment
//!    section goes however long, when the page has prose of its own before it
//!    and a sixteenth of the thread's text, or text before it that outweighs
//!    the thread (a product's reviews, text before or after them: a shop may
//!    set its description below its reviews); on a page of prose, image
//!    captions and credit lines (the image contributes its alternative text
//!    instead).
//!    By structure alone, a series of short dated items after an
//!    article's text (readers' comments, "more stories" teasers) goes too,
//!    unless its items carry headings of their own text (a live report's
//!    entries). Neither goes where its text is set in blocks of the kind
//!    that set a paragraph before it: a forum's replies, set like its
//!    opening post, are its content; nor on a page that declares itself
//!    a discussion in its structured data (schema.org's
//!    `DiscussionForumPosting` or `QAPage`).
//!    By structure too, a form that asks for a password (a sign-in) goes
//!    wherever it is, and the box around a form that asks the reader to
//!    type (a newsletter's sign-up and its terms), set after a text of
//!    prose, goes where it holds little text beside the form.
//! 2. **Weights**: each element's characters of text outside links, inside
//!    links, and in paragraphs of some length (prose): `<p>`, `<pre>`,
//!    and long runs of text set straight in a block between `<br>`s,
//!    unless the block is the long exception in a series of short ones
//!    (one post of a thread).
//! 3. **Root**: from `<body>` (or a `<main>` that holds half the text),
//!    descend into the container child that holds most of the node's
//!    weight (paragraph text on a page of prose, from a child holding
//!    two fifths of the text at least; elsewhere text outside links plus a
//!    third of link text), while one does, and on prose not away from a
//!    tenth of the paragraphs set straight in the node or in blocks of
//!    the kind of the child it would move into. That finds an article's
//!    body without cutting a list of items in half, a product's
//!    specifications off its blurb, an introduction off the grid of items
//!    it introduces, or an article off the text blocks a page builder
//!    split it into; nor, on prose, into a child whose prose is mostly
//!    the items of lists without a time (a paper's references) beside a
//!    paragraph or two of the text outside lists (its abstract).
//!    A **second opinion** (`second`) asks what the page marks first:
//!    where the descent went below the page's one structured-data
//!    article body, the body is read whole (its opening paragraph too);
//!    where it stopped above the page's one article (its only
//!    outermost `<article>`, or its structured data's article body; of
//!    several, the one under the title heading), holding 30 % of the
//!    root's prose, or went beside its only one into a series or a block
//!    of links, the article is read. Else it
//!    reads the page from its title heading (the longest `<h1>` or `<h2>`
//!    the document's title holds with two or three sentences of prose
//!    around it, from the widest block around it that does not hold the
//!    descent's root): where the two readings do not overlap and the
//!    descent's root is a series of short blocks (or dated ones, a
//!    thread), mostly links (a teaser row that outweighed a short text)
//!    or without a paragraph (a column of widgets), the heading's wins
//!    (an undated series many times its length stays, where it follows
//!    the heading: a recipe's steps under its introduction).
//!    On a page of prose, the root then takes in the text's **lead**
//!    where the page sets it apart from the body (a standfirst in the
//!    article's header, an introduction in a block of its own): the
//!    nearest block with text before the root, or before the block the
//!    root opens (past a box of links set between them), when it is
//!    short, mostly paragraph text or sentences outside paragraphs (a
//!    heading under the title; no author's photo, no byline's time), and
//!    not repeated by the body.
//! 4. **Pruning** inside the root: small link-heavy blocks (a tag cloud, a
//!    "read more" row) and, on prose pages, link-heavy blocks without a
//!    paragraph; not on a listing, whose items are links, nor a list that
//!    a sentence of the text ending in a colon introduces. The heading that
//!    repeats the document's title goes too (the title is returned apart),
//!    and a block of some length whose text an earlier sibling's repeats
//!    word for word: the versions of a section a responsive page sets side
//!    by side for screens of different sizes, which its style sheets show
//!    one at a time.
//!    On a page of prose, the rails of stories beside the text under its
//!    title heading go first: blocks of three headings or more that link
//!    to other pages of the site, beside a story of two or three
//!    sentences (a news site's "Latest" and "Most read"). And the headings
//!    and the links alone in their block that end the text with nothing
//!    after them go last: each labels what was left out under it ("More
//!    stories", "back to the list").
//!
//! Measured with `tests/bench/extract.sh` (README): F1 0.968 on articles,
//! 0.789 on mixed pages, 0.872 on WCXB's development pages (trafilatura
//! 0.954, 0.728 and 0.827 in the same run), 0.938 on Readability's test
//! pages (trafilatura 0.926; its truth, Readability's own output, keeps
//! a repeated section twice, which pass 4 reads once) and 0.942 on
//! Fundus's (trafilatura 0.945), both corpora no rule was chosen with at
//! first (`readability_pages.py`, `fundus_pages.py`). On trafilatura's
//! own evaluation pages, passage F1 0.923 (trafilatura, whose rules were
//! chosen there, 0.920); on a thousand pages built to the shapes that
//! return the wrong part of a page (`tests/bench/page_shapes.py`, seed
//! 11), 0.934 (trafilatura 0.856); on newspaper's test pages, news
//! articles (`newspaper_pages.py`), 0.951 (trafilatura 0.935). The
//! constants of each pass's module were chosen on the development sets
//! (WCXB's, the articles', trafilatura's evaluation pages, newspaper's,
//! the built pages and, since Fundus's corpus was added, Readability's
//! pages and half A of Fundus's; half B of Fundus's is read as a figure
//! only).

mod exclusion;
mod names;
mod pruning;
mod root;
mod second;
#[cfg(test)]
mod tests;
mod weights;

use html5ever::LocalName;

use self::names::Names;
use self::weights::TextCounts;
use super::dom::{Data, Dom, Element, NodeId};
use super::markdown;

/// What the renderer needs: where to start and which nodes to leave out.
#[derive(Debug)]
pub(crate) struct Extraction {
    pub(crate) root: NodeId,
    pub(crate) skip: Vec<bool>,
    /// The document's title ([`Dom::title`]), worked out once here.
    pub(crate) title: Option<String>,
}

/// Finds the main content of a parsed document.
///
/// `lenient` is the second try for a page where the first found nothing:
/// it reads `<noscript>` content (parse without scripting for it),
/// elements hidden by an inline style, and React's streamed content
/// blocks (`<div hidden id="S:…">`) that no placeholder claimed (the
/// parse moved the others in place), which script-driven pages use for
/// all their content until a script reveals it. Other `hidden` elements,
/// `aria-hidden` and `<template>` stay excluded even then. It also reads
/// a landmark (a sidebar, a banner left open) that holds the page's one
/// article: its structured data's one article body, else its only
/// outermost `<article>`; and the landmark whose paragraphs hold the most
/// text, 500 characters at least (a slideshow's text set in a sidebar
/// beside an introduction of one sentence).
///
/// `page`: the page's address, within whose site a rail of stories links
/// (see [`pruning::drop_rails`]); `None` where it has none.
///
/// `discussion`: whether the page declares itself a forum's thread or a
/// question and its answers in its structured data, whose replies are its
/// text: a comment section or a series of dated items after its opening
/// post is read, not dropped as an article's comments. Asked only of a
/// page that has one, so that the answer may be worked out on demand.
pub(crate) fn extract(
    dom: &Dom,
    lenient: bool,
    page: Option<&url::Url>,
    discussion: &dyn Fn() -> bool,
) -> Extraction {
    let mut names = Names::new();
    let (order, mut skip) = exclusion::exclude(dom, lenient, &mut names);
    let body = root::body(dom, &order);
    // Long runs of text set straight in a block count as prose too, unless
    // the block is one of a repeated kind (see `bare_prose`).
    let text = TextCounts::new(dom, &order, &skip);
    let mut weight = weights::weigh(dom, &order, &skip, &text, &[]);
    let candidates = weights::bare_candidates(dom, &order, &skip, &weight);
    if !candidates.is_empty() {
        weight = weights::weigh(dom, &order, &skip, &text, &candidates);
    }
    let before = exclusion::Before::new(dom, &order, &weight, &skip, &candidates, discussion);
    exclusion::drop_boilerplate(dom, &order, body, &weight, &before, &mut names, &mut skip);
    exclusion::drop_form_boxes(dom, &order, body, &weight, &before, &mut skip);
    exclusion::drop_appended_series(dom, &order, &weight, &before, &mut skip);
    // Weighed again without what was dropped.
    let bare = weights::bare_prose(dom, &order, &skip, &weight, &candidates);
    let weight = weights::weigh(dom, &order, &skip, &text, &bare);
    let start = root::start(dom, &order, body, &weight, &skip);
    // Whether the page is prose decides how the descent measures and what
    // pruning drops.
    let prose = weight[start].is_prose();
    let title = dom.title();
    let root = root::descend(dom, start, prose, &weight, &skip);
    // A second reading, from the title heading, where the weight may have
    // led to a thread, a teaser list or links instead of the text.
    let first = root;
    let headings = second::title_headings(dom, &order, &skip, title.as_deref());
    let root = second::second_opinion(dom, &order, start, first, &weight, &skip, &headings);
    let prose = prose || weight[root].is_prose();
    // The text's lead, where the page sets it apart from the body; the
    // block that holds both is weighed again without what it holds
    // besides, so that pruning judges the text and not its neighbours.
    let (root, weight) = match prose
        .then(|| root::with_lead(dom, start, root, first, &weight, &mut skip))
        .flatten()
    {
        Some(widened) => (widened, weights::weigh(dom, &order, &skip, &text, &bare)),
        None => (root, weight),
    };
    // On a page of prose, the rails of stories beside the text under its
    // title heading (the page's likeliest one the root holds).
    if prose && let Some(&heading) = headings.iter().find(|&&h| h != root && holds(dom, root, h)) {
        pruning::drop_rails(dom, root, heading, &weight, page, &mut skip);
    }
    pruning::drop_link_blocks(dom, &order, root, prose, &weight, &mut skip);
    // On a page of prose, what precedes the article's own heading or its
    // first prose block and is mostly links (an edition menu, sign-in and
    // subscription links, the site's name) is not the article: the
    // content starts at the heading or the prose.
    if prose {
        pruning::trim_link_lead_in(dom, root, &weight, &mut skip);
    }
    if let Some(title) = &title {
        pruning::drop_title_heading(dom, &order, title, &mut skip);
    }
    // Last, so that the copy kept is one the passes above kept: a block
    // whose text an earlier sibling's repeats (a responsive page's version
    // of a section for another screen) is read once.
    pruning::drop_repeated_siblings(dom, root, &weight, &mut skip);
    // On a page of prose, a heading or a link alone that ends the text
    // labels what was left out under it.
    if prose {
        pruning::drop_trailing_labels(dom, root, &weight, &mut skip);
    }
    Extraction { root, skip, title }
}

/// Whether a block carries a time: a `<time>` element, or a time of day
/// in its text (`9:41`, or `11h29` as French and others write it), as
/// posts and comments do.
fn carries_time(dom: &Dom, id: NodeId) -> bool {
    let mut stack = vec![id];
    while let Some(n) = stack.pop() {
        match &dom.nodes[n].data {
            Data::Text(t) if has_clock_time(t) => return true,
            Data::Element(e) if e.html_name() == Some(&html5ever::local_name!("time")) => {
                return true;
            }
            _ => {}
        }
        stack.extend(dom.children_last_first(n));
    }
    false
}

/// Whether a text holds one or two digits, a colon or an `h`, and two
/// digits, not inside a longer run of digits.
fn has_clock_time(t: &str) -> bool {
    let b = t.as_bytes();
    b.iter().enumerate().any(|(i, &c)| {
        (c == b':' || c == b'h')
            && i >= 1
            && b[i - 1].is_ascii_digit()
            && b.get(i + 1).is_some_and(u8::is_ascii_digit)
            && b.get(i + 2).is_some_and(u8::is_ascii_digit)
            && !b.get(i + 3).is_some_and(u8::is_ascii_digit)
            && !(i >= 3 && b[i - 2].is_ascii_digit() && b[i - 3].is_ascii_digit())
    })
}

/// Whether an element is a cookie or consent banner: its class or id
/// says so, or it is a dialog (which a page shows over its content). The
/// root, `<body>`, `<main>` and `<article>` are never one: a page marks
/// its root with a class while a banner shows, and holds its content
/// there.
pub(crate) fn is_consent_block(e: &Element) -> bool {
    !frames_page(e)
        && (matches!(
            e.attr(&html5ever::local_name!("role")),
            Some("dialog" | "alertdialog")
        ) || [
            html5ever::local_name!("class"),
            html5ever::local_name!("id"),
        ]
        .iter()
        .filter_map(|a| e.attr(a))
        .any(names::names_consent))
}

/// Whether an element frames the page's content (`<html>`, `<body>`,
/// `<main>`, `<article>`): never a block to drop, whatever it is named.
fn frames_page(e: &Element) -> bool {
    e.html_name().is_some_and(|n| {
        matches!(
            *n,
            html5ever::local_name!("html")
                | html5ever::local_name!("body")
                | html5ever::local_name!("main")
                | html5ever::local_name!("article")
        )
    })
}

/// Whether an element named one of `names` is below a node (or is it),
/// left out or not.
fn holds_any(dom: &Dom, id: NodeId, names: &[LocalName]) -> bool {
    let mut stack = vec![id];
    while let Some(n) = stack.pop() {
        if names.iter().any(|name| is(dom, n, name)) {
            return true;
        }
        stack.extend(dom.children(n));
    }
    false
}

/// The headings at or below a node whose text is all a link that
/// `leads_on` accepts (a teaser's headline), and the others; headings are
/// not looked into, nor what is skipped.
fn linked_headings(
    dom: &Dom,
    id: NodeId,
    weight: &[weights::Weight],
    skip: &[bool],
    leads_on: impl Fn(NodeId) -> bool,
) -> (usize, usize) {
    let (mut linked, mut other) = (0, 0);
    let mut stack = vec![id];
    while let Some(n) = stack.pop() {
        if skip[n] {
            continue;
        }
        if dom
            .element(n)
            .and_then(Element::html_name)
            .and_then(markdown::heading_level)
            .is_some()
        {
            if weight[n].text > 0 && weight[n].link >= weight[n].text && leads_on(n) {
                linked += 1;
            } else {
                other += 1;
            }
            continue;
        }
        stack.extend(dom.children(n));
    }
    (linked, other)
}

/// The target of the first link at or below a node, trimmed: the page a
/// teaser's headline or a card leads to.
fn first_href(dom: &Dom, id: NodeId) -> Option<&str> {
    let mut stack = vec![id];
    while let Some(n) = stack.pop() {
        if let Some(href) = dom
            .element(n)
            .and_then(|e| e.attr(&html5ever::local_name!("href")))
        {
            return Some(href.trim());
        }
        stack.extend(dom.children_last_first(n));
    }
    None
}

/// Whether `outer` is `inner` or one of its ancestors.
fn holds(dom: &Dom, outer: NodeId, inner: NodeId) -> bool {
    let mut at = Some(inner);
    while let Some(id) = at {
        if id == outer {
            return true;
        }
        at = dom.nodes[id].parent;
    }
    false
}

/// The nodes below `order[at]`, in document order: those that follow it
/// in `order` (the whole tree in pre-order) up to the first node past its
/// subtree, the next sibling of it or of its nearest ancestor that has
/// one. Found once, where asking each node whether it is below would
/// climb from every one of them.
fn below(dom: &Dom, order: &[NodeId], at: usize) -> impl Iterator<Item = NodeId> {
    let mut top = order[at];
    let past = loop {
        if let Some(next) = dom.nodes[top].next {
            break Some(next);
        }
        match dom.nodes[top].parent {
            Some(p) => top = p,
            None => break None,
        }
    };
    order[at + 1..]
        .iter()
        .copied()
        .take_while(move |&id| Some(id) != past)
}

/// The text below a node, whitespace collapsed.
fn text_of(dom: &Dom, id: NodeId) -> String {
    // The tree has fewer nodes than this: the walk never runs out.
    let mut unbounded = usize::MAX;
    collapsed_text(dom, id, None, &mut unbounded).unwrap_or_default()
}

/// The text below a node, whitespace collapsed, without what `skip` leaves
/// out when given; `None` once the walk has visited `budget` nodes.
fn collapsed_text(
    dom: &Dom,
    id: NodeId,
    skip: Option<&[bool]>,
    budget: &mut usize,
) -> Option<String> {
    let mut words: Vec<&str> = Vec::new();
    let mut stack = vec![id];
    while let Some(n) = stack.pop() {
        *budget = budget.checked_sub(1)?;
        if skip.is_some_and(|s| s[n]) {
            continue;
        }
        if let Data::Text(t) = &dom.nodes[n].data {
            words.extend(t.split_whitespace());
        }
        stack.extend(dom.children_last_first(n));
    }
    Some(words.join(" "))
}

/// Whether a node is the HTML element `name` (every pass asks).
fn is(dom: &Dom, id: NodeId, name: &LocalName) -> bool {
    dom.element(id)
        .and_then(Element::html_name)
        .is_some_and(|n| n == name)
}

/// Whether an element marks an article: an `<article>`, or the element a
/// page's structured data calls the article's body.
fn marks_article(e: &Element) -> bool {
    e.html_name() == Some(&html5ever::local_name!("article"))
        || e.attr(&html5ever::local_name!("itemprop"))
            .is_some_and(names_article_body)
}

/// Whether an `itemprop` value names an article's body.
fn names_article_body(itemprop: &str) -> bool {
    itemprop
        .split_ascii_whitespace()
        .any(|w| w.eq_ignore_ascii_case("articleBody"))
}

/// What kind of block a node is: its HTML name and its class attribute as
/// written. Blocks of one kind make a series (a thread's posts, a list's
/// teasers) or the parts of one text; a node without a class is of none.
type Kind<'a> = (&'a LocalName, &'a str);

/// The [`Kind`] of a node (several passes ask).
fn kind(dom: &Dom, id: NodeId) -> Option<Kind<'_>> {
    let e = dom.element(id)?;
    Some((e.html_name()?, e.attr(&html5ever::local_name!("class"))?))
}
