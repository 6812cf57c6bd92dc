//! Every row of the IANA IPv4 and IPv6 Special-Purpose Address Registries
//! against the address classes: a row the registry marks globally reachable
//! (`True`) is admitted, one marked `False`, `N/A` or left blank is refused.
//! The registries' values are copied in `testdata/` with their provenance.
//!
//! Each row is judged on three of its addresses (the first, the last and
//! one inside), each only when no more specific row of the registry holds
//! it (that row then judges it). Two rows are judged by rule rather than by
//! the column, each for a reason the design gives:
//! - `::ffff:0:0/96` (IPv4-mapped): the connection is made to the mapped
//!   IPv4 address (design §8, "after canonicalizing IPv4-mapped
//!   addresses"), so an address of this row is judged as that address;
//! - `64:ff9b::/96` (NAT64, marked `True`): refused whatever it embeds, as
//!   the SSRF corpus requires; a translator, not rypsok, would reach the
//!   IPv4 address, and the translator's own network sits behind it.
// Helpers outside `#[test]` functions are not covered by clippy.toml's
// test allowance in an integration test crate.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use rypsok_egress::{AddressClass, AddressVerdict, EgressPolicy, canonical, classify};

const IPV4: &str = include_str!("../testdata/iana-ipv4-special-registry.csv");
const IPV6: &str = include_str!("../testdata/iana-ipv6-special-registry.csv");

/// A column of the registry as the CSV spells it.
const ADDRESS_BLOCK: &str = "Address Block";
const GLOBALLY_REACHABLE: &str = "Globally Reachable";

/// One block of one registry row.
#[derive(Debug, Clone)]
struct Row {
    block: String,
    net: IpAddr,
    prefix: u8,
    /// The "Globally Reachable" cell, footnote marks removed.
    reachable: String,
}

/// RFC 4180 records: quoted fields may hold commas, doubled quotes and line
/// breaks. Lines starting with `#` (outside a quoted field) are ours.
fn records(text: &str) -> Vec<Vec<String>> {
    let text: String = text
        .lines()
        .filter(|line| !line.starts_with('#'))
        .map(|line| format!("{line}\n"))
        .collect();
    let mut records = Vec::new();
    let (mut record, mut field) = (Vec::new(), String::new());
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            (true, '"') | (false, '"') => quoted = !quoted,
            (false, ',') => record.push(std::mem::take(&mut field)),
            (false, '\n') => {
                record.push(std::mem::take(&mut field));
                records.push(std::mem::take(&mut record));
            }
            (_, c) => field.push(c),
        }
    }
    assert!(!quoted, "a quoted field is not closed");
    records
}

/// `"False [1]"` → `"False"`; `"192.0.0.0/24 [2]"` → `"192.0.0.0/24"`.
fn without_footnote(cell: &str) -> String {
    cell.split(" [")
        .next()
        .unwrap_or_default()
        .trim()
        .to_owned()
}

fn rows(text: &str) -> Vec<Row> {
    let records = records(text);
    let header = &records[0];
    let column = |name: &str| header.iter().position(|h| h == name).unwrap();
    let (block_at, reach_at) = (column(ADDRESS_BLOCK), column(GLOBALLY_REACHABLE));
    let mut rows = Vec::new();
    for record in &records[1..] {
        assert_eq!(record.len(), header.len(), "row {record:?}");
        let reachable = without_footnote(&record[reach_at]);
        // One cell may list several blocks: "192.0.0.170/32, 192.0.0.171/32".
        for block in record[block_at].split(',') {
            let block = without_footnote(block);
            let (addr, prefix) = block.split_once('/').unwrap();
            rows.push(Row {
                net: addr.parse().unwrap(),
                prefix: prefix.parse().unwrap(),
                block: block.clone(),
                reachable: reachable.clone(),
            });
        }
    }
    rows
}

fn bits(addr: IpAddr) -> (u128, u32) {
    match addr {
        IpAddr::V4(v4) => (u128::from(v4.to_bits()), 32),
        IpAddr::V6(v6) => (v6.to_bits(), 128),
    }
}

fn address(bits: u128, width: u32) -> IpAddr {
    if width == 32 {
        IpAddr::V4(Ipv4Addr::from_bits(u32::try_from(bits).unwrap()))
    } else {
        IpAddr::V6(Ipv6Addr::from_bits(bits))
    }
}

fn contains(row: &Row, addr: IpAddr) -> bool {
    let ((net, width), (bits, other)) = (bits(row.net), bits(addr));
    let host = width - u32::from(row.prefix);
    width == other && (host == width || (net ^ bits) >> host == 0)
}

