//! Length-prefixed postcard frames, bounded by LIM-W1.
//!
//! A frame is a 4-byte little-endian length followed by that many bytes of
//! postcard. The length is checked before any allocation, so a peer cannot
//! make the reader reserve more than LIM-W1.

use serde::{Serialize, de::DeserializeOwned};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use crate::limits::FRAME_MAX_BYTES;

/// Read buffer for a stream of frames (one pipe's capacity): the prefix
/// and body of a small frame, and often the next frame's, come in one
/// read instead of one read each.
pub const READ_BUFFER_BYTES: usize = 64 * 1024;

/// Why a frame could not be read or written. Any of these ends the
/// conversation with the peer.
#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    /// The pipe closed at a frame boundary: the peer ended.
    #[error("peer closed the pipe")]
    Closed,
    /// The declared length exceeds LIM-W1.
    #[error("frame of {0} bytes exceeds the frame bound")]
    TooLarge(u64),
    /// The bytes are not a message of the expected type.
    #[error("frame does not decode")]
    Undecodable,
    /// The pipe failed mid-frame.
    #[error("pipe failed: {0}")]
    Io(#[from] std::io::Error),
}

/// Reads one frame and decodes it as `T`.
pub async fn read_frame<T, R>(reader: &mut R) -> Result<T, FrameError>
where
    T: DeserializeOwned,
    R: AsyncRead + Unpin,
{
    let mut prefix = [0u8; 4];
    match reader.read_exact(&mut prefix).await {
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Err(FrameError::Closed),
        Err(e) => return Err(FrameError::Io(e)),
    }
    let len = declared_len(prefix)?;
    let mut buf = vec![0u8; len];
    reader.read_exact(&mut buf).await?;
    decode_body(&buf)
}

/// Decodes one whole frame held in memory: the same checks as
/// [`read_frame`], for the fuzz target and property tests.
pub fn decode_frame<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, FrameError> {
    let (prefix, body) = bytes.split_first_chunk::<4>().ok_or(FrameError::Closed)?;
    if body.len() != declared_len(*prefix)? {
        return Err(FrameError::Undecodable);
    }
    decode_body(body)
}

/// The body length a prefix declares, refused past LIM-W1 before any
/// allocation.
fn declared_len(prefix: [u8; 4]) -> Result<usize, FrameError> {
    let declared = u32::from_le_bytes(prefix);
    match usize::try_from(declared) {
        Ok(len) if len <= FRAME_MAX_BYTES => Ok(len),
        _ => Err(FrameError::TooLarge(u64::from(declared))),
    }
}

fn decode_body<T: DeserializeOwned>(body: &[u8]) -> Result<T, FrameError> {
    postcard::from_bytes(body).map_err(|_| FrameError::Undecodable)
}

/// Encodes `msg` and writes it as one frame, refusing to send more than
/// LIM-W1 (the receiver would refuse it anyway).
pub async fn write_frame<T, W>(writer: &mut W, msg: &T) -> Result<(), FrameError>
where
    T: Serialize,
    W: AsyncWrite + Unpin,
{
    // Encode behind a placeholder prefix so the frame goes out in one write.
    let mut buf = postcard::to_extend(msg, vec![0u8; 4]).map_err(|_| FrameError::Undecodable)?;
    let len = buf.len() - 4;
    if len > FRAME_MAX_BYTES {
        return Err(FrameError::TooLarge(len as u64));
    }
    let prefix = u32::try_from(len).map_err(|_| FrameError::TooLarge(len as u64))?;
    buf[..4].copy_from_slice(&prefix.to_le_bytes());
    writer.write_all(&buf).await?;
    writer.flush().await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::{FromWorker, NetRequest, NetResponse, ToWorker};

    #[tokio::test]
    async fn round_trips_a_frame() {
        let (mut a, mut b) = tokio::io::duplex(1 << 16);
        let msg: ToWorker<NetRequest> = ToWorker::Cancel { id: 7 };
        write_frame(&mut a, &msg).await.unwrap();
        let back: ToWorker<NetRequest> = read_frame(&mut b).await.unwrap();
        assert!(matches!(back, ToWorker::Cancel { id: 7 }));
    }

    // Verifies: REQ-SEC-014 (a peer cannot make the reader allocate past LIM-W1)
    #[tokio::test]
    async fn refuses_a_declared_length_over_the_bound() {
        let (mut a, mut b) = tokio::io::duplex(64);
        let len = u32::try_from(FRAME_MAX_BYTES + 1).unwrap();
        a.write_all(&len.to_le_bytes()).await.unwrap();
        let got: Result<FromWorker<NetResponse>, _> = read_frame(&mut b).await;
        assert!(matches!(got, Err(FrameError::TooLarge(_))));
    }

    // Verifies: REQ-SEC-014 (garbage from a worker is a protocol violation)
    #[tokio::test]
    async fn refuses_bytes_that_do_not_decode() {
        let (mut a, mut b) = tokio::io::duplex(64);
        a.write_all(&3u32.to_le_bytes()).await.unwrap();
        a.write_all(&[0xff, 0xff, 0xff]).await.unwrap();
        let got: Result<FromWorker<NetResponse>, _> = read_frame(&mut b).await;
        assert!(matches!(got, Err(FrameError::Undecodable)));
    }

    #[tokio::test]
    async fn reports_a_clean_close_at_a_frame_boundary() {
        let (a, mut b) = tokio::io::duplex(64);
        drop(a);
        let got: Result<FromWorker<NetResponse>, _> = read_frame(&mut b).await;
        assert!(matches!(got, Err(FrameError::Closed)));
    }
}
