//! What every black-box test needs: the built binary, an MCP client over
//! its stdio, loopback fakes of engines, and process inspection.

#![allow(dead_code)] // each test uses its own share of these helpers

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The rypsok binary cargo built beside this test (or `RYPSOK_BIN`).
pub(crate) fn binary() -> PathBuf {
    if let Some(path) = std::env::var_os("RYPSOK_BIN") {
        return PathBuf::from(path);
    }
    // target/<profile>/deps/blackbox-<hash> → target/<profile>/rypsok
    let exe = std::env::current_exe().expect("test executable path");
    let dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("target directory");
    let bin = dir.join("rypsok");
    assert!(
        bin.exists(),
        "build the binary first (cargo build --locked): {}",
        bin.display()
    );
    bin
}

/// A file under the workspace.
pub(crate) fn workspace_file(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(relative)
}

/// A fresh directory for one test's files, removed on drop.
pub(crate) struct TempDir(PathBuf);

impl TempDir {
    pub(crate) fn new(tag: &str) -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir =
            std::env::temp_dir().join(format!("rypsok-test-{}-{tag}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        Self(dir)
    }

    /// The directory itself.
    pub(crate) fn path(&self) -> &Path {
        &self.0
    }

    pub(crate) fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.0.join(name);
        std::fs::write(&path, text).expect("write temp file");
        path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// What a fake answers to one request.
#[derive(Clone, Debug)]
pub(crate) struct Reply {
    pub(crate) status: u16,
    pub(crate) content_type: &'static str,
    pub(crate) body: Vec<u8>,
    /// Wait this long before answering.
    pub(crate) delay: Duration,
    /// Headers besides content-type, content-length and connection.
    pub(crate) headers: Vec<(String, String)>,
    /// Send the body chunked, so that its size shows only as it streams.
    pub(crate) chunked: bool,
}

impl Reply {
    pub(crate) fn json(body: &[u8]) -> Self {
        Self {
            status: 200,
            content_type: "application/json; charset=utf-8",
            body: body.to_vec(),
            delay: Duration::ZERO,
            headers: Vec::new(),
            chunked: false,
        }
    }
    pub(crate) fn with_header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }
    pub(crate) fn with_status(mut self, status: u16, content_type: &'static str) -> Self {
        self.status = status;
        self.content_type = content_type;
        self
    }
    pub(crate) fn delayed(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }
    pub(crate) fn chunked(mut self) -> Self {
        self.chunked = true;
        self
    }
}

/// One request a fake received.
#[derive(Clone, Debug)]
pub(crate) struct Seen {
    pub(crate) target: String,
    pub(crate) headers: Vec<(String, String)>,
    /// The client closed the connection before the reply was due.
    pub(crate) abandoned: bool,
}

/// A loopback HTTP/1.1 server that answers every request with `reply` and
/// records what it saw. It listens on 127.0.0.1 only and stops on drop.
/// Started with [`FakeHttp::start`] it answers one request per connection
/// and closes it; with [`FakeHttp::start_kept`] it answers one request
/// after another on a connection for as long as the client keeps it.
pub(crate) struct FakeHttp {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    /// Connections accepted.
    pub(crate) connections: Arc<AtomicUsize>,
    seen: Arc<Mutex<Vec<Seen>>>,
    reply: Arc<Mutex<Reply>>,
}

impl FakeHttp {
    pub(crate) fn start(reply: Reply) -> Self {
        Self::start_with(reply, false)
    }

    pub(crate) fn start_kept(reply: Reply) -> Self {
        Self::start_with(reply, true)
    }

    fn start_with(reply: Reply, keep_alive: bool) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let addr = listener.local_addr().expect("local addr");
        let stop = Arc::new(AtomicBool::new(false));
        let connections = Arc::new(AtomicUsize::new(0));
        let seen = Arc::new(Mutex::new(Vec::new()));
        let reply = Arc::new(Mutex::new(reply));
        let (s, c, v, r) = (
            stop.clone(),
            connections.clone(),
            seen.clone(),
            reply.clone(),
        );
        thread::spawn(move || {
            for stream in listener.incoming() {
                if s.load(Ordering::Acquire) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                c.fetch_add(1, Ordering::AcqRel);
                let (v, r) = (v.clone(), r.clone());
                thread::spawn(move || serve(stream, keep_alive, &v, &r));
            }
        });
        Self {
            addr,
            stop,
            connections,
            seen,
            reply,
        }
    }

