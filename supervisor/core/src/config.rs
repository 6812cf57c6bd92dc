//! Configuration: the validated, immutable settings of one process
//! (design §13.2, ARCHITECTURE.md "Configuration additions";
//! REQ-CFG-001, REQ-CFG-003..005, REQ-MAIN-003).
//!
//! Loading is two steps: the TOML is read into a generic table, then every
//! key is checked by hand so that *every* problem is reported with its key
//! path, not only the first (`rypsok check`). Secrets are never values in the
//! file: only references (`api_key_env`, `api_key_file`), read at start.

mod load;
mod problem;
mod reader;
mod section;
#[cfg(test)]
mod tests;

use std::net::SocketAddr;
use std::path::PathBuf;

use rypsok_egress::EgressPolicy;
use rypsok_proto::LogLevel;

use crate::vocabulary::vocabulary;

pub use crate::vocabulary::{Category, SafeSearch};
pub use load::{accepted_keys, load_str};
pub use problem::{ConfigProblem, PROJECT_URL};
#[cfg(feature = "fuzzing")]
pub(crate) use reader::looks_like_secret;
pub use rypsok_proto::EngineKind;
pub(crate) use section::engines::admitted_endpoint_of;

/// The one configuration version this build understands (REQ-MAIN-003).
pub const CONFIG_VERSION: i64 = 1;

/// Everything the operator can set, validated.
#[derive(Debug, Clone)]
pub struct Config {
    /// `[service]`.
    pub service: ServiceConfig,
    /// `[search]`.
    pub search: SearchConfig,
    /// `[fetch]`.
    pub fetch: FetchConfig,
    /// `[egress]`.
    pub egress: EgressConfig,
    /// `[privacy]`.
    pub privacy: PrivacyConfig,
    /// `[logging]`.
    pub logging: LoggingConfig,
    /// `[status]`.
    pub status: StatusConfig,
    /// `[limits]`.
    pub limits: LimitsConfig,
    /// `[http]`.
    pub http: HttpConfig,
    /// `[metrics]`.
    pub metrics: MetricsConfig,
    /// `[sandbox]`.
    pub sandbox: SandboxConfig,
    /// `[cache]`.
    pub cache: CacheConfig,
    /// `[scraping]`.
    pub scraping: ScrapingConfig,
    /// `[engines.NAME]`, in the order the file lists them (preference order).
    pub engines: Vec<EngineConfig>,
}

/// `[service]`.
#[derive(Debug, Clone)]
pub struct ServiceConfig {
    /// Send `structuredContent` besides the text (REQ-MCP-011).
    pub structured_content: bool,
    /// Operator contact for the User-Agent (REQ-CMP-004).
    pub contact: String,
    /// Attach `engines` to every result, not only where a driver requires it.
    pub attribution: bool,
    /// Serve the earlier, handshake-based revisions (`initialize`, and over
    /// HTTP their sessions) beside the current one; `false` serves the
    /// 2026-07-28 revision alone (REQ-MCP-006).
    pub handshake_revisions: bool,
    /// What a tool result's text block holds: the response's JSON (the
    /// default) or the same response rendered as Markdown for reading
    /// (REQ-MCP-011, REQ-CTX-003).
    pub text_format: TextFormat,
}

vocabulary! {
    /// The text block of a tool result (`[service] text_format`).
    pub TextFormat {
        /// The response's JSON, the same as the structured content (default).
        Json => "json",
        /// The same response rendered as Markdown, every external field
        /// fenced as external data.
        Markdown => "markdown",
    }
}

/// `[search]`.
#[derive(Debug, Clone)]
pub struct SearchConfig {
    /// Languages offered to callers; the first is the default (REQ-SEARCH-004).
    pub languages: Vec<String>,
    /// Region code, upper-case ISO 3166-1 alpha-2 (REQ-SEARCH-008).
    pub region: String,
    /// Safe-search level (REQ-SEARCH-008).
    pub safe_search: SafeSearch,
    /// LIM-S2 default.
    pub max_results: u32,
    /// LIM-S2 ceiling.
    pub max_results_ceiling: u32,
    /// LIM-S1.
    pub query_max_chars: usize,
    /// LIM-S4.
    pub deadline_ms: u64,
    /// LIM-S6.
    pub grace_ms: u64,
    /// Drop results whose title or snippet reads like an instruction, with
    /// `results_dropped` (REQ-SEC-003); by default they are kept and noticed.
    pub drop_instruction_like: bool,
}

