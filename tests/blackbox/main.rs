//! Black-box tests of the built `rypsok` binary. Each module starts the real
//! binary, speaks MCP over its stdio, and points its engines at loopback
//! fakes through the operator settings (`endpoint`, `[egress] allow`). None
//! touches the internet.
//!
//! Table of contents:
//! - `book`: the book's "Reading a response" page: every example on it
//!   produced by the binary and compared (`RYPSOK_BLESS=1` rewrites them).
//! - `brave`: Brave beside Wikipedia: the key only to Brave, merged and
//!   attributed results, partial answers, workers without environment.
//! - `cache`: the search cache: a second identical search asks no engine
//!   that allows storage, misses on another request, warned queries.
//! - `engine_keys`: the optional keys of OpenAlex and SearXNG reach the
//!   provider only when named, and never an answer or a log line.
//! - `engines`: the science, news and code engines against loopback fakes
//!   serving their fixtures: several engines in one category, one failing,
//!   one rate limited, a provider's backoff kept, arXiv's pace.
//! - `cli`: the command line: `--version`, usage errors, `check` and every
//!   configuration refusal, `serve` on an invalid configuration.
//! - `duckduckgo`: the opt-in scraping driver: refused without
//!   `[scraping]`, captured pages through all processes, unwrapped
//!   redirects, the challenge page blocked and opening the circuit.
//! - `fetch`: `web_fetch` against loopback sites reached through
//!   `[egress] allow` rules and `[egress] hosts` names: robots.txt, redirects,
//!   the byte and time bounds, statuses, media types, paging, refusals.
//! - `http`: `serve --transport http` on a loopback listener: every row of
//!   the status table, connection bounds, both eras, callers, cancellation,
//!   SIGTERM.
//! - `metrics`: `[metrics]`: a search, a fetch and a refused fetch counted
//!   in a scrape with no query, host or path in it; OpenMetrics on request;
//!   the token; promtool; the dashboard's and the alerts' metric names.
//! - `packaging`: what packagers and operators copy: each host snippet in
//!   `packaging/hosts/` started far enough to answer `initialize`,
//!   `rypsok health` against a live listener, the manual page, the
//!   licence, and every path the Markdown files link to or name.
//! - `protocol`: the golden `tools/list`, both protocol eras, argument
//!   validation that never echoes input, end of input.
//! - `pool`: kept connections: six searches on one connection (six with
//!   reuse off), three fetches of a page on one connection with one
//!   robots.txt request, a body cut at its bound never reused, a new
//!   connection after worker-net is killed.
//! - `proxy`: `[egress] proxy`: a loopback forward proxy that alone reaches
//!   the engine, environment proxies that see nothing, a 407, and
//!   `all_failed` naming each engine's failure cause.
//! - `sandbox`: each worker's confinement as the kernel shows it
//!   (no_new_privs, seccomp, limits, descriptors), and workers probed into
//!   forbidden operations: killed or refused, replaced, the next call served.
//! - `status`: `engine_status` at zero configuration and after a search.
//! - `search`: `web_search` through all three processes against a fake
//!   Wikipedia: results, empty answers, API errors, the 403 block, the
//!   deadline, cancellation reaching the engine request.
//! - `text_format`: the text block of a tool result in each
//!   `[service] text_format`: the JSON, or Markdown with the web's text
//!   fenced; the structured content the same in both.
//! - `tutorials`: the book's tutorials run: every command a tutorial shows
//!   executed (or listed with why it cannot be), its configurations and
//!   answers compared with the binary's.
//! - `workers`: worker processes: a SIGKILL during a call, no orphan after
//!   end of input or SIGTERM, logs tagged with the process.

// Tests fail loudly: a failed expectation is the report.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

mod support;

mod book;
mod brave;
mod cache;
mod cli;
mod duckduckgo;
mod engine_keys;
mod engines;
mod fetch;
mod http;
mod metrics;
mod packaging;
mod pool;
mod protocol;
mod proxy;
mod sandbox;
mod search;
mod status;
mod text_format;
mod tutorials;
mod workers;
