//! The syntax of `[egress] allow` and `deny` rules, and what a rule matches
//! (ARCHITECTURE.md "Configuration additions"; REQ-SEC-005..007).
//!
//! A rule is a target optionally followed by a port clause:
//!
//! | target            | example           | matches                              |
//! |-------------------|-------------------|--------------------------------------|
//! | host name         | `example.org`     | that name only                       |
//! | `*.` suffix       | `*.example.org`   | names below it, not the suffix itself |
//! | IPv4 address      | `192.0.2.7`       | that address (a /32)                 |
//! | IPv4 network      | `10.0.0.0/8`      | the range                            |
//! | IPv6 address      | `[2001:db8::1]`   | that address (a /128)                |
//! | IPv6 network      | `[fd00::]/8`      | the range                            |
//!
//! The port clause is `:PORT` (1..=65535) or `:*`; without one an allow rule
//! covers the ports of LIM-F8 only and a deny rule covers every port. IPv6 is always bracketed and the prefix length
//! follows the bracket, as in `[fd00::]/8:443`, so that the last colon of a
//! rule is always the port separator, exactly as in a URL authority.
//!
//! Parsing is strict: a network address with bits set beyond its prefix is
//! refused rather than silently masked, because `10.0.0.1/8` is more often a
//! typo for `10.0.0.1` than a wish for all of `10/8`.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use thiserror::Error;

use super::{EgressRule, RulePort, RuleTarget};
use crate::DEFAULT_PORTS;

/// RFC 1035: the longest label.
const LABEL_MAX_BYTES: usize = 63;
/// RFC 1035: the longest name, without the root dot.
const NAME_MAX_BYTES: usize = 253;

/// Why a rule (or a host name) was refused. The messages are static: a rule
/// is operator text, and configuration problems never echo values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum RuleError {
    /// Nothing to parse.
    #[error("the rule is empty")]
    Empty,
    /// `a..b`, `.a` or a lone root dot.
    #[error("a host name has an empty label")]
    EmptyLabel,
    /// A label over 63 bytes.
    #[error("a host name label exceeds 63 characters")]
    LabelTooLong,
    /// A name over 253 bytes.
    #[error("a host name exceeds 253 characters")]
    NameTooLong,
    /// Anything but ASCII letters, digits, `-` and `_` in a name.
    #[error("a host name may hold only ASCII letters, digits, '-' and '_'")]
    InvalidCharacter,
    /// A last label that URL parsers would read as an IPv4 number.
    #[error("a host name's last label may not be a number")]
    NumericName,
    /// `*` anywhere but a leading `*.`.
    #[error("a wildcard is allowed only as a leading '*.'")]
    MisplacedWildcard,
    /// An IPv6 address without brackets.
    #[error("an IPv6 address must be written in brackets")]
    UnbracketedIpv6,
    /// Brackets holding something that is not an IPv6 address.
    #[error("the address is not a valid IP address")]
    InvalidAddress,
    /// `/N` on a name, or an `N` that is not a number.
    #[error("a prefix length needs an address and a number")]
    InvalidPrefix,
    /// `/33` on IPv4, `/129` on IPv6.
    #[error("the prefix length is too long for the address")]
    PrefixTooLong,
    /// `10.0.0.1/8`.
    #[error("the address has bits set beyond the prefix length")]
    HostBitsSet,
    /// `:0`, `:x`, `:65536` or an empty port.
    #[error("the port must be 1 to 65535 or *")]
    InvalidPort,
    /// `8080:docs.example`: the port written before the host.
    #[error("the port comes after the host: write HOST:PORT (docs.example:8080)")]
    PortFirst,
    /// `http://intranet.example/`: a URL where a rule belongs.
    #[error(
        "a rule is a host, *.suffix or CIDR with an optional :PORT or :*, not a URL (example.org, *.example.org:8443, 10.0.0.0/8:*)"
    )]
    Url,
}

