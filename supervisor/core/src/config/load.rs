//! Reading and validating the configuration file (design §13.2,
//! ARCHITECTURE.md "Configuration additions"; REQ-CFG-001, REQ-CFG-003..005,
//! REQ-MAIN-003).
//!
//! The TOML is parsed into a generic table and every key is then checked by
//! hand (the reader in `reader.rs`, one validator per section under
//! `section/`), so that one run of `rypsok check` reports *every* problem
//! with its dotted key path. Problem messages are static text plus numbers and never
//! quote a value: an operator who pasted a token into the wrong key must not
//! see it again in a terminal or a log.

use rypsok_egress::EgressPolicy;
use rypsok_proto::LogLevel;
use toml::{Table, Value};

use crate::config::problem::ConfigProblem;
use crate::config::reader::{Problems, SecretHint, Section, child};
use crate::config::section::{
    cache::{cache, check_scraping, scraping},
    egress::egress,
    engines::engines,
    fetch::fetch,
    http::http,
    limits::limits,
    metrics::metrics,
    sandbox::sandbox,
    search::search,
    service::service,
};
use crate::config::{
    CONFIG_VERSION, Config, EngineConfig, EngineKind, LoggingConfig, PrivacyConfig, SearchConfig,
    SecretDetection, ServiceConfig, StatusConfig,
};
use crate::engine::Driver;

/// Validates configuration text; `""` gives the defaults (REQ-CFG-003).
/// The adapter reads the file and hands its text here: the core reads no
/// file.
pub fn load_str(text: &str) -> Result<Config, Vec<ConfigProblem>> {
    let root: Table = match text.parse() {
        Ok(root) => root,
        // The parser's message can quote the offending line, which may hold
        // a secret: only where it is and which key was being read are kept.
        Err(error) => {
            return Err(without_credentials(
                text,
                vec![whole_file(syntax_problem(text, error.span()))],
            ));
        }
    };
    let mut problems = Problems::default();
    let config = validate(&root, &mut problems);
    match (config, problems.0.is_empty()) {
        (Some(config), true) => Ok(config),
        (Some(_) | None, false) => Err(without_credentials(text, problems.0)),
        // Every path that yields no value records a problem; this arm only
        // keeps a slip in that rule from passing an invalid file.
        (None, true) => Err(vec![whole_file("the configuration could not be built")]),
    }
}

/// The problems with every credential the secret check finds in the file
/// replaced as the check masks a query (its kind in brackets, such as
/// `[aws_access_key_id]`): a path names the file's keys, and so does a
/// syntax problem's message (the key being read), and a key may hold a
/// pasted token.
fn without_credentials(text: &str, mut problems: Vec<ConfigProblem>) -> Vec<ConfigProblem> {
    let mut found: Vec<(String, String)> = crate::secret::find(text)
        .iter()
        .map(|f| {
            let credential = text.chars().skip(f.position).take(f.len).collect();
            (credential, f.kind.placeholder())
        })
        .collect();
    // The longest first, so that none is left in part by a shorter one
    // inside it.
    found.sort_by_key(|(credential, _)| std::cmp::Reverse(credential.len()));
    for p in &mut problems {
        for (credential, masked) in &found {
            for field in [&mut p.path, &mut p.message] {
                if field.contains(credential.as_str()) {
                    *field = field.replace(credential.as_str(), masked);
                }
            }
        }
    }
    problems
}

/// Every key path the validator reads, in the order it reads them: one per
/// key of each table (a table's own name included), with an engine's keys
/// under `engines.<name>`. The operator reference is checked against this
/// list, so a key cannot be accepted without being documented.
pub fn accepted_keys() -> Vec<String> {
    // Every section is read whether or not its table is present; an engine
    // table is read key by key, so one engine shows them all.
    let sample = "[engines.name]\ntype = \"stackexchange\"\n";
    let Ok(root) = sample.parse::<Table>() else {
        return Vec::new();
    };
    let mut problems = Problems::default();
    let _ = validate(&root, &mut problems);
    let mut keys: Vec<String> = problems
        .1
        .into_iter()
        .map(|key| match key.strip_prefix("engines.name") {
            Some(rest) => format!("engines.<name>{rest}"),
            None => key,
        })
        .collect();
    let mut seen = std::collections::HashSet::new();
    keys.retain(|key| seen.insert(key.clone()));
    keys
}

