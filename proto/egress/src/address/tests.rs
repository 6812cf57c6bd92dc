//! The address classification against its tables, spelling by spelling,
//! and the verdicts that the rules and the classes give together.

use super::*;
use crate::{EgressRule, RulePort, RuleTarget, StaticHost};

use AddressClass as C;

fn ip(text: &str) -> IpAddr {
    text.parse()
        .unwrap_or_else(|_| panic!("test row has a bad address: {text}"))
}

fn check_classes(rows: &[(&str, AddressClass)]) {
    let failures: Vec<String> = rows
        .iter()
        .filter_map(|&(text, want)| {
            let got = classify(ip(text));
            (got != want).then(|| format!("{text}: want {}, got {}", want.as_str(), got.as_str()))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "misclassified:\n{}",
        failures.join("\n")
    );
}

// Verifies: REQ-SEC-006
#[test]
fn classifies_every_ipv4_special_range_boundary() {
    check_classes(&[
        ("0.0.0.0", C::Unspecified),
        ("0.255.255.255", C::Unspecified),
        ("1.0.0.0", C::Global),
        ("9.255.255.255", C::Global),
        ("10.0.0.0", C::Private),
        ("10.255.255.255", C::Private),
        ("11.0.0.0", C::Global),
        ("100.63.255.255", C::Global),
        ("100.64.0.0", C::SharedAddressSpace),
        ("100.127.255.255", C::SharedAddressSpace),
        ("100.128.0.0", C::Global),
        ("126.255.255.255", C::Global),
        ("127.0.0.0", C::Loopback),
        ("127.0.0.1", C::Loopback),
        ("127.255.255.255", C::Loopback),
        ("128.0.0.0", C::Global),
        ("169.253.255.255", C::Global),
        ("169.254.0.0", C::LinkLocal),
        ("169.254.169.254", C::LinkLocal),
        ("169.254.255.255", C::LinkLocal),
        ("169.255.0.0", C::Global),
        ("168.63.129.15", C::Global),
        ("168.63.129.16", C::Metadata),
        ("168.63.129.17", C::Global),
        ("172.15.255.255", C::Global),
        ("172.16.0.0", C::Private),
        ("172.31.255.255", C::Private),
        ("172.32.0.0", C::Global),
        ("191.255.255.255", C::Global),
        ("192.0.0.0", C::ProtocolAssignments),
        ("192.0.0.8", C::ProtocolAssignments),
        ("192.0.0.9", C::Global),
        ("192.0.0.10", C::Global),
        ("192.0.0.11", C::ProtocolAssignments),
        ("192.0.0.170", C::ProtocolAssignments),
        ("192.0.0.255", C::ProtocolAssignments),
        ("192.0.1.0", C::Global),
        ("192.0.1.255", C::Global),
        ("192.0.2.0", C::Documentation),
        ("192.0.2.255", C::Documentation),
        ("192.0.3.0", C::Global),
        ("192.31.195.255", C::Global),
        ("192.31.196.0", C::Global),
        ("192.31.196.255", C::Global),
        ("192.31.197.0", C::Global),
        ("192.52.192.255", C::Global),
        ("192.52.193.0", C::Global),
        ("192.52.193.255", C::Global),
        ("192.52.194.0", C::Global),
        ("192.88.98.255", C::Global),
        ("192.88.99.0", C::SixToFourRelay),
        ("192.88.99.255", C::SixToFourRelay),
        ("192.88.100.0", C::Global),
        ("192.167.255.255", C::Global),
        ("192.168.0.0", C::Private),
        ("192.168.255.255", C::Private),
        ("192.169.0.0", C::Global),
        ("192.175.47.255", C::Global),
        ("192.175.48.0", C::Global),
        ("192.175.48.255", C::Global),
        ("192.175.49.0", C::Global),
        ("198.17.255.255", C::Global),
        ("198.18.0.0", C::Benchmarking),
        ("198.19.255.255", C::Benchmarking),
        ("198.20.0.0", C::Global),
        ("198.51.99.255", C::Global),
        ("198.51.100.0", C::Documentation),
        ("198.51.100.255", C::Documentation),
        ("198.51.101.0", C::Global),
        ("203.0.112.255", C::Global),
        ("203.0.113.0", C::Documentation),
        ("203.0.113.255", C::Documentation),
        ("203.0.114.0", C::Global),
        ("223.255.255.255", C::Global),
        ("224.0.0.0", C::Multicast),
        ("239.255.255.255", C::Multicast),
        ("240.0.0.0", C::Reserved),
        ("255.255.255.254", C::Reserved),
        ("255.255.255.255", C::Broadcast),
        ("8.8.8.8", C::Global),
        ("1.1.1.1", C::Global),
    ]);
}

// Verifies: REQ-SEC-006
#[test]
fn classifies_every_ipv6_special_range_boundary() {
    check_classes(&[
        ("::", C::Unspecified),
        ("::1", C::Loopback),
        ("::2", C::Ipv4Compatible),
        ("::127.0.0.1", C::Ipv4Compatible),
        ("::ffff:ffff", C::Ipv4Compatible),
        ("::1:0:0", C::Reserved),
        ("::fffe:ffff:ffff", C::Reserved),
        ("::ffff:0:0:0", C::Ipv4Translated),
        ("::ffff:0:127.0.0.1", C::Ipv4Translated),
        ("::ffff:0:ffff:ffff", C::Ipv4Translated),
        ("::1:0:0:0", C::Reserved),
        ("64:ff9a:ffff:ffff:ffff:ffff:ffff:ffff", C::Reserved),
        ("64:ff9b::", C::Nat64),
        ("64:ff9b::ffff:ffff", C::Nat64),
        ("64:ff9b::1:0:0", C::Reserved),
        ("64:ff9b:1::", C::Nat64),
        ("64:ff9b:1:ffff:ffff:ffff:ffff:ffff", C::Nat64),
        ("64:ff9b:2::", C::Reserved),
        ("ff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", C::Reserved),
        ("100::", C::Discard),
        ("100::ffff:ffff:ffff:ffff", C::Discard),
        ("100:0:0:1::", C::Reserved),
        ("1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", C::Reserved),
        ("2000::", C::Global),
        ("2000:ffff:ffff:ffff:ffff:ffff:ffff:ffff", C::Global),
        ("2001::", C::Teredo),
        ("2001:0:ffff:ffff:ffff:ffff:ffff:ffff", C::Teredo),
        ("2001:1::", C::ProtocolAssignments),
        ("2001:1::1", C::Global),
        ("2001:1::3", C::Global),
        ("2001:1::4", C::ProtocolAssignments),
        (
            "2001:1:ffff:ffff:ffff:ffff:ffff:ffff",
            C::ProtocolAssignments,
        ),
        ("2001:2::", C::Benchmarking),
        ("2001:2:0:ffff:ffff:ffff:ffff:ffff", C::Benchmarking),
        ("2001:2:1::", C::ProtocolAssignments),
        ("2001:3::", C::Global),
        ("2001:4::", C::ProtocolAssignments),
        ("2001:4:112::1", C::Global),
        ("2001:10::1", C::ProtocolAssignments),
        ("2001:20::1", C::Global),
        ("2001:3f:ffff::1", C::Global),
        ("2001:40::", C::ProtocolAssignments),
        (
            "2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff",
            C::ProtocolAssignments,
        ),
        ("2001:200::", C::Global),
        ("2001:db7:ffff:ffff:ffff:ffff:ffff:ffff", C::Global),
        ("2001:db8::", C::Documentation),
        ("2001:db8:ffff:ffff:ffff:ffff:ffff:ffff", C::Documentation),
        ("2001:db9::", C::Global),
        ("2001:ffff:ffff:ffff:ffff:ffff:ffff:ffff", C::Global),
        ("2002::", C::SixToFour),
        ("2002:7f00:1::1", C::SixToFour),
        ("2002:c0a8:101::1", C::SixToFour),
        ("2002:a9fe:a9fe::1", C::SixToFour),
        ("2002:808:808::1", C::SixToFour),
        ("2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff", C::SixToFour),
        ("2003::", C::Global),
        ("2620:4f:7fff:ffff:ffff:ffff:ffff:ffff", C::Global),
        ("2620:4f:8000::", C::Global),
        ("2620:4f:8000:ffff:ffff:ffff:ffff:ffff", C::Global),
        ("2620:4f:8001::", C::Global),
        ("3ffe:ffff::1", C::Global),
        ("3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff", C::Global),
        ("3fff::", C::Documentation),
        ("3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff", C::Documentation),
        ("3fff:1000::", C::Global),
        ("3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", C::Global),
        ("4000::", C::Reserved),
        ("5eff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", C::Reserved),
        ("5f00::", C::SegmentRouting),
        ("5f00:ffff:ffff:ffff:ffff:ffff:ffff:ffff", C::SegmentRouting),
        ("5f01::", C::Reserved),
        ("fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", C::Reserved),
        ("fc00::", C::UniqueLocal),
        ("fd00:ec2::254", C::UniqueLocal),
        ("fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", C::UniqueLocal),
        ("fe00::", C::Reserved),
        ("fe7f:ffff:ffff:ffff:ffff:ffff:ffff:ffff", C::Reserved),
        ("fe80::", C::LinkLocal),
        ("febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff", C::LinkLocal),
        ("fec0::", C::SiteLocal),
        ("feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", C::SiteLocal),
        ("ff00::", C::Multicast),
        ("ff02::1", C::Multicast),
        ("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", C::Multicast),
        ("2606:4700::1111", C::Global),
        ("2001:4860:4860::8888", C::Global),
    ]);
}

// Verifies: REQ-SEC-006
#[test]
fn judges_embedded_ipv4_of_every_transition_encoding() {
    check_classes(&[
        // IPv4-mapped: canonicalised, then judged as IPv4.
        ("::ffff:127.0.0.1", C::Loopback),
        ("::ffff:0.0.0.0", C::Unspecified),
        ("::ffff:10.0.0.1", C::Private),
        ("::ffff:169.254.169.254", C::LinkLocal),
        ("::ffff:168.63.129.16", C::Metadata),
        ("::ffff:255.255.255.255", C::Broadcast),
        ("::ffff:8.8.8.8", C::Global),
        ("::ffff:1.1.1.1", C::Global),
        // NAT64: refused whatever the embedded address.
        ("64:ff9b::10.0.0.1", C::Nat64),
        ("64:ff9b::127.0.0.1", C::Nat64),
        ("64:ff9b::8.8.8.8", C::Nat64),
        ("64:ff9b:1:ffff::a00:1", C::Nat64),
        // Teredo: refused outright (server 65.54.227.120, client obfuscated).
        ("2001:0:4136:e378:8000:63bf:3fff:fdd2", C::Teredo),
        ("2001:0:4136:e378:8000:63bf:f5ff:fffe", C::Teredo),
        // 6to4: refused whatever the IPv4 address in bits 16..48.
        ("2002:c0a8:101::", C::SixToFour),
        ("2002:a00:1::1", C::SixToFour),
        ("2002:6440:1::1", C::SixToFour),
        ("2002:e000:1::1", C::SixToFour),
        ("2002:101:101::1", C::SixToFour),
        // ISATAP: 0000:5efe or 0200:5efe (u/g bits ignored) then IPv4.
        ("2600:1f18::5efe:7f00:1", C::Isatap),
        ("2600:1f18::5efe:10.0.0.1", C::Isatap),
        ("2600:1f18::200:5efe:192.168.1.1", C::Isatap),
        ("2600:1f18::300:5efe:172.16.0.1", C::Isatap),
        ("2600:1f18::100:5efe:169.254.1.1", C::Isatap),
        ("2600:1f18::5efe:8.8.8.8", C::Global),
        ("2600:1f18::200:5efe:8.8.8.8", C::Global),
        ("2600:1f18::5eff:7f00:1", C::Global),
        ("2600:1f18::400:5efe:7f00:1", C::Global),
        ("2002:808:808::5efe:7f00:1", C::SixToFour),
        ("fe80::5efe:8.8.8.8", C::LinkLocal),
    ]);
}

// Verifies: REQ-SEC-006
#[test]
fn canonicalises_only_ipv4_mapped_addresses() {
    let rows = [
        ("::ffff:127.0.0.1", "127.0.0.1"),
        ("::ffff:8.8.8.8", "8.8.8.8"),
        ("8.8.8.8", "8.8.8.8"),
        ("::127.0.0.1", "::127.0.0.1"),
        ("::ffff:0:127.0.0.1", "::ffff:0:127.0.0.1"),
        ("64:ff9b::127.0.0.1", "64:ff9b::127.0.0.1"),
        ("2606:4700::1111", "2606:4700::1111"),
    ];
    for (input, want) in rows {
        assert_eq!(canonical(ip(input)), ip(want), "row {input}");
    }
}

// Verifies: REQ-SEC-016
#[test]
fn class_names_are_unique_snake_case_and_only_global_is_global() {
    let mut seen = std::collections::HashSet::new();
    for class in AddressClass::ALL {
        let name = class.as_str();
        assert!(seen.insert(name), "duplicate name {name}");
        assert!(
            name.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'),
            "{name} is not snake_case"
        );
        assert_eq!(class.is_global(), class == C::Global, "{name}");
    }
}

fn net(text: &str, prefix: u8, port: RulePort) -> EgressRule {
    EgressRule {
        target: RuleTarget::Net {
            addr: ip(text),
            prefix,
        },
        port,
    }
}

fn host(name: &str, port: RulePort) -> EgressRule {
    EgressRule {
        target: RuleTarget::Host(name.to_owned()),
        port,
    }
}

fn suffix(name: &str, port: RulePort) -> EgressRule {
    EgressRule {
        target: RuleTarget::Suffix(name.to_owned()),
        port,
    }
}

fn policy(allow: Vec<EgressRule>, deny: Vec<EgressRule>) -> EgressPolicy {
    EgressPolicy {
        allow,
        deny,
        hosts: Vec::<StaticHost>::new(),
        endpoints: Vec::new(),
    }
}

// Verifies: REQ-SEC-006
#[test]
fn judges_addresses_deny_then_allow_then_class_then_port() {
    use AddressVerdict as V;
    let none = policy(vec![], vec![]);
    let allow_loopback_8080 = policy(vec![net("127.0.0.1", 32, RulePort::Port(8080))], vec![]);
    let allow_loopback_any = policy(vec![net("127.0.0.0", 8, RulePort::Any)], vec![]);
    let allow_public_8443 = policy(vec![net("8.8.8.8", 32, RulePort::Port(8443))], vec![]);
    let deny_google_dns = policy(vec![], vec![net("8.8.8.0", 24, RulePort::Any)]);
    let deny_and_allow = policy(
        vec![net("8.8.8.8", 32, RulePort::Any)],
        vec![net("8.8.8.8", 32, RulePort::Any)],
    );
    let deny_v6 = policy(vec![], vec![net("2606:4700::", 32, RulePort::Default)]);
    let rows: [(&str, &EgressPolicy, &str, u16, AddressVerdict); 22] = [
        ("public 443", &none, "8.8.8.8", 443, V::Allowed),
        ("public 80", &none, "8.8.8.8", 80, V::Allowed),
        ("public v6", &none, "2606:4700::1111", 443, V::Allowed),
        ("public mapped", &none, "::ffff:1.1.1.1", 443, V::Allowed),
        (
            "public port 8080",
            &none,
            "8.8.8.8",
            8080,
            V::PortNotAllowed,
        ),
        (
            "public port 22",
            &none,
            "2606:4700::1111",
            22,
            V::PortNotAllowed,
        ),
        ("loopback", &none, "127.0.0.1", 443, V::Refused(C::Loopback)),
        (
            "loopback odd port: class first",
            &none,
            "127.0.0.1",
            22,
            V::Refused(C::Loopback),
        ),
        (
            "mapped loopback",
            &none,
            "::ffff:127.0.0.1",
            80,
            V::Refused(C::Loopback),
        ),
        (
            "nat64 of 10.0.0.1",
            &none,
            "64:ff9b::10.0.0.1",
            443,
            V::Refused(C::Nat64),
        ),
        (
            "6to4 of 192.168.1.1",
            &none,
            "2002:c0a8:101::1",
            443,
            V::Refused(C::SixToFour),
        ),
        (
            "teredo",
            &none,
            "2001:0:4136:e378:8000:63bf:3fff:fdd2",
            443,
            V::Refused(C::Teredo),
        ),
        (
            "isatap private",
            &none,
            "2600:1f18::5efe:10.0.0.1",
            443,
            V::Refused(C::Isatap),
        ),
        (
            "allow loopback 8080",
            &allow_loopback_8080,
            "127.0.0.1",
            8080,
            V::AllowedByRule,
        ),
        (
            "allow loopback other port",
            &allow_loopback_8080,
            "127.0.0.1",
            8081,
            V::Refused(C::Loopback),
        ),
        (
            "allow mapped spelling",
            &allow_loopback_any,
            "::ffff:127.0.0.2",
            9000,
            V::AllowedByRule,
        ),
        (
            "allow public odd port",
            &allow_public_8443,
            "8.8.8.8",
            8443,
            V::AllowedByRule,
        ),
        (
            "deny public",
            &deny_google_dns,
            "8.8.8.8",
            443,
            V::DeniedByRule,
        ),
        (
            "deny mapped spelling",
            &deny_google_dns,
            "::ffff:8.8.8.8",
            443,
            V::DeniedByRule,
        ),
        (
            "deny beats allow",
            &deny_and_allow,
            "8.8.8.8",
            443,
            V::DeniedByRule,
        ),
        (
            "deny v6 default port",
            &deny_v6,
            "2606:4700::1111",
            443,
            V::DeniedByRule,
        ),
        (
            "deny without a port, other port",
            &deny_v6,
            "2606:4700::1111",
            8080,
            V::DeniedByRule,
        ),
    ];
    for (row, policy, addr, port, want) in rows {
        assert_eq!(policy.judge_addr(ip(addr), port), want, "row {row:?}");
    }
}

// Verifies: REQ-SEC-006
#[test]
fn judges_names_by_rule_and_resolved_answers_by_name_then_address() {
    use AddressVerdict as V;
    let p = policy(
        vec![
            suffix("corp.example", RulePort::Default),
            host("wiki.example", RulePort::Any),
        ],
        vec![
            host("evil.example", RulePort::Any),
            net("10.9.0.0", 16, RulePort::Any),
        ],
    );
    assert_eq!(p.judge_name("evil.example", 443), Some(V::DeniedByRule));
    assert_eq!(p.judge_name("a.corp.example", 443), Some(V::AllowedByRule));
    assert_eq!(
        p.judge_name("a.corp.example", 8080),
        None,
        "suffix rule covers LIM-F8 only"
    );
    assert_eq!(p.judge_name("example.org", 443), None);

    let rows: [(&str, &str, u16, AddressVerdict); 7] = [
        ("evil.example", "8.8.8.8", 443, V::DeniedByRule),
        ("a.corp.example", "10.1.2.3", 443, V::AllowedByRule),
        ("a.corp.example", "10.9.0.1", 443, V::DeniedByRule),
        ("wiki.example", "127.0.0.1", 8080, V::AllowedByRule),
        ("example.org", "10.1.2.3", 443, V::Refused(C::Private)),
        ("example.org", "8.8.8.8", 443, V::Allowed),
        ("example.org", "8.8.8.8", 8080, V::PortNotAllowed),
    ];
    for (name, addr, port, want) in rows {
        assert_eq!(
            p.judge_resolved(name, ip(addr), port),
            want,
            "row {name} {addr}:{port}"
        );
    }
}

/// Literal-address rows of the shared SSRF corpus, as the WHATWG parser
/// leaves their host (`whatwg_host[:port]`), with the corpus verdict.
/// Provenance: corpora/ssrf-urls.tsv (PayloadsAllTheThings, WPT
/// urltestdata.json, rypsok research).
const CORPUS_LITERALS: [(&str, bool); 65] = [
    ("127.0.0.1", false),
    ("168.63.129.16", false),
    ("127.0.0.1:22", false),
    ("0.0.0.0", false),
    ("0.0.0.0:22", false),
    ("[::]", false),
    ("[::1]", false),
    ("[::ffff:7f00:1]", false),
    ("127.127.127.127", false),
    ("127.0.1.3", false),
    ("127.0.0.0", false),
    ("192.168.0.1", false),
    ("192.168.1.1", false),
    ("169.254.169.254", false),
    ("[fd00:ec2::254]", false),
    ("169.254.170.2", false),
    ("100.100.100.200", false),
    ("192.0.0.192", false),
    ("127.0.0.1:2379", false),
    ("127.0.0.1:2375", false),
    ("1.2.3.4", true),
    ("0.0.1.0", false),
    ("59.154.201.255", true),
    ("255.255.255.255", false),
    ("[::7f00:1]", false),
    ("[::d01:4403]", false),
    ("127.0.0.1:443", false),
    ("10.0.0.1", false),
    ("172.16.0.1", false),
    ("100.127.255.255", false),
    ("198.19.255.255", false),
    ("198.51.100.7", false),
    ("192.0.0.1", false),
    ("192.0.0.170", false),
    ("224.0.0.1", false),
    ("240.0.0.1", false),
    ("255.255.255.254", false),
    ("172.15.255.255", true),
    ("100.63.255.255", true),
    ("198.17.255.255", true),
    ("169.253.255.255", true),
    ("192.0.1.1", true),
    ("11.0.0.1", true),
    ("8.8.8.8", true),
    ("9.255.255.255", true),
    ("128.0.0.1", true),
    ("192.169.0.1", true),
    ("[::ffff:a9fe:a9fe]", false),
    ("[::ffff:a00:1]", false),
    ("[::ffff:0:7f00:1]", false),
    ("[64:ff9b::7f00:1]", false),
    ("[64:ff9b::808:808]", false),
    ("[64:ff9b:1:ffff::a00:1]", false),
    ("[2002:a9fe:a9fe::1]", false),
    ("[2001:0:4136:e378:8000:63bf:3fff:fdd2]", false),
    ("[2001:2::1]", false),
    ("[3fff::1]", false),
    ("[5f00::1]", false),
    ("[100:0:0:1::1]", false),
    ("[fd12:3456:789a::1]", false),
    ("[febf:ffff::1]", false),
    ("[fec0::1]", false),
    ("[ff05::1:3]", false),
    ("[2600:1f18::5efe:7f00:1]", false),
    ("[2001:4860:4860::8888]", true),
];

// Verifies: REQ-SEC-006
#[test]
fn agrees_with_the_literal_rows_of_the_ssrf_corpus() {
    let none = EgressPolicy::default();
    let mut failures = Vec::new();
    for (host_port, want_allowed) in CORPUS_LITERALS
        .iter()
        .copied()
        .chain([("[3ffe:ffff::1]", true), ("[::ffff:101:101]", true)])
    {
        let (host, port) = match host_port.rsplit_once(']') {
            Some((h, rest)) => (h.trim_start_matches('['), rest.strip_prefix(':')),
            None => match host_port.split_once(':') {
                Some((h, p)) => (h, Some(p)),
                None => (host_port, None),
            },
        };
        let port = port.map_or(443, |p| p.parse().expect("corpus port"));
        let verdict = none.judge_addr(ip(host), port);
        if verdict.is_allowed() != want_allowed {
            failures.push(format!("{host_port}: got {}", verdict.as_str()));
        }
    }
    assert!(
        failures.is_empty(),
        "corpus rows disagree:\n{}",
        failures.join("\n")
    );
}
