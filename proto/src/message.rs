//! The messages themselves. Every field is plain data: the supervisor
//! decides, the workers do and report.

use serde::{Deserialize, Serialize};

use crate::egress::EgressPolicy;

/// Which worker a process is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum WorkerKind {
    /// worker-net: all outbound I/O.
    Net,
    /// worker-parse: all hostile bytes.
    Parse,
}

impl WorkerKind {
    /// The process tag of this worker in logs and in the hidden subcommand.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Net => "worker-net",
            Self::Parse => "worker-parse",
        }
    }
}

/// Log verbosity, handed to a worker on its command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum LogLevel {
    /// Errors only.
    Error,
    /// Warnings and errors.
    Warn,
    /// The default (LIM-P2).
    Info,
    /// Explicit debug mode.
    Debug,
    /// Everything.
    Trace,
}

impl LogLevel {
    /// The level as `tracing` spells it.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Error => "error",
            Self::Warn => "warn",
            Self::Info => "info",
            Self::Debug => "debug",
            Self::Trace => "trace",
        }
    }
}

/// The first frame worker-net reads: what it needs before its first request.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct NetInit {
    /// The operator's egress rules and static host answers.
    pub egress: EgressPolicy,
    /// Whether an agent-directed exchange ([`Profile::Agent`]) may use plain
    /// http (`[egress] allow_http`, REQ-FETCH-010). https is always allowed.
    pub agent_http: bool,
}

/// The first frame a worker writes once it is ready for requests.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WorkerHello {
    /// Which worker answered.
    pub kind: WorkerKind,
    /// Its process id, as the worker sees it.
    pub pid: u32,
    /// What the worker achieved in confining itself before this frame.
    pub confinement: Confinement,
}

/// The confinement a worker applied to itself before its first request
/// (ARCHITECTURE.md "Three processes"; REQ-SEC-014, REQ-SEC-020). The
/// supervisor logs it and refuses a worker that misses a layer the
/// operator requires (`[sandbox]`). A worker that lies here gains nothing:
/// the report only ever makes the supervisor refuse more.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Confinement {
    /// `PR_SET_NO_NEW_PRIVS` is set.
    pub no_new_privs: bool,
    /// Every inherited descriptor but stdin, stdout and stderr was closed.
    pub descriptors_closed: bool,
    /// Every capability is gone, bounding set included (a worker started by
    /// root would otherwise keep root's, such as raw sockets).
    pub capabilities_dropped: bool,
    /// The resource limits (LIM-W2 memory, no new processes, a bounded
    /// number of descriptors, no core files) are set.
    pub rlimits: bool,
    /// The Landlock ruleset that grants no file system access.
    pub landlock: LandlockLevel,
    /// The Landlock ABI of the kernel (0: none).
    pub landlock_abi: u8,
    /// What Landlock says about TCP.
    pub landlock_net: LandlockNet,
    /// The seccomp allow-list.
    pub seccomp: SeccompLevel,
    /// Number of system calls the allow-list admits (0 without seccomp).
    pub syscalls: u16,
}

impl Confinement {
    /// No layer at all: what a worker reports when it could apply nothing.
    pub const NONE: Self = Self {
        no_new_privs: false,
        descriptors_closed: false,
        capabilities_dropped: false,
        rlimits: false,
        landlock: LandlockLevel::Unavailable,
        landlock_abi: 0,
        landlock_net: LandlockNet::Unsupported,
        seccomp: SeccompLevel::Unavailable,
        syscalls: 0,
    };

    /// A one-word summary for logs: `full` when every layer is in place,
    /// `partial` when some are, `none` when none is.
    pub const fn summary(&self) -> &'static str {
        let full = self.no_new_privs
            && self.descriptors_closed
            && self.capabilities_dropped
            && self.rlimits
            && matches!(self.landlock, LandlockLevel::Full)
            && matches!(self.seccomp, SeccompLevel::Applied);
        let none = !self.no_new_privs
            && !self.rlimits
            && matches!(self.landlock, LandlockLevel::Unavailable)
            && matches!(self.seccomp, SeccompLevel::Unavailable);
        if full {
            "full"
        } else if none {
            "none"
        } else {
            "partial"
        }
    }
}

