//! Pass 1, exclusion: what is never main content, by what an element is
//! (its name, its attributes, what its class and id say) and, once the
//! text is weighed, by what it holds (boilerplate blocks that hold little
//! of the page's text, a comment section after an article's prose, a
//! series of dated items appended to an article).

use std::collections::{HashMap, HashSet};

use html5ever::{LocalName, local_name};

use super::names::{Names, caption_name, hidden_until_loaded};
use super::weights::{Weight, bare_text_block, collapsed_chars};
use super::{
    Kind, below, frames_page, has_clock_time, holds_any, is, kind, linked_headings,
    names_article_body,
};
use crate::page::dom::{DOCUMENT, Data, Dom, Element, NodeId};
use crate::page::markdown::{heading_level, is_block};

/// Largest share of the page's text a block named as boilerplate may hold
/// and still be dropped, unless the rest of the page outweighs it
/// ([`outweighed`]).
const BOILERPLATE_SHARE_MAX: f64 = 0.3;

/// How many times a boilerplate block's prose the rest of a page of prose
/// holds for the block to be dropped however much of the page's text it
/// holds (a sidebar of long teasers beside a short article). Chosen on
/// the development sets: at 2, WCXB one page up (+0.17) and none down,
/// trafilatura's evaluation pages two better (sidebars read with the
/// article); at 1, a forum's thread named as a sidebar goes too (−0.32).
/// Measured on the article set and the third corpus: no change.
const BOILERPLATE_REST_RATIO: u32 = 2;

/// Prose (or text) before a block named as a comment section that makes
/// the block the page's comments, not its content, however long the
/// thread: a forum page's posts are its content, an article's readers'
/// comments are not.
const COMMENTS_REST_MIN: u32 = 400;

/// The comment section may hold at most this many times the text outside
/// links before it: a popular story's thread runs to ten times the story.
/// Chosen on WCXB's development pages, where from about 20 a forum page
/// whose truth is its opening post and replies started to lose its
/// replies. The text, not only the paragraphs, so that a post set in
/// headings and lists is weighed whole against its thread (measured: one
/// page up on trafilatura's evaluation pages, none changed elsewhere).
const COMMENTS_REST_RATIO: u32 = 16;

/// Prose before a block named as boilerplate that makes its teasers (see
/// [`teasers`]) the page's related posts, however much of the page they
/// hold: two or three sentences, a short post's, as the title heading's
/// reading asks. Chosen on the development pages, where 200 and 400 move
/// the same two pages of trafilatura's evaluation pages (their related
/// posts no longer read) and no page of WCXB's.
const TEASERS_PROSE_MIN: u32 = 200;

/// Prose before a series of dated items (see [`drop_appended_series`])
/// that makes the series an appendix of an article: a text of its own,
/// longer than a thread's title or a listing's introduction.
const APPENDED_PROSE_MIN: u32 = 400;

/// Most levels of wrapping between a hidden element and the panel a
/// shown control opens for it to be shown with the panel
/// ([`Reveal::reveals_wrapped`]): a collapsing part, its inner wrappers
/// (the panel is three levels down in one widely used component
/// library). Measured: WCXB's development pages two pages up (+0.32,
/// +0.01), no page of the other corpora changed.
const WRAPPER_DEPTH: usize = 4;

/// Longest text, in bytes, whose time of day dates its item: a date line
/// ("May 4, 2024 at 9:15 pm", an author's name before it), not a time a
/// paragraph mentions. Shorter than a paragraph counted as prose.
const DATE_LINE_MAX: usize = 80;

/// Fewest items that make a series: dated items, teasers.
const SERIES_MIN: usize = 3;

/// How many times an item's mean text the prose before a series must be
/// for the series to be an appendix. Measured on the pages built to the
/// shapes (`tests/bench/page_shapes.py`, three seeds): at 2, a post keeps
/// fewer of its readers' comments (built posts 3 to 7 pages fewer under
/// F1 0.3) but a forum's question loses more of its replies (built
/// threads 4 to 7 more), since the prose before a series counts the
/// rails of stories before the question too; at 1, threads lose more
/// still. A reply lost costs the reader more than a comment kept, so 3
/// stays. Between 2 and 3 no page's figure changes in any corpus (one of
/// trafilatura's pages changes its output, no passage).
const APPENDED_ITEM_RATIO: u32 = 3;

/// Least characters of paragraph text below a `<footer>` inside an
/// article or a section for it to be read as that piece's text (a
/// video's transcript, a story's notes set in its footer), not its
/// furniture (a byline, tags, a share row). Chosen on the development
/// sets: at 1,000 and 2,000 characters, two of newspaper's test pages
/// from a video's caption to its transcript and no page of WCXB's or of
/// trafilatura's changed; at 400, two WCXB pages lost precision (an
/// author's box read with the text).
const FOOTER_PROSE_MIN: u32 = 1000;

/// Least characters of paragraph text of the landmark the lenient read
/// takes for the page's text ([`holds_main`]). Chosen on the development
/// sets: at 500, one of newspaper's test pages (a slideshow's text set in
/// a sidebar beside an introduction of one sentence) and one of WCXB's
/// (a thread) up, no page down; at 1,500, the same page of newspaper's
/// only.
const LANDMARK_PROSE_MIN: u32 = 500;

