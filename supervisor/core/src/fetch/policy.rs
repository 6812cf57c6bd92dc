//! The URL policy of `web_fetch`, before any I/O (design §8, §10;
//! REQ-FETCH-001, REQ-FETCH-007, REQ-FETCH-010, REQ-SEC-006, REQ-SEC-021).
//!
//! A URL is parsed once, by the WHATWG parser of the `url` crate, which
//! turns every spelling of an address (decimal, octal, hex, short IPv4
//! forms, IPv6 with an embedded IPv4) into the address itself; the address
//! is then judged by the same predicates worker-net applies at connect
//! time. Names pass here with their rules and port checked; their answers
//! are judged at connect time (I3).

use std::net::IpAddr;

use rypsok_egress::{AddressVerdict, EgressPolicy};
use rypsok_proto::limits::DEFAULT_PORTS;
use url::{Host, Url};

use crate::config::{Config, SecretDetection};
use crate::error::{Refused, ToolError};
use crate::limits::URL_MAX_CHARS;
use crate::returned::ReturnedUrls;
use crate::secret::SecretKind;

/// A URL the policy admitted.
#[derive(Debug, Clone)]
pub(crate) struct Target {
    /// The URL to request (https unless the operator allows http).
    pub(crate) url: Url,
    /// An http URL was upgraded to https.
    pub(crate) upgraded: bool,
    /// The host as compared for "same host": lower-case, no root dot, an
    /// address in its canonical text.
    pub(crate) host: String,
    /// The secret check (which ran, in `warn` mode, without refusing) found
    /// a credential-shaped text in the URL's authority: the host stays out
    /// of the log (REQ-PRIV-004).
    pub(crate) secret_in_host: bool,
}

/// Whether the strict-mode check applies to this URL (the caller's URL and
/// cross-host hops) or not (same-host hops, robots.txt).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Strict {
    Check,
    Skip,
}

/// Judges `text` under the whole URL policy: LIM-F9, parse, scheme (and the
/// upgrade to https), credentials, the secret check, the host (empty
/// labels, literal addresses, rules), the port, strict mode.
pub(crate) fn check(
    text: &str,
    config: &Config,
    returned: &ReturnedUrls,
    strict: Strict,
) -> Result<Target, ToolError> {
    if text.chars().count() > URL_MAX_CHARS {
        return Err(ToolError::url_too_long(URL_MAX_CHARS));
    }
    let mut url = Url::parse(text).map_err(|_| ToolError::invalid_url())?;
    let as_given = url.as_str().to_owned();
    let upgraded = match url.scheme() {
        "https" => false,
        "http" if config.egress.allow_http => false,
        "http" => {
            url.set_scheme("https")
                .map_err(|()| ToolError::denied_scheme())?;
            true
        }
        _ => return Err(ToolError::denied_scheme()),
    };
    // LIM-F9 bounds the URL rypsok requests and returns, which is the
    // parser's serialization: a non-ASCII path is percent-encoded (up to 12
    // characters for one) and a Unicode host becomes its IDNA form, so a
    // short text can serialize far past the bound.
    if url.as_str().chars().count() > URL_MAX_CHARS {
        return Err(ToolError::url_too_long(URL_MAX_CHARS));
    }
    if url.password().is_some() {
        return Err(ToolError::secret_in_url(
            SecretKind::UrlPassword,
            authority_position(text),
        ));
    }
    if !url.username().is_empty() {
        return Err(ToolError::denied_credential_in_url());
    }
    let secret_in_host = secret_check(text, config)?;
    let port = url.port_or_known_default().unwrap_or(443);
    let policy = &config.egress.policy;
    let host = match url.host() {
        None => return Err(ToolError::invalid_url()),
        Some(Host::Domain(name)) => {
            // The name as egress reads it (lower-case, no root dot, no empty
            // label, only letters, digits, `_` and `-`): a name the WHATWG
            // parser admits but worker-net would refuse (`a*b.example`) is
            // denied here, before any I/O.
            let Some(name) = rypsok_egress::parse_host_name(name) else {
                return Err(ToolError::denied_egress(Refused::HostName));
            };
            judge_name(policy, &name, port)?;
            name
        }
        Some(Host::Ipv4(addr)) => judge_literal(policy, IpAddr::V4(addr), port)?,
        Some(Host::Ipv6(addr)) => judge_literal(policy, IpAddr::V6(addr), port)?,
    };
    if strict == Strict::Check
        && config.fetch.strict_mode
        && !admitted_in_strict_mode(&as_given, text, &host, port, policy, returned)
    {
        return Err(ToolError::denied_strict_mode());
    }
    Ok(Target {
        url,
        upgraded,
        host,
        secret_in_host,
    })
}

/// A name: a deny rule refuses; an allow rule admits; otherwise its port
/// must be one of LIM-F8, or one some allow rule opens (an address rule
/// may admit the name's answers on it; worker-net judges those).
fn judge_name(policy: &EgressPolicy, name: &str, port: u16) -> Result<(), ToolError> {
    match policy.judge_name(name, port) {
        Some(AddressVerdict::DeniedByRule) => Err(ToolError::denied_egress(Refused::DenyRule)),
        Some(_) => Ok(()),
        None if DEFAULT_PORTS.contains(&port)
            || policy.allow.iter().any(|r| r.port.covers(port)) =>
        {
            Ok(())
        }
        None => Err(ToolError::denied_egress(Refused::Port)),
    }
}

