//! Every LIM value of rypsok, in one place (LIMITS.md).
//!
//! Each constant names its LIM id. Configurable values are the defaults;
//! the configuration module validates the operator's overrides against the
//! ranges stated here.

/// LIM-S1: query length after trimming, in Unicode scalar values (maximum).
pub const QUERY_MAX_CHARS: usize = 400;
/// LIM-S2: default `max_results`.
pub const MAX_RESULTS_DEFAULT: u32 = 5;
/// LIM-S2: ceiling of `max_results`.
pub const MAX_RESULTS_CEILING: u32 = 20;
/// LIM-S3: results requested from each engine.
pub const RESULTS_PER_ENGINE: u32 = 10;
/// LIM-S4: overall search deadline.
pub const SEARCH_DEADLINE_MS: u64 = 2500;
/// LIM-S5: per-engine timeout.
pub const ENGINE_TIMEOUT_MS: u64 = 2000;
/// LIM-S6: early-completion grace.
pub const SEARCH_GRACE_MS: u64 = 300;
/// LIM-S7: a `web_search` call lasts at most LIM-S4 plus this.
pub const SEARCH_CALL_SLACK_MS: u64 = 300;
/// LIM-S8: engines queried in one call.
pub const ENGINES_PER_CALL: usize = 6;
/// LIM-S9: snippet length in characters.
pub const SNIPPET_MAX_CHARS: usize = 300;
/// LIM-S10: title length in characters.
pub const TITLE_MAX_CHARS: usize = 150;
/// LIM-S11: completed requests in the latency window of `engine_status`.
pub const LATENCY_WINDOW: usize = 20;
/// LIM-S13: maximum duration of `engine_status`.
pub const STATUS_DEADLINE_MS: u64 = 200;

/// LIM-F1: default `max_chars`.
pub const FETCH_MAX_CHARS_DEFAULT: u32 = 3000;
/// LIM-F2: ceiling of `max_chars`.
pub const FETCH_MAX_CHARS_CEILING: u32 = 20_000;
/// Smallest `max_chars` a caller may ask for (design §3.2).
pub const FETCH_MAX_CHARS_FLOOR: u32 = 500;
/// LIM-F3: response byte limit after decompression, enforced while streaming.
pub const FETCH_MAX_BYTES: u64 = 5 * 1024 * 1024;
/// LIM-F4: network budget of one fetch, all hops and robots.txt included.
pub const FETCH_NETWORK_BUDGET_MS: u64 = 10_000;
/// LIM-F5: maximum duration of a `web_fetch` call.
pub const FETCH_CALL_MAX_MS: u64 = 11_000;
/// LIM-F6: connect timeout per address, TLS handshake included.
pub const CONNECT_TIMEOUT_MS: u64 = 3000;
/// LIM-F7: same-host redirects followed.
pub const FETCH_MAX_REDIRECTS: u32 = 5;
/// LIM-F8: ports a fetch or an engine may use without an allow rule
/// (defined with the egress rules, which apply it).
pub use rypsok_egress::DEFAULT_PORTS;
/// LIM-F9: URL length in characters.
pub const URL_MAX_CHARS: usize = 2048;
/// LIM-F10: fetches in flight at once.
pub const FETCH_CONCURRENCY: u32 = 8;
/// LIM-F11: parser worker processes.
pub const PARSE_WORKERS: u32 = 2;
/// LIM-F12: HTML parse bound on nodes.
pub const HTML_MAX_NODES: u32 = 100_000;
/// LIM-F12: HTML parse bound on depth.
pub const HTML_MAX_DEPTH: u32 = 256;
/// LIM-F14: response byte limit of a PDF (a body served as
/// `application/pdf`, or under a generic binary type), after decompression.
/// Papers are often 1-15 MB; the ceiling is one LIM-W1 frame less room for
/// the headers, so the default is that ceiling.
pub const FETCH_PDF_MAX_BYTES: u64 = 7 * 1024 * 1024;
/// LIM-F15: pages of a PDF that are read; past them `extraction_partial`.
pub const PDF_MAX_PAGES: usize = 2000;
/// LIM-F15: objects a PDF may hold; past them it is not read.
pub const PDF_MAX_OBJECTS: usize = 500_000;
/// LIM-F15: decompressed bytes of one stream (object, cross-reference or
/// page content stream); a stream past it is not read.
pub const PDF_MAX_STREAM_BYTES: usize = 64 * 1024 * 1024;
/// LIM-F15: decompressed page content bytes of one document, all pages
/// together; past them `extraction_partial`.
pub const PDF_MAX_CONTENT_BYTES: usize = 192 * 1024 * 1024;
/// LIM-F15: nesting depth of arrays and dictionaries in a PDF's syntax
/// (the reader's own bound, checked by our tests); deeper is not read.
pub const PDF_MAX_DEPTH: usize = 100;
/// LIM-F15: CPU time (the reading thread's own clock) spent reading one
/// PDF's pages, checked between pages and every thousand operators inside
/// a page; past it `extraction_partial` with the text read so far.
pub const PDF_MAX_READ_MS: u64 = 5000;

