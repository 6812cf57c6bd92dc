//! Pass 4, pruning inside the root: small link-heavy blocks (a tag cloud,
//! a "read more" row) and, on prose pages, link-heavy blocks without a
//! paragraph and the links before the article's start; not on a listing,
//! whose items are links, nor a list a sentence of the text introduces.
//! The heading that repeats the document's title goes too (the title is
//! returned apart), and a block that repeats an earlier sibling's text (a
//! responsive page's second version of a section). On a page of prose,
//! the rails of stories beside the text under its title heading go.

use std::collections::HashMap;

use html5ever::local_name;

use super::root::{LEAD_WORDS_MIN, is_container};
use super::second::HEADING_PROSE_MIN;
use super::weights::{Weight, is_inline};
use super::{collapsed_text, first_href, is, linked_headings, text_of};
use crate::page::dom::{Data, Dom, Element, NodeId};
use crate::page::markdown::heading_level;

/// Fewest headings that link within the site for a block to be a rail of
/// stories ([`drop_rails`]): three, as a series asks.
const RAIL_HEADINGS_MIN: usize = 3;

/// Drops the small link-heavy blocks inside `root`: navigation of a kind,
/// unless the root itself is mostly links (a listing of linked items).
pub(super) fn drop_link_blocks(
    dom: &Dom,
    order: &[NodeId],
    root: NodeId,
    prose: bool,
    weight: &[Weight],
    skip: &mut [bool],
) {
    let listing = weight[root].link * 2 > weight[root].text;
    if listing {
        return;
    }
    let mut at = 0;
    while let Some(&id) = order.get(at) {
        at += 1;
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
        // see chapter 4") stays, and so does a list a sentence of the
        // text introduces, with all it holds.
        if (w.text < 600 && w.link * 10 > w.text * 7)
            || (prose && w.para == 0 && w.link * 2 > w.text)
        {
            if introduced_list(dom, id, root, weight, skip) {
                at += super::below(dom, order, at - 1).count();
            } else if !link_sentence_in_prose(dom, id, weight, skip) {
                skip[id] = true;
            }
        }
    }
}

/// Least words of a sentence that introduces a list: a sentence of the
/// text ("Many patches were sent for review:"), not a label ("See also:",
/// "Related:").
/// Chosen on WCXB's development pages: at five words, 8 pages up (lists
/// of patches, sources, services an article announces) and none down; at
/// three, 2 more up and 1 down, a four-word label over related posts.
/// Measured once on the article set and the third corpus: neither moved.
const INTRO_WORDS: usize = 5;

/// Whether a block is a list, or starts with one, that a sentence of the
/// text introduces: the element just before it (or before the nearest
/// ancestor it opens, inside `root`) is text of [`INTRO_WORDS`] words at
/// least, mostly not links, that ends in a colon. The list's links are
/// what the sentence announces (the patches sent, the sources read), not
/// navigation.
fn introduced_list(dom: &Dom, id: NodeId, root: NodeId, weight: &[Weight], skip: &[bool]) -> bool {
    let mut first = Some(id);
    while let Some(n) = first {
        if is(dom, n, &local_name!("ul")) || is(dom, n, &local_name!("ol")) {
            break;
        }
        first = dom
            .children(n)
            .find(|&c| !skip[c] && dom.element(c).is_some());
    }
    if first.is_none() {
        return false;
    }
    let mut at = id;
    let before = loop {
        // The nearest sibling before it with text (not a line break, an
        // image or the whitespace between tags).
        let prev = dom
            .siblings_before(at)
            .find(|&c| !skip[c] && weight[c].text > 0);
        match (prev, dom.nodes[at].parent) {
            (Some(p), _) => break p,
            (None, Some(parent)) if at != root && parent != root => at = parent,
            _ => return false,
        }
    };
    // Its last text first: most blocks before a list do not end in a
    // colon, and are not read whole for it.
    let mut last = before;
    while let Some(c) = dom
        .children_last_first(last)
        .find(|&c| !skip[c] && weight[c].text > 0)
    {
        last = c;
    }
    let Data::Text(end) = &dom.nodes[last].data else {
        return false;
    };
    end.trim_end().ends_with([':', '\u{ff1a}'])
        && weight[before].link * 2 <= weight[before].text
        && text_of(dom, before)
            .split_whitespace()
            .filter(|w| w.chars().any(char::is_alphanumeric))
            .count()
            >= INTRO_WORDS
}

