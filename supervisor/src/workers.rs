//! Worker supervision: start, talk to, watch, kill and replace the worker
//! processes, and the process-backed [`NetPort`] and [`ParsePort`].
//!
//! Each worker is this same binary re-executed with a hidden subcommand,
//! its environment emptied (no secret reaches a worker) and its stdin and
//! stdout as the two pipes of the frame protocol; its stderr is a third
//! pipe whose lines the supervisor relays, re-tagged (`relay`).
//! A worker that exits, sends a frame that does not decode, or misses the
//! deadline of a request it holds is killed; its pending calls fail at once
//! and the next call starts a replacement, with backoff when it keeps dying.
//! How a worker ended (its exit code, or the signal that killed it: SIGSYS
//! from seccomp, SIGABRT from a failed allocation at its memory limit) is
//! logged once it is reaped.
//!
//! Each worker reports in its hello the confinement it achieved; a worker
//! missing a layer that `[sandbox]` requires is refused, and the slot
//! stays refused (the kernel will not grow the layer): its calls answer
//! unavailable, and one log line says why.

use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rypsok_core::PortFuture;

use crate::metrics::KillCause;
use rypsok_core::ports::{Document, EngineResponse, ExchangeError, robots_request};
use rypsok_core::{NetPort, ParsePort, PortError};
use rypsok_proto::{
    Confinement, EngineParse, ExchangeRequest, ExchangeResponse, FrameError, FromWorker,
    LandlockLevel, LogLevel, NetInit, NetRequest, NetResponse, PageParse, ParseRequest,
    ParseResponse, READ_BUFFER_BYTES, RobotsRules, SeccompLevel, ToWorker, WorkerKind, read_frame,
    write_frame,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use tokio::sync::{Semaphore, mpsc, oneshot};
use tokio::time::{Instant, timeout, timeout_at};

/// Time a new worker has to say hello. A worker is up in about 10 ms; the
/// bound stays well below a search's deadline, so a worker that hangs
/// before its hello fails its start (and counts towards backoff) rather
/// than being abandoned, unrecorded, by every call that waits for it.
const HELLO_TIMEOUT: Duration = Duration::from_secs(1);
/// Deaths within this window count towards backoff: after this long
/// without a death, a kill restarts its worker at once again.
const DEATH_WINDOW: Duration = Duration::from_secs(10);
/// Deaths in the window before restarts are delayed: a single kill after
/// a quiet period restarts at once.
const DEATHS_BEFORE_BACKOFF: usize = 3;
/// The first delay once restarts are delayed; each further death in the
/// window doubles it, up to [`MAX_BACKOFF`].
const FIRST_BACKOFF: Duration = Duration::from_millis(250);
/// Longest delay between restarts of a worker that keeps dying. A worker
/// starts in about 10 ms, so even a worker that dies at once costs little
/// at this pace, while a storm of kills from outside leaves the tools
/// working again within this long of the last one.
const MAX_BACKOFF: Duration = Duration::from_secs(2);

/// How long to wait before the next start of a worker that died `deaths`
/// times within [`DEATH_WINDOW`], if at all.
fn restart_delay(deaths: usize) -> Option<Duration> {
    let beyond = deaths.checked_sub(DEATHS_BEFORE_BACKOFF)?;
    let exponent = u32::try_from(beyond).unwrap_or(u32::MAX).min(8);
    Some((FIRST_BACKOFF * 2u32.pow(exponent)).min(MAX_BACKOFF))
}

/// How to start one kind of worker.
#[derive(Debug, Clone)]
pub(crate) struct WorkerSpec {
    pub(crate) kind: WorkerKind,
    pub(crate) exe: PathBuf,
    pub(crate) log_level: LogLevel,
    /// worker-net's init frame; worker-parse has none.
    pub(crate) net_init: Option<NetInit>,
    /// The confinement layers a worker must have achieved to serve.
    pub(crate) sandbox: SandboxRequirements,
    /// Start the worker with test-only probes armed (`RYPSOK_TEST_PROBES`).
    pub(crate) probes: bool,
}

/// `[sandbox]`: the layers without which a worker is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SandboxRequirements {
    /// `require_seccomp` (default true).
    pub(crate) seccomp: bool,
    /// `require_landlock` (default false): a kernel without Landlock is
    /// otherwise reported and tolerated. A partial ruleset (an older ABI)
    /// is always tolerated.
    pub(crate) landlock: bool,
}

