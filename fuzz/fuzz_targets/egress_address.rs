//! Address classification and the egress rules (REQ-SEC-023, REQ-SEC-006,
//! REQ-SEC-007). Bytes become an IPv4 or IPv6 address, a port and an
//! operator rule. Checked against a simple reference: an IPv4-mapped
//! address is classified and judged as its IPv4 address (with and without
//! the rule as allow or deny); `64:ff9b::/96` and `64:ff9b:1::/48` are
//! NAT64, `2001::/32` Teredo and `2002::/16` 6to4, whatever they embed;
//! `::a.b.c.d` is never global;
//! only `2000::/3` holds global IPv6. Under no rule the verdict is
//! `allowed` exactly for a global address on a LIM-F8 port. An address
//! reads back from its text, and judging twice gives the same verdict.
#![no_main]

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use libfuzzer_sys::fuzz_target;
use rypsok_egress::{
    AddressClass, AddressVerdict, DEFAULT_PORTS, EgressPolicy, classify, parse_rule,
};

fn policies(rule: Option<&str>) -> Vec<EgressPolicy> {
    let mut all = vec![EgressPolicy::default()];
    if let Some(Ok(rule)) = rule.map(parse_rule) {
        all.push(EgressPolicy {
            allow: vec![rule.clone()],
            ..EgressPolicy::default()
        });
        all.push(EgressPolicy {
            deny: vec![rule],
            ..EgressPolicy::default()
        });
    }
    all
}

fn check_v4(v4: Ipv4Addr, port: u16, rule: Option<&str>) {
    let class = classify(IpAddr::V4(v4));
    let mapped = IpAddr::V6(v4.to_ipv6_mapped());
    assert_eq!(classify(mapped), class, "{mapped}");
    for policy in policies(rule) {
        assert_eq!(
            policy.judge_addr(mapped, port),
            policy.judge_addr(IpAddr::V4(v4), port),
            "{v4} as {mapped} under {policy:?}"
        );
    }
    // NAT64, Teredo and 6to4 refuse whatever they carry.
    let [a, b, c, d] = v4.octets();
    let (hi, lo) = (u16::from_be_bytes([a, b]), u16::from_be_bytes([c, d]));
    let nat64 = Ipv6Addr::new(0x64, 0xff9b, 0, 0, 0, 0, hi, lo);
    assert_eq!(classify(IpAddr::V6(nat64)), AddressClass::Nat64);
    let nat64_local = Ipv6Addr::new(0x64, 0xff9b, 1, hi, lo, 0, 0, 0);
    assert_eq!(classify(IpAddr::V6(nat64_local)), AddressClass::Nat64);
    let teredo = Ipv6Addr::new(0x2001, 0, hi, lo, 0, 0, !hi, !lo);
    assert_eq!(classify(IpAddr::V6(teredo)), AddressClass::Teredo);
    let six_to_four = Ipv6Addr::new(0x2002, hi, lo, 0, 0, 0, 0, 1);
    assert_eq!(
        classify(IpAddr::V6(six_to_four)),
        AddressClass::SixToFour,
        "{six_to_four}"
    );
    let compatible = Ipv6Addr::new(0, 0, 0, 0, 0, 0, hi, lo);
    assert!(
        !classify(IpAddr::V6(compatible)).is_global(),
        "{compatible}"
    );
}

fn check_any(addr: IpAddr, port: u16, rule: Option<&str>) {
    let class = classify(addr);
    assert_eq!(addr.to_string().parse::<IpAddr>(), Ok(addr));
    if let (IpAddr::V6(v6), true) = (addr, class.is_global()) {
        if v6.to_ipv4_mapped().is_none() {
            assert_eq!(v6.segments()[0] >> 13, 1, "{v6} is global outside 2000::/3");
        }
    }
    if let IpAddr::V6(v6) = addr {
        if v6.segments()[0] == 0x2002 {
            assert_eq!(class, AddressClass::SixToFour, "{v6}");
        }
    }
    let plain = EgressPolicy::default().judge_addr(addr, port);
    let expected = if !class.is_global() {
        AddressVerdict::Refused(class)
    } else if DEFAULT_PORTS.contains(&port) {
        AddressVerdict::Allowed
    } else {
        AddressVerdict::PortNotAllowed
    };
    assert_eq!(plain, expected, "{addr} port {port}");
    for policy in policies(rule) {
        assert_eq!(policy.judge_addr(addr, port), policy.judge_addr(addr, port));
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let width = if mode & 1 == 0 { 4 } else { 16 };
    if rest.len() < width + 2 {
        return;
    }
    let (addr, rest) = rest.split_at(width);
    let port = u16::from_be_bytes([rest[0], rest[1]]);
    let rule = std::str::from_utf8(&rest[2..])
        .ok()
        .filter(|r| !r.is_empty());
    let addr = match <[u8; 4]>::try_from(addr) {
        Ok(v4) => IpAddr::V4(Ipv4Addr::from(v4)),
        Err(_) => IpAddr::V6(Ipv6Addr::from(
            <[u8; 16]>::try_from(addr).unwrap_or([0; 16]),
        )),
    };
    check_any(addr, port, rule);
    match addr {
        IpAddr::V4(v4) => check_v4(v4, port, rule),
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                check_v4(v4, port, rule);
            }
        }
    }
});