/// How much of its Landlock ruleset the kernel enforces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum LandlockLevel {
    /// Every requested restriction is enforced.
    Full,
    /// The kernel's ABI enforces only part of the ruleset (an older ABI:
    /// some file system rights, or the network rules, are not handled).
    Partial,
    /// The kernel has no Landlock, or it could not be applied.
    Unavailable,
}

impl LandlockLevel {
    /// A fixed name for logs.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Full => "full",
            Self::Partial => "partial",
            Self::Unavailable => "unavailable",
        }
    }
}

/// What Landlock's network rules (ABI 4 and later) restrict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum LandlockNet {
    /// No TCP bind and no TCP connect at all (worker-parse).
    NoTcp,
    /// No TCP bind; TCP connect only to the ports the egress policy can
    /// admit (worker-net).
    ConnectPorts,
    /// No TCP bind; TCP connect to any port, because an `[egress] allow`
    /// rule with `:*` admits every port and Landlock cannot say "some
    /// hosts on any port" (the egress policy still judges each address).
    ConnectAnyPort,
    /// The kernel's Landlock has no network rules (ABI below 4).
    Unsupported,
}

impl LandlockNet {
    /// A fixed name for logs.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::NoTcp => "no_tcp",
            Self::ConnectPorts => "connect_ports",
            Self::ConnectAnyPort => "connect_any_port",
            Self::Unsupported => "unsupported",
        }
    }
}

/// Whether the seccomp allow-list is in force.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum SeccompLevel {
    /// The allow-list is installed; anything else kills the process.
    Applied,
    /// The kernel refused the filter (no seccomp), or it could not be built.
    Unavailable,
}

impl SeccompLevel {
    /// A fixed name for logs.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Applied => "applied",
            Self::Unavailable => "unavailable",
        }
    }
}

/// A frame from the supervisor to a worker.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum ToWorker<R> {
    /// Work to do; the answer carries the same id.
    Request {
        /// Request id, unique per worker process.
        id: u64,
        /// The work.
        body: R,
    },
    /// The call behind request `id` no longer matters: stop its work and
    /// answer nothing.
    Cancel {
        /// The request to stop.
        id: u64,
    },
}

/// A frame from a worker to the supervisor.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum FromWorker<A> {
    /// Sent once, after start-up, before any answer.
    Hello(WorkerHello),
    /// The answer to request `id`.
    Answer {
        /// The id of the request answered.
        id: u64,
        /// The answer.
        body: A,
    },
}

/// One HTTP header, as text. Values that are not UTF-8 are dropped by
/// worker-net rather than guessed at.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    /// Lower-case header name.
    pub name: String,
    /// The value.
    pub value: String,
}

/// Which egress profile an exchange runs under (design §8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Profile {
    /// A request to a configured engine endpoint: the URL came from the
    /// operator's configuration, so plain http is allowed when the operator
    /// wrote it.
    Engine,
    /// A request whose destination an agent chose (web_fetch, robots.txt).
    Agent,
}

/// Work for worker-net.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum NetRequest {
    /// One HTTP GET, no redirect followed.
    Exchange(ExchangeRequest),
}

/// One HTTP GET under a profile, a deadline and a byte bound (I2).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ExchangeRequest {
    /// Absolute http(s) URL.
    pub url: String,
    /// Headers to send besides Host (the supervisor sets User-Agent and
    /// any credential header). worker-net sets Accept-Encoding itself, and
    /// under [`Profile::Agent`] sends only User-Agent, Accept and
    /// Accept-Language of these.
    pub headers: Vec<Header>,
    /// The egress profile.
    pub profile: Profile,
    /// Deadline for the whole exchange, connect to last body byte.
    pub timeout_ms: u64,
    /// Body bound after decompression; reading stops past it.
    pub max_body_bytes: u64,
}

/// Answer of worker-net.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum NetResponse {
    /// How the exchange ended.
    Exchange(Result<ExchangeResponse, NetFailure>),
}

