//! `[engines.NAME]`: each engine's type, its driver's defaults and checks
//! (from the engine registry), endpoint, timeout, weight and credential
//! reference (REQ-ENG-001, REQ-CFG-004).

use std::net::IpAddr;

use rypsok_egress::{AdmittedEndpoint, EgressPolicy, EndpointHost, parse_host_name};
use toml::Value;

use crate::config::problem::LANG_SAMPLE;
use crate::config::reader::{
    Lookup, Problems, Range, SecretHint, Section, child, default_of, indexed, is_secret_key,
};
use crate::config::{Category, EngineConfig, EngineKind, SecretRef};
use crate::engine::{CredentialRule, Driver};
use crate::limits;

/// The `{lang}` placeholder of an endpoint template, and what stands in for
/// it when the template is validated.
const LANG_PLACEHOLDER: &str = "{lang}";

impl EngineConfig {
    /// An engine of `kind` named `id` with every key at its driver's
    /// default.
    fn with_defaults(id: &str, kind: EngineKind) -> Self {
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

/// Whether the engine's credential reference is its driver's default
/// (`BRAVE_API_KEY`), which the file need not name: unset, the engine is
/// inactive, a warning rather than a mistake.
pub(in crate::config) fn is_driver_default(engine: &EngineConfig) -> bool {
    match (engine.kind.spec().credential, &engine.credential) {
        (CredentialRule::Required { default_env }, Some(SecretRef::Env(name))) => {
            name == default_env
        }
        _ => false,
    }
}

pub(in crate::config) fn engines(
    top: &mut Section<'_>,
    p: &mut Problems,
    egress: &EgressPolicy,
) -> Option<Vec<EngineConfig>> {
    let path = top.key_path("engines");
    let table = match top.value("engines") {
        None => {
            // The zero configuration: each default driver once, named for
            // its type.
            return Some(
                EngineKind::ALL
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
        if let Some(engine) = engine(&mut section, p, name, egress) {
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
    egress: &EgressPolicy,
) -> Option<EngineConfig> {
    let kind = match s.string(p, "type") {
        Lookup::Absent => {
            p.push(s.key_path("type"), "missing; every engine needs a type");
            None
        }
        Lookup::Invalid => None,
        Lookup::Found(text) => {
            let kind = EngineKind::parse(text);
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
        Lookup::Found(template) => match endpoint_problem(template, egress) {
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
                let names = Category::words();
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
fn endpoint_problem(template: &str, egress: &EgressPolicy) -> Option<&'static str> {
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
    // An endpoint written as an address or a pinned name is admitted for
    // its engine on its own port (design §8).
    if limits::DEFAULT_PORTS.contains(&port) || admitted_endpoint_of(&url, egress).is_some() {
        return None;
    }
    let allowed = egress.allow.iter().any(|rule| match host {
        url::Host::Domain(name) => rule.matches_name(name, port),
        url::Host::Ipv4(addr) => rule.matches_addr(IpAddr::V4(addr), port),
        url::Host::Ipv6(addr) => rule.matches_addr(IpAddr::V6(addr), port),
    });
    (!allowed).then_some(
        "port outside 80 and 443 needs an [egress] allow rule, an address, or a name pinned in [egress] hosts",
    )
}

/// The endpoint `url` goes to, when the operator's policy admits it for an
/// engine by the way it is written: a literal address, or a name pinned
/// in `[egress] hosts` (design §8, "the configured host only").
pub(crate) fn admitted_endpoint_of(
    url: &url::Url,
    egress: &EgressPolicy,
) -> Option<AdmittedEndpoint> {
    let port = url.port_or_known_default()?;
    match url.host()? {
        url::Host::Domain(name) => {
            let name = parse_host_name(name)?;
            egress.admit_endpoint(EndpointHost::Name(&name), port)
        }
        url::Host::Ipv4(addr) => egress.admit_endpoint(EndpointHost::Addr(IpAddr::V4(addr)), port),
        url::Host::Ipv6(addr) => egress.admit_endpoint(EndpointHost::Addr(IpAddr::V6(addr)), port),
    }
}

impl EngineConfig {
    /// The engine's configured endpoint, when the operator wrote its host
    /// as a literal address or as a name pinned in `[egress] hosts`: the
    /// engine reaches it without an allow rule, and nothing else does. An
    /// endpoint whose host depends on the language is never admitted so.
    pub fn admitted_endpoint(&self, egress: &EgressPolicy) -> Option<AdmittedEndpoint> {
        let template = self.endpoint.as_deref()?;
        let admitted = |lang: &str| {
            let url = url::Url::parse(&template.replace(LANG_PLACEHOLDER, lang)).ok()?;
            admitted_endpoint_of(&url, egress)
        };
        let endpoint = admitted(LANG_SAMPLE)?;
        (admitted("zz").as_ref() == Some(&endpoint)).then_some(endpoint)
    }
}