/// `[fetch]`.
#[derive(Debug, Clone)]
pub struct FetchConfig {
    /// LIM-F1.
    pub max_chars: u32,
    /// LIM-F2.
    pub max_chars_ceiling: u32,
    /// LIM-F3.
    pub max_bytes: u64,
    /// LIM-F14: the bound of a body that is (or may be) a PDF.
    pub pdf_max_bytes: u64,
    /// REQ-CMP-005.
    pub robots_txt: bool,
    /// REQ-FETCH-006.
    pub follow_cross_host_redirects: bool,
    /// REQ-SEC-021.
    pub strict_mode: bool,
}

/// `[egress]`.
#[derive(Debug, Clone)]
pub struct EgressConfig {
    /// REQ-FETCH-010: plain http for agent-directed fetches.
    pub allow_http: bool,
    /// allow, deny and hosts.
    pub policy: EgressPolicy,
    /// `proxy` and its keys: the forward proxy for engine traffic.
    pub proxy: Option<ProxyConfig>,
    /// `ca_file`: extra trust anchors (PEM), read by the adapter at start.
    pub ca_file: Option<PathBuf>,
}

/// `[egress] proxy`, `proxy_auth_env`/`proxy_auth_file`,
/// `proxy_enforces_profile` (design §8, REQ-RES-008).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProxyConfig {
    /// The proxy's host: a normalised name or a literal address.
    pub host: String,
    /// Its port.
    pub port: u16,
    /// Basic credentials (`user:password`), by reference only.
    pub auth: Option<SecretRef>,
    /// The operator states that the proxy enforces the agent profile:
    /// `web_fetch` then goes through it too.
    pub enforces_profile: bool,
}

/// `[privacy]`.
#[derive(Debug, Clone)]
pub struct PrivacyConfig {
    /// LIM-P1.
    pub secret_detection: SecretDetection,
}

vocabulary! {
    /// What the secret check does (LIM-P1, `[privacy] secret_detection`).
    pub SecretDetection {
        /// Refuse the call (default).
        Refuse => "refuse",
        /// Proceed and log a warning.
        Warn => "warn",
        /// Mask the secret and proceed, with a notice.
        Mask => "mask",
        /// No check.
        Off => "off",
    }
}

/// `[logging]`.
#[derive(Debug, Clone)]
pub struct LoggingConfig {
    /// LIM-P2.
    pub level: LogLevel,
}

/// `[status]`.
#[derive(Debug, Clone)]
pub struct StatusConfig {
    /// Offer `engine_status` (REQ-STATUS-003).
    pub enabled: bool,
}

/// `[limits]`: the configurable LIM values.
#[derive(Debug, Clone)]
pub struct LimitsConfig {
    /// LIM-C6.
    pub web_search_per_minute: u32,
    /// LIM-C7.
    pub web_fetch_per_minute: u32,
    /// LIM-C8.
    pub engine_status_per_minute: u32,
    /// LIM-F10.
    pub fetch_concurrency: u32,
    /// LIM-F10 for one caller in HTTP mode: 1 to `fetch_concurrency`, a
    /// quarter (at least 1) by default. stdio's one caller has all of it.
    pub fetch_concurrency_per_caller: u32,
    /// LIM-F11.
    pub parse_workers: u32,
    /// LIM-H1: open HTTP connections; one more is closed unanswered.
    pub http_connections: usize,
    /// LIM-H2: bytes of one HTTP request body.
    pub http_request_body_bytes: usize,
    /// LIM-H6: open HTTP sessions of the handshake-based revisions.
    pub http_sessions: usize,
    /// worker-net's idle connections: per origin and profile, in all, and
    /// how long each is kept (`pool_idle_per_origin`, `pool_idle_total`,
    /// `pool_idle_secs`).
    pub pool: rypsok_proto::NetPool,
}

