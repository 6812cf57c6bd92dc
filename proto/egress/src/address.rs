//! Which addresses an agent-directed request may reach, and the verdict on
//! one destination (design §8, REQ-SEC-006, REQ-SEC-007).
//!
//! [`classify`] names why an address is special. It follows the "Globally
//! Reachable" column of the IANA IPv4 and IPv6 Special-Purpose Address
//! Registries row by row (a row marked `True` is global, one marked `False`,
//! `N/A` or left blank is refused; a test reads both registries), adds the
//! ranges those registries leave to others (multicast, IPv6 outside
//! `2000::/3`, a globally routable metadata endpoint), and judges the
//! transition encodings that carry an IPv4 address inside an IPv6 one
//! (mapped, ISATAP) by that address. One registry row is refused although
//! marked `True`: `64:ff9b::/96` (see [`AddressClass::Nat64`]). Only
//! [`AddressClass::Global`] is reachable without an allow rule.
//!
//! [`EgressPolicy::judge_addr`] and [`EgressPolicy::judge_name`] apply the
//! operator's rules on top, in one fixed order: deny, allow, class, port.
//! Everything here is pure, so the supervisor's URL pre-check and
//! worker-net's connect-time check reach the same verdict.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use serde::{Deserialize, Serialize};

use crate::{DEFAULT_PORTS, EgressPolicy};

/// Why an address is special, or [`AddressClass::Global`] when it is not.
/// A closed vocabulary for logs and the tool error's detail:
/// [`AddressClass::as_str`] renders it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum AddressClass {
    /// Globally routable unicast: the only class reachable without a rule.
    Global,
    /// `0.0.0.0/8` ("this network") and `::`.
    Unspecified,
    /// `127.0.0.0/8` and `::1`.
    Loopback,
    /// `10.0.0.0/8`, `172.16.0.0/12`, `192.168.0.0/16` (RFC 1918).
    Private,
    /// `100.64.0.0/10`, carrier-grade NAT (RFC 6598).
    SharedAddressSpace,
    /// `169.254.0.0/16` and `fe80::/10`.
    LinkLocal,
    /// `fc00::/7` (RFC 4193).
    UniqueLocal,
    /// `fec0::/10`, deprecated site-local (RFC 3879).
    SiteLocal,
    /// `224.0.0.0/4` and `ff00::/8`.
    Multicast,
    /// `255.255.255.255`.
    Broadcast,
    /// `192.0.2.0/24`, `198.51.100.0/24`, `203.0.113.0/24`, `2001:db8::/32`,
    /// `3fff::/20`.
    Documentation,
    /// `198.18.0.0/15` and `2001:2::/48`.
    Benchmarking,
    /// `240.0.0.0/4` and IPv6 outside `2000::/3` not named otherwise.
    Reserved,
    /// `192.0.0.0/24` and `2001::/23` (IETF protocol assignments), less
    /// the blocks inside that the registries mark globally reachable (the
    /// PCP, TURN and DNS-SD anycast addresses, AMT, AS112-v6, ORCHIDv2,
    /// drone identifiers).
    ProtocolAssignments,
    /// `192.88.99.0/24`, the deprecated 6to4 relay anycast (RFC 7526).
    SixToFourRelay,
    /// `100::/64`, discard-only (RFC 6666).
    Discard,
    /// `::/96`, deprecated IPv4-compatible addresses.
    Ipv4Compatible,
    /// `::ffff:0:0:0/96`, IPv4-translated addresses (RFC 2765).
    Ipv4Translated,
    /// `64:ff9b::/96` and `64:ff9b:1::/48`: a NAT64 translator would carry
    /// the connection to the embedded IPv4 address, which the translator,
    /// not rypsok, would then reach; refused whatever that address is. The
    /// IPv6 registry marks `64:ff9b::/96` globally reachable: this is the
    /// one row rypsok refuses all the same, as the design's SSRF corpus
    /// does (the translator's own network is behind it).
    Nat64,
    /// `2001::/32`: Teredo relays to an obfuscated client address; refused
    /// whatever that address is.
    Teredo,
    /// `2002::/16`, 6to4, whatever IPv4 address it embeds: deprecated
    /// (RFC 7526), not globally reachable in the IPv6 registry, and on a
    /// network that still uses it `2002:<site IPv4>::/48` is that site's own
    /// internal space.
    SixToFour,
    /// An ISATAP interface identifier (`::0:5efe:a.b.c.d`,
    /// `::200:5efe:a.b.c.d`) whose embedded IPv4 address is not global.
    Isatap,
    /// `5f00::/16`, SRv6 segment identifiers (RFC 9602).
    SegmentRouting,
    /// A cloud metadata endpoint that is globally routable, so no registry
    /// range covers it: `168.63.129.16`, Azure's wire server. The contract
    /// refuses "private, link-local, metadata and other internal addresses"
    /// (tools-and-responses.txt); only an operator allow rule opens it.
    Metadata,
}