/// Parses one `[egress] allow` or `deny` rule (syntax in the module doc).
pub fn parse_rule(text: &str) -> Result<EgressRule, RuleError> {
    if text.is_empty() {
        return Err(RuleError::Empty);
    }
    if text.contains("://") {
        return Err(RuleError::Url);
    }
    let (target, port) = if let Some(rest) = text.strip_prefix('[') {
        let (inside, after) = rest.split_once(']').ok_or(RuleError::InvalidAddress)?;
        let addr: Ipv6Addr = inside.parse().map_err(|_| RuleError::InvalidAddress)?;
        let (prefix, port) = split_prefix_and_port(after)?;
        (net_target(IpAddr::V6(addr), prefix)?, port)
    } else {
        let (target, port) = match text.split_once(':') {
            None => (text, RulePort::Default),
            Some((target, port)) => {
                // A second colon can only come from an unbracketed IPv6
                // address; say so rather than "invalid port".
                if port.contains(':') {
                    return Err(RuleError::UnbracketedIpv6);
                }
                // `8080:host`: a number first and a name after is the two
                // parts swapped, not a bad port.
                let is_number = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
                if is_number(target) && port != "*" && !is_number(port) && !port.is_empty() {
                    return Err(RuleError::PortFirst);
                }
                (target, parse_port(port)?)
            }
        };
        (parse_unbracketed_target(target)?, port)
    };
    Ok(EgressRule { target, port })
}

/// Normalises a host name the way every egress comparison sees it:
/// lower-cased, without its root dot. `None` for a name with an empty label,
/// a character outside `[A-Za-z0-9_-]` (write IDNs in their `xn--` form), a
/// label or name too long, or a numeric last label (`1.2.3` is an address to
/// a URL parser, not a name).
pub fn parse_host_name(text: &str) -> Option<String> {
    normalize_name(text).ok()
}

impl EgressRule {
    /// Whether the rule covers the host `name` on `port`. The name is
    /// compared lower-cased and without a root dot, so callers may pass a
    /// URL's host as is. Address rules never match a name.
    pub fn matches_name(&self, name: &str, port: u16) -> bool {
        self.port.covers(port) && self.names(name)
    }

    /// Whether the rule, read as a deny rule, refuses the host `name` on
    /// `port`. A deny rule without a port clause refuses every port: the
    /// operator wrote "never this destination", and a rule that let other
    /// ports through would fail open where an allow rule opens one.
    pub fn denies_name(&self, name: &str, port: u16) -> bool {
        self.port.covers_denied(port) && self.names(name)
    }

    /// Whether the rule, read as a deny rule, refuses `addr` on `port`
    /// (every port when it has no port clause, as [`Self::denies_name`]).
    pub fn denies_addr(&self, addr: IpAddr, port: u16) -> bool {
        self.port.covers_denied(port) && self.contains(addr)
    }

    /// Whether the rule's target is the host `name`, whatever the port.
    fn names(&self, name: &str) -> bool {
        let name = name.strip_suffix('.').unwrap_or(name).to_ascii_lowercase();
        match &self.target {
            RuleTarget::Host(host) => *host == name,
            RuleTarget::Suffix(suffix) => name
                .strip_suffix(suffix.as_str())
                .is_some_and(|head| head.len() > 1 && head.ends_with('.')),
            RuleTarget::Net { .. } => false,
        }
    }

    /// Whether the rule covers the address `addr` on `port`. An IPv4-mapped
    /// IPv6 address is judged by its IPv4 form, so `::ffff:10.0.0.1` is
    /// inside `10.0.0.0/8`. Name rules never match an address.
    pub fn matches_addr(&self, addr: IpAddr, port: u16) -> bool {
        self.port.covers(port) && self.contains(addr)
    }

    /// Whether the rule's target holds `addr`, whatever the port.
    fn contains(&self, addr: IpAddr) -> bool {
        match self.target {
            RuleTarget::Net { addr: net, prefix } => net_contains(net, prefix, addr),
            RuleTarget::Host(_) | RuleTarget::Suffix(_) => false,
        }
    }
}

impl RulePort {
    /// Whether the clause covers `port`.
    pub fn covers(self, port: u16) -> bool {
        match self {
            Self::Default => DEFAULT_PORTS.contains(&port),
            Self::Port(p) => p == port,
            Self::Any => true,
        }
    }

    /// Whether the clause, on a deny rule, covers `port`: without a clause,
    /// every port.
    pub fn covers_denied(self, port: u16) -> bool {
        match self {
            Self::Default | Self::Any => true,
            Self::Port(p) => p == port,
        }
    }
}

