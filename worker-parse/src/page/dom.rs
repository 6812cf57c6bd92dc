//! A small arena DOM filled by html5ever, with the LIM-F12 bounds enforced
//! while parsing.
//!
//! html5ever's tree builder scans its stack of open elements for many tags,
//! so its cost grows with the square of the nesting depth: a page of 20 000
//! nested elements would take seconds if parsed whole. Our own `TreeSink`
//! refuses nodes past the bounds and raises a flag, and the input is fed in
//! small chunks, so parsing stops within one chunk of the cut. (No crate on
//! html5ever offers bounds, which is why this sink is hand-written.)
//!
//! The parser reads the document without what the scan in `skip` found it
//! may leave out (scripts' and styles' text, comments' text, drawings,
//! unread attributes), and `feed` reads its plain tags and text for
//! html5ever's tokenizer: the tree is the same, for about a third of the
//! work.

use std::borrow::Cow;
use std::cell::{Cell, Ref, RefCell};

use html5ever::interface::tree_builder::{
    ElemName, ElementFlags, NodeOrText, QuirksMode, TreeSink,
};
use html5ever::tendril::{StrTendril, TendrilSink};
use html5ever::tokenizer::{Token, TokenSink, TokenizerOpts};
use html5ever::tree_builder::TreeBuilderOpts;
use html5ever::{
    Attribute, LocalName, Namespace, ParseOpts, QualName, local_name, ns, parse_document,
};
use rypsok_proto::limits;

use super::attrs::{attrs_unread, kept_attr_name};
use super::{entities, feed, skip};

/// Index of a node in [`Dom::nodes`].
pub(crate) type NodeId = usize;

/// The document node's index.
pub(crate) const DOCUMENT: NodeId = 0;

/// One node of the tree.
#[derive(Debug)]
pub(crate) struct Node {
    pub(crate) parent: Option<NodeId>,
    pub(crate) first_child: Option<NodeId>,
    pub(crate) last_child: Option<NodeId>,
    pub(crate) prev: Option<NodeId>,
    pub(crate) next: Option<NodeId>,
    pub(crate) data: Data,
    /// Depth below the document when attached (the document is 0).
    depth: u32,
}

/// What a node is.
#[derive(Debug)]
pub(crate) enum Data {
    Document,
    Element(Element),
    /// The parser's own buffer, kept: often a slice of its input, shared.
    Text(StrTendril),
    /// Comments, processing instructions, template contents: never read.
    Other,
}

/// An element: its name and the few attributes extraction reads.
#[derive(Debug)]
pub(crate) struct Element {
    pub(crate) name: QualName,
    /// As the parser built them, those not kept taken out (all in no
    /// namespace).
    pub(crate) attrs: Vec<Attribute>,
    /// Extraction's note of what the element's class and id words say,
    /// kept here once worked out (0: not yet): it asks several times per
    /// element.
    pub(crate) words: Cell<u8>,
}

impl Element {
    pub(crate) fn attr(&self, name: &LocalName) -> Option<&str> {
        self.attrs
            .iter()
            .find(|a| a.name.local == *name)
            .map(|a| &*a.value)
    }

    pub(crate) fn has_attr(&self, name: &LocalName) -> bool {
        self.attrs.iter().any(|a| a.name.local == *name)
    }

    /// The local name when the element is in the HTML namespace.
    pub(crate) fn html_name(&self) -> Option<&LocalName> {
        (self.name.ns == ns!(html)).then_some(&self.name.local)
    }
}

/// Attributes kept ([`kept_attr_name`]); all others are dropped as they
/// are parsed.
fn kept_attr(name: &LocalName) -> bool {
    kept_attr_name(name.as_bytes())
}

/// Longest attribute value kept (a class list, a style, a link target);
/// longer ones are cut at a character boundary.
const ATTR_MAX: usize = 2048;

/// A parsed document.
#[derive(Debug)]
pub(crate) struct Dom {
    pub(crate) nodes: Vec<Node>,
    /// A LIM-F12 bound was hit: the tree holds the content before the cut.
    pub(crate) partial: bool,
    /// The page has a JSON-LD script (`<script type="application/ld+json">`):
    /// its structured data may declare its article's body.
    pub(crate) linked_data: bool,
}

