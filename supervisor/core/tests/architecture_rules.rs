//! The core's `clippy.toml` holds the workspace's architecture rules and its
//! own. Clippy reads the nearest `clippy.toml` only, so the core's file
//! repeats the workspace's list; this test keeps the two in step and checks
//! that the core's own rules (no file, no environment) are there.

/// The `path = "…"` values of a `disallowed-methods` list.
fn disallowed(toml: &str) -> Vec<&str> {
    toml.lines()
        .filter_map(|line| line.trim().strip_prefix("{ path = \""))
        .filter_map(|rest| rest.split('"').next())
        .collect()
}

const WORKSPACE: &str = include_str!("../../../clippy.toml");
const CORE: &str = include_str!("../clippy.toml");

// Verifies: REQ-ARCH-001 (the core keeps every workspace rule: sockets and processes stay where they belong)
#[test]
fn the_core_repeats_every_rule_of_the_workspace() {
    let core = disallowed(CORE);
    let workspace = disallowed(WORKSPACE);
    assert!(workspace.len() >= 8, "the workspace list was not read");
    for path in workspace {
        assert!(core.contains(&path), "the core's clippy.toml lacks {path}");
    }
}

// Verifies: REQ-ARCH-001 (the core reads no file and no environment: the adapter hands it contents)
#[test]
fn the_core_may_read_no_file_and_no_environment() {
    let core = disallowed(CORE);
    for path in [
        "std::env::var",
        "std::env::var_os",
        "std::fs::read",
        "std::fs::read_to_string",
        "std::fs::File::open",
        "std::fs::OpenOptions::open",
        "std::process::Command::new",
    ] {
        assert!(core.contains(&path), "the core's clippy.toml lacks {path}");
    }
}