/// A name, a `*.suffix`, or an IPv4 address or network.
fn parse_unbracketed_target(text: &str) -> Result<RuleTarget, RuleError> {
    if let Some((addr, prefix)) = text.split_once('/') {
        let addr: Ipv4Addr = addr.parse().map_err(|_| RuleError::InvalidPrefix)?;
        return net_target(IpAddr::V4(addr), Some(parse_prefix(prefix)?));
    }
    if let Ok(addr) = text.parse::<Ipv4Addr>() {
        return net_target(IpAddr::V4(addr), None);
    }
    if let Some(suffix) = text.strip_prefix("*.") {
        return normalize_name(suffix).map(RuleTarget::Suffix);
    }
    normalize_name(text).map(RuleTarget::Host)
}

/// What follows `]`: an optional `/N`, then an optional `:PORT`.
fn split_prefix_and_port(after: &str) -> Result<(Option<u8>, RulePort), RuleError> {
    let (prefix, port) = match after.split_once(':') {
        None => (after, RulePort::Default),
        Some((prefix, port)) => (prefix, parse_port(port)?),
    };
    if prefix.is_empty() {
        return Ok((None, port));
    }
    let digits = prefix.strip_prefix('/').ok_or(RuleError::InvalidAddress)?;
    Ok((Some(parse_prefix(digits)?), port))
}

fn parse_prefix(digits: &str) -> Result<u8, RuleError> {
    // `u8::from_str` accepts a leading '+'; a prefix is plain digits.
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(RuleError::InvalidPrefix);
    }
    digits.parse().map_err(|_| RuleError::PrefixTooLong)
}

fn parse_port(text: &str) -> Result<RulePort, RuleError> {
    if text == "*" {
        return Ok(RulePort::Any);
    }
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(RuleError::InvalidPort);
    }
    match text.parse::<u16>() {
        Ok(0) | Err(_) => Err(RuleError::InvalidPort),
        Ok(port) => Ok(RulePort::Port(port)),
    }
}

/// Builds a network target, refusing an over-long prefix or host bits.
fn net_target(addr: IpAddr, prefix: Option<u8>) -> Result<RuleTarget, RuleError> {
    let width = address_width(addr);
    let prefix = prefix.unwrap_or(width);
    if prefix > width {
        return Err(RuleError::PrefixTooLong);
    }
    if masked(addr, prefix) != addr {
        return Err(RuleError::HostBitsSet);
    }
    Ok(RuleTarget::Net { addr, prefix })
}

const fn address_width(addr: IpAddr) -> u8 {
    match addr {
        IpAddr::V4(_) => 32,
        IpAddr::V6(_) => 128,
    }
}

/// `addr` with every bit past `prefix` cleared.
fn masked(addr: IpAddr, prefix: u8) -> IpAddr {
    match addr {
        IpAddr::V4(v4) => {
            let mask = u32::MAX.checked_shl(32 - u32::from(prefix)).unwrap_or(0);
            IpAddr::V4(Ipv4Addr::from_bits(v4.to_bits() & mask))
        }
        IpAddr::V6(v6) => {
            let mask = u128::MAX.checked_shl(128 - u32::from(prefix)).unwrap_or(0);
            IpAddr::V6(Ipv6Addr::from_bits(v6.to_bits() & mask))
        }
    }
}

/// Whether `addr` lies in `net/prefix`, an IPv4-mapped address counting as
/// its IPv4 form and an IPv4 address as its mapped form against IPv6 ranges
/// (so `[::]/0` still covers everything, as the operator wrote).
fn net_contains(net: IpAddr, prefix: u8, addr: IpAddr) -> bool {
    let addr = match addr {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(addr, IpAddr::V4),
        IpAddr::V4(_) => addr,
    };
    let addr = match (net, addr) {
        (IpAddr::V4(_), IpAddr::V4(_)) | (IpAddr::V6(_), IpAddr::V6(_)) => addr,
        (IpAddr::V6(_), IpAddr::V4(v4)) => IpAddr::V6(v4.to_ipv6_mapped()),
        (IpAddr::V4(_), IpAddr::V6(_)) => return false,
    };
    prefix <= address_width(net) && masked(addr, prefix) == net
}