/// Walks the tree in pre-order, excluding elements by what they are;
/// exclusion is inherited. Returns the order, which the later passes
/// walk too, and the nodes excluded.
pub(super) fn exclude<'a>(
    dom: &'a Dom,
    lenient: bool,
    names: &mut Names<'a>,
) -> (Vec<NodeId>, Vec<bool>) {
    let n = dom.nodes.len();
    let mut skip = vec![false; n];
    let mut order = Vec::with_capacity(n);
    let mut stack = vec![DOCUMENT];
    // Whether a node is inside an `<article>`, a `<section>` or a
    // `<main>`: HTML maps a `<header>` there to no banner landmark.
    let mut sectioned = vec![false; n];
    let holds_main = holds_main(dom, lenient);
    // Nodes the footers inside articles may still have read for their
    // paragraphs: once spent, the footers left are left out, as before.
    let mut footer_budget = n;
    let mut reveal = Reveal::default();
    // Whether a node is hidden from the reader, by itself or an ancestor:
    // judged for the nodes not left out with their parent. Exclusion
    // leaves out more than is hidden: a button or a navigation bar is
    // excluded but shown, and a control there still opens its panel.
    let mut dark = vec![false; n];
    // The copies of a ticker's phrase after its first ([`is_ticker`]).
    let mut copy = vec![false; n];
    while let Some(id) = stack.pop() {
        order.push(id);
        let node = &dom.nodes[id];
        let parent_skipped = node.parent.is_some_and(|p| skip[p]);
        if let Some(p) = node.parent {
            sectioned[id] = sectioned[p]
                || is(dom, p, &local_name!("article"))
                || is(dom, p, &local_name!("section"))
                || is(dom, p, &local_name!("main"));
        }
        // Judged once per element (below a hidden one, everything is).
        let parent_dark = node.parent.is_some_and(|p| dark[p]);
        dark[id] = parent_dark || (!parent_skipped && concealed(dom, id, lenient, names, &reveal));
        skip[id] = parent_skipped
            || dark[id]
            || match &node.data {
                // A `<header>` inside an article, a section or the main
                // content heads that piece (its title, date, summary), not
                // the site: HTML maps only a page-level header to the
                // banner landmark.
                Data::Element(e)
                    if sectioned[id] && e.html_name() == Some(&local_name!("header")) =>
                {
                    furniture_role(e)
                }
                // A banner, a sidebar or a footer left open holds the rest
                // of the page, its `<main>` too: that is a markup error,
                // not furniture. So is one that holds the page's one
                // article, in the lenient read (the strict one found
                // little or nothing).
                Data::Element(e) if holds_main[id] && is_landmark(e) => false,
                // A `<footer>` inside an article or a section is that
                // piece's; one that holds a text's paragraphs (a video's
                // transcript) is its text too.
                Data::Element(e)
                    if sectioned[id]
                        && e.html_name() == Some(&local_name!("footer"))
                        && !furniture_role(e)
                        && holds_paragraphs(dom, id, FOOTER_PROSE_MIN, &mut footer_budget) =>
                {
                    false
                }
                Data::Element(e) => (excluded(e, lenient) && !opened_panel(dom, id, e)) || copy[id],
                Data::Other => true,
                _ => false,
            };
        // A ticker is read once: its first copy stays.
        if !skip[id] && is_ticker(dom, id, lenient) {
            for c in dom
                .children(id)
                .filter(|&c| dom.element(c).is_some())
                .skip(1)
            {
                copy[c] = true;
            }
        }
        // A control left out with its parent (in a navigation bar) opens
        // its panel too, unless something hides it there: judged for
        // controls only, which are few.
        if !dark[id]
            && let Some(e) = dom.element(id)
            && Reveal::is_control(e)
            && !(parent_skipped
                && hidden_where_left_out(dom, id, &skip, &dark, lenient, names, &reveal))
        {
            reveal.note(e);
        }
        // Children pushed in reverse so they pop in document order.
        stack.extend(dom.children_last_first(id));
    }
    (order, skip)
}

/// Whether each node is a `<main>` element or holds one; in the lenient
/// read, also the page's one article ([`the_article`]) and the landmark
/// whose paragraphs hold the most text, [`LANDMARK_PROSE_MIN`] at least
/// ([`prose_landmark`]): a page whose strict read found (almost) nothing
/// may have set its text in a landmark, an article or a slideshow's text
/// in a sidebar or in a banner left open.
fn holds_main(dom: &Dom, lenient: bool) -> Vec<bool> {
    let mut holds = vec![false; dom.nodes.len()];
    let (article, landmark) = if lenient {
        (the_article(dom), prose_landmark(dom))
    } else {
        (None, None)
    };
    for id in 0..dom.nodes.len() {
        if !is(dom, id, &local_name!("main")) && Some(id) != article && Some(id) != landmark {
            continue;
        }
        // Each node is marked once: the walk up stops at a marked one.
        let mut at = Some(id);
        while let Some(a) = at.filter(|&a| !holds[a]) {
            holds[a] = true;
            at = dom.nodes[a].parent;
        }
    }
    holds
}

/// The landmark ([`is_landmark`]: a header, a footer, a sidebar, a
/// navigation) whose paragraphs hold the most text, if they hold [`LANDMARK_PROSE_MIN`] at
/// least; of two that hold as much, the first.
fn prose_landmark(dom: &Dom) -> Option<NodeId> {
    let paragraphs = paragraph_chars(dom);
    (0..dom.nodes.len())
        .filter(|&id| {
            paragraphs[id] >= LANDMARK_PROSE_MIN && dom.element(id).is_some_and(is_landmark)
        })
        .min_by_key(|&id| (std::cmp::Reverse(paragraphs[id]), id))
}

/// Whether the paragraphs (`<p>`) below a node hold `min` characters of
/// text at least, whitespace collapsed; read until they do, and no more
/// than `budget` nodes in all (the footers of one page share it), past
/// which the answer is no.
fn holds_paragraphs(dom: &Dom, id: NodeId, min: u32, budget: &mut usize) -> bool {
    let mut chars = 0u32;
    let mut stack = vec![(id, false)];
    while let Some((n, in_p)) = stack.pop() {
        let Some(left) = budget.checked_sub(1) else {
            return false;
        };
        *budget = left;
        match &dom.nodes[n].data {
            Data::Text(t) if in_p => {
                chars = chars.saturating_add(collapsed_chars(t));
                if chars >= min {
                    return true;
                }
            }
            Data::Element(e) => {
                let p = in_p || e.html_name() == Some(&local_name!("p"));
                stack.extend(dom.children(n).map(|c| (c, p)));
            }
            _ => {}
        }
    }
    false
}

