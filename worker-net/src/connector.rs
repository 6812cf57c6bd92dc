//! The one place worker-net opens a TCP connection (invariant I3,
//! REQ-SEC-007): to an address the egress policy has just judged, one
//! address at a time, and never used before the connected peer has been
//! judged again.
//!
//! No HTTP client's own connector or resolver hook is involved: those never
//! see literal addresses, and happy-eyeballs connectors may connect to any
//! answer they were given. Here the candidates are exactly the judged
//! addresses, in answer order, and [`verify_peer`] checks the kernel's view
//! of the connection before a single byte is written to it.

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use rypsok_egress::{AddressVerdict, Refusal, canonical};
use rypsok_proto::NetFailure;
use socket2::SockRef;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

/// Connects to the first of `candidates` that accepts and completes
/// `establish` (the TLS handshake, or nothing for plain http) within
/// `per_address` (LIM-F6, handshake included; the caller's overall deadline
/// bounds the whole loop). The connected peer is judged with `judge` before
/// `establish` writes a byte to it. An address that refuses, or does not
/// finish in time, gives way to the next; a refused peer or a failed
/// `establish` ends the attempt with that failure. `candidates` must already
/// have been judged and allowed.
pub(crate) async fn connect_judged<J, E, F, S>(
    candidates: &[SocketAddr],
    per_address: Duration,
    judge: J,
    establish: E,
) -> Result<S, NetFailure>
where
    J: Fn(SocketAddr) -> AddressVerdict,
    E: Fn(TcpStream) -> F,
    F: Future<Output = Result<S, NetFailure>>,
{
    for &target in candidates {
        // Connect to the canonical form, so that the peer the kernel
        // reports compares equal to what was judged.
        let target = SocketAddr::new(canonical(target.ip()), target.port());
        let attempt = async {
            // The one sanctioned connect of the workspace: `target` was judged.
            #[allow(clippy::disallowed_methods)]
            let Ok(stream) = TcpStream::connect(target).await else {
                return Ok(None);
            };
            let peer = stream.peer_addr().map_err(|_| NetFailure::Connect)?;
            verify_peer(target, peer, judge(peer))?;
            // Small requests: do not wait for Nagle before the request head.
            let _ = stream.set_nodelay(true);
            establish(stream).await.map(Some)
        };
        match tokio::time::timeout(per_address, attempt).await {
            Ok(Ok(Some(established))) => return Ok(established),
            Ok(Err(failure)) => return Err(failure),
            Ok(Ok(None)) | Err(_) => {
                tracing::debug!(
                    event = "connect_failed",
                    "an address did not accept in time"
                );
            }
        }
    }
    Err(NetFailure::Connect)
}

/// I3: the connected peer must be the address that was judged, and must
/// pass the policy again. Any difference drops the connection unused.
pub(crate) fn verify_peer(
    judged: SocketAddr,
    peer: SocketAddr,
    verdict: AddressVerdict,
) -> Result<(), NetFailure> {
    let peer_canonical = SocketAddr::new(canonical(peer.ip()), peer.port());
    let refusal = if peer_canonical != judged {
        Some(Refusal::PeerMismatch)
    } else {
        verdict.refusal()
    };
    if let Some(refusal) = refusal {
        tracing::info!(
            event = "egress_refused",
            reason = "peer_mismatch",
            refused = refusal.as_str(),
            verdict = verdict.as_str(),
            "connected peer differs from the judged address; connection dropped"
        );
        return Err(NetFailure::Refused(refusal));
    }
    Ok(())
}

/// A connected TCP stream that acknowledges what it reads at once.
///
/// A kept connection carries one request after another, and Linux then
/// delays each acknowledgement (by up to 40 ms) hoping to send it with
/// data. A server that writes a response head and its body in two writes
/// without `TCP_NODELAY` holds the body back until the head is
/// acknowledged (Nagle), so every answer on a kept connection would wait
/// for the delayed acknowledgement. Setting `TCP_QUICKACK` after each read
/// sends the pending acknowledgement at once; on a new connection the
/// kernel does so by itself.
pub(crate) struct QuickAck(TcpStream);

impl QuickAck {
    pub(crate) fn new(stream: TcpStream) -> Self {
        Self(stream)
    }
}

impl AsyncRead for QuickAck {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.0).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            // Only a latency hint: a failure changes nothing else.
            let _ = SockRef::from(&self.0).set_tcp_quickack(true);
        }
        polled
    }
}

