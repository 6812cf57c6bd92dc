//! One page's text, walked from its content stream: each string shown is
//! decoded through its font's encoding (ToUnicode when it has one, lopdf's
//! tables otherwise) and placed where the page puts it, so that a line
//! break is a move to another baseline, a space is a gap wider than a
//! fraction of the font size (whether it comes from `TJ` kerning, `Td` or
//! `Tm`), and a blank line is a gap between baselines wider than a line's.
//! The string advances by its glyph widths (`/Widths`, or `/W` of a CID
//! font), so a word set glyph by glyph is not split.
//!
//! Form XObjects a page draws (`Do`) are walked in place, under their
//! matrix and with their own resources, within [`MAX_FORMS`] walks and
//! [`MAX_FORM_DEPTH`] levels per page, their content counted against the
//! page's byte bound. The walk checks the document's CPU budget every
//! [`CHECK_EVERY`] operators, so a page of millions of operators stops
//! within it.

use std::cell::OnceCell;
use std::collections::BTreeMap;

use lopdf::content::{Content, Operation};
use lopdf::{Dictionary, Document, Encoding, Object, ObjectId};

use super::budget::CpuBudget;

/// Operators walked between two looks at the CPU clock.
const CHECK_EVERY: usize = 1024;

/// A gap wider than this share of the font size, on one baseline, is a
/// space between words (pdftotext's own threshold is close: a tenth to a
/// fifth of an em, by font).
const SPACE_GAP: f32 = 0.15;

/// A baseline moved by more than this share of the font size is a new
/// line; by more than [`BLOCK_GAP`] lines' worth, a new block.
const LINE_GAP: f32 = 0.5;
const BLOCK_GAP: f32 = 1.8;

/// Saved graphics states (`q`) kept; deeper ones are not tracked.
const MAX_SAVED_STATES: usize = 64;

/// A glyph's width when its font does not say, in thousandths of an em.
const DEFAULT_WIDTH: f32 = 500.0;

/// How a page's walk ended.
pub(super) struct PageText {
    /// The lines, blocks set apart by an empty line.
    pub(super) text: String,
    /// The CPU budget ran out during this page.
    pub(super) out_of_time: bool,
    /// The page's decompressed content.
    pub(super) content_bytes: usize,
}

/// The text of page `id`, its content (the page's and its forms')
/// bounded to `limit` bytes.
pub(super) fn page_text(
    doc: &Document,
    id: ObjectId,
    limit: usize,
    budget: &CpuBudget,
) -> lopdf::Result<PageText> {
    let fonts: Fonts<'_> = doc
        .get_page_fonts(id)?
        .into_iter()
        .filter_map(|(name, dict)| Some((name, Font::of(doc, dict, limit)?)))
        .collect();
    let data = doc.get_page_content_with_limit(id, limit)?;
    let content = Content::decode(&data)?;
    let mut page = Page {
        doc,
        budget,
        left: limit.saturating_sub(data.len()),
        forms: 0,
        operators: 0,
    };
    drop(data);
    let (resources, more) = doc.get_page_resources(id)?;
    let mut xobjects = BTreeMap::new();
    for dict in resources
        .into_iter()
        .chain(more.iter().filter_map(|id| doc.get_dictionary(*id).ok()))
    {
        collect_xobjects(doc, dict, &mut xobjects);
    }
    let mut walk = Walk::default();
    let out_of_time = page.walk(&mut walk, &content.operations, &fonts, &xobjects, 0);
    Ok(PageText {
        text: walk.out,
        out_of_time,
        content_bytes: limit - page.left,
    })
}

/// A page's fonts by resource name.
type Fonts<'a> = BTreeMap<Vec<u8>, Font<'a>>;

/// Forms (`Do` of a form XObject) walked on one page at most, each call
/// counted: a form drawn many times, or forms that draw each other, cost
/// no more than this many walks.
const MAX_FORMS: usize = 256;

/// How deeply forms may draw forms.
const MAX_FORM_DEPTH: usize = 8;

/// One page's walk: its budgets.
struct Page<'a> {
    doc: &'a Document,
    budget: &'a CpuBudget,
    /// Content bytes the page's forms may still decompress.
    left: usize,
    forms: usize,
    operators: usize,
}

