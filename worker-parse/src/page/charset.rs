//! Charsets (REQ-PAGE-007): a byte order mark, the `Content-Type` charset,
//! a `<meta>` declaration, then detection with chardetng.
//!
//! Deviation from a browser, on purpose: a body that is valid UTF-8 and
//! contains non-ASCII bytes is read as UTF-8 whatever a header or a meta tag
//! says (legacy text is practically never valid UTF-8 by accident, and pages
//! that declare Latin-1 while serving UTF-8 are common), and a body declared
//! UTF-8 that is not valid UTF-8 goes to detection. Only the first bytes are
//! given to the detector, which keeps it cheap on large pages.

use std::borrow::Cow;

use chardetng::{EncodingDetector, Iso2022JpDetection, Utf8Detection};
use encoding_rs::{Encoding, UTF_8, UTF_16BE, UTF_16LE};

/// How far a `<meta>` charset declaration is looked for (the HTML standard
/// says 1024 bytes; real pages often put it later).
const META_SCAN: usize = 4096;

/// How many bytes the detector reads.
const DETECT_SCAN: usize = 64 * 1024;

/// Decodes `body` to text; `declared` is the `Content-Type` header,
/// `html` says whether to look for a `<meta>` declaration, `host` is the
/// page's host (its top-level domain helps the detector). Valid UTF-8 read
/// as UTF-8 is borrowed, not copied.
pub(crate) fn decode<'a>(
    body: &'a [u8],
    declared: Option<&str>,
    html: bool,
    host: Option<&str>,
) -> Cow<'a, str> {
    let (encoding, valid) = choose_checked(body, declared, html, host);
    match valid {
        // Already checked: the decoder would check it again.
        Some(text) if encoding == UTF_8 => Cow::Borrowed(text),
        _ => encoding.decode(body).0,
    }
}

/// The encoding [`decode`] uses.
#[cfg(feature = "fuzzing")]
pub(crate) fn choose(
    body: &[u8],
    declared: Option<&str>,
    html: bool,
    host: Option<&str>,
) -> &'static Encoding {
    choose_checked(body, declared, html, host).0
}

/// The encoding [`decode`] uses, with the body as text when it has no BOM
/// and is valid UTF-8.
fn choose_checked<'a>(
    body: &'a [u8],
    declared: Option<&str>,
    html: bool,
    host: Option<&str>,
) -> (&'static Encoding, Option<&'a str>) {
    if let Some((enc, _)) = Encoding::for_bom(body) {
        return (enc, None);
    }
    let valid = std::str::from_utf8(body).ok();
    let utf8 = valid.is_some();
    let enc = choose_label(body, declared, html, host, utf8);
    (enc, valid)
}

/// The encoding [`decode`] uses, after the BOM, `utf8` saying whether the
/// body is valid UTF-8.
fn choose_label(
    body: &[u8],
    declared: Option<&str>,
    html: bool,
    host: Option<&str>,
    utf8: bool,
) -> &'static Encoding {
    if utf8 && !body.is_ascii() {
        return UTF_8;
    }
    let label = declared
        .and_then(header_charset)
        .or_else(|| if html { meta_charset(body) } else { None });
    if let Some(enc) = label.and_then(|l| Encoding::for_label(l.as_bytes())) {
        // A document without a BOM cannot be UTF-16 (the HTML standard reads
        // such a label as UTF-8); a UTF-8 label on invalid bytes is a lie.
        let enc = if enc == UTF_16LE || enc == UTF_16BE {
            UTF_8
        } else {
            enc
        };
        if enc != UTF_8 || utf8 {
            return enc;
        }
    } else if utf8 {
        return UTF_8;
    }
    detect(body, host)
}

fn detect(body: &[u8], host: Option<&str>) -> &'static Encoding {
    let mut detector = EncodingDetector::new(Iso2022JpDetection::Deny);
    let sample = &body[..body.len().min(DETECT_SCAN)];
    detector.feed(sample, sample.len() == body.len());
    let tld = host
        .and_then(|h| h.rsplit('.').next())
        .filter(|t| {
            !t.is_empty()
                && t.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        })
        .map(str::as_bytes);
    detector.guess(tld, Utf8Detection::Allow)
}