/// The characters of text in paragraphs (`<p>`) below each node,
/// whitespace collapsed, hidden or not; in one walk of the tree.
fn paragraph_chars(dom: &Dom) -> Vec<u32> {
    let n = dom.nodes.len();
    let (mut chars, mut in_p) = (vec![0u32; n], vec![false; n]);
    let mut order = Vec::with_capacity(n);
    let mut stack = vec![DOCUMENT];
    while let Some(id) = stack.pop() {
        order.push(id);
        if let Some(p) = dom.nodes[id].parent {
            in_p[id] = in_p[p] || is(dom, p, &local_name!("p"));
        }
        if let (Data::Text(t), true) = (&dom.nodes[id].data, in_p[id]) {
            chars[id] = collapsed_chars(t);
        }
        stack.extend(dom.children(id));
    }
    // Children come after their parent in pre-order: walked backwards,
    // each adds its sum to its parent's before the parent's is read.
    for &id in order.iter().rev() {
        if let Some(p) = dom.nodes[id].parent {
            chars[p] = chars[p].saturating_add(chars[id]);
        }
    }
    chars
}

/// The page's one article: the one element its structured data marks as
/// an article's body (`itemprop="articleBody"`), else its only outermost
/// `<article>`; a page with two bodies, or with no body and two outermost
/// articles (link previews, a feed, footer columns set as articles),
/// has none.
fn the_article(dom: &Dom) -> Option<NodeId> {
    // (the one found, whether a second was) per mark.
    let (mut body, mut article) = ((None, false), (None, false));
    let mut stack = vec![(DOCUMENT, false)];
    while let Some((id, in_article)) = stack.pop() {
        let mut inside = in_article;
        if let Some(e) = dom.element(id) {
            let note = |mark: &mut (Option<NodeId>, bool)| {
                mark.1 |= mark.0.is_some();
                mark.0 = Some(id);
            };
            if e.attr(&local_name!("itemprop"))
                .is_some_and(names_article_body)
            {
                note(&mut body);
            }
            if e.html_name() == Some(&local_name!("article")) && !in_article {
                note(&mut article);
                inside = true;
            }
        }
        stack.extend(dom.children(id).map(|c| (c, inside)));
    }
    match (body, article) {
        ((Some(b), false), _) => Some(b),
        ((None, _), (Some(a), false)) => Some(a),
        _ => None,
    }
}

/// The page-level landmarks that are never content by their name.
fn is_landmark(e: &Element) -> bool {
    matches!(
        e.html_name(),
        Some(
            &local_name!("header")
                | &local_name!("footer")
                | &local_name!("aside")
                | &local_name!("nav")
        )
    )
}

/// What precedes each node in document order: its prose (paragraph text)
/// and its text outside links, and the kinds of block that set its
/// paragraphs. An article's comments follow its text; on a thread, what
/// precedes the replies is the question, and what prose there is
/// elsewhere is sidebars.
pub(super) struct Before<'a> {
    pub(super) prose: Vec<u32>,
    pub(super) plain: Vec<u32>,
    posts: PostKinds<'a>,
    /// Whether the page declares itself a discussion, whose replies,
    /// however they are set, are its posts.
    discussion: &'a dyn Fn() -> bool,
}

impl<'a> Before<'a> {
    /// `bare`: the blocks whose own text counts as prose (sorted), which
    /// `weight` was weighed with. `discussion`: whether the page declares
    /// itself a forum's thread or a question and its answers, whose
    /// replies are its text.
    pub(super) fn new(
        dom: &'a Dom,
        order: &[NodeId],
        weight: &[Weight],
        skip: &[bool],
        bare: &[NodeId],
        discussion: &'a dyn Fn() -> bool,
    ) -> Self {
        let n = dom.nodes.len();
        let (mut prose, mut plain) = (vec![0u32; n], vec![0u32; n]);
        let (mut running_prose, mut running_plain) = (0u32, 0u32);
        let mut posts = PostKinds::default();
        for (at, &id) in order.iter().enumerate() {
            posts.note(dom, at, id, weight, skip, bare);
            prose[id] = running_prose;
            plain[id] = running_plain;
            // What a node holds outside its children: its own text.
            let (below_prose, below_plain) = dom.children(id).fold((0u32, 0u32), |(p, t), c| {
                (
                    p.saturating_add(weight[c].para),
                    t.saturating_add(weight[c].plain()),
                )
            });
            running_prose =
                running_prose.saturating_add(weight[id].para.saturating_sub(below_prose));
            running_plain =
                running_plain.saturating_add(weight[id].plain().saturating_sub(below_plain));
        }
        Self {
            prose,
            plain,
            posts,
            discussion,
        }
    }
}

