//! Decoding and bounds on bodies fed chunk by chunk, without a socket.

use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use async_compression::Level;
use async_compression::tokio::bufread::ZstdEncoder;
use async_compression::zstd::CParameter;
use http::HeaderValue;
use http_body_util::StreamBody;
use hyper::body::Frame;

use super::*;
use crate::test_support::{TestCoding, encode, gzip_bomb, sample_text};

type ChunkedBody =
    StreamBody<futures_util::stream::Iter<std::vec::IntoIter<Result<Frame<Bytes>, Infallible>>>>;

/// `bytes` as a body arriving in chunks of `chunk` bytes.
fn chunked(bytes: &[u8], chunk: usize) -> ChunkedBody {
    let frames: Vec<Result<Frame<Bytes>, Infallible>> = bytes
        .chunks(chunk)
        .map(|c| Ok(Frame::data(Bytes::copy_from_slice(c))))
        .collect();
    StreamBody::new(futures_util::stream::iter(frames))
}

fn coding_of(coding: TestCoding) -> Coding {
    match coding {
        TestCoding::Identity => Coding::Identity,
        TestCoding::Gzip => Coding::Gzip,
        TestCoding::Zlib | TestCoding::RawDeflate => Coding::Deflate,
        TestCoding::Brotli => Coding::Brotli,
        TestCoding::Zstd => Coding::Zstd,
    }
}

// Verifies: REQ-SEC-010
#[tokio::test]
async fn every_offered_coding_decodes_whatever_the_chunking() {
    let text = sample_text(200 * 1024);
    for coding in TestCoding::ALL {
        let encoded = encode(coding, &text).await;
        for chunk in [1, 7, 1000, 64 * 1024] {
            let got = read_body(
                chunked(&encoded, chunk),
                coding_of(coding),
                None,
                None,
                fixed(1 << 20),
            )
            .await
            .unwrap_or_else(|f| panic!("{coding:?} in chunks of {chunk}: {f:?}"));
            assert!(got == text, "{coding:?} in chunks of {chunk}");
        }
    }
}

// Verifies: REQ-SEC-010
#[tokio::test]
async fn the_bound_counts_decoded_bytes_in_every_coding() {
    // 256 KiB of text decoded: exactly at the bound it passes, one byte
    // below it is refused, however small the compressed form.
    let text = sample_text(256 * 1024);
    for coding in TestCoding::ALL {
        let encoded = encode(coding, &text).await;
        let max = text.len() as u64;
        let at = read_body(
            chunked(&encoded, 4096),
            coding_of(coding),
            None,
            None,
            fixed(max),
        )
        .await;
        assert_eq!(at.map(|b| b.len()), Ok(text.len()), "{coding:?}");
        let below = read_body(
            chunked(&encoded, 4096),
            coding_of(coding),
            None,
            None,
            fixed(max - 1),
        )
        .await;
        assert_eq!(below.err(), Some(NetFailure::TooLarge), "{coding:?}");
    }
}

// Verifies: REQ-SEC-010
#[tokio::test]
async fn a_bomb_in_any_coding_stops_at_the_bound() {
    // 16 MiB of zeros compress to a few KiB in every coding; the bound is
    // 1 MiB. Reading stops one piece past it.
    let zeros = vec![0u8; 16 << 20];
    for coding in TestCoding::ALL {
        if coding == TestCoding::Identity {
            continue;
        }
        let encoded = encode(coding, &zeros).await;
        assert!(encoded.len() < 1 << 20, "{coding:?} is no bomb");
        let got = read_body(
            chunked(&encoded, 16 * 1024),
            coding_of(coding),
            None,
            None,
            fixed(1 << 20),
        )
        .await;
        assert_eq!(got.err(), Some(NetFailure::TooLarge), "{coding:?}");
    }
    // Reading stops while the bomb streams: of a 64 MiB bomb's gzip, about
    // a sixty-fourth is taken off the wire before 1 MiB has come out.
    let bomb = gzip_bomb(64);
    let pulled = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&pulled);
    let frames: Vec<Bytes> = bomb.chunks(1024).map(Bytes::copy_from_slice).collect();
    let body = StreamBody::new(futures_util::stream::iter(frames).map(move |chunk| {
        counter.fetch_add(chunk.len(), Ordering::SeqCst);
        Ok::<_, Infallible>(Frame::data(chunk))
    }));
    let got = read_body(body, Coding::Gzip, None, None, fixed(1 << 20)).await;
    assert_eq!(got.err(), Some(NetFailure::TooLarge));
    let pulled = pulled.load(Ordering::SeqCst);
    assert!(
        pulled < bomb.len() / 8,
        "{pulled} of {} bytes read",
        bomb.len()
    );
}

