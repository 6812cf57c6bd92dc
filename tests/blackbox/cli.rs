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

// Verifies: REQ-SEC-018, REQ-CFG-004 (a configured token that cannot be read: nothing is served, and the key and variable are named)
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
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("auth_token_unreadable"), "{stderr}");
    // Which key, and what it names.
    assert!(stderr.contains("http.auth_token_env"), "{stderr}");
    assert!(
        stderr.contains("the environment variable RYPSOK_TEST_NO_SUCH_TOKEN is not set"),
        "{stderr}"
    );
}

/// What `--config` names for a fixture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ConfigArg {
    /// The fixture itself.
    This,
    /// A file that does not exist.
    Missing,
    /// A directory.
    Directory,
}

/// One configuration fixture and its header lines (`tests/check/README.md`).
#[derive(Debug)]
struct Fixture {
    name: String,
    path: std::path::PathBuf,
    expect: Vec<String>,
    config: ConfigArg,
    files: Vec<String>,
    env: Vec<String>,
    unset: Vec<String>,
}

/// Every fixture of a directory, by name.
fn fixtures(relative: &str) -> Vec<Fixture> {
    let dir = workspace_file(relative);
    let mut out: Vec<_> = std::fs::read_dir(&dir)
        .expect("config fixtures")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .map(|path| {
            let text = std::fs::read_to_string(&path).expect("fixture");
            let header = |prefix: &str| -> Vec<String> {
                text.lines()
                    .filter_map(|l| l.strip_prefix(prefix))
                    .map(str::to_owned)
                    .collect()
            };
            let config = match header("# config: ").first().map(String::as_str) {
                None => ConfigArg::This,
                Some("missing") => ConfigArg::Missing,
                Some("directory") => ConfigArg::Directory,
                Some(other) => panic!("{}: unknown `# config: {other}`", path.display()),
            };
            Fixture {
                name: path
                    .file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into_owned(),
                expect: header("# expect: "),
                config,
                files: header("# with-file: "),
                env: header("# with-env: "),
                unset: header("# unset-env: "),
                path,
            }
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// What every secret of a fixture holds; it must never be printed.
const FIXTURE_SECRET: &str = "fixture-secret-3f9c2a7e";

/// Runs `rypsok check` on a fixture as its header asks and checks the exit
/// code, the verdict on stdout and every line on stderr.
fn check_fixture(fixture: &Fixture) {
    let name = &fixture.name;
    let dir = TempDir::new("check");
    let root = dir.write(".keep", "").parent().expect("dir").to_path_buf();
    for file in &fixture.files {
        dir.write(file, &format!("{FIXTURE_SECRET}\n"));
    }
    let config = match fixture.config {
        ConfigArg::This => fixture.path.clone(),
        ConfigArg::Missing => root.join("no-such.toml"),
        ConfigArg::Directory => root.clone(),
    };
    let mut command = Command::new(binary());
    command
        .arg("check")
        .arg("--config")
        .arg(&config)
        .current_dir(&root)
        .env_clear();
    if !fixture.unset.iter().any(|v| v == "BRAVE_API_KEY") {
        command.env("BRAVE_API_KEY", FIXTURE_SECRET);
    }
    for variable in &fixture.env {
        command.env(variable, FIXTURE_SECRET);
    }
    let out = command.output().expect("run check");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let expect: Vec<String> = fixture
        .expect
        .iter()
        .filter(|l| *l != "ok")
        .map(|l| l.replace("{dir}", &root.to_string_lossy()))
        .collect();
    assert!(!fixture.expect.is_empty(), "{name}: no `# expect:` line");
    let problems = expect
        .iter()
        .filter(|l| !l.starts_with("warning: "))
        .count();
    let verdict = if problems == 0 {
        "configuration valid".to_owned()
    } else {
        format!("configuration invalid: {problems} problem(s)")
    };
    assert_eq!(
        out.status.code(),
        Some(i32::from(problems > 0)),
        "{name}: {stderr}"
    );
    assert_eq!(
        stdout.lines().next(),
        Some(verdict.as_str()),
        "{name}: {stdout}"
    );
    assert_eq!(stderr.lines().collect::<Vec<_>>(), expect, "{name}");
    assert!(
        !stdout.contains(FIXTURE_SECRET) && !stderr.contains(FIXTURE_SECRET),
        "{name}: a secret was printed"
    );
}

// Verifies: REQ-CFG-005, REQ-OPS-001 (check lists every problem with its key path on stderr, its verdict on stdout; exit 1)
#[test]
fn check_reports_every_problem_of_every_refused_fixture() {
    let all = fixtures("supervisor/core/testdata/config");
    assert!(
        all.len() >= 10,
        "expected the refusal fixtures, found {}",
        all.len()
    );
    for fixture in &all {
        check_fixture(fixture);
    }
}

// Verifies: REQ-CFG-004, REQ-CFG-005 (check reads what the file names: an unreadable secret is a problem naming its key and its variable or file, an engine left inactive a warning, an unreadable configuration file its path and why)
#[test]
fn check_reports_what_serve_would_refuse_or_leave_inactive() {
    let all = fixtures("tests/check");
    assert!(all.len() >= 12, "fixtures missing: {}", all.len());
    for fixture in &all {
        check_fixture(fixture);
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

// Verifies: REQ-CFG-004 (a secret pasted where its reference belongs is never printed back: not by check, serve in either transport, nor health)
#[test]
fn a_secret_pasted_into_a_reference_key_is_never_printed_back() {
    // Made-up values of a key's and a base64 token's shape.
    const KEY: &str = "BSAq7Xk2Lm9Pz4Rt8Wv1Yb3Nc6Hd5Jf0";
    const TOKEN: &str = "q1W2e3R4t5Y6u7I8o9P0aSdFgHjKlZx+cVbNm/8=";
    let dir = TempDir::new("pasted-secret");
    let path = dir.write(
        "c.toml",
        &format!(
            "[http]\nbind = \"127.0.0.1:0\"\nauth_token_file = \"{TOKEN}\"\n\
             [engines.brave]\ntype = \"brave\"\napi_key_env = \"{KEY}\"\n"
        ),
    );
    let runs: [&[&str]; 4] = [
        &["check"],
        &["serve", "--transport", "stdio"],
        &["serve", "--transport", "http"],
        &["health"],
    ];
    for args in runs {
        let out = Command::new(binary())
            .args(args)
            .arg("--config")
            .arg(&path)
            .stdin(std::process::Stdio::null())
            .output()
            .expect("run rypsok");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        // The keys are named (health points to check), their values never
        // shown.
        if args != ["health"] {
            assert!(
                stderr.contains("engines.brave.api_key_env"),
                "{args:?}: {stderr}"
            );
            assert!(
                stderr.contains("http.auth_token_file"),
                "{args:?}: {stderr}"
            );
        }
        for secret in [KEY, TOKEN, "BSAq7Xk2", "q1W2e3R4"] {
            assert!(!stderr.contains(secret), "{args:?}: {stderr}");
            assert!(!stdout.contains(secret), "{args:?}: {stdout}");
        }
    }
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

/// `rypsok check` with only these variables set (besides PATH).
fn check_with_env(env: &[(&str, &std::path::Path)]) -> (Option<i32>, String, String) {
    let mut command = Command::new(binary());
    command.arg("check").env_clear();
    for (k, v) in env {
        command.env(k, v);
    }
    let out = command.output().expect("run check");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

// Verifies: REQ-CFG-001, REQ-CFG-003 (without --config the user's file is read, and check names the file it read or that none was)
#[test]
fn check_reads_and_names_the_users_configuration_file() {
    let home = TempDir::new("xdg");
    std::fs::create_dir_all(home.path().join("rypsok")).expect("folder");
    let file = home.write(
        "rypsok/rypsok.toml",
        "config_version = 1\n[limits]\nbogus = 1\n",
    );
    let (code, stdout, stderr) = check_with_env(&[("XDG_CONFIG_HOME", home.path())]);
    assert_eq!(code, Some(1), "the file's problem counts: {stdout}{stderr}");
    assert!(stderr.contains("limits.bogus"), "{stderr}");
    assert!(
        stdout.contains(&format!("configuration file: {}", file.display())),
        "{stdout}"
    );
    // HOME's .config is the default folder.
    let dot_config = TempDir::new("home");
    std::fs::create_dir_all(dot_config.path().join(".config/rypsok")).expect("folder");
    let file = dot_config.write(".config/rypsok/rypsok.toml", "config_version = 1\n");
    let (code, stdout, stderr) = check_with_env(&[("HOME", dot_config.path())]);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(
        stdout.contains(&format!("configuration file: {}", file.display())),
        "{stdout}"
    );
    // RYPSOK_CONFIG names one, which wins.
    let named = home.write("named.toml", "config_version = 1\n");
    let (code, stdout, _) =
        check_with_env(&[("XDG_CONFIG_HOME", home.path()), ("RYPSOK_CONFIG", &named)]);
    assert_eq!(code, Some(0), "{stdout}");
    assert!(
        stdout.contains(&format!("configuration file: {}", named.display())),
        "{stdout}"
    );
    // None at all: the defaults, and check says so.
    let empty = TempDir::new("xdg-empty");
    let (code, stdout, _) = check_with_env(&[("XDG_CONFIG_HOME", empty.path())]);
    if !std::path::Path::new("/etc/rypsok/rypsok.toml").exists() {
        assert_eq!(code, Some(0), "{stdout}");
        assert!(
            stdout.contains("configuration file: none (the defaults apply)"),
            "{stdout}"
        );
    }
}

// Verifies: REQ-CFG-001, REQ-OPS-002 (serve reads the user's file without --config, and its started line names it)
#[test]
fn serve_names_the_configuration_file_in_its_started_line() {
    let home = TempDir::new("xdg-serve");
    std::fs::create_dir_all(home.path().join("rypsok")).expect("folder");
    let file = home.write("rypsok/rypsok.toml", "config_version = 1\n");
    let home_path = home.path().to_string_lossy().into_owned();
    let mut server = Server::start_with_env(None, &[("XDG_CONFIG_HOME", &home_path)]);
    server.initialize();
    let started = server.await_log(
        &[("event", serde_json::json!("started"))],
        Duration::from_secs(10),
    );
    let started = started.expect("a started line");
    assert_eq!(
        started["config_file"],
        serde_json::json!(file.to_string_lossy()),
        "{started}"
    );
    let _ = server.close_and_wait(Duration::from_secs(10));
}

// Verifies: REQ-CFG-004, REQ-CFG-005 (check warns when an engine's key is an obvious placeholder, without repeating it)
#[test]
fn check_warns_on_a_placeholder_key() {
    let out = Command::new(binary())
        .arg("check")
        .env_clear()
        .env("BRAVE_API_KEY", "your-brave-search-key")
        .output()
        .expect("run check");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "a warning, not a problem: {stderr}"
    );
    assert!(
        stderr.contains(
            "warning: engines.brave.api_key_env: the environment variable BRAVE_API_KEY holds a placeholder, not a key"
        ),
        "{stderr}"
    );
    assert!(
        !stderr.contains("your-brave") && !stdout.contains("your-brave"),
        "{stderr}"
    );
    // A real-looking key draws no warning.
    let out = Command::new(binary())
        .arg("check")
        .env_clear()
        .env("BRAVE_API_KEY", "BSAq7rT0kLm2Xw9vYz3N")
        .output()
        .expect("run check");
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("placeholder"),
        "{out:?}"
    );
}

// Verifies: REQ-CFG-004, REQ-OPS-001 (check and serve follow one rule: an engine whose key file cannot be read is a warning and serve starts without it)
#[test]
fn check_and_serve_agree_on_an_unreadable_engine_key() {
    let dir = TempDir::new("unreadable-key");
    let text = "config_version = 1\n[engines.brave]\ntype = \"brave\"\napi_key_file = \"/nonexistent/brave-key\"\n";
    let path = dir.write("rypsok.toml", text);
    let out = Command::new(binary())
        .arg("check")
        .arg("--config")
        .arg(&path)
        .env_clear()
        .output()
        .expect("run check");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains(
            "warning: engines.brave.api_key_file: cannot read the file /nonexistent/brave-key"
        ),
        "{stderr}"
    );
    let mut server = Server::start(Some(text));
    let init = server.initialize();
    assert!(init["result"]["serverInfo"].is_object(), "{init}");
    let status = server.call("engine_status", serde_json::json!({}));
    assert!(status.to_string().contains("brave"), "{status}");
    let _ = server.close_and_wait(Duration::from_secs(10));
}
