//! Media types: the declared type, checked against the bytes (REQ-PAGE-005).
//!
//! A body whose first bytes are a known binary signature, or which holds
//! control bytes no text has, is not read whatever its `Content-Type` says;
//! a body without a `Content-Type` is sniffed. Hand-written: the signatures
//! are a short table, and the decision (text or not) is ours.

/// What rypsok reads a body as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Html,
    Text,
    Markdown,
}

/// Bytes examined for binary content.
const SNIFF_SCAN: usize = 1024;

/// Known binary signatures at the start of a body, with their media types.
const SIGNATURES: &[(&[u8], &str)] = &[
    (b"%PDF-", "application/pdf"),
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"PK\x03\x04", "application/zip"),
    (b"\x1f\x8b", "application/gzip"),
    (b"BZh", "application/x-bzip2"),
    (b"\xfd7zXZ\x00", "application/x-xz"),
    (b"\x28\xb5\x2f\xfd", "application/zstd"),
    (b"7z\xbc\xaf\x27\x1c", "application/x-7z-compressed"),
    (b"Rar!\x1a\x07", "application/vnd.rar"),
    (b"\x7fELF", "application/x-executable"),
    (b"MZ", "application/x-msdownload"),
    (b"\x00asm", "application/wasm"),
    (b"OggS", "audio/ogg"),
    (b"ID3", "audio/mpeg"),
    (b"fLaC", "audio/flac"),
    (b"\x1aE\xdf\xa3", "video/webm"),
    (b"wOFF", "font/woff"),
    (b"wOF2", "font/woff2"),
    (b"SQLite format 3\x00", "application/vnd.sqlite3"),
    (b"%!PS", "application/postscript"),
    (
        b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1",
        "application/x-ole-storage",
    ),
];

/// The type the bytes prove, when they are not text.
pub(crate) fn binary_type(body: &[u8]) -> Option<&'static str> {
    if let Some((_, t)) = SIGNATURES.iter().find(|(sig, _)| body.starts_with(sig)) {
        // "MZ" and "ID3" are short: count them only with binary bytes after.
        if !(t.ends_with("msdownload") || *t == "audio/mpeg") || has_binary_bytes(body) {
            return Some(t);
        }
    }
    if body.len() >= 12 && &body[..4] == b"RIFF" {
        return Some(match &body[8..12] {
            b"WEBP" => "image/webp",
            b"WAVE" => "audio/wav",
            _ => "application/octet-stream",
        });
    }
    if body.len() >= 12 && &body[4..8] == b"ftyp" {
        return Some("video/mp4");
    }
    has_binary_bytes(body).then_some("application/octet-stream")
}

/// Whether the first bytes hold a NUL or control bytes that no text has
/// (UTF-16 text with its BOM is text).
fn has_binary_bytes(body: &[u8]) -> bool {
    if body.starts_with(b"\xff\xfe") || body.starts_with(b"\xfe\xff") {
        return false;
    }
    let head = &body[..body.len().min(SNIFF_SCAN)];
    let controls = head
        .iter()
        .filter(|&&b| b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r' | 0x0c | 0x1b))
        .count();
    head.contains(&0) || controls * 20 > head.len().max(1)
}

/// The kind a body without a `Content-Type` is read as (it is text: the
/// binary check came first).
pub(crate) fn text_kind(body: &[u8]) -> Kind {
    let head = &body[..body.len().min(SNIFF_SCAN)];
    let start = head
        .strip_prefix(b"\xef\xbb\xbf")
        .unwrap_or(head)
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(0);
    let lower: Vec<u8> = head[start..].iter().map(u8::to_ascii_lowercase).collect();
    const HTML_STARTS: &[&[u8]] = &[
        b"<!doctype html",
        b"<html",
        b"<head",
        b"<body",
        b"<!--",
        b"<?xml",
        b"<meta",
        b"<title",
        b"<div",
        b"<p>",
        b"<script",
        b"<link",
    ];
    if HTML_STARTS.iter().any(|p| lower.starts_with(p))
        || lower.windows(5).any(|w| w == b"<html" || w == b"<body")
    {
        Kind::Html
    } else {
        Kind::Text
    }
}

/// The declared media type: lower-cased, without parameters.
pub(crate) fn essence(content_type: &str) -> String {
    content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

/// The kind a declared type is read as, when rypsok reads it.
pub(crate) fn declared_kind(essence: &str) -> Option<Kind> {
    match essence {
        "text/html" | "application/xhtml+xml" => Some(Kind::Html),
        "text/plain" => Some(Kind::Text),
        "text/markdown" | "text/x-markdown" => Some(Kind::Markdown),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Verifies: REQ-PAGE-005
    #[test]
    fn signatures_and_binary_bytes() {
        assert_eq!(binary_type(b"%PDF-1.7\n%\xe2\xe3"), Some("application/pdf"));
        assert_eq!(
            binary_type(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"),
            Some("image/png")
        );
        assert_eq!(
            binary_type(b"PK\x03\x04\x14\0\0\0"),
            Some("application/zip")
        );
        assert_eq!(
            binary_type(b"\x01\x02\x03\x04\x05\x06abc"),
            Some("application/octet-stream")
        );
        assert_eq!(binary_type(b"<html><body>MZ</body></html>"), None);
        assert_eq!(binary_type(b"MZ is a rapper"), None);
        assert_eq!(binary_type("plain words, naïve".as_bytes()), None);
    }

    #[test]
    fn sniffs_html_or_text() {
        assert_eq!(text_kind(b"  <!DOCTYPE html><title>x</title>"), Kind::Html);
        assert_eq!(text_kind(b"\xef\xbb\xbf<html>"), Kind::Html);
        assert_eq!(text_kind(b"Just some words.\nMore."), Kind::Text);
    }
}
