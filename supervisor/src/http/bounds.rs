//! What one connection and one peer may hold of the listener (REQ-SEC-018):
//! an HTTP/2 connection with no open stream is closed after LIM-H3, one
//! that sends SETTINGS or PING frames past LIM-H8 is told to go away, and
//! one peer address holds at most a quarter of LIM-H1.
//!
//! hyper's HTTP/2 server has keep-alive pings, a stream bound and a header
//! list bound, which the listener sets, but neither an idle timeout nor a
//! header timeout: a peer that sends the preface and a SETTINGS frame, or a
//! HEADERS frame without END_HEADERS, holds its connection for ever. hyper
//! calls the service only once a request's headers are complete, so a
//! connection on which no service call is running has no request the gate
//! knows of: the timer here closes it (GOAWAY, then the socket) once that
//! has lasted LIM-H3. A request whose body is slow is bounded by LIM-H5 in
//! the gate, and a response stream by LIM-H4.

use std::collections::HashMap;
use std::future::Future;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rypsok_proto::limits;
use tokio::sync::Notify;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

/// How long a connection that was told to go away (GOAWAY) may take to
/// close before it is dropped.
const GOAWAY_GRACE: Duration = Duration::from_secs(1);

/// The requests a connection is serving, and since when it serves none.
#[derive(Debug)]
pub(super) struct Streams {
    open: AtomicUsize,
    idle_since: Mutex<Instant>,
    changed: Notify,
    /// Set once the peer sent control frames past LIM-H8.
    flooded: AtomicBool,
    /// Set once an HTTP/1 request head came slower than LIM-H9.
    slow_head: AtomicBool,
}

impl Streams {
    /// A connection that has served nothing yet, from now.
    pub(super) fn new() -> Arc<Self> {
        Arc::new(Self {
            open: AtomicUsize::new(0),
            idle_since: Mutex::new(Instant::now()),
            changed: Notify::new(),
            flooded: AtomicBool::new(false),
            slow_head: AtomicBool::new(false),
        })
    }

    /// Whether a request head came slower than LIM-H9 (`HeadPace`).
    pub(super) fn head_was_slow(&self) -> bool {
        self.slow_head.load(Ordering::Acquire)
    }

    /// Counts one request as open until the guard is dropped (its response
    /// body ended or was dropped).
    pub(super) fn enter(self: &Arc<Self>) -> StreamGuard {
        self.open.fetch_add(1, Ordering::AcqRel);
        self.changed.notify_one();
        StreamGuard(Arc::clone(self))
    }

    /// Since when the connection serves nothing, if it serves nothing now.
    pub(super) fn idle_since(&self) -> Option<Instant> {
        (self.open.load(Ordering::Acquire) == 0).then(|| *lock(&self.idle_since))
    }

    /// When the connection becomes idle too long, if it serves nothing now.
    fn idle_deadline(&self, bound: Duration) -> Option<Instant> {
        (self.open.load(Ordering::Acquire) == 0).then(|| *lock(&self.idle_since) + bound)
    }
}

/// One request a connection is serving.
#[derive(Debug)]
pub(super) struct StreamGuard(Arc<Streams>);