/// Drops the blocks named as boilerplate, unless they hold much of the
/// page's text: a layout wrapper named "has-sidebar" holds the content.
/// Blocks named so by their class beside others of the same class are
/// weighed with them ([`alike_weight`]): a text that a page builder set in
/// chunks named for their layout ("sidebar-grid__container") holds much
/// of the page's text together, though no chunk alone does. Measured: one
/// of Fundus's test pages from its "more from the author" teasers to its
/// article (F1 0.01 to 0.98), one of WCXB's pages up (0.79 to 0.94) and
/// one down by 0.001, no other page of any set changed; summed with the
/// blocks named so by their id too, a blog's archive (one `section` named
/// by its id "sidebar") stayed, and one of trafilatura's pages lost its
/// text; with copies counted each time, a placeholder repeated for each
/// social embed was read as text (one of Fundus's pages down, 0.79 to
/// 0.74).
///
/// A comment section goes however long when what precedes it makes the
/// page an article with comments ([`rest_is_text`]), unless its
/// paragraphs are set like one before it ([`PostKinds::set_before`]): a
/// forum's replies, set like its opening post, are its content however
/// short. So do teasers in a block so named after prose of the page's own
/// ("You may also like" after a short post), however much of the page
/// they hold. On a page of prose, captions go too. On a page that
/// declares itself a discussion, no comment section goes: its replies are
/// its text however they are set (measured: one of WCXB's forum pages
/// from its question alone, F1 0.35, to its answers too, 0.87; no page
/// of another set changed).
pub(super) fn drop_boilerplate<'a>(
    dom: &'a Dom,
    order: &[NodeId],
    body: NodeId,
    weight: &[Weight],
    before: &Before<'_>,
    names: &mut Names<'a>,
    skip: &mut [bool],
) {
    let n = dom.nodes.len();
    let body_plain = f64::from(weight[body].plain());
    // Captions are dropped from prose only: in a gallery or a collection
    // they are the items' text.
    let page_prose = weight[body].is_prose();
    let mut nested = vec![false; n];
    let mut thread = vec![false; n];
    // Comment sections set like the post before them, and what they hold:
    // a forum's replies, which are its content.
    let mut replies = vec![false; n];
    for (at, &id) in order.iter().enumerate() {
        // Replies nested in a thread are judged with the thread (what is
        // skipped already is not read for it: only its own nodes, skipped
        // too, would be).
        thread[id] = !skip[id]
            && dom
                .element(id)
                .is_some_and(|e| names.comments(e) && names.boilerplate(e));
        if let Some(p) = dom.nodes[id].parent {
            nested[id] = nested[p] || thread[p];
            replies[id] = replies[p];
        }
        if thread[id] && !nested[id] && before.posts.set_before(dom, order, at, weight, skip) {
            replies[id] = true;
        }
    }
    let mut alike = HashMap::new();
    // Text of the blocks dropped so far, which `before` still counts.
    let mut dropped = Dropped::default();
    for &id in order {
        if skip[id] {
            continue;
        }
        let mut group = |e: &'a Element, names: &mut Names<'a>| {
            alike_weight(dom, id, e, weight, names, skip, &mut alike)
        };
        if let Some(e) = dom.element(id)
            && !(replies[id] && names.comments(e))
            && !frames_page(e)
            && (names.boilerplate(e)
                || (page_prose && caption_name(e) && !holds_any(dom, id, &[local_name!("img")])))
            && (f64::from(group(e, names).plain()) < BOILERPLATE_SHARE_MAX * body_plain
                || (page_prose && !names.comments(e) && outweighed(weight[body], group(e, names)))
                || (!names.comments(e)
                    && before.prose[id].saturating_sub(dropped.prose) >= TEASERS_PROSE_MIN
                    && teasers(dom, id, weight, skip))
                || (names.comments(e)
                    && !nested[id]
                    && rest_is_text(
                        before,
                        &dropped,
                        id,
                        weight[id],
                        names.reviews(e).then_some(weight[body]),
                    )))
            // Asked last: only of a block that would go.
            && !(names.comments(e) && (before.discussion)())
        {
            mark_subtree(dom, id, skip);
            // All of it precedes the nodes still to come in document
            // order: what precedes them is that much less.
            dropped.prose = dropped.prose.saturating_add(weight[id].para);
            dropped.plain = dropped.plain.saturating_add(weight[id].plain());
        }
    }
}

/// The weight of a block whose class names it as boilerplate (not as a
/// comment section) with the blocks so named beside it that share its
/// class, worked out once per (parent, class) in `alike`: a text split
/// into chunks set alike (a page builder's containers, named for the
/// layout they sit in) is weighed whole, as it would be had one block
/// wrapped the chunks. Copies (blocks that weigh the same, as a
/// placeholder repeated for each embed does) count once. Any other
/// block weighs alone.
fn alike_weight<'a>(
    dom: &'a Dom,
    id: NodeId,
    e: &'a Element,
    weight: &[Weight],
    names: &mut Names<'a>,
    skip: &[bool],
    alike: &mut HashMap<(NodeId, &'a str), Weight>,
) -> Weight {
    let mut named =
        |e: &'a Element| names.boilerplate(e) && !names.comments(e) && names.class_boilerplate(e);
    let (Some(parent), Some(class)) = (dom.nodes[id].parent, e.attr(&local_name!("class"))) else {
        return weight[id];
    };
    if !named(e) {
        return weight[id];
    }
    if let Some(w) = alike.get(&(parent, class)) {
        return *w;
    }
    let mut sum = Weight::default();
    let mut seen: HashSet<(u32, u32, u32)> = HashSet::new();
    for c in dom.children(parent) {
        if skip[c] {
            continue;
        }
        if let Some(sibling) = dom.element(c)
            && sibling.attr(&local_name!("class")) == Some(class)
            && named(sibling)
        {
            let w = weight[c];
            if seen.insert((w.text, w.link, w.para)) {
                sum.text = sum.text.saturating_add(w.text);
                sum.link = sum.link.saturating_add(w.link);
                sum.para = sum.para.saturating_add(w.para);
            }
        }
    }
    alike.insert((parent, class), sum);
    sum
}

/// Whether a block holds teasers: three headings at least whose text is
/// all a link (a teaser's heading is its link; a section's heading is
/// not).
fn teasers(dom: &Dom, id: NodeId, weight: &[Weight], skip: &[bool]) -> bool {
    linked_headings(dom, id, weight, skip, |_| true).0 >= SERIES_MIN
}

/// Where each kind of block (tag and class) that sets a paragraph first
/// sets one, in document order: a paragraph's block is its nearest
/// ancestor with a class (a post's body, a reply's, an article's text).
/// A forum sets its replies as it sets its opening post; a site sets an
/// article's readers' comments apart from its text. Measured: on WCXB's
/// development pages two forums up (+0.14, +0.32), none down; no page of
/// trafilatura's evaluation pages, the article set or the third corpus
/// changed.
///
/// A paragraph of the post is prose: a `<p>` or `<pre>` of some length,
/// or a block of bare text that counts as prose (a forum post set between
/// line breaks). A reply's is any text set in such a block, since a reply
/// is often a line or two (measured: one forum of WCXB's development
/// pages up, +0.39, where the replies are lines of bare text; no page of
/// another corpus changed. Taking a post's blocks of bare text as loosely
/// cost the article set one page its text, −0.96).
#[derive(Default)]
struct PostKinds<'a> {
    first: HashMap<Kind<'a>, usize>,
}