// Verifies: REQ-SEC-010
#[tokio::test]
async fn compressed_bytes_that_decode_to_nothing_are_bounded_on_the_wire() {
    // Raw deflate made of empty stored blocks only: each five bytes on the
    // wire, none decoded. The decoded bound never trips; the wire bound does.
    let max = 16 * 1024;
    let blocks = usize::try_from(wire_limit(max)).unwrap() / 5 + 1;
    let mut stream = Vec::with_capacity(blocks * 5 + 5);
    for _ in 0..blocks {
        stream.extend_from_slice(&[0x00, 0x00, 0x00, 0xff, 0xff]);
    }
    stream.extend_from_slice(&[0x01, 0x00, 0x00, 0xff, 0xff]);
    let got = read_body(
        chunked(&stream, 4096),
        Coding::Deflate,
        None,
        None,
        fixed(max),
    )
    .await;
    assert_eq!(got.err(), Some(NetFailure::TooLarge));

    // The same stream within the wire bound decodes to an empty body.
    let short = [
        [0x00, 0x00, 0x00, 0xff, 0xff],
        [0x01, 0x00, 0x00, 0xff, 0xff],
    ]
    .concat();
    let got = read_body(
        chunked(&short, 4096),
        Coding::Deflate,
        None,
        None,
        fixed(max),
    )
    .await;
    assert_eq!(got, Ok(Vec::new()));
}

// Verifies: REQ-SEC-010
#[tokio::test]
async fn a_declared_length_over_the_bound_is_refused_before_reading() {
    let body = chunked(b"short", 5);
    let got = read_body(body, Coding::Identity, Some(1025), None, fixed(1024)).await;
    assert_eq!(got.err(), Some(NetFailure::TooLarge));
    // Under a coding, the declared length is on the wire: bounded by the
    // wire bound, not by the decoded one.
    let encoded = encode(TestCoding::Gzip, b"short").await;
    let declared = Some(encoded.len() as u64);
    let got = read_body(
        chunked(&encoded, 5),
        Coding::Gzip,
        declared,
        None,
        fixed(1024),
    )
    .await;
    assert_eq!(got, Ok(b"short".to_vec()));
    let got = read_body(
        chunked(&encoded, 5),
        Coding::Gzip,
        Some(wire_limit(1024) + 1),
        None,
        fixed(1024),
    )
    .await;
    assert_eq!(got.err(), Some(NetFailure::TooLarge));
}

// Verifies: REQ-SEC-010
#[tokio::test]
async fn data_that_does_not_decode_is_a_protocol_failure_never_a_body() {
    let text = sample_text(10_000);
    for coding in TestCoding::ALL {
        if coding == TestCoding::Identity {
            continue;
        }
        let encoded = encode(coding, &text).await;
        // Cut short: the stream never ends.
        let truncated = &encoded[..encoded.len() / 2];
        let got = read_body(
            chunked(truncated, 100),
            coding_of(coding),
            None,
            None,
            fixed(1 << 20),
        )
        .await;
        assert_eq!(
            got.err(),
            Some(NetFailure::Protocol),
            "{coding:?} truncated"
        );
        // Plain text labelled with the coding.
        let got = read_body(
            chunked(&text, 100),
            coding_of(coding),
            None,
            None,
            fixed(1 << 20),
        )
        .await;
        assert_eq!(
            got.err(),
            Some(NetFailure::Protocol),
            "{coding:?} mislabelled"
        );
    }
}

// Verifies: REQ-SEC-010
#[tokio::test]
async fn an_empty_body_needs_no_decoding() {
    for coding in [Coding::Gzip, Coding::Deflate, Coding::Brotli, Coding::Zstd] {
        let got = read_body(chunked(b"", 1), coding, Some(0), None, fixed(1024)).await;
        assert_eq!(got, Ok(Vec::new()), "{coding:?}");
    }
}

