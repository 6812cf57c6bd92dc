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

use std::net::SocketAddr;
use std::time::Duration;

use rypsok_proto::NetFailure;
use rypsok_proto::egress::{AddressVerdict, canonical};
use tokio::net::TcpStream;

/// Connects to the first of `candidates` that accepts within
/// `per_address` (LIM-F6; the caller's overall deadline bounds the whole
/// loop), then judges the connected peer with `judge` before handing the
/// stream out. `candidates` must already have been judged and allowed.
pub(crate) async fn connect_judged<J>(
    candidates: &[SocketAddr],
    per_address: Duration,
    judge: J,
) -> Result<TcpStream, NetFailure>
where
    J: Fn(SocketAddr) -> AddressVerdict,
{
    for &target in candidates {
        // Connect to the canonical form, so that the peer the kernel
        // reports compares equal to what was judged.
        let target = SocketAddr::new(canonical(target.ip()), target.port());
        // The one sanctioned connect of the workspace: `target` was judged.
        #[allow(clippy::disallowed_methods)]
        let connecting = TcpStream::connect(target);
        let stream = match tokio::time::timeout(per_address, connecting).await {
            Ok(Ok(stream)) => stream,
            Ok(Err(_)) | Err(_) => {
                tracing::debug!(
                    event = "connect_failed",
                    "an address did not accept in time"
                );
                continue;
            }
        };
        let peer = stream.peer_addr().map_err(|_| NetFailure::Connect)?;
        verify_peer(target, peer, judge(peer))?;
        // Small requests: do not wait for Nagle before the request head.
        let _ = stream.set_nodelay(true);
        return Ok(stream);
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
    if peer_canonical != judged || !verdict.is_allowed() {
        tracing::info!(
            event = "egress_refused",
            reason = "peer_mismatch",
            verdict = verdict.as_str(),
            "connected peer differs from the judged address; connection dropped"
        );
        return Err(NetFailure::Refused);
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use rypsok_proto::egress::AddressClass;

    use super::*;

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
                Err(NetFailure::Refused),
            ),
            (
                "other port",
                "93.184.215.14:444",
                AddressVerdict::Allowed,
                Err(NetFailure::Refused),
            ),
            (
                "same peer judged refused",
                "93.184.215.14:443",
                AddressVerdict::Refused(AddressClass::Private),
                Err(NetFailure::Refused),
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
        let refused = connect_judged(&[addr], Duration::from_secs(3), move |peer| {
            seen.lock().unwrap().push(peer);
            AddressVerdict::Refused(AddressClass::Loopback)
        })
        .await;
        assert_eq!(refused.err(), Some(NetFailure::Refused));
        assert_eq!(*judged_peers.lock().unwrap(), vec![addr]);

        let allowed = connect_judged(&[addr], Duration::from_secs(3), |_| {
            AddressVerdict::AllowedByRule
        })
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
        let stream = connect_judged(&[closed, open], Duration::from_secs(3), |_| {
            AddressVerdict::AllowedByRule
        })
        .await
        .unwrap();
        assert_eq!(stream.peer_addr().unwrap(), open);

        let none = connect_judged(&[closed], Duration::from_secs(3), |_| {
            AddressVerdict::AllowedByRule
        })
        .await;
        assert_eq!(none.err(), Some(NetFailure::Connect));
    }
}
