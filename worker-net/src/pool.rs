//! Connections: the HTTP/1.1 handshake on a socket [`crate::connector`]
//! opened, and the idle connections worker-net keeps for the next exchange
//! to the same origin (`[limits] pool_idle_per_origin`,
//! `pool_idle_total`, `pool_idle_secs`).
//!
//! A connection is keyed by everything that was judged when it was opened:
//! scheme, host as the URL names it, port, the exchange's [`Profile`], and
//! whether it goes through the operator's proxy. It is handed out again only
//! for an exchange with the same key, so the peer that was judged and
//! verified at connect time (I3) is still the peer: a connection opened for
//! an engine endpoint under [`Profile::EngineEndpoint`] never serves an
//! agent's fetch of the same host, and one opened through the proxy never
//! serves a direct exchange. Only a connection whose response was read to
//! its end and that the server keeps alive comes back here
//! ([`mod@crate::exchange`] decides); one that saw an error, a body cut at its
//! bound or left unread, or `Connection: close` is dropped, which aborts
//! its task and closes its socket.
//!
//! Why hyper's bare `client::conn` handles and not hyper-util's pooled
//! `Client`: that client resolves and connects through its own connector
//! and keys its pool by scheme and authority only. Here every connection
//! is still opened by [`crate::connector::connect_judged`], which judges
//! each address and the connected peer, and the key carries the profile.
//! The pool is a map of `SendRequest` handles, nothing more; it lives in
//! worker-net's process, so a replaced worker-net takes its connections
//! with it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::Empty;
use rypsok_proto::{NetPool, Profile};
use tokio::time::Instant;

use hyper::client::conn::http1;
use hyper_util::rt::TokioIo;
use rypsok_proto::NetFailure;
use tokio::io::{AsyncRead, AsyncWrite};

/// Header fields a response head may have at all; more is
/// [`NetFailure::Protocol`].
pub(crate) const MAX_WIRE_HEADERS: usize = 100;
/// The HTTP layer's read buffer, which bounds the response head: a head
/// still incomplete once this much is buffered is [`NetFailure::Protocol`]
/// (hyper checks between reads, so a head that arrives whole in the last
/// read may be up to twice this).
pub(crate) const MAX_RESPONSE_HEAD_BYTES: usize = 64 * 1024;

/// What a kept connection was opened and judged for.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct OriginKey {
    pub(crate) tls: bool,
    /// The host as the URL names it: a normalised name or an address.
    pub(crate) host: String,
    pub(crate) port: u16,
    pub(crate) profile: Profile,
    /// Through `[egress] proxy` (there is one proxy per worker-net).
    pub(crate) via_proxy: bool,
}

/// One HTTP/1.1 connection: the handle requests are sent on, and the task
/// that drives the socket (aborted, and the socket closed, on drop).
pub(crate) struct Conn {
    pub(crate) sender: http1::SendRequest<Empty<Bytes>>,
    pub(crate) _task: AbortOnDrop,
}

struct Idle {
    conn: Conn,
    since: Instant,
}

#[derive(Default)]
struct Inner {
    idle: HashMap<OriginKey, Vec<Idle>>,
    total: usize,
    /// Whether a task is running that closes connections past their idle
    /// time (one per pool, and only while the pool holds any).
    sweeping: bool,
}

impl Inner {
    /// Drops every connection idle for `timeout` or closed by its peer.
    fn prune(&mut self, timeout: Duration) {
        let mut dropped = 0;
        self.idle.retain(|_, list| {
            let before = list.len();
            list.retain(|idle| idle.since.elapsed() < timeout && !idle.conn.sender.is_closed());
            dropped += before - list.len();
            !list.is_empty()
        });
        self.total -= dropped;
    }

    /// Drops the connection idle longest, of any origin.
    fn evict_oldest(&mut self) {
        let oldest = self
            .idle
            .iter()
            .filter_map(|(key, list)| list.first().map(|idle| (idle.since, key.clone())))
            .min_by_key(|(since, _)| *since)
            .map(|(_, key)| key);
        if let Some(key) = oldest {
            self.remove_first(&key);
        }
    }