/// The `charset` parameter of a `Content-Type` value.
fn header_charset(value: &str) -> Option<String> {
    value.split(';').skip(1).find_map(|p| {
        let (k, v) = p.split_once('=')?;
        k.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| v.trim().trim_matches(|c| c == '"' || c == '\'').to_owned())
    })
}

/// A charset named by a `<meta charset>` or `<meta http-equiv>` tag near the
/// start of the document.
fn meta_charset(body: &[u8]) -> Option<String> {
    let head = &body[..body.len().min(META_SCAN)];
    let lower: Vec<u8> = head.iter().map(u8::to_ascii_lowercase).collect();
    let mut from = 0;
    while let Some(pos) = find(&lower[from..], b"<meta") {
        let start = from + pos + 5;
        let end = find(&lower[start..], b">").map_or(lower.len(), |e| start + e);
        let tag = &lower[start..end];
        if let Some(c) = find(tag, b"charset") {
            let rest = &tag[c + 7..];
            let rest = trim_start(rest);
            if let Some(rest) = rest.strip_prefix(b"=") {
                let rest = trim_start(rest);
                let rest = rest
                    .strip_prefix(b"\"")
                    .or_else(|| rest.strip_prefix(b"'"))
                    .unwrap_or(rest);
                let len = rest
                    .iter()
                    .position(|b| matches!(b, b'"' | b'\'' | b';' | b' ' | b'/' | b'>'))
                    .unwrap_or(rest.len());
                if len > 0 && len < 40 {
                    return String::from_utf8(rest[..len].to_vec()).ok();
                }
            }
        }
        from = end;
    }
    None
}

fn trim_start(s: &[u8]) -> &[u8] {
    let n = s.iter().take_while(|b| b.is_ascii_whitespace()).count();
    &s[n..]
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Verifies: REQ-PAGE-007
    #[test]
    fn header_then_meta_then_detection() {
        let latin1 = b"<p>caf\xe9 cr\xe8me br\xfbl\xe9e</p>";
        assert_eq!(
            decode(latin1, Some("text/html; charset=ISO-8859-1"), true, None),
            "<p>café crème brûlée</p>"
        );
        let meta = b"<meta charset=\"windows-1251\"><p>\xcf\xf0\xe8\xe2\xe5\xf2</p>";
        assert!(decode(meta, Some("text/html"), true, None).contains("Привет"));
        let equiv =
            b"<meta http-equiv=\"Content-Type\" content=\"text/html; charset=koi8-r\"><p>\xf0\xd2\xc9\xd7\xc5\xd4</p>";
        assert!(decode(equiv, None, true, None).contains("Привет"));
    }

    // Verifies: REQ-PAGE-007
    #[test]
    fn bom_wins_and_lies_are_caught() {
        let mut utf16 = vec![0xff, 0xfe];
        for u in "héllo".encode_utf16() {
            utf16.extend_from_slice(&u.to_le_bytes());
        }
        assert_eq!(
            decode(&utf16, Some("text/html; charset=latin1"), true, None),
            "héllo"
        );
        // Declared Latin-1, served UTF-8.
        assert_eq!(
            decode(
                "<p>naïve café</p>".as_bytes(),
                Some("text/html; charset=iso-8859-1"),
                true,
                None
            ),
            "<p>naïve café</p>"
        );
        // Declared UTF-8, served windows-1252: detection reads it.
        let text = b"<p>Le gar\xe7on a mang\xe9 une cr\xeape \xe0 la cr\xe8me, tr\xe8s d\xe9licieuse, pr\xe8s de l'\xe9glise.</p>";
        let out = decode(
            text,
            Some("text/html; charset=utf-8"),
            true,
            Some("example.fr"),
        );
        assert!(out.contains("garçon a mangé une crêpe"), "{out}");
        // Nothing declared, nothing valid as UTF-8.
        let out = decode(text, None, true, None);
        assert!(out.contains("très délicieuse"), "{out}");
    }
}