/// Least text, in characters, of a block dropped as a repeat of its
/// sibling: a section of a page or a card's heading and blurb (which a
/// card may set twice, on its face and on the side a pointer turns up),
/// not a label or a price shown twice. On WCXB's development pages: at
/// 200, the floor before, a card's two sides were both read; at 100, 3
/// pages up and none down (+0.0003); at 50, 5 up and 1 down (a listing
/// that lists one event twice). Trafilatura's pages: no figure moved at
/// either; the articles and the third corpus changed at neither.
const REPEAT_MIN: u32 = 100;

/// Earlier siblings of its length a block is compared with: a page sets a
/// section in two or three versions, not more.
const REPEAT_PEERS: usize = 3;

/// Drops, inside `root`, a block whose text is the same as an earlier
/// sibling's: the versions of one section a responsive page sets side by
/// side for screens of different sizes, of which style sheets show one.
/// Compared only with a few earlier siblings of the same text length, so
/// most blocks are never read for it; the reading is bounded by a budget
/// of four times the node count, past which nothing more is dropped.
pub(super) fn drop_repeated_siblings(
    dom: &Dom,
    root: NodeId,
    weight: &[Weight],
    skip: &mut [bool],
) {
    let mut budget = dom.nodes.len().saturating_mul(4);
    // The blocks that may hold two repeats, from the root down.
    let mut stack = vec![root];
    while let Some(id) = stack.pop() {
        if skip[id] || weight[id].text < REPEAT_MIN * 2 {
            continue;
        }
        stack.extend(dom.children(id));
        let mut seen: HashMap<u32, Vec<(NodeId, Option<String>)>> = HashMap::new();
        for c in dom.children(id) {
            let w = weight[c].text;
            if skip[c] || w < REPEAT_MIN || !is_container(dom, c) {
                continue;
            }
            let peers = seen.entry(w).or_default();
            let mut own = None;
            let mut repeat = false;
            for (earlier, text) in peers.iter_mut().take(REPEAT_PEERS) {
                if text.is_none() {
                    *text = collapsed_text(dom, *earlier, Some(skip), &mut budget);
                }
                if own.is_none() {
                    own = collapsed_text(dom, c, Some(skip), &mut budget);
                }
                let (Some(text), Some(own)) = (text, &own) else {
                    return;
                };
                if text == own {
                    repeat = true;
                    break;
                }
            }
            if repeat {
                skip[c] = true;
            } else {
                peers.push((c, own));
            }
        }
    }
}

