//! The messages themselves. Every field is plain data: the supervisor
//! decides, the workers do and report.

use serde::{Deserialize, Serialize};

use rypsok_egress::robots::RobotsRules;
use rypsok_egress::{EgressPolicy, Refusal};

use crate::EngineKind;

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
    /// `[egress] proxy`: the forward proxy engine traffic goes through.
    pub proxy: Option<NetProxy>,
    /// `[egress] ca_file`: extra trust anchors (DER), added to the
    /// built-in roots.
    pub extra_roots: Vec<serde_bytes::ByteBuf>,
    /// `[limits] pool_idle_*`: the idle connections worker-net keeps.
    pub pool: NetPool,
}

/// How many idle HTTP connections worker-net keeps for reuse, and for how
/// long (`[limits] pool_idle_per_origin`, `pool_idle_total`,
/// `pool_idle_secs`). A connection is only reused for the origin (scheme,
/// host, port) and the [`Profile`] it was opened and judged for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct NetPool {
    /// Idle connections kept per origin and profile; 0 keeps none (every
    /// exchange opens its own connection).
    pub idle_per_origin: u32,
    /// Idle connections kept in all.
    pub idle_total: u32,
    /// Seconds an idle connection is kept before it is closed.
    pub idle_secs: u32,
}

impl Default for NetPool {
    fn default() -> Self {
        Self {
            idle_per_origin: crate::limits::POOL_IDLE_PER_ORIGIN,
            idle_total: crate::limits::POOL_IDLE_TOTAL,
            idle_secs: crate::limits::POOL_IDLE_SECS,
        }
    }
}

/// The configured forward proxy (`[egress] proxy`, design §8,
/// REQ-RES-008): an `http://HOST:PORT` proxy, CONNECT for https.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct NetProxy {
    /// The proxy's host: a normalised name or a literal address.
    pub host: String,
    /// The proxy's port.
    pub port: u16,
    /// The `Proxy-Authorization` value, read by the supervisor from
    /// `proxy_auth_env` or `proxy_auth_file`.
    pub authorization: Option<ProxyAuthorization>,
    /// Whether agent-directed exchanges go through it too: the operator
    /// stated that the proxy enforces the same egress profile
    /// (`proxy_enforces_profile`). Otherwise they go direct.
    pub agent: bool,
}

/// A `Proxy-Authorization` header value. Its `Debug` never shows it.
#[derive(Clone, Serialize, Deserialize)]
pub struct ProxyAuthorization(pub String);

impl std::fmt::Debug for ProxyAuthorization {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ProxyAuthorization(..)")
    }
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Profile {
    /// A request to a configured engine endpoint: the URL came from the
    /// operator's configuration, so plain http is allowed when the operator
    /// wrote it.
    Engine,
    /// A request to an engine endpoint the operator wrote as a literal
    /// address or as a name pinned in `[egress] hosts`: as [`Self::Engine`],
    /// and that host's own addresses are admitted on its port without an
    /// allow rule (`EgressPolicy::judge_endpoint`). The supervisor marks
    /// only a request built for that engine whose origin is the configured
    /// endpoint's, so no other caller or engine reaches the host this way.
    EngineEndpoint,
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
    /// The bound instead of `max_body_bytes` for a body that is a PDF:
    /// declared `application/pdf` (or `application/x-pdf`), or declared as
    /// a generic binary type (`application/octet-stream`,
    /// `binary/octet-stream`) or not at all and starting with `%PDF-`.
    /// worker-net applies the bound of the kind it sees while it streams,
    /// so an HTML body stops at `max_body_bytes` whatever this is. `None`:
    /// `max_body_bytes` for every body.
    pub pdf_max_body_bytes: Option<u64>,
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
    /// Every address of the name was refused by the egress policy, for the
    /// reason given (of the first refused address). Callers must answer
    /// this exactly like [`NetFailure::Resolve`]; only logs tell, and they
    /// tell which part of the policy refused.
    Refused(Refusal),
    /// No address accepted a connection in time.
    Connect,
    /// The TLS handshake failed.
    Tls,
    /// The deadline passed.
    Timeout,
    /// The body exceeded its bound.
    TooLarge,
    /// The body, a PDF, exceeded `pdf_max_body_bytes`.
    PdfTooLarge,
    /// The peer broke HTTP.
    Protocol,
    /// The configured proxy did not accept a connection (`[egress] proxy`).
    ProxyConnect,
    /// The configured proxy answered 407: credentials missing or refused.
    ProxyAuth,
    /// The configured proxy refused the tunnel or the request with another
    /// status (502, 403, ...), or did not speak HTTP.
    ProxyStatus,
}

impl NetFailure {
    /// A fixed name for logs.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::InvalidUrl => "invalid_url",
            Self::Resolve => "resolve",
            Self::Refused(_) => "refused",
            Self::Connect => "connect",
            Self::Tls => "tls",
            Self::Timeout => "timeout",
            Self::TooLarge => "too_large",
            Self::PdfTooLarge => "pdf_too_large",
            Self::Protocol => "protocol",
            Self::ProxyConnect => "proxy_connect",
            Self::ProxyAuth => "proxy_auth",
            Self::ProxyStatus => "proxy_status",
        }
    }
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
        /// The content was read from the page's structured data, its markup
        /// holding none, or only the opening of the article the data
        /// declares whole (`from_structured_data`).
        structured: bool,
    },
    /// The media type is not one rypsok reads.
    Unsupported {
        /// The type as declared, lower-cased, bounded.
        media_type: String,
    },
    /// A readable type with no main content.
    NoContent,
    /// A PDF that cannot be read, and why.
    Unreadable(Unreadable),
    /// A readable type that shows no text without running its scripts (an
    /// empty frame that scripts fill, a consent banner alone).
    NeedsScripts,
}

/// Why a document of a readable type cannot be read at all (answered as
/// `unsupported_content` with `extraction_failed`, and a message saying
/// which).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Unreadable {
    /// A PDF whose pages hold no text, only images (a scan): no OCR.
    NoTextLayer,
    /// A PDF encrypted with a password other than the empty one.
    Encrypted,
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
    /// Publication date as `YYYY-MM-DD`, or `YYYY-MM` / `YYYY` when the
    /// engine knows no more (`is_result_date`), when the engine supplied
    /// one.
    pub date: Option<String>,
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