impl<'a> Page<'a> {
    /// Walks `operations`; true when the CPU budget ran out.
    fn walk(
        &mut self,
        walk: &mut Walk,
        operations: &[Operation],
        fonts: &Fonts<'a>,
        xobjects: &BTreeMap<Vec<u8>, ObjectId>,
        depth: usize,
    ) -> bool {
        for op in operations {
            self.operators += 1;
            if self.operators.is_multiple_of(CHECK_EVERY) && self.budget.spent() {
                return true;
            }
            if op.operator == "Do" {
                let name = op.operands.first().and_then(|o| o.as_name().ok());
                if let Some(&id) = name.and_then(|n| xobjects.get(n))
                    && self.form(walk, id, fonts, xobjects, depth)
                {
                    return true;
                }
            } else {
                walk.step(&op.operator, &op.operands, fonts);
            }
        }
        false
    }

    /// Draws form `id` (nothing for an image or past a bound): its content
    /// under its matrix, with its own resources where it has them; the text
    /// state is restored after it, as the format says. True when the CPU
    /// budget ran out.
    fn form(
        &mut self,
        walk: &mut Walk,
        id: ObjectId,
        fonts: &Fonts<'a>,
        xobjects: &BTreeMap<Vec<u8>, ObjectId>,
        depth: usize,
    ) -> bool {
        let doc = self.doc;
        let Ok(stream) = doc.get_object(id).and_then(Object::as_stream) else {
            return false;
        };
        let is_form = matches!(stream.dict.get(b"Subtype"), Ok(Object::Name(n)) if n == b"Form");
        if !is_form || depth >= MAX_FORM_DEPTH || self.forms >= MAX_FORMS {
            return false;
        }
        self.forms += 1;
        let Ok(data) = stream.get_plain_content_with_limit(self.left) else {
            return false;
        };
        self.left = self.left.saturating_sub(data.len());
        let Ok(content) = Content::decode(&data) else {
            return false;
        };
        let resources = match stream.dict.get(b"Resources") {
            Ok(Object::Reference(r)) => doc.get_dictionary(*r).ok(),
            Ok(Object::Dictionary(d)) => Some(d),
            _ => None,
        };
        let own_fonts: Option<Fonts<'a>> = resources.and_then(|r| {
            let dict = match r.get(b"Font").ok()? {
                Object::Reference(f) => doc.get_dictionary(*f).ok()?,
                Object::Dictionary(d) => d,
                _ => return None,
            };
            let limit = self.left;
            Some(
                dict.iter()
                    .filter_map(|(name, o)| {
                        let font = match o {
                            Object::Reference(f) => doc.get_dictionary(*f).ok()?,
                            Object::Dictionary(d) => d,
                            _ => return None,
                        };
                        Some((name.clone(), Font::of(doc, font, limit)?))
                    })
                    .collect(),
            )
        });
        let mut own_xobjects = BTreeMap::new();
        if let Some(r) = resources {
            collect_xobjects(doc, r, &mut own_xobjects);
        }
        let saved = walk.save();
        let matrix = stream
            .dict
            .get(b"Matrix")
            .ok()
            .and_then(|o| o.as_array().ok());
        if let Some(m) = matrix.and_then(|m| Matrix::of(m)) {
            walk.ctm = m.then(walk.ctm);
        }
        let out_of_time = self.walk(
            walk,
            &content.operations,
            own_fonts.as_ref().unwrap_or(fonts),
            if own_xobjects.is_empty() {
                xobjects
            } else {
                &own_xobjects
            },
            depth + 1,
        );
        walk.restore(saved);
        out_of_time
    }
}

/// The named XObjects of a resource dictionary.
fn collect_xobjects(doc: &Document, resources: &Dictionary, out: &mut BTreeMap<Vec<u8>, ObjectId>) {
    let dict = match resources.get(b"XObject") {
        Ok(Object::Reference(id)) => doc.get_dictionary(*id).ok(),
        Ok(Object::Dictionary(d)) => Some(d),
        _ => None,
    };
    for (name, o) in dict.into_iter().flat_map(Dictionary::iter) {
        if let Object::Reference(id) = o {
            out.entry(name.clone()).or_insert(*id);
        }
    }
}

