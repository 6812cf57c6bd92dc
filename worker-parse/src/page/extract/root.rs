//! Pass 3, root: from `<body>` (or a `<main>` that holds half the text),
//! the descent into the container child that holds most of the node's
//! weight, while one does and, on a page of prose, while the node's own
//! paragraphs (and the blocks of the kind of the child it would move
//! into) hold little of its prose, and the child is no undated list
//! beside the text's own paragraphs; and, after the second opinion, the
//! root widened to take in the text's lead where the page sets it apart.

use html5ever::local_name;

use super::weights::Weight;
use super::{carries_time, collapsed_text, holds, holds_any, is, kind, text_of};
use crate::page::dom::{DOCUMENT, Dom, Element, NodeId};

/// Share of a node's non-link text a child must hold for the root to move
/// into it.
const DESCEND_SHARE: f64 = 0.7;

/// On a page of prose, the least share of a node's text outside links a
/// child must hold for the root to move into it, however much of the
/// paragraphs it holds: a product's or a service's page has a paragraph
/// of blurb beside specifications, lists and tables that are its content
/// too, where an article's body holds most of its container's text.
/// Chosen on WCXB's development pages: from a third to 0.4, 6 pages up
/// (service and product pages whose blurb or contact block held the
/// paragraphs) and 1 down, sum +1.49; 0.45 moved 12 up and 2 down (+2.67)
/// but let a sidebar into one of trafilatura's evaluation pages, which
/// 0.4 left as they were. Measured once on the article set and the third
/// corpus: no page changed at 0.4 or 0.45.
const PROSE_DESCEND_TEXT_SHARE: f64 = 0.4;

/// On a page of prose, the least share of a node's text, links included,
/// a child must hold for the root to move into it: on a listing whose
/// items are links, the few sentences that introduce it hold the page's
/// paragraphs, and most of its text outside links, but not the listing.
const PROSE_DESCEND_ALL_SHARE: f64 = 0.1;

/// On a page of prose, the share of a node's paragraph text in paragraphs
/// of its own that keeps the root there: its `<p>` and `<pre>` children,
/// and the siblings of the child the descent would move into that are of
/// that child's kind (tag and class). The text's container holds its
/// paragraphs, and moving into a child, however much it holds (a grid of
/// the products an article reviews, the body of a post under its
/// introduction, the first of the text blocks a page builder splits an
/// article into), would leave them behind.
/// Chosen on WCXB's development pages (own paragraphs: 6 pages up, none
/// down; blocks of the child's kind: 12 up, 4 down, sum +1.33, and on
/// trafilatura's evaluation pages 2 pages more with the text found).
/// Measured once on the article set (own paragraphs: 1 page up; blocks of
/// the child's kind: 1 page down, -0.15) and the third corpus (3 pages up
/// each time: +0.54, then +0.36).
const OWN_PROSE_SHARE: f64 = 0.1;

/// Off prose, link text counts for the descent divided by this: a listing's
/// linked items count, a sidebar of links counts less than text.
const LINK_DISCOUNT: u32 = 3;

/// On a page of prose, the least prose outside lists beside a child
/// whose prose is mostly list items that keeps the root above the child:
/// a paragraph or two of the text's own (an abstract, an introduction).
/// Chosen on the development sets: at 800, 1,200 and 1,600 characters,
/// WCXB's pages 2 up (+0.0001), none down, and one of trafilatura's
/// evaluation pages from its references alone to its abstract with
/// them (its paywall's notice too); at 200 and 400, 3 WCXB pages up and
/// 5 and 4 down (an author's box or a disclaimer read with the text);
/// the built pages (`page_shapes.py`) unchanged at each. Measured once
/// on the article set and the third corpus: no page changed.
const LIST_REST_PROSE_MIN: u32 = 800;

/// Whether `child`'s prose is mostly list items while its node holds
/// prose outside lists beside it ([`LIST_REST_PROSE_MIN`]): an article's
/// references or its items set as a list, which the text around them
/// belongs with (the descent stays above them where they carry no time;
/// dated items, a thread's replies or an article's comments, are the
/// second opinion's to judge).
fn list_beside_prose(node: Weight, child: Weight) -> bool {
    let unlisted = |w: Weight| w.para.saturating_sub(w.listed);
    child.listed.saturating_mul(2) >= child.para
        && unlisted(node).saturating_sub(unlisted(child)) >= LIST_REST_PROSE_MIN
}

/// [`DESCEND_SHARE`] for table rows and cells.
const TABLE_DESCEND_SHARE: f64 = 0.85;

/// The `<body>` (the document when there is none).
pub(super) fn body(dom: &Dom, order: &[NodeId]) -> NodeId {
    order
        .iter()
        .copied()
        .find(|&id| is(dom, id, &local_name!("body")))
        .unwrap_or(DOCUMENT)
}