// Verifies: REQ-SEC-010
#[tokio::test]
async fn a_zstd_frame_asking_for_a_window_over_8_mib_is_refused() {
    let text = sample_text(64 * 1024);
    let encode_with_window = |log: u32| {
        let text = text.clone();
        async move {
            let mut out = Vec::new();
            let params = [CParameter::window_log(log)];
            let mut encoder =
                ZstdEncoder::with_quality_and_params(text.as_slice(), Level::Fastest, &params);
            encoder.read_to_end(&mut out).await.unwrap();
            out
        }
    };
    let within = encode_with_window(ZSTD_WINDOW_LOG_MAX).await;
    let got = read_body(
        chunked(&within, 4096),
        Coding::Zstd,
        None,
        None,
        fixed(1 << 20),
    )
    .await;
    assert_eq!(got, Ok(text.clone()));
    let beyond = encode_with_window(27).await;
    let got = read_body(
        chunked(&beyond, 4096),
        Coding::Zstd,
        None,
        None,
        fixed(1 << 20),
    )
    .await;
    assert_eq!(got.err(), Some(NetFailure::Protocol));
}

// Verifies: REQ-SEC-010
#[test]
fn reads_the_coding_from_content_encoding() {
    type Row = (&'static [&'static [u8]], Result<Coding, NetFailure>);
    let rows: [Row; 12] = [
        (&[], Ok(Coding::Identity)),
        (&[b"identity"], Ok(Coding::Identity)),
        (&[b"gzip"], Ok(Coding::Gzip)),
        (&[b"X-Gzip"], Ok(Coding::Gzip)),
        (&[b" deflate "], Ok(Coding::Deflate)),
        (&[b"br"], Ok(Coding::Brotli)),
        (&[b"ZSTD"], Ok(Coding::Zstd)),
        (&[b"identity, gzip"], Ok(Coding::Gzip)),
        (&[b"compress"], Err(NetFailure::Protocol)),
        (&[b"gzip, br"], Err(NetFailure::Protocol)),
        (&[b"gzip", b"gzip"], Err(NetFailure::Protocol)),
        (&[b"gz\xffip"], Err(NetFailure::Protocol)),
    ];
    for (values, want) in rows {
        let mut map = HeaderMap::new();
        for value in values {
            map.append(CONTENT_ENCODING, HeaderValue::from_bytes(value).unwrap());
        }
        assert_eq!(content_coding(&map), want, "{values:?}");
    }
}

// Verifies: REQ-SEC-010
#[test]
fn tells_zlib_from_raw_deflate_by_its_header() {
    assert!(looks_like_zlib(&[0x78, 0x9c]));
    assert!(looks_like_zlib(&[0x78, 0x01]));
    assert!(looks_like_zlib(&[0x78, 0xda]));
    // Raw deflate blocks: a stored block, a fixed block, a dynamic one.
    assert!(!looks_like_zlib(&[0x00, 0x05]));
    assert!(!looks_like_zlib(&[0x4b, 0x4c]));
    assert!(!looks_like_zlib(&[0xed, 0xbd]));
}

// Verifies: REQ-SEC-010
#[tokio::test]
async fn a_body_near_its_bound_holds_no_more_memory_than_the_bound() {
    let text = sample_text(600 * 1024);
    let max = text.len() as u64 + 10;
    for coding in [TestCoding::Identity, TestCoding::Gzip] {
        let encoded = encode(coding, &text).await;
        let got = read_body(
            chunked(&encoded, 1000),
            coding_of(coding),
            None,
            None,
            fixed(max),
        )
        .await
        .unwrap();
        assert!(got == text, "{coding:?}");
        assert!(
            got.capacity() as u64 <= max,
            "{coding:?}: {}",
            got.capacity()
        );
    }
}

/// One bound for every body, as engine answers and robots.txt have.
fn fixed(max: u64) -> BodyBound {
    BodyBound { max, pdf: None }
}

/// The page bound (LIM-F3) at 64 KiB and the PDF bound (LIM-F14) at 1 MiB.
const BY_KIND: BodyBound = BodyBound {
    max: 64 * 1024,
    pdf: Some(1 << 20),
};