impl AddressClass {
    /// Every class, for tests over the whole vocabulary.
    pub const ALL: [Self; 24] = [
        Self::Global,
        Self::Unspecified,
        Self::Loopback,
        Self::Private,
        Self::SharedAddressSpace,
        Self::LinkLocal,
        Self::UniqueLocal,
        Self::SiteLocal,
        Self::Multicast,
        Self::Broadcast,
        Self::Documentation,
        Self::Benchmarking,
        Self::Reserved,
        Self::ProtocolAssignments,
        Self::SixToFourRelay,
        Self::Discard,
        Self::Ipv4Compatible,
        Self::Ipv4Translated,
        Self::Nat64,
        Self::Teredo,
        Self::SixToFour,
        Self::Isatap,
        Self::SegmentRouting,
        Self::Metadata,
    ];

    /// A fixed name for logs and metric labels.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Global => "global",
            Self::Unspecified => "unspecified",
            Self::Loopback => "loopback",
            Self::Private => "private",
            Self::SharedAddressSpace => "shared_address_space",
            Self::LinkLocal => "link_local",
            Self::UniqueLocal => "unique_local",
            Self::SiteLocal => "site_local",
            Self::Multicast => "multicast",
            Self::Broadcast => "broadcast",
            Self::Documentation => "documentation",
            Self::Benchmarking => "benchmarking",
            Self::Reserved => "reserved",
            Self::ProtocolAssignments => "protocol_assignments",
            Self::SixToFourRelay => "six_to_four_relay",
            Self::Discard => "discard",
            Self::Ipv4Compatible => "ipv4_compatible",
            Self::Ipv4Translated => "ipv4_translated",
            Self::Nat64 => "nat64",
            Self::Teredo => "teredo",
            Self::SixToFour => "six_to_four",
            Self::Isatap => "isatap",
            Self::SegmentRouting => "segment_routing",
            Self::Metadata => "metadata",
        }
    }

    /// Whether an address of this class may be reached without a rule.
    pub const fn is_global(self) -> bool {
        matches!(self, Self::Global)
    }
}

/// The egress verdict on one destination (address or name, and port).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AddressVerdict {
    /// A global address on a port of LIM-F8.
    Allowed,
    /// An operator allow rule admits it, whatever its class or port.
    AllowedByRule,
    /// The operator wrote it as an engine's endpoint (a literal address,
    /// or an address pinned for the endpoint's name in `[egress] hosts`):
    /// admitted for that engine's requests only, whatever its class or
    /// port.
    AllowedAsEndpoint,
    /// A special-purpose address no rule admits.
    Refused(AddressClass),
    /// An operator deny rule refuses it.
    DeniedByRule,
    /// A global address on a port outside LIM-F8 that no rule admits.
    PortNotAllowed,
}

impl AddressVerdict {
    /// Whether a connection may be made.
    pub const fn is_allowed(self) -> bool {
        matches!(
            self,
            Self::Allowed | Self::AllowedByRule | Self::AllowedAsEndpoint
        )
    }

    /// A fixed name for logs; a refusal's class is [`Self::refused_class`].
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Allowed => "allowed",
            Self::AllowedByRule => "allowed_by_rule",
            Self::AllowedAsEndpoint => "allowed_as_endpoint",
            Self::Refused(_) => "refused",
            Self::DeniedByRule => "denied_by_rule",
            Self::PortNotAllowed => "port_not_allowed",
        }
    }

    /// The class that refused the address, for [`Self::Refused`].
    pub const fn refused_class(self) -> Option<AddressClass> {
        match self {
            Self::Refused(class) => Some(class),
            Self::Allowed
            | Self::AllowedByRule
            | Self::AllowedAsEndpoint
            | Self::DeniedByRule
            | Self::PortNotAllowed => None,
        }
    }

    /// Which part of the policy refused, or `None` when it allows.
    pub const fn refusal(self) -> Option<Refusal> {
        match self {
            Self::Allowed | Self::AllowedByRule | Self::AllowedAsEndpoint => None,
            Self::Refused(class) => Some(Refusal::AddressClass(class)),
            Self::DeniedByRule => Some(Refusal::DenyRule),
            Self::PortNotAllowed => Some(Refusal::Port),
        }
    }
}