impl<'a> PostKinds<'a> {
    /// Notes the node at `order[at]`, in document order: the kind of its
    /// block where it is a paragraph of prose (`bare`: the blocks whose own
    /// text counts as prose, sorted).
    fn note(
        &mut self,
        dom: &'a Dom,
        at: usize,
        id: NodeId,
        weight: &[Weight],
        skip: &[bool],
        bare: &[NodeId],
    ) {
        let prose = !skip[id]
            && weight[id].para > 0
            && (is(dom, id, &local_name!("p"))
                || is(dom, id, &local_name!("pre"))
                || bare.binary_search(&id).is_ok());
        if prose && let Some(k) = block_of(dom, id, None) {
            self.first.entry(k).or_insert(at);
        }
    }

    /// Whether the section at `order[at]` sets text ([`sets_text`]) in a
    /// block of its own (not the section itself) of a kind that set a
    /// paragraph before it: a forum's replies set like its opening post,
    /// where an article's comments are set unlike its text.
    fn set_before(
        &self,
        dom: &Dom,
        order: &[NodeId],
        at: usize,
        weight: &[Weight],
        skip: &[bool],
    ) -> bool {
        let section = order[at];
        below(dom, order, at)
            .filter(|&id| sets_text(dom, id, weight, skip))
            .filter_map(|id| block_of(dom, id, Some(section)))
            .any(|k| self.first.get(&k).is_some_and(|&f| f < at))
    }
}

/// A `<p>`, a `<pre>` or a block that sets text straight in it (not in
/// nested blocks), with text of its own outside links, not skipped.
fn sets_text(dom: &Dom, id: NodeId, weight: &[Weight], skip: &[bool]) -> bool {
    !skip[id]
        && weight[id].own > 0
        && dom
            .element(id)
            .and_then(Element::html_name)
            .is_some_and(|n| {
                *n == local_name!("p") || *n == local_name!("pre") || bare_text_block(n)
            })
}

/// The kind of a node's nearest ancestor with a class; below `within`
/// only, where given (the climb stops there).
fn block_of(dom: &Dom, id: NodeId, within: Option<NodeId>) -> Option<Kind<'_>> {
    let mut at = dom.nodes[id].parent;
    while let Some(a) = at.filter(|&a| Some(a) != within) {
        if let Some(k) = kind(dom, a).filter(|k| !k.1.trim().is_empty()) {
            return Some(k);
        }
        at = dom.nodes[a].parent;
    }
    None
}

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
            // What a `<video>` or an `<audio>` holds besides its sources is
            // for a browser that plays neither ("your browser does not
            // support the video tag").
            | local_name!("video")
            | local_name!("audio")
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
            // A ruby annotation (a reading set above its characters) and
            // the parentheses set around it for readers without ruby: in
            // a line of text it would split each word it annotates.
            | local_name!("rt")
            | local_name!("rp")
    )
}

/// Least copies of one phrase that make a block a ticker. Its first copy
/// is read, so a floor this low loses nothing a reader needs. On WCXB's
/// development pages: at 3, 4 pages up and none down (+0.0002); at 5, 3
/// up; at 8, 1 down. Trafilatura's pages changed at none; the articles
/// and the third corpus, measured once, neither.
const TICKER_COPIES: usize = 3;

/// Longest phrase, in bytes, a ticker repeats: a call to act or a label,
/// not a sentence.
const TICKER_PHRASE_MAX: usize = 64;

/// Nodes read of each copy, at most: a phrase with its emphasis and an
/// icon, not a block of its own.
const TICKER_COPY_NODES: usize = 16;

/// Whether an element is a ticker: [`TICKER_COPIES`] children or more,
/// every one an element that says the same short phrase ([`phrase_of`])
/// and nothing else with text beside them. A banner that scrolls in a
/// loop ("Book now * Book now * …") sets its phrase many times over so
/// that the loop never shows a gap, and a list of placeholders
/// ("Loading…") its item; the phrase is read once. Not a table's row or
/// body, whose cells may say the same ("yes" in every column).
fn is_ticker(dom: &Dom, id: NodeId, lenient: bool) -> bool {
    if dom
        .children(id)
        .filter(|&c| dom.element(c).is_some())
        .nth(TICKER_COPIES - 1)
        .is_none()
        || is(dom, id, &local_name!("tr"))
        || is(dom, id, &local_name!("tbody"))
        || is(dom, id, &local_name!("table"))
    {
        return false;
    }
    let mut phrase: Option<String> = None;
    for c in dom.children(id) {
        match &dom.nodes[c].data {
            Data::Element(_) => {}
            Data::Text(t) if t.trim().is_empty() => continue,
            Data::Other => continue,
            _ => return false,
        }
        let Some(text) = phrase_of(dom, c, lenient) else {
            return false;
        };
        if text.is_empty() || text.len() > TICKER_PHRASE_MAX {
            return false;
        }
        match &phrase {
            Some(p) if *p != text => return false,
            Some(_) => {}
            None => phrase = Some(text),
        }
    }
    true
}

/// What a copy of a ticker says: its text and its images' alternative
/// texts (cards that differ only by their logos are no copies), without
/// what is never content (a button's label); `None` past
/// [`TICKER_COPY_NODES`] nodes, or where its text has no letter or digit:
/// a rating's stars, as images or as signs, say how many they are.
fn phrase_of(dom: &Dom, id: NodeId, lenient: bool) -> Option<String> {
    let mut words: Vec<&str> = Vec::new();
    let mut says = false;
    let mut stack = vec![id];
    let mut budget = TICKER_COPY_NODES;
    while let Some(n) = stack.pop() {
        budget = budget.checked_sub(1)?;
        match &dom.nodes[n].data {
            Data::Text(t) => {
                says |= t.chars().any(char::is_alphanumeric);
                words.extend(t.split_whitespace());
            }
            Data::Element(e) if excluded(e, lenient) => continue,
            Data::Element(e) => {
                if e.html_name() == Some(&local_name!("img")) {
                    words.extend(e.attr(&local_name!("alt")).unwrap_or("").split_whitespace());
                }
                stack.extend(dom.children_last_first(n));
            }
            Data::Document | Data::Other => {}
        }
    }
    says.then(|| words.join(" "))
}

