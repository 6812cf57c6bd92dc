//! A response body read within its bound while it streams, its content
//! coding decoded on the way (design §8, LIM-F3, REQ-SEC-010, I2).
//!
//! worker-net offers exactly the codings it decodes ([`ACCEPT_ENCODING`])
//! and counts the bound on the *decoded* bytes, reading the decoder's output
//! in small pieces: a gzip bomb inflates at most `max_body_bytes` plus one
//! piece before reading stops with [`NetFailure::TooLarge`]. The bytes on the
//! wire are bounded too ([`wire_limit`]), so a stream of empty compressed
//! blocks cannot keep a connection busy without producing anything. A coding
//! we did not offer, a stack of codings, or a stream that does not decode is
//! [`NetFailure::Protocol`]: garbage is never passed on as a body.
//!
//! The decoders are async-compression's, over a [`StreamReader`] of the
//! body's data frames: gzip and deflate through flate2 (pure Rust,
//! miniz_oxide), brotli through the pure-Rust `brotli` crate, zstd through
//! the reference C library (libzstd via `zstd-safe`). The pure-Rust zstd
//! backend of async-compression is still behind an unstable flag, and the
//! other pure-Rust decoder (ruzstd) reads from a blocking `Read`, which does
//! not fit a body that arrives chunk by chunk on an async runtime.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::Poll;

use async_compression::tokio::bufread::{
    BrotliDecoder, DeflateDecoder, GzipDecoder, ZlibDecoder, ZstdDecoder,
};
use async_compression::zstd::DParameter;
use bytes::Bytes;
use futures_util::StreamExt;
use http::HeaderMap;
use http::header::CONTENT_ENCODING;
use http_body_util::BodyExt;
use rypsok_proto::NetFailure;
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio_util::io::StreamReader;

/// The `Accept-Encoding` worker-net sends: the codings [`read_body_to_end`]
/// decodes, and no other.
pub(crate) const ACCEPT_ENCODING: &str = "gzip, deflate, br, zstd";

/// Decoded bytes taken from the decoder at a time: what a bomb can inflate
/// past the bound before reading stops.
const READ_PIECE_BYTES: usize = 16 * 1024;

/// Largest zstd window accepted, as a power of two: 8 MiB, the bound RFC
/// 9659 sets for the `zstd` content coding. A frame asking for more (libzstd
/// would otherwise allocate up to 128 MiB for it) does not decode.
const ZSTD_WINDOW_LOG_MAX: u32 = 23;

/// Bytes preallocated for a body before any arrives, at most.
const INITIAL_CAPACITY_MAX: u64 = 64 * 1024;

/// A response's content coding, from its `Content-Encoding` fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Coding {
    Identity,
    Gzip,
    /// RFC 9110 says zlib; raw deflate, which some servers send under the
    /// same name, is recognised by its first bytes.
    Deflate,
    Brotli,
    Zstd,
}

/// The one coding applied to a body. `identity` and empty entries add
/// nothing; a coding we did not offer, a stack of two codings, or a value
/// that is not text is [`NetFailure::Protocol`].
pub(crate) fn content_coding(headers: &HeaderMap) -> Result<Coding, NetFailure> {
    let mut coding = Coding::Identity;
    for value in headers.get_all(CONTENT_ENCODING) {
        let text = value.to_str().map_err(|_| NetFailure::Protocol)?;
        for token in text.split(',') {
            let next = match token.trim().to_ascii_lowercase().as_str() {
                "" | "identity" => continue,
                "gzip" | "x-gzip" => Coding::Gzip,
                "deflate" => Coding::Deflate,
                "br" => Coding::Brotli,
                "zstd" => Coding::Zstd,
                _ => return Err(NetFailure::Protocol),
            };
            if coding != Coding::Identity {
                return Err(NetFailure::Protocol);
            }
            coding = next;
        }
    }
    Ok(coding)
}

/// The most bytes read off the wire for a body bounded to `max_body_bytes`
/// once decoded. Compressed data is never longer than what it decodes to
/// but for the framing of its coding (a few bytes per block); the sixteenth
/// and the 64 KiB leave room for that and nothing more.
pub(crate) fn wire_limit(max_body_bytes: u64) -> u64 {
    max_body_bytes
        .saturating_add(max_body_bytes / 16)
        .saturating_add(64 * 1024)
}

/// Why the wire stream stopped: carried inside an [`io::Error`] through the
/// decoder and read back by [`failure_of`].
#[derive(Debug, Clone, Copy)]
enum WireError {
    /// More than [`wire_limit`] bytes.
    TooLarge,
    /// The HTTP layer failed while reading the body.
    Protocol,
}

impl std::fmt::Display for WireError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::TooLarge => "body exceeds its wire bound",
            Self::Protocol => "body stream failed",
        })
    }
}

impl std::error::Error for WireError {}