/// The first address of the block, its last, and one inside whose host
/// bits follow a fixed pattern (0x5a…: no ISATAP marker, an IPv4 tail that
/// is global); one address for a /32 or /128.
fn samples(row: &Row) -> [IpAddr; 3] {
    let (net, width) = bits(row.net);
    let host = width - u32::from(row.prefix);
    let host_mask = if host == 0 {
        0
    } else {
        u128::MAX >> (128 - host)
    };
    let pattern = 0x5a5a_5a5a_5a5a_5a5a_5a5a_5a5a_5a5a_5a5a_u128;
    [
        address(net, width),
        address(net | host_mask, width),
        address(net | (host_mask & pattern), width),
    ]
}

/// Whether rypsok should admit `addr`, judged under `row`.
fn should_admit(row: &Row, addr: IpAddr) -> bool {
    match row.block.as_str() {
        "::ffff:0:0/96" => classify(canonical(addr)).is_global(),
        "64:ff9b::/96" => false,
        _ => row.reachable == "True",
    }
}

fn check(registry: &str) -> (usize, Vec<String>) {
    let rows = rows(registry);
    let policy = EgressPolicy::default();
    let (mut judged, mut failures) = (0, Vec::new());
    for row in &rows {
        assert!(
            ["True", "False", "N/A", ""].contains(&row.reachable.as_str()),
            "{}: unknown value {:?}",
            row.block,
            row.reachable
        );
        let mut addrs = samples(row).to_vec();
        addrs.dedup();
        for addr in addrs {
            let more_specific = rows
                .iter()
                .any(|other| other.prefix > row.prefix && contains(other, addr));
            if more_specific {
                continue;
            }
            judged += 1;
            let want = should_admit(row, addr);
            let class = classify(addr);
            let verdict = policy.judge_addr(addr, 443);
            if class.is_global() != want || (verdict == AddressVerdict::Allowed) != want {
                failures.push(format!(
                    "{} ({:?}): {addr} is {} and {}",
                    row.block,
                    row.reachable,
                    class.as_str(),
                    verdict.as_str()
                ));
            }
        }
    }
    (judged, failures)
}

// Verifies: REQ-SEC-006 (the IANA IPv4 registry's "Globally Reachable" column, row by row)
#[test]
fn every_row_of_the_ipv4_registry_is_judged_as_its_globally_reachable_column_says() {
    let (judged, failures) = check(IPV4);
    assert!(
        failures.is_empty(),
        "rows judged against the registry:\n{}",
        failures.join("\n")
    );
    // 26 blocks, up to three addresses each, less those a more specific
    // row holds.
    assert!(judged >= 50, "only {judged} addresses judged");
}

// Verifies: REQ-SEC-006 (the IANA IPv6 registry's "Globally Reachable" column, row by row)
#[test]
fn every_row_of_the_ipv6_registry_is_judged_as_its_globally_reachable_column_says() {
    let (judged, failures) = check(IPV6);
    assert!(
        failures.is_empty(),
        "rows judged against the registry:\n{}",
        failures.join("\n")
    );
    assert!(judged >= 50, "only {judged} addresses judged");
}

// Verifies: REQ-SEC-006 (the copies hold every row: a truncated file would pass the table tests)
#[test]
fn the_registry_copies_hold_every_row() {
    // 25 rows each; one IPv4 row lists two blocks.
    assert_eq!(rows(IPV4).len(), 26);
    assert_eq!(rows(IPV6).len(), 25);
}

// Verifies: REQ-SEC-006 (6to4 is refused as its own class, whatever IPv4 address it embeds)
#[test]
fn a_6to4_address_is_refused_whatever_it_embeds() {
    for text in [
        "2002:808:808::1",
        "2002:0808:0808::1",
        "2002:101:101:1::",
        "2002:c0a8:101::1",
        "2002::",
        "2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
    ] {
        let addr: IpAddr = text.parse().unwrap();
        assert_eq!(classify(addr), AddressClass::SixToFour, "{text}");
        assert_eq!(
            EgressPolicy::default().judge_addr(addr, 443),
            AddressVerdict::Refused(AddressClass::SixToFour),
            "{text}"
        );
    }
}

// Verifies: REQ-SEC-006 (the AS112 blocks are globally reachable in the registries: admitted)
#[test]
fn the_as112_blocks_are_admitted() {
    for text in [
        "192.31.196.1",
        "192.175.48.6",
        "192.175.48.42",
        "2620:4f:8000::6",
        "2001:4:112::1",
    ] {
        let addr: IpAddr = text.parse().unwrap();
        assert_eq!(
            EgressPolicy::default().judge_addr(addr, 443),
            AddressVerdict::Allowed,
            "{text}"
        );
    }
}