/// LIM-C6: `web_search` calls per minute.
pub const SEARCH_PER_MINUTE: u32 = 60;
/// LIM-C7: `web_fetch` calls per minute.
pub const FETCH_PER_MINUTE: u32 = 30;
/// LIM-C8: `engine_status` calls per minute.
pub const STATUS_PER_MINUTE: u32 = 30;

/// LIM-H1: open HTTP connections; one more is closed unanswered.
pub const HTTP_MAX_CONNECTIONS: usize = 256;
/// LIM-H2: one HTTP request body.
pub const HTTP_MAX_BODY_BYTES: usize = 1024 * 1024;
/// LIM-H3: time for a new connection to show HTTP/1 or HTTP/2.
pub const HTTP_PROTOCOL_WAIT_MS: u64 = 5000;
/// LIM-H4: lifetime of one response stream.
pub const HTTP_STREAM_LIFETIME_MS: u64 = 60_000;
/// LIM-H5: time to receive a whole request.
pub const HTTP_REQUEST_MS: u64 = 30_000;
/// LIM-H6: open sessions of handshake-based revisions.
pub const HTTP_MAX_SESSIONS: usize = 64;
/// LIM-H7: request line and headers.
pub const HTTP_MAX_HEADER_BYTES: usize = 16 * 1024;
/// LIM-H8: SETTINGS and PING frames (acknowledgements not counted) one
/// HTTP/2 connection may send in one second; past it, GOAWAY and close.
pub const HTTP2_CONTROL_FRAMES_PER_S: u32 = 100;
/// LIM-H9: the slowest a request body may arrive, after a grace of LIM-H3;
/// slower, 408. An HTTP/1 request head is held to the same pace, and the
/// connection closed when it falls behind.
pub const HTTP_BODY_MIN_BYTES_PER_S: u64 = 1024;

/// LIM-I1: `tools/list` plus server instructions, serialized, with all tools
/// and two languages configured.
pub const TOOL_LIST_MAX_CHARS: usize = 6000;
/// LIM-I2: one tool's description.
pub const TOOL_DESCRIPTION_MAX_CHARS: usize = 300;
/// LIM-I3: one parameter's description.
pub const PARAMETER_DESCRIPTION_MAX_CHARS: usize = 160;
/// LIM-I4: an error message.
pub const ERROR_MESSAGE_MAX_CHARS: usize = 200;

/// LIM-K2: cache entry lifetime.
pub const CACHE_TTL_S: u64 = 900;
/// LIM-K3: cache entries.
pub const CACHE_ENTRIES: u32 = 1000;
/// LIM-K4: one cache entry, in bytes of memory it holds (not configurable).
pub const CACHE_ENTRY_MAX_BYTES: usize = 64 * 1024;

/// `[limits] pool_idle_per_origin`: idle connections worker-net keeps per
/// origin and profile (0: none, every exchange opens its own).
pub const POOL_IDLE_PER_ORIGIN: u32 = 4;
/// `[limits] pool_idle_total`: idle connections worker-net keeps in all.
pub const POOL_IDLE_TOTAL: u32 = 64;
/// `[limits] pool_idle_secs`: how long an idle connection is kept.
pub const POOL_IDLE_SECS: u32 = 90;
/// TLS sessions worker-net keeps for resumption (one per server name at
/// most, least recently used forgotten first).
pub const TLS_SESSION_SERVERS: usize = 256;
/// DNS answers worker-net's resolver keeps, each for its TTL at most.
pub const DNS_CACHE_ANSWERS: u64 = 1024;
/// The longest a DNS answer is kept, whatever its TTL says.
pub const DNS_CACHE_MAX_TTL_S: u64 = 300;

/// LIM-W1: one message between processes (a postcard frame).
pub const FRAME_MAX_BYTES: usize = 8 * 1024 * 1024;
/// LIM-W2: worker-net address-space limit.
pub const NET_WORKER_MEMORY_BYTES: u64 = 512 * 1024 * 1024;
/// LIM-W2: worker-parse address-space limit, each.
pub const PARSE_WORKER_MEMORY_BYTES: u64 = 512 * 1024 * 1024;

/// Byte bound of one engine answer (the engine profile's driver-declared
/// bound, REQ-SEC-010). Wikipedia's ten-hit answers are under 10 KiB; a
/// megabyte leaves room for verbose mirrors without letting a hostile
/// endpoint fill memory.
pub const ENGINE_MAX_BYTES: u64 = 1024 * 1024;
/// Retry-After values are honoured up to this many seconds (design §14).
pub const RETRY_AFTER_MAX_S: u64 = 3600;

/// LIM-F13: bytes of a robots.txt file that are read (RFC 9309 asks for at
/// least 500 KiB).
pub const ROBOTS_MAX_BYTES: usize = 512 * 1024;
/// LIM-F13: hosts whose robots.txt rules are kept (least recently used
/// evicted).
pub const ROBOTS_CACHE_HOSTS: usize = 1024;
/// LIM-F13: how long kept robots.txt rules stay fresh.
pub const ROBOTS_FRESHNESS_S: u64 = 3600;