/// An affine matrix `[a b c d e f]`, as PDF writes them.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Matrix([f32; 6]);

impl Default for Matrix {
    fn default() -> Self {
        Self([1.0, 0.0, 0.0, 1.0, 0.0, 0.0])
    }
}

impl Matrix {
    /// `self` then `then`.
    fn then(self, then: Self) -> Self {
        let [a, b, c, d, e, f] = self.0;
        let [a2, b2, c2, d2, e2, f2] = then.0;
        Self([
            a * a2 + b * c2,
            a * b2 + b * d2,
            c * a2 + d * c2,
            c * b2 + d * d2,
            e * a2 + f * c2 + e2,
            e * b2 + f * d2 + f2,
        ])
    }

    fn translate(x: f32, y: f32) -> Self {
        Self([1.0, 0.0, 0.0, 1.0, x, y])
    }

    fn of(operands: &[Object]) -> Option<Self> {
        let mut m = [0.0; 6];
        if operands.len() != 6 {
            return None;
        }
        for (slot, o) in m.iter_mut().zip(operands) {
            *slot = number(o)?;
        }
        m.iter().all(|v| v.is_finite()).then_some(Self(m))
    }
}

/// A character code: a non-negative integer.
fn code(o: &Object) -> Option<u32> {
    match o {
        Object::Integer(i) => u32::try_from(*i).ok(),
        _ => None,
    }
}

fn number(o: &Object) -> Option<f32> {
    match o {
        Object::Integer(i) => Some(*i as f32),
        Object::Real(r) => Some(*r),
        _ => None,
    }
}

/// A font as the walk needs it: how its codes decode, how wide each is.
struct Font<'a> {
    encoding: Encoding<'a>,
    /// Codes are two bytes (a Type0 font).
    two_byte: bool,
    /// Widths by code, in thousandths of an em.
    widths: BTreeMap<u32, f32>,
    default_width: f32,
    /// The embedded Type 1 program, and the text of the glyphs its own
    /// encoding places by code (only the names [`glyph_text`] knows), read
    /// the first time a code needs it.
    program: Option<&'a lopdf::Stream>,
    builtin: OnceCell<BTreeMap<u8, &'static str>>,
    /// The same glyphs placed by the font's `/Differences`, read here too:
    /// lopdf does not follow an `/Encoding` given by reference.
    differences: BTreeMap<u8, &'static str>,
}

impl<'a> Font<'a> {
    /// The font of `dict`, when its encoding can be read (its ToUnicode
    /// map decompressed within `limit` bytes).
    fn of(doc: &'a Document, dict: &'a Dictionary, limit: usize) -> Option<Self> {
        let encoding = dict.get_font_encoding_with_limit(doc, limit).ok()?;
        Some(Self::new(doc, dict, encoding))
    }

