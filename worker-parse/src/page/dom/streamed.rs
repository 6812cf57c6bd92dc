//! React's streamed server rendering, read the way a browser shows it.
//!
//! A page rendered by React's streaming server sends each part that was
//! not ready in time as a placeholder, `<template id="B:1">` followed by a
//! fallback (a spinner, "Loading…") up to the comment that closes the
//! boundary, or `<template id="P:1">` alone; the part itself comes later,
//! at the end of the body, parked in `<div hidden id="S:1">`, and an
//! inline script moves it in place (`$RC("B:1","S:1")`,
//! `$RS("S:1","P:1")`), pairing a placeholder with the part of the same
//! number. We run no scripts, so this pass does the move: each parked
//! part replaces its placeholder of the same number (and a boundary's
//! fallback, up to the next comment when there is one) and shows. On such
//! a page the article's text is often all parked, while the place it
//! belongs to holds skeletons and the author's box. The move does not
//! wait for the script's call: pages are often kept without their inline
//! scripts (a development page whose text sits parked had none), and the
//! pairing is by number in every call seen.
//!
//! Why here and not in extraction: after the move every pass sees the
//! page as it is shown, in its order, and a part that belongs in the
//! sidebar is judged as the sidebar's.
//!
//! Hostile input: a placeholder inside its own part is left alone (the
//! move would make a cycle); a move that would nest the tree past the
//! depth bound is left undone; and the walks that measure depths are
//! bounded by a budget of twice the node count, past which no more parts
//! are moved. A part that is not moved stays hidden (the lenient read
//! still reads it where it is).

use std::collections::{HashMap, HashSet};

use html5ever::local_name;

use super::{DOCUMENT, Data, Dom, NodeId, Sink};

/// Moves each parked part of a streamed page into its placeholder (see
/// the module doc). `max_depth` is the parse's depth bound, which the
/// tree keeps after the moves.
pub(super) fn splice(dom: &mut Dom, max_depth: u32) {
    let (placeholders, parts) = find(dom);
    if parts.is_empty() || placeholders.is_empty() {
        return;
    }
    let mut budget = dom.nodes.len().saturating_mul(2);
    for (number, part) in parts {
        let Some(&(place, boundary)) = placeholders.get(&number) else {
            continue;
        };
        // The placeholder's depth, whether it sits in the part, and
        // whether it still hangs from the document (one in a fallback
        // taken out, or one the parser took out, does not); the same of
        // the part. Each climb is bounded by the depth bound, which every
        // move keeps, and charged to the budget.
        let (depth, inside, attached) = climb(dom, place, part);
        let (part_depth, _, part_attached) = climb(dom, part, part);
        let climbed = usize::try_from(depth.saturating_add(part_depth)).unwrap_or(usize::MAX);
        let Some(left) = budget.checked_sub(climbed) else {
            break;
        };
        budget = left;
        if inside || !attached || !part_attached {
            continue;
        }
        let Some(height) = height(dom, part, &mut budget) else {
            break;
        };
        if depth.saturating_add(height) > max_depth {
            continue;
        }
        show(dom, part, place, boundary);
    }
}

/// Placeholders by number, with whether each is a boundary's; parked
/// parts with their numbers.
type Found = (HashMap<Box<str>, (NodeId, bool)>, Vec<(Box<str>, NodeId)>);

/// The placeholders by number (`B:` and `P:` share one numbering, the
/// first of a number counts) with whether each is a boundary's, and the
/// parked parts in the order they were made (the document's) with their
/// numbers. Read from the arena, attached or not (whether a node hangs
/// from the document is asked only of the few found): first the
/// templates, and the rest only when one is a placeholder, as on few
/// pages.
fn find(dom: &Dom) -> Found {
    let elements = || {
        dom.nodes
            .iter()
            .enumerate()
            .filter_map(|(id, node)| match &node.data {
                Data::Element(e) => Some((id, e)),
                _ => None,
            })
    };
    let mut placeholders = HashMap::new();
    for (id, e) in elements().filter(|(_, e)| e.html_name() == Some(&local_name!("template"))) {
        let Some(value) = e.attr(&local_name!("id")) else {
            continue;
        };
        if let Some(n) = value.strip_prefix("B:") {
            placeholders.entry(n.into()).or_insert((id, true));
        } else if let Some(n) = value.strip_prefix("P:") {
            placeholders.entry(n.into()).or_insert((id, false));
        }
    }
    let mut parts = Vec::new();
    if placeholders.is_empty() {
        return (placeholders, parts);
    }
    let mut taken = HashSet::new();
    for (id, e) in elements() {
        if let Some(n) = e
            .attr(&local_name!("id"))
            .and_then(|v| v.strip_prefix("S:"))
            && e.has_attr(&local_name!("hidden"))
            && taken.insert(n)
        {
            parts.push((n.into(), id));
        }
    }
    (placeholders, parts)
}

/// A node's depth, whether `within` is among its ancestors, and whether
/// it hangs from the document.
fn climb(dom: &Dom, id: NodeId, within: NodeId) -> (u32, bool, bool) {
    let (mut depth, mut inside, mut top) = (0u32, false, id);
    while let Some(a) = dom.nodes[top].parent {
        inside |= a == within;
        depth = depth.saturating_add(1);
        top = a;
    }
    (depth, inside, top == DOCUMENT)
}

/// How many levels a subtree spans below its root (0 for a leaf); `None`
/// once the walk has spent the budget.
fn height(dom: &Dom, root: NodeId, budget: &mut usize) -> Option<u32> {
    let mut most = 0;
    let mut stack = vec![(root, 0u32)];
    while let Some((id, level)) = stack.pop() {
        *budget = budget.checked_sub(1)?;
        most = most.max(level);
        let mut child = dom.nodes[id].first_child;
        while let Some(c) = child {
            stack.push((c, level + 1));
            child = dom.nodes[c].next;
        }
    }
    Some(most)
}

/// Puts `part` where `place` is, shown; a boundary's fallback (the
/// placeholder's next siblings up to a comment) goes when a comment
/// closes it.
fn show(dom: &mut Dom, part: NodeId, place: NodeId, boundary: bool) {
    let Some(parent) = dom.nodes[place].parent else {
        return;
    };
    if boundary {
        let mut fallback = Vec::new();
        let mut at = dom.nodes[place].next;
        while let Some(n) = at {
            if matches!(dom.nodes[n].data, Data::Other) {
                for f in fallback {
                    Sink::detach(&mut dom.nodes, f);
                }
                break;
            }
            fallback.push(n);
            at = dom.nodes[n].next;
        }
    }
    Sink::insert(&mut dom.nodes, parent, part, Some(place));
    Sink::detach(&mut dom.nodes, place);
    if let Data::Element(e) = &mut dom.nodes[part].data {
        e.attrs.retain(|a| a.name.local != local_name!("hidden"));
    }
}
