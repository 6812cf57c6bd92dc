//! Pass 2, weights: each element's characters of text outside links,
//! inside links, and in paragraphs of some length (prose), which the other
//! passes compare.

use std::collections::HashMap;

use html5ever::{LocalName, local_name};

use super::{Kind, is, kind};
use crate::page::dom::{Data, Dom, Element, NodeId};

/// Shortest run of text set straight in a block counted as prose: longer
/// than a teaser's or a listed item's summary.
const BARE_PARA_MIN: u32 = 400;

/// Shortest paragraph counted as prose, in characters.
const PARA_MIN: u32 = 80;

/// Share of a page's text in paragraphs that makes it a page of prose.
const PROSE_SHARE: f64 = 0.15;

/// Per-node character counts.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Weight {
    pub(super) text: u32,
    pub(super) link: u32,
    /// Text outside links in paragraphs (`<p>`, `<pre>`) of some length:
    /// prose.
    pub(super) para: u32,
    /// Of that prose, what list items (`<li>`) hold.
    pub(super) listed: u32,
    /// Text outside links set straight in this element or in its inline
    /// descendants (not in a nested block).
    pub(super) own: u32,
    /// Line breaks (`<br>`) among that text.
    pub(super) breaks: u32,
}

impl Weight {
    /// Text outside links.
    pub(super) fn plain(self) -> u32 {
        self.text.saturating_sub(self.link)
    }

    /// Whether enough of the text is in paragraphs for a page of prose.
    pub(super) fn is_prose(self) -> bool {
        f64::from(self.para) >= PROSE_SHARE * f64::from(self.plain())
    }
}

/// Blocks whose own text (outside nested blocks) counts as prose.
pub(super) fn bare_text_block(name: &LocalName) -> bool {
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
pub(super) fn is_inline(name: &LocalName) -> bool {
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

/// What [`weigh`] reads of each text node, counted once per document.
pub(super) struct TextCounts {
    /// Characters of a text node, whitespace collapsed (0 for others, and
    /// for text skipped already: the passes only skip more).
    chars: Vec<u32>,
    /// Whether a node is inside a link.
    in_link: Vec<bool>,
}

impl TextCounts {
    /// `order` is pre-order.
    pub(super) fn new(dom: &Dom, order: &[NodeId], skip: &[bool]) -> Self {
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
pub(super) fn collapsed_chars(t: &str) -> u32 {
    // Most text is ASCII: its bytes are its characters, and its whitespace
    // is the six bytes `char::is_whitespace` accepts below 128.
    if t.is_ascii() {
        let (mut chars, mut in_word) = (0u32, false);
        for &b in t.as_bytes() {
            if matches!(b, b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r' | b' ') {
                in_word = false;
            } else {
                chars = chars.saturating_add(if in_word { 1 } else { 2 });
                in_word = true;
            }
        }
        return chars;
    }
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
pub(super) fn weigh(
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
        if is(dom, id, &local_name!("li")) {
            weight[id].listed = weight[id].para;
        }
        if let Some(p) = dom.nodes[id].parent {
            let w = weight[id];
            weight[p].text = weight[p].text.saturating_add(w.text);
            weight[p].link = weight[p].link.saturating_add(w.link);
            weight[p].para = weight[p].para.saturating_add(w.para);
            weight[p].listed = weight[p].listed.saturating_add(w.listed);
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
pub(super) fn bare_candidates(
    dom: &Dom,
    order: &[NodeId],
    skip: &[bool],
    weight: &[Weight],
) -> Vec<NodeId> {
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
pub(super) fn bare_prose(
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
    let kind_of = |id: NodeId| kind(dom, id);
    // Per kind of a candidate: blocks of that kind with text, and the
    // candidates among them.
    let mut kinds: HashMap<Kind<'_>, (u32, u32)> = live
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