/// Which part of the egress policy refused a destination: a closed
/// vocabulary, carried from worker-net's connect-time check to the
/// supervisor's log and, from the supervisor's URL check, into the tool
/// error's detail. Never an address or a name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Refusal {
    /// A port outside LIM-F8 that no allow rule opens.
    Port,
    /// A special-purpose address of this class that no allow rule admits.
    AddressClass(AddressClass),
    /// An operator deny rule matches the name or the address.
    DenyRule,
    /// The connected peer is not the address that was judged (I3).
    PeerMismatch,
}

impl Refusal {
    /// A fixed name for logs and the tool error's `refused` detail; the
    /// class of [`Self::AddressClass`] is [`Self::address_class`].
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Port => "port",
            Self::AddressClass(_) => "address_class",
            Self::DenyRule => "deny_rule",
            Self::PeerMismatch => "peer_mismatch",
        }
    }

    /// The refusing class, for [`Self::AddressClass`].
    pub const fn address_class(self) -> Option<AddressClass> {
        match self {
            Self::AddressClass(class) => Some(class),
            Self::Port | Self::DenyRule | Self::PeerMismatch => None,
        }
    }
}

/// The address as the kernel will reach it: an IPv4-mapped IPv6 address
/// (`::ffff:a.b.c.d`) becomes its IPv4 address; every other address is
/// returned unchanged (the other embeddings are judged, not unwrapped).
pub fn canonical(addr: IpAddr) -> IpAddr {
    match addr {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => addr,
        },
        IpAddr::V4(_) => addr,
    }
}

/// Why `addr` is special, judged after [`canonical`].
pub fn classify(addr: IpAddr) -> AddressClass {
    match canonical(addr) {
        IpAddr::V4(v4) => classify_v4(v4),
        IpAddr::V6(v6) => classify_v6(v6),
    }
}

impl EgressPolicy {
    /// The verdict on connecting to `addr` on `port`: a matching deny rule
    /// refuses; then a matching allow rule admits (the only way to reach a
    /// special class or a port outside LIM-F8); then a special class
    /// refuses; then a port outside LIM-F8 refuses. Rules are matched
    /// against the address as given and its [`canonical`] form, so a mapped
    /// spelling neither escapes a deny rule nor misses an allow rule.
    pub fn judge_addr(&self, addr: IpAddr, port: u16) -> AddressVerdict {
        let canon = canonical(addr);
        let denied = self.deny.iter().any(|rule| {
            rule.denies_addr(addr, port) || (canon != addr && rule.denies_addr(canon, port))
        });
        if denied {
            return AddressVerdict::DeniedByRule;
        }
        let allowed = self.allow.iter().any(|rule| {
            rule.matches_addr(addr, port) || (canon != addr && rule.matches_addr(canon, port))
        });
        if allowed {
            return AddressVerdict::AllowedByRule;
        }
        let class = classify(canon);
        if !class.is_global() {
            return AddressVerdict::Refused(class);
        }
        if !DEFAULT_PORTS.contains(&port) {
            return AddressVerdict::PortNotAllowed;
        }
        AddressVerdict::Allowed
    }

    /// The rule decision on a host name before it is resolved:
    /// [`AddressVerdict::DeniedByRule`] when a deny rule names it,
    /// [`AddressVerdict::AllowedByRule`] when an allow rule does, `None`
    /// when no rule names it and each of its addresses decides. `name` is
    /// lower-case without a root dot.
    pub fn judge_name(&self, name: &str, port: u16) -> Option<AddressVerdict> {
        if self.deny.iter().any(|rule| rule.denies_name(name, port)) {
            return Some(AddressVerdict::DeniedByRule);
        }
        if self.allow.iter().any(|rule| rule.matches_name(name, port)) {
            return Some(AddressVerdict::AllowedByRule);
        }
        None
    }

    /// The verdict on connecting to `addr`, an answer for `name`, on
    /// `port`: deny rules (by name or by address) refuse; an allow rule by
    /// name admits every answer no address deny rule refuses (the operator
    /// vouched for the name's resolution); otherwise [`Self::judge_addr`].
    pub fn judge_resolved(&self, name: &str, addr: IpAddr, port: u16) -> AddressVerdict {
        let by_addr = self.judge_addr(addr, port);
        match self.judge_name(name, port) {
            Some(AddressVerdict::DeniedByRule) => AddressVerdict::DeniedByRule,
            Some(AddressVerdict::AllowedByRule) if by_addr != AddressVerdict::DeniedByRule => {
                AddressVerdict::AllowedByRule
            }
            Some(_) | None => by_addr,
        }
    }
}