impl Drop for StreamGuard {
    fn drop(&mut self) {
        if self.0.open.fetch_sub(1, Ordering::AcqRel) == 1 {
            *lock(&self.0.idle_since) = Instant::now();
        }
        self.0.changed.notify_one();
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// How an HTTP/2 connection ended.
pub(super) enum Ended {
    /// On its own, or after a shutdown for draining.
    Done(Result<(), hyper::Error>),
    /// Closed by the listener: no open stream for the idle bound.
    Idle,
    /// Closed by the listener: control frames past LIM-H8.
    Flooded,
}

/// Runs an HTTP/2 connection to its end; closes it once it has had no
/// open stream for `idle` (from its start, or from its last request's
/// end); once draining, asks it to finish what it has and take no more.
pub(super) async fn drive_h2<C>(
    conn: C,
    streams: &Streams,
    idle: Duration,
    draining: &CancellationToken,
    shutdown: impl Fn(Pin<&mut C>),
) -> Ended
where
    C: Future<Output = Result<(), hyper::Error>>,
{
    let mut conn = std::pin::pin!(conn);
    loop {
        if streams.flooded.load(Ordering::Acquire) {
            shutdown(conn.as_mut());
            let _ = tokio::time::timeout(GOAWAY_GRACE, conn.as_mut()).await;
            return Ended::Flooded;
        }
        let deadline = streams.idle_deadline(idle);
        let sleep = async {
            match deadline {
                Some(at) => tokio::time::sleep_until(at).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            result = conn.as_mut() => return Ended::Done(result),
            () = draining.cancelled() => {
                shutdown(conn.as_mut());
                return Ended::Done(conn.await);
            }
            () = streams.changed.notified() => {}
            () = sleep => {
                if streams.idle_deadline(idle).is_some_and(|at| at <= Instant::now()) {
                    shutdown(conn.as_mut());
                    let _ = tokio::time::timeout(GOAWAY_GRACE, conn.as_mut()).await;
                    return Ended::Idle;
                }
            }
        }
    }
}

/// SETTINGS and PING frames (acknowledgements not counted) an HTTP/2
/// connection sends, read from its bytes as they arrive: hyper and h2 answer
/// each one, and have no bound on how many (h2 bounds resets only). Past
/// LIM-H8 within one second the connection is marked flooded: `drive_h2`
/// sends GOAWAY and closes it, and nothing more of it is read.
#[derive(Debug)]
pub(super) struct ControlFrames {
    streams: Arc<Streams>,
    /// The frame header being read, and how much of it is here.
    header: [u8; 9],
    have: usize,
    /// Payload bytes of the current frame still to pass.
    skip: usize,
    window_start: Instant,
    in_window: u32,
}

/// Frame types that each ask for an answer (RFC 9113 §6.5, §6.7).
const SETTINGS: u8 = 0x4;
const PING: u8 = 0x6;
/// Their ACK flag: an acknowledgement asks for nothing.
const ACK: u8 = 0x1;

impl ControlFrames {
    /// Watches the frames that follow the connection preface.
    pub(super) fn new(streams: &Arc<Streams>) -> Self {
        Self {
            streams: Arc::clone(streams),
            header: [0; 9],
            have: 0,
            skip: 0,
            window_start: Instant::now(),
            in_window: 0,
        }
    }

    /// Whether the connection is marked flooded.
    pub(super) fn is_flooded(&self) -> bool {
        self.streams.flooded.load(Ordering::Acquire)
    }

    /// Reads frame headers out of bytes just received.
    pub(super) fn observe(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            if self.skip > 0 {
                let n = self.skip.min(bytes.len());
                self.skip -= n;
                bytes = &bytes[n..];
                continue;
            }
            let n = (self.header.len() - self.have).min(bytes.len());
            self.header[self.have..self.have + n].copy_from_slice(&bytes[..n]);
            self.have += n;
            bytes = &bytes[n..];
            if self.have == self.header.len() {
                self.have = 0;
                let h = self.header;
                self.skip = usize::from(h[0]) << 16 | usize::from(h[1]) << 8 | usize::from(h[2]);
                if matches!(h[3], SETTINGS | PING) && h[4] & ACK == 0 {
                    self.count_one(Instant::now());
                }
            }
        }
    }

    fn count_one(&mut self, now: Instant) {
        if now.duration_since(self.window_start) >= Duration::from_secs(1) {
            self.window_start = now;
            self.in_window = 0;
        }
        self.in_window += 1;
        if self.in_window > limits::HTTP2_CONTROL_FRAMES_PER_S
            && !self.streams.flooded.swap(true, Ordering::AcqRel)
        {
            self.streams.changed.notify_one();
        }
    }
}

/// LIM-H9 for an HTTP/1 request head: from the first byte of a head (read
/// while the connection serves no request), the head must keep coming at
/// LIM-H9 after a grace of LIM-H3, or the read fails and hyper closes the
/// connection (counted as `header_timeout`). hyper's own header timeout
/// (LIM-H5) bounds the whole head, but a head trickled a byte at a time
/// would hold its connection, and its place in the table, for all of it.
/// HTTP/2 needs none: a connection whose heads are not complete has no
/// open stream, and is closed after LIM-H3 (`drive_h2`).
#[derive(Debug)]
pub(super) struct HeadPace {
    streams: Arc<Streams>,
    /// When the head being read began, and its bytes so far.
    started: Option<Instant>,
    bytes: u64,
    due: Pin<Box<tokio::time::Sleep>>,
}

impl HeadPace {
    /// A head that began at `started` with `bytes` already read (the ones
    /// the listener read to learn the protocol).
    pub(super) fn new(streams: &Arc<Streams>, started: Instant, bytes: usize) -> Self {
        let mut pace = Self {
            streams: Arc::clone(streams),
            started: None,
            bytes: 0,
            due: Box::pin(tokio::time::sleep_until(started)),
        };
        pace.observe_at(bytes, started);
        pace
    }

    /// Counts bytes just read: part of a head only while the connection
    /// serves no request and has not since the head began.
    pub(super) fn observe(&mut self, bytes: usize) {
        self.observe_at(bytes, Instant::now());
    }

    fn observe_at(&mut self, bytes: usize, now: Instant) {
        self.forget_served();
        if bytes == 0 || self.streams.idle_since().is_none() {
            return;
        }
        let started = *self.started.get_or_insert(now);
        self.bytes = self
            .bytes
            .saturating_add(u64::try_from(bytes).unwrap_or(u64::MAX));
        let earned = Duration::from_millis(
            self.bytes.saturating_mul(1000) / limits::HTTP_BODY_MIN_BYTES_PER_S,
        );
        let grace = Duration::from_millis(limits::HTTP_PROTOCOL_WAIT_MS);
        self.due.as_mut().reset(started + grace + earned);
    }

    /// Whether the head being read is past its due time; registers a
    /// wake-up for that time otherwise. Marks the connection once it is.
    pub(super) fn poll_late(&mut self, cx: &mut std::task::Context<'_>) -> bool {
        self.forget_served();
        if self.started.is_none() || self.due.as_mut().poll(cx).is_pending() {
            return false;
        }
        self.streams.slow_head.store(true, Ordering::Release);
        true
    }

    /// A head that led to a request is done with: the next bytes after
    /// that request's end begin a new one.
    fn forget_served(&mut self) {
        let served = match (self.started, self.streams.idle_since()) {
            (Some(_), None) => true,
            (Some(started), Some(idle)) => idle > started,
            (None, _) => false,
        };
        if served {
            self.started = None;
            self.bytes = 0;
        }
    }
}

/// Connections held per peer: at most a quarter of LIM-H1 each (at least
/// one), so that one source cannot take every place. An IPv6 peer is
/// counted by its /64, the block one host is usually given; an
/// IPv4-mapped address as the IPv4 address.
#[derive(Debug)]
pub(super) struct PeerLimit {
    max: usize,
    held: Mutex<HashMap<IpAddr, usize>>,
}

impl PeerLimit {
    pub(super) fn new(connections: usize) -> Arc<Self> {
        Arc::new(Self {
            max: (connections / 4).max(1),
            held: Mutex::new(HashMap::new()),
        })
    }

    /// A place for one more connection of `peer`, or `None` when it holds
    /// its share.
    pub(super) fn admit(self: &Arc<Self>, peer: IpAddr) -> Option<PeerPermit> {
        let key = peer_key(peer);
        let mut held = lock(&self.held);
        let n = held.entry(key).or_insert(0);
        if *n >= self.max {
            return None;
        }
        *n += 1;
        Some(PeerPermit {
            limit: Arc::clone(self),
            key,
        })
    }
}

/// The address a peer is counted under.
pub(super) fn peer_key(peer: IpAddr) -> IpAddr {
    match peer {
        IpAddr::V4(v4) => IpAddr::V4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let s = v6.segments();
                IpAddr::V6(std::net::Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
            }
        },
    }
}

/// One connection of a peer, given back when dropped.
#[derive(Debug)]
pub(super) struct PeerPermit {
    limit: Arc<PeerLimit>,
    key: IpAddr,
}

impl PeerPermit {
    /// The address the connection is counted under.
    pub(super) fn key(&self) -> IpAddr {
        self.key
    }
}

impl Drop for PeerPermit {
    fn drop(&mut self) {
        let mut held = lock(&self.limit.held);
        if let Some(n) = held.get_mut(&self.key) {
            *n -= 1;
            if *n == 0 {
                held.remove(&self.key);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(kind: u8, flags: u8, payload: &[u8]) -> Vec<u8> {
        let n = u32::try_from(payload.len()).unwrap_or(0);
        let mut f = n.to_be_bytes()[1..].to_vec();
        f.extend_from_slice(&[kind, flags, 0, 0, 0, 0]);
        f.extend_from_slice(payload);
        f
    }

    // Verifies: REQ-SEC-018 (SETTINGS and PING frames past LIM-H8 in a second mark the connection flooded; acknowledgements and other frames do not count, however they are split)
    #[tokio::test]
    async fn control_frames_past_the_rate_mark_a_flood() {
        let streams = Streams::new();
        let mut watch = ControlFrames::new(&streams);
        let max = limits::HTTP2_CONTROL_FRAMES_PER_S as usize;
        let mut calm = Vec::new();
        for _ in 0..max * 3 {
            calm.extend(frame(PING, ACK, &[0; 8]));
            calm.extend(frame(0x0, 0, &[6; 40]));
            calm.extend(frame(SETTINGS, ACK, &[]));
        }
        calm.extend(frame(SETTINGS, 0, &[0; 6]));
        for chunk in calm.chunks(7) {
            watch.observe(chunk);
        }
        assert!(!watch.is_flooded());
        let mut pings = Vec::new();
        for _ in 0..max {
            pings.extend(frame(PING, 0, &[1; 8]));
        }
        for chunk in pings.chunks(5) {
            watch.observe(chunk);
        }
        assert!(watch.is_flooded());
    }

    // Verifies: REQ-SEC-018 (one peer holds at most a quarter of LIM-H1; an IPv6 peer is counted by its /64)
    #[test]
    fn a_peer_holds_at_most_a_quarter_of_the_connections() {
        let limit = PeerLimit::new(8);
        let a: IpAddr = "192.0.2.1".parse().unwrap_or(IpAddr::from([0; 4]));
        let held: Vec<PeerPermit> = (0..2).filter_map(|_| limit.admit(a)).collect();
        assert_eq!(held.len(), 2);
        assert!(limit.admit(a).is_none());
        assert!(limit.admit("192.0.2.2".parse().unwrap_or(a)).is_some());
        drop(held);
        assert!(limit.admit(a).is_some());
        let v6 = |s: &str| s.parse::<IpAddr>().unwrap_or(a);
        let one = limit.admit(v6("2001:db8::1"));
        let two = limit.admit(v6("2001:db8::2"));
        assert!(one.is_some() && two.is_some());
        assert!(limit.admit(v6("2001:db8::ffff:1")).is_none());
        assert!(limit.admit(v6("2001:db8:0:1::1")).is_some());
        let _mapped = limit.admit(v6("::ffff:192.0.2.9"));
        let _mapped2 = limit.admit(v6("::ffff:192.0.2.9"));
        assert!(limit.admit("192.0.2.9".parse().unwrap_or(a)).is_none());
    }
}