    fn new(doc: &'a Document, dict: &'a Dictionary, encoding: Encoding<'a>) -> Self {
        let resolve = |o: &'a Object| match o {
            Object::Reference(id) => doc.get_object(*id).ok(),
            o => Some(o),
        };
        let get = |d: &'a Dictionary, key: &[u8]| d.get(key).ok().and_then(resolve);
        let two_byte = matches!(dict.get(b"Subtype"), Ok(Object::Name(n)) if n == b"Type0");
        let mut widths = BTreeMap::new();
        let mut default_width = DEFAULT_WIDTH;
        if two_byte {
            let descendant = get(dict, b"DescendantFonts")
                .and_then(|o| o.as_array().ok())
                .and_then(|a| a.first())
                .and_then(resolve)
                .and_then(|o| o.as_dict().ok());
            if let Some(cid) = descendant {
                default_width = get(cid, b"DW").and_then(number).unwrap_or(1000.0);
                if let Some(Object::Array(w)) = get(cid, b"W") {
                    cid_widths(w, &resolve, &mut widths);
                }
            }
        } else {
            let first = get(dict, b"FirstChar").and_then(code).unwrap_or(0);
            if let Some(Object::Array(w)) = get(dict, b"Widths") {
                for (c, o) in (first..first.saturating_add(256)).zip(w) {
                    if let Some(v) = resolve(o).and_then(number) {
                        widths.insert(c, v);
                    }
                }
            }
        }
        let program = get(dict, b"FontDescriptor")
            .and_then(|o| o.as_dict().ok())
            .and_then(|d| get(d, b"FontFile"))
            .and_then(|o| o.as_stream().ok());
        let mut differences = BTreeMap::new();
        let listed = get(dict, b"Encoding")
            .and_then(|o| o.as_dict().ok())
            .and_then(|d| get(d, b"Differences"))
            .and_then(|o| o.as_array().ok());
        let mut code = 0u32;
        for item in listed.into_iter().flatten().take(4096) {
            match item {
                Object::Integer(n) => code = u32::try_from(*n).unwrap_or(256),
                Object::Name(name) => {
                    let text = std::str::from_utf8(name).ok().and_then(glyph_text);
                    if let (Ok(c), Some(text)) = (u8::try_from(code), text) {
                        differences.insert(c, text);
                    }
                    code = code.saturating_add(1);
                }
                _ => {}
            }
        }
        Self {
            encoding,
            two_byte,
            widths,
            default_width,
            differences,
            program,
            builtin: OnceCell::new(),
        }
    }

    /// The text of `bytes`. A one-byte code the font's map leaves out (a
    /// ToUnicode map without the entry: U+FFFD; a code the standard
    /// encoding has no character for: nothing, or a control character)
    /// reads as the
    /// glyph the embedded Type 1 program's own encoding names for it (TeX
    /// fonts put their ligatures at codes 11 to 15), else as its character
    /// in the standard encodings when it is printable ASCII, as pdftotext
    /// reads it.
    fn decode(&self, bytes: &[u8]) -> Option<String> {
        let mut out = String::new();
        self.encoding.write_to_string(bytes, &mut out).ok()?;
        let unmapped = |t: &str| {
            t.is_empty()
                || t.chars()
                    .any(|c| c == char::REPLACEMENT_CHARACTER || c.is_control())
        };
        // A code the encoding has no character for is dropped by lopdf's
        // tables: fewer characters than codes tells.
        if self.two_byte || !(unmapped(&out) || out.chars().count() < bytes.len()) {
            return Some(out);
        }
        out.clear();
        for &b in bytes {
            let mut one = String::new();
            let mapped = self.encoding.write_to_string(&[b], &mut one).is_ok() && !unmapped(&one);
            if mapped {
                out.push_str(&one);
            } else if let Some(text) = self.differences.get(&b).or_else(|| {
                self.builtin
                    .get_or_init(|| self.program.map(builtin_encoding).unwrap_or_default())
                    .get(&b)
            }) {
                out.push_str(text);
            } else if b == b' ' || b.is_ascii_graphic() {
                out.push(char::from(b));
            } else {
                out.push(char::REPLACEMENT_CHARACTER);
            }
        }
        Some(out)
    }

    /// The advance of `bytes` in thousandths of an em, and how many codes
    /// and spaces (code 32 of a one-byte font) it holds.
    fn advance(&self, bytes: &[u8]) -> (f32, usize, usize) {
        let width = |code: u32| {
            self.widths
                .get(&code)
                .copied()
                .unwrap_or(self.default_width)
        };
        if self.two_byte {
            let codes = bytes
                .chunks(2)
                .map(|c| c.iter().fold(0u32, |n, &b| n << 8 | u32::from(b)));
            let (sum, n) = codes.fold((0.0, 0), |(s, n), c| (s + width(c), n + 1));
            (sum, n, 0)
        } else {
            let sum = bytes.iter().map(|&b| width(u32::from(b))).sum();
            let spaces = bytes.iter().filter(|&&b| b == b' ').count();
            (sum, bytes.len(), spaces)
        }
    }
}

/// The bytes of a Type 1 program read for its encoding: its clear-text
/// part, where the encoding is, comes first and is short.
const TYPE1_HEAD_BYTES: usize = 64 * 1024;

