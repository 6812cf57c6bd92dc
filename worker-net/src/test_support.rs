//! Compressed bodies built at run time for the tests: every coding
//! worker-net offers, and a gzip bomb.

use async_compression::Level;
use async_compression::tokio::bufread::{
    BrotliEncoder, DeflateEncoder, GzipEncoder, ZlibEncoder, ZstdEncoder,
};
use flate2::{Compress, Compression, Crc, FlushCompress};
use tokio::io::AsyncReadExt;

/// How a test body is compressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TestCoding {
    Identity,
    Gzip,
    /// `deflate` as RFC 9110 means it: zlib.
    Zlib,
    /// `deflate` as some servers send it: raw deflate data.
    RawDeflate,
    Brotli,
    Zstd,
}

impl TestCoding {
    pub(crate) const ALL: [TestCoding; 6] = [
        TestCoding::Identity,
        TestCoding::Gzip,
        TestCoding::Zlib,
        TestCoding::RawDeflate,
        TestCoding::Brotli,
        TestCoding::Zstd,
    ];

    /// The `Content-Encoding` value naming it.
    pub(crate) fn header_value(self) -> &'static str {
        match self {
            TestCoding::Identity => "identity",
            TestCoding::Gzip => "gzip",
            TestCoding::Zlib | TestCoding::RawDeflate => "deflate",
            TestCoding::Brotli => "br",
            TestCoding::Zstd => "zstd",
        }
    }
}

/// `data` compressed with `coding`, at the fastest level.
pub(crate) async fn encode(coding: TestCoding, data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let level = Level::Fastest;
    match coding {
        TestCoding::Identity => out.extend_from_slice(data),
        TestCoding::Gzip => {
            GzipEncoder::with_quality(data, level)
                .read_to_end(&mut out)
                .await
                .unwrap();
        }
        TestCoding::Zlib => {
            ZlibEncoder::with_quality(data, level)
                .read_to_end(&mut out)
                .await
                .unwrap();
        }
        TestCoding::RawDeflate => {
            DeflateEncoder::with_quality(data, level)
                .read_to_end(&mut out)
                .await
                .unwrap();
        }
        TestCoding::Brotli => {
            BrotliEncoder::with_quality(data, level)
                .read_to_end(&mut out)
                .await
                .unwrap();
        }
        TestCoding::Zstd => {
            ZstdEncoder::with_quality(data, level)
                .read_to_end(&mut out)
                .await
                .unwrap();
        }
    };
    out
}

/// Text that compresses, but not to nothing: numbered lines.
pub(crate) fn sample_text(bytes: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes + 32);
    let mut line = 0u64;
    while out.len() < bytes {
        out.extend_from_slice(format!("line {line}: the quick brown fox\n").as_bytes());
        line += 1;
    }
    out.truncate(bytes);
    out
}

/// A valid gzip member that inflates to `mebibytes` MiB of zeros, built in
/// about a thousandth of that: one MiB of zeros is deflated once after
/// another, each ending with a sync flush; from the second on, every MiB
/// deflates to the same bytes (asserted), which are repeated. An empty
/// final block, the CRC of all the zeros and their length close it.
pub(crate) fn gzip_bomb(mebibytes: u32) -> Vec<u8> {
    const MIB: usize = 1 << 20;
    assert!(mebibytes >= 3);
    let zeros = vec![0u8; MIB];
    let mut deflater = Compress::new(Compression::best(), false);
    let deflate_mib = |deflater: &mut Compress| -> Vec<u8> {
        let start = deflater.total_in();
        let mut out = Vec::with_capacity(MIB);
        loop {
            let consumed = usize::try_from(deflater.total_in() - start).unwrap();
            deflater
                .compress_vec(&zeros[consumed..], &mut out, FlushCompress::Sync)
                .unwrap();
            let consumed = usize::try_from(deflater.total_in() - start).unwrap();
            if consumed == MIB && out.len() < out.capacity() {
                return out;
            }
            out.reserve(MIB);
        }
    };
    let first = deflate_mib(&mut deflater);
    let second = deflate_mib(&mut deflater);
    let third = deflate_mib(&mut deflater);
    assert_eq!(second, third, "the deflater no longer repeats itself");

    let mut crc_mib = Crc::new();
    crc_mib.update(&zeros);
    let mut crc = Crc::new();
    for _ in 0..mebibytes {
        crc.combine(&crc_mib);
    }
    let total = u64::from(mebibytes) * MIB as u64;

    let repeats = usize::try_from(mebibytes - 1).unwrap();
    let mut out = Vec::with_capacity(18 + first.len() + repeats * second.len());
    // Header: magic, deflate, no flags, no time, no extra flags, Unix.
    out.extend_from_slice(&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]);
    out.extend_from_slice(&first);
    for _ in 0..repeats {
        out.extend_from_slice(&second);
    }
    // An empty final block with fixed codes: BFINAL, BTYPE=01, code 256.
    out.extend_from_slice(&[0x03, 0x00]);
    out.extend_from_slice(&crc.sum().to_le_bytes());
    out.extend_from_slice(&u32::try_from(total % (1 << 32)).unwrap().to_le_bytes());
    out
}

#[test]
fn the_gzip_bomb_is_valid_gzip_of_zeros() {
    use std::io::Read;
    let bomb = gzip_bomb(4);
    let mut decoded = Vec::new();
    flate2::read::GzDecoder::new(bomb.as_slice())
        .read_to_end(&mut decoded)
        .unwrap();
    assert_eq!(decoded.len(), 4 << 20);
    assert!(decoded.iter().all(|&b| b == 0));
}