/// A complete HTTP response, body within its bound.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ExchangeResponse {
    /// Status code.
    pub status: u16,
    /// Response headers (bounded in number and size by worker-net). Once
    /// the body has been decoded, its Content-Encoding and Content-Length
    /// are gone.
    pub headers: Vec<Header>,
    /// The body, decoded from its content coding, at most `max_body_bytes`.
    #[serde(with = "serde_bytes")]
    pub body: Vec<u8>,
}

/// Why an exchange produced no response. A closed vocabulary: no peer text
/// travels in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum NetFailure {
    /// The URL cannot be requested (scheme, host form) under this profile.
    InvalidUrl,
    /// The name did not resolve.
    Resolve,
    /// Every address of the name was refused by the egress policy. Callers
    /// must answer this exactly like [`NetFailure::Resolve`]; only logs tell.
    Refused,
    /// No address accepted a connection in time.
    Connect,
    /// The TLS handshake failed.
    Tls,
    /// The deadline passed.
    Timeout,
    /// The body exceeded its bound.
    TooLarge,
    /// The peer broke HTTP.
    Protocol,
}

impl NetFailure {
    /// A fixed name for logs.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::InvalidUrl => "invalid_url",
            Self::Resolve => "resolve",
            Self::Refused => "refused",
            Self::Connect => "connect",
            Self::Tls => "tls",
            Self::Timeout => "timeout",
            Self::TooLarge => "too_large",
            Self::Protocol => "protocol",
        }
    }
}

/// Engine drivers known to the parser (one per engine type).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum EngineKind {
    /// MediaWiki Action API, `list=search`.
    Wikipedia,
    /// Brave Search API, web and news endpoints.
    Brave,
    /// Crossref REST API, works search.
    Crossref,
    /// OpenAlex works search.
    OpenAlex,
    /// arXiv API query (an Atom feed).
    Arxiv,
    /// Hacker News search API by Algolia.
    HackerNews,
    /// GDELT DOC 2.0 API, article list as JSON.
    Gdelt,
    /// Stack Exchange API 2.3 search.
    StackExchange,
    /// GitHub REST search (repositories and issues).
    GitHub,
    /// An operator's own SearXNG instance, JSON output.
    Searxng,
}

/// Work for worker-parse.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum ParseRequest {
    /// An engine's HTTP answer, to be turned into hits or a failure class.
    EngineAnswer {
        /// The driver whose parser applies.
        engine: EngineKind,
        /// Base for result URLs the driver builds itself (Wikipedia's
        /// article path, for example `https://en.wikipedia.org/wiki/`).
        base_url: String,
        /// HTTP status.
        status: u16,
        /// Response headers.
        headers: Vec<Header>,
        /// Response body.
        #[serde(with = "serde_bytes")]
        body: Vec<u8>,
    },
    /// A fetched document, to be read as Markdown (web_fetch).
    Page {
        /// The body after content decoding, at most LIM-F3 bytes.
        #[serde(with = "serde_bytes")]
        body: Vec<u8>,
        /// The `Content-Type` header as received, if any.
        content_type: Option<String>,
        /// The URL the body came from: the base for relative links.
        url: String,
    },
    /// A robots.txt body, to be reduced to the rules for rypsok.
    Robots {
        /// The body as received; only its first LIM-F13 bytes are read.
        #[serde(with = "serde_bytes")]
        body: Vec<u8>,
    },
}

/// Answer of worker-parse.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum ParseResponse {
    /// Result of [`ParseRequest::EngineAnswer`].
    Engine(EngineParse),
    /// Result of [`ParseRequest::Page`].
    Page(PageParse),
    /// Result of [`ParseRequest::Robots`].
    Robots(RobotsRules),
}

/// What a fetched document yielded (worker-parse's `page::PageResult` on
/// the wire). Every string is external data.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum PageParse {
    /// Main content.
    Page {
        /// The document's title, decoded text, when it has one.
        title: Option<String>,
        /// The main content as Markdown.
        markdown: String,
        /// The document was read in part (`extraction_partial`).
        partial: bool,
    },
    /// The media type is not one rypsok reads.
    Unsupported {
        /// The type as declared, lower-cased, bounded.
        media_type: String,
    },
    /// A readable type with no main content.
    NoContent,
}