/// Where the descent starts: `body`, or a `<main>` (or role=main) holding
/// most of the text, which is the root outright.
pub(super) fn start(
    dom: &Dom,
    order: &[NodeId],
    body: NodeId,
    weight: &[Weight],
    skip: &[bool],
) -> NodeId {
    let mut root = body;
    if let Some(main) = order.iter().copied().find(|&id| {
        !skip[id]
            && dom.element(id).is_some_and(|e| {
                e.html_name() == Some(&local_name!("main"))
                    || e.attr(&local_name!("role")) == Some("main")
            })
    }) && f64::from(weight[main].plain()) >= 0.5 * f64::from(weight[body].plain())
    {
        root = main;
    }
    root
}

/// Descends from `start` into the container child that holds most of the
/// node's weight, while one does. `prose` is whether `start` holds a page
/// of prose ([`Weight::is_prose`]).
pub(super) fn descend(
    dom: &Dom,
    start: NodeId,
    prose: bool,
    weight: &[Weight],
    skip: &[bool],
) -> NodeId {
    let mut root = start;
    // On a page of prose, paragraphs lead the descent (teasers, link
    // lists and widgets around an article carry text too, but rarely in
    // paragraphs); elsewhere all text outside links does.
    let measure = |id: NodeId| {
        if prose {
            weight[id].para
        } else {
            weight[id].plain() + weight[id].link / LINK_DISCOUNT
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
                        || (f64::from(weight[c].plain())
                            >= PROSE_DESCEND_TEXT_SHARE * f64::from(weight[root].plain())
                            && f64::from(weight[c].text)
                                >= PROSE_DESCEND_ALL_SHARE * f64::from(weight[root].text)
                            && f64::from(own_prose(dom, root, c, weight, skip))
                                < OWN_PROSE_SHARE * total
                            && (!list_beside_prose(weight[root], weight[c])
                                || carries_time(dom, c)))) =>
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
    root
}

/// Most text, in characters, of a block read as the lead of the text
/// after it: a standfirst, a summary, an introduction of a paragraph or
/// a few, not a section of its own.
/// Chosen on the development sets (WCXB's pages and trafilatura's
/// evaluation pages): at 800, 1,200 and 2,000 characters, 22, 23 and 26
/// WCXB pages up (3, 4 and 4 down); without a bound, 1 more up and 3
/// more down (whole sections before the text read with it). The lead as
/// built (with the check for a lead the body repeats): WCXB 26 pages up,
/// 3 down (+0.0008); trafilatura's pages, passage recall 0.922 to 0.938,
/// 42 pages better and 7 worse, 2 fewer with none of their text found.
/// Measured once on the article set (−0.0007) and the third corpus (no
/// change). Passing over a block of links of this length at most before
/// the lead: WCXB 2 pages up, none down, trafilatura's pages 4 better,
/// none worse (the same at 1,000 and 3,000); articles and third corpus
/// unchanged.
const LEAD_MAX: u32 = 2000;

/// Fewest words of a lead set outside paragraphs ([`in_sentences`]): a
/// sentence of some length, not a label or a line of a byline. Chosen on
/// the development sets: trafilatura's evaluation pages, passage recall
/// 0.940 to 0.945 (13 pages better, 1 worse); WCXB's pages 4 up, 2
/// down (+0.0003). Measured on the article set (no change) and the third
/// corpus (+0.0004). Without the check for an image or a time, WCXB 4
/// up, 4 down (an author's box, a gallery's captions), and the article
/// set and the third corpus lost 0.0003 and 0.0004.
pub(super) const LEAD_WORDS_MIN: usize = 12;

/// Levels the lead is looked for above the root: a lead set in the
/// article's header sits before the block that holds the body, or before
/// the one that holds that. At one, two and three levels, 11, 17 and 23
/// WCXB pages up (2, 2 and 4 down; at 1,200 characters).
const LEAD_LEVELS: usize = 3;

/// On a page of prose, widens `root` to take in the text's lead where
/// the page sets it apart from the body (in the article's header, or a
/// block of its own before the body): the nearest block with text before
/// the root, at its level or, where the root opens its parent, before the
/// parent (up to [`LEAD_LEVELS`] levels, never above `start`), past
/// blocks of links no longer than a lead, when it is short
/// ([`LEAD_MAX`]), half of its text at least in paragraphs or all of it
/// in sentences ([`in_sentences`]), and not text the root repeats (a lead
/// the body sets again). The widened root is the block that holds both
/// (`None` where there is no lead); what precedes the lead there, the
/// blocks of links passed over, and what follows the root at each level
/// stay out. `rejected`, the descent's root where the second opinion
/// read the page from its title instead, is never the lead: it is what
/// took the text's place.
pub(super) fn with_lead(
    dom: &Dom,
    start: NodeId,
    root: NodeId,
    rejected: NodeId,
    weight: &[Weight],
    skip: &mut [bool],
) -> Option<NodeId> {
    let mut path = vec![root];
    let mut at = root;
    for _ in 0..LEAD_LEVELS {
        if at == start {
            break;
        }
        let Some(parent) = dom.nodes[at].parent else {
            break;
        };
        // The nearest block with text before it, past blocks of links
        // (a "more on this" box, a share row) set between lead and body,
        // which stay out.
        let mut links = Vec::new();
        let before = dom
            .siblings_before(at)
            .filter(|&c| !skip[c] && weight[c].text > 0)
            .find(|&c| {
                let w = weight[c];
                let is_links = w.link * 2 >= w.text && w.text <= LEAD_MAX;
                if is_links {
                    links.push(c);
                }
                !is_links
            });
        if let Some(lead) = before {
            let w = weight[lead];
            if w.text > LEAD_MAX
                || holds(dom, lead, rejected)
                || !(w.para > 0 && w.para * 2 >= w.plain() || in_sentences(dom, lead, w, skip))
                || repeats(dom, root, lead, weight, skip)
            {
                break;
            }
            for c in links {
                skip[c] = true;
            }
            let mut inside = false;
            for c in dom.children(parent) {
                inside |= c == lead;
                skip[c] |= !inside;
                inside &= c != at;
            }
            for pair in path.windows(2) {
                let (child, holder) = (pair[0], pair[1]);
                for c in dom.children(holder).skip_while(|&c| c != child).skip(1) {
                    skip[c] = true;
                }
            }
            return Some(parent);
        }
        at = parent;
        path.push(at);
    }
    None
}

/// Whether a block is a lead set in sentences outside paragraphs (in a
/// heading under the title, or straight in a block): most of its text
/// outside links, [`LEAD_WORDS_MIN`] words at least, its last one ending
/// a sentence; no image or time in it, which make it an author's box, a
/// byline or a gallery's captions.
fn in_sentences(dom: &Dom, id: NodeId, w: Weight, skip: &[bool]) -> bool {
    if w.link.saturating_mul(4) >= w.text
        || holds_any(
            dom,
            id,
            &[
                local_name!("img"),
                local_name!("picture"),
                local_name!("time"),
            ],
        )
    {
        return false;
    }
    // The tree has fewer nodes than this: the walk never runs out.
    let mut unbounded = usize::MAX;
    collapsed_text(dom, id, Some(skip), &mut unbounded).is_some_and(|t| {
        t.split_whitespace().count() >= LEAD_WORDS_MIN
            && t.trim_end()
                .ends_with(['.', '!', '?', '…', '"', '“', '”', '»', '«', '」', '。'])
    })
}

/// Whether `root`'s text holds each of `lead`'s `<p>` paragraphs word for
/// word (and it has one). The root's text is read only for a lead that
/// has a paragraph to look for.
fn repeats(dom: &Dom, root: NodeId, lead: NodeId, weight: &[Weight], skip: &[bool]) -> bool {
    let mut paragraphs = Vec::new();
    let mut stack = vec![lead];
    while let Some(n) = stack.pop() {
        if skip[n] {
            continue;
        }
        if weight[n].para > 0 && is(dom, n, &local_name!("p")) {
            paragraphs.push(n);
        } else {
            stack.extend(dom.children(n));
        }
    }
    if paragraphs.is_empty() {
        return false;
    }
    // The tree has fewer nodes than this: the walk never runs out.
    let mut unbounded = usize::MAX;
    let Some(text) = collapsed_text(dom, root, Some(skip), &mut unbounded) else {
        return false;
    };
    paragraphs
        .into_iter()
        .all(|p| text.contains(&text_of(dom, p)))
}

/// Paragraph text in a node's own paragraphs: its `<p>` and `<pre>`
/// children, and its children other than `best` of `best`'s tag and class
/// (a class is needed: blocks without one are of no kind).
fn own_prose(dom: &Dom, id: NodeId, best: NodeId, weight: &[Weight], skip: &[bool]) -> u32 {
    // An empty class names no kind either.
    let best_kind = kind(dom, best).filter(|k| !k.1.trim().is_empty());
    dom.children(id)
        .filter(|&c| {
            !skip[c]
                && (is(dom, c, &local_name!("p"))
                    || is(dom, c, &local_name!("pre"))
                    || (c != best && best_kind.is_some() && kind(dom, c) == best_kind))
        })
        .map(|c| weight[c].para)
        .sum()
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
pub(super) fn is_container(dom: &Dom, id: NodeId) -> bool {
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