    fn remove_first(&mut self, key: &OriginKey) {
        if let Some(list) = self.idle.get_mut(key) {
            list.remove(0);
            self.total -= 1;
            if list.is_empty() {
                self.idle.remove(key);
            }
        }
    }
}

/// Aborts a connection's task when its owner lets go of it: an exchange
/// that ends without keeping it (bound, error, deadline, cancellation), the
/// pool closing an idle one, or worker-net's end. No socket outlives them.
pub(crate) struct AbortOnDrop(pub(crate) tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Starts HTTP/1.1 on `io`; the connection's task runs until the
/// returned [`Conn`] is dropped.
pub(crate) async fn http_handshake<S>(io: S) -> Result<Conn, NetFailure>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let (sender, connection) = http1::Builder::new()
        .max_headers(MAX_WIRE_HEADERS)
        .max_buf_size(MAX_RESPONSE_HEAD_BYTES)
        .handshake(TokioIo::new(io))
        .await
        .map_err(|_| NetFailure::Protocol)?;
    let task = AbortOnDrop(tokio::spawn(async move {
        // Its errors surface through the response future.
        let _ = connection.await;
    }));
    Ok(Conn {
        sender,
        _task: task,
    })
}

/// The idle connections of one worker-net, bounded per origin and in all.
#[derive(Clone)]
pub(crate) struct Pool {
    per_origin: usize,
    total: usize,
    timeout: Duration,
    inner: Arc<Mutex<Inner>>,
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool")
            .field("per_origin", &self.per_origin)
            .field("total", &self.total)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl Pool {
    pub(crate) fn new(limits: NetPool) -> Self {
        Self {
            per_origin: usize::try_from(limits.idle_per_origin).unwrap_or(0),
            total: usize::try_from(limits.idle_total).unwrap_or(0),
            timeout: Duration::from_secs(limits.idle_secs.into()),
            inner: Arc::default(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The most recently kept connection for `key` that is still open, if
    /// any. The caller waits for it to be ready and drops it if it is not.
    pub(crate) fn take(&self, key: &OriginKey) -> Option<Conn> {
        if self.per_origin == 0 {
            return None;
        }
        let mut inner = self.lock();
        inner.prune(self.timeout);
        let list = inner.idle.get_mut(key)?;
        let idle = list.pop()?;
        if list.is_empty() {
            inner.idle.remove(key);
        }
        inner.total -= 1;
        Some(idle.conn)
    }

    /// Keeps `conn` for the next exchange with `key`, unless reuse is off
    /// or the peer closed it. Past the per-origin bound the oldest of that
    /// origin is closed; past the total bound, the oldest of all.
    pub(crate) fn put(&self, key: OriginKey, conn: Conn) {
        if self.per_origin == 0 || self.total == 0 || conn.sender.is_closed() {
            return;
        }
        let mut inner = self.lock();
        inner.prune(self.timeout);
        if inner
            .idle
            .get(&key)
            .is_some_and(|l| l.len() >= self.per_origin)
        {
            inner.remove_first(&key);
        }
        while inner.total >= self.total && inner.total > 0 {
            inner.evict_oldest();
        }
        inner.idle.entry(key).or_default().push(Idle {
            conn,
            since: Instant::now(),
        });
        inner.total += 1;
        if !inner.sweeping {
            inner.sweeping = true;
            self.sweep();
        }
    }

    /// Closes idle connections once their idle time is over, even when no
    /// exchange comes to prune the pool: every quarter of the idle time, so
    /// a connection outlives it by a quarter at most. The task ends when
    /// the pool is empty (the next kept connection starts another) or gone.
    fn sweep(&self) {
        let weak = Arc::downgrade(&self.inner);
        let timeout = self.timeout;
        let period = (timeout / 4).max(Duration::from_secs(1));
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(period).await;
                let Some(inner) = weak.upgrade() else { return };
                let mut inner = inner.lock().unwrap_or_else(PoisonError::into_inner);
                inner.prune(timeout);
                if inner.total == 0 {
                    inner.sweeping = false;
                    return;
                }
            }
        });
    }

    /// Idle connections kept, in all.
    #[cfg(test)]
    pub(crate) fn idle(&self) -> usize {
        self.lock().total
    }
}

#[cfg(test)]
mod tests;
