//! The book's tutorials (`packaging/docs/src/tutorials/`), run: every
//! command a tutorial shows is either executed here against loopback fakes
//! and temporary folders (with the output the page states), or listed in
//! [`NOT_RUN`] with the reason the tests cannot run it (a container runtime,
//! the network, a package manager). A page's configuration and answer
//! blocks are marked `<!-- tutorial: NAME -->` before their fence; the
//! tests read them from the page, so a page that disagrees with the binary
//! fails here. The "Reading a response" page has its own test (`book`).
// Black-box tests start the binary (and the page's shell lines) as an
// operator would.
#![allow(clippy::disallowed_methods)]

use std::net::TcpListener;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use serde_json::{Value, json};

use crate::fetch::{Page, Site};
use crate::support::{Server, TempDir, binary, structured, workspace_file};

const TUTORIALS: &str = "packaging/docs/src/tutorials";

/// Commands a tutorial shows that no test runs, each with why.
const NOT_RUN: &[(&str, &str)] = &[
    (
        "cargo install --locked --path supervisor",
        "builds and installs: the tests run the binary this build made",
    ),
    (
        "npx @modelcontextprotocol/inspector --cli rypsok serve --method tools/list",
        "needs npm: tests/conformance/inspector.sh runs it against the pinned Inspector",
    ),
    (
        "docker build -f packaging/container/Containerfile -t rypsok .",
        "needs a container runtime",
    ),
    (
        "docker run -i --rm --read-only --cap-drop ALL --security-opt no-new-privileges -e BRAVE_API_KEY rypsok",
        "needs a container runtime; packaging.rs checks the same line in hosts/container.json",
    ),
    (
        "docker compose -f packaging/container/compose.yaml up -d",
        "needs a container runtime; the compose file's paths are checked here",
    ),
    (
        "docker run --rm --read-only --cap-drop ALL --security-opt no-new-privileges rypsok check",
        "needs a container runtime; `rypsok check` itself is run here",
    ),
    (
        "read -rs BRAVE_API_KEY && export BRAVE_API_KEY",
        "reads the terminal; the tests set the variable instead",
    ),
    (
        "sudo chown 65532:65532 packaging/container/token",
        "needs root and a user 65532; the owner is checked against compose.yaml's user here",
    ),
];

/// The command lines of a page: its indented code blocks.
fn commands(page: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut previous_blank = true;
    let mut in_block = false;
    let mut in_fence = false;
    for line in page.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        let indented = line.starts_with("    ") && !line.trim().is_empty();
        if indented && (previous_blank || in_block) {
            in_block = true;
            out.push(line.trim().to_owned());
        } else if !line.trim().is_empty() {
            in_block = false;
        }
        previous_blank = line.trim().is_empty();
    }
    out
}

/// The fenced block after `<!-- tutorial: NAME -->`.
fn block(page: &str, name: &str) -> String {
    let marker = format!("<!-- tutorial: {name} -->");
    let after = page
        .split_once(&marker)
        .unwrap_or_else(|| panic!("no {marker}"))
        .1;
    let fence = after.split_once("```").expect("a fence").1;
    let body = fence.split_once('\n').expect("a fence line").1;
    body.split_once("```")
        .expect("a closing fence")
        .0
        .to_owned()
}

