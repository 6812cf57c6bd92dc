//! rypsok-egress: the egress policy's pure parts (design §8,
//! REQ-SEC-005..007) and the robots.txt matcher (REQ-CMP-005).
//!
//! - [`classify`] names why an address is special and
//!   [`EgressPolicy::judge_addr`] gives the verdict on one destination;
//! - [`EgressPolicy::judge_endpoint`] admits an engine endpoint the
//!   operator wrote as a literal address or a pinned name, for that engine
//!   only;
//! - [`parse_rule`] and [`parse_host_name`] read the operator's `[egress]`
//!   rules and host names;
//! - [`robots`] decides whether a path may be fetched under the robots.txt
//!   rules that worker-parse extracted.
//!
//! These are predicates over data, with no I/O, so that the supervisor's URL
//! pre-check and worker-net's connect-time check apply exactly the same
//! rules. The rules travel to worker-net inside the `NetInit` message of
//! rypsok-proto, which depends on this crate (never the other way round).
#![forbid(unsafe_code)]

use std::net::IpAddr;

use serde::{Deserialize, Serialize};

/// The operator's egress configuration, as worker-net receives it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EgressPolicy {
    /// `[egress] allow`: the only way to admit a refused range, a literal
    /// address or a port outside LIM-F8.
    pub allow: Vec<EgressRule>,
    /// `[egress] deny`: refused in addition to the built-in ranges.
    pub deny: Vec<EgressRule>,
    /// `[egress] hosts`: static answers, judged like resolver answers.
    pub hosts: Vec<StaticHost>,
    /// The engine endpoints the operator wrote as a literal address or as
    /// a name pinned in `hosts`: each admitted, on its own port, for its
    /// engine's requests only ([`EgressPolicy::judge_endpoint`]).
    #[serde(default)]
    pub endpoints: Vec<AdmittedEndpoint>,
}

/// An engine endpoint admitted by the way the operator wrote it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AdmittedEndpoint {
    /// Its host: a literal address, or a name pinned in `[egress] hosts`
    /// (lower-case, no root dot).
    pub host: AdmittedHost,
    /// Its port.
    pub port: u16,
}

/// The host of an [`AdmittedEndpoint`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum AdmittedHost {
    /// A literal address.
    Addr(IpAddr),
    /// A name pinned in `[egress] hosts`.
    Name(String),
}

/// One static name → addresses answer (like curl's `--resolve`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StaticHost {
    /// Lower-case name without a root dot.
    pub name: String,
    /// Its addresses, in the order given.
    pub addrs: Vec<IpAddr>,
}

/// One allow or deny rule: a target and a port clause.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EgressRule {
    /// What the rule matches.
    pub target: RuleTarget,
    /// Which ports it covers.
    pub port: RulePort,
}

/// The target of a rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum RuleTarget {
    /// An exact host name, lower-case, no root dot.
    Host(String),
    /// `*.suffix`: any name below the suffix (not the suffix itself).
    Suffix(String),
    /// An address range in CIDR form (a lone address is a /32 or /128).
    Net {
        /// Network address.
        addr: IpAddr,
        /// Prefix length.
        prefix: u8,
    },
}

/// The port clause of a rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum RulePort {
    /// No clause: the ports of LIM-F8.
    Default,
    /// `:PORT`.
    Port(u16),
    /// `:*`.
    Any,
}

/// LIM-F8: ports a fetch or an engine may use without an allow rule
/// (rypsok-proto's `limits` lists it with the other LIM values).
pub const DEFAULT_PORTS: [u16; 2] = [80, 443];

mod rule;
pub use rule::{RuleError, parse_host_name, parse_rule};

mod address;
pub use address::{AddressClass, AddressVerdict, Refusal, canonical, classify};

mod endpoint;
pub use endpoint::EndpointHost;

pub mod robots;