/// The robots.txt rules that apply to rypsok (RFC 9309): the group of the
/// product token `rypsok`, else the group of `*`, else none (everything
/// allowed). Patterns are percent-encoded paths as the file wrote them, with
/// `*` and a final `$` as RFC 9309 defines them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RobotsRules {
    /// The rules of the group, in file order.
    pub rules: Vec<RobotsRule>,
}

/// One `allow` or `disallow` line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RobotsRule {
    /// `allow` (true) or `disallow` (false).
    pub allow: bool,
    /// The path pattern, never empty.
    pub pattern: String,
}

impl RobotsRules {
    /// Whether `path` (the URL's percent-encoded path and query, starting
    /// with `/`) may be fetched: the rule with the longest matching pattern
    /// decides, an `allow` winning a tie (RFC 9309 §2.2.2); no matching rule
    /// allows; `/robots.txt` is always allowed. Escapes of unreserved
    /// characters are decoded on both sides and the hex digits of the other
    /// escapes compare case-insensitively. Linear in the pattern and path
    /// lengths for each rule, hostile patterns included (see
    /// `pattern_matches`).
    pub fn allows(&self, path: &str) -> bool {
        if path == "/robots.txt" {
            return true;
        }
        let path = normalize_escapes(path);
        let mut best: Option<(usize, bool)> = None;
        for rule in &self.rules {
            let pattern = normalize_escapes(&rule.pattern);
            if !pattern_matches(&pattern, &path) {
                continue;
            }
            let len = pattern.len();
            best = match best {
                Some((best_len, best_allow))
                    if best_len > len || (best_len == len && (best_allow || !rule.allow)) =>
                {
                    Some((best_len, best_allow))
                }
                _ => Some((len, rule.allow)),
            };
        }
        best.is_none_or(|(_, allow)| allow)
    }
}

/// Brings `%xx` escapes to one form (RFC 9309 §2.2.2, RFC 3986 §6.2.2):
/// an escape of an unreserved character (`A-Za-z0-9-._~`) is decoded, so
/// `/%70rivate` and `/private` compare equal; any other escape keeps its
/// `%` and has its hex digits upper-cased, so `%2f` and `%2F` compare equal.
/// `*` and `$` are reserved, so an escaped `%2A` never becomes a wildcard.
fn normalize_escapes(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && bytes[i + 1].is_ascii_hexdigit()
            && bytes[i + 2].is_ascii_hexdigit()
        {
            let decoded = std::str::from_utf8(&bytes[i + 1..i + 3])
                .ok()
                .and_then(|hex| u8::from_str_radix(hex, 16).ok())
                .unwrap_or(b'%');
            if decoded.is_ascii_alphanumeric() || matches!(decoded, b'-' | b'.' | b'_' | b'~') {
                out.push(char::from(decoded));
            } else {
                out.push('%');
                out.push(char::from(bytes[i + 1].to_ascii_uppercase()));
                out.push(char::from(bytes[i + 2].to_ascii_uppercase()));
            }
            i += 3;
            continue;
        }
        // Copy one whole UTF-8 sequence.
        let len = match bytes[i] {
            0x00..=0x7F => 1,
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            _ => 4,
        };
        let end = (i + len).min(bytes.len());
        out.push_str(text.get(i..end).unwrap_or_default());
        i = end;
    }
    out
}