    pub(crate) fn port(&self) -> u16 {
        self.addr.port()
    }

    pub(crate) fn set_reply(&self, reply: Reply) {
        *self.reply.lock().expect("reply lock") = reply;
    }

    pub(crate) fn seen(&self) -> Vec<Seen> {
        self.seen.lock().expect("seen lock").clone()
    }
}

impl Drop for FakeHttp {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        // Wakes the accept loop so it sees the stop flag.
        #[allow(clippy::disallowed_methods)]
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_millis(200));
    }
}

/// Reads one request's head (5 s at most, 64 KiB at most): the request
/// target and the headers, names lower-cased. `None` when the client closed
/// or stalled first.
pub(crate) fn read_request_head(stream: &mut TcpStream) -> Option<(String, Vec<(String, String)>)> {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") && head.len() < 65_536 {
        match stream.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            _ => return None,
        }
    }
    let text = String::from_utf8_lossy(&head).into_owned();
    let mut lines = text.split("\r\n");
    let target = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .unwrap_or_default()
        .to_owned();
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    Some((target, headers))
}

/// One request, or with `keep_alive` one after another until the client
/// closes, asks to close, or stays silent for the head's 5 s.
fn serve(mut stream: TcpStream, keep_alive: bool, seen: &Mutex<Vec<Seen>>, reply: &Mutex<Reply>) {
    while let Some((target, headers)) = read_request_head(&mut stream) {
        let keep = keep_alive
            && !headers
                .iter()
                .any(|(name, value)| name == "connection" && value.eq_ignore_ascii_case("close"));
        if !answer_one(&mut stream, target, headers, keep, seen, reply) || !keep {
            return;
        }
    }
}

/// Records the request and answers it; `false` when the client left first
/// or the answer could not be written.
fn answer_one(
    stream: &mut TcpStream,
    target: String,
    headers: Vec<(String, String)>,
    keep: bool,
    seen: &Mutex<Vec<Seen>>,
    reply: &Mutex<Reply>,
) -> bool {
    let mut byte = [0u8; 1];
    let reply = reply.lock().expect("reply lock").clone();
    let index = {
        let mut seen = seen.lock().expect("seen lock");
        seen.push(Seen {
            target,
            headers,
            abandoned: false,
        });
        seen.len() - 1
    };
    if !reply.delay.is_zero() {
        // Watch the connection while waiting: a read of 0 bytes means the
        // client gave up on us (a cancelled request).
        let _ = stream.set_read_timeout(Some(Duration::from_millis(20)));
        let until = Instant::now() + reply.delay;
        while Instant::now() < until {
            if let Ok(0) = stream.read(&mut byte) {
                seen.lock().expect("seen lock")[index].abandoned = true;
                return false;
            }
        }
    }
    let extra: String = reply
        .headers
        .iter()
        .map(|(name, value)| format!("{name}: {value}\r\n"))
        .collect();
    let length = if reply.chunked {
        "transfer-encoding: chunked".to_owned()
    } else {
        format!("content-length: {}", reply.body.len())
    };
    let connection = if keep { "" } else { "connection: close\r\n" };
    let head = format!(
        "HTTP/1.1 {} X\r\ncontent-type: {}\r\n{length}\r\n{connection}{extra}\r\n",
        reply.status, reply.content_type,
    );
    // Head and body in one write: on a kept connection a second small
    // write could wait for the client's delayed acknowledgement (Nagle).
    let mut bytes = head.into_bytes();
    if reply.chunked {
        if !reply.body.is_empty() {
            bytes.extend_from_slice(format!("{:x}\r\n", reply.body.len()).as_bytes());
            bytes.extend_from_slice(&reply.body);
            bytes.extend_from_slice(b"\r\n");
        }
        bytes.extend_from_slice(b"0\r\n\r\n");
    } else {
        bytes.extend_from_slice(&reply.body);
    }
    stream.write_all(&bytes).is_ok()
}

/// The name in the test engine's certificate (tests/certs).
pub(crate) const TLS_ENGINE_NAME: &str = "engine.rypsok.test";