impl AsyncWrite for QuickAck {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.0).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.0).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.0).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.0).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.0.is_write_vectored()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use rypsok_egress::AddressClass;

    use super::*;

    async fn plain(stream: TcpStream) -> Result<TcpStream, NetFailure> {
        Ok(stream)
    }

    fn sa(text: &str) -> SocketAddr {
        text.parse().unwrap()
    }

    // Verifies: REQ-SEC-007
    #[test]
    fn refuses_a_peer_other_than_the_judged_address() {
        let judged = sa("93.184.215.14:443");
        let rows = [
            (
                "same peer",
                "93.184.215.14:443",
                AddressVerdict::Allowed,
                Ok(()),
            ),
            (
                "mapped spelling of the same peer",
                "[::ffff:93.184.215.14]:443",
                AddressVerdict::Allowed,
                Ok(()),
            ),
            (
                "other address",
                "10.0.0.1:443",
                AddressVerdict::Allowed,
                Err(NetFailure::Refused(Refusal::PeerMismatch)),
            ),
            (
                "other port",
                "93.184.215.14:444",
                AddressVerdict::Allowed,
                Err(NetFailure::Refused(Refusal::PeerMismatch)),
            ),
            (
                "same peer judged refused",
                "93.184.215.14:443",
                AddressVerdict::Refused(AddressClass::Private),
                Err(NetFailure::Refused(Refusal::AddressClass(
                    AddressClass::Private,
                ))),
            ),
        ];
        for (row, peer, verdict, want) in rows {
            assert_eq!(verify_peer(judged, sa(peer), verdict), want, "row {row}");
        }
    }

    // Verifies: REQ-SEC-007
    #[tokio::test]
    async fn judges_the_connected_peer_before_handing_the_stream_out() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let accepted = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&accepted);
        tokio::spawn(async move {
            while let Ok((_socket, _)) = listener.accept().await {
                counter.fetch_add(1, Ordering::SeqCst);
            }
        });
        let judged_peers = Arc::new(std::sync::Mutex::new(Vec::new()));
        let seen = Arc::clone(&judged_peers);
        let refused = connect_judged(
            &[addr],
            Duration::from_secs(3),
            move |peer| {
                seen.lock().unwrap().push(peer);
                AddressVerdict::Refused(AddressClass::Loopback)
            },
            plain,
        )
        .await;
        assert_eq!(
            refused.err(),
            Some(NetFailure::Refused(Refusal::AddressClass(
                AddressClass::Loopback
            )))
        );
        assert_eq!(*judged_peers.lock().unwrap(), vec![addr]);

        let allowed = connect_judged(
            &[addr],
            Duration::from_secs(3),
            |_| AddressVerdict::AllowedByRule,
            plain,
        )
        .await;
        assert_eq!(allowed.unwrap().peer_addr().unwrap(), addr);
    }

    // Verifies: REQ-SEC-007
    #[tokio::test]
    async fn tries_each_candidate_in_order_and_reports_connect_when_none_accepts() {
        // A port that was just free: nothing listens there.
        let closed = {
            let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            l.local_addr().unwrap()
        };
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let open = listener.local_addr().unwrap();
        let stream = connect_judged(
            &[closed, open],
            Duration::from_secs(3),
            |_| AddressVerdict::AllowedByRule,
            plain,
        )
        .await
        .unwrap();
        assert_eq!(stream.peer_addr().unwrap(), open);

        let none = connect_judged(
            &[closed],
            Duration::from_secs(3),
            |_| AddressVerdict::AllowedByRule,
            plain,
        )
        .await;
        assert_eq!(none.err(), Some(NetFailure::Connect));
    }

    // Verifies: REQ-SEC-011
    #[tokio::test]
    async fn a_handshake_that_does_not_finish_in_time_gives_way_to_the_next_address() {
        // Two listeners that accept: the first peer's "handshake" never
        // ends, the second's ends at once. LIM-F6 bounds each address with
        // its handshake, so the second is reached after one period.
        let slow = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let fast = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let (slow_addr, fast_addr) = (slow.local_addr().unwrap(), fast.local_addr().unwrap());
        let per_address = Duration::from_millis(200);
        let started = std::time::Instant::now();
        let stream = connect_judged(
            &[slow_addr, fast_addr],
            per_address,
            |_| AddressVerdict::AllowedByRule,
            |stream: TcpStream| async move {
                if stream.peer_addr().unwrap() == slow_addr {
                    std::future::pending::<()>().await;
                }
                Ok(stream)
            },
        )
        .await
        .unwrap();
        assert_eq!(stream.peer_addr().unwrap(), fast_addr);
        assert!(started.elapsed() >= per_address);

        let none = connect_judged(
            &[slow_addr],
            per_address,
            |_| AddressVerdict::AllowedByRule,
            |_stream: TcpStream| std::future::pending::<Result<TcpStream, NetFailure>>(),
        )
        .await;
        assert_eq!(none.err(), Some(NetFailure::Connect));
        drop((slow, fast));
    }
}