impl SandboxRequirements {
    /// Why a worker with this confinement may not serve, if it may not.
    pub(crate) fn refusal(self, c: &Confinement) -> Option<&'static str> {
        // Under the default strictness the basic layers are required too:
        // without them a seccomp filter confines a worker that may still
        // hold what it inherited.
        if self.seccomp && !(c.no_new_privs && c.descriptors_closed && c.rlimits) {
            return Some(
                "the worker could not set no_new_privs, close inherited descriptors or set its limits, and [sandbox] require_seccomp is true",
            );
        }
        if self.seccomp && c.seccomp != SeccompLevel::Applied {
            return Some(
                "the worker could not install its seccomp filter and [sandbox] require_seccomp is true",
            );
        }
        if self.landlock && c.landlock == LandlockLevel::Unavailable {
            return Some("the kernel offers no Landlock and [sandbox] require_landlock is true");
        }
        None
    }
}

/// Why a worker could not be started.
#[derive(Debug)]
enum StartError {
    /// Spawning or the handshake failed; a later attempt may succeed.
    Failed(String),
    /// The worker lacks a confinement layer the configuration requires.
    Refused(&'static str),
}

/// Logs how a reaped worker ended: an exit code, or the signal that killed
/// it (SIGSYS: seccomp; SIGABRT: an abort, such as a failed allocation at
/// the memory limit; SIGKILL: the supervisor, or the kernel's OOM killer).
fn log_exit(kind: WorkerKind, pid: u32, status: std::io::Result<ExitStatus>) {
    use std::os::unix::process::ExitStatusExt as _;
    let Ok(status) = status else { return };
    let signal = status
        .signal()
        .map(|n| nix::sys::signal::Signal::try_from(n).map_or("unknown", |s| s.as_str()));
    let cause = match signal {
        Some("SIGSYS") => "seccomp",
        Some("SIGABRT") => "abort",
        Some("SIGKILL") => "killed",
        Some("SIGSEGV" | "SIGBUS") => "crash",
        Some(_) => "signal",
        None => "exit",
    };
    tracing::warn!(
        event = "worker_exited",
        worker = kind.as_str(),
        pid,
        signal = signal.unwrap_or("none"),
        exit_code = status.code().unwrap_or(-1),
        cause,
        "worker process reaped"
    );
    if let Some(metrics) = crate::metrics::get() {
        metrics.worker_exited(kind, cause);
    }
}

/// The request and answer types of one kind of worker.
pub(crate) trait Protocol: Send + Sync + 'static {
    type Request: Serialize + Send + Sync + 'static;
    type Answer: DeserializeOwned + Send + 'static;
    /// Whether a cancelled request can be stopped inside the worker
    /// (worker-net aborts the task). A parser computing on a request cannot
    /// be interrupted, so cancelling it means killing the process.
    const CANCEL_IN_PLACE: bool;
}

pub(crate) struct Net;
impl Protocol for Net {
    type Request = NetRequest;
    type Answer = NetResponse;
    const CANCEL_IN_PLACE: bool = true;
}

pub(crate) struct Parse;
impl Protocol for Parse {
    type Request = ParseRequest;
    type Answer = ParseResponse;
    const CANCEL_IN_PLACE: bool = false;
}

/// Spawns children from one long-lived thread. The parent-death signal a
/// worker sets is tied to the thread that forked it, so forking from a
/// runtime thread that may later exit would kill a healthy worker.
#[derive(Debug, Clone)]
pub(crate) struct Spawner {
    tx: std::sync::mpsc::Sender<(Command, oneshot::Sender<std::io::Result<Child>>)>,
}

