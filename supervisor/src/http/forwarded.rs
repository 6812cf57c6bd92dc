//! The client behind a trusted reverse proxy (`[http] trusted_proxies`;
//! REQ-SEC-018).
//!
//! Behind an ingress every caller arrives from the proxy's address, so the
//! per-peer share would cap everyone together. From a peer the operator
//! listed, and only from one, the client address is read from `Forwarded`
//! (RFC 7239), else `X-Forwarded-For`: the nearest address that is not
//! itself a listed proxy, since entries further left are the client's own
//! word. Such a connection is not held to its peer's share; each of its
//! requests holds a place of its client's instead while it runs. From any
//! other peer the headers are ignored.

use std::net::IpAddr;

use http::HeaderMap;
use rypsok_core::config::IpBlock;

/// Whether `peer` is a listed proxy.
pub(super) fn is_trusted(trusted: &[IpBlock], peer: IpAddr) -> bool {
    trusted.iter().any(|block| block.contains(peer))
}

/// The client a trusted proxy names; `peer` when it names none that reads
/// as an address.
pub(super) fn client(headers: &HeaderMap, trusted: &[IpBlock], peer: IpAddr) -> IpAddr {
    let forwarded: Vec<IpAddr> = headers
        .get_all("forwarded")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .filter_map(forwarded_for)
        .collect();
    let chain = if forwarded.is_empty() {
        headers
            .get_all("x-forwarded-for")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .filter_map(|item| parse_node(item.trim()))
            .collect()
    } else {
        forwarded
    };
    chain
        .iter()
        .rev()
        .find(|ip| !is_trusted(trusted, **ip))
        .or_else(|| chain.first())
        .copied()
        .unwrap_or(peer)
}

/// The `for=` address of one `Forwarded` element.
fn forwarded_for(element: &str) -> Option<IpAddr> {
    element.split(';').find_map(|pair| {
        let (key, value) = pair.trim().split_once('=')?;
        key.trim()
            .eq_ignore_ascii_case("for")
            .then(|| parse_node(value.trim().trim_matches('"')))
            .flatten()
    })
}

/// An address, perhaps with a port, an IPv6 one in brackets.
fn parse_node(node: &str) -> Option<IpAddr> {
    if let Ok(ip) = node.parse() {
        return Some(ip);
    }
    if let Some(rest) = node.strip_prefix('[') {
        return rest.split_once(']')?.0.parse().ok();
    }
    node.parse::<std::net::SocketAddr>().ok().map(|a| a.ip())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap_or(IpAddr::from([0, 0, 0, 0]))
    }

    // Verifies: REQ-SEC-018 (the client is the nearest forwarded address that is not a listed proxy; Forwarded before X-Forwarded-For; nothing readable: the peer)
    #[test]
    fn reads_the_client_a_proxy_names() {
        let trusted: Vec<IpBlock> = ["10.0.0.0/8"]
            .iter()
            .filter_map(|t| IpBlock::parse(t))
            .collect();
        let peer = ip("10.0.0.1");
        let mut headers = HeaderMap::new();
        assert_eq!(client(&headers, &trusted, peer), peer);
        headers.insert(
            "x-forwarded-for",
            "203.0.113.9, 198.51.100.7, 10.0.0.5"
                .parse()
                .unwrap_or_else(|_| unreachable!()),
        );
        assert_eq!(client(&headers, &trusted, peer), ip("198.51.100.7"));
        headers.insert(
            "forwarded",
            "for=\"[2001:db8::1]:4711\";proto=https, for=10.0.0.7"
                .parse()
                .unwrap_or_else(|_| unreachable!()),
        );
        assert_eq!(client(&headers, &trusted, peer), ip("2001:db8::1"));
        headers.insert(
            "forwarded",
            "for=unknown".parse().unwrap_or_else(|_| unreachable!()),
        );
        headers.remove("x-forwarded-for");
        assert_eq!(client(&headers, &trusted, peer), peer);
        assert!(is_trusted(&trusted, peer));
        assert!(!is_trusted(&trusted, ip("127.0.0.1")));
    }
}