fn normalize_name(text: &str) -> Result<String, RuleError> {
    let name = text.strip_suffix('.').unwrap_or(text);
    if name.is_empty() {
        return Err(RuleError::EmptyLabel);
    }
    if name.len() > NAME_MAX_BYTES {
        return Err(RuleError::NameTooLong);
    }
    let mut last = "";
    for label in name.split('.') {
        if label.is_empty() {
            return Err(RuleError::EmptyLabel);
        }
        if label.len() > LABEL_MAX_BYTES {
            return Err(RuleError::LabelTooLong);
        }
        if label.contains('*') {
            return Err(RuleError::MisplacedWildcard);
        }
        if !label
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        {
            return Err(RuleError::InvalidCharacter);
        }
        last = label;
    }
    if is_numeric_label(last) {
        return Err(RuleError::NumericName);
    }
    Ok(name.to_ascii_lowercase())
}

/// The WHATWG URL parser reads a host whose last label is decimal or
/// `0x`-hexadecimal as an IPv4 address; such a "name" would never be
/// compared as a name, so a rule spelled that way could not mean anything.
fn is_numeric_label(label: &str) -> bool {
    let lower = label.to_ascii_lowercase();
    match lower.strip_prefix("0x") {
        Some(hex) => hex.bytes().all(|b| b.is_ascii_hexdigit()),
        None => lower.bytes().all(|b| b.is_ascii_digit()),
    }
}

#[cfg(test)]
mod tests {

    use super::*;

    fn net(text: &str, prefix: u8) -> RuleTarget {
        RuleTarget::Net {
            addr: text.parse().unwrap(),
            prefix,
        }
    }

    fn rule(text: &str) -> EgressRule {
        parse_rule(text).unwrap()
    }

    #[test]
    fn parses_every_target_form() {
        // Verifies: REQ-SEC-005 (the rule syntax of [egress] allow and deny)
        let cases = [
            ("example.org", RuleTarget::Host("example.org".into())),
            ("*.example.org", RuleTarget::Suffix("example.org".into())),
            ("192.0.2.7", net("192.0.2.7", 32)),
            ("10.0.0.0/8", net("10.0.0.0", 8)),
            ("0.0.0.0/0", net("0.0.0.0", 0)),
            ("[2001:db8::1]", net("2001:db8::1", 128)),
            ("[fd00::]/8", net("fd00::", 8)),
            ("[::]/0", net("::", 0)),
        ];
        for (text, target) in cases {
            assert_eq!(
                rule(text),
                EgressRule {
                    target,
                    port: RulePort::Default
                },
                "{text}"
            );
        }
    }

    #[test]
    fn parses_port_clauses_after_every_target_form() {
        // Verifies: REQ-SEC-005 (the rule syntax of [egress] allow and deny)
        assert_eq!(rule("example.org:8080").port, RulePort::Port(8080));
        assert_eq!(rule("*.example.org:*").port, RulePort::Any);
        assert_eq!(rule("10.0.0.0/8:443").port, RulePort::Port(443));
        assert_eq!(rule("127.0.0.1:65535").port, RulePort::Port(65535));
        assert_eq!(rule("[::1]:8808").port, RulePort::Port(8808));
        let v6 = rule("[fd00::]/8:*");
        assert_eq!(v6.target, net("fd00::", 8));
        assert_eq!(v6.port, RulePort::Any);
    }

    #[test]
    fn lower_cases_names_and_drops_the_root_dot() {
        // Verifies: REQ-SEC-006 (names compared lower-cased, without the root dot)
        assert_eq!(
            rule("Example.ORG.").target,
            RuleTarget::Host("example.org".into())
        );
        assert_eq!(
            rule("*.Example.Org.:443").target,
            RuleTarget::Suffix("example.org".into())
        );
        assert_eq!(
            parse_host_name("WWW.Example.org."),
            Some("www.example.org".into())
        );
        assert_eq!(parse_host_name("localhost"), Some("localhost".into()));
        assert_eq!(
            parse_host_name("xn--bcher-kva.example"),
            Some("xn--bcher-kva.example".into())
        );
    }