/// The server side of a loopback https engine: the certificate for
/// [`TLS_ENGINE_NAME`], signed by the test CA, and its key (tests/certs).
pub(crate) fn tls_engine_config() -> Arc<rustls::ServerConfig> {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let chain: Vec<CertificateDer<'static>> =
        CertificateDer::pem_file_iter(workspace_file("tests/certs/engine-cert.pem"))
            .expect("engine certificate")
            .collect::<Result<_, _>>()
            .expect("engine certificate");
    let key = PrivateKeyDer::from_pem_file(workspace_file("tests/certs/engine-key.pem"))
        .expect("engine key");
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .expect("protocol versions")
    .with_no_client_auth()
    .with_single_cert(chain, key)
    .expect("server config");
    Arc::new(config)
}

/// A loopback https engine for [`TLS_ENGINE_NAME`]: answers one request
/// per connection with `body` as JSON, then closes it. It listens on
/// 127.0.0.1 only.
pub(crate) struct TlsEngine {
    pub(crate) port: u16,
    /// Per connection that sent a request, whether its handshake resumed
    /// an earlier session.
    pub(crate) resumed: Arc<Mutex<Vec<bool>>>,
}

pub(crate) fn start_tls_engine(body: Vec<u8>) -> TlsEngine {
    let config = tls_engine_config();
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    let port = listener.local_addr().expect("local addr").port();
    let resumed: Arc<Mutex<Vec<bool>>> = Arc::default();
    let record = Arc::clone(&resumed);
    thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            let (config, body, record) = (config.clone(), body.clone(), record.clone());
            thread::spawn(move || {
                let Ok(conn) = rustls::ServerConnection::new(config) else {
                    return;
                };
                let mut tls = rustls::StreamOwned::new(conn, stream);
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") && head.len() < 65_536 {
                    match tls.read(&mut byte) {
                        Ok(1) => head.push(byte[0]),
                        _ => return,
                    }
                }
                record
                    .lock()
                    .expect("resumed")
                    .push(tls.conn.handshake_kind() == Some(rustls::HandshakeKind::Resumed));
                let _ = tls.write_all(
                    format!(
                        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                        body.len()
                    )
                    .as_bytes(),
                );
                let _ = tls.write_all(&body);
                tls.conn.send_close_notify();
                let _ = tls.flush();
            });
        }
    });
    TlsEngine { port, resumed }
}

/// A configuration that points the Wikipedia engine at a loopback fake,
/// with a 1.5 s search deadline.
pub(crate) fn wikipedia_config(port: u16, extra: &str) -> String {
    wikipedia_config_with_deadline(port, 1500, extra)
}

/// The same with another search deadline (the engine's timeout is 300 ms
/// less).
pub(crate) fn wikipedia_config_with_deadline(port: u16, deadline_ms: u64, extra: &str) -> String {
    let timeout_ms = deadline_ms - 300;
    format!(
        r#"config_version = 1
[service]
contact = "ops@example.org"
[search]
deadline_ms = {deadline_ms}
grace_ms = 200
[egress]
allow = ["127.0.0.1:{port}"]
[engines.wikipedia]
type = "wikipedia"
endpoint = "http://127.0.0.1:{port}/w/api.php"
timeout_ms = {timeout_ms}
{extra}"#
    )
}

/// The rypsok server under test, spoken to over its stdio.
pub(crate) struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Value>,
    pub(crate) stderr: Arc<Mutex<Vec<String>>>,
    stderr_reader: Option<thread::JoinHandle<()>>,
    next_id: u64,
    _dir: TempDir,
}

impl Server {
    /// Starts `rypsok serve --transport stdio` with this configuration text
    /// (`None`: no file, the defaults).
    pub(crate) fn start(config: Option<&str>) -> Self {
        Self::start_with_env(config, &[])
    }

    /// Starts a server whose workers honour test-only probes
    /// (`RYPSOK_TEST_PROBES`; the binary must be a test build).
    pub(crate) fn start_armed(config: Option<&str>) -> Self {
        Self::start_with_env(config, &[("RYPSOK_TEST_PROBES", "1")])
    }

    pub(crate) fn start_with_env(config: Option<&str>, env: &[(&str, &str)]) -> Self {
        Self::spawn(&["serve", "--transport", "stdio"], config, env)
    }

    /// Starts rypsok with these command-line words (before `--config`), to
    /// be spoken to over its stdio.
    pub(crate) fn start_with_args(args: &[&str], config: Option<&str>) -> Self {
        Self::spawn(args, config, &[])
    }