/// `[http]`.
#[derive(Debug, Clone)]
pub struct HttpConfig {
    /// Listener address; loopback by default.
    pub bind: SocketAddr,
    /// Bearer token, by reference.
    pub auth_token: Option<SecretRef>,
    /// Browser origins allowed besides the loopback ones (a request without
    /// an Origin header is not from a browser page and is not judged).
    pub allowed_origins: Vec<String>,
    /// Host header values allowed besides the loopback names.
    pub allowed_hosts: Vec<String>,
    /// Peers (reverse proxies) whose `Forwarded` / `X-Forwarded-For` name
    /// the client; empty: those headers are ignored.
    pub trusted_proxies: Vec<IpBlock>,
}

/// `[metrics]`: the scrape listener, off unless `bind` is set.
#[derive(Debug, Clone)]
pub struct MetricsConfig {
    /// Where `GET /metrics` is answered; `None`: no listener.
    pub bind: Option<SocketAddr>,
    /// Bearer token, by reference; required off loopback.
    pub auth_token: Option<SecretRef>,
}

/// An address block: an address and how many leading bits of it count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IpBlock {
    addr: std::net::IpAddr,
    prefix: u8,
}

impl IpBlock {
    /// `10.0.0.0/8`, `fd00::/8`, or one address; `None` when malformed.
    pub fn parse(text: &str) -> Option<Self> {
        let (addr, prefix) = match text.split_once('/') {
            Some((addr, prefix)) => (addr, Some(prefix)),
            None => (text, None),
        };
        let addr: std::net::IpAddr = addr.parse().ok()?;
        let max = if addr.is_ipv4() { 32 } else { 128 };
        let prefix = match prefix {
            None => max,
            Some(p) if !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) => p.parse().ok()?,
            Some(_) => return None,
        };
        (prefix <= max).then_some(Self { addr, prefix })
    }

    /// Whether `ip` lies in the block (an IPv4-mapped IPv6 address as the
    /// IPv4 address).
    pub fn contains(&self, ip: std::net::IpAddr) -> bool {
        let ip = match ip {
            std::net::IpAddr::V6(v6) => v6
                .to_ipv4_mapped()
                .map_or(std::net::IpAddr::V6(v6), std::net::IpAddr::V4),
            v4 => v4,
        };
        let bits = |a: std::net::IpAddr| -> u128 {
            match a {
                std::net::IpAddr::V4(v4) => u128::from(u32::from(v4)),
                std::net::IpAddr::V6(v6) => u128::from(v6),
            }
        };
        let width: u32 = if self.addr.is_ipv4() { 32 } else { 128 };
        if ip.is_ipv4() != self.addr.is_ipv4() {
            return false;
        }
        let shift = width - u32::from(self.prefix);
        if shift >= 128 {
            return true;
        }
        bits(ip) >> shift == bits(self.addr) >> shift
    }
}

/// `[sandbox]`: what to do where a confinement layer is unavailable.
#[derive(Debug, Clone)]
pub struct SandboxConfig {
    /// Refuse to start workers without seccomp (default true).
    pub require_seccomp: bool,
    /// Refuse to start workers without Landlock (default false).
    pub require_landlock: bool,
}

/// `[cache]`: the search cache (design §12, M5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheConfig {
    /// Keep engine answers for later calls; off by default (REQ-CACHE-001).
    pub enabled: bool,
    /// LIM-K2: an entry's lifetime, in seconds.
    pub ttl_s: u64,
    /// LIM-K3: entries kept at most.
    pub max_entries: usize,
}

/// `[scraping]`: drivers that read an HTML results page (design §11).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScrapingConfig {
    /// An engine of a scraping type is accepted only when this is on
    /// (REQ-ENG-013); off by default.
    pub enabled: bool,
}

/// Where a secret is read from. The secret itself is never stored in the
/// configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SecretRef {
    /// An environment variable's name.
    Env(String),
    /// A file's path; its first line, trimmed, is the secret.
    File(PathBuf),
}