/// The encoding a Type 1 program declares (`dup 12 /fi put`), for the
/// glyph names [`glyph_text`] knows.
fn builtin_encoding(program: &lopdf::Stream) -> BTreeMap<u8, &'static str> {
    let Ok(data) = program.get_plain_content_with_limit(4 * 1024 * 1024) else {
        return BTreeMap::new();
    };
    let head = &data[..data.len().min(TYPE1_HEAD_BYTES)];
    let head = &head[..memchr::memmem::find(head, b"eexec").unwrap_or(head.len())];
    let text = String::from_utf8_lossy(head);
    let words: Vec<&str> = text.split_ascii_whitespace().collect();
    let mut out = BTreeMap::new();
    for w in words.windows(4) {
        if let ["dup", code, name, "put"] = w
            && let (Ok(code), Some(name)) = (code.parse::<u8>(), name.strip_prefix('/'))
            && let Some(t) = glyph_text(name)
        {
            out.insert(code, t);
        }
    }
    out
}

/// The text of the glyph names TeX's and other fonts' own encodings put
/// where the standard encoding has no character: ligatures, quotes,
/// dashes.
fn glyph_text(name: &str) -> Option<&'static str> {
    Some(match name {
        "ff" => "ff",
        "fi" => "fi",
        "fl" => "fl",
        "ffi" => "ffi",
        "ffl" => "ffl",
        "quoteright" => "\u{2019}",
        "quoteleft" => "\u{2018}",
        "quotedblleft" => "\u{201c}",
        "quotedblright" => "\u{201d}",
        "endash" => "\u{2013}",
        "emdash" => "\u{2014}",
        "dotlessi" => "\u{131}",
        "bullet" => "\u{2022}",
        "minus" => "\u{2212}",
        _ => return None,
    })
}

/// A CID font's `/W`: `c [w1 w2 ...]` or `first last w`, at most 65,536
/// codes.
fn cid_widths<'a>(
    w: &'a [Object],
    resolve: &impl Fn(&'a Object) -> Option<&'a Object>,
    out: &mut BTreeMap<u32, f32>,
) {
    let mut i = 0;
    while i + 1 < w.len() && out.len() < 65_536 {
        let Some(first) = code(&w[i]) else { return };
        match resolve(&w[i + 1]) {
            Some(Object::Array(list)) => {
                for (c, o) in (first..first.saturating_add(65_536)).zip(list) {
                    if let Some(v) = number(o) {
                        out.insert(c, v);
                    }
                }
                i += 2;
            }
            Some(o) => {
                let (Some(last), Some(v)) = (code(o), w.get(i + 2).and_then(number)) else {
                    return;
                };
                let last = last.min(first.saturating_add(65_535));
                for c in first..=last {
                    out.insert(c, v);
                }
                i += 3;
            }
            None => return,
        }
    }
}

/// The graphics state the walk follows, the text state, and the text so
/// far.
#[derive(Default)]
struct Walk {
    out: String,
    ctm: Matrix,
    saved: Vec<Matrix>,
    text: TextState,
    /// Where the last string ended on the page, its baseline, and its
    /// font size there.
    last: Option<(f32, f32, f32)>,
}

/// The text state: the text matrices and what `Tf`, `Tc`, `Tw`, `Tz` and
/// `TL` set.
#[derive(Clone, Default)]
struct TextState {
    tm: Matrix,
    tlm: Matrix,
    font: Option<Vec<u8>>,
    size: f32,
    char_spacing: f32,
    word_spacing: f32,
    /// `Tz`, as a fraction (1.0 when unset).
    scaling: Option<f32>,
    leading: f32,
}

/// What a form changes and gives back: the graphics and text state.
struct Saved {
    ctm: Matrix,
    depth: usize,
    text: TextState,
}

impl Walk {
    fn save(&self) -> Saved {
        Saved {
            ctm: self.ctm,
            depth: self.saved.len(),
            text: self.text.clone(),
        }
    }

    fn restore(&mut self, s: Saved) {
        self.ctm = s.ctm;
        self.saved.truncate(s.depth);
        self.text = s.text;
    }