    /// Starts `rypsok serve --transport http` with this configuration
    /// (whose `[http] bind` should be `127.0.0.1:0`) and waits until it
    /// listens; [`Server::http_addr`] is then the bound address.
    pub(crate) fn start_http(config: &str, env: &[(&str, &str)]) -> Self {
        let server = Self::spawn(&["serve", "--transport", "http"], Some(config), env);
        server.http_addr();
        server
    }

    /// The address the HTTP listener reported in its `listening` line.
    pub(crate) fn http_addr(&self) -> SocketAddr {
        let line = self
            .await_log(&[("event", json!("listening"))], Duration::from_secs(10))
            .expect("the http listener did not report its address");
        line["addr"]
            .as_str()
            .and_then(|a| a.parse().ok())
            .expect("a socket address")
    }

    /// Sends SIGTERM to the server (only this test's own process).
    pub(crate) fn terminate(&self) {
        let pid = nix::unistd::Pid::from_raw(i32::try_from(self.pid()).expect("pid"));
        nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).expect("SIGTERM");
    }

    fn spawn(args: &[&str], config: Option<&str>, env: &[(&str, &str)]) -> Self {
        let http = args.ends_with(&["http"]);
        let dir = TempDir::new("serve");
        // Black-box tests start the binary as a host would.
        #[allow(clippy::disallowed_methods)]
        let mut cmd = Command::new(binary());
        cmd.args(args)
            .env_remove("RYPSOK_CONFIG")
            .env_remove("RYPSOK_TEST_PROBES")
            .env_remove("BRAVE_API_KEY")
            // No file of this machine's user is read in its stead.
            .env("XDG_CONFIG_HOME", dir.path());
        if let Some(text) = config {
            cmd.arg("--config").arg(dir.write("rypsok.toml", text));
        }
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd
            .stdin(if http { Stdio::null() } else { Stdio::piped() })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start rypsok");
        let stdout = child.stdout.take().expect("stdout");
        let stderr_pipe = child.stderr.take().expect("stderr");
        let (tx, lines) = channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let value =
                    serde_json::from_str(&line).unwrap_or_else(|_| json!({ "not_json": line }));
                if tx.send(value).is_err() {
                    break;
                }
            }
        });
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let sink = stderr.clone();
        let stderr_reader = thread::spawn(move || {
            for line in BufReader::new(stderr_pipe).lines() {
                let Ok(line) = line else { break };
                sink.lock().expect("stderr lock").push(line);
            }
        });
        let stdin = child.stdin.take();
        Self {
            child,
            stdin,
            lines,
            stderr,
            stderr_reader: Some(stderr_reader),
            next_id: 1,
            _dir: dir,
        }
    }

    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    pub(crate) fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        let mut line = message.to_string();
        line.push('\n');
        stdin.write_all(line.as_bytes()).expect("write to rypsok");
        stdin.flush().expect("flush");
    }

    /// Writes bytes to stdin as they are (a line that may not be JSON).
    pub(crate) fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("write to rypsok");
        stdin.flush().expect("flush");
    }

    /// Waits for the next message on stdout.
    pub(crate) fn next_message(&mut self, within: Duration) -> Option<Value> {
        self.lines.recv_timeout(within).ok()
    }

    /// Sends a request and returns its id.
    pub(crate) fn send_request(&mut self, method: &str, params: Value) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    /// Waits for the response to `id` (other messages are skipped).
    pub(crate) fn response(&mut self, id: u64, within: Duration) -> Option<Value> {
        let until = Instant::now() + within;
        loop {
            let left = until.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(v) if v["id"] == json!(id) => return Some(v),
                Ok(_) => continue,
                Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => return None,
            }
        }
    }

    pub(crate) fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.send_request(method, params);
        self.response(id, Duration::from_secs(10))
            .unwrap_or_else(|| panic!("no answer to {method}"))
    }

    /// The handshake of the handshake-based revisions.
    pub(crate) fn initialize(&mut self) -> Value {
        let r = self.request(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "blackbox", "version": "1"}}),
        );
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        r
    }

    /// Calls a tool and returns the `result` object.
    pub(crate) fn call(&mut self, name: &str, arguments: Value) -> Value {
        let r = self.request("tools/call", json!({"name": name, "arguments": arguments}));
        r["result"].clone()
    }

    /// Closes stdin (end of input) and waits for the exit.
    pub(crate) fn close_and_wait(&mut self, within: Duration) -> Option<ExitStatus> {
        drop(self.stdin.take());
        self.wait(within)
    }

    /// Waits for the exit, then for every log line the processes wrote.
    pub(crate) fn wait(&mut self, within: Duration) -> Option<ExitStatus> {
        let until = Instant::now() + within;
        while Instant::now() < until {
            if let Ok(Some(status)) = self.child.try_wait() {
                // stderr ends once the supervisor and its workers are gone.
                while self
                    .stderr_reader
                    .as_ref()
                    .is_some_and(|r| !r.is_finished())
                    && Instant::now() < until
                {
                    thread::sleep(Duration::from_millis(5));
                }
                return Some(status);
            }
            thread::sleep(Duration::from_millis(10));
        }
        None
    }

    /// Waits for a log line with these fields (lines reach the test through
    /// their own pipe, a moment after the responses they accompany).
    pub(crate) fn await_log(&self, fields: &[(&str, Value)], within: Duration) -> Option<Value> {
        self.await_logs(fields, 1, within).into_iter().next()
    }

    /// Waits for `n` log lines with these fields, as [`Self::await_log`];
    /// returns every such line written by then (fewer than `n` when the
    /// time ran out).
    pub(crate) fn await_logs(
        &self,
        fields: &[(&str, Value)],
        n: usize,
        within: Duration,
    ) -> Vec<Value> {
        let until = Instant::now() + within;
        loop {
            let found: Vec<Value> = self
                .log()
                .into_iter()
                .filter(|l| fields.iter().all(|(k, v)| &l[*k] == v))
                .collect();
            if found.len() >= n || Instant::now() > until {
                return found;
            }
            thread::sleep(Duration::from_millis(10));
        }
    }

    /// Log lines (JSON) written so far.
    pub(crate) fn log(&self) -> Vec<Value> {
        self.stderr
            .lock()
            .expect("stderr lock")
            .iter()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }

    /// The worker processes: this server's children, by process tag.
    pub(crate) fn workers(&self) -> Vec<(String, u32)> {
        children_of(self.pid())
            .into_iter()
            .filter_map(|pid| {
                let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
                let args: Vec<String> = cmdline
                    .split(|b| *b == 0)
                    .map(|a| String::from_utf8_lossy(a).into_owned())
                    .collect();
                let kind = args
                    .iter()
                    .position(|a| a == "__worker")
                    .and_then(|i| args.get(i + 1))?
                    .clone();
                Some((kind, pid))
            })
            .collect()
    }

    /// Waits until the server has `n` live workers (start-up, or a
    /// replacement after a kill).
    pub(crate) fn await_workers(&self, n: usize, within: Duration) -> Vec<(String, u32)> {
        let until = Instant::now() + within;
        loop {
            let workers = self.workers();
            if workers.len() >= n || Instant::now() > until {
                return workers;
            }
            thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // Only the process this test started, by its id.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Process ids whose parent is `pid`.
pub(crate) fn children_of(pid: u32) -> Vec<u32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|child| parent_of(*child) == Some(pid))
        .collect()
}

/// The parent of a live (not zombie) process.
pub(crate) fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the parenthesised command: state, ppid, ...
    let rest = &stat[stat.rfind(')')? + 2..];
    let mut fields = rest.split(' ');
    let state = fields.next()?;
    if state == "Z" || state == "X" {
        return None;
    }
    fields.next()?.parse().ok()
}

/// Whether a process is alive (not gone, not a zombie).
pub(crate) fn is_alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| s.rfind(')').map(|i| s[i + 2..].starts_with(['Z', 'X'])))
        .is_some_and(|zombie| !zombie)
}

/// The structured content of a tool result.
pub(crate) fn structured(result: &Value) -> &Value {
    &result["structuredContent"]
}

/// Asserts that the text content is the same JSON as the structured content.
pub(crate) fn assert_text_mirrors_structure(result: &Value) {
    let text = result["content"][0]["text"].as_str().expect("text content");
    let parsed: Value = serde_json::from_str(text).expect("text is JSON");
    assert_eq!(&parsed, structured(result));
}