impl Dom {
    pub(crate) fn element(&self, id: NodeId) -> Option<&Element> {
        match &self.nodes[id].data {
            Data::Element(e) => Some(e),
            _ => None,
        }
    }

    /// The children of `id`, in order.
    pub(crate) fn children(&self, id: NodeId) -> Children<'_> {
        Children {
            dom: self,
            next: self.nodes[id].first_child,
        }
    }

    /// The siblings before `id`, the nearest first.
    pub(crate) fn siblings_before(&self, id: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        std::iter::successors(self.nodes[id].prev, |&c| self.nodes[c].prev)
    }

    /// The children of `id`, the last first.
    pub(crate) fn children_last_first(&self, id: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        std::iter::successors(self.nodes[id].last_child, |&c| self.nodes[c].prev)
    }

    /// The first `<title>` text, whitespace collapsed.
    pub(crate) fn title(&self) -> Option<String> {
        let id = (0..self.nodes.len()).find(|&i| {
            self.element(i)
                .and_then(Element::html_name)
                .is_some_and(|n| *n == local_name!("title"))
        })?;
        let mut out = String::new();
        for c in self.children(id) {
            if let Data::Text(t) = &self.nodes[c].data {
                out.push_str(t);
            }
        }
        let out = entities::decode_leftover(&out);
        let title = out.split_whitespace().collect::<Vec<_>>().join(" ");
        (!title.is_empty()).then_some(title)
    }
}

#[cfg(any(test, feature = "fuzzing"))]
impl Dom {
    /// The attached tree as text, one node a line, leaving out the content
    /// of scripts, styles and drawings (the parser may skip it).
    pub(crate) fn outline(&self) -> String {
        use std::fmt::Write as _;
        let mut out = String::new();
        let mut stack = vec![(DOCUMENT, 0usize)];
        while let Some((id, depth)) = stack.pop() {
            let indent = " ".repeat(depth);
            match &self.nodes[id].data {
                Data::Document => out.push_str("#document\n"),
                Data::Element(e) => {
                    let attrs: Vec<(&LocalName, &str)> =
                        e.attrs.iter().map(|a| (&a.name.local, &*a.value)).collect();
                    let _ = writeln!(out, "{indent}<{:?} {}> {attrs:?}", e.name.ns, e.name.local);
                    let skippable = match e.html_name() {
                        Some(n) => matches!(*n, local_name!("script") | local_name!("style")),
                        None => matches!(e.name.local, local_name!("svg") | local_name!("math")),
                    };
                    if skippable {
                        continue;
                    }
                }
                Data::Text(t) => {
                    let _ = writeln!(out, "{indent}{:?}", &**t);
                }
                Data::Other => {
                    let _ = writeln!(out, "{indent}#other");
                }
            }
            let children: Vec<NodeId> = self.children(id).collect();
            stack.extend(children.into_iter().rev().map(|c| (c, depth + 1)));
        }
        out
    }
}

/// Iterator over a node's children.
#[derive(Debug)]
pub(crate) struct Children<'a> {
    dom: &'a Dom,
    next: Option<NodeId>,
}

impl Iterator for Children<'_> {
    type Item = NodeId;
    fn next(&mut self) -> Option<NodeId> {
        let id = self.next?;
        self.next = self.dom.nodes[id].next;
        Some(id)
    }
}

/// Parses decoded HTML into a [`Dom`], stopping at the LIM-F12 bounds.
///
/// `scripting` says whether the parser acts as a browser running scripts
/// (then `<noscript>` content is raw text) or not (then it is markup).
pub(crate) fn parse(html: &str, scripting: bool) -> Dom {
    parse_bounded(
        html,
        scripting,
        usize::try_from(limits::HTML_MAX_NODES).unwrap_or(usize::MAX),
        limits::HTML_MAX_DEPTH,
    )
}

/// [`parse`] with explicit bounds (tests use small ones).
pub(crate) fn parse_bounded(html: &str, scripting: bool, max_nodes: usize, max_depth: u32) -> Dom {
    parse_with(html, scripting, max_nodes, max_depth, true)
}