    fn step(&mut self, operator: &str, operands: &[Object], fonts: &Fonts<'_>) {
        let num = |i: usize| operands.get(i).and_then(number).filter(|v| v.is_finite());
        match operator {
            "q" if self.saved.len() < MAX_SAVED_STATES => self.saved.push(self.ctm),
            "Q" => self.ctm = self.saved.pop().unwrap_or_default(),
            "cm" => {
                if let Some(m) = Matrix::of(operands) {
                    self.ctm = m.then(self.ctm);
                }
            }
            "BT" => {
                self.text.tm = Matrix::default();
                self.text.tlm = Matrix::default();
            }
            "Tf" => {
                self.text.font = operands
                    .first()
                    .and_then(|o| o.as_name().ok())
                    .map(<[u8]>::to_vec);
                self.text.size = num(1).unwrap_or(0.0);
            }
            "Tc" => self.text.char_spacing = num(0).unwrap_or(0.0),
            "Tw" => self.text.word_spacing = num(0).unwrap_or(0.0),
            "Tz" => self.text.scaling = num(0).map(|v| v / 100.0),
            "TL" => self.text.leading = num(0).unwrap_or(0.0),
            "Td" | "TD" => {
                let (Some(x), Some(y)) = (num(0), num(1)) else {
                    return;
                };
                if operator == "TD" {
                    self.text.leading = -y;
                }
                self.next_line(x, y);
            }
            "T*" => self.next_line(0.0, -self.text.leading),
            "Tm" => {
                if let Some(m) = Matrix::of(operands) {
                    self.text.tm = m;
                    self.text.tlm = m;
                }
            }
            "Tj" => self.show(operands.first(), fonts),
            "'" => {
                self.next_line(0.0, -self.text.leading);
                self.show(operands.first(), fonts);
            }
            "\"" => {
                self.text.word_spacing = num(0).unwrap_or(self.text.word_spacing);
                self.text.char_spacing = num(1).unwrap_or(self.text.char_spacing);
                self.next_line(0.0, -self.text.leading);
                self.show(operands.get(2), fonts);
            }
            "TJ" => {
                let Some(Object::Array(items)) = operands.first() else {
                    return;
                };
                for item in items {
                    match item {
                        Object::String(..) => self.show(Some(item), fonts),
                        o => {
                            if let Some(n) = number(o).filter(|n| n.is_finite()) {
                                let dx =
                                    -n / 1000.0 * self.text.size * self.text.scaling.unwrap_or(1.0);
                                self.text.tm = Matrix::translate(dx, 0.0).then(self.text.tm);
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    }

    fn next_line(&mut self, x: f32, y: f32) {
        self.text.tlm = Matrix::translate(x, y).then(self.text.tlm);
        self.text.tm = self.text.tlm;
    }

    /// Shows one string: a separator by where it starts against where the
    /// last one ended, its text, and the text matrix moved past it.
    fn show(&mut self, operand: Option<&Object>, fonts: &Fonts<'_>) {
        let Some(Object::String(bytes, _)) = operand else {
            return;
        };
        let Some(font) = self.text.font.as_ref().and_then(|name| fonts.get(name)) else {
            return;
        };
        let trm = self.text.tm.then(self.ctm);
        let [_, _, c, d, x, y] = trm.0;
        let size = (self.text.size * (c * c + d * d).sqrt()).abs().max(1e-3);
        let Some(decoded) = font.decode(bytes) else {
            return;
        };
        if let Some((end_x, base, last_size)) = self.last {
            let em = size.max(last_size);
            let rise = (y - base).abs();
            if rise > BLOCK_GAP * em {
                self.out.push_str("\n\n");
            } else if rise > LINE_GAP * em {
                self.out.push('\n');
            } else if (x - end_x).abs() > SPACE_GAP * em && !self.out.ends_with(' ') {
                self.out.push(' ');
            }
        }
        self.out.push_str(&decoded);
        let (glyphs, codes, spaces) = font.advance(bytes);
        let advance = (glyphs / 1000.0 * self.text.size
            + self.text.char_spacing * codes as f32
            + self.text.word_spacing * spaces as f32)
            * self.text.scaling.unwrap_or(1.0);
        self.text.tm = Matrix::translate(advance, 0.0).then(self.text.tm);
        let end = self.text.tm.then(self.ctm).0;
        self.last = Some((end[4], end[5], size));
    }
}