/// A failure of the decoded stream in the closed vocabulary: the wire
/// bound is [`NetFailure::TooLarge`], anything else (a broken stream, data
/// that does not decode) is [`NetFailure::Protocol`].
fn failure_of(err: &io::Error) -> NetFailure {
    match err.get_ref().and_then(|e| e.downcast_ref::<WireError>()) {
        Some(WireError::TooLarge) => NetFailure::TooLarge,
        Some(WireError::Protocol) | None => NetFailure::Protocol,
    }
}

/// The bounds of a body (LIM-F3, LIM-F14): `max` for any body, `pdf` for
/// one that is a PDF ([`ExchangeRequest::pdf_max_body_bytes`]).
///
/// [`ExchangeRequest::pdf_max_body_bytes`]: rypsok_proto::ExchangeRequest::pdf_max_body_bytes
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BodyBound {
    pub(crate) max: u64,
    pub(crate) pdf: Option<u64>,
}

/// The PDF signature, and how far into a body (after whitespace) it may
/// start: what worker-parse looks for in a body of a generic type.
const PDF_SIGNATURE: &[u8] = b"%PDF-";
const PDF_SIGNATURE_WITHIN: usize = 1024;

/// The bound a body is held to, and the failure past it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Applied {
    /// Known from the headers, or once the first bytes have told.
    Known(u64, NetFailure),
    /// A generic binary type, or none: a PDF if it starts with `%PDF-`,
    /// which its first bytes tell (`pdf`, `other`).
    Sniff(u64, u64),
}

impl Applied {
    /// The bound of a body declared `content_type`.
    fn of(bound: BodyBound, content_type: Option<&str>) -> Self {
        let Some(pdf) = bound.pdf else {
            return Self::Known(bound.max, NetFailure::TooLarge);
        };
        let essence = content_type
            .and_then(|t| t.split(';').next())
            .map(|t| t.trim().to_ascii_lowercase())
            .unwrap_or_default();
        match essence.as_str() {
            "application/pdf" | "application/x-pdf" => Self::Known(pdf, NetFailure::PdfTooLarge),
            "application/octet-stream" | "binary/octet-stream" | "" => Self::Sniff(pdf, bound.max),
            _ => Self::Known(bound.max, NetFailure::TooLarge),
        }
    }

    /// The largest bound this body may turn out to have.
    fn largest(self) -> u64 {
        match self {
            Self::Known(max, _) => max,
            Self::Sniff(pdf, other) => pdf.max(other),
        }
    }

    /// Settled by the first bytes `head` when they tell, else unchanged.
    fn settle(self, head: &[u8]) -> Self {
        let Self::Sniff(pdf, other) = self else {
            return self;
        };
        let start = head.iter().position(|b| !b.is_ascii_whitespace());
        let is_pdf = match start {
            Some(i) if i <= PDF_SIGNATURE_WITHIN => {
                let rest = &head[i..];
                let n = rest.len().min(PDF_SIGNATURE.len());
                if rest[..n] != PDF_SIGNATURE[..n] {
                    Some(false)
                } else if n == PDF_SIGNATURE.len() {
                    Some(true)
                } else {
                    None
                }
            }
            Some(_) => Some(false),
            None if head.len() > PDF_SIGNATURE_WITHIN => Some(false),
            None => None,
        };
        match is_pdf {
            Some(true) => Self::Known(pdf, NetFailure::PdfTooLarge),
            Some(false) => Self::Known(other, NetFailure::TooLarge),
            None => self,
        }
    }
}

/// Reads `body` as [`read_body_to_end`] does, without saying whether the
/// wire stream ended.
#[cfg(test)]
pub(crate) async fn read_body<B>(
    body: B,
    coding: Coding,
    declared: Option<u64>,
    content_type: Option<&str>,
    bound: BodyBound,
) -> Result<Vec<u8>, NetFailure>
where
    B: hyper::body::Body<Data = Bytes> + Send + Unpin + 'static,
{
    read_body_to_end(body, coding, declared, content_type, bound)
        .await
        .map(|(bytes, _)| bytes)
}

