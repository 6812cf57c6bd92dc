//! The TOML reader: a section's keys read with their types, ranges and
//! secret hints, and the problems collected with their dotted key paths,
//! never quoting a value.

use std::path::PathBuf;

use toml::{Table, Value};

use crate::config::SecretRef;
use crate::config::problem::ConfigProblem;

/// The problems found so far, in the order they were found, and the key
/// paths every finished section read (the keys the validator accepts, for
/// [`accepted_keys`](super::load::accepted_keys)).
#[derive(Debug, Default)]
pub(super) struct Problems(pub(super) Vec<ConfigProblem>, pub(super) Vec<String>);

impl Problems {
    pub(super) fn push(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.0.push(ConfigProblem {
            path: path.into(),
            message: message.into(),
        });
    }
}

/// `parent.key`, the key quoted where TOML would need quotes.
pub(super) fn child(parent: &str, key: &str) -> String {
    let is_bare = !key.is_empty()
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    let key = if is_bare {
        key.to_owned()
    } else {
        format!("{key:?}")
    };
    if parent.is_empty() {
        key
    } else {
        format!("{parent}.{key}")
    }
}

/// A LIM default as the validator's integer type. A value that did not fit
/// would fail its own range check, so `Config::defaults` (and its test)
/// would catch it.
pub(super) fn default_of(value: impl TryInto<i64>) -> i64 {
    value.try_into().unwrap_or(i64::MAX)
}

pub(super) fn indexed(path: &str, index: usize) -> String {
    format!("{path}[{index}]")
}

/// Which credential keys an inline-secret problem points to.
#[derive(Debug, Clone, Copy)]
pub(super) enum SecretHint {
    ApiKey,
    AuthToken,
}

impl SecretHint {
    pub(super) const fn message(self) -> &'static str {
        match self {
            Self::ApiKey => "inline secrets are refused; use api_key_env or api_key_file",
            Self::AuthToken => "inline secrets are refused; use auth_token_env or auth_token_file",
        }
    }
}

/// Whether a key's name says it holds a secret (REQ-CFG-004). The reference
/// keys end in `_env` or `_file` and so never match.
pub(super) fn is_secret_key(key: &str) -> bool {
    let key = key.to_ascii_lowercase().replace('-', "_");
    const NAMES: [&str; 6] = [
        "api_key",
        "apikey",
        "token",
        "auth_token",
        "password",
        "secret",
    ];
    const SUFFIXES: [&str; 4] = ["_token", "_key", "_secret", "_password"];
    NAMES.contains(&key.as_str()) || SUFFIXES.iter().any(|s| key.ends_with(s))
}

/// The outcome of looking a key up: absent (the default applies), present
/// and well-typed, or present and wrong (a problem is already recorded).
#[derive(Debug)]
pub(super) enum Lookup<T> {
    Absent,
    Found(T),
    Invalid,
}

impl<T> Lookup<T> {
    pub(super) fn or(self, default: T) -> Option<T> {
        match self {
            Self::Absent => Some(default),
            Self::Found(value) => Some(value),
            Self::Invalid => None,
        }
    }
}

/// An inclusive integer range, and the key that sets its upper end when
/// another key does.
#[derive(Debug, Clone, Copy)]
pub(super) struct Range {
    min: i64,
    max: i64,
    max_key: Option<&'static str>,
}

impl Range {
    pub(super) const fn new(min: i64, max: i64) -> Self {
        Self {
            min,
            max,
            max_key: None,
        }
    }

    /// `min..=max_key`, where `max_key` holds `bound` (or could not be read,
    /// in which case its own hard limit `fallback` still catches the worst).
    pub(super) const fn up_to(
        min: i64,
        max_key: &'static str,
        bound: Option<i64>,
        fallback: i64,
    ) -> Self {
        match bound {
            Some(max) => Self {
                min,
                max,
                max_key: Some(max_key),
            },
            None => Self::new(min, fallback),
        }
    }

    pub(super) fn message(self) -> String {
        match self.max_key {
            Some(key) => format!("must be between {} and {key} ({})", self.min, self.max),
            None => format!("must be between {} and {}", self.min, self.max),
        }
    }
}

/// One TOML table being validated: remembers which keys were read so that
/// every other key can be reported.
#[derive(Debug)]
pub(super) struct Section<'a> {
    path: String,
    table: Option<&'a Table>,
    known: Vec<&'static str>,
    hint: SecretHint,
}

impl<'a> Section<'a> {
    pub(super) fn new(path: String, table: Option<&'a Table>, hint: SecretHint) -> Self {
        Self {
            path,
            table,
            known: Vec::new(),
            hint,
        }
    }

