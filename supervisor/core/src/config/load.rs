//! Reading and validating the configuration file (design §13.2,
//! ARCHITECTURE.md "Configuration additions"; REQ-CFG-001, REQ-CFG-003..005,
//! REQ-MAIN-003).
//!
//! The TOML is parsed into a generic table and every key is then checked by
//! hand, so that one run of `rypsok check` reports *every* problem with its
//! dotted key path. Problem messages are static text plus numbers and never
//! quote a value: an operator who pasted a token into the wrong key must not
//! see it again in a terminal or a log.

use std::fmt;
use std::io::Read;
use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};

use rypsok_proto::LogLevel;
use rypsok_proto::egress::{EgressPolicy, EgressRule, StaticHost, parse_host_name, parse_rule};
use toml::{Table, Value};

use super::{
    CONFIG_VERSION, Category, Config, EgressConfig, EngineConfig, EngineType, FetchConfig,
    HttpConfig, LimitsConfig, LoggingConfig, PrivacyConfig, SafeSearch, SandboxConfig,
    SearchConfig, SecretDetection, SecretRef, ServiceConfig, StatusConfig,
};
use crate::engine::CredentialRule;
use crate::limits;

/// The project's address, the default operator contact and part of every
/// User-Agent (ARCHITECTURE.md "Configuration additions").
pub const PROJECT_URL: &str = "https://github.com/rypsok/rypsok";

/// The default listener: loopback, where no token is needed.
const DEFAULT_BIND: &str = "127.0.0.1:8808";
/// The contact goes into a header: bounded so the User-Agent stays a line.
const CONTACT_MAX_CHARS: usize = 200;
/// The smallest LIM-H2 an operator may set: a tool call at its argument
/// bounds (a URL of LIM-F9 characters) fits even with every character
/// escaped as `\uXXXX`.
const HTTP_BODY_BYTES_FLOOR: i64 = 16 * 1024;
/// The largest LIM-H2 an operator may set: a body is held in memory whole,
/// once per request in flight.
const HTTP_BODY_BYTES_CEILING: i64 = 8 * 1024 * 1024;
/// More languages than this would only bloat the tool definitions (LIM-I1).
const LANGUAGES_MAX: usize = 20;
/// A secret file is read up to this size: a token is a line, and a
/// reference to a device or a log file must not fill memory.
const SECRET_FILE_MAX_BYTES: u64 = 64 * 1024;
/// The `{lang}` placeholder of an endpoint template, and what stands in for
/// it when the template is validated.
const LANG_PLACEHOLDER: &str = "{lang}";
const LANG_SAMPLE: &str = "en";

const SAFE_SEARCH_LEVELS: [SafeSearch; 3] =
    [SafeSearch::Off, SafeSearch::Moderate, SafeSearch::Strict];
const SECRET_DETECTIONS: [SecretDetection; 4] = [
    SecretDetection::Refuse,
    SecretDetection::Warn,
    SecretDetection::Mask,
    SecretDetection::Off,
];
const LOG_LEVELS: [LogLevel; 5] = [
    LogLevel::Error,
    LogLevel::Warn,
    LogLevel::Info,
    LogLevel::Debug,
    LogLevel::Trace,
];

/// One thing wrong with the configuration: where, and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigProblem {
    /// Dotted key path (`engines.brave.timeout_ms`, `egress.allow[3]`);
    /// empty for a problem with the file as a whole.
    pub path: String,
    /// Static text plus numbers; never a value from the file.
    pub message: String,
}

impl fmt::Display for ConfigProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

/// Reads and validates the file at `path`.
pub fn load_file(path: &Path) -> Result<Config, Vec<ConfigProblem>> {
    // The I/O error is not reported: its text can carry the path, and the
    // operator already knows which file they named.
    match std::fs::read_to_string(path) {
        Ok(text) => load_str(&text),
        Err(_) => Err(vec![whole_file("cannot read the configuration file")]),
    }
}

/// Validates configuration text; `""` gives the defaults (REQ-CFG-003).
pub fn load_str(text: &str) -> Result<Config, Vec<ConfigProblem>> {
    let root: Table = match text.parse() {
        Ok(root) => root,
        // The parser's message can quote the offending line, which may hold
        // a secret: only the line number is kept.
        Err(error) => {
            let message = match error.span() {
                Some(span) => format!(
                    "the file is not valid TOML (line {})",
                    line_of(text, span.start)
                ),
                None => "the file is not valid TOML".to_owned(),
            };
            return Err(vec![whole_file(message)]);
        }
    };
    let mut problems = Problems::default();
    let config = validate(&root, &mut problems);
    match (config, problems.0.is_empty()) {
        (Some(config), true) => Ok(config),
        (Some(_) | None, false) => Err(problems.0),
        // Every path that yields no value records a problem; this arm only
        // keeps a slip in that rule from passing an invalid file.
        (None, true) => Err(vec![whole_file("the configuration could not be built")]),
    }
}

