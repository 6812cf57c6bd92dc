//! A new connection's stream, given to hyper after the listener read its
//! first bytes to learn its protocol (REQ-SEC-018): those bytes come
//! first, then the socket's; on HTTP/2 the control frames that follow are
//! watched (`bounds::ControlFrames`).

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

use super::bounds::{ControlFrames, HeadPace};

/// A stream that first yields the bytes the listener already read, and on
/// HTTP/2 watches the control frames that follow, on HTTP/1 the pace of
/// each request head (`bounds`).
pub(super) struct Rewind {
    pub(super) seen: Bytes,
    pub(super) stream: TcpStream,
    pub(super) watch: Watch,
}

/// What is watched in the bytes that follow, by protocol.
pub(super) enum Watch {
    Http1(HeadPace),
    Http2(ControlFrames),
}

impl AsyncRead for Rewind {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if !this.seen.is_empty() {
            let n = this.seen.len().min(buf.remaining());
            buf.put_slice(&this.seen.split_to(n));
            return Poll::Ready(Ok(()));
        }
        let control = match &mut this.watch {
            Watch::Http2(control) => control,
            Watch::Http1(pace) => {
                if pace.poll_late(cx) {
                    return Poll::Ready(Err(io::ErrorKind::TimedOut.into()));
                }
                let before = buf.filled().len();
                let polled = Pin::new(&mut this.stream).poll_read(cx, buf);
                if let Poll::Ready(Ok(())) = polled {
                    pace.observe(buf.filled().len() - before);
                }
                return polled;
            }
        };
        if control.is_flooded() {
            // Nothing more of a flooding peer is read: the connection
            // sends its GOAWAY and is dropped within the grace
            // (`bounds::drive_h2`), which needs no wake-up from here.
            return Poll::Pending;
        }
        let before = buf.filled().len();
        let polled = Pin::new(&mut this.stream).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = polled {
            control.observe(&buf.filled()[before..]);
        }
        polled
    }
}

impl AsyncWrite for Rewind {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}