/// Reads `body`, decoded from `coding`, refusing it once it exceeds its
/// bound decoded or [`wire_limit`] on the wire. The bound is `bound.max`,
/// or `bound.pdf` for a PDF: declared so by `content_type`, or declared
/// as a generic binary type or not at all and starting with `%PDF-`, which
/// is looked at as the body streams, so that any other body stops at
/// `bound.max`. `declared` is the `Content-Length`, if any: a declared
/// length over the largest bound the body may have is refused before a
/// byte is read. With the body comes whether its wire stream was read to
/// its end (a decoder may stop before trailing bytes): only then may its
/// connection carry another request.
pub(crate) async fn read_body_to_end<B>(
    body: B,
    coding: Coding,
    declared: Option<u64>,
    content_type: Option<&str>,
    bound: BodyBound,
) -> Result<(Vec<u8>, bool), NetFailure>
where
    B: hyper::body::Body<Data = Bytes> + Send + Unpin + 'static,
{
    let applied = Applied::of(bound, content_type);
    let wire_max = wire_limit(applied.largest());
    let declared_max = match (coding, applied) {
        (Coding::Identity, Applied::Known(max, failure)) => {
            if declared.is_some_and(|len| len > max) {
                return Err(failure);
            }
            max
        }
        (Coding::Identity, Applied::Sniff(..)) => applied.largest(),
        _ => wire_max,
    };
    if declared.is_some_and(|len| len > declared_max) {
        return Err(NetFailure::TooLarge);
    }
    let mut wire_bytes: u64 = 0;
    let frames = body.into_data_stream().map(move |chunk| {
        let chunk = chunk.map_err(|_| io::Error::other(WireError::Protocol))?;
        wire_bytes = wire_bytes.saturating_add(chunk.len() as u64);
        if wire_bytes > wire_max {
            return Err(io::Error::other(WireError::TooLarge));
        }
        Ok(chunk)
    });
    // Set when the stream of data frames has ended.
    let ended = Arc::new(AtomicBool::new(false));
    let mark = Arc::clone(&ended);
    let frames = frames.chain(futures_util::stream::poll_fn(move |_| {
        mark.store(true, Ordering::Release);
        Poll::Ready(None)
    }));
    let mut wire = StreamReader::new(frames);
    // The first two bytes tell zlib from raw deflate; they are read here,
    // across chunks however small, and put back in front of the stream.
    let mut head = [0u8; 2];
    let mut got = 0;
    while got < head.len() {
        let n = wire
            .read(&mut head[got..])
            .await
            .map_err(|e| failure_of(&e))?;
        if n == 0 {
            break;
        }
        got += n;
    }
    // An empty body (a 204, a 304, a redirect) has nothing to decode,
    // whatever its headers say.
    if got == 0 {
        return Ok((Vec::new(), ended.load(Ordering::Acquire)));
    }
    let zlib = looks_like_zlib(&head[..got]);
    let wire = io::Cursor::new(head[..got].to_vec()).chain(wire);
    let decoded: Pin<Box<dyn AsyncRead + Send>> = match coding {
        Coding::Identity => Box::pin(wire),
        Coding::Gzip => Box::pin(GzipDecoder::new(wire)),
        Coding::Deflate if zlib => Box::pin(ZlibDecoder::new(wire)),
        Coding::Deflate => Box::pin(DeflateDecoder::new(wire)),
        Coding::Brotli => Box::pin(BrotliDecoder::new(wire)),
        Coding::Zstd => Box::pin(ZstdDecoder::with_params(
            wire,
            &[DParameter::window_log_max(ZSTD_WINDOW_LOG_MAX)],
        )),
    };
    let initial = match coding {
        Coding::Identity => declared.unwrap_or(0),
        _ => INITIAL_CAPACITY_MAX,
    };
    let bytes = read_bounded(decoded, initial, applied).await?;
    Ok((bytes, ended.load(Ordering::Acquire)))
}

/// Reads `reader` to its end in pieces of [`READ_PIECE_BYTES`], failing as
/// soon as more bytes than its bound have come out of it. A body whose
/// kind its first bytes tell is held to the largest bound it may have
/// only until they have come.
async fn read_bounded(
    mut reader: Pin<Box<dyn AsyncRead + Send>>,
    initial: u64,
    mut applied: Applied,
) -> Result<Vec<u8>, NetFailure> {
    let capacity = initial.min(applied.largest()).min(INITIAL_CAPACITY_MAX);
    let mut out = Vec::with_capacity(usize::try_from(capacity).unwrap_or(0));
    let mut piece = vec![0u8; READ_PIECE_BYTES];
    loop {
        let n = reader.read(&mut piece).await.map_err(|e| failure_of(&e))?;
        if n == 0 {
            return Ok(out);
        }
        let needed = out.len() + n;
        if let Applied::Sniff(..) = applied {
            let mut head = out[..out.len().min(PDF_SIGNATURE_WITHIN + 8)].to_vec();
            head.extend_from_slice(&piece[..n.min(PDF_SIGNATURE_WITHIN + 8)]);
            applied = applied.settle(&head);
        }
        let (max, failure) = match applied {
            Applied::Known(max, failure) => (max, failure),
            Applied::Sniff(..) => (applied.largest(), NetFailure::TooLarge),
        };
        if needed as u64 > max {
            return Err(failure);
        }
        if needed > out.capacity() {
            // Doubling, but never past the bound: a body just under 5 MiB
            // holds 5 MiB, not 8.
            let bound = usize::try_from(max).unwrap_or(usize::MAX);
            let target = out.capacity().saturating_mul(2).clamp(needed, bound);
            out.reserve_exact(target - out.len());
        }
        out.extend_from_slice(&piece[..n]);
    }
}

/// Whether a deflate-coded body starts with a zlib header (RFC 1950: method
/// 8, a window of at most 32 KiB, a header check that divides by 31) rather
/// than raw deflate data. A body of one byte is no valid stream either
/// way: zlib, as the standard says.
fn looks_like_zlib(first: &[u8]) -> bool {
    match first {
        [cmf, flg, ..] => {
            cmf & 0x0f == 8 && cmf >> 4 <= 7 && (u16::from(*cmf) << 8 | u16::from(*flg)) % 31 == 0
        }
        _ => true,
    }
}

#[cfg(test)]
mod tests;