    #[test]
    fn refuses_names_with_an_empty_label() {
        // Verifies: REQ-SEC-006 (a name with an empty label is refused)
        for text in ["a..b", ".a", "a.b..", ".", "*.", "*..a"] {
            assert_eq!(parse_rule(text), Err(RuleError::EmptyLabel), "{text}");
        }
        assert_eq!(parse_host_name(""), None);
        assert_eq!(parse_host_name("."), None);
        assert_eq!(parse_host_name("a..b"), None);
    }

    #[test]
    fn refuses_malformed_rules_with_a_specific_reason() {
        // Verifies: REQ-SEC-005 (rules are validated, not guessed at)
        let cases = [
            ("", RuleError::Empty),
            ("exa mple.org", RuleError::InvalidCharacter),
            (" example.org", RuleError::InvalidCharacter),
            ("bücher.example", RuleError::InvalidCharacter),
            ("a.*.example", RuleError::MisplacedWildcard),
            ("*", RuleError::MisplacedWildcard),
            ("**.example", RuleError::MisplacedWildcard),
            ("1.2.3", RuleError::NumericName),
            ("a.0x7f", RuleError::NumericName),
            ("256.0.0.1", RuleError::NumericName),
            ("::1", RuleError::UnbracketedIpv6),
            ("fd00::/8", RuleError::UnbracketedIpv6),
            ("[example.org]", RuleError::InvalidAddress),
            ("[127.0.0.1]", RuleError::InvalidAddress),
            ("[::1", RuleError::InvalidAddress),
            ("[::1]x", RuleError::InvalidAddress),
            ("example.org/8", RuleError::InvalidPrefix),
            ("10.0.0.0/", RuleError::InvalidPrefix),
            ("10.0.0.0/+8", RuleError::InvalidPrefix),
            ("[fd00::]/x", RuleError::InvalidPrefix),
            ("10.0.0.0/33", RuleError::PrefixTooLong),
            ("[fd00::]/129", RuleError::PrefixTooLong),
            ("10.0.0.0/300", RuleError::PrefixTooLong),
            ("10.0.0.1/8", RuleError::HostBitsSet),
            ("[fd00::1]/8", RuleError::HostBitsSet),
            ("example.org:", RuleError::InvalidPort),
            ("example.org:0", RuleError::InvalidPort),
            ("example.org:65536", RuleError::InvalidPort),
            ("example.org:+80", RuleError::InvalidPort),
            ("example.org:http", RuleError::InvalidPort),
            ("[::1]:", RuleError::InvalidPort),
            ("8080:docs.example", RuleError::PortFirst),
            ("8080:10.1.2.3", RuleError::PortFirst),
            ("http://intranet.example/", RuleError::Url),
            ("https://10.0.0.1:8443/docs", RuleError::Url),
            ("ftp://[fd00::1]", RuleError::Url),
        ];
        for (text, error) in cases {
            assert_eq!(parse_rule(text), Err(error), "{text:?}");
        }
        let long_label = "a".repeat(64);
        assert_eq!(parse_rule(&long_label), Err(RuleError::LabelTooLong));
        let long_name = vec!["a".repeat(63); 4].join(".");
        assert_eq!(parse_rule(&long_name), Err(RuleError::NameTooLong));
    }

    #[test]
    fn default_port_clause_covers_only_80_and_443() {
        // Verifies: REQ-SEC-006 (LIM-F8 applies where a rule names no port)
        let r = rule("example.org");
        assert!(r.matches_name("example.org", 80));
        assert!(r.matches_name("example.org", 443));
        assert!(!r.matches_name("example.org", 8080));
        let any = rule("example.org:*");
        assert!(any.matches_name("example.org", 8080));
        let one = rule("example.org:8080");
        assert!(one.matches_name("example.org", 8080));
        assert!(!one.matches_name("example.org", 443));
    }

    #[test]
    fn a_deny_rule_without_a_port_refuses_every_port() {
        // Verifies: REQ-SEC-007 (operator deny rules; a port-less deny rule is not narrowed to LIM-F8)
        let host = rule("intranet.example");
        assert!(host.denies_name("intranet.example", 443));
        assert!(host.denies_name("intranet.example", 8080));
        let net = rule("10.0.0.0/8");
        assert!(net.denies_addr("10.1.2.3".parse().unwrap(), 22));
        let one = rule("intranet.example:8080");
        assert!(one.denies_name("intranet.example", 8080));
        assert!(!one.denies_name("intranet.example", 443));
        assert!(!host.denies_name("other.example", 8080));
    }