// Verifies: REQ-PAGE-003, REQ-SEC-010 (LIM-F3 and LIM-F14: the bound of the body's kind, applied while it streams)
#[tokio::test]
async fn a_body_is_held_to_the_bound_of_its_kind_while_it_streams() {
    // 200 KiB: past the page bound, within the PDF bound.
    let html = format!(
        "<html><body>{}</body></html>",
        "<p>words</p>".repeat(17_000)
    );
    let pdf = format!("%PDF-1.7\n{}", "x".repeat(200 * 1024));
    for coding in [TestCoding::Identity, TestCoding::Gzip] {
        let html = encode(coding, html.as_bytes()).await;
        let pdf = encode(coding, pdf.as_bytes()).await;
        let c = coding_of(coding);
        // An HTML page stops at the page bound, whatever it is served as.
        for ty in [
            Some("text/html; charset=utf-8"),
            Some("application/octet-stream"),
            None,
        ] {
            let got = read_body(chunked(&html, 4096), c, None, ty, BY_KIND).await;
            assert_eq!(got.err(), Some(NetFailure::TooLarge), "{coding:?} {ty:?}");
        }
        // A PDF, declared so or known by its first bytes, has the larger one.
        for ty in [Some("application/pdf"), Some("Binary/Octet-Stream"), None] {
            let got = read_body(chunked(&pdf, 4096), c, None, ty, BY_KIND).await;
            assert_eq!(
                got.map(|b| b.len()),
                Ok(200 * 1024 + 9),
                "{coding:?} {ty:?}"
            );
        }
        // The same PDF bytes under a text type are held to the page bound.
        let got = read_body(chunked(&pdf, 4096), c, None, Some("text/plain"), BY_KIND).await;
        assert_eq!(got.err(), Some(NetFailure::TooLarge), "{coding:?}");
    }
    // The signature arriving a byte at a time, after whitespace.
    let late = format!("\r\n  %PDF-1.4\n{}", "x".repeat(100 * 1024));
    let got = read_body(
        chunked(late.as_bytes(), 1),
        Coding::Identity,
        None,
        None,
        BY_KIND,
    )
    .await;
    assert_eq!(got.map(|b| b.len()), Ok(late.len()));
    // Past the PDF bound: the PDF's own failure, so its bound is reported.
    let huge = format!("%PDF-1.7\n{}", "x".repeat(1 << 20));
    for ty in [Some("application/pdf"), None] {
        let got = read_body(
            chunked(huge.as_bytes(), 4096),
            Coding::Identity,
            None,
            ty,
            BY_KIND,
        )
        .await;
        assert_eq!(got.err(), Some(NetFailure::PdfTooLarge), "{ty:?}");
    }
    // A declared length past the page bound is refused before a byte is
    // read for an HTML page, not for a PDF within its bound.
    let declared = Some(100 * 1024);
    let got = read_body(
        chunked(b"<html>", 6),
        Coding::Identity,
        declared,
        Some("text/html"),
        BY_KIND,
    )
    .await;
    assert_eq!(got.err(), Some(NetFailure::TooLarge));
    let got = read_body(
        chunked(b"%PDF-", 5),
        Coding::Identity,
        declared,
        Some("application/pdf"),
        BY_KIND,
    )
    .await;
    assert_eq!(got, Ok(b"%PDF-".to_vec()));
}

// Verifies: REQ-SEC-010 (LIM-F3: an HTML body is not downloaded past the page bound when the PDF bound is larger)
#[tokio::test]
async fn an_html_body_stops_being_read_at_the_page_bound() {
    // Counts the chunks taken from the wire: reading stops within a piece
    // of the page bound, far below the PDF bound.
    let taken = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&taken);
    let chunks: Vec<Result<Frame<Bytes>, Infallible>> = (0..256)
        .map(|_| Ok(Frame::data(Bytes::from(vec![b'a'; 4096]))))
        .collect();
    let body = StreamBody::new(futures_util::stream::iter(chunks).inspect(move |_| {
        count.fetch_add(1, Ordering::SeqCst);
    }));
    let got = read_body(body, Coding::Identity, None, Some("text/html"), BY_KIND).await;
    assert_eq!(got.err(), Some(NetFailure::TooLarge));
    let read = taken.load(Ordering::SeqCst) * 4096;
    assert!(read <= 64 * 1024 + 2 * 16 * 1024, "{read} bytes read");
}