/// RFC 9309 pattern matching: a prefix match where `*` matches any run of
/// characters and a final `$` anchors the end.
///
/// Linear in the pattern and path lengths, whatever the pattern: the
/// pattern is cut at each `*` into literal pieces; the first must start the
/// path, each later one is taken at its leftmost place after the one before
/// (the leftmost place leaves the most path for the rest, so it is never
/// worse), and under `$` the last must end the path. `str::find` is the
/// two-way search, linear in what it scans, and each piece scans on from
/// where the one before ended. (A backtracking matcher costs pattern × path
/// on hostile rules, and the supervisor matches on its async threads.)
fn pattern_matches(pattern: &str, path: &str) -> bool {
    let (pattern, anchored) = match pattern.strip_suffix('$') {
        Some(head) => (head, true),
        None => (pattern, false),
    };
    let mut pieces = pattern.split('*');
    let first = pieces.next().unwrap_or_default();
    let Some(mut rest) = path.strip_prefix(first) else {
        return false;
    };
    let mut pieces = pieces.peekable();
    if pieces.peek().is_none() {
        return !anchored || rest.is_empty();
    }
    while let Some(piece) = pieces.next() {
        if anchored && pieces.peek().is_none() {
            return rest.ends_with(piece);
        }
        match rest.find(piece) {
            Some(at) => rest = &rest[at + piece.len()..],
            None => return false,
        }
    }
    true
}

/// What an engine answer meant.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum EngineParse {
    /// Hits in the engine's order (possibly none).
    Hits(Vec<EngineHit>),
    /// The answer was a failure of this class.
    Failure(EngineFailure),
    /// Hits, and the provider asked for a pause before the next request
    /// (Stack Exchange's `backoff`): the engine is not asked again for
    /// `wait_ms` milliseconds (at most `RETRY_AFTER_MAX_S` seconds).
    Paced {
        /// Hits in the engine's order (possibly none).
        hits: Vec<EngineHit>,
        /// The pause the provider asked for, in milliseconds.
        wait_ms: u64,
    },
}

/// One engine hit, still raw provider text: the supervisor cleans it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EngineHit {
    /// Title as the provider sent it (may carry markup and entities).
    pub title: String,
    /// Absolute URL.
    pub url: String,
    /// Snippet as the provider sent it.
    pub snippet: String,
    /// Publication date as `YYYY-MM-DD`, when the engine supplied one.
    pub date: Option<String>,
}

/// Whether `text` is a date as [`EngineHit::date`] carries it: `YYYY-MM-DD`
/// naming a real day of the proleptic Gregorian calendar. The parser
/// produces such dates and the supervisor checks them again.
pub fn is_iso_date(text: &str) -> bool {
    let b = text.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let number = |digits: &[u8]| {
        digits.iter().try_fold(0u32, |n, &d| {
            d.is_ascii_digit().then(|| n * 10 + u32::from(d - b'0'))
        })
    };
    let (Some(year), Some(month), Some(day)) =
        (number(&b[0..4]), number(&b[5..7]), number(&b[8..10]))
    else {
        return false;
    };
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    year >= 1 && (1..=days).contains(&day)
}

/// The UTC calendar date of a Unix time in seconds, as `YYYY-MM-DD`, when
/// it falls in years 1 to 9999 (H. Hinnant's days-to-civil algorithm).
pub fn iso_date_of_unix(seconds: i64) -> Option<String> {
    let z = seconds.div_euclid(86_400) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    if !(1..=9999).contains(&year) {
        return None;
    }
    let date = format!("{year:04}-{month:02}-{day:02}");
    is_iso_date(&date).then_some(date)
}