/// Hidden or non-rendered by its attributes.
fn hidden(e: &Element, lenient: bool) -> bool {
    if e.has_attr(&local_name!("hidden")) {
        // React's streamed server rendering parks the page's content in
        // `<div hidden id="S:0">` until a script moves it in place; the
        // parse moves those a placeholder claims (`dom::streamed`), and
        // the lenient read reads the others where they are.
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
pub(super) fn style_hides(style: &str) -> bool {
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

/// Whether a dialog or an `<aside>` is the panel a button opens: it, or
/// its parent, follows a button (a product's "Description" that slides
/// in as a sheet). The disclosure pattern sets the control right before
/// what it shows; the reader sees the button and opens the panel with a
/// click, as with a collapsed tab ([`Reveal`]), so it is the page's text
/// one click away, not a sidebar or a pop-up the page throws over its
/// text (a cookie banner or a sign-up box follows no button of its own).
/// Measured: one page of WCXB's development pages from its reviews to
/// its description (0.22 to 0.76); no other page of any set changed.
fn opened_panel(dom: &Dom, id: NodeId, e: &Element) -> bool {
    let panel = matches!(
        e.html_name(),
        Some(&local_name!("aside") | &local_name!("dialog"))
    ) || has_role(e, "dialog");
    let follows_button = |n: NodeId| {
        dom.siblings_before(n)
            .find_map(|c| dom.element(c))
            .is_some_and(|b| b.html_name() == Some(&local_name!("button")) || has_role(b, "button"))
    };
    panel && (follows_button(id) || dom.nodes[id].parent.is_some_and(follows_button))
}

/// Whether an element's `role` is `role` (ASCII case aside).
fn has_role(e: &Element, role: &str) -> bool {
    e.attr(&local_name!("role"))
        .is_some_and(|r| r.trim().eq_ignore_ascii_case(role))
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

/// Whether what precedes a comment section makes the page an article with
/// comments rather than a thread: text of its own that outweighs the
/// thread (a post set in blocks of text, with no paragraphs), or prose
/// of its own and a sixteenth of the thread's text at least. A thread's
/// replies outweigh its question's text; an article's comments need not.
///
/// A product's customers' reviews (`page` given: the page's weight) are
/// weighed against the rest of the page, before and after them: a shop
/// may set the product's description below its reviews.
/// Measured: on trafilatura's evaluation pages one product page from none
/// of its passages to one (its description read, not its reviews); no
/// page of WCXB's changed; the article set and the third corpus unchanged.
/// Weighing readers' comments that way too cost WCXB 0.0008 (a thread's
/// sidebars after it).
fn rest_is_text(
    before: &Before<'_>,
    dropped: &Dropped,
    id: NodeId,
    comments: Weight,
    page: Option<Weight>,
) -> bool {
    let (text, prose) = match page {
        Some(page) => (
            page.plain()
                .saturating_sub(dropped.plain)
                .saturating_sub(comments.plain()),
            page.para
                .saturating_sub(dropped.prose)
                .saturating_sub(comments.para),
        ),
        None => (
            before.plain[id].saturating_sub(dropped.plain),
            before.prose[id].saturating_sub(dropped.prose),
        ),
    };
    text >= COMMENTS_REST_MIN
        && (text >= comments.plain()
            || (prose >= COMMENTS_REST_MIN
                && text.saturating_mul(COMMENTS_REST_RATIO) >= comments.plain()))
}

/// Whether the rest of the page (`body`) outweighs a block in it: prose,
/// twice the block's ([`BOILERPLATE_REST_RATIO`]), and more text outside
/// links. A page with no prose outside the block does not.
fn outweighed(body: Weight, block: Weight) -> bool {
    let rest_prose = body.para.saturating_sub(block.para);
    rest_prose > 0
        && rest_prose >= BOILERPLATE_REST_RATIO.saturating_mul(block.para)
        && body.plain().saturating_sub(block.plain()) >= block.plain()
}

/// Paragraph text and text outside links of the blocks
/// [`drop_boilerplate`] dropped so far.
#[derive(Default)]
struct Dropped {
    prose: u32,
    plain: u32,
}

/// Whether an element (not its ancestors) is excluded by what it is;
/// whether it is hidden is judged apart ([`concealed`]).
fn excluded(e: &Element, lenient: bool) -> bool {
    match e.html_name() {
        Some(&local_name!("noscript")) if lenient => false,
        Some(n) if never_content(n) => true,
        Some(_) => furniture_role(e),
        // SVG and MathML content is drawing, not text.
        None => true,
    }
}

/// Whether a node is an element hidden (by an attribute, an inline style
/// or its class) that no control shown before it reveals, by naming it or
/// the panel it wraps ([`Reveal::reveals_wrapped`]).
fn concealed<'a>(
    dom: &'a Dom,
    id: NodeId,
    lenient: bool,
    names: &mut Names<'a>,
    reveal: &Reveal<'a>,
) -> bool {
    dom.element(id)
        .is_some_and(|e| (hidden(e, lenient) || hides(e, lenient, names)) && !reveal.reveals(e))
        && !reveal.reveals_wrapped(dom, id)
}

/// The panels a page's own controls show: a tab (`role="tab"`) or a
/// disclosure button (`aria-expanded`) names the panel it opens with
/// `aria-controls`, or the panel names its control with
/// `aria-labelledby` (WAI-ARIA's tabs and accordion patterns). A collapsed
/// panel, or the part that wraps it alone, is hidden until its control,
/// which the reader sees, is clicked: it is the page's text one click
/// away, not text kept from the reader.
/// Only controls met before the panel, and not excluded themselves, count;
/// a control that opens a pop-up (a menu, a dialog, a list box) does not.
#[derive(Default)]
struct Reveal<'a> {
    /// Ids named by a shown control's `aria-controls`.
    controlled: HashSet<&'a str>,
    /// Ids of shown controls.
    controls: HashSet<&'a str>,
}

impl<'a> Reveal<'a> {
    /// Whether an element is a tab or a disclosure button, not one that
    /// opens a pop-up.
    fn is_control(e: &Element) -> bool {
        (has_role(e, "tab") || e.has_attr(&local_name!("aria-expanded")))
            && e.attr(&local_name!("aria-haspopup"))
                .is_none_or(|v| v.trim().eq_ignore_ascii_case("false"))
    }

    /// Notes a shown control ([`Self::is_control`]).
    fn note(&mut self, e: &'a Element) {
        if let Some(ids) = e.attr(&local_name!("aria-controls")) {
            self.controlled.extend(ids.split_ascii_whitespace());
        }
        if let Some(id) = e.attr(&local_name!("id")) {
            self.controls.insert(id.trim());
        }
    }

    /// Whether a node wraps a panel a shown control opens, alone: its one
    /// element child, with no text beside it (a style sheet may be), is
    /// the panel or wraps it, [`WRAPPER_DEPTH`] levels down at most.
    /// Accordions often hide the panel's wrapper (the part that
    /// collapses) and name the panel inside it; the control that opens
    /// the panel shows its wrapper.
    fn reveals_wrapped(&self, dom: &Dom, id: NodeId) -> bool {
        if self.controlled.is_empty() && self.controls.is_empty() {
            return false;
        }
        let mut at = id;
        for _ in 0..WRAPPER_DEPTH {
            let mut only = None;
            for c in dom.children(at) {
                match &dom.nodes[c].data {
                    // A style sheet set beside the panel is no content.
                    Data::Element(e) if e.html_name().is_some_and(never_content) => {}
                    Data::Element(_) if only.is_none() => only = Some(c),
                    Data::Element(_) => return false,
                    Data::Text(t) if !t.trim().is_empty() => return false,
                    _ => {}
                }
            }
            let Some(c) = only else { return false };
            if dom.element(c).is_some_and(|e| self.reveals(e)) {
                return true;
            }
            at = c;
        }
        false
    }

    fn reveals(&self, e: &Element) -> bool {
        (!self.controlled.is_empty()
            && e.attr(&local_name!("id"))
                .is_some_and(|id| self.controlled.contains(id.trim())))
            || (!self.controls.is_empty()
                && e.attr(&local_name!("aria-labelledby")).is_some_and(|ids| {
                    ids.split_ascii_whitespace()
                        .any(|id| self.controls.contains(id))
                }))
    }
}

/// Whether a node left out with its parent is hidden there: it or an
/// ancestor up to the top of what is left out is hidden
/// ([`concealed`]; the top's own verdict is `dark` already). The walk
/// stays inside the left-out subtree, bounded by the tree's depth.
fn hidden_where_left_out<'a>(
    dom: &'a Dom,
    id: NodeId,
    skip: &[bool],
    dark: &[bool],
    lenient: bool,
    names: &mut Names<'a>,
    reveal: &Reveal<'a>,
) -> bool {
    let mut at = id;
    while let Some(parent) = dom.nodes[at].parent {
        if dark[at] || !skip[parent] {
            return dark[at];
        }
        if concealed(dom, at, lenient, names, reveal) {
            return true;
        }
        at = parent;
    }
    dark[at]
}

/// Whether the element's class hides it; on the lenient read, not when a
/// script would lift the class once the page has loaded.
fn hides<'a>(e: &'a Element, lenient: bool, names: &mut Names<'a>) -> bool {
    names.hides(e) && !(lenient && hidden_until_loaded(e))
}

