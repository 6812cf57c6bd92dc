//! The operator's command line (design §13.1, §13.2).
// Black-box tests start the binary as an operator would.
#![allow(clippy::disallowed_methods)]

use std::process::Command;
use std::time::Duration;

use crate::support::{Server, TempDir, binary, workspace_file};

fn rypsok(args: &[&str]) -> std::process::Output {
    Command::new(binary())
        .args(args)
        .env_remove("RYPSOK_CONFIG")
        .output()
        .expect("run rypsok")
}

// Verifies: REQ-OPS-001 (--version prints the version, exit 0)
#[test]
fn prints_its_version() {
    let out = rypsok(&["--version"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("rypsok "));
}

// Verifies: REQ-OPS-001 (usage errors exit 2 with a message on stderr)
#[test]
fn exits_two_on_usage_errors() {
    for args in [
        &["serve", "--transport"][..],
        &["frobnicate"],
        &["serve", "--transport", "carrier-pigeon"],
        &["check", "--transport", "stdio"],
    ] {
        let out = rypsok(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}: stdout must stay clean");
        assert!(!out.stderr.is_empty(), "{args:?}");
    }
}

// Verifies: REQ-OPS-001, REQ-MCP-002 (stdio is the default transport: `rypsok serve` and plain `rypsok` serve MCP on stdin/stdout until end of input)
#[test]
fn serve_and_no_command_at_all_serve_stdio() {
    for args in [&["serve"][..], &[]] {
        let mut server = Server::start_with_args(args, None);
        let init = server.initialize();
        assert!(init["result"]["serverInfo"].is_object(), "{args:?}: {init}");
        let tools = server.request("tools/list", serde_json::json!({}));
        let names: Vec<&str> = tools["result"]["tools"]
            .as_array()
            .map(|t| t.iter().filter_map(|t| t["name"].as_str()).collect())
            .unwrap_or_default();
        assert_eq!(names.len(), 3, "{args:?}: {tools}");
        for name in ["web_search", "web_fetch", "engine_status"] {
            assert!(names.contains(&name), "{args:?}: {name} in {names:?}");
        }
        let status = server.close_and_wait(Duration::from_secs(10));
        assert!(status.is_some_and(|s| s.success()), "{args:?}: {status:?}");
    }
}

// Verifies: REQ-SEC-018 (a configured token that cannot be read: nothing is served)
#[test]
fn http_refuses_to_start_without_its_token() {
    let dir = TempDir::new("http-token");
    let config = dir.write(
        "rypsok.toml",
        "config_version = 1\n[http]\nbind = \"127.0.0.1:0\"\nauth_token_env = \"RYPSOK_TEST_NO_SUCH_TOKEN\"\n",
    );
    let out = Command::new(binary())
        .args(["serve", "--transport", "http", "--config"])
        .arg(&config)
        .env_remove("RYPSOK_TEST_NO_SUCH_TOKEN")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run rypsok");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("auth_token_unreadable"));
}

/// Every configuration fixture with its `# expect:` lines.
fn fixtures() -> Vec<(String, std::path::PathBuf, Vec<String>)> {
    let dir = workspace_file("supervisor/core/testdata/config");
    let mut out: Vec<_> = std::fs::read_dir(&dir)
        .expect("config fixtures")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("fixture");
            let expect = text
                .lines()
                .filter_map(|l| l.strip_prefix("# expect: "))
                .map(str::to_owned)
                .collect();
            (
                p.file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into_owned(),
                p,
                expect,
            )
        })
        .collect();
    out.sort();
    out
}

// Verifies: REQ-CFG-005, REQ-OPS-001 (check lists every problem with its key path; exit 1)
#[test]
fn check_reports_every_problem_of_every_refused_fixture() {
    let all = fixtures();
    assert!(
        all.len() >= 10,
        "expected the refusal fixtures, found {}",
        all.len()
    );
    for (name, path, expect) in all {
        let out = Command::new(binary())
            .arg("check")
            .env("RYPSOK_CONFIG", &path)
            .output()
            .expect("run check");
        let stderr = String::from_utf8_lossy(&out.stderr);
        if expect == ["ok"] {
            assert_eq!(out.status.code(), Some(0), "{name}: {stderr}");
            continue;
        }
        assert_eq!(out.status.code(), Some(1), "{name}: {stderr}");
        for line in &expect {
            assert!(
                stderr.lines().any(|l| l == line),
                "{name}: missing `{line}` in:\n{stderr}"
            );
        }
        assert!(out.stdout.is_empty(), "{name}");
    }
}

// Verifies: REQ-CFG-003 (no file means defaults; check passes)
#[test]
fn check_accepts_no_file_at_all() {
    let out = rypsok(&["check"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

// Verifies: REQ-CFG-004 (an inline secret is refused and never printed)
#[test]
fn check_refuses_an_inline_secret_without_printing_it() {
    let dir = TempDir::new("inline-secret");
    let path = dir.write(
        "c.toml",
        "[engines.brave]\ntype = \"brave\"\napi_key = \"BSAxxxxxxxxxxxxxxxxxxxxxxxxxxxx1\"\n",
    );
    let out = Command::new(binary())
        .arg("check")
        .arg("--config")
        .arg(&path)
        .output()
        .expect("check");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr.contains("engines.brave.api_key"), "{stderr}");
    assert!(!stderr.contains("BSAxxx"), "{stderr}");
}

// Verifies: REQ-CFG-005 (serve refuses to start on an invalid configuration)
#[test]
fn serve_does_not_start_on_an_invalid_configuration() {
    let dir = TempDir::new("serve-invalid");
    let path = dir.write("c.toml", "config_version = 2\n");
    let out = Command::new(binary())
        .args(["serve", "--transport", "stdio", "--config"])
        .arg(&path)
        .output()
        .expect("serve");
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("config_version"));
}

// Verifies: REQ-CFG-001 (the shipped example configuration is valid)
#[test]
fn check_accepts_the_packaged_example() {
    let out = Command::new(binary())
        .arg("check")
        .arg("--config")
        .arg(workspace_file("packaging/rypsok.example.toml"))
        .output()
        .expect("check");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
