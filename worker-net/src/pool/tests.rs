//! The pool on its own: keys, bounds, reuse off. Each connection is a real
//! HTTP/1.1 handle over a loopback socket that a listener holds open.

use std::net::SocketAddr;

use tokio::net::{TcpListener, TcpStream};

use super::*;

/// A listener that accepts and holds every connection open.
async fn holding_listener() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            held.push(socket);
        }
    });
    addr
}

async fn conn(addr: SocketAddr) -> Conn {
    #[allow(clippy::disallowed_methods)]
    let tcp = TcpStream::connect(addr).await.unwrap();
    http_handshake(tcp).await.unwrap()
}

fn key(profile: Profile) -> OriginKey {
    OriginKey {
        tls: true,
        host: "search.example".to_owned(),
        port: 443,
        profile,
        via_proxy: false,
    }
}

fn limits(per_origin: u32, total: u32) -> NetPool {
    NetPool {
        idle_per_origin: per_origin,
        idle_total: total,
        idle_secs: 90,
    }
}

// Verifies: REQ-SEC-007 (a kept connection serves only the origin and profile it was judged for)
#[tokio::test]
async fn a_connection_is_never_handed_out_for_another_origin_or_profile() {
    let addr = holding_listener().await;
    let pool = Pool::new(NetPool::default());
    let kept = key(Profile::EngineEndpoint);
    pool.put(kept.clone(), conn(addr).await);
    let others = [
        OriginKey {
            profile: Profile::Agent,
            ..kept.clone()
        },
        OriginKey {
            profile: Profile::Engine,
            ..kept.clone()
        },
        OriginKey {
            tls: false,
            ..kept.clone()
        },
        OriginKey {
            host: "other.example".to_owned(),
            ..kept.clone()
        },
        OriginKey {
            port: 8443,
            ..kept.clone()
        },
        OriginKey {
            via_proxy: true,
            ..kept.clone()
        },
    ];
    for other in &others {
        assert!(pool.take(other).is_none(), "handed out for {other:?}");
    }
    assert_eq!(pool.idle(), 1);
    assert!(pool.take(&kept).is_some());
    assert!(pool.take(&kept).is_none(), "handed out twice");
    assert_eq!(pool.idle(), 0);
}

// Verifies: REQ-SEC-010 (idle connections bounded per origin and in all)
#[tokio::test]
async fn keeps_at_most_its_bounds_per_origin_and_in_all() {
    let addr = holding_listener().await;
    let pool = Pool::new(limits(2, 3));
    for _ in 0..4 {
        pool.put(key(Profile::Engine), conn(addr).await);
    }
    assert_eq!(pool.idle(), 2, "per origin");
    for _ in 0..2 {
        pool.put(key(Profile::Agent), conn(addr).await);
    }
    assert_eq!(pool.idle(), 3, "in all");
    // The one idle longest made room: one engine connection is left.
    assert!(pool.take(&key(Profile::Engine)).is_some());
    assert!(pool.take(&key(Profile::Engine)).is_none());
    assert!(pool.take(&key(Profile::Agent)).is_some());
    assert!(pool.take(&key(Profile::Agent)).is_some());
    assert_eq!(pool.idle(), 0);
}

// Verifies: REQ-CFG-005 (pool_idle_per_origin = 0 keeps nothing)
#[tokio::test]
async fn keeps_nothing_when_reuse_is_off() {
    let addr = holding_listener().await;
    let pool = Pool::new(limits(0, 64));
    pool.put(key(Profile::Engine), conn(addr).await);
    assert_eq!(pool.idle(), 0);
    assert!(pool.take(&key(Profile::Engine)).is_none());
}

// Verifies: REQ-SEC-010 (a connection its peer closed is not kept)
#[tokio::test]
async fn a_connection_its_peer_closed_is_not_handed_out() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let closing = tokio::spawn(async move {
        let (socket, _) = listener.accept().await.unwrap();
        drop(socket);
    });
    let closed = conn(addr).await;
    closing.await.unwrap();
    let pool = Pool::new(NetPool::default());
    // hyper sees the end of the stream once its task has read it.
    for _ in 0..1000 {
        if closed.sender.is_closed() {
            break;
        }
        tokio::task::yield_now().await;
    }
    assert!(closed.sender.is_closed());
    pool.put(key(Profile::Engine), closed);
    assert!(pool.take(&key(Profile::Engine)).is_none());
}

// Verifies: REQ-CFG-005 (pool_idle_secs: an idle connection is closed once its time is over)
#[tokio::test(start_paused = true)]
async fn closes_a_connection_idle_past_its_time() {
    let addr = holding_listener().await;
    let pool = Pool::new(NetPool {
        idle_secs: 8,
        ..NetPool::default()
    });
    pool.put(key(Profile::Engine), conn(addr).await);
    // Lets the sweep start its clock.
    tokio::task::yield_now().await;
    tokio::time::advance(Duration::from_secs(7)).await;
    assert_eq!(pool.idle(), 1, "still within its idle time");
    // The sweep runs every quarter of the idle time.
    tokio::time::advance(Duration::from_secs(3)).await;
    tokio::task::yield_now().await;
    assert_eq!(pool.idle(), 0, "closed without an exchange to prune it");
    assert!(pool.take(&key(Profile::Engine)).is_none());
    // The sweep ended with the pool empty; the next kept connection
    // starts another.
    pool.put(key(Profile::Engine), conn(addr).await);
    tokio::task::yield_now().await;
    tokio::time::advance(Duration::from_secs(11)).await;
    tokio::task::yield_now().await;
    assert_eq!(pool.idle(), 0);
}
