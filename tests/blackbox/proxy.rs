//! `[egress] proxy`: a loopback forward proxy that alone can reach the
//! engine (its name resolves nowhere else), environment proxies that see
//! nothing, a proxy that answers 407, a TLS engine behind a CONNECT tunnel
//! signed by a test CA that only `ca_file` makes trusted (tests/certs,
//! made by its script), and `all_failed` naming each engine's failure
//! cause (design §8, REQ-RES-008, REQ-ERR-002).

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::Duration;

use serde_json::json;

use crate::support::{
    FakeHttp, Reply, Server, TLS_ENGINE_NAME, TempDir, binary, read_request_head, start_tls_engine,
    structured, workspace_file,
};

/// What the proxy saw: each request target and its `Proxy-Authorization`.
type Requests = Arc<Mutex<Vec<(String, Option<String>)>>>;

/// The engine's name (its certificate's): nothing resolves it but the
/// proxy.
const ENGINE_NAME: &str = TLS_ENGINE_NAME;

/// A forward proxy on 127.0.0.1 that relays absolute-form requests for
/// [`ENGINE_NAME`] to a loopback engine, or answers every request with a
/// fixed status. It records each request target and its
/// `Proxy-Authorization`.
struct FakeProxy {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    seen: Requests,
}

impl FakeProxy {
    /// Relays to `engine_port`, or answers `status` to everything when set.
    fn start(engine_port: u16, status: Option<u16>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let addr = listener.local_addr().expect("local addr");
        let stop = Arc::new(AtomicBool::new(false));
        let seen = Arc::new(Mutex::new(Vec::new()));
        let (s, v) = (stop.clone(), seen.clone());
        thread::spawn(move || {
            for stream in listener.incoming() {
                if s.load(Ordering::Acquire) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let v = v.clone();
                thread::spawn(move || relay(stream, engine_port, status, &v));
            }
        });
        Self { addr, stop, seen }
    }

    fn seen(&self) -> Vec<(String, Option<String>)> {
        self.seen.lock().expect("seen lock").clone()
    }
}

impl Drop for FakeProxy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        #[allow(clippy::disallowed_methods)] // wakes the accept loop
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_millis(200));
    }
}

