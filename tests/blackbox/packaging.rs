//! What a packager or an operator copies: the host snippets in
//! `packaging/hosts/`, `rypsok health` for orchestrators, the manual page,
//! the licence, and the paths the Markdown files link to.
// Black-box tests start the binary as an operator would.
#![allow(clippy::disallowed_methods)]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc::channel;
use std::thread;
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::{Server, TempDir, binary, workspace_file};

/// A command a host snippet names: program, arguments, environment.
#[derive(Debug)]
struct Launch {
    program: String,
    args: Vec<String>,
    env: Vec<(String, String)>,
}

/// The server entry of a host's JSON configuration: `mcpServers` (Claude
/// Desktop, Claude Code, Cursor) or `servers` with `type: stdio` (VS Code).
fn launch_from_json(name: &str, text: &str) -> Launch {
    let doc: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{name}: {e}"));
    let entry = doc
        .get("mcpServers")
        .or_else(|| doc.get("servers"))
        .and_then(|s| s.get("rypsok"))
        .unwrap_or_else(|| panic!("{name}: no rypsok server entry"));
    if doc.get("servers").is_some() || entry.get("type").is_some() {
        assert_eq!(entry["type"], "stdio", "{name}");
    }
    let strings = |v: &Value| -> Vec<String> {
        v.as_array()
            .unwrap_or_else(|| panic!("{name}: args is not a list"))
            .iter()
            .map(|a| a.as_str().expect("string argument").to_owned())
            .collect()
    };
    let env = entry
        .get("env")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), v.as_str().expect("string value").to_owned()))
                .collect()
        })
        .unwrap_or_default();
    Launch {
        program: entry["command"].as_str().expect("command").to_owned(),
        args: strings(&entry["args"]),
        env,
    }
}

/// The command after `--` of a shell snippet's one command line, with the
/// `--env`/`-e NAME=VALUE` options before it.
fn launch_from_shell(name: &str, text: &str) -> Launch {
    let line = text
        .lines()
        .find(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .unwrap_or_else(|| panic!("{name}: no command line"));
    let words: Vec<&str> = line.split_whitespace().collect();
    let dash = words
        .iter()
        .position(|w| *w == "--")
        .unwrap_or_else(|| panic!("{name}: no `--` before the server command"));
    let mut env = Vec::new();
    for pair in words[..dash].windows(2) {
        if pair[0] == "--env" || pair[0] == "-e" {
            let (k, v) = pair[1].split_once('=').expect("NAME=VALUE");
            env.push((k.to_owned(), v.to_owned()));
        }
    }
    let command = &words[dash + 1..];
    Launch {
        program: command[0].to_owned(),
        args: command[1..].iter().map(|s| (*s).to_owned()).collect(),
        env,
    }
}

/// Starts the snippet's command with the built binary in place of the
/// installed path and answers whether it answered `initialize`.
fn answers_initialize(name: &str, launch: &Launch) -> Value {
    // The command name works wherever rypsok is installed (the package's
    // /usr/bin or cargo's ~/.cargo/bin); an absolute path works for one.
    assert_eq!(
        launch.program, "rypsok",
        "{name}: the command should be the command name"
    );
    assert_eq!(launch.args, ["serve", "--transport", "stdio"], "{name}");
    let mut child = Command::new(binary())
        .args(&launch.args)
        .env_clear()
        .envs(launch.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start rypsok");
    let mut stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = channel();
    thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "host-snippet", "version": "1"}}});
    writeln!(stdin, "{init}").expect("write initialize");
    let answer = rx
        .recv_timeout(Duration::from_secs(10))
        .unwrap_or_else(|_| panic!("{name}: no answer to initialize"));
    drop(stdin);
    let status = child.wait().expect("wait");
    assert!(status.success(), "{name}: exit {status:?}");
    serde_json::from_str(&answer).expect("a JSON-RPC answer")
}

fn host_snippets() -> Vec<(String, String)> {
    let dir = workspace_file("packaging/hosts");
    let mut out: Vec<(String, String)> = std::fs::read_dir(&dir)
        .expect("packaging/hosts")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json" || x == "sh"))
        .map(|p| {
            let name = p.file_name().expect("name").to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).expect("read snippet"))
        })
        .collect();
    out.sort();
    out
}