/// One special-purpose block: network bits, prefix length, class.
type Block4 = (u32, u8, AddressClass);
type Block6 = (u128, u8, AddressClass);

/// IANA IPv4 Special-Purpose Address Registry, plus multicast and the
/// globally routable metadata endpoints. First match wins, so the broadcast
/// address precedes `240.0.0.0/4`, and the globally reachable anycast
/// addresses precede the protocol assignments that hold them. The registry's
/// other globally reachable rows (AS112 `192.31.196.0/24` and
/// `192.175.48.0/24`, AMT `192.52.193.0/24`) are simply absent.
const SPECIAL_V4: [Block4; 19] = [
    (v4(255, 255, 255, 255), 32, AddressClass::Broadcast),
    (v4(168, 63, 129, 16), 32, AddressClass::Metadata),
    (v4(192, 0, 0, 9), 32, AddressClass::Global),
    (v4(192, 0, 0, 10), 32, AddressClass::Global),
    (v4(0, 0, 0, 0), 8, AddressClass::Unspecified),
    (v4(10, 0, 0, 0), 8, AddressClass::Private),
    (v4(100, 64, 0, 0), 10, AddressClass::SharedAddressSpace),
    (v4(127, 0, 0, 0), 8, AddressClass::Loopback),
    (v4(169, 254, 0, 0), 16, AddressClass::LinkLocal),
    (v4(172, 16, 0, 0), 12, AddressClass::Private),
    (v4(192, 0, 0, 0), 24, AddressClass::ProtocolAssignments),
    (v4(192, 0, 2, 0), 24, AddressClass::Documentation),
    (v4(192, 88, 99, 0), 24, AddressClass::SixToFourRelay),
    (v4(192, 168, 0, 0), 16, AddressClass::Private),
    (v4(198, 18, 0, 0), 15, AddressClass::Benchmarking),
    (v4(198, 51, 100, 0), 24, AddressClass::Documentation),
    (v4(203, 0, 113, 0), 24, AddressClass::Documentation),
    (v4(224, 0, 0, 0), 4, AddressClass::Multicast),
    (v4(240, 0, 0, 0), 4, AddressClass::Reserved),
];

/// IPv6 blocks outside `2000::/3` that have a name; the rest of that space
/// (including `100:0:0:1::/64`, the dummy prefix of RFC 9780) is reserved
/// by the IETF: [`AddressClass::Reserved`]. `::ffff:0:0/96` never reaches this table
/// ([`canonical`] unwraps it first). First match wins: `::` and `::1`
/// precede `::/96`.
const SPECIAL_V6_OUTSIDE_GLOBAL: [Block6; 12] = [
    (v6(0, 0, 0, 0, 0, 0, 0, 0), 128, AddressClass::Unspecified),
    (v6(0, 0, 0, 0, 0, 0, 0, 1), 128, AddressClass::Loopback),
    (v6(0, 0, 0, 0, 0, 0, 0, 0), 96, AddressClass::Ipv4Compatible),
    (
        v6(0, 0, 0, 0, 0xffff, 0, 0, 0),
        96,
        AddressClass::Ipv4Translated,
    ),
    (v6(0x64, 0xff9b, 0, 0, 0, 0, 0, 0), 96, AddressClass::Nat64),
    (v6(0x64, 0xff9b, 1, 0, 0, 0, 0, 0), 48, AddressClass::Nat64),
    (v6(0x100, 0, 0, 0, 0, 0, 0, 0), 64, AddressClass::Discard),
    (
        v6(0x5f00, 0, 0, 0, 0, 0, 0, 0),
        16,
        AddressClass::SegmentRouting,
    ),
    (
        v6(0xfc00, 0, 0, 0, 0, 0, 0, 0),
        7,
        AddressClass::UniqueLocal,
    ),
    (v6(0xfe80, 0, 0, 0, 0, 0, 0, 0), 10, AddressClass::LinkLocal),
    (v6(0xfec0, 0, 0, 0, 0, 0, 0, 0), 10, AddressClass::SiteLocal),
    (v6(0xff00, 0, 0, 0, 0, 0, 0, 0), 8, AddressClass::Multicast),
];