/// [`parse_bounded`], reading the contents of scripts and styles too when
/// `skip` is false (tests compare the two).
pub(crate) fn parse_with(
    html: &str,
    scripting: bool,
    max_nodes: usize,
    max_depth: u32,
    skip: bool,
) -> Dom {
    let mut dom = build(html, scripting, max_nodes, max_depth, skip);
    // A streamed page's parked parts, moved where a browser shows them.
    streamed::splice(&mut dom, max_depth);
    dom
}

/// The tree as the parser builds it.
fn build(html: &str, scripting: bool, max_nodes: usize, max_depth: u32, skip: bool) -> Dom {
    let sink = Sink {
        names: RefCell::new(vec![UNNAMED]),
        nodes: RefCell::new(vec![Node {
            parent: None,
            first_child: None,
            last_child: None,
            prev: None,
            next: None,
            data: Data::Document,
            depth: 0,
        }]),
        max_nodes,
        max_depth,
        cut: Cell::new(false),
        linked_data: Cell::new(false),
    };
    let opts = ParseOpts {
        tree_builder: TreeBuilderOpts {
            scripting_enabled: scripting,
            ..TreeBuilderOpts::default()
        },
        // The caller drops a byte order mark at the start; html5ever's
        // tokenizer would drop one at the start of every input it is given,
        // wherever that falls in the page.
        tokenizer: TokenizerOpts {
            discard_bom: false,
            ..TokenizerOpts::default()
        },
    };
    let parser = parse_document(sink, opts);
    if skip {
        // The parser reads everything but what the scan found it may skip
        // (contents of scripts, styles, comments and drawings, unread
        // attributes), copied into one string: many small inputs would each
        // cost the parser a buffer of its own. Plain markup is read by
        // `feed`, the rest by html5ever's tokenizer.
        let scanned = skip::scan(html, scripting);
        let Ok(len) = u32::try_from(html.len()) else {
            // Past what a tendril holds (far past any page's bound): the
            // tokenizer reads it whole.
            reserve(&parser, html, max_nodes);
            feed::tokenize(&Feeder(&parser), html);
            return parser.finish();
        };
        let mut kept = StrTendril::with_capacity(len);
        let mut from = 0;
        for range in &scanned.skip {
            kept.push_slice(&html[from..range.start]);
            from = range.end;
        }
        kept.push_slice(&html[from..]);
        // Every skipped range lies before where the scan stopped.
        let read_to = scanned.read_to - (html.len() - kept.len());
        reserve(&parser, &kept, max_nodes);
        feed::feed(&Feeder(&parser), &kept, read_to, scripting);
    } else {
        reserve(&parser, html, max_nodes);
        feed::tokenize(&Feeder(&parser), html);
    }
    parser.finish()
}

/// Room for the nodes at once spares copying the tree as it grows: an
/// element for each start tag, a text node before and after most tags,
/// about three nodes for every two `<` (start and end tags) on the bench
/// pages.
fn reserve(parser: &html5ever::driver::Parser<Sink>, html: &str, max_nodes: usize) {
    let tags = memchr::memchr_iter(b'<', html.as_bytes()).count();
    let room = tags
        .saturating_add(tags / 2)
        .min(max_nodes.saturating_add(1));
    let sink = &parser.tokenizer.sink.sink;
    sink.nodes.borrow_mut().reserve(room);
    sink.names.borrow_mut().reserve(room);
}

/// The parser as `feed` drives it.
struct Feeder<'a>(&'a html5ever::driver::Parser<Sink>);

impl feed::Parser for Feeder<'_> {
    fn token(&self, token: Token) {
        // The tree builder switches the tokenizer's state only for the
        // raw-text elements `feed` leaves to the tokenizer, and asks it
        // for nothing else here: a `<meta>`'s encoding indicator is not
        // acted on.
        let _ = self.0.tokenizer.sink.process_token(token, 1);
    }

    fn tokenize(&self, text: &str) {
        let p = self.0;
        p.input_buffer.push_back(StrTendril::from_slice(text));
        while !matches!(
            p.tokenizer.feed(&p.input_buffer),
            html5ever::TokenizerResult::Done
        ) {}
    }

    fn cut(&self) -> bool {
        self.0.tokenizer.sink.sink.cut.get()
    }
}

