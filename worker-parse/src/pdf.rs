//! PDF documents: bytes in, the text in reading order as Markdown out
//! (REQ-FETCH-002, design §3.2; DECISIONS.md "PDF"; LIM-F15).
//!
//! Which bodies are PDFs ([`is_pdf`]), opening one with lopdf under the
//! LIM-F15 bounds ([`read_pdf`]), walking each page's content for its
//! text lines (`text`) within the document's CPU budget (`budget`), and
//! turning them into Markdown (`layout`): paragraphs joined across line
//! breaks, hyphenated words joined, running headers and footers dropped, a
//! `Page N` line before each page. Why lopdf: PDF.md beside this crate's
//! manifest.
//!
//! Only this process reads a PDF: a document that defeats every bound
//! (memory past LIM-W2, a stack overflow) ends this worker, which the
//! supervisor replaces.

mod budget;
mod layout;
#[cfg(test)]
mod tests;
mod text;

use std::time::Duration;

use lopdf::{Document, LoadOptions, Object};
use rypsok_proto::Unreadable;
use rypsok_proto::limits::{
    PDF_MAX_CONTENT_BYTES, PDF_MAX_OBJECTS, PDF_MAX_PAGES, PDF_MAX_READ_MS, PDF_MAX_STREAM_BYTES,
};

/// What a PDF yielded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PdfResult {
    /// Text.
    Text {
        /// The title from the document's metadata, else its first
        /// heading-like line.
        title: Option<String>,
        /// The text as Markdown, with a `Page N` line before each page.
        markdown: String,
        /// A LIM-F15 bound was reached or a page could not be read: the
        /// text is what was read (`extraction_partial`).
        partial: bool,
    },
    /// Cannot be read, for a reason the caller is told.
    Unreadable(Unreadable),
    /// Not a PDF the reader can open, or one past a bound that stops it
    /// before any page (`extraction_failed`).
    Failed,
}

/// The PDF signature. A file may have bytes before it (the format allows
/// up to 1024); servers that serve one as a generic binary type rarely do.
const SIGNATURE: &[u8] = b"%PDF-";

/// How far into a body the signature is looked for.
const SIGNATURE_WITHIN: usize = 1024;

/// Whether a body is a PDF to read: declared `application/pdf` (or the
/// older `application/x-pdf`), or declared as a generic binary type
/// (`application/octet-stream`, `binary/octet-stream`) or not at all and
/// starting with `%PDF-`. Any other declared type keeps the answer the
/// page reader gives it.
pub fn is_pdf(content_type: Option<&str>, body: &[u8]) -> bool {
    let essence = content_type
        .map(|t| {
            t.split(';')
                .next()
                .unwrap_or_default()
                .trim()
                .to_ascii_lowercase()
        })
        .filter(|e| !e.is_empty());
    match essence.as_deref() {
        Some("application/pdf" | "application/x-pdf") => true,
        Some("application/octet-stream" | "binary/octet-stream") | None => has_signature(body),
        Some(_) => false,
    }
}

/// `%PDF-` at the start, after nothing but whitespace.
fn has_signature(body: &[u8]) -> bool {
    let head = &body[..body.len().min(SIGNATURE_WITHIN)];
    let start = head
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(head.len());
    head[start..].starts_with(SIGNATURE)
}

/// Reads one PDF within the LIM-F15 bounds.
pub fn read_pdf(body: &[u8]) -> PdfResult {
    read_pdf_within(body, Duration::from_millis(PDF_MAX_READ_MS))
}

/// Reads one PDF, its pages within `cpu` of this thread's CPU time
/// (checked between pages and inside each page's walk).
fn read_pdf_within(body: &[u8], cpu: Duration) -> PdfResult {
    let budget = budget::CpuBudget::new(cpu);
    let options = LoadOptions {
        // The empty user password: a document that opens with it is read.
        password: None,
        max_decompressed_size: Some(PDF_MAX_STREAM_BYTES),
        ..LoadOptions::default()
    };
    let doc = match Document::load_mem_with_options(body, options) {
        Ok(doc) => doc,
        Err(_) if declares_encryption(body) => return PdfResult::Unreadable(Unreadable::Encrypted),
        Err(_) => return PdfResult::Failed,
    };
    if doc.trailer.has(b"Encrypt") && doc.encryption_state.is_none() {
        return PdfResult::Unreadable(Unreadable::Encrypted);
    }
    if doc.objects.len() > PDF_MAX_OBJECTS {
        return PdfResult::Failed;
    }
    let pages = doc.get_pages();
    if pages.is_empty() {
        return PdfResult::Failed;
    }
    let mut partial = pages.len() > PDF_MAX_PAGES;
    let mut content_left = PDF_MAX_CONTENT_BYTES;
    let mut texts = Vec::new();
    for &id in pages.values().take(PDF_MAX_PAGES) {
        if budget.spent() {
            partial = true;
            break;
        }
        // The page's decompressed content counts against the document's
        // budget; a page past what is left of it is not read.
        match text::page_text(&doc, id, content_left.min(PDF_MAX_STREAM_BYTES), &budget) {
            Ok(page) => {
                content_left = content_left.saturating_sub(page.content_bytes);
                texts.push(page.text);
                if page.out_of_time {
                    partial = true;
                    break;
                }
            }
            Err(_) => {
                partial = true;
                texts.push(String::new());
            }
        }
    }
    let pages_text = layout::Pages::new(texts);
    if !pages_text.has_text() {
        return if partial {
            PdfResult::Failed
        } else {
            PdfResult::Unreadable(Unreadable::NoTextLayer)
        };
    }
    let title = metadata_title(&doc).or_else(|| pages_text.first_heading());
    PdfResult::Text {
        title,
        markdown: pages_text.markdown(),
        partial,
    }
}

/// Whether the trailer names an encryption dictionary (looked for in the
/// file's last part, where the trailer is, when the reader failed).
fn declares_encryption(body: &[u8]) -> bool {
    let tail = &body[body.len().saturating_sub(64 * 1024)..];
    memchr::memmem::find(tail, b"/Encrypt").is_some()
}

/// The longest title kept, in characters.
const TITLE_MAX_CHARS: usize = 300;

/// The document information dictionary's `/Title`, when it has letters.
fn metadata_title(doc: &Document) -> Option<String> {
    let info = match doc.trailer.get(b"Info").ok()? {
        Object::Reference(id) => doc.get_dictionary(*id).ok()?,
        Object::Dictionary(dict) => dict,
        _ => return None,
    };
    let Object::String(bytes, _) = info.get(b"Title").ok()? else {
        return None;
    };
    let title = decode_text_string(bytes);
    let title = title.split_whitespace().collect::<Vec<_>>().join(" ");
    title
        .chars()
        .any(char::is_alphanumeric)
        .then(|| title.chars().take(TITLE_MAX_CHARS).collect())
}

/// A PDF text string: UTF-16BE after a byte-order mark, UTF-8 after its
/// mark (PDF 2.0), else PDFDocEncoding (read as Latin-1, which it matches
/// for the printable characters titles use).
fn decode_text_string(bytes: &[u8]) -> String {
    if let Some(rest) = bytes.strip_prefix(&[0xfe, 0xff]) {
        let units: Vec<u16> = rest
            .chunks_exact(2)
            .map(|c| u16::from_be_bytes([c[0], c[1]]))
            .collect();
        return char::decode_utf16(units)
            .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
            .collect();
    }
    if let Some(rest) = bytes.strip_prefix(&[0xef, 0xbb, 0xbf]) {
        return String::from_utf8_lossy(rest).into_owned();
    }
    bytes.iter().map(|&b| char::from(b)).collect()
}
