//! Pages that show no text of their own without running scripts
//! (REQ-PAGE-006): an empty frame that scripts fill (a mount element, a
//! `<noscript>` line asking for scripts, the scripts), or a page whose
//! only text is a cookie or consent banner, the content coming once a
//! script has the answer. Such a page answers `extraction_failed` with a
//! message of its own rather than `ok` with the noscript line or the
//! banner as its content.
//!
//! Judged on the tree as a browser running scripts parses it (`<noscript>`
//! content is then raw text), by general properties only: how much text
//! lies outside scripts, styles, templates and `<noscript>`, and how much
//! of that is inside a block named or marked as a consent dialog.

use html5ever::local_name;

use super::dom::{DOCUMENT, Data, Dom, Element, NodeId};
use super::extract::is_consent_block;

/// Letters and digits outside scripts, styles and `<noscript>` at most on
/// an empty frame: room for a "Loading" placeholder, not for a sentence.
const FRAME_TEXT_MAX: usize = 40;

/// Words of `<noscript>` text that make it the page's content rather than
/// a request to run scripts: pages that serve their text to readers
/// without scripts there are read from it (the lenient read).
const NOSCRIPT_CONTENT_WORDS: usize = 40;

/// What the tree holds, counted once.
#[derive(Debug, Default)]
struct Census {
    /// Letters and digits of text outside scripts, styles, templates and
    /// `<noscript>`.
    text: usize,
    /// Of those, the ones inside a consent block.
    consent: usize,
    /// Words of `<noscript>` text.
    noscript_words: usize,
    scripts: usize,
    /// Elements with an id and nothing inside: where scripts mount a page.
    mounts: usize,
}

/// Whether the page needs scripts to show any text: an empty frame with
/// scripts and a mount element or a `<noscript>`, or text that is all a
/// consent banner. `dom` was parsed with scripting on.
pub(crate) fn needs_scripts(dom: &Dom) -> bool {
    let c = census(dom);
    let empty_frame = c.text <= FRAME_TEXT_MAX
        && c.scripts > 0
        && (c.mounts > 0 || c.noscript_words > 0)
        && c.noscript_words < NOSCRIPT_CONTENT_WORDS;
    let consent_only = c.consent > 0 && c.text - c.consent <= FRAME_TEXT_MAX;
    empty_frame || consent_only
}

fn census(dom: &Dom) -> Census {
    let mut c = Census::default();
    // (node, inside a script-like element, inside a noscript, inside a
    // consent block)
    let mut stack: Vec<(NodeId, bool, bool, bool)> = vec![(DOCUMENT, false, false, false)];
    while let Some((id, scripted, noscript, consent)) = stack.pop() {
        let (mut scripted, mut noscript, mut consent) = (scripted, noscript, consent);
        match &dom.nodes[id].data {
            Data::Text(t) if noscript => c.noscript_words += t.split_whitespace().count(),
            Data::Text(t) if !scripted => {
                let n = t.chars().filter(|ch| ch.is_alphanumeric()).count();
                c.text += n;
                if consent {
                    c.consent += n;
                }
            }
            Data::Element(e) => {
                let name = e.html_name();
                if name == Some(&local_name!("script")) {
                    c.scripts += 1;
                }
                scripted |= name.is_some_and(|n| {
                    matches!(
                        *n,
                        local_name!("script")
                            | local_name!("style")
                            | local_name!("template")
                            | local_name!("head")
                    )
                });
                noscript |= name == Some(&local_name!("noscript"));
                consent |= is_consent_block(e);
                if is_mount(dom, id, e) {
                    c.mounts += 1;
                }
            }
            _ => {}
        }
        stack.extend(
            dom.children_last_first(id)
                .map(|ch| (ch, scripted, noscript, consent)),
        );
    }
    c
}

/// An element with an id and no child but whitespace
/// (`<div id="app"></div>`).
fn is_mount(dom: &Dom, id: NodeId, e: &Element) -> bool {
    e.has_attr(&local_name!("id"))
        && !matches!(
            e.html_name(),
            Some(&local_name!("script") | &local_name!("style") | &local_name!("noscript"))
        )
        && dom.children(id).all(|ch| match &dom.nodes[ch].data {
            Data::Text(t) => t.trim().is_empty(),
            _ => false,
        })
}

#[cfg(test)]
mod tests;