/// A literal address is judged on the URL: refused → `denied`, `egress`,
/// with the part of the policy that refused (its class, never the address).
fn judge_literal(policy: &EgressPolicy, addr: IpAddr, port: u16) -> Result<String, ToolError> {
    match Refused::of_verdict(policy.judge_addr(addr, port)) {
        None => Ok(rypsok_egress::canonical(addr).to_string()),
        Some(refused) => Err(ToolError::denied_egress(refused)),
    }
}

/// Strict mode admits a URL rypsok returned earlier in this process, and a
/// destination an allow rule names.
fn admitted_in_strict_mode(
    as_given: &str,
    text: &str,
    host: &str,
    port: u16,
    policy: &EgressPolicy,
    returned: &ReturnedUrls,
) -> bool {
    let by_rule = match host.parse::<IpAddr>() {
        Ok(addr) => policy.judge_addr(addr, port) == AddressVerdict::AllowedByRule,
        Err(_) => policy.judge_name(host, port) == Some(AddressVerdict::AllowedByRule),
    };
    by_rule || returned.contains(text) || returned.contains(as_given)
}

/// What the one scan of a URL (as the caller wrote it) found: the first
/// credential-shaped text, and whether any lies in the URL's authority.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct UrlScan {
    /// The first finding's kind and position in the caller's text.
    pub(crate) first: Option<(SecretKind, usize)>,
    /// A finding lies in the authority, the host name in practice
    /// (credentials are refused before): in `warn` mode such a URL is
    /// fetched, and its host must then stay out of the log (REQ-PRIV-004).
    pub(crate) in_host: bool,
}

/// Scans a URL once, reading through invisible characters. The URL parser
/// removes ASCII tabs and line breaks wherever they are (WHATWG), so a
/// credential split by one would be sent whole: the text is read as the
/// parser will, and positions are reported in the caller's text. The
/// authority is read from the first `:` on, past any slashes, up to the
/// first `/`, `?`, `#` or `\`, which covers every spelling the URL parser
/// accepts.
pub(crate) fn scan_url(text: &str) -> UrlScan {
    let kept: Vec<(usize, char)> = text
        .chars()
        .enumerate()
        .filter(|&(_, c)| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let read: String = kept.iter().map(|&(_, c)| c).collect();
    let at = |n: usize| kept.get(n).map_or(0, |&(i, _)| i);
    // Every form the site may decode the URL to: as written, its path and
    // query percent-decoded (repeatedly while that changes them, `+` as a
    // space too), each finding mapped back to the caller's span.
    let mut findings: Vec<(SecretKind, usize, usize)> = crate::secret::find_decoded(&read)
        .into_iter()
        .map(|f| {
            let start = at(f.position);
            let end = at(f.position + f.len.saturating_sub(1)) + 1;
            (f.kind, start, end)
        })
        .collect();
    // The host as the parser leaves it (IDNA, lower case): a credential
    // only that form shows, folded case included, is placed at the
    // authority.
    if findings.is_empty()
        && let Some(f) = Url::parse(&read).ok().and_then(|u| {
            u.host_str()
                .and_then(|h| crate::secret::find_in_host(h).into_iter().next())
        })
    {
        let start = usize::try_from(authority_position(text)).unwrap_or(0);
        findings.push((f.kind, start, start + 1));
    }
    let in_host = match authority_span(text) {
        None => true,
        Some((start, end)) => findings.iter().any(|&(_, s, e)| s < end && e > start),
    };
    UrlScan {
        first: findings.first().map(|&(kind, start, _)| (kind, start)),
        in_host,
    }
}

/// The authority of a URL as the caller wrote it, in Unicode scalar values,
/// or `None` without a scheme's `:`.
fn authority_span(text: &str) -> Option<(usize, usize)> {
    let colon = text.find(':')?;
    let start = text[..=colon].chars().count()
        + text[colon + 1..]
            .chars()
            .take_while(|c| matches!(c, '/' | '\\' | '\t' | '\n' | '\r'))
            .count();
    let end = start
        + text
            .chars()
            .skip(start)
            .take_while(|c| !matches!(c, '/' | '?' | '#' | '\\'))
            .count();
    Some((start, end))
}

/// Where the authority starts in `text`, in Unicode scalar values: the
/// position a credential in it is reported at. After the scheme's colon
/// and the slashes or backslashes the parser passes over, however many
/// (`http:/host` is the URL `http://host`).
fn authority_position(text: &str) -> u64 {
    authority_span(text).map_or(0, |(start, _)| start) as u64
}

/// The secret check of §10 on a URL (REQ-PRIV-002), its one scan, before
/// any name is resolved. A URL cannot be masked without fetching another
/// page, so `mask` refuses like `refuse`; `warn` logs (the kind, never the
/// URL) and lets the call proceed. Answers whether the host carries a
/// finding, so that the host stays out of the log (REQ-PRIV-004): the scan
/// runs for that even with detection `off`, which then refuses nothing.
fn secret_check(text: &str, config: &Config) -> Result<bool, ToolError> {
    let mode = config.privacy.secret_detection;
    let scan = scan_url(text);
    if mode == SecretDetection::Off {
        return Ok(scan.first.is_some() && scan.in_host);
    }
    let Some((kind, position)) = scan.first else {
        return Ok(false);
    };
    match mode {
        SecretDetection::Warn => {
            tracing::warn!(
                event = "secret_detected",
                tool = crate::tools::ToolName::WebFetch.as_str(),
                kind = kind.as_str(),
                "a credential-shaped text is in the URL; proceeding as configured"
            );
            Ok(scan.in_host)
        }
        SecretDetection::Refuse | SecretDetection::Mask | SecretDetection::Off => {
            Err(ToolError::secret_in_url(kind, position as u64))
        }
    }
}