    pub(super) fn key_path(&self, key: &str) -> String {
        child(&self.path, key)
    }

    pub(super) fn value(&mut self, key: &'static str) -> Option<&'a Value> {
        self.known.push(key);
        self.table.and_then(|table| table.get(key))
    }

    /// A sub-table; absent or mistyped gives an empty section (defaults).
    pub(super) fn section(
        &mut self,
        p: &mut Problems,
        key: &'static str,
        hint: SecretHint,
    ) -> Section<'a> {
        let path = self.key_path(key);
        let table = match self.value(key) {
            None => None,
            Some(Value::Table(table)) => Some(table),
            Some(_) => {
                p.push(path.clone(), "expected a table");
                None
            }
        };
        Section::new(path, table, hint)
    }

    pub(super) fn boolean(
        &mut self,
        p: &mut Problems,
        key: &'static str,
        default: bool,
    ) -> Option<bool> {
        match self.value(key) {
            None => Some(default),
            Some(Value::Boolean(value)) => Some(*value),
            Some(_) => {
                p.push(self.key_path(key), "expected a boolean");
                None
            }
        }
    }

    pub(super) fn integer(
        &mut self,
        p: &mut Problems,
        key: &'static str,
        range: Range,
    ) -> Lookup<i64> {
        match self.value(key) {
            None => Lookup::Absent,
            Some(Value::Integer(value)) if (range.min..=range.max).contains(value) => {
                Lookup::Found(*value)
            }
            Some(Value::Integer(_)) => {
                p.push(self.key_path(key), range.message());
                Lookup::Invalid
            }
            Some(_) => {
                p.push(self.key_path(key), "expected an integer");
                Lookup::Invalid
            }
        }
    }

    /// An integer in `range`, converted to the field's type.
    pub(super) fn number<T: TryFrom<i64>>(
        &mut self,
        p: &mut Problems,
        key: &'static str,
        range: Range,
        default: i64,
    ) -> Option<T> {
        let value = self.integer(p, key, range).or(default)?;
        let converted = T::try_from(value).ok();
        if converted.is_none() {
            // Only reachable if a range in this file outgrows its field type.
            p.push(self.key_path(key), range.message());
        }
        converted
    }