/// IPv6 special-purpose blocks inside `2000::/3`. First match wins: Teredo,
/// benchmarking and the globally reachable blocks precede the `2001::/23`
/// that holds them. The registry's AS112 block `2620:4f:8000::/48` is
/// globally reachable and absent.
const SPECIAL_V6_INSIDE_GLOBAL: [Block6; 13] = [
    (v6(0x2001, 0, 0, 0, 0, 0, 0, 0), 32, AddressClass::Teredo),
    (v6(0x2001, 1, 0, 0, 0, 0, 0, 1), 128, AddressClass::Global),
    (v6(0x2001, 1, 0, 0, 0, 0, 0, 2), 128, AddressClass::Global),
    (v6(0x2001, 1, 0, 0, 0, 0, 0, 3), 128, AddressClass::Global),
    (v6(0x2001, 3, 0, 0, 0, 0, 0, 0), 32, AddressClass::Global),
    (
        v6(0x2001, 4, 0x112, 0, 0, 0, 0, 0),
        48,
        AddressClass::Global,
    ),
    (v6(0x2001, 0x20, 0, 0, 0, 0, 0, 0), 28, AddressClass::Global),
    (v6(0x2001, 0x30, 0, 0, 0, 0, 0, 0), 28, AddressClass::Global),
    (
        v6(0x2001, 2, 0, 0, 0, 0, 0, 0),
        48,
        AddressClass::Benchmarking,
    ),
    (
        v6(0x2001, 0, 0, 0, 0, 0, 0, 0),
        23,
        AddressClass::ProtocolAssignments,
    ),
    (
        v6(0x2001, 0xdb8, 0, 0, 0, 0, 0, 0),
        32,
        AddressClass::Documentation,
    ),
    (v6(0x2002, 0, 0, 0, 0, 0, 0, 0), 16, AddressClass::SixToFour),
    (
        v6(0x3fff, 0, 0, 0, 0, 0, 0, 0),
        20,
        AddressClass::Documentation,
    ),
];

/// `2000::/3`: the only IPv6 space IANA allocates for global unicast.
const GLOBAL_UNICAST_V6: (u128, u8) = (v6(0x2000, 0, 0, 0, 0, 0, 0, 0), 3);

const fn v4(a: u8, b: u8, c: u8, d: u8) -> u32 {
    Ipv4Addr::new(a, b, c, d).to_bits()
}

#[allow(clippy::too_many_arguments)] // mirrors Ipv6Addr::new, eight segments
const fn v6(a: u16, b: u16, c: u16, d: u16, e: u16, f: u16, g: u16, h: u16) -> u128 {
    Ipv6Addr::new(a, b, c, d, e, f, g, h).to_bits()
}

fn in_block4(bits: u32, net: u32, prefix: u8) -> bool {
    prefix == 0 || (bits ^ net) >> (32 - u32::from(prefix)) == 0
}

fn in_block6(bits: u128, net: u128, prefix: u8) -> bool {
    prefix == 0 || (bits ^ net) >> (128 - u32::from(prefix)) == 0
}

fn classify_v4(addr: Ipv4Addr) -> AddressClass {
    let bits = addr.to_bits();
    SPECIAL_V4
        .iter()
        .find(|&&(net, prefix, _)| in_block4(bits, net, prefix))
        .map_or(AddressClass::Global, |&(_, _, class)| class)
}

fn classify_v6(addr: Ipv6Addr) -> AddressClass {
    let bits = addr.to_bits();
    let octets = addr.octets();
    if !in_block6(bits, GLOBAL_UNICAST_V6.0, GLOBAL_UNICAST_V6.1) {
        return SPECIAL_V6_OUTSIDE_GLOBAL
            .iter()
            .find(|&&(net, prefix, _)| in_block6(bits, net, prefix))
            .map_or(AddressClass::Reserved, |&(_, _, class)| class);
    }
    if let Some(&(_, _, class)) = SPECIAL_V6_INSIDE_GLOBAL
        .iter()
        .find(|&&(net, prefix, _)| in_block6(bits, net, prefix))
    {
        return class;
    }
    // ISATAP (RFC 5214): interface identifier 00-00-5E-FE or 02-00-5E-FE
    // followed by the IPv4 address; the universal/group bits of the first
    // octet are ignored so that no spelling of it slips through.
    let isatap =
        octets[8] & 0xfc == 0 && octets[9] == 0 && octets[10] == 0x5e && octets[11] == 0xfe;
    if isatap {
        let embedded = Ipv4Addr::new(octets[12], octets[13], octets[14], octets[15]);
        if !classify_v4(embedded).is_global() {
            return AddressClass::Isatap;
        }
    }
    AddressClass::Global
}

#[cfg(test)]
mod tests;