impl SecretRef {
    /// What it names: the variable's name or the file's path, for the
    /// operator's own terminal and log (never the secret).
    pub fn name(&self) -> std::borrow::Cow<'_, str> {
        match self {
            Self::Env(name) => std::borrow::Cow::Borrowed(name),
            Self::File(path) => path.to_string_lossy(),
        }
    }

    /// The key it is written with, after the prefix (`api_key`, `auth_token`).
    fn key(&self, prefix: &str) -> String {
        match self {
            Self::Env(_) => format!("{prefix}_env"),
            Self::File(_) => format!("{prefix}_file"),
        }
    }
}

/// One credential reference of a configuration, with where it is set: what
/// `rypsok check` reads to say which secret cannot be read, and why.
#[derive(Debug, Clone)]
pub struct CredentialKey<'a> {
    /// Dotted key path: `http.auth_token_file`, `engines.brave.api_key_env`.
    pub key: String,
    /// Where the secret is read from.
    pub reference: &'a SecretRef,
    /// The enabled engine it belongs to; `None` for `[http]`'s token.
    pub engine: Option<&'a str>,
    /// `false` for a driver's default reference that the file does not
    /// name (`BRAVE_API_KEY`): unset, it leaves its engine inactive, which
    /// is a warning, not a mistake.
    pub written: bool,
}

/// `[engines.NAME]`.
#[derive(Debug, Clone)]
pub struct EngineConfig {
    /// The table name: lower-case ASCII identifier.
    pub id: String,
    /// The driver.
    pub kind: EngineKind,
    /// Switched on by the operator.
    pub enabled: bool,
    /// Categories served.
    pub categories: Vec<Category>,
    /// URL template overriding the driver's (`{lang}` substituted).
    pub endpoint: Option<String>,
    /// LIM-S5 for this engine.
    pub timeout_ms: u64,
    /// Rank-fusion weight.
    pub weight: f64,
    /// The credential reference, for drivers that need one.
    pub credential: Option<SecretRef>,
}

impl Config {
    /// Every credential reference the process will read at start: `[http]`'s
    /// token and each enabled engine's key, in the file's order.
    pub fn credential_keys(&self) -> Vec<CredentialKey<'_>> {
        let http = self.http.auth_token.iter().map(|reference| CredentialKey {
            key: reader::child("http", &reference.key("auth_token")),
            reference,
            engine: None,
            written: true,
        });
        let metrics = self
            .metrics
            .auth_token
            .iter()
            .map(|reference| CredentialKey {
                key: reader::child("metrics", &reference.key("auth_token")),
                reference,
                engine: None,
                written: true,
            });
        let engines = self
            .engines
            .iter()
            .filter(|engine| engine.enabled)
            .filter_map(|engine| {
                let reference = engine.credential.as_ref()?;
                Some(CredentialKey {
                    key: reader::child(
                        &reader::child("engines", &engine.id),
                        &reference.key("api_key"),
                    ),
                    reference,
                    engine: Some(engine.id.as_str()),
                    written: !section::engines::is_driver_default(engine),
                })
            });
        let proxy = self
            .egress
            .proxy
            .iter()
            .filter_map(|proxy| proxy.auth.as_ref())
            .map(|reference| CredentialKey {
                key: reader::child("egress", &reference.key("proxy_auth")),
                reference,
                engine: None,
                written: true,
            });
        http.chain(metrics).chain(engines).chain(proxy).collect()
    }

    /// The configuration of a run with no file (REQ-CFG-003, REQ-OPS-003).
    pub fn defaults() -> Self {
        // The default configuration is the empty file: one path, one truth.
        match load_str("") {
            Ok(config) => config,
            Err(problems) => unreachable_defaults(&problems),
        }
    }
}

#[allow(clippy::panic)] // a build whose defaults do not validate must not ship; tests catch it
fn unreachable_defaults(problems: &[ConfigProblem]) -> Config {
    panic!("built-in defaults do not validate: {problems:?}")
}