struct Sink {
    nodes: RefCell<Vec<Node>>,
    /// Each node's name (elements') or [`UNNAMED`], by index: the tree
    /// builder asks for names far more often than it adds nodes, and a
    /// borrowed name costs nothing to hand out. This vector grows only in
    /// `new_node` and `place`, which the tree builder never calls while it
    /// holds a name.
    names: RefCell<Vec<(Namespace, LocalName)>>,
    max_nodes: usize,
    max_depth: u32,
    cut: Cell<bool>,
    linked_data: Cell<bool>,
}

/// Whether a script's `type` names JSON-LD (`application/ld+json`, its
/// parameters aside, in any case): the one test of the parse's note and
/// of the structured-data scan.
pub(crate) fn names_linked_data(script_type: &str) -> bool {
    script_type
        .split(';')
        .next()
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/ld+json"))
}

/// The name of a node that is not an element (the tree builder asks only
/// for elements' names; an unnamed element would be harmless).
const UNNAMED: (Namespace, LocalName) = (ns!(html), local_name!(""));

/// An element name lent to the tree builder.
struct Name<'a>(Ref<'a, (Namespace, LocalName)>);

impl std::fmt::Debug for Name<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?} {}", self.0.0, self.0.1)
    }
}

impl ElemName for Name<'_> {
    fn ns(&self) -> &Namespace {
        &self.0.0
    }
    fn local_name(&self) -> &LocalName {
        &self.0.1
    }
}

impl Sink {
    fn new_node(&self, data: Data) -> NodeId {
        self.names.borrow_mut().push(match &data {
            Data::Element(e) => (e.name.ns.clone(), e.name.local.clone()),
            _ => UNNAMED,
        });
        let mut nodes = self.nodes.borrow_mut();
        nodes.push(Node {
            parent: None,
            first_child: None,
            last_child: None,
            prev: None,
            next: None,
            data,
            depth: 0,
        });
        nodes.len() - 1
    }

    /// Whether `child` may be attached below `parent`; raises the cut flag
    /// when a bound forbids it.
    fn admits(&self, nodes: &[Node], parent: NodeId) -> bool {
        if nodes.len() > self.max_nodes || nodes[parent].depth >= self.max_depth {
            self.cut.set(true);
            return false;
        }
        true
    }

    fn detach(nodes: &mut [Node], id: NodeId) {
        let (parent, prev, next) = (nodes[id].parent, nodes[id].prev, nodes[id].next);
        match prev {
            Some(p) => nodes[p].next = next,
            None => {
                if let Some(par) = parent {
                    nodes[par].first_child = next;
                }
            }
        }
        match next {
            Some(n) => nodes[n].prev = prev,
            None => {
                if let Some(par) = parent {
                    nodes[par].last_child = prev;
                }
            }
        }
        let node = &mut nodes[id];
        node.parent = None;
        node.prev = None;
        node.next = None;
    }

    /// Inserts `child` under `parent`, before `before` (or last).
    fn insert(nodes: &mut [Node], parent: NodeId, child: NodeId, before: Option<NodeId>) {
        // A node without a parent has no siblings either: a new one, or
        // one detached already.
        if nodes[child].parent.is_some() {
            Self::detach(nodes, child);
        }
        let prev = match before {
            Some(b) => nodes[b].prev,
            None => nodes[parent].last_child,
        };
        nodes[child].parent = Some(parent);
        nodes[child].prev = prev;
        nodes[child].next = before;
        nodes[child].depth = nodes[parent].depth + 1;
        match prev {
            Some(p) => nodes[p].next = Some(child),
            None => nodes[parent].first_child = Some(child),
        }
        match before {
            Some(b) => nodes[b].prev = Some(child),
            None => nodes[parent].last_child = Some(child),
        }
    }

    /// Appends text or a node under `parent` before `before`, merging text
    /// with a text node right before the insertion point.
    fn place(&self, parent: NodeId, before: Option<NodeId>, child: NodeOrText<NodeId>) {
        let mut nodes = self.nodes.borrow_mut();
        if !self.admits(&nodes, parent) {
            return;
        }
        match child {
            NodeOrText::AppendText(text) => {
                let prev = match before {
                    Some(b) => nodes[b].prev,
                    None => nodes[parent].last_child,
                };
                if let Some(p) = prev
                    && let Data::Text(t) = &mut nodes[p].data
                {
                    t.push_tendril(&text);
                    return;
                }
                self.names.borrow_mut().push(UNNAMED);
                nodes.push(Node {
                    parent: None,
                    first_child: None,
                    last_child: None,
                    prev: None,
                    next: None,
                    data: Data::Text(text),
                    depth: 0,
                });
                let id = nodes.len() - 1;
                Self::insert(&mut nodes, parent, id, before);
            }
            NodeOrText::AppendNode(id) => Self::insert(&mut nodes, parent, id, before),
        }
    }
}