// Verifies: REQ-DEP-001, REQ-DEP-005 (every host snippet, as copied, names a command that answers initialize: the command name, no placeholder key, Claude Code's server name first)
#[test]
fn every_host_snippet_starts_rypsok_far_enough_to_answer_initialize() {
    let snippets = host_snippets();
    let names: Vec<&str> = snippets.iter().map(|(n, _)| n.as_str()).collect();
    for expected in [
        "claude-desktop.json",
        "claude-code.mcp.json",
        "claude-code.sh",
        "vscode.mcp.json",
        "cursor.mcp.json",
        "inspector.sh",
        "container.json",
    ] {
        assert!(names.contains(&expected), "missing {expected} in {names:?}");
    }
    for (name, text) in &snippets {
        // Copied as they are, they must work: no path only the package
        // installs, no stand-in key that check would accept and Brave
        // refuse.
        assert!(!text.contains("/usr/bin"), "{name}: a package-only path");
        for placeholder in ["your-", "YOUR_", "PASTE", "<key>", "xxxx"] {
            assert!(
                !text
                    .lines()
                    .filter(|l| !l.trim_start().starts_with('#'))
                    .any(|l| l.contains(placeholder)),
                "{name}: a placeholder key ({placeholder})"
            );
        }
        if name.ends_with(".sh") && text.contains("mcp add") {
            // The name before any option: `--env` takes many values and
            // would swallow a name after it.
            assert!(
                text.contains("claude mcp add rypsok "),
                "{name}: the server name comes first"
            );
        }
        let launch = if name.ends_with(".sh") {
            launch_from_shell(name, text)
        } else {
            launch_from_json(name, text)
        };
        if launch.program == "docker" {
            // No container runtime in the tests: the run line is checked
            // against the image's hardening instead of being run.
            let args = launch.args.join(" ");
            for flag in [
                "run -i --rm",
                "--read-only",
                "--cap-drop ALL",
                "--security-opt no-new-privileges",
                "-e BRAVE_API_KEY",
            ] {
                assert!(args.contains(flag), "{name}: {flag} missing in {args}");
            }
            assert_eq!(launch.args.last().map(String::as_str), Some("rypsok"));
            continue;
        }
        let answer = answers_initialize(name, &launch);
        assert_eq!(answer["id"], 1, "{name}: {answer}");
        assert_eq!(
            answer["result"]["serverInfo"]["name"], "rypsok",
            "{name}: {answer}"
        );
    }
}

fn health(config: &Path) -> (Option<i32>, String) {
    let out = Command::new(binary())
        .args(["health", "--config"])
        .arg(config)
        .env_remove("RYPSOK_CONFIG")
        .stdin(Stdio::null())
        .output()
        .expect("run rypsok health");
    assert!(out.stdout.is_empty(), "stdout stays clean");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

// Verifies: REQ-DEP-002, REQ-DEP-004 (the orchestrator's health check: one MCP request with the token; a token it cannot read named by its file and why)
#[test]
fn health_asks_the_listener_with_its_token() {
    let dir = TempDir::new("health");
    let token = dir.write("token", "health-check-token-0123456789\n");
    let wrong = dir.write("wrong", "another-token-9876543210\n");
    let mut server = Server::start_http(
        &format!(
            "config_version = 1\n[http]\nbind = \"127.0.0.1:0\"\nauth_token_file = \"{}\"\n",
            token.display()
        ),
        &[],
    );
    let addr = server.http_addr();
    let config = |token: &Path| {
        format!(
            "config_version = 1\n[http]\nbind = \"{addr}\"\nauth_token_file = \"{}\"\n",
            token.display()
        )
    };
    let good = dir.write("good.toml", &config(&token));
    let (code, stderr) = health(&good);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("healthy"), "{stderr}");

    let bad = dir.write("bad.toml", &config(&wrong));
    let (code, stderr) = health(&bad);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("HTTP 401"), "{stderr}");
    assert!(
        !stderr.contains("another-token"),
        "never echoes the token: {stderr}"
    );

    let missing = dir.write("missing.toml", &config(&token.with_file_name("absent")));
    let (code, stderr) = health(&missing);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("token could not be read"), "{stderr}");
    // It names the file it could not read, and why.
    let absent = token.with_file_name("absent");
    assert!(
        stderr.contains(&format!(
            "cannot read the file {}: no such file",
            absent.display()
        )),
        "{stderr}"
    );

    server.terminate();
    assert!(server.wait(Duration::from_secs(20)).is_some());
    let (code, stderr) = health(&good);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("no connection"), "{stderr}");
}

// Verifies: REQ-DEP-005, REQ-CFG-001 (the manual page is generated from the command line's definition; its FILES section gives the search order)
#[test]
fn the_manual_page_describes_the_public_commands() {
    let out = Command::new(binary())
        .arg("__manpage")
        .output()
        .expect("run rypsok __manpage");
    assert!(out.status.success());
    let page = String::from_utf8(out.stdout).expect("roff is UTF-8");
    assert!(
        page.starts_with(".ie") || page.contains(".TH rypsok 1"),
        "{page}"
    );
    for word in [
        "serve",
        "check",
        "health",
        "RYPSOK_CONFIG",
        ".SH FILES",
        "/etc/rypsok/rypsok.toml",
        "XDG_CONFIG_HOME",
    ] {
        assert!(page.contains(word), "{word} missing from the manual page");
    }
    assert!(!page.contains("__worker"), "hidden commands stay hidden");
}