fn relay(
    mut client: TcpStream,
    engine_port: u16,
    status: Option<u16>,
    seen: &Mutex<Vec<(String, Option<String>)>>,
) {
    let Some((target, headers)) = read_request_head(&mut client) else {
        return;
    };
    let auth = headers
        .iter()
        .find(|(name, _)| name == "proxy-authorization")
        .map(|(_, value)| value.clone());
    seen.lock().expect("seen lock").push((target.clone(), auth));
    if status.is_none() && target == format!("{ENGINE_NAME}:{engine_port}") {
        tunnel(client, engine_port);
        return;
    }
    let prefix = format!("http://{ENGINE_NAME}:{engine_port}");
    let path = match (status, target.strip_prefix(&prefix)) {
        (None, Some(path)) => path.to_owned(),
        (status, _) => {
            let status = status.unwrap_or(502);
            let _ = client.write_all(
                format!("HTTP/1.1 {status} X\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
                    .as_bytes(),
            );
            return;
        }
    };
    #[allow(clippy::disallowed_methods)] // the proxy's own upstream connection
    let Ok(mut upstream) = TcpStream::connect(("127.0.0.1", engine_port)) else {
        return;
    };
    let forwarded: String = headers
        .iter()
        .filter(|(name, _)| name != "proxy-authorization")
        .map(|(name, value)| format!("{name}: {value}\r\n"))
        .collect();
    let _ = upstream.write_all(format!("GET {path} HTTP/1.1\r\n{forwarded}\r\n").as_bytes());
    let mut answer = Vec::new();
    let _ = upstream.read_to_end(&mut answer);
    let _ = client.write_all(&answer);
}

/// CONNECT: a tunnel to the loopback engine, bytes copied both ways.
fn tunnel(mut client: TcpStream, engine_port: u16) {
    #[allow(clippy::disallowed_methods)] // the proxy's own upstream connection
    let Ok(upstream) = TcpStream::connect(("127.0.0.1", engine_port)) else {
        return;
    };
    let _ = client.write_all(b"HTTP/1.1 200 Connection established\r\n\r\n");
    let (Ok(mut client_read), Ok(mut upstream_write)) = (client.try_clone(), upstream.try_clone())
    else {
        return;
    };
    let up = thread::spawn(move || {
        let _ = std::io::copy(&mut client_read, &mut upstream_write);
        let _ = upstream_write.shutdown(std::net::Shutdown::Write);
    });
    let mut upstream_read = upstream;
    let _ = std::io::copy(&mut upstream_read, &mut client);
    let _ = client.shutdown(std::net::Shutdown::Write);
    let _ = up.join();
}

fn fixture() -> Vec<u8> {
    std::fs::read(workspace_file(
        "worker-parse/testdata/wikipedia/en_search_counter_strike_2021.json",
    ))
    .expect("fixture")
}

fn proxied_config(engine_port: u16, proxy: SocketAddr, extra_egress: &str) -> String {
    format!(
        r#"config_version = 1
[service]
contact = "ops@example.org"
[search]
deadline_ms = 3000
[egress]
allow = ["{ENGINE_NAME}:{engine_port}"]
proxy = "http://{proxy}"
{extra_egress}
[engines.wikipedia]
type = "wikipedia"
endpoint = "http://{ENGINE_NAME}:{engine_port}/w/api.php"
timeout_ms = 2500
"#
    )
}

// Verifies: REQ-RES-008 (engine traffic goes through the configured proxy; environment proxies are ignored)
#[test]
fn searches_through_the_configured_proxy_and_never_an_environment_proxy() {
    let engine = FakeHttp::start(Reply::json(&fixture()));
    let proxy = FakeProxy::start(engine.port(), None);
    let decoy = FakeHttp::start(Reply::json(b"{}"));
    let decoy_url = format!("http://127.0.0.1:{}", decoy.port());
    let mut server = Server::start_with_env(
        Some(&proxied_config(
            engine.port(),
            proxy.addr,
            "proxy_auth_env = \"RYPSOK_TEST_PROXY_AUTH\"",
        )),
        &[
            ("RYPSOK_TEST_PROXY_AUTH", "alice:s3cret"),
            ("HTTP_PROXY", &decoy_url),
            ("HTTPS_PROXY", &decoy_url),
            ("ALL_PROXY", &decoy_url),
            ("http_proxy", &decoy_url),
            ("https_proxy", &decoy_url),
            ("all_proxy", &decoy_url),
        ],
    );
    server.initialize();
    let result = server.call("web_search", json!({"query": "counter strike"}));
    assert_eq!(structured(&result)["outcome"], json!("ok"), "{result}");
    let seen = proxy.seen();
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert!(
        seen[0].0.starts_with(&format!(
            "http://{ENGINE_NAME}:{}/w/api.php?",
            engine.port()
        )),
        "{seen:?}"
    );
    // Basic alice:s3cret, and the engine never sees it.
    assert_eq!(seen[0].1.as_deref(), Some("Basic YWxpY2U6czNjcmV0"));
    assert!(
        engine.seen()[0]
            .headers
            .iter()
            .all(|(name, _)| name != "proxy-authorization")
    );
    assert_eq!(decoy.connections.load(Ordering::Acquire), 0);
    // The call's lines are in before the log is searched for the secret.
    server.await_log(&[("event", json!("engine_result"))], Duration::from_secs(5));
    let stderr = server.stderr.lock().expect("stderr").join("\n");
    assert!(!stderr.contains("s3cret") && !stderr.contains("YWxpY2U6czNjcmV0"));
}

// Verifies: REQ-RES-008, REQ-ERR-002 (a proxy answering 407 reads as proxy_auth, not "retry later")
#[test]
fn a_proxy_asking_for_credentials_names_proxy_auth() {
    let engine = FakeHttp::start(Reply::json(&fixture()));
    let proxy = FakeProxy::start(engine.port(), Some(407));
    let mut server = Server::start(Some(&proxied_config(engine.port(), proxy.addr, "")));
    server.initialize();
    let result = server.call("web_search", json!({"query": "counter strike"}));
    let error = &structured(&result)["error"];
    assert_eq!(error["detail"]["reason"], json!("all_failed"), "{result}");
    assert_eq!(
        error["detail"]["engines"],
        json!({"wikipedia": "proxy_auth"})
    );
    assert_eq!(proxy.seen()[0].1, None);
    assert_eq!(engine.connections.load(Ordering::Acquire), 0);
    let line = server.await_log(
        &[
            ("event", json!("engine_result")),
            ("cause", json!("proxy_auth")),
        ],
        Duration::from_secs(5),
    );
    assert!(line.is_some(), "{:?}", server.log());
}

// Verifies: REQ-ERR-002 (all_failed names each failed engine's cause, without any network)
#[test]
fn all_failed_names_each_engines_cause_offline() {
    let closed = {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        listener.local_addr().expect("local addr").port()
    };
    let blocked = FakeHttp::start(Reply::json(b"{}").with_status(429, "application/json"));
    let config = format!(
        r#"config_version = 1
[service]
contact = "ops@example.org"
[egress]
allow = ["127.0.0.1:*"]
[engines.wikipedia]
type = "wikipedia"
endpoint = "http://127.0.0.1:{closed}/w/api.php"
[engines.wiki2]
type = "wikipedia"
endpoint = "http://127.0.0.1:{}/w/api.php"
"#,
        blocked.port()
    );
    let mut server = Server::start(Some(&config));
    server.initialize();
    let result = server.call("web_search", json!({"query": "anything"}));
    let error = &structured(&result)["error"];
    assert_eq!(error["kind"], json!("unavailable"), "{result}");
    assert_eq!(error["detail"]["reason"], json!("all_failed"));
    assert_eq!(
        error["detail"]["engines"],
        json!({"wikipedia": "connect", "wiki2": "rate_limit"})
    );
    let line = server.await_log(
        &[
            ("event", json!("engine_result")),
            ("cause", json!("connect")),
        ],
        Duration::from_secs(5),
    );
    assert!(line.is_some(), "{:?}", server.log());
}

// Verifies: REQ-RES-008 (https through a CONNECT tunnel; the operator's CA is trusted only with ca_file)
#[test]
fn a_tls_engine_signed_by_the_operators_ca_is_trusted_only_with_ca_file() {
    let engine_port = start_tls_engine(fixture()).port;
    let proxy = FakeProxy::start(engine_port, None);
    let config = |extra: &str| {
        proxied_config(engine_port, proxy.addr, extra).replace(
            &format!("http://{ENGINE_NAME}:{engine_port}/w/api.php"),
            &format!("https://{ENGINE_NAME}:{engine_port}/w/api.php"),
        )
    };
    let mut server = Server::start(Some(&config("")));
    server.initialize();
    let result = server.call("web_search", json!({"query": "counter strike"}));
    let error = &structured(&result)["error"];
    assert_eq!(
        error["detail"]["engines"],
        json!({"wikipedia": "tls"}),
        "{result}"
    );
    assert_eq!(proxy.seen()[0].0, format!("{ENGINE_NAME}:{engine_port}"));
    drop(server);

    let ca = workspace_file("tests/certs/test-ca.pem");
    let mut server = Server::start(Some(&config(&format!(
        "ca_file = {:?}",
        ca.display().to_string()
    ))));
    server.initialize();
    let result = server.call("web_search", json!({"query": "counter strike"}));
    assert_eq!(structured(&result)["outcome"], json!("ok"), "{result}");
}

// Verifies: REQ-RES-008 (check names the roots in use and refuses a ca_file without a certificate)
#[test]
fn check_names_the_roots_in_use_and_refuses_an_unusable_ca_file() {
    let dir = TempDir::new("ca-file");
    let empty = dir.write("empty.pem", "");
    let ca = workspace_file("tests/certs/test-ca.pem");
    let run = |ca_file: &std::path::Path| {
        let config = dir.write(
            "rypsok.toml",
            &format!(
                "config_version = 1\n[egress]\nca_file = {:?}\n",
                ca_file.display().to_string()
            ),
        );
        #[allow(clippy::disallowed_methods)] // the binary under test
        std::process::Command::new(binary())
            .arg("check")
            .arg("--config")
            .arg(&config)
            .output()
            .expect("run check")
    };
    let out = run(&ca);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("TLS roots: the built-in web roots and 1 certificate(s) from"),
        "{stdout}"
    );
    let out = run(&empty);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("egress.ca_file: the file holds no PEM certificate"),
        "{stderr}"
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("configuration invalid: 1 problem(s)"));
}