    pub(super) fn string(&mut self, p: &mut Problems, key: &'static str) -> Lookup<&'a str> {
        match self.value(key) {
            None => Lookup::Absent,
            Some(Value::String(value)) => Lookup::Found(value.as_str()),
            Some(_) => {
                p.push(self.key_path(key), "expected a string");
                Lookup::Invalid
            }
        }
    }

    pub(super) fn strings(&mut self, p: &mut Problems, key: &'static str) -> Lookup<Vec<&'a str>> {
        match self.value(key) {
            None => Lookup::Absent,
            Some(value) => match as_strings(value) {
                Some(items) => Lookup::Found(items),
                None => {
                    p.push(self.key_path(key), "expected an array of strings");
                    Lookup::Invalid
                }
            },
        }
    }

    /// A string naming one of `choices` by its `as_str` spelling.
    pub(super) fn choice<T: Copy>(
        &mut self,
        p: &mut Problems,
        key: &'static str,
        choices: &[T],
        spell: fn(T) -> &'static str,
        default: T,
    ) -> Option<T> {
        let text = match self.string(p, key) {
            Lookup::Absent => return Some(default),
            Lookup::Invalid => return None,
            Lookup::Found(text) => text,
        };
        let found = choices.iter().copied().find(|c| spell(*c) == text);
        if found.is_none() {
            let names: Vec<&str> = choices.iter().map(|c| spell(*c)).collect();
            p.push(
                self.key_path(key),
                format!("expected one of {}", names.join(", ")),
            );
        }
        found
    }

    /// An optional secret reference from an `_env` / `_file` pair.
    pub(super) fn secret_ref(
        &mut self,
        p: &mut Problems,
        env_key: &'static str,
        file_key: &'static str,
    ) -> Lookup<SecretRef> {
        let env = self.string(p, env_key);
        let file = self.string(p, file_key);
        // A reference that looks like the secret itself (pasted into the
        // wrong key) is refused here, before any message, log line or
        // `check` report could print it back.
        let env = match env {
            Lookup::Found(name) if looks_like_secret(name) => {
                p.push(self.key_path(env_key), PASTED_SECRET_ENV);
                Lookup::Invalid
            }
            Lookup::Found(name) if !is_env_name(name) => {
                p.push(
                    self.key_path(env_key),
                    "expected an environment variable name",
                );
                Lookup::Invalid
            }
            other => other,
        };
        let file = match file {
            Lookup::Found(path) if looks_like_secret(path) => {
                p.push(self.key_path(file_key), PASTED_SECRET_FILE);
                Lookup::Invalid
            }
            Lookup::Found("") => {
                p.push(self.key_path(file_key), "expected a file path");
                Lookup::Invalid
            }
            other => other,
        };
        match (env, file) {
            (Lookup::Found(_), Lookup::Found(_)) => {
                p.push(
                    self.key_path(file_key),
                    format!("set at most one of {env_key} and {file_key}"),
                );
                Lookup::Invalid
            }
            (Lookup::Invalid, _) | (_, Lookup::Invalid) => Lookup::Invalid,
            (Lookup::Found(name), Lookup::Absent) => Lookup::Found(SecretRef::Env(name.to_owned())),
            (Lookup::Absent, Lookup::Found(path)) => {
                Lookup::Found(SecretRef::File(PathBuf::from(path)))
            }
            (Lookup::Absent, Lookup::Absent) => Lookup::Absent,
        }
    }

    /// Reports every key that was never read, and records the keys that
    /// were.
    pub(super) fn finish(self, p: &mut Problems) {
        p.1.extend(self.known.iter().map(|key| self.key_path(key)));
        let Some(table) = self.table else {
            return;
        };
        for key in table.keys() {
            if self.known.contains(&key.as_str()) {
                continue;
            }
            let message = if is_secret_key(key) {
                self.hint.message().to_owned()
            } else {
                match nearest(key, &self.known) {
                    Some(known) => format!("unknown key (did you mean `{known}`?)"),
                    None => "unknown key".to_owned(),
                }
            };
            p.push(self.key_path(key), message);
        }
    }
}

/// The known key an unknown one most likely misspells: one within a third
/// of its length in edits, or one it begins (`strict` for `strict_mode`).
/// Only names of rypsok's own are ever suggested.
pub(super) fn nearest(key: &str, known: &[&'static str]) -> Option<&'static str> {
    let key = key.to_ascii_lowercase();
    let within = (key.chars().count() / 3).max(1);
    known
        .iter()
        .map(|k| (edits(&key, k), *k))
        .filter(|(d, k)| *d <= within || (key.len() >= 4 && k.starts_with(key.as_str())))
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// The Levenshtein distance between two names.
fn edits(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (diagonal + usize::from(ca != *cb))
                .min(above + 1)
                .min(row[j] + 1);
            diagonal = above;
        }
    }
    row[b.len()]
}

pub(super) fn as_strings(value: &Value) -> Option<Vec<&str>> {
    match value {
        Value::Array(items) => items.iter().map(Value::as_str).collect(),
        Value::String(_)
        | Value::Integer(_)
        | Value::Float(_)
        | Value::Boolean(_)
        | Value::Datetime(_)
        | Value::Table(_) => None,
    }
}

/// POSIX-portable variable names: what a shell can export.
/// The refusal of an `_env` key whose value looks like a secret.
const PASTED_SECRET_ENV: &str = "expected the name of an environment variable \
     (like BRAVE_API_KEY); the value looks like a credential itself and is not shown: \
     put the credential in the environment and name the variable here";

/// The refusal of a `_file` key whose value looks like a secret.
const PASTED_SECRET_FILE: &str = "expected the path of a file holding the credential; \
     the value looks like a credential itself and is not shown: \
     put the credential in a file and name its path here";

/// Whether the value of a secret reference looks like a secret rather than
/// a variable name or a path: a credential of a format the secret check
/// confirms, or a high-entropy run. A run is a stretch of letters, digits,
/// `+` and `=` (the characters of keys and base64, without the separators
/// names and paths are made of); it is high-entropy when it is at least 16
/// characters long and mixes lower case, upper case and digits, or at
/// least 32 long and mixes letters and digits (hex and lower-case tokens).
/// Variable names are written in upper case with underscores and paths
/// are words between separators, so neither has such a run.
pub(crate) fn looks_like_secret(value: &str) -> bool {
    if !crate::secret::find(value).is_empty() {
        return true;
    }
    value
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '+' || c == '='))
        .any(|run| {
            let digit = run.bytes().any(|b| b.is_ascii_digit());
            let lower = run.bytes().any(|b| b.is_ascii_lowercase());
            let upper = run.bytes().any(|b| b.is_ascii_uppercase());
            (run.len() >= 16 && digit && lower && upper)
                || (run.len() >= 32 && digit && (lower || upper))
        })
}

pub(super) fn is_env_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}