/// Most text outside links the block around a form may hold for it to be
/// the form's box (a sign-up's invitation and its terms), not text.
const FORM_BOX_TEXT_MAX: u32 = 600;

/// Share of the page's text outside links a form that asks for a password
/// may hold and still go: more, and the page is set in the form.
const FORM_PAGE_SHARE: f64 = 0.5;

/// Drops the forms that ask the reader to type, and what is said around
/// them. A form that asks for a password signs the reader in or up: it
/// goes whole, wherever it is, unless it holds half of the page's text (a
/// page set whole in one form, as some frameworks do). Measured: WCXB's
/// development pages one page up (+0.04, a sign-up's pitch beside a
/// service's text); on trafilatura's evaluation pages one page's
/// registration box after its text no longer read (its figure
/// unchanged); the article set and the third corpus unchanged.
///
/// Any such form set after a text of prose (a newsletter's sign-up, a
/// comment's fields) goes with its box: the widest block around it that
/// holds little text beside it (not the page's `<body>`, `<main>` or
/// `<article>`, nor much of the page's text). What such a box says is an
/// invitation to act, by structure and whatever its names. A box where
/// the page opens, before any prose, is the page's own offer (a service's
/// sign-up, a search over what it lists) and stays. Measured: WCXB's
/// development pages 8 up, 1 down (a service's box after its opening
/// text), +0.0003; trafilatura's evaluation pages four pages with a
/// sign-up's text no longer read; the article set +0.0003, the third
/// corpus unchanged. From 150 characters of prose before the box
/// instead, WCXB 11 up and 2 down.
pub(super) fn drop_form_boxes(
    dom: &Dom,
    order: &[NodeId],
    body: NodeId,
    weight: &[Weight],
    before: &Before<'_>,
    skip: &mut [bool],
) {
    let body_plain = f64::from(weight[body].plain());
    let small = |id: NodeId| {
        weight[id].plain() <= FORM_BOX_TEXT_MAX
            && f64::from(weight[id].plain()) < BOILERPLATE_SHARE_MAX * body_plain
            && !dom.element(id).is_some_and(frames_page)
    };
    for &id in order {
        if skip[id] || !is(dom, id, &local_name!("form")) {
            continue;
        }
        let asks = Asks::of(dom, id);
        if asks.password && f64::from(weight[id].plain()) < FORM_PAGE_SHARE * body_plain {
            mark_subtree(dom, id, skip);
        }
        if !(asks.text || asks.password) || !small(id) {
            continue;
        }
        let mut top = id;
        while let Some(p) = dom.nodes[top].parent.filter(|&p| p != body && small(p)) {
            top = p;
        }
        if before.prose[top] >= APPENDED_PROSE_MIN {
            mark_subtree(dom, top, skip);
        }
    }
}