// Verifies: REQ-DEP-005 (the licence file matches the manifests' licence)
#[test]
fn the_licence_file_matches_the_manifests() {
    let manifest = std::fs::read_to_string(workspace_file("Cargo.toml")).expect("Cargo.toml");
    assert!(manifest.contains("license = \"Apache-2.0\""));
    let licence = std::fs::read_to_string(workspace_file("LICENSE")).expect("LICENSE");
    assert!(licence.contains("Apache License"));
    assert!(licence.contains("Version 2.0, January 2004"));
    assert!(licence.contains("END OF TERMS AND CONDITIONS"));
}

/// Every Markdown file of the repository, outside build and dependency
/// folders.
fn markdown_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir)
        .expect("read dir")
        .filter_map(Result::ok)
    {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            if !matches!(
                name.as_str(),
                "target" | "node_modules" | ".git" | "corpus" | "artifacts"
            ) {
                markdown_files(&path, out);
            }
        } else if name.ends_with(".md") {
            out.push(path);
        }
    }
}

/// The targets of a Markdown text's inline links `[text](target)`.
fn link_targets(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("](") {
        let after = &rest[i + 2..];
        let Some(end) = after.find(')') else { break };
        let target = after[..end].split_whitespace().next().unwrap_or("");
        out.push(target.to_owned());
        rest = &after[end..];
    }
    out
}

/// Paths a Markdown text names in backticks that start at one of the
/// repository's top-level folders (`packaging/...`, `tests/...`).
fn named_paths(text: &str, roots: &[String]) -> Vec<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .filter(|s| {
            !s.contains(char::is_whitespace)
                && s.contains('/')
                && roots.iter().any(|r| s.starts_with(&format!("{r}/")))
                // A placeholder in capitals (TARGET, BENCH_DIR) or a glob
                // names no one file.
                && !s.split('/').any(|part| {
                    part.len() > 1 && part.chars().all(|c| c.is_ascii_uppercase() || c == '_')
                })
                && !s.contains(['*', '…', '<'])
        })
        .map(|s| s.trim_end_matches(['.', ',', ':']).to_owned())
        .collect()
}

// Verifies: REQ-DEP-005 (every path a document links to or names exists)
#[test]
fn every_relative_link_and_named_path_in_the_markdown_files_exists() {
    let root = workspace_file("");
    let roots: Vec<String> = std::fs::read_dir(&root)
        .expect("workspace")
        .filter_map(Result::ok)
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n != "target" && !n.starts_with('.'))
        .chain([".ci".to_owned()])
        .collect();
    let mut files = Vec::new();
    markdown_files(&root, &mut files);
    assert!(files.len() >= 5, "{files:?}");
    let mut broken = Vec::new();
    let mut checked = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).expect("read markdown");
        let dir = file.parent().expect("parent");
        for target in link_targets(&text) {
            if target.is_empty()
                || target.starts_with('#')
                || target.contains("://")
                || target.starts_with("mailto:")
            {
                continue;
            }
            let path = target.split('#').next().unwrap_or("");
            checked += 1;
            if !dir.join(path).exists() {
                broken.push(format!("{}: link {target}", file.display()));
            }
        }
        for named in named_paths(&text, &roots) {
            // Generated folders are named by what creates them.
            if named.starts_with("fuzz/corpus") || named.starts_with("fuzz/artifacts") {
                continue;
            }
            checked += 1;
            if !root.join(&named).exists() {
                broken.push(format!("{}: names {named}", file.display()));
            }
        }
    }
    assert!(
        checked >= 20,
        "only {checked} paths found: is the scan broken?"
    );
    assert!(
        broken.is_empty(),
        "paths that do not exist:\n{}",
        broken.join("\n")
    );
}

// Verifies: REQ-DEP-005 (the README's first screen states the Rust version rust-toolchain.toml pins, and the install lines from a machine without Rust)
#[test]
fn the_readme_states_the_pinned_rust_version_on_its_first_screen() {
    let toolchain =
        std::fs::read_to_string(workspace_file("rust-toolchain.toml")).expect("toolchain");
    let channel = toolchain
        .lines()
        .find_map(|l| l.trim().strip_prefix("channel = "))
        .map(|v| v.trim_matches('"').to_owned())
        .expect("a pinned channel");
    let readme = std::fs::read_to_string(workspace_file("README.md")).expect("README");
    let first_screen: String = readme.lines().take(25).collect::<Vec<_>>().join("\n");
    for line in [
        format!("Rust {channel}"),
        "sh.rustup.rs".to_owned(),
        "cargo install --locked --path supervisor".to_owned(),
        "rypsok check".to_owned(),
    ] {
        assert!(
            first_screen.contains(&line),
            "{line} missing from the README's first screen"
        );
    }
}