impl Spawner {
    pub(crate) fn start() -> std::io::Result<Self> {
        let (tx, rx) =
            std::sync::mpsc::channel::<(Command, oneshot::Sender<std::io::Result<Child>>)>();
        std::thread::Builder::new()
            .name("rypsok-spawner".to_owned())
            .spawn(move || {
                while let Ok((mut cmd, reply)) = rx.recv() {
                    // A caller that gave up meanwhile leaves the child to us.
                    if let Err(Ok(mut child)) = reply.send(cmd.spawn()) {
                        let _ = child.kill();
                        let _ = child.wait();
                    }
                }
            })?;
        Ok(Self { tx })
    }

    async fn spawn(&self, cmd: Command) -> std::io::Result<Child> {
        let (reply, answer) = oneshot::channel();
        self.tx
            .send((cmd, reply))
            .map_err(|_| std::io::Error::other("spawner thread ended"))?;
        answer
            .await
            .map_err(|_| std::io::Error::other("spawner thread ended"))?
    }
}

/// One live worker process.
struct Conn<P: Protocol> {
    kind: WorkerKind,
    pid: u32,
    outbox: mpsc::UnboundedSender<ToWorker<P::Request>>,
    pending: Mutex<HashMap<u64, oneshot::Sender<P::Answer>>>,
    next_id: AtomicU64,
    alive: AtomicBool,
    child: Mutex<Option<Child>>,
    /// What the worker said it achieved.
    confinement: Confinement,
    /// Whether this worker's end counts towards restart backoff: a crash or
    /// a missed deadline does, a kill that only cancelled a parse does not.
    death_counts: AtomicBool,
}

impl<P: Protocol> Conn<P> {
    fn is_alive(&self) -> bool {
        self.alive.load(Ordering::Acquire)
    }

    /// Kills the process (if still running), fails every pending call, and
    /// reaps the child off the runtime's threads.
    fn kill(&self, cause: KillCause, why: &'static str) {
        if self.alive.swap(false, Ordering::AcqRel) {
            tracing::warn!(
                event = "worker_killed",
                worker = self.kind.as_str(),
                pid = self.pid,
                reason = why,
                "worker killed; it will be replaced"
            );
            if let Some(metrics) = crate::metrics::get() {
                metrics.worker_killed(self.kind, cause);
            }
        }
        lock(&self.pending).clear();
        let child = lock(&self.child).take();
        if let Some(child) = child {
            reap(child, self.kind, true);
        }
    }

    /// Kills a parser whose work was cancelled: not a failure of the worker.
    fn kill_cancelled(&self) {
        self.death_counts.store(false, Ordering::Release);
        self.kill(KillCause::Cancelled, "cancelled while parsing");
    }

    fn forget(&self, id: u64) -> bool {
        lock(&self.pending).remove(&id).is_some()
    }
}

impl<P: Protocol> Drop for Conn<P> {
    /// A connection nobody holds any more (its start was abandoned by a
    /// call that gave up, or its slot let it go) takes its process along.
    fn drop(&mut self) {
        self.death_counts.store(false, Ordering::Release);
        self.kill(KillCause::Released, "released");
    }
}

/// Kills a child (a no-op if it already died: it is then a zombie whose
/// status tells the cause) and reaps it off the runtime's threads.
fn reap(mut child: Child, kind: WorkerKind, log: bool) {
    let pid = child.id();
    let _ = child.kill();
    let mut wait = move || {
        let status = child.wait();
        if log {
            log_exit(kind, pid, status);
        }
    };
    match tokio::runtime::Handle::try_current() {
        Ok(runtime) => {
            runtime.spawn_blocking(wait);
        }
        // Outside the runtime (its shutdown): the child was just killed, so
        // the wait is short.
        Err(_) => wait(),
    }
}

/// A child that is killed and reaped if start-up does not complete, so an
/// abandoned or failed start never leaves a process or a zombie behind.
struct Starting {
    child: Option<Child>,
    kind: WorkerKind,
    log: bool,
}

