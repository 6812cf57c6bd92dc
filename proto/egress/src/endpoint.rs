//! The engine profile's destination (design §8: "the configured host
//! only"; DECISIONS, hostile 3): an engine endpoint the operator wrote as a
//! literal address, or as a name pinned in `[egress] hosts`, is admitted
//! for that engine's requests without an allow rule, on its own port and
//! whatever its address class. The operator named the very address, so no
//! resolver can move it. An endpoint by any other name is judged as every
//! destination is, on each address it resolves to: a provider's DNS must
//! not be able to point an engine at the operator's network. Agent-directed
//! requests (`web_fetch`) never use this judgement.

use std::net::IpAddr;

use crate::address::canonical;
use crate::{AddressVerdict, AdmittedEndpoint, AdmittedHost, EgressPolicy};

/// The host of an engine endpoint as its URL names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndpointHost<'a> {
    /// A literal address.
    Addr(IpAddr),
    /// A name, lower-case without a root dot.
    Name(&'a str),
}

impl EgressPolicy {
    /// The endpoint on `host:port` that an engine may reach without an
    /// allow rule, when the operator wrote it as a literal address or as a
    /// name pinned in `[egress] hosts`; `None` for any other name.
    pub fn admit_endpoint(&self, host: EndpointHost<'_>, port: u16) -> Option<AdmittedEndpoint> {
        let host = match host {
            EndpointHost::Addr(addr) => AdmittedHost::Addr(addr),
            EndpointHost::Name(name) if self.hosts.iter().any(|pinned| pinned.name == name) => {
                AdmittedHost::Name(name.to_owned())
            }
            EndpointHost::Name(_) => return None,
        };
        Some(AdmittedEndpoint { host, port })
    }