fn page(name: &str) -> String {
    std::fs::read_to_string(workspace_file(&format!("{TUTORIALS}/{name}")))
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Runs one of the page's shell lines in `dir`, `sudo` dropped and
/// `/etc/rypsok` moved to `etc`.
fn shell(line: &str, dir: &Path, etc: &Path) -> std::process::Output {
    let line = line
        .replace("sudo ", "")
        .replace("/etc/rypsok", &etc.to_string_lossy());
    Command::new("sh")
        .arg("-c")
        .arg(&line)
        .current_dir(dir)
        .env("USER", whoami())
        .output()
        .unwrap_or_else(|e| panic!("{line}: {e}"))
}

fn whoami() -> String {
    let out = Command::new("id").arg("-un").output().expect("id");
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

fn rypsok(args: &[&str], config: Option<&Path>, env: &[(&str, &str)]) -> (Option<i32>, String) {
    let mut command = Command::new(binary());
    command.args(args).env_clear();
    if let Some(config) = config {
        command.arg("--config").arg(config);
    }
    command.envs(env.iter().copied());
    let out = command.output().expect("run rypsok");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code(), text)
}

/// A loopback port free now.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// A server on this configuration, past its handshake.
fn serving(config: &str) -> Server {
    let mut server = Server::start(Some(config));
    server.initialize();
    server
}

fn fetch(server: &mut Server, url: &str) -> Value {
    structured(&server.call("web_fetch", json!({ "url": url }))).clone()
}

// Verifies: REQ-DEP-005 (every command a tutorial shows is run by a test, or listed with the reason it cannot be)
#[test]
fn every_command_a_tutorial_shows_is_run_or_listed_with_a_reason() {
    let run: Vec<String> = [
        "rypsok check",
        "rypsok serve",
        "rypsok check --config rypsok.toml",
        "rypsok check --config /etc/rypsok/rypsok.toml",
        "rypsok serve --transport http --config /etc/rypsok/rypsok.toml",
        "rypsok health --config /etc/rypsok/rypsok.toml",
        "sudo mkdir -p /etc/rypsok",
        "head -c 32 /dev/urandom | base64 | sudo tee /etc/rypsok/token > /dev/null",
        "sudo chown \"$USER\" /etc/rypsok/token && sudo chmod 600 /etc/rypsok/token",
        "(umask 077; head -c 32 /dev/urandom | base64 > packaging/container/token)",
    ]
    .map(str::to_owned)
    .to_vec();
    let mut unknown = Vec::new();
    for entry in std::fs::read_dir(workspace_file(TUTORIALS)).expect("tutorials") {
        let path = entry.expect("entry").path();
        let text = std::fs::read_to_string(&path).expect("page");
        for command in commands(&text) {
            // A continuation of a command shown over two lines.
            if command.starts_with("--") || command.starts_with("packaging/") {
                continue;
            }
            if !run.contains(&command) && !NOT_RUN.iter().any(|(c, _)| *c == command) {
                unknown.push(format!("{}: {command}", path.display()));
            }
        }
    }
    assert!(
        unknown.is_empty(),
        "commands no test runs; run them in tutorials.rs or list why not: {unknown:#?}"
    );
}

// Verifies: REQ-SEC-005, REQ-SEC-006, REQ-DEP-005 (the egress tutorial's steps: the refusals it shows are the binary's answers, and its allow rule admits the mirror)
#[test]
fn the_egress_tutorial_answers_as_the_page_says() {
    let text = page("egress.md");
    let config = |toml: &str| format!("config_version = 1\n{toml}");
    // Step 1: hosts alone admits nothing.
    let mut server = serving(&config(&block(&text, "step-1")));
    let port = fetch(&mut server, "http://docs.intranet.example:8080/guide");
    let shown: Value = serde_json::from_str(&block(&text, "step-1-port")).expect("JSON");
    assert_eq!(port, shown, "step 1, port 8080");
    let address = fetch(&mut server, "http://docs.intranet.example/guide");
    let shown: Value = serde_json::from_str(&block(&text, "step-1-address")).expect("JSON");
    assert_eq!(address, shown, "step 1, port 80");
    let logged = server
        .await_log(
            &[
                ("event", json!("egress_refused")),
                ("refused", json!("address_class")),
            ],
            Duration::from_secs(5),
        )
        .expect("an egress_refused line");
    assert!(
        text.contains("`\"refused\":\"address_class\"`"),
        "the page names the field as logged: {logged}"
    );
    drop(server);

    // Step 2 against a loopback mirror: the page's address and port moved
    // to the fake's.
    let mirror = Site::start();
    mirror.page(
        "/guide",
        Page::new(
            200,
            "text/html; charset=utf-8",
            "<html><head><title>Guide</title></head><body><main><p>The intranet guide.</p></main></body></html>",
        ),
    );
    let moved = |toml: String| {
        toml.replace("10.1.2.3", "127.0.0.1")
            .replace(":8080", &format!(":{}", mirror.port()))
    };
    let step_2 = moved(block(&text, "step-2"));
    let mut server = serving(&config(&step_2));
    let read = fetch(
        &mut server,
        &format!("http://docs.intranet.example:{}/guide", mirror.port()),
    );
    assert!(
        read.get("error").is_none(),
        "step 2 reads the mirror: {read}"
    );
    assert!(
        read["content"]
            .as_str()
            .is_some_and(|c| c.contains("intranet guide")),
        "{read}"
    );
    drop(server);

    // Step 3: a rule without a port, the mirror on another port.
    let step_3 = block(&text, "step-3");
    let hosts = "[egress.hosts]\n\"docs.intranet.example\" = [\"127.0.0.1\"]\n";
    let mut server = serving(&config(&format!(
        "[egress]\nallow_http = true\n{step_3}{hosts}"
    )));
    let refused = fetch(
        &mut server,
        &format!("http://docs.intranet.example:{}/guide", mirror.port()),
    );
    assert_eq!(refused["error"]["kind"], json!("denied"), "{refused}");
    assert_eq!(
        refused["error"]["detail"],
        json!({"reason": "egress", "refused": "port"}),
        "step 3: {refused}"
    );
    assert!(text.contains("`denied`, `egress`, `\"refused\":\"port\"`"));
}

// Verifies: REQ-SEC-018, REQ-DEP-002, REQ-DEP-005 (the HTTP tutorial's commands, run in order in a temporary folder: the token, check, serve, health)
#[test]
fn the_http_tutorial_runs_as_written() {
    let text = page("http.md");
    let dir = TempDir::new("tutorial-http");
    let etc = dir.path().join("etc-rypsok");
    // Step 1, as shown: the folder is made by the page's first line.
    for line in commands(&text).iter().take(3) {
        let out = shell(line, dir.path(), &etc);
        assert!(out.status.success(), "{line}: {out:?}");
    }
    let token = etc.join("token");
    let mode = std::os::unix::fs::PermissionsExt::mode(
        &std::fs::metadata(&token)
            .expect("the token file")
            .permissions(),
    );
    assert_eq!(mode & 0o777, 0o600, "only its owner reads the token");

    // Step 2: the page's configuration, the token path and the bind moved
    // to the test's folder and a free loopback port.
    let port = free_port();
    let config_text = block(&text, "http-config")
        .replace("/etc/rypsok", &etc.to_string_lossy())
        .replace("0.0.0.0:8808", &format!("127.0.0.1:{port}"));
    assert!(config_text.contains(&format!("127.0.0.1:{port}")));
    let config = etc.join("rypsok.toml");
    std::fs::write(&config, &config_text).expect("write the configuration");
    let (code, said) = rypsok(&["check"], Some(&config), &[]);
    assert_eq!(code, Some(0), "{said}");
    assert!(said.contains("configuration valid"), "{said}");
    assert!(
        said.contains(&format!("configuration file: {}", config.display())),
        "{said}"
    );
    assert!(text.contains("`configuration file:\n/etc/rypsok/rypsok.toml`"));

    // Step 3: serve; step 5: health, as the page says it answers.
    let server = Server::start_http(&config_text, &[]);
    let started = server
        .await_log(&[("event", json!("started"))], Duration::from_secs(10))
        .expect("started");
    assert!(started["config_file"].is_string(), "{started}");
    let (code, said) = rypsok(&["health"], Some(&config), &[]);
    assert_eq!(code, Some(0), "{said}");
    assert!(
        said.contains(&format!(
            "healthy: the listener at 127.0.0.1:{port} answered tools/list"
        )),
        "{said}"
    );
    assert!(text.contains("`healthy: the listener at 127.0.0.1:8808 answered\ntools/list`"));
    server.terminate();
}

// Verifies: REQ-DEP-003, REQ-DEP-005 (the container tutorial's token is made where compose.yaml reads it, readable by the user the container runs as only)
#[test]
fn the_container_tutorial_makes_the_token_compose_reads() {
    let text = page("container.md");
    let compose = std::fs::read_to_string(workspace_file("packaging/container/compose.yaml"))
        .expect("compose.yaml");
    // Compose resolves `file:` beside the compose file.
    let secret = compose
        .split_once("rypsok_token:")
        .and_then(|(_, rest)| rest.split_once("file:"))
        .map(|(_, rest)| rest.lines().next().unwrap_or("").trim().to_owned())
        .expect("the token secret's file");
    let resolved = format!("packaging/container/{}", secret.trim_start_matches("./"));
    let makes = commands(&text)
        .into_iter()
        .find(|c| c.contains("/dev/urandom"))
        .expect("the token line");
    assert!(
        makes.ends_with(&format!("> {resolved})")),
        "{makes} vs {resolved}"
    );
    assert!(
        makes.contains("umask 077"),
        "only its owner reads it: {makes}"
    );
    // Run as written, from a copy of the folder layout.
    let dir = TempDir::new("tutorial-container");
    std::fs::create_dir_all(dir.path().join("packaging/container")).expect("folders");
    let out = shell(&makes, dir.path(), dir.path());
    assert!(out.status.success(), "{out:?}");
    let mode = std::os::unix::fs::PermissionsExt::mode(
        &std::fs::metadata(dir.path().join(&resolved))
            .expect("the token")
            .permissions(),
    );
    assert_eq!(mode & 0o777, 0o600);
    // The owner the page gives is the user compose runs the container as.
    let user = compose
        .lines()
        .find_map(|l| l.trim().strip_prefix("user: "))
        .map(|u| u.trim_matches('"').to_owned())
        .expect("compose's user");
    assert!(
        text.contains(&format!("sudo chown {user} {resolved}")),
        "the page's chown names {user}"
    );
}

// Verifies: REQ-CFG-001, REQ-DEP-005 (the first-search and Brave tutorials: check's output as the pages give it, the host entry answering, the Brave configuration accepted and its missing key a warning)
#[test]
fn the_first_search_and_brave_tutorials_answer_as_the_pages_say() {
    let first = page("first-search.md");
    let empty = TempDir::new("tutorial-first");
    let xdg = empty.path().to_string_lossy().into_owned();
    let (code, said) = rypsok(&["check"], None, &[("XDG_CONFIG_HOME", &xdg)]);
    assert_eq!(code, Some(0), "{said}");
    for shown in ["configuration valid", "worker-net", "worker-parse"] {
        assert!(first.contains(&format!("`{shown}`")), "{shown}");
        assert!(said.contains(shown), "{shown}: {said}");
    }
    if !Path::new("/etc/rypsok/rypsok.toml").exists() {
        assert!(
            said.contains("configuration file: none (the defaults apply)"),
            "{said}"
        );
        assert!(first.contains("`configuration file: none (the defaults\napply)`"));
    }
    // The host entry names the command and arguments the page gives.
    let entry: Value = serde_json::from_str(&block(&first, "host-entry")).expect("JSON");
    let server = &entry["mcpServers"]["rypsok"];
    assert_eq!(server["command"], json!("rypsok"));
    let args: Vec<&str> = server["args"]
        .as_array()
        .expect("args")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let mut started = Server::start_with_args(&args, None);
    assert!(started.initialize()["result"]["serverInfo"].is_object());
    drop(started);

    let brave = page("brave.md");
    let dir = TempDir::new("tutorial-brave");
    let config = dir.write("rypsok.toml", &block(&brave, "brave-config"));
    // `rypsok check --config rypsok.toml` with the key file missing: a
    // warning, exit 0, as the page says.
    let (code, said) = rypsok(&["check"], Some(&config), &[]);
    assert_eq!(code, Some(0), "{said}");
    assert!(
        said.contains(
            "warning: engines.brave.api_key_file: cannot read the file /run/secrets/brave"
        ),
        "{said}"
    );
    assert!(brave.contains("`check` warns, and still exits 0"));
    // `rypsok check` with the key exported: a placeholder is warned about.
    let (code, said) = rypsok(
        &["check"],
        None,
        &[("BRAVE_API_KEY", "your-key"), ("XDG_CONFIG_HOME", &xdg)],
    );
    assert_eq!(code, Some(0), "{said}");
    assert!(said.contains("holds a placeholder"), "{said}");
    assert!(!said.contains("your-key"), "{said}");
    // `rypsok serve` with it exported serves.
    let mut served = Server::start_with_env(None, &[("BRAVE_API_KEY", "BSAq7rT0kLm2Xw9vYz3N")]);
    served.initialize();
    let status = served.call("engine_status", json!({}));
    assert!(status.to_string().contains("\"brave\""), "{status}");
}

// Verifies: REQ-RES-008, REQ-DEP-005 (the proxy tutorial's CA step: check names the roots in use, and refuses a file holding no certificate, as the page shows)
#[test]
fn the_proxy_tutorial_check_answers_as_the_page_says() {
    let proxy = page("proxy.md");
    let dir = TempDir::new("tutorial-proxy");
    let shown_ca = "/etc/ssl/corp-root.pem";
    let ca = dir.write(
        "corp-root.pem",
        &std::fs::read_to_string(workspace_file("tests/certs/test-ca.pem")).expect("test CA"),
    );
    let config_text = block(&proxy, "proxy-ca");
    assert!(config_text.contains(shown_ca), "{config_text}");
    let with_ca = |ca: &Path| config_text.replace(shown_ca, &ca.to_string_lossy());
    let config = dir.write("rypsok.toml", &with_ca(&ca));
    let (code, said) = rypsok(&["check"], Some(&config), &[]);
    assert_eq!(code, Some(0), "{said}");
    for line in block(&proxy, "ca-in-use").lines() {
        let line = line.replace(shown_ca, &ca.to_string_lossy());
        assert!(said.lines().any(|l| l == line), "{line:?} missing:\n{said}");
    }
    let empty = dir.write("empty.pem", "not a certificate\n");
    let config = dir.write("bad.toml", &with_ca(&empty));
    let (code, said) = rypsok(&["check"], Some(&config), &[]);
    assert_eq!(code, Some(1), "{said}");
    for line in block(&proxy, "ca-unusable").lines() {
        assert!(said.lines().any(|l| l == line), "{line:?} missing:\n{said}");
    }
}

// Verifies: REQ-DEP-005 (the measured clients' page names the Inspector version the conformance suite pins)
#[test]
fn the_reading_text_page_names_the_pinned_inspector() {
    let lock: Value = serde_json::from_str(
        &std::fs::read_to_string(workspace_file("tests/conformance/package-lock.json"))
            .expect("package-lock.json"),
    )
    .expect("JSON");
    let pinned = lock["packages"]["node_modules/@modelcontextprotocol/inspector"]["version"]
        .as_str()
        .expect("the pinned Inspector");
    let text = std::fs::read_to_string(workspace_file("packaging/docs/src/reading-text.md"))
        .expect("reading-text.md");
    let row = text
        .lines()
        .find(|l| l.starts_with("| MCP Inspector"))
        .expect("the Inspector's row");
    assert!(row.contains(&format!("| {pinned} |")), "{row} vs {pinned}");
}