/// What a form asks the reader to type.
#[derive(Default)]
struct Asks {
    /// Text: a `<textarea>`, or an `<input>` of no type, or of text, an
    /// e-mail address, a telephone number, a search, a URL.
    text: bool,
    /// A password.
    password: bool,
}

impl Asks {
    fn of(dom: &Dom, form: NodeId) -> Self {
        let mut asks = Self::default();
        let mut stack = vec![form];
        while let Some(n) = stack.pop() {
            match dom
                .element(n)
                .map(|e| (e.html_name(), e.attr(&local_name!("type"))))
            {
                Some((Some(&local_name!("textarea")), _)) => asks.text = true,
                Some((Some(&local_name!("input")), None)) => asks.text = true,
                Some((Some(&local_name!("input")), Some(t))) => {
                    let t = t.trim();
                    if t.eq_ignore_ascii_case("password") {
                        asks.password = true;
                    } else if ["text", "email", "tel", "search", "url"]
                        .iter()
                        .any(|k| t.eq_ignore_ascii_case(k))
                    {
                        asks.text = true;
                    }
                }
                _ => {}
            }
            if asks.text && asks.password {
                break;
            }
            stack.extend(dom.children(n));
        }
        asks
    }
}

/// Drops the series of dated items that follow an article's prose: a
/// block whose children with text are mostly items that carry a date of
/// their own (a `<time>`, an element with a `datetime`, or a time of day
/// in a short line, [`DATE_LINE_MAX`]) and set their text in two blocks
/// at least ([`has_parts`]), three at least, with a text of prose before
/// it in the document outside it.
/// Readers' comments and "more stories" teasers have that shape, by
/// structure and whatever their names; an article's paragraphs do not
/// carry dates of their own. A thread's or a listing's own items have
/// little prose before them (a title, an introduction), so they stay, as
/// do replies set like a long opening post ([`PostKinds::set_before`]),
/// the replies on a page that declares itself a discussion, and a series
/// whose items mostly carry a heading that is not a link: a
/// live report's entries, each a short story under its headline
/// (measured: one page of trafilatura's evaluation pages up, no page of
/// another corpus changed). A comment has no heading of its own, and a
/// teaser's heading is its link. Series nested in an item of a series are
/// judged with the outer one.
pub(super) fn drop_appended_series(
    dom: &Dom,
    order: &[NodeId],
    weight: &[Weight],
    before: &Before<'_>,
    skip: &mut [bool],
) {
    let n = dom.nodes.len();
    // Whether a date element is at or below each node (post-order), in
    // the excluded parts too: an item's date often sits in its footer.
    let mut dated = vec![false; n];
    // And whether a heading whose text is not all links is at or below
    // it, excluded ones aside.
    let mut headed = vec![false; n];
    let clock = |t: &str| t.len() <= DATE_LINE_MAX && has_clock_time(t);
    for &id in order.iter().rev() {
        if dom.element(id).is_some_and(|e| {
            e.html_name() == Some(&local_name!("time")) || e.has_attr(&local_name!("datetime"))
        }) || matches!(&dom.nodes[id].data, Data::Text(t) if clock(t))
        {
            dated[id] = true;
        }
        if dated[id]
            && let Some(p) = dom.nodes[id].parent
        {
            dated[p] = true;
        }
        if !skip[id]
            && weight[id].text > weight[id].link
            && dom
                .element(id)
                .and_then(Element::html_name)
                .and_then(heading_level)
                .is_some()
        {
            headed[id] = true;
        }
        if headed[id]
            && let Some(p) = dom.nodes[id].parent
        {
            headed[p] = true;
        }
    }
    let mut in_series = vec![false; n];
    for (at, &id) in order.iter().enumerate() {
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
        let mut headed_items = 0usize;
        for c in dom.children(id) {
            if skip[c] || weight[c].text == 0 {
                continue;
            }
            headed_items += usize::from(dated[c] && headed[c]);
            let Some(tag) = dom.element(c).and_then(Element::html_name) else {
                continue;
            };
            items += 1;
            if dated[c] && has_parts(dom, c) {
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
            if before.prose[id] >= APPENDED_PROSE_MIN
                && before.prose[id] >= APPENDED_ITEM_RATIO.saturating_mul(per_item)
                && headed_items * 2 <= alike
                && !before.posts.set_before(dom, order, at, weight, skip)
                && !(before.discussion)()
            {
                mark_subtree(dom, id, skip);
            }
        }
    }
}

/// Whether an item sets its text in two blocks at least below it (an
/// author line and a body, a heading and a blurb), as readers' comments
/// and teasers do; a line of a programme or a timetable, dated as it is
/// ("09:30 Opening"), is one line.
fn has_parts(dom: &Dom, id: NodeId) -> bool {
    let mut blocks = 0usize;
    let mut stack: Vec<NodeId> = dom.children(id).collect();
    while let Some(n) = stack.pop() {
        if dom
            .element(n)
            .and_then(Element::html_name)
            .is_some_and(is_block)
        {
            blocks += 1;
            if blocks >= 2 {
                return true;
            }
        }
        stack.extend(dom.children(n));
    }
    false
}

/// Marks a node and everything below it as skipped.
fn mark_subtree(dom: &Dom, id: NodeId, skip: &mut [bool]) {
    let mut stack = vec![id];
    while let Some(n) = stack.pop() {
        skip[n] = true;
        stack.extend(dom.children(n));
    }
}