impl Drop for Starting {
    fn drop(&mut self) {
        if let Some(child) = self.child.take() {
            reap(child, self.kind, self.log);
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Removes a call's pending entry and tells the worker when the call is
/// dropped before its answer arrived (the caller no longer cares).
struct CancelOnDrop<'a, P: Protocol> {
    conn: &'a Arc<Conn<P>>,
    id: u64,
    deadline: Instant,
    armed: bool,
}

impl<P: Protocol> Drop for CancelOnDrop<'_, P> {
    fn drop(&mut self) {
        if self.armed && self.conn.forget(self.id) {
            if Instant::now() >= self.deadline {
                // Dropped at its deadline with no answer: the worker missed
                // it, whichever of the two deadlines fired first.
                self.conn.kill(KillCause::Deadline, "missed a deadline");
            } else if P::CANCEL_IN_PLACE {
                let _ = self.conn.outbox.send(ToWorker::Cancel { id: self.id });
            } else {
                self.conn.kill_cancelled();
            }
        }
    }
}

async fn call<P: Protocol>(
    conn: &Arc<Conn<P>>,
    body: P::Request,
    deadline: Instant,
) -> Result<P::Answer, PortError> {
    let id = conn.next_id.fetch_add(1, Ordering::Relaxed);
    let (tx, rx) = oneshot::channel();
    {
        // Checked under the lock `kill` clears: a call never waits on a
        // connection that has already died.
        let mut pending = lock(&conn.pending);
        if !conn.is_alive() {
            return Err(PortError::WorkerFailed);
        }
        pending.insert(id, tx);
    }
    let mut guard = CancelOnDrop {
        conn,
        id,
        deadline,
        armed: true,
    };
    if conn.outbox.send(ToWorker::Request { id, body }).is_err() {
        guard.armed = false;
        conn.forget(id);
        return Err(PortError::WorkerFailed);
    }
    let answer = timeout_at(deadline, rx).await;
    guard.armed = false;
    match answer {
        Ok(Ok(answer)) => Ok(answer),
        Ok(Err(_)) => Err(PortError::WorkerFailed),
        Err(_) => {
            // The worker holds a request past its deadline: it is hung or
            // overwhelmed, and either way no longer trusted (LIM-W3).
            conn.forget(id);
            conn.kill(KillCause::Deadline, "missed a deadline");
            Err(PortError::Timeout)
        }
    }
}

/// Starts one worker and completes its handshake.
async fn start<P: Protocol>(
    spawner: &Spawner,
    spec: &WorkerSpec,
) -> Result<Arc<Conn<P>>, StartError> {
    // The one place a process is started: a worker, from this binary, with
    // an empty environment and its stdio as the frame pipes.
    #[allow(clippy::disallowed_methods)]
    let mut cmd = Command::new(&spec.exe);
    cmd.arg("__worker")
        .arg(spec.kind.as_str())
        .arg("--parent")
        .arg(std::process::id().to_string())
        .arg("--log-level")
        .arg(spec.log_level.as_str())
        .args(spec.probes.then_some("--probes"))
        .env_clear()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        // A pipe, relayed line by line: see `relay`.
        .stderr(Stdio::piped());
    let mut child = spawner
        .spawn(cmd)
        .await
        .map_err(|e| StartError::Failed(format!("spawn: {}", e.kind())))?;
    let pid = child.id();
    let pipes = child.stdin.take().zip(child.stdout.take());
    if let Some(stderr) = child.stderr.take()
        && let Ok(stderr) = tokio::process::ChildStderr::from_std(stderr)
    {
        tokio::spawn(relay::relay(spec.kind, pid, stderr));
    }
    let mut starting = Starting {
        child: Some(child),
        kind: spec.kind,
        log: true,
    };
    let Some((stdin, stdout)) = pipes else {
        return Err(StartError::Failed("pipes missing".to_owned()));
    };
    let pipe_error = |e: std::io::Error| StartError::Failed(format!("pipe: {}", e.kind()));
    let mut writer = tokio::process::ChildStdin::from_std(stdin).map_err(pipe_error)?;
    let mut reader = tokio::io::BufReader::with_capacity(
        READ_BUFFER_BYTES,
        tokio::process::ChildStdout::from_std(stdout).map_err(pipe_error)?,
    );

    let handshake = async {
        if let Some(init) = &spec.net_init {
            write_frame(&mut writer, init).await?;
        }
        read_frame::<FromWorker<P::Answer>, _>(&mut reader).await
    };
    let confinement = match timeout(HELLO_TIMEOUT, handshake).await {
        Ok(Ok(FromWorker::Hello(hello))) if hello.kind == spec.kind => {
            match spec.sandbox.refusal(&hello.confinement) {
                None => Ok(hello.confinement),
                Some(why) => Err(StartError::Refused(why)),
            }
        }
        Err(_) => Err(StartError::Failed("no hello in time".to_owned())),
        Ok(Err(e)) => Err(StartError::Failed(format!("handshake: {e}"))),
        Ok(Ok(_)) => Err(StartError::Failed("wrong hello".to_owned())),
    };
    let confinement = match confinement {
        Ok(c) => c,
        Err(e) => {
            // A refused worker is killed on purpose: its refusal is the news.
            starting.log = !matches!(e, StartError::Refused(_));
            return Err(e);
        }
    };

    let (outbox, mut outgoing) = mpsc::unbounded_channel::<ToWorker<P::Request>>();
    let conn = Arc::new(Conn::<P> {
        kind: spec.kind,
        pid,
        outbox,
        pending: Mutex::new(HashMap::new()),
        next_id: AtomicU64::new(1),
        alive: AtomicBool::new(true),
        child: Mutex::new(starting.child.take()),
        confinement,
        death_counts: AtomicBool::new(true),
    });
    tracing::info!(
        event = "worker_started",
        worker = spec.kind.as_str(),
        pid,
        confinement = confinement.summary(),
        seccomp = confinement.seccomp.as_str(),
        syscalls = confinement.syscalls,
        landlock = confinement.landlock.as_str(),
        landlock_abi = confinement.landlock_abi,
        landlock_net = confinement.landlock_net.as_str(),
        no_new_privs = confinement.no_new_privs,
        rlimits = confinement.rlimits,
        descriptors_closed = confinement.descriptors_closed,
        capabilities_dropped = confinement.capabilities_dropped,
        "worker started"
    );
    if let Some(metrics) = crate::metrics::get() {
        metrics.worker_started(spec.kind, &confinement);
    }

    let writer_conn = Arc::downgrade(&conn);
    tokio::spawn(async move {
        while let Some(frame) = outgoing.recv().await {
            if write_frame(&mut writer, &frame).await.is_err() {
                if let Some(conn) = writer_conn.upgrade() {
                    conn.kill(KillCause::PipeClosed, "pipe closed");
                }
                break;
            }
        }
    });
    // Both tasks hold the connection weakly: the slot and the calls in
    // flight own it, and when they let go, its process goes too.
    let reader_conn = Arc::downgrade(&conn);
    tokio::spawn(async move {
        let why = loop {
            let frame = read_frame::<FromWorker<P::Answer>, _>(&mut reader).await;
            let Some(reader_conn) = reader_conn.upgrade() else {
                return;
            };
            match frame {
                Ok(FromWorker::Answer { id, body }) => {
                    // An answer for a request nobody waits for (cancelled, or
                    // timed out) is dropped; an id never issued is a lie.
                    let waiter = lock(&reader_conn.pending).remove(&id);
                    match waiter {
                        Some(tx) => {
                            let _ = tx.send(body);
                        }
                        None if id >= reader_conn.next_id.load(Ordering::Relaxed) => {
                            break (KillCause::Protocol, "answered an unknown request");
                        }
                        None => {}
                    }
                }
                Ok(FromWorker::Hello(_)) => break (KillCause::Protocol, "said hello twice"),
                Err(FrameError::Closed) => break (KillCause::Exited, "exited"),
                Err(FrameError::Undecodable | FrameError::TooLarge(_)) => {
                    break (KillCause::Protocol, "sent a frame that does not decode");
                }
                Err(FrameError::Io(_)) => break (KillCause::PipeClosed, "pipe failed"),
            }
        };
        if let Some(conn) = reader_conn.upgrade() {
            let (cause, why) = why;
            conn.kill(cause, why);
        }
    });
    Ok(conn)
}

/// One worker position: the live process, or the means to start one.
struct Slot<P: Protocol> {
    spec: WorkerSpec,
    spawner: Spawner,
    state: tokio::sync::Mutex<SlotState<P>>,
    /// Shared by every slot, so that a refusal is logged once.
    refusal_logged: Arc<AtomicBool>,
}

struct SlotState<P: Protocol> {
    conn: Option<Arc<Conn<P>>>,
    deaths: VecDeque<Instant>,
    retry_at: Option<Instant>,
    /// Set for good once a worker lacked a required confinement layer.
    refused: bool,
    /// Set at shutdown: no worker is started again.
    closed: bool,
}

impl<P: Protocol> Slot<P> {
    fn new(spec: WorkerSpec, spawner: Spawner, refusal_logged: Arc<AtomicBool>) -> Self {
        Self {
            spec,
            spawner,
            state: tokio::sync::Mutex::new(SlotState {
                conn: None,
                deaths: VecDeque::new(),
                retry_at: None,
                refused: false,
                closed: false,
            }),
            refusal_logged,
        }
    }

