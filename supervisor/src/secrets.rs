//! Reading what the configuration points to: the configuration file itself
//! and the secrets it names by reference (REQ-CFG-004). The adapter reads
//! them once at start and hands the core their contents; the core reads no
//! file and no environment (its `clippy.toml` forbids it).

use std::collections::HashMap;
use std::io::{ErrorKind, Read};
use std::path::Path;

use rypsok_core::config::{SecretRef, load_str};
use rypsok_core::{Config, ConfigProblem};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// A secret file is read up to this size: a token is a line, and a
/// reference to a device or a log file must not fill memory.
const SECRET_FILE_MAX_BYTES: u64 = 64 * 1024;

/// Reads and validates the configuration file at `path`.
pub(crate) fn load_file(path: &Path) -> Result<Config, Vec<ConfigProblem>> {
    // The path is the operator's own, named on their command line; the
    // reason is rypsok's word for the I/O error (whose own text could
    // differ by platform), never the file's content.
    match std::fs::read_to_string(path) {
        Ok(text) => load_str(&text),
        Err(error) => Err(vec![ConfigProblem {
            path: String::new(),
            message: format!(
                "cannot read the configuration file {}: {}",
                path.display(),
                io_reason(&error)
            ),
        }]),
    }
}

/// Why a file could not be read, in rypsok's words.
fn io_reason(error: &std::io::Error) -> String {
    match error.kind() {
        ErrorKind::NotFound => "no such file".to_owned(),
        ErrorKind::PermissionDenied => "permission denied".to_owned(),
        ErrorKind::IsADirectory => "it is a directory".to_owned(),
        ErrorKind::InvalidData => "it is not UTF-8 text".to_owned(),
        other => other.to_string(),
    }
}

/// Why a secret could not be read: the variable or the file it names (the
/// operator's own words), never anything it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Unreadable {
    /// The environment variable is not set.
    EnvUnset(String),
    /// The environment variable holds no UTF-8 text.
    EnvNotText(String),
    /// The environment variable is empty or blank.
    EnvEmpty(String),
    /// The file could not be opened or read; the reason in rypsok's words.
    File(String, String),
    /// The file's first line is empty, blank or not UTF-8 text.
    FileEmpty(String),
}

impl std::fmt::Display for Unreadable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::EnvUnset(name) => write!(f, "the environment variable {name} is not set"),
            Self::EnvNotText(name) => {
                write!(f, "the environment variable {name} is not UTF-8 text")
            }
            Self::EnvEmpty(name) => write!(f, "the environment variable {name} is empty"),
            Self::File(path, reason) => write!(f, "cannot read the file {path}: {reason}"),
            Self::FileEmpty(path) => {
                write!(f, "the file {path} has no secret on its first line")
            }
        }
    }
}

/// The problems and the warnings of the secrets a configuration names,
/// by one rule that `check` and `serve` share: a problem is what makes
/// `serve` refuse to start (an unreadable `[http]` token: `serve --transport
/// http` starts nothing), a warning what `serve` starts without (an engine
/// whose key cannot be read, named or by its driver's default, is
/// inactive; a key that looks like a placeholder). Each line holds the key
/// and what it names, never a secret.
pub(crate) fn credential_report(config: &Config) -> (Vec<ConfigProblem>, Vec<String>) {
    let mut problems = Vec::new();
    let mut warnings = Vec::new();
    for key in config.credential_keys() {
        let why = match read_secret_or_why(key.reference) {
            Ok(secret) => {
                if let Some(engine) = key.engine.filter(|_| is_placeholder(&secret)) {
                    warnings.push(format!(
                        "warning: {}: {} holds a placeholder, not a key; the engine {engine} would answer its first search unauthorized and rest",
                        key.key,
                        match key.reference {
                            SecretRef::Env(name) => format!("the environment variable {name}"),
                            SecretRef::File(path) => format!("the file {}", path.display()),
                        }
                    ));
                }
                continue;
            }
            Err(why) => why,
        };
        match key.engine {
            Some(engine) => warnings.push(format!(
                "warning: {}: {why}; the engine {engine} will be inactive",
                key.key
            )),
            // The proxy is then asked without credentials: serve starts.
            None if key.key.starts_with("egress.") => warnings.push(format!(
                "warning: {}: {why}; the proxy will be asked without credentials",
                key.key
            )),
            // The scrape listener's token: neither transport starts.
            None if key.key.starts_with("metrics.") => problems.push(ConfigProblem {
                path: key.key,
                message: format!("{why}; serve will not start"),
            }),
            None => problems.push(ConfigProblem {
                path: key.key,
                message: format!("{why}; serve --transport http will not start"),
            }),
        }
    }
    (problems, warnings)
}

/// Reads a secret from where `reference` points: an environment variable's
/// value, or the first line of a file, trimmed. `None` when it is missing,
/// empty or unreadable. The value is never logged.
pub(crate) fn read_secret(reference: &SecretRef) -> Option<String> {
    read_secret_or_why(reference).ok()
}

/// As [`read_secret`], saying why when there is no secret.
pub(crate) fn read_secret_or_why(reference: &SecretRef) -> Result<String, Unreadable> {
    let secret = match reference {
        SecretRef::Env(name) => match std::env::var(name) {
            Ok(value) => non_blank(&value).ok_or_else(|| Unreadable::EnvEmpty(name.clone()))?,
            Err(std::env::VarError::NotPresent) => return Err(Unreadable::EnvUnset(name.clone())),
            Err(std::env::VarError::NotUnicode(_)) => {
                return Err(Unreadable::EnvNotText(name.clone()));
            }
        },
        SecretRef::File(path) => {
            let shown = || path.display().to_string();
            let line = read_first_line(path).map_err(|e| Unreadable::File(shown(), e))?;
            line.as_deref()
                .and_then(non_blank)
                .ok_or_else(|| Unreadable::FileEmpty(shown()))?
        }
    };
    Ok(secret)
}