impl TreeSink for Sink {
    type Handle = NodeId;
    type Output = Dom;
    type ElemName<'a> = Name<'a>;

    fn finish(self) -> Dom {
        Dom {
            nodes: self.nodes.into_inner(),
            partial: self.cut.get(),
            linked_data: self.linked_data.get(),
        }
    }

    fn parse_error(&self, _msg: Cow<'static, str>) {}

    fn get_document(&self) -> NodeId {
        DOCUMENT
    }

    fn elem_name<'a>(&'a self, target: &'a NodeId) -> Name<'a> {
        Name(Ref::map(self.names.borrow(), |names| &names[*target]))
    }

    fn create_element(&self, name: QualName, mut attrs: Vec<Attribute>, _: ElementFlags) -> NodeId {
        // Filtered in place: the parser's vector is kept, not copied.
        let unread = name.ns == ns!(html) && attrs_unread(name.local.as_bytes());
        attrs.retain(|a| !unread && a.name.ns == ns!() && kept_attr(&a.name.local));
        if name.local == local_name!("script")
            && attrs
                .iter()
                .any(|a| a.name.local == local_name!("type") && names_linked_data(&a.value))
        {
            self.linked_data.set(true);
        }
        for a in &mut attrs {
            let v = &mut a.value;
            if v.len() > ATTR_MAX {
                let mut end = ATTR_MAX;
                while !v.is_char_boundary(end) {
                    end -= 1;
                }
                v.pop_back(u32::try_from(v.len() - end).unwrap_or(u32::MAX));
            }
        }
        self.new_node(Data::Element(Element {
            name,
            attrs,
            words: Cell::new(0),
        }))
    }

    fn create_comment(&self, _text: StrTendril) -> NodeId {
        self.new_node(Data::Other)
    }

    fn create_pi(&self, _target: StrTendril, _data: StrTendril) -> NodeId {
        self.new_node(Data::Other)
    }

    fn append(&self, parent: &NodeId, child: NodeOrText<NodeId>) {
        self.place(*parent, None, child);
    }

    fn append_based_on_parent_node(
        &self,
        element: &NodeId,
        prev_element: &NodeId,
        child: NodeOrText<NodeId>,
    ) {
        let has_parent = self.nodes.borrow()[*element].parent.is_some();
        if has_parent {
            self.append_before_sibling(element, child);
        } else {
            self.append(prev_element, child);
        }
    }

    fn append_doctype_to_document(&self, _: StrTendril, _: StrTendril, _: StrTendril) {}

    fn get_template_contents(&self, _target: &NodeId) -> NodeId {
        // Template contents are never rendered: a detached node collects them.
        self.new_node(Data::Other)
    }

    fn same_node(&self, x: &NodeId, y: &NodeId) -> bool {
        x == y
    }

    fn set_quirks_mode(&self, _mode: QuirksMode) {}

    fn append_before_sibling(&self, sibling: &NodeId, new_node: NodeOrText<NodeId>) {
        let parent = self.nodes.borrow()[*sibling].parent;
        if let Some(parent) = parent {
            self.place(parent, Some(*sibling), new_node);
        }
    }

    fn add_attrs_if_missing(&self, _target: &NodeId, _attrs: Vec<Attribute>) {
        // Only `<html>` and `<body>` get attributes this way; none matter.
    }

    fn remove_from_parent(&self, target: &NodeId) {
        Sink::detach(&mut self.nodes.borrow_mut(), *target);
    }

    fn reparent_children(&self, node: &NodeId, new_parent: &NodeId) {
        let mut nodes = self.nodes.borrow_mut();
        while let Some(c) = nodes[*node].first_child {
            Self::insert(&mut nodes, *new_parent, c, None);
        }
    }
}

mod streamed;
#[cfg(test)]
mod tests;