    /// The live worker, starting one if needed. While a worker that keeps
    /// dying is backing off, answers `Unavailable` at once.
    async fn conn(&self) -> Result<Arc<Conn<P>>, PortError> {
        let mut state = self.state.lock().await;
        if state.refused || state.closed {
            return Err(PortError::Unavailable);
        }
        let now = Instant::now();
        if let Some(conn) = &state.conn {
            if conn.is_alive() {
                return Ok(Arc::clone(conn));
            }
            if conn.death_counts.load(Ordering::Acquire) {
                state.deaths.push_back(now);
            }
            state.conn = None;
        }
        while state
            .deaths
            .front()
            .is_some_and(|t| now.duration_since(*t) > DEATH_WINDOW)
        {
            state.deaths.pop_front();
        }
        if state.retry_at.is_some_and(|t| now < t) {
            return Err(PortError::Unavailable);
        }
        state.retry_at = None;
        match start::<P>(&self.spawner, &self.spec).await {
            Ok(conn) => {
                // A worker that died at least this often recently is started
                // again only after a delay, doubling up to MAX_BACKOFF.
                if let Some(delay) = restart_delay(state.deaths.len()) {
                    state.retry_at = Some(now + delay);
                    tracing::warn!(
                        event = "worker_backoff",
                        worker = self.spec.kind.as_str(),
                        deaths = state.deaths.len(),
                        delay_ms = u64::try_from(delay.as_millis()).unwrap_or(u64::MAX),
                        "worker keeps dying; further restarts are delayed"
                    );
                }
                state.conn = Some(Arc::clone(&conn));
                Ok(conn)
            }
            Err(StartError::Refused(why)) => {
                state.refused = true;
                if !self.refusal_logged.swap(true, Ordering::AcqRel) {
                    tracing::error!(
                        event = "workers_refused",
                        reason = why,
                        "workers refused: they lack a confinement layer the configuration requires; tools answer unavailable"
                    );
                }
                Err(PortError::Unavailable)
            }
            Err(StartError::Failed(why)) => {
                // From the failure, not from the start of the attempt, which
                // may have waited its whole HELLO_TIMEOUT.
                let failed_at = Instant::now();
                state.deaths.push_back(failed_at);
                state.retry_at = Some(failed_at + Duration::from_millis(500));
                tracing::error!(event = "worker_start_failed", worker = self.spec.kind.as_str(), reason = %why, "worker could not be started");
                Err(PortError::Unavailable)
            }
        }
    }