/// Reads a secret from where `reference` points: an environment variable's
/// value, or the first line of a file, trimmed. `None` when it is missing,
/// empty or unreadable. The value is never logged.
pub fn read_secret(reference: &SecretRef) -> Option<String> {
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

impl SafeSearch {
    /// The configuration spelling.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Off => "off",
            Self::Moderate => "moderate",
            Self::Strict => "strict",
        }
    }
}

impl SecretDetection {
    /// The configuration spelling.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Refuse => "refuse",
            Self::Warn => "warn",
            Self::Mask => "mask",
            Self::Off => "off",
        }
    }
}

fn whole_file(message: impl Into<String>) -> ConfigProblem {
    ConfigProblem {
        path: String::new(),
        message: message.into(),
    }
}

/// 1-based line of a byte offset.
fn line_of(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    text.as_bytes()[..end]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// The problems found so far, in the order they were found.
#[derive(Debug, Default)]
struct Problems(Vec<ConfigProblem>);

impl Problems {
    fn push(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.0.push(ConfigProblem {
            path: path.into(),
            message: message.into(),
        });
    }
}

/// `parent.key`, the key quoted where TOML would need quotes.
fn child(parent: &str, key: &str) -> String {
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
fn default_of(value: impl TryInto<i64>) -> i64 {
    value.try_into().unwrap_or(i64::MAX)
}

fn indexed(path: &str, index: usize) -> String {
    format!("{path}[{index}]")
}

/// Which credential keys an inline-secret problem points to.
#[derive(Debug, Clone, Copy)]
enum SecretHint {
    ApiKey,
    AuthToken,
}

impl SecretHint {
    const fn message(self) -> &'static str {
        match self {
            Self::ApiKey => "inline secrets are refused; use api_key_env or api_key_file",
            Self::AuthToken => "inline secrets are refused; use auth_token_env or auth_token_file",
        }
    }
}

/// Whether a key's name says it holds a secret (REQ-CFG-004). The reference
/// keys end in `_env` or `_file` and so never match.
fn is_secret_key(key: &str) -> bool {
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
enum Lookup<T> {
    Absent,
    Found(T),
    Invalid,
}

impl<T> Lookup<T> {
    fn or(self, default: T) -> Option<T> {
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
struct Range {
    min: i64,
    max: i64,
    max_key: Option<&'static str>,
}

impl Range {
    const fn new(min: i64, max: i64) -> Self {
        Self {
            min,
            max,
            max_key: None,
        }
    }

    /// `min..=max_key`, where `max_key` holds `bound` (or could not be read,
    /// in which case its own hard limit `fallback` still catches the worst).
    const fn up_to(min: i64, max_key: &'static str, bound: Option<i64>, fallback: i64) -> Self {
        match bound {
            Some(max) => Self {
                min,
                max,
                max_key: Some(max_key),
            },
            None => Self::new(min, fallback),
        }
    }

    fn message(self) -> String {
        match self.max_key {
            Some(key) => format!("must be between {} and {key} ({})", self.min, self.max),
            None => format!("must be between {} and {}", self.min, self.max),
        }
    }
}

/// One TOML table being validated: remembers which keys were read so that
/// every other key can be reported.
#[derive(Debug)]
struct Section<'a> {
    path: String,
    table: Option<&'a Table>,
    known: Vec<&'static str>,
    hint: SecretHint,
}

impl<'a> Section<'a> {
    fn new(path: String, table: Option<&'a Table>, hint: SecretHint) -> Self {
        Self {
            path,
            table,
            known: Vec::new(),
            hint,
        }
    }

    fn key_path(&self, key: &str) -> String {
        child(&self.path, key)
    }

    fn value(&mut self, key: &'static str) -> Option<&'a Value> {
        self.known.push(key);
        self.table.and_then(|table| table.get(key))
    }

    /// A sub-table; absent or mistyped gives an empty section (defaults).
    fn section(&mut self, p: &mut Problems, key: &'static str, hint: SecretHint) -> Section<'a> {
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

    fn boolean(&mut self, p: &mut Problems, key: &'static str, default: bool) -> Option<bool> {
        match self.value(key) {
            None => Some(default),
            Some(Value::Boolean(value)) => Some(*value),
            Some(_) => {
                p.push(self.key_path(key), "expected a boolean");
                None
            }
        }
    }

    fn integer(&mut self, p: &mut Problems, key: &'static str, range: Range) -> Lookup<i64> {
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
    fn number<T: TryFrom<i64>>(
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

    fn string(&mut self, p: &mut Problems, key: &'static str) -> Lookup<&'a str> {
        match self.value(key) {
            None => Lookup::Absent,
            Some(Value::String(value)) => Lookup::Found(value.as_str()),
            Some(_) => {
                p.push(self.key_path(key), "expected a string");
                Lookup::Invalid
            }
        }
    }

    fn strings(&mut self, p: &mut Problems, key: &'static str) -> Lookup<Vec<&'a str>> {
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
    fn choice<T: Copy>(
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
    fn secret_ref(
        &mut self,
        p: &mut Problems,
        env_key: &'static str,
        file_key: &'static str,
    ) -> Lookup<SecretRef> {
        let env = self.string(p, env_key);
        let file = self.string(p, file_key);
        let env = match env {
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

    /// Reports every key that was never read.
    fn finish(self, p: &mut Problems) {
        let Some(table) = self.table else {
            return;
        };
        for key in table.keys() {
            if self.known.contains(&key.as_str()) {
                continue;
            }
            let message = if is_secret_key(key) {
                self.hint.message()
            } else {
                "unknown key"
            };
            p.push(self.key_path(key), message);
        }
    }
}

fn as_strings(value: &Value) -> Option<Vec<&str>> {
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
fn is_env_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

fn validate(root: &Table, p: &mut Problems) -> Option<Config> {
    let mut top = Section::new(String::new(), Some(root), SecretHint::ApiKey);

    // A file of another version may mean different things by the same keys,
    // so nothing else in it is judged (REQ-MAIN-003).
    match top.value("config_version") {
        None => {}
        Some(Value::Integer(CONFIG_VERSION)) => {}
        Some(Value::Integer(_)) => {
            p.push(
                "config_version",
                "unsupported configuration version; this build reads version 1",
            );
            return None;
        }
        Some(_) => {
            p.push("config_version", "expected an integer");
            return None;
        }
    }

    let mut section = top.section(p, "service", SecretHint::ApiKey);
    let service = service(&mut section, p);
    section.finish(p);

    let mut section = top.section(p, "search", SecretHint::ApiKey);
    let search = search(&mut section, p);
    section.finish(p);

    let mut section = top.section(p, "fetch", SecretHint::ApiKey);
    let fetch = fetch(&mut section, p);
    section.finish(p);

    let mut section = top.section(p, "egress", SecretHint::ApiKey);
    let egress = egress(&mut section, p);
    section.finish(p);

    let mut section = top.section(p, "privacy", SecretHint::ApiKey);
    let privacy = section
        .choice(
            p,
            "secret_detection",
            &SECRET_DETECTIONS,
            SecretDetection::as_str,
            SecretDetection::Refuse,
        )
        .map(|secret_detection| PrivacyConfig { secret_detection });
    section.finish(p);

    let mut section = top.section(p, "logging", SecretHint::ApiKey);
    let logging = section
        .choice(p, "level", &LOG_LEVELS, LogLevel::as_str, LogLevel::Info)
        .map(|level| LoggingConfig { level });
    section.finish(p);

    let mut section = top.section(p, "status", SecretHint::ApiKey);
    let status = section
        .boolean(p, "enabled", true)
        .map(|enabled| StatusConfig { enabled });
    section.finish(p);

    let mut section = top.section(p, "limits", SecretHint::ApiKey);
    let limits = limits(&mut section, p);
    section.finish(p);

    let mut section = top.section(p, "http", SecretHint::AuthToken);
    let http = http(&mut section, p);
    section.finish(p);

    let mut section = top.section(p, "sandbox", SecretHint::ApiKey);
    let sandbox = sandbox(&mut section, p);
    section.finish(p);

    let allow = egress
        .as_ref()
        .map_or(&[][..], |e| e.policy.allow.as_slice());
    let engines = engines(&mut top, p, allow);

    top.finish(p);

    check_cross_keys(p, service.as_ref(), search.as_ref(), engines.as_deref());

    Some(Config {
        service: service?,
        search: search?,
        fetch: fetch?,
        egress: egress?,
        privacy: privacy?,
        logging: logging?,
        status: status?,
        limits: limits?,
        http: http?,
        sandbox: sandbox?,
        engines: engines?,
    })
}

fn service(s: &mut Section<'_>, p: &mut Problems) -> Option<ServiceConfig> {
    let structured_content = s.boolean(p, "structured_content", true);
    let contact = match s.string(p, "contact") {
        Lookup::Absent => Some(PROJECT_URL.to_owned()),
        Lookup::Invalid => None,
        Lookup::Found(text) => {
            let contact = text.trim();
            // The contact is sent in a header: printable ASCII only, so it
            // can neither break the header nor smuggle another one.
            if !contact.bytes().all(|b| (b' '..=b'~').contains(&b)) {
                p.push(s.key_path("contact"), "must be printable ASCII");
                None
            } else if contact.len() > CONTACT_MAX_CHARS {
                p.push(
                    s.key_path("contact"),
                    format!("must be at most {CONTACT_MAX_CHARS} characters"),
                );
                None
            } else {
                Some(contact.to_owned())
            }
        }
    };
    let attribution = s.boolean(p, "attribution", false);
    let handshake_revisions = s.boolean(p, "handshake_revisions", true);
    Some(ServiceConfig {
        structured_content: structured_content?,
        contact: contact?,
        attribution: attribution?,
        handshake_revisions: handshake_revisions?,
    })
}

fn search(s: &mut Section<'_>, p: &mut Problems) -> Option<SearchConfig> {
    let languages = languages(s, p);
    let region = match s.string(p, "region") {
        Lookup::Absent => Some("US".to_owned()),
        Lookup::Invalid => None,
        Lookup::Found(text) if text.len() == 2 && text.bytes().all(|b| b.is_ascii_uppercase()) => {
            Some(text.to_owned())
        }
        Lookup::Found(_) => {
            p.push(
                s.key_path("region"),
                "expected two upper-case letters such as US",
            );
            None
        }
    };
    let safe_search = s.choice(
        p,
        "safe_search",
        &SAFE_SEARCH_LEVELS,
        SafeSearch::as_str,
        SafeSearch::Moderate,
    );

    const CEILING_MAX: i64 = 50;
    let ceiling = s
        .integer(p, "max_results_ceiling", Range::new(1, CEILING_MAX))
        .or(limits::MAX_RESULTS_CEILING.into());
    // A default above a lowered ceiling follows the ceiling down: the
    // operator asked for fewer results, not for a refusal.
    let max_results_default =
        i64::from(limits::MAX_RESULTS_DEFAULT).min(ceiling.unwrap_or(CEILING_MAX));
    let max_results = s.number(
        p,
        "max_results",
        Range::up_to(1, "max_results_ceiling", ceiling, CEILING_MAX),
        max_results_default,
    );
    let query_max_chars = s.number(
        p,
        "query_max_chars",
        Range::new(1, 2000),
        default_of(limits::QUERY_MAX_CHARS),
    );
    const DEADLINE_MAX: i64 = 60_000;
    let deadline = s
        .integer(p, "deadline_ms", Range::new(100, DEADLINE_MAX))
        .or(default_of(limits::SEARCH_DEADLINE_MS));
    let grace_default = default_of(limits::SEARCH_GRACE_MS).min(deadline.unwrap_or(DEADLINE_MAX));
    let grace_ms = s.number(
        p,
        "grace_ms",
        Range::up_to(0, "deadline_ms", deadline, DEADLINE_MAX),
        grace_default,
    );
    let drop_instruction_like = s.boolean(p, "drop_instruction_like", false);
    Some(SearchConfig {
        drop_instruction_like: drop_instruction_like?,
        languages: languages?,
        region: region?,
        safe_search: safe_search?,
        max_results: max_results?,
        max_results_ceiling: u32::try_from(ceiling?).ok()?,
        query_max_chars: query_max_chars?,
        deadline_ms: u64::try_from(deadline?).ok()?,
        grace_ms: grace_ms?,
    })
}

fn languages(s: &mut Section<'_>, p: &mut Problems) -> Option<Vec<String>> {
    let path = s.key_path("languages");
    let items = match s.strings(p, "languages") {
        Lookup::Absent => return Some(vec![LANG_SAMPLE.to_owned()]),
        Lookup::Invalid => return None,
        Lookup::Found(items) => items,
    };
    let before = p.0.len();
    if items.is_empty() {
        p.push(path.clone(), "needs at least one language");
    }
    if items.len() > LANGUAGES_MAX {
        p.push(
            path.clone(),
            format!("must list at most {LANGUAGES_MAX} languages"),
        );
    }
    for (index, code) in items.iter().enumerate() {
        if !is_language_code(code) {
            p.push(
                indexed(&path, index),
                "expected a language code such as en or pt-br",
            );
        } else if items[..index].contains(code) {
            p.push(indexed(&path, index), "duplicate language");
        }
    }
    (p.0.len() == before).then(|| items.iter().map(|&c| c.to_owned()).collect())
}

/// `^[a-z]{2,3}(-[a-z0-9]{2,8})?$`.
fn is_language_code(code: &str) -> bool {
    let (primary, subtag) = match code.split_once('-') {
        Some((primary, subtag)) => (primary, Some(subtag)),
        None => (code, None),
    };
    (2..=3).contains(&primary.len())
        && primary.bytes().all(|b| b.is_ascii_lowercase())
        && subtag.is_none_or(|t| {
            (2..=8).contains(&t.len())
                && t.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
}

fn fetch(s: &mut Section<'_>, p: &mut Problems) -> Option<FetchConfig> {
    let floor = i64::from(limits::FETCH_MAX_CHARS_FLOOR);
    const CEILING_MAX: i64 = 200_000;
    let ceiling = s
        .integer(p, "max_chars_ceiling", Range::new(floor, CEILING_MAX))
        .or(limits::FETCH_MAX_CHARS_CEILING.into());
    // As for max_results: a lowered ceiling lowers the default with it.
    let max_chars_default =
        i64::from(limits::FETCH_MAX_CHARS_DEFAULT).min(ceiling.unwrap_or(CEILING_MAX));
    let max_chars = s.number(
        p,
        "max_chars",
        Range::up_to(floor, "max_chars_ceiling", ceiling, CEILING_MAX),
        max_chars_default,
    );
    // The upper bound keeps one body, with its headers, inside one LIM-W1
    // frame between processes.
    let max_bytes = s.number(
        p,
        "max_bytes",
        Range::new(64 * 1024, 7 * 1024 * 1024),
        default_of(limits::FETCH_MAX_BYTES),
    );
    let robots_txt = s.boolean(p, "robots_txt", true);
    let follow = s.boolean(p, "follow_cross_host_redirects", false);
    let strict_mode = s.boolean(p, "strict_mode", false);
    Some(FetchConfig {
        max_chars: max_chars?,
        max_chars_ceiling: u32::try_from(ceiling?).ok()?,
        max_bytes: max_bytes?,
        robots_txt: robots_txt?,
        follow_cross_host_redirects: follow?,
        strict_mode: strict_mode?,
    })
}

fn egress(s: &mut Section<'_>, p: &mut Problems) -> Option<EgressConfig> {
    let allow_http = s.boolean(p, "allow_http", false);
    let allow = rules(s, p, "allow");
    let deny = rules(s, p, "deny");
    let hosts_path = s.key_path("hosts");
    let hosts = static_hosts(s.value("hosts"), &hosts_path, p);
    Some(EgressConfig {
        allow_http: allow_http?,
        policy: EgressPolicy {
            allow: allow?,
            deny: deny?,
            hosts: hosts?,
        },
    })
}

fn rules(s: &mut Section<'_>, p: &mut Problems, key: &'static str) -> Option<Vec<EgressRule>> {
    let path = s.key_path(key);
    let items = s.strings(p, key).or(Vec::new())?;
    let before = p.0.len();
    let mut rules = Vec::with_capacity(items.len());
    for (index, text) in items.into_iter().enumerate() {
        match parse_rule(text) {
            Ok(rule) => rules.push(rule),
            // RuleError's messages are static and never quote the rule.
            Err(error) => p.push(indexed(&path, index), error.to_string()),
        }
    }
    (p.0.len() == before).then_some(rules)
}

/// `[egress.hosts]`: every key is a host name, so none is "unknown".
fn static_hosts(
    value: Option<&Value>,
    hosts_path: &str,
    p: &mut Problems,
) -> Option<Vec<StaticHost>> {
    let table = match value {
        None => return Some(Vec::new()),
        Some(Value::Table(table)) => table,
        Some(_) => {
            p.push(hosts_path, "expected a table");
            return None;
        }
    };
    let before = p.0.len();
    let mut hosts: Vec<StaticHost> = Vec::with_capacity(table.len());
    for (key, value) in table {
        let path = child(hosts_path, key);
        let name = parse_host_name(key);
        match &name {
            None => p.push(path.clone(), "expected a host name"),
            Some(name) if hosts.iter().any(|h| h.name == *name) => {
                p.push(path.clone(), "duplicate host name");
            }
            Some(_) => {}
        }
        let Some(items) = as_strings(value) else {
            p.push(path, "expected an array of strings");
            continue;
        };
        if items.is_empty() {
            p.push(path.clone(), "needs at least one address");
        }
        let mut addrs = Vec::with_capacity(items.len());
        for (index, text) in items.into_iter().enumerate() {
            match text.parse::<IpAddr>() {
                Ok(addr) => addrs.push(addr),
                Err(_) => p.push(indexed(&path, index), "expected an IP address"),
            }
        }
        if let Some(name) = name {
            hosts.push(StaticHost { name, addrs });
        }
    }
    (p.0.len() == before).then_some(hosts)
}

fn limits(s: &mut Section<'_>, p: &mut Problems) -> Option<LimitsConfig> {
    let per_minute = Range::new(1, 100_000);
    let search = s.number(
        p,
        "web_search_per_minute",
        per_minute,
        limits::SEARCH_PER_MINUTE.into(),
    );
    let fetch = s.number(
        p,
        "web_fetch_per_minute",
        per_minute,
        limits::FETCH_PER_MINUTE.into(),
    );
    let status = s.number(
        p,
        "engine_status_per_minute",
        per_minute,
        limits::STATUS_PER_MINUTE.into(),
    );
    let fetch_concurrency = s.number(
        p,
        "fetch_concurrency",
        Range::new(1, 256),
        limits::FETCH_CONCURRENCY.into(),
    );
    let parse_workers = s.number(
        p,
        "parse_workers",
        Range::new(1, 16),
        limits::PARSE_WORKERS.into(),
    );
    // The listener's bounds (LIM-H1, LIM-H2, LIM-H6): usable at the floor
    // (one connection, one session, a body that holds any tool call),
    // memory still bounded at the ceiling.
    let http_connections = s.number(
        p,
        "http_connections",
        Range::new(1, 4096),
        default_of(limits::HTTP_MAX_CONNECTIONS),
    );
    let http_request_body_bytes = s.number(
        p,
        "http_request_body_bytes",
        Range::new(HTTP_BODY_BYTES_FLOOR, HTTP_BODY_BYTES_CEILING),
        default_of(limits::HTTP_MAX_BODY_BYTES),
    );
    let http_sessions = s.number(
        p,
        "http_sessions",
        Range::new(1, 1024),
        default_of(limits::HTTP_MAX_SESSIONS),
    );
    Some(LimitsConfig {
        web_search_per_minute: search?,
        web_fetch_per_minute: fetch?,
        engine_status_per_minute: status?,
        fetch_concurrency: fetch_concurrency?,
        parse_workers: parse_workers?,
        http_connections: http_connections?,
        http_request_body_bytes: http_request_body_bytes?,
        http_sessions: http_sessions?,
    })
}

fn http(s: &mut Section<'_>, p: &mut Problems) -> Option<HttpConfig> {
    let bind = match s.string(p, "bind") {
        Lookup::Absent => DEFAULT_BIND.parse::<SocketAddr>().ok(),
        Lookup::Invalid => None,
        Lookup::Found(text) => {
            let bind = text.parse::<SocketAddr>().ok();
            if bind.is_none() {
                p.push(
                    s.key_path("bind"),
                    "expected a socket address such as 127.0.0.1:8808",
                );
            }
            bind
        }
    };
    let auth_token = s.secret_ref(p, "auth_token_env", "auth_token_file");
    let token_given = !matches!(auth_token, Lookup::Absent);
    if let Some(bind) = bind
        && !bind.ip().is_loopback()
        && !token_given
    {
        p.push(
            s.key_path("bind"),
            "a non-loopback bind needs auth_token_env or auth_token_file",
        );
    }
    let allowed_origins = s.strings(p, "allowed_origins").or(Vec::new());
    let allowed_hosts = s.strings(p, "allowed_hosts").or(Vec::new());
    Some(HttpConfig {
        bind: bind?,
        auth_token: match auth_token {
            Lookup::Absent => None,
            Lookup::Found(reference) => Some(reference),
            Lookup::Invalid => return None,
        },
        allowed_origins: owned(allowed_origins?),
        allowed_hosts: owned(allowed_hosts?),
    })
}

fn owned(items: Vec<&str>) -> Vec<String> {
    items.into_iter().map(str::to_owned).collect()
}

fn sandbox(s: &mut Section<'_>, p: &mut Problems) -> Option<SandboxConfig> {
    let require_seccomp = s.boolean(p, "require_seccomp", true);
    let require_landlock = s.boolean(p, "require_landlock", false);
    Some(SandboxConfig {
        require_seccomp: require_seccomp?,
        require_landlock: require_landlock?,
    })
}

impl EngineConfig {
    /// An engine of `kind` named `id` with every key at its driver's
    /// default.
    fn with_defaults(id: &str, kind: EngineType) -> Self {
        let spec = kind.spec();
        let credential = match spec.credential {
            CredentialRule::None | CredentialRule::Optional => None,
            CredentialRule::Required { default_env } => {
                Some(SecretRef::Env(default_env.to_owned()))
            }
        };
        Self {
            id: id.to_owned(),
            kind,
            enabled: true,
            categories: spec.default_categories.to_vec(),
            endpoint: None,
            timeout_ms: limits::ENGINE_TIMEOUT_MS,
            weight: 1.0,
            credential,
        }
    }
}

fn engines(
    top: &mut Section<'_>,
    p: &mut Problems,
    allow: &[EgressRule],
) -> Option<Vec<EngineConfig>> {
    let path = top.key_path("engines");
    let table = match top.value("engines") {
        None => {
            // The zero configuration: each default driver once, named for
            // its type.
            return Some(
                EngineType::ALL
                    .iter()
                    .filter(|kind| kind.spec().in_default_set)
                    .map(|&kind| EngineConfig::with_defaults(kind.as_str(), kind))
                    .collect(),
            );
        }
        Some(Value::Table(table)) => table,
        Some(_) => {
            p.push(path, "expected a table");
            return None;
        }
    };
    let before = p.0.len();
    let mut engines = Vec::with_capacity(table.len());
    for (name, value) in table {
        let engine_path = child(&path, name);
        if !is_engine_name(name) {
            p.push(
                engine_path.clone(),
                "engine names are a lower-case letter then up to 31 lower-case letters, digits, '_' or '-'",
            );
        }
        let body = match value {
            Value::Table(body) => body,
            Value::String(_)
            | Value::Integer(_)
            | Value::Float(_)
            | Value::Boolean(_)
            | Value::Datetime(_)
            | Value::Array(_) => {
                // `[engines] api_key = "…"` is a pasted secret, not an engine.
                let message = if is_secret_key(name) {
                    SecretHint::ApiKey.message()
                } else {
                    "expected a table"
                };
                p.push(engine_path, message);
                continue;
            }
        };
        let mut section = Section::new(engine_path, Some(body), SecretHint::ApiKey);
        if let Some(engine) = engine(&mut section, p, name, allow) {
            engines.push(engine);
        }
        section.finish(p);
    }
    (p.0.len() == before).then_some(engines)
}

/// `^[a-z][a-z0-9_-]{0,31}$`.
fn is_engine_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    name.len() <= 32
        && bytes.next().is_some_and(|b| b.is_ascii_lowercase())
        && bytes.all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
}

fn engine(
    s: &mut Section<'_>,
    p: &mut Problems,
    id: &str,
    allow: &[EgressRule],
) -> Option<EngineConfig> {
    let kind = match s.string(p, "type") {
        Lookup::Absent => {
            p.push(s.key_path("type"), "missing; every engine needs a type");
            None
        }
        Lookup::Invalid => None,
        Lookup::Found(text) => {
            let kind = EngineType::parse(text);
            if kind.is_none() {
                p.push(s.key_path("type"), "unknown engine type");
            }
            kind
        }
    };
    let enabled = s.boolean(p, "enabled", true);
    let categories = categories(s, p);
    let endpoint = match s.string(p, "endpoint") {
        Lookup::Absent => Some(None),
        Lookup::Invalid => None,
        Lookup::Found(template) => match endpoint_problem(template, allow) {
            None => Some(Some(template.to_owned())),
            Some(message) => {
                p.push(s.key_path("endpoint"), message);
                None
            }
        },
    };
    let timeout_ms = s.number(
        p,
        "timeout_ms",
        Range::new(100, 60_000),
        default_of(limits::ENGINE_TIMEOUT_MS),
    );
    let weight = weight(s, p);
    let credential = match kind.map(|kind| (kind, kind.spec().credential)) {
        Some((kind, CredentialRule::None)) => {
            let mut credential = Lookup::Absent;
            for key in ["api_key_env", "api_key_file"] {
                if s.value(key).is_some() {
                    p.push(
                        s.key_path(key),
                        format!("{} needs no credential", kind.as_str()),
                    );
                    credential = Lookup::Invalid;
                }
            }
            credential
        }
        Some((_, CredentialRule::Required { .. } | CredentialRule::Optional)) | None => {
            s.secret_ref(p, "api_key_env", "api_key_file")
        }
    };

    // Type-specific defaults need the type; without one the problem is
    // already recorded.
    let mut engine = EngineConfig::with_defaults(id, kind?);
    match credential {
        Lookup::Absent => {}
        Lookup::Found(reference) => engine.credential = Some(reference),
        Lookup::Invalid => return None,
    }
    engine.enabled = enabled?;
    if let Some(categories) = categories? {
        engine.categories = categories;
    }
    engine.endpoint = endpoint?;
    if engine.endpoint.is_none() && engine.kind.spec().endpoint_required {
        p.push(
            s.key_path("endpoint"),
            format!(
                "{} needs an endpoint: the operator's own instance",
                engine.kind.as_str()
            ),
        );
        return None;
    }
    engine.timeout_ms = timeout_ms?;
    engine.weight = weight?;
    Some(engine)
}

/// `Some(None)` when absent (the type's default applies).
fn categories(s: &mut Section<'_>, p: &mut Problems) -> Option<Option<Vec<Category>>> {
    let path = s.key_path("categories");
    let items = match s.strings(p, "categories") {
        Lookup::Absent => return Some(None),
        Lookup::Invalid => return None,
        Lookup::Found(items) => items,
    };
    let before = p.0.len();
    if items.is_empty() {
        p.push(path.clone(), "needs at least one category");
    }
    let mut categories = Vec::with_capacity(items.len());
    for (index, text) in items.into_iter().enumerate() {
        match Category::parse(text) {
            Some(category) if categories.contains(&category) => {
                p.push(indexed(&path, index), "duplicate category");
            }
            Some(category) => categories.push(category),
            None => {
                let names: Vec<&str> = Category::ALL.iter().map(|c| c.as_str()).collect();
                p.push(
                    indexed(&path, index),
                    format!("expected one of {}", names.join(", ")),
                );
            }
        }
    }
    (p.0.len() == before).then_some(Some(categories))
}

fn weight(s: &mut Section<'_>, p: &mut Problems) -> Option<f64> {
    let value = match s.value("weight") {
        None => return Some(1.0),
        Some(Value::Float(value)) => *value,
        // Weights are small: every integer in range is exact as an f64.
        Some(Value::Integer(value)) => *value as f64,
        Some(_) => {
            p.push(s.key_path("weight"), "expected a number");
            return None;
        }
    };
    // Written so that NaN fails the test.
    if value > 0.0 && value <= 100.0 {
        Some(value)
    } else {
        p.push(
            s.key_path("weight"),
            "must be greater than 0 and at most 100",
        );
        None
    }
}

/// What is wrong with an endpoint template, if anything.
fn endpoint_problem(template: &str, allow: &[EgressRule]) -> Option<&'static str> {
    let sample = template.replace(LANG_PLACEHOLDER, LANG_SAMPLE);
    if sample.contains(['{', '}']) {
        return Some("may hold no placeholder but {lang}");
    }
    let Ok(url) = url::Url::parse(&sample) else {
        return Some("is not a valid URL");
    };
    if !matches!(url.scheme(), "http" | "https") {
        return Some("must use http or https");
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Some("may not hold user info");
    }
    if url.fragment().is_some() {
        return Some("may not hold a fragment");
    }
    let (Some(host), Some(port)) = (url.host(), url.port_or_known_default()) else {
        return Some("needs a host");
    };
    if limits::DEFAULT_PORTS.contains(&port) {
        return None;
    }
    let allowed = allow.iter().any(|rule| match host {
        url::Host::Domain(name) => rule.matches_name(name, port),
        url::Host::Ipv4(addr) => rule.matches_addr(IpAddr::V4(addr), port),
        url::Host::Ipv6(addr) => rule.matches_addr(IpAddr::V6(addr), port),
    });
    (!allowed).then_some("port outside 80 and 443 needs an [egress] allow rule")
}

/// The rules that tie keys of different tables together.
fn check_cross_keys(
    p: &mut Problems,
    service: Option<&ServiceConfig>,
    search: Option<&SearchConfig>,
    engines: Option<&[EngineConfig]>,
) {
    let Some(engines) = engines else {
        return;
    };
    // LIM-S5 + LIM-S6 <= LIM-S4: an engine that uses its whole timeout must
    // still leave the grace inside the deadline.
    if let Some(search) = search {
        for engine in engines {
            if engine.timeout_ms.saturating_add(search.grace_ms) > search.deadline_ms {
                p.push(
                    child(&child("engines", &engine.id), "timeout_ms"),
                    "timeout_ms plus search.grace_ms exceeds search.deadline_ms",
                );
            }
        }
    }
    // Some providers' User-Agent policies ask for a way to reach the
    // operator (REQ-CMP-004): one problem per such driver enabled.
    let Some(service) = service else {
        return;
    };
    if !service.contact.is_empty() {
        return;
    }
    for kind in EngineType::ALL {
        let spec = kind.spec();
        if spec.admission.needs_contact_in_user_agent
            && engines.iter().any(|e| e.enabled && e.kind == *kind)
        {
            p.push(
                "service.contact",
                format!(
                    "{} requires an operator contact for its User-Agent",
                    spec.display_name
                ),
            );
        }
    }
}