/// Drops the heading that repeats the document's title: the title is
/// returned on its own, an agent need not read it twice.
pub(super) fn drop_title_heading(dom: &Dom, order: &[NodeId], title: &str, skip: &mut [bool]) {
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

/// Skips, among the nodes of `root` that come before its first heading or
/// prose paragraph (walking down into the first container that holds
/// one), those whose text is mostly links.
pub(super) fn trim_link_lead_in(dom: &Dom, root: NodeId, weight: &[Weight], skip: &mut [bool]) {
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

/// Drops the labels that end the text with nothing after them: headings,
/// each of which labels what was left out below it (a "More articles"
/// heading over the links pruned under it, "Share this" over a share bar),
/// and links that are their block's whole text, inline wrappers aside
/// ("back to the list", a linked image). Only after some content (a text
/// that is only a heading keeps it), and not a label that is content
/// itself: an item's title or link in a list or a table, or a sentence set
/// as a heading ([`LEAD_WORDS_MIN`] words, as a lead set outside paragraphs
/// needs). Text and images with alternative text count as content.
///
/// Measured on pages of prose, headings: trafilatura's evaluation pages 11
/// pages with a label no longer read, none worse (F1 0.9190 to 0.9206);
/// WCXB's development pages 37 pages up and 30 down by at most 0.02 each
/// (+0.0001); the article set +0.0002, the third corpus −0.0001. Without
/// the two exceptions, WCXB 4 pages down (an item's list of headings, a
/// sentence set as a heading). Dropping every heading whose section is
/// empty, not only those that end the text: 22 pages down on all pages
/// (a listing's product names set as headings), 6 with the exceptions on
/// pages of prose. Links besides: trafilatura's pages 2 more pages
/// better (0.9209), WCXB 11 pages up and none down, the article set
/// +0.0002, the third corpus +0.0001; a link alone in its parent rather
/// than in its block (inline wrappers aside) cut the link off sentences
/// that end with one.
pub(super) fn drop_trailing_labels(dom: &Dom, root: NodeId, weight: &[Weight], skip: &mut [bool]) {
    // The text's pieces from its end backwards (children pushed in
    // document order pop last first), up to the last content: text, an
    // image with alternative text, or a label that is content itself. A
    // heading or a link alone in its block is a piece of its own, its
    // text not looked into.
    let mut labels = Vec::new();
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        if skip[n] {
            continue;
        }
        let content = match &dom.nodes[n].data {
            data if is_content(data) => true,
            Data::Element(e) if e.html_name().and_then(heading_level).is_some() => {
                in_item(dom, root, n)
                    || text_of(dom, n).split_whitespace().count() >= LEAD_WORDS_MIN
            }
            // A link that is its block's whole text: "back to the list".
            // An item's link is its content, where it holds any.
            Data::Element(e)
                if e.html_name() == Some(&local_name!("a"))
                    && enclosing_block(dom, n).is_some_and(|b| {
                        weight[b].plain() == 0 && weight[b].text == weight[n].text
                    }) =>
            {
                if !in_item(dom, root, n) {
                    false
                } else if holds_content(dom, n, skip) {
                    true
                } else {
                    continue;
                }
            }
            _ => {
                stack.extend(dom.children(n));
                continue;
            }
        };
        if content {
            for id in labels {
                skip[id] = true;
            }
            return;
        }
        labels.push(n);
    }
}

/// Whether text or an image with alternative text is at or below a node,
/// not skipped.
fn holds_content(dom: &Dom, id: NodeId, skip: &[bool]) -> bool {
    let mut stack = vec![id];
    while let Some(n) = stack.pop() {
        if skip[n] {
            continue;
        }
        if is_content(&dom.nodes[n].data) {
            return true;
        }
        stack.extend(dom.children(n));
    }
    false
}

/// Whether a node is text (not only whitespace) or an image with
/// alternative text: content, as the renderer writes it.
fn is_content(data: &Data) -> bool {
    match data {
        Data::Text(t) => !t.trim().is_empty(),
        Data::Element(e) => {
            e.html_name() == Some(&local_name!("img"))
                && e.attr(&local_name!("alt"))
                    .is_some_and(|a| !a.trim().is_empty())
        }
        _ => false,
    }
}

/// The nearest ancestor of a node that is not an inline element: the block
/// its text is set in.
fn enclosing_block(dom: &Dom, id: NodeId) -> Option<NodeId> {
    let mut at = dom.nodes[id].parent;
    while let Some(a) = at {
        if !dom
            .element(a)
            .and_then(Element::html_name)
            .is_some_and(is_inline)
        {
            return Some(a);
        }
        at = dom.nodes[a].parent;
    }
    None
}

/// Whether a node is in a list item or a table cell below `root`.
fn in_item(dom: &Dom, root: NodeId, id: NodeId) -> bool {
    let mut at = dom.nodes[id].parent;
    while let Some(a) = at.filter(|&a| a != root) {
        if dom
            .element(a)
            .and_then(Element::html_name)
            .is_some_and(|t| {
                matches!(
                    *t,
                    local_name!("li")
                        | local_name!("dt")
                        | local_name!("dd")
                        | local_name!("td")
                        | local_name!("th")
                )
            })
        {
            return true;
        }
        at = dom.nodes[a].parent;
    }
    false
}

/// Drops the rails of stories beside the text under the title `heading`:
/// blocks of [`RAIL_HEADINGS_MIN`] headings or more that are links to
/// other pages of the page's own site, with no other heading than their
/// label (a news site's "Latest" and "Most read" around a story, related
/// posts after one). At each level from the heading up to `root`, the
/// siblings of the heading's branch that are rails go where the branch
/// and what follows it up to the next rail (the story: the heading, its
/// byline, its text) hold two or three sentences of prose
/// ([`HEADING_PROSE_MIN`]). A listing's items follow its heading with
/// little prose before them, so they stay; a roundup's entries link to
/// other sites, and a page's own sections to places in it.
///
/// Measured: on the pages built to the shapes (`page_shapes.py`), the
/// pages with rails from F1 0.75 to 0.91; WCXB's development pages two
/// up and none down, trafilatura's evaluation pages two better, no page
/// of the article set or the third corpus changed. Taking any link for
/// the site's (a roundup's entries, a documentation page's links to its
/// sections), WCXB 5 pages up and 19 down.
pub(super) fn drop_rails(
    dom: &Dom,
    root: NodeId,
    heading: NodeId,
    weight: &[Weight],
    page: Option<&url::Url>,
    skip: &mut [bool],
) {
    let mut at = heading;
    // Bounded by the tree's depth: each turn goes one level up.
    while at != root {
        let Some(parent) = dom.nodes[at].parent else {
            return;
        };
        let rails: Vec<NodeId> = dom
            .children(parent)
            .filter(|&c| c != at && !skip[c] && is_rail(dom, c, weight, page, skip))
            .collect();
        // The story: the heading's branch and what follows it up to the
        // next rail.
        let story = dom
            .children(parent)
            .skip_while(|&c| c != at)
            .take_while(|&c| c == at || !rails.contains(&c))
            .filter(|&c| !skip[c])
            .fold(0u32, |p, c| p.saturating_add(weight[c].para));
        if story >= HEADING_PROSE_MIN {
            for rail in rails {
                skip[rail] = true;
            }
        }
        at = parent;
    }
}

/// Whether a block is a rail of stories: [`RAIL_HEADINGS_MIN`] headings
/// at least whose text is all a link within the site ([`links_within`]),
/// and one other heading at most (its label).
fn is_rail(
    dom: &Dom,
    id: NodeId,
    weight: &[Weight],
    page: Option<&url::Url>,
    skip: &[bool],
) -> bool {
    let (linked, other) = linked_headings(dom, id, weight, skip, |h| links_within(dom, h, page));
    linked >= RAIL_HEADINGS_MIN && other <= 1
}

/// Whether the first link at or below a node leads to another page of
/// the site: resolved against the page's address (`page`), an http(s)
/// address other than the page's own (a place in it, `#…`, is none),
/// whose host is the page's, a `www.` aside, or one of its subdomains or
/// the domain it is one of (an approximation of one site: no list of
/// public suffixes is consulted). Without the page's address, none does.
fn links_within(dom: &Dom, id: NodeId, page: Option<&url::Url>) -> bool {
    let Some((page, target)) = page
        .zip(first_href(dom, id))
        .and_then(|(p, href)| Some((p, p.join(href).ok()?)))
    else {
        return false;
    };
    matches!(target.scheme(), "http" | "https")
        && !same_page(page, &target)
        && target
            .host_str()
            .zip(page.host_str())
            .is_some_and(|(a, b)| same_site(a, b))
}

/// Whether two addresses are one page, their fragments aside.
fn same_page(a: &url::Url, b: &url::Url) -> bool {
    a[..url::Position::AfterQuery] == b[..url::Position::AfterQuery]
}

/// Whether two hosts (as an address parses them: lower case) are one
/// site: equal once a leading `www.` is left aside, or one a subdomain of
/// the other.
fn same_site(a: &str, b: &str) -> bool {
    let (a, b) = (
        a.strip_prefix("www.").unwrap_or(a),
        b.strip_prefix("www.").unwrap_or(b),
    );
    let below = |sub: &str, domain: &str| {
        sub.strip_suffix(domain)
            .is_some_and(|rest| rest.ends_with('.'))
    };
    !a.is_empty() && (a == b || below(a, b) || below(b, a))
}