    async fn call(&self, body: P::Request, deadline: Instant) -> Result<P::Answer, PortError> {
        // Starting a worker counts against the call's time too.
        let conn = timeout_at(deadline, self.conn())
            .await
            .map_err(|_| PortError::Timeout)??;
        call(&conn, body, deadline).await
    }

    async fn pid(&self) -> Option<u32> {
        let state = self.state.lock().await;
        state.conn.as_ref().filter(|c| c.is_alive()).map(|c| c.pid)
    }

    async fn shutdown(&self) {
        let conn = {
            let mut state = self.state.lock().await;
            state.closed = true;
            state.conn.take()
        };
        if let Some(conn) = conn {
            conn.alive.store(false, Ordering::Release);
            lock(&conn.pending).clear();
            let child = lock(&conn.child).take();
            if let Some(mut child) = child {
                // Waited for here, not in the background: shutdown returns
                // only once no worker is left.
                let _ = child.kill();
                let _ = tokio::task::spawn_blocking(move || child.wait()).await;
            }
        }
    }
}

/// Starts one worker of each kind, whatever `[sandbox]` requires, reads
/// the confinement each achieved on this kernel, and stops them again
/// (`rypsok check`).
pub(crate) async fn probe_confinement(
    spawner: &Spawner,
    net: &WorkerSpec,
    parse: &WorkerSpec,
) -> Vec<(WorkerKind, Result<Confinement, String>)> {
    async fn one<P: Protocol>(spawner: &Spawner, spec: &WorkerSpec) -> Result<Confinement, String> {
        let mut spec = spec.clone();
        spec.sandbox = SandboxRequirements {
            seccomp: false,
            landlock: false,
        };
        match start::<P>(spawner, &spec).await {
            Ok(conn) => {
                let confinement = conn.confinement;
                conn.alive.store(false, Ordering::Release);
                let child = lock(&conn.child).take();
                if let Some(mut child) = child {
                    let _ = child.kill();
                    let _ = tokio::task::spawn_blocking(move || child.wait()).await;
                }
                Ok(confinement)
            }
            Err(StartError::Failed(why)) => Err(why),
            Err(StartError::Refused(why)) => Err(why.to_owned()),
        }
    }
    vec![
        (WorkerKind::Net, one::<Net>(spawner, net).await),
        (WorkerKind::Parse, one::<Parse>(spawner, parse).await),
    ]
}

/// All workers of the process: one worker-net, a pool of worker-parse.
pub(crate) struct Workers {
    net: Slot<Net>,
    parsers: Vec<Slot<Parse>>,
    idle_parsers: Mutex<VecDeque<usize>>,
    parser_permits: Semaphore,
}

impl Workers {
    pub(crate) fn new(
        net: WorkerSpec,
        parse: WorkerSpec,
        parse_workers: usize,
        spawner: Spawner,
    ) -> Self {
        let refusal_logged = Arc::new(AtomicBool::new(false));
        let parsers = (0..parse_workers)
            .map(|_| Slot::new(parse.clone(), spawner.clone(), Arc::clone(&refusal_logged)))
            .collect();
        Self {
            net: Slot::new(net, spawner, refusal_logged),
            parsers,
            idle_parsers: Mutex::new((0..parse_workers).collect()),
            parser_permits: Semaphore::new(parse_workers),
        }
    }