/// Engine failure classes a parser can recognise in an answer (the notice
/// reasons of `engine_unavailable`, less `timeout`, which only the
/// supervisor observes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum EngineFailure {
    /// The provider's rate limit; `retry_after_ms` when it said.
    RateLimited {
        /// The provider's Retry-After, bounded.
        retry_after_ms: Option<u64>,
        /// A spent quota of a long window (a monthly allowance), not a
        /// short request rate: retrying soon will not help, so it deserves
        /// a longer cooldown.
        quota: bool,
    },
    /// An anti-bot or policy block page.
    Blocked,
    /// The credential was refused.
    AuthFailure,
    /// The body is not what the driver expects.
    ParseFailure,
    /// The provider answered with an error for the request.
    RequestFailure,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn robots(rules: &[(bool, &str)]) -> RobotsRules {
        RobotsRules {
            rules: rules
                .iter()
                .map(|&(allow, pattern)| RobotsRule {
                    allow,
                    pattern: pattern.to_owned(),
                })
                .collect(),
        }
    }

    /// The plain recursive definition of RFC 9309 matching, exponential but
    /// obviously right, to check the linear matcher against.
    fn reference_matches(pattern: &[u8], path: &[u8], anchored: bool) -> bool {
        match pattern.split_first() {
            None => !anchored || path.is_empty(),
            Some((b'*', rest)) => {
                (0..=path.len()).any(|skip| reference_matches(rest, &path[skip..], anchored))
            }
            Some((&c, rest)) => {
                path.first() == Some(&c) && reference_matches(rest, &path[1..], anchored)
            }
        }
    }

    fn words(alphabet: &[char], max_len: usize) -> Vec<String> {
        let mut all = vec![String::new()];
        let mut last = vec![String::new()];
        for _ in 0..max_len {
            last = last
                .iter()
                .flat_map(|w| alphabet.iter().map(move |c| format!("{w}{c}")))
                .collect();
            all.extend(last.iter().cloned());
        }
        all
    }

    // Verifies: REQ-CMP-005, REQ-SEC-010 (RFC 9309 §2.2.3 matching, exhaustively against the definition; hostile patterns stay linear)
    #[test]
    fn the_linear_matcher_agrees_with_the_definition() {
        let paths = words(&['a', 'b'], 6);
        for body in words(&['a', 'b', '*'], 5) {
            for anchored in [false, true] {
                let pattern = format!("/{body}{}", if anchored { "$" } else { "" });
                for tail in &paths {
                    let path = format!("/{tail}");
                    let want =
                        reference_matches(format!("/{body}").as_bytes(), path.as_bytes(), anchored);
                    assert_eq!(
                        pattern_matches(&pattern, &path),
                        want,
                        "{pattern} on {path}"
                    );
                }
            }
        }
        // A `$` inside the pattern is a plain character.
        assert!(pattern_matches("/a$b", "/a$bc"));
        // Hostile: a backtracking matcher would take pattern × path steps
        // here, for each of the rules.
        let hostile = format!("/{}b$", "*a".repeat(2000));
        let path = format!("/{}", "a".repeat(2000));
        assert!(!pattern_matches(&hostile, &path));
        assert!(pattern_matches(&hostile, &format!("{path}b")));
    }

    // Verifies: REQ-CMP-005 (RFC 9309 §2.2.2: escapes of unreserved characters are decoded before matching)
    #[test]
    fn an_escaped_unreserved_character_does_not_bypass_a_rule() {
        let r = robots(&[(false, "/private")]);
        assert!(!r.allows("/%70rivate"));
        assert!(!r.allows("/priv%61te/x"));
        assert!(!r.allows("/%70%72%69%76%61%74%65"));
        assert!(r.allows("/public"));
        // The pattern side is decoded too.
        let r = robots(&[(false, "/%7Euser/%61")]);
        assert!(!r.allows("/~user/a"));
        // Reserved characters stay escaped: `%2F` is not `/`, `%2A` no wildcard.
        let r = robots(&[(false, "/a/b"), (false, "/x%2Ay")]);
        assert!(r.allows("/a%2Fb"));
        assert!(!r.allows("/a/b"));
        assert!(r.allows("/xzzy"));
        assert!(!r.allows("/x%2ay"));
    }

    /// Bodies are serialized as one byte string (`serde_bytes`), which
    /// postcard writes exactly as it writes a sequence of bytes: a varint
    /// length, then the bytes. The layout on the pipe is the same; only the
    /// cost differs (one copy instead of one call per byte, which made a
    /// 5 MiB page cost about a second of supervisor time in debug builds).
    #[test]
    fn a_body_is_a_length_then_its_bytes() {
        let response = ExchangeResponse {
            status: 200,
            headers: Vec::new(),
            body: vec![7, 8, 9],
        };
        let wire = postcard::to_stdvec(&response).expect("encodes");
        assert_eq!(wire, [0xC8, 0x01, 0, 3, 7, 8, 9]);
        let as_sequence =
            postcard::to_stdvec(&(200u16, Vec::<Header>::new(), vec![7u8, 8, 9])).expect("encodes");
        assert_eq!(wire, as_sequence);
    }
}