/// Whether a secret is an obvious stand-in copied from an example
/// (`your-brave-search-key`, `<API_KEY>`, `changeme`): no provider issues
/// keys that read so, and sending one costs the engine a rest period.
fn is_placeholder(secret: &str) -> bool {
    let lower = secret.to_ascii_lowercase();
    lower.starts_with("your")
        || lower.starts_with('<')
        || lower.starts_with("${")
        || lower.contains("placeholder")
        || lower.contains("changeme")
        || lower.contains("change-me")
        || lower.contains("paste")
        || lower.contains("api-key")
        || lower.contains("api_key")
        || lower.chars().all(|c| c == 'x' || c == '*' || c == '.')
}

fn non_blank(raw: &str) -> Option<String> {
    let secret = raw.trim();
    (!secret.is_empty()).then(|| secret.to_owned())
}

/// The file's first line; `Ok(None)` when it is empty or not UTF-8 text,
/// `Err` with the reason when it cannot be read.
fn read_first_line(path: &Path) -> Result<Option<String>, String> {
    let file = std::fs::File::open(path).map_err(|e| io_reason(&e))?;
    let mut bytes = Vec::new();
    file.take(SECRET_FILE_MAX_BYTES)
        .read_to_end(&mut bytes)
        .map_err(|e| io_reason(&e))?;
    let Ok(text) = String::from_utf8(bytes) else {
        return Ok(None);
    };
    Ok(text.lines().next().map(str::to_owned))
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

/// Whether `headers` carry the bearer token whose SHA-256 is `expected`:
/// comparing digests in constant time hides the token's length too. Every
/// listener of rypsok (MCP, metrics) checks its token here.
pub(crate) fn presents_token(headers: &http::HeaderMap, expected: &[u8; 32]) -> bool {
    // The scheme is case-insensitive (RFC 9110 §11.1).
    let presented = headers
        .get(http::header::AUTHORIZATION)
        .map(http::HeaderValue::as_bytes)
        .filter(|v| v.len() > 7 && v[..7].eq_ignore_ascii_case(b"bearer "))
        .map(|v| &v[7..])
        .unwrap_or_default();
    let digest: [u8; 32] = Sha256::digest(presented).into();
    bool::from(digest.ct_eq(expected)) && !presented.is_empty()
}

/// Reads a listener's token from where `reference` points, as its digest;
/// `None` (logged with the key of `section`, never the token) when it
/// cannot be read and nothing may start.
pub(crate) fn token_digest(reference: &SecretRef, section: &'static str) -> Option<[u8; 32]> {
    match read_secret_or_why(reference) {
        Ok(token) => Some(Sha256::digest(token.as_bytes()).into()),
        Err(why) => {
            // The key and what it names (the operator's own file), as
            // `rypsok check` says it; never the token.
            let key = match reference {
                SecretRef::Env(_) => "auth_token_env",
                SecretRef::File(_) => "auth_token_file",
            };
            tracing::error!(
                event = "auth_token_unreadable",
                key = %format_args!("{section}.{key}"),
                reason = %why,
                "the [{section}] token could not be read; nothing started"
            );
            None
        }
    }
}

#[cfg(test)]
mod tests {

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
    fn unreadable_configuration_file_is_one_problem_with_its_path_and_reason() {
        // Verifies: REQ-CFG-005 (a missing file named explicitly is an error)
        let missing =
            std::env::temp_dir().join(format!("rypsok-no-such-file-{}.toml", std::process::id()));
        let problems = load_file(&missing).unwrap_err();
        assert_eq!(
            problems,
            [ConfigProblem {
                path: String::new(),
                message: format!(
                    "cannot read the configuration file {}: no such file",
                    missing.display()
                )
            }]
        );
        let dir = std::env::temp_dir();
        assert_eq!(
            load_file(&dir).unwrap_err()[0].message,
            format!(
                "cannot read the configuration file {}: it is a directory",
                dir.display()
            )
        );
    }

    #[test]
    fn unreadable_secrets_say_which_variable_or_file_and_why_never_what_it_holds() {
        // Verifies: REQ-CFG-004 (secrets by reference; a reference that cannot be read is named, its content never)
        let unset = "RYPSOK_TEST_SURELY_UNSET_VARIABLE";
        assert_eq!(
            read_secret_or_why(&SecretRef::Env(unset.to_owned())),
            Err(Unreadable::EnvUnset(unset.to_owned()))
        );
        let missing = std::env::temp_dir().join(format!("rypsok-no-key-{}", std::process::id()));
        let why = read_secret_or_why(&SecretRef::File(missing.clone())).unwrap_err();
        assert_eq!(
            why.to_string(),
            format!("cannot read the file {}: no such file", missing.display())
        );
        let blank = temp_file("blank-key", b"  \nsecond-line-secret\n");
        let why = read_secret_or_why(&SecretRef::File(blank.clone())).unwrap_err();
        std::fs::remove_file(&blank).unwrap();
        assert_eq!(
            why.to_string(),
            format!(
                "the file {} has no secret on its first line",
                blank.display()
            )
        );
        assert!(!why.to_string().contains("second-line-secret"));
    }
}