    /// Starts every worker now, so the first call pays no start-up.
    pub(crate) async fn start_all(&self) -> Result<(), PortError> {
        let parsers = futures_util::future::join_all(self.parsers.iter().map(Slot::conn));
        let (net, parsers) = tokio::join!(self.net.conn(), parsers);
        net?;
        for p in parsers {
            p?;
        }
        Ok(())
    }

    /// Process ids of the live workers (net first), for logs and tests.
    pub(crate) async fn pids(&self) -> Vec<(WorkerKind, u32)> {
        let mut out = Vec::new();
        if let Some(pid) = self.net.pid().await {
            out.push((WorkerKind::Net, pid));
        }
        for p in &self.parsers {
            if let Some(pid) = p.pid().await {
                out.push((WorkerKind::Parse, pid));
            }
        }
        out
    }

    /// Kills every worker and waits for it, so none outlives the supervisor.
    pub(crate) async fn shutdown(&self) {
        self.net.shutdown().await;
        for p in &self.parsers {
            p.shutdown().await;
        }
    }
}

impl NetPort for Workers {
    fn exchange(
        &self,
        request: ExchangeRequest,
        deadline: Instant,
    ) -> PortFuture<'_, Result<ExchangeResponse, ExchangeError>> {
        Box::pin(async move {
            match self
                .net
                .call(NetRequest::Exchange(request), deadline)
                .await?
            {
                NetResponse::Exchange(result) => Ok(result?),
            }
        })
    }
}

