//! Live checks (REQ-TEST-003): one test per engine type, each sending one
//! real query to the real provider through the built binary's
//! `check --online` (the real workers under their real confinement) and
//! checking that the answer parsed into results. Every test is ignored:
//! they need the internet and are run by hand,
//!
//! ```text
//! cargo test -p rypsok-tests --test live -- --ignored
//! ```
//!
//! Brave reads its key from `BRAVE_API_KEY`; without it the Brave test
//! fails with "not probed: no credential". SearXNG has no public default:
//! its test reads the instance's search URL from `RYPSOK_LIVE_SEARXNG`
//! and fails without it. Nothing else is sent than the probe query.

// Tests fail loudly: a failed expectation is the report. The binary under
// test is started as a process, as the black-box tests start it.
#![allow(clippy::expect_used, clippy::disallowed_methods)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The rypsok binary built beside this test.
fn binary() -> PathBuf {
    let mut path = std::env::current_exe().expect("test path");
    path.pop();
    if path.ends_with("deps") {
        path.pop();
    }
    path.join("rypsok")
}

/// Runs `check --online` with one engine of `kind` and `extra`
/// configuration; asserts it answered with at least one result.
fn probe(kind: &str, extra: &str) {
    probe_with(kind, extra, "");
}

/// As [`probe`], with `keys` in the engine's table.
fn probe_with(kind: &str, extra: &str, keys: &str) {
    let dir = std::env::temp_dir().join(format!("rypsok-live-{}-{kind}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let config = dir.join("rypsok.toml");
    std::fs::write(
        &config,
        format!(
            "[service]\ncontact = \"ops@example.org\"\n{extra}\n[engines.{kind}]\ntype = \"{kind}\"\n{keys}"
        ),
    )
    .expect("write config");
    let out = Command::new(binary())
        .args(["check", "--online", "--config"])
        .arg(Path::new(&config))
        .output()
        .expect("run check --online");
    let _ = std::fs::remove_dir_all(&dir);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout
        .lines()
        .find(|line| line.trim_start().starts_with(&format!("{kind} (")))
        .unwrap_or_default();
    let answered: Option<usize> = line
        .split("answered with ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok());
    assert!(
        out.status.success() && answered.is_some_and(|n| n > 0),
        "{kind}: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
#[ignore = "live: sends a real query"]
fn wikipedia_answers() {
    probe("wikipedia", "");
}

#[test]
#[ignore = "live: sends a real query"]
fn brave_answers() {
    probe("brave", "");
}

#[test]
#[ignore = "live: sends a real query"]
fn duckduckgo_answers() {
    probe("duckduckgo", "[scraping]\nenabled = true\n");
}

#[test]
#[ignore = "live: sends a real query"]
fn crossref_answers() {
    probe("crossref", "");
}

#[test]
#[ignore = "live: sends a real query"]
fn openalex_answers() {
    probe("openalex", "");
}

#[test]
#[ignore = "live: sends a real query"]
fn arxiv_answers() {
    probe("arxiv", "");
}

#[test]
#[ignore = "live: sends a real query"]
fn gdelt_answers() {
    probe("gdelt", "");
}

#[test]
#[ignore = "live: sends a real query"]
fn hackernews_answers() {
    probe("hackernews", "");
}

#[test]
#[ignore = "live: sends a real query"]
fn github_answers() {
    probe("github", "");
}

#[test]
#[ignore = "live: sends a real query"]
fn stackexchange_answers() {
    probe("stackexchange", "");
}

#[test]
#[ignore = "live: sends a real query"]
fn searxng_answers() {
    let endpoint = std::env::var("RYPSOK_LIVE_SEARXNG")
        .expect("RYPSOK_LIVE_SEARXNG: the search URL of a SearXNG instance");
    probe_with("searxng", "", &format!("endpoint = \"{endpoint}\"\n"));
}

/// Every engine type of the engine list has its live test above.
#[test]
fn every_engine_type_has_a_live_test() {
    let source = include_str!("live.rs");
    let list = include_str!("../proto/src/engine.rs");
    for line in list.lines() {
        let line = line.trim();
        if let Some((_, module)) = line.split_once("=>") {
            let module = module.trim().trim_end_matches(',');
            if module.chars().all(|c| c.is_ascii_lowercase()) && !module.is_empty() {
                assert!(
                    source.contains(&format!("fn {module}_answers()")),
                    "{module} has no live test"
                );
            }
        }
    }
}
