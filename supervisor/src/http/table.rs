//! The connection table: who gives way when it is full (REQ-SEC-018).
//!
//! On a loopback listener every client is 127.0.0.1, so a bound per
//! address cannot tell a flood from the clients it locks out. Capacity goes
//! to connections that prove themselves instead: when the table, or one
//! peer's share of it, is full, the connection that has been idle longest
//! (no request in progress) and has never presented a valid token gives
//! way to the new one, as mature servers shed idle keep-alives under
//! pressure. A connection that presented the token is never shed and no
//! longer counts against its peer's share. A request in progress holds its
//! place; a body is bounded by a minimum rate in the gate.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::OwnedSemaphorePermit;
use tokio_util::sync::CancellationToken;

use super::bounds::{PeerPermit, Streams, peer_key};

/// The places of the open connections.
#[derive(Debug, Default)]
pub(super) struct Table {
    entries: Mutex<HashMap<u64, Entry>>,
    next: AtomicU64,
}

#[derive(Debug)]
struct Entry {
    streams: Arc<Streams>,
    /// Presented a valid token: never shed.
    authenticated: bool,
    /// Given back when the entry goes, or handed to the connection that
    /// takes the place.
    permit: OwnedSemaphorePermit,
    /// `None` once authenticated.
    peer: Option<PeerPermit>,
    evicted: CancellationToken,
}

/// What a connection that gave way leaves to the new one.
pub(super) struct Freed {
    pub(super) permit: OwnedSemaphorePermit,
    pub(super) peer: Option<PeerPermit>,
}

/// One connection's place, given back when dropped.
#[derive(Debug)]
pub(super) struct Place {
    table: Arc<Table>,
    id: u64,
    pub(super) streams: Arc<Streams>,
    /// Cancelled when the connection has to give way.
    pub(super) evicted: CancellationToken,
}

impl Table {
    pub(super) fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    /// Enters a new connection holding these permits.
    /// `peer` is `None` for a trusted proxy, held to no share.
    pub(super) fn enter(
        self: &Arc<Self>,
        permit: OwnedSemaphorePermit,
        peer: Option<PeerPermit>,
    ) -> Place {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let streams = Streams::new();
        let evicted = CancellationToken::new();
        let entry = Entry {
            streams: Arc::clone(&streams),
            authenticated: false,
            permit,
            peer,
            evicted: evicted.clone(),
        };
        lock(&self.entries).insert(id, entry);
        Place {
            table: Arc::clone(self),
            id,
            streams,
            evicted,
        }
    }

    /// Sheds the connection idle longest that never presented a token (of
    /// `peer`'s address when given) and hands over its permits; `None` when
    /// every connection is busy or authenticated.
    pub(super) fn shed(&self, peer: Option<IpAddr>) -> Option<Freed> {
        let key = peer.map(peer_key);
        let mut entries = lock(&self.entries);
        let (&id, _) = entries
            .iter()
            .filter(|(_, e)| !e.authenticated)
            .filter(|(_, e)| key.is_none() || e.peer.as_ref().map(PeerPermit::key) == key)
            .filter_map(|(id, e)| e.streams.idle_since().map(|at| (id, at)))
            .min_by_key(|(_, at)| *at)?;
        let entry = entries.remove(&id)?;
        entry.evicted.cancel();
        Some(Freed {
            permit: entry.permit,
            peer: entry.peer,
        })
    }
}

impl Place {
    /// The connection presented a valid token: it is never shed and no
    /// longer counts against its peer's share.
    pub(super) fn authenticate(&self) {
        if let Some(entry) = lock(&self.table.entries).get_mut(&self.id) {
            entry.authenticated = true;
            entry.peer = None;
        }
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        lock(&self.table.entries).remove(&self.id);
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::bounds::PeerLimit;
    use tokio::sync::Semaphore;

    // Verifies: REQ-SEC-018 (the connection idle longest gives way; a busy or authenticated one never does; a peer's share is shed within that peer)
    #[tokio::test]
    async fn the_connection_idle_longest_gives_way() {
        let table = Table::new();
        let permits = Arc::new(Semaphore::new(8));
        let peers = PeerLimit::new(8);
        let a: IpAddr = [192, 0, 2, 1].into();
        let b: IpAddr = [192, 0, 2, 2].into();
        let enter = |ip| {
            let permit = Arc::clone(&permits).try_acquire_owned().ok();
            let peer = peers.admit(ip);
            permit.zip(peer).map(|(p, q)| table.enter(p, Some(q)))
        };
        let oldest = enter(a).unwrap_or_else(|| unreachable!());
        tokio::time::sleep(std::time::Duration::from_millis(2)).await;
        let busy = enter(a).unwrap_or_else(|| unreachable!());
        let _open = busy.streams.enter();
        let authenticated = enter(b).unwrap_or_else(|| unreachable!());
        authenticated.authenticate();
        assert!(table.shed(Some(b)).is_none());
        let freed = table.shed(Some(a));
        assert!(freed.is_some_and(|f| f.peer.is_some()));
        assert!(oldest.evicted.is_cancelled());
        assert!(!busy.evicted.is_cancelled());
        assert!(table.shed(None).is_none());
        assert!(!authenticated.evicted.is_cancelled());
    }
}