/// The answer of a page parse, or `None` for an answer of another kind.
fn page_answer(answer: ParseResponse) -> Option<PageParse> {
    let ParseResponse::Page(page) = answer else {
        return None;
    };
    Some(page)
}

/// The answer of an engine-answer parse, or `None` for another kind.
fn engine_answer(answer: ParseResponse) -> Option<EngineParse> {
    let ParseResponse::Engine(parse) = answer else {
        return None;
    };
    Some(parse)
}

/// The answer of a robots.txt parse, or `None` for another kind.
fn robots_answer(answer: ParseResponse) -> Option<RobotsRules> {
    let ParseResponse::Robots(rules) = answer else {
        return None;
    };
    Some(rules)
}

impl Workers {
    /// Runs one parse on a free parser and expects the answer `expect`
    /// recognises. Any other answer is a protocol violation, handled here
    /// for every kind of parse: the worker is killed (and replaced on the
    /// next call) and the call fails as with any worker that lies.
    async fn parse_as<T>(
        &self,
        request: ParseRequest,
        deadline: Instant,
        expect: fn(ParseResponse) -> Option<T>,
    ) -> Result<T, PortError> {
        let Ok(permit) = timeout_at(deadline, self.parser_permits.acquire()).await else {
            return Err(PortError::Timeout);
        };
        let _permit = permit.map_err(|_| PortError::Unavailable)?;
        // Give a parser back however this call ends, dropped included,
        // at the end of the queue, so that a slot backing off after
        // crashes does not stand in front of a healthy one.
        struct Return<'a>(&'a Mutex<VecDeque<usize>>, usize);
        impl Drop for Return<'_> {
            fn drop(&mut self) {
                lock(self.0).push_back(self.1);
            }
        }
        for _ in 0..self.parsers.len() {
            let index = lock(&self.idle_parsers)
                .pop_front()
                .ok_or(PortError::Unavailable)?;
            let _back = Return(&self.idle_parsers, index);
            // Locals drop in reverse order: the parser is back in the
            // idle queue before the permit that lets the next call look
            // for it.
            if let Ok(Ok(conn)) = timeout_at(deadline, self.parsers[index].conn()).await {
                let answer = call(&conn, request, deadline).await?;
                return expect(answer).ok_or_else(|| {
                    conn.kill(KillCause::Protocol, "answered another kind of request");
                    PortError::WorkerFailed
                });
            }
        }
        Err(PortError::Unavailable)
    }
}

impl ParsePort for Workers {
    fn parse_engine_answer(
        &self,
        answer: EngineResponse,
        deadline: Instant,
    ) -> PortFuture<'_, Result<EngineParse, PortError>> {
        Box::pin(self.parse_as(answer.into_request(), deadline, engine_answer))
    }

    fn parse_page(
        &self,
        document: Document,
        deadline: Instant,
    ) -> PortFuture<'_, Result<PageParse, PortError>> {
        Box::pin(self.parse_as(document.into_request(), deadline, page_answer))
    }

    fn parse_robots(
        &self,
        body: Vec<u8>,
        deadline: Instant,
    ) -> PortFuture<'_, Result<RobotsRules, PortError>> {
        Box::pin(self.parse_as(robots_request(body), deadline, robots_answer))
    }
}

mod relay;
#[cfg(test)]
mod tests;