    #[test]
    fn host_rule_matches_the_exact_name_in_any_case() {
        // Verifies: REQ-SEC-006 (names compared lower-cased, without the root dot)
        let r = rule("example.org");
        assert!(r.matches_name("EXAMPLE.org.", 443));
        assert!(!r.matches_name("www.example.org", 443));
        assert!(!r.matches_name("example.org.evil", 443));
        assert!(!r.matches_addr("93.184.216.34".parse().unwrap(), 443));
    }

    #[test]
    fn suffix_rule_matches_names_below_but_not_the_suffix() {
        // Verifies: REQ-SEC-005 (`*.suffix` rules)
        let r = rule("*.example.org");
        assert!(r.matches_name("www.example.org", 443));
        assert!(r.matches_name("a.b.Example.Org.", 80));
        assert!(!r.matches_name("example.org", 443));
        assert!(!r.matches_name("badexample.org", 443));
        assert!(!r.matches_name(".example.org", 443));
        assert!(!r.matches_name("www.example.org", 8443));
    }

    #[test]
    fn network_rule_matches_addresses_in_range() {
        // Verifies: REQ-SEC-007 (address rules judged on the address connected to)
        let r = rule("10.0.0.0/8:*");
        assert!(r.matches_addr("10.1.2.3".parse().unwrap(), 1));
        assert!(!r.matches_addr("11.0.0.1".parse().unwrap(), 1));
        assert!(!r.matches_name("10.1.2.3", 443));
        let one = rule("127.0.0.1");
        assert!(one.matches_addr("127.0.0.1".parse().unwrap(), 443));
        assert!(!one.matches_addr("127.0.0.2".parse().unwrap(), 443));
        assert!(!one.matches_addr("127.0.0.1".parse().unwrap(), 8080));
        let v6 = rule("[fd00::]/8");
        assert!(v6.matches_addr("fdab::1".parse().unwrap(), 443));
        assert!(!v6.matches_addr("fe80::1".parse().unwrap(), 443));
        assert!(!v6.matches_addr("10.0.0.1".parse().unwrap(), 443));
    }

    #[test]
    fn ipv4_network_matches_ipv4_mapped_addresses() {
        // Verifies: REQ-SEC-006 (IPv4-mapped addresses are canonicalized)
        let r = rule("127.0.0.0/8");
        assert!(r.matches_addr("::ffff:127.0.0.1".parse().unwrap(), 443));
        assert!(!r.matches_addr("::ffff:128.0.0.1".parse().unwrap(), 443));
        // Only the mapped form is canonicalized: an IPv4-compatible or
        // NAT64 address is a different IPv6 address.
        assert!(!r.matches_addr("::127.0.0.1".parse().unwrap(), 443));
        assert!(!r.matches_addr("64:ff9b::7f00:1".parse().unwrap(), 443));
    }

    #[test]
    fn ipv6_network_over_the_mapped_range_matches_ipv4_addresses() {
        // Verifies: REQ-SEC-006 (IPv4-mapped addresses are canonicalized)
        let mapped = rule("[::ffff:0:0]/96");
        assert!(mapped.matches_addr("192.0.2.1".parse().unwrap(), 443));
        assert!(mapped.matches_addr("::ffff:192.0.2.1".parse().unwrap(), 443));
        let all = rule("[::]/0");
        assert!(all.matches_addr("192.0.2.1".parse().unwrap(), 443));
        assert!(all.matches_addr("2001:db8::1".parse().unwrap(), 443));
        let one = rule("[::ffff:192.0.2.1]");
        assert!(one.matches_addr("192.0.2.1".parse().unwrap(), 443));
        assert!(!one.matches_addr("192.0.2.2".parse().unwrap(), 443));
    }

    #[test]
    fn error_messages_never_echo_the_rule() {
        // Verifies: REQ-SEC-016 (configuration problems are static text)
        let secret = "hunter2.example:99999";
        let message = parse_rule(secret).unwrap_err().to_string();
        assert!(!message.contains("hunter2"), "{message}");
    }
}