    /// The verdict on connecting to `addr:port`, an answer for `host`, for
    /// an engine request to its configured endpoint. Deny rules refuse
    /// first, as everywhere. When `host:port` is one of
    /// [`Self::endpoints`], the endpoint's own address (the literal itself,
    /// or an address the operator pinned for the name) is
    /// [`AddressVerdict::AllowedAsEndpoint`]; any other address, and every
    /// destination that is not an admitted endpoint, is judged as any
    /// destination is ([`Self::judge_addr`], [`Self::judge_resolved`]).
    pub fn judge_endpoint(
        &self,
        host: EndpointHost<'_>,
        addr: IpAddr,
        port: u16,
    ) -> AddressVerdict {
        let usual = match host {
            EndpointHost::Addr(_) => self.judge_addr(addr, port),
            EndpointHost::Name(name) => self.judge_resolved(name, addr, port),
        };
        if usual == AddressVerdict::DeniedByRule || usual == AddressVerdict::AllowedByRule {
            return usual;
        }
        let admitted = self.endpoints.iter().any(|endpoint| {
            endpoint.port == port
                && match (&endpoint.host, host) {
                    (AdmittedHost::Addr(a), EndpointHost::Addr(b)) => canonical(*a) == canonical(b),
                    (AdmittedHost::Name(a), EndpointHost::Name(b)) => a == b,
                    (AdmittedHost::Addr(_), EndpointHost::Name(_))
                    | (AdmittedHost::Name(_), EndpointHost::Addr(_)) => false,
                }
        });
        if !admitted {
            return usual;
        }
        let canon = canonical(addr);
        let own = match host {
            EndpointHost::Addr(literal) => canonical(literal) == canon,
            EndpointHost::Name(name) => self
                .hosts
                .iter()
                .filter(|pinned| pinned.name == name)
                .flat_map(|pinned| &pinned.addrs)
                .any(|pinned| canonical(*pinned) == canon),
        };
        if own {
            AddressVerdict::AllowedAsEndpoint
        } else {
            usual
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{StaticHost, parse_rule};

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    fn pinned() -> EgressPolicy {
        let mut policy = EgressPolicy {
            hosts: vec![StaticHost {
                name: "searx.lan".to_owned(),
                addrs: vec![ip("192.168.1.20")],
            }],
            ..EgressPolicy::default()
        };
        let endpoints = [
            policy.admit_endpoint(EndpointHost::Addr(ip("10.0.0.5")), 8080),
            policy.admit_endpoint(EndpointHost::Name("searx.lan"), 8888),
            policy.admit_endpoint(EndpointHost::Name("search.example"), 443),
        ];
        policy.endpoints = endpoints.into_iter().flatten().collect();
        policy
    }

    // Verifies: REQ-SEC-017 (an endpoint written as a literal address, or as a name pinned in [egress] hosts, is admitted for its engine without an allow rule, on its own port)
    #[test]
    fn admits_a_literal_or_pinned_endpoint_on_its_own_port() {
        let policy = pinned();
        assert_eq!(policy.endpoints.len(), 2, "a public name is not admitted");
        let literal = EndpointHost::Addr(ip("10.0.0.5"));
        assert_eq!(
            policy.judge_endpoint(literal, ip("10.0.0.5"), 8080),
            AddressVerdict::AllowedAsEndpoint
        );
        assert_eq!(
            policy.judge_endpoint(literal, ip("::ffff:10.0.0.5"), 8080),
            AddressVerdict::AllowedAsEndpoint,
            "the mapped spelling of the same address"
        );
        let name = EndpointHost::Name("searx.lan");
        assert_eq!(
            policy.judge_endpoint(name, ip("192.168.1.20"), 8888),
            AddressVerdict::AllowedAsEndpoint
        );
        // The same addresses are still refused to anything else, and the
        // endpoint's host on another port is no endpoint.
        assert_eq!(
            policy.judge_addr(ip("10.0.0.5"), 8080),
            AddressVerdict::Refused(crate::AddressClass::Private)
        );
        assert_eq!(
            policy.judge_endpoint(literal, ip("10.0.0.5"), 22),
            AddressVerdict::Refused(crate::AddressClass::Private)
        );
    }

    // Verifies: REQ-SEC-017 (only the endpoint's own address is admitted: another address, or any address of a name that is not pinned, is judged as usual)
    #[test]
    fn judges_every_other_address_as_usual() {
        let policy = pinned();
        assert_eq!(
            policy.judge_endpoint(EndpointHost::Addr(ip("10.0.0.5")), ip("10.0.0.6"), 8080),
            AddressVerdict::Refused(crate::AddressClass::Private)
        );
        assert_eq!(
            policy.judge_endpoint(EndpointHost::Name("searx.lan"), ip("127.0.0.1"), 8888),
            AddressVerdict::Refused(crate::AddressClass::Loopback)
        );
        let public = EndpointHost::Name("search.example");
        assert_eq!(
            policy.judge_endpoint(public, ip("192.168.1.20"), 443),
            AddressVerdict::Refused(crate::AddressClass::Private),
            "a provider's DNS cannot point an engine inside"
        );
        assert_eq!(
            policy.judge_endpoint(public, ip("93.184.215.14"), 443),
            AddressVerdict::Allowed
        );
    }

    // Verifies: REQ-SEC-017 (a deny rule refuses an endpoint however it is written)
    #[test]
    fn deny_rules_still_refuse_an_endpoint() {
        let mut policy = pinned();
        policy.deny = vec![
            parse_rule("10.0.0.0/8").unwrap(),
            parse_rule("searx.lan").unwrap(),
        ];
        assert_eq!(
            policy.judge_endpoint(EndpointHost::Addr(ip("10.0.0.5")), ip("10.0.0.5"), 8080),
            AddressVerdict::DeniedByRule
        );
        assert_eq!(
            policy.judge_endpoint(EndpointHost::Name("searx.lan"), ip("192.168.1.20"), 8888),
            AddressVerdict::DeniedByRule
        );
    }
}
