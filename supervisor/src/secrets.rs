//! Reading what the configuration points to: the configuration file itself
//! and the secrets it names by reference (REQ-CFG-004). The adapter reads
//! them once at start and hands the core their contents; the core reads no
//! file and no environment (its `clippy.toml` forbids it).

use std::collections::HashMap;
use std::io::Read;
use std::path::Path;

use rypsok_core::config::{SecretRef, load_str};
use rypsok_core::{Config, ConfigProblem};

/// A secret file is read up to this size: a token is a line, and a
/// reference to a device or a log file must not fill memory.
const SECRET_FILE_MAX_BYTES: u64 = 64 * 1024;

/// Reads and validates the configuration file at `path`.
pub(crate) fn load_file(path: &Path) -> Result<Config, Vec<ConfigProblem>> {
    // The I/O error is not reported: its text can carry the path, and the
    // operator already knows which file they named.
    match std::fs::read_to_string(path) {
        Ok(text) => load_str(&text),
        Err(_) => Err(vec![ConfigProblem {
            path: String::new(),
            message: "cannot read the configuration file".to_owned(),
        }]),
    }
}

/// Reads a secret from where `reference` points: an environment variable's
/// value, or the first line of a file, trimmed. `None` when it is missing,
/// empty or unreadable. The value is never logged.
pub(crate) fn read_secret(reference: &SecretRef) -> Option<String> {
    let raw = match reference {
        SecretRef::Env(name) => std::env::var(name).ok()?,
        SecretRef::File(path) => read_first_line(path)?,
    };
    let secret = raw.trim();
    (!secret.is_empty()).then(|| secret.to_owned())
}

fn read_first_line(path: &Path) -> Option<String> {
    let file = std::fs::File::open(path).ok()?;
    let mut bytes = Vec::new();
    file.take(SECRET_FILE_MAX_BYTES)
        .read_to_end(&mut bytes)
        .ok()?;
    let text = String::from_utf8(bytes).ok()?;
    text.lines().next().map(str::to_owned)
}

/// Each enabled engine's credential, by engine id, for the engines whose
/// reference can be read; the services judge which engines need one.
pub(crate) fn engine_credentials(config: &Config) -> HashMap<String, String> {
    config
        .engines
        .iter()
        .filter(|engine| engine.enabled)
        .filter_map(|engine| {
            let secret = engine.credential.as_ref().and_then(read_secret)?;
            Some((engine.id.clone(), secret))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use std::path::PathBuf;

    use super::*;

    /// A file under the system's temporary directory, unique to this test.
    fn temp_file(name: &str, contents: &[u8]) -> PathBuf {
        let path =
            std::env::temp_dir().join(format!("rypsok-secrets-{}-{name}", std::process::id()));
        std::fs::write(&path, contents).unwrap();
        path
    }

    #[test]
    fn read_secret_takes_the_first_line_of_a_file_trimmed() {
        // Verifies: REQ-CFG-004 (secrets read by reference at start)
        let path = temp_file("first-line", b"  s3cret-token \nsecond line\n");
        assert_eq!(
            read_secret(&SecretRef::File(path.clone())).as_deref(),
            Some("s3cret-token")
        );
        std::fs::remove_file(&path).unwrap();
        // Gone, empty, blank or not UTF-8: no secret.
        assert_eq!(read_secret(&SecretRef::File(path)), None);
        for (name, contents) in [
            ("empty", &b""[..]),
            ("blank", b"  \n"),
            ("binary", b"\xff\xfe\n"),
        ] {
            let path = temp_file(name, contents);
            assert_eq!(read_secret(&SecretRef::File(path.clone())), None, "{name}");
            std::fs::remove_file(&path).unwrap();
        }
    }

    #[test]
    fn read_secret_reads_an_environment_variable() {
        // Verifies: REQ-CFG-004 (secrets read by reference at start)
        // Tests cannot set variables (`set_var` is unsafe and the crate
        // forbids unsafe code), so they read one that cargo sets for every
        // test run.
        assert_eq!(
            read_secret(&SecretRef::Env("CARGO_PKG_NAME".to_owned())).as_deref(),
            Some(env!("CARGO_PKG_NAME"))
        );
        assert_eq!(
            read_secret(&SecretRef::Env(
                "RYPSOK_TEST_SURELY_UNSET_VARIABLE".to_owned()
            )),
            None
        );
    }

    #[test]
    fn each_enabled_engine_gets_the_secret_its_reference_names() {
        // Verifies: REQ-CFG-004, REQ-OPS-003 (credentials read once at start, by reference, for enabled engines)
        let path = temp_file("engine-key", b"engine-key\n");
        let mut config = Config::defaults();
        let mut ids = Vec::new();
        for engine in &mut config.engines {
            engine.credential = Some(SecretRef::File(path.clone()));
            ids.push(engine.id.clone());
        }
        config.engines[0].enabled = false;
        let credentials = engine_credentials(&config);
        std::fs::remove_file(&path).unwrap();
        assert!(ids.len() >= 2, "the defaults configure several engines");
        assert_eq!(credentials.get(&ids[0]), None, "a disabled engine");
        for id in &ids[1..] {
            assert_eq!(credentials.get(id).map(String::as_str), Some("engine-key"));
        }
    }

    #[test]
    fn unreadable_file_is_one_problem_without_a_path() {
        // Verifies: REQ-CFG-005 (a missing file named explicitly is an error)
        let missing =
            std::env::temp_dir().join(format!("rypsok-no-such-file-{}.toml", std::process::id()));
        let problems = load_file(&missing).unwrap_err();
        assert_eq!(
            problems,
            [ConfigProblem {
                path: String::new(),
                message: "cannot read the configuration file".to_owned()
            }]
        );
    }
}