fn whole_file(message: impl Into<String>) -> ConfigProblem {
    ConfigProblem {
        path: String::new(),
        message: message.into(),
    }
}

/// A TOML syntax error, told by where it is: line and column (1-based, the
/// column in characters) and the key being read, or the table it is in.
/// Never the text of the line: it may hold a pasted secret.
fn syntax_problem(text: &str, span: Option<std::ops::Range<usize>>) -> String {
    let Some(span) = span else {
        return "the file is not valid TOML".to_owned();
    };
    let offset = floor_char_boundary(text, span.start);
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let line = text[..offset].matches('\n').count() + 1;
    let column = text[line_start..offset].chars().count() + 1;
    let line_text = text[line_start..]
        .split('\n')
        .next()
        .unwrap_or_default()
        .trim_end_matches('\r');
    let table = table_at(&text[..line_start]);
    let key = line_text
        .split_once('=')
        .and_then(|(key, _)| dotted_key(key.trim()));
    let place = match (table, key) {
        (Some(table), Some(key)) => format!(", reading the key {table}.{key}"),
        (None, Some(key)) => format!(", reading the key {key}"),
        (Some(table), None) => format!(", in the table [{table}]"),
        (None, None) => String::new(),
    };
    format!("the file is not valid TOML (line {line}, column {column}{place})")
}

/// The last `[table]` or `[[array]]` header in `before`, when it is written
/// with bare keys.
fn table_at(before: &str) -> Option<String> {
    let header = before
        .lines()
        .map(str::trim)
        .rfind(|line| line.starts_with('['))?;
    let name = header
        .trim_start_matches('[')
        .split(']')
        .next()
        .unwrap_or_default();
    dotted_key(name.trim())
}

/// `key` or `a.b.c` written with bare keys (letters, digits, `_`, `-`),
/// spaces or tabs (TOML's whitespace) around the dots, and at most 64
/// characters, as the parts joined by dots (the whitespace, a tab too,
/// is not repeated); anything else is not repeated at all. (`str::trim`
/// would also pass a carriage return or another Unicode space, and the
/// message would carry it.)
fn dotted_key(text: &str) -> Option<String> {
    let bare = |part: &str| {
        !part.is_empty()
            && part
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    };
    let parts: Vec<&str> = text
        .split('.')
        .map(|part| part.trim_matches([' ', '\t']))
        .collect();
    (text.len() <= 64 && parts.iter().all(|p| bare(p))).then(|| parts.join("."))
}

/// The largest character boundary at or before `offset`.
fn floor_char_boundary(text: &str, offset: usize) -> usize {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

const LOG_LEVELS: [LogLevel; 5] = [
    LogLevel::Error,
    LogLevel::Warn,
    LogLevel::Info,
    LogLevel::Debug,
    LogLevel::Trace,
];

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
            SecretDetection::ALL,
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

    let mut section = top.section(p, "metrics", SecretHint::AuthToken);
    let metrics = metrics(&mut section, p);
    section.finish(p);

    let mut section = top.section(p, "sandbox", SecretHint::ApiKey);
    let sandbox = sandbox(&mut section, p);
    section.finish(p);

    let mut section = top.section(p, "cache", SecretHint::ApiKey);
    let cache = cache(&mut section, p);
    section.finish(p);

    let mut section = top.section(p, "scraping", SecretHint::ApiKey);
    let scraping = scraping(&mut section, p);
    section.finish(p);

    let no_egress = EgressPolicy::default();
    let policy = egress.as_ref().map_or(&no_egress, |e| &e.policy);
    let engines = engines(&mut top, p, policy);
    // The endpoints the operator wrote as an address or a pinned name
    // travel with the policy, admitted for their engines only (design §8).
    let mut egress = egress;
    if let (Some(egress), Some(engines)) = (egress.as_mut(), engines.as_deref()) {
        for engine in engines.iter().filter(|engine| engine.enabled) {
            if let Some(endpoint) = engine.admitted_endpoint(&egress.policy)
                && !egress.policy.endpoints.contains(&endpoint)
            {
                egress.policy.endpoints.push(endpoint);
            }
        }
    }

    top.finish(p);

    check_cross_keys(p, service.as_ref(), search.as_ref(), engines.as_deref());
    check_scraping(p, scraping.as_ref(), engines.as_deref());

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
        metrics: metrics?,
        sandbox: sandbox?,
        cache: cache?,
        scraping: scraping?,
        engines: engines?,
    })
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
    for kind in EngineKind::ALL {
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
