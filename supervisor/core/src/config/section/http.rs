//! `[http]`: the listener, its token, the browser origins and host names
//! it admits, and the reverse proxies whose forwarding headers it reads.

use std::net::SocketAddr;

use crate::config::reader::{Lookup, Problems, Section};
use crate::config::{HttpConfig, IpBlock, SecretRef};

/// The default listener: loopback, where no token is needed.
const DEFAULT_BIND: &str = "127.0.0.1:8808";

pub(in crate::config) fn http(s: &mut Section<'_>, p: &mut Problems) -> Option<HttpConfig> {
    let bind = match listener_bind(s, p) {
        Lookup::Absent => DEFAULT_BIND.parse::<SocketAddr>().ok(),
        Lookup::Invalid => None,
        Lookup::Found(bind) => Some(bind),
    };
    let auth_token = listener_token(s, p, bind);
    let allowed_origins = s.strings(p, "allowed_origins").or(Vec::new());
    let allowed_hosts = s.strings(p, "allowed_hosts").or(Vec::new());
    let trusted_proxies = s.strings(p, "trusted_proxies").or(Vec::new());
    let trusted_proxies: Option<Vec<IpBlock>> = trusted_proxies.and_then(|items| {
        let blocks: Vec<Option<IpBlock>> = items.iter().map(|t| IpBlock::parse(t)).collect();
        if blocks.iter().any(Option::is_none) {
            p.push(
                s.key_path("trusted_proxies"),
                "expected addresses or CIDR blocks such as 10.0.0.0/8",
            );
            return None;
        }
        Some(blocks.into_iter().flatten().collect())
    });
    Some(HttpConfig {
        bind: bind?,
        auth_token: match auth_token {
            Lookup::Absent => None,
            Lookup::Found(reference) => Some(reference),
            Lookup::Invalid => return None,
        },
        allowed_origins: owned(allowed_origins?),
        allowed_hosts: owned(allowed_hosts?),
        trusted_proxies: trusted_proxies?,
    })
}

/// A listener's `bind`: a socket address.
pub(in crate::config) fn listener_bind(
    s: &mut Section<'_>,
    p: &mut Problems,
) -> Lookup<SocketAddr> {
    match s.string(p, "bind") {
        Lookup::Absent => Lookup::Absent,
        Lookup::Invalid => Lookup::Invalid,
        Lookup::Found(text) => match text.parse::<SocketAddr>() {
            Ok(bind) => Lookup::Found(bind),
            Err(_) => {
                p.push(
                    s.key_path("bind"),
                    "expected a socket address such as 127.0.0.1:8808",
                );
                Lookup::Invalid
            }
        },
    }
}

/// A listener's token reference (`auth_token_env` / `auth_token_file`),
/// required off loopback: the rule every listener of rypsok follows.
pub(in crate::config) fn listener_token(
    s: &mut Section<'_>,
    p: &mut Problems,
    bind: Option<SocketAddr>,
) -> Lookup<SecretRef> {
    let auth_token = s.secret_ref(p, "auth_token_env", "auth_token_file");
    let token_given = !matches!(auth_token, Lookup::Absent);
    if let Some(bind) = bind
        && !bind.ip().is_loopback()
        && !token_given
    {
        p.push(
            s.key_path("bind"),
            "a non-loopback bind needs auth_token_env or auth_token_file",
        );
    }
    auth_token
}

fn owned(items: Vec<&str>) -> Vec<String> {
    items.into_iter().map(str::to_owned).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    // Verifies: REQ-SEC-018 (a trusted proxy is an address or a CIDR block; anything else is refused)
    #[test]
    fn reads_address_blocks() {
        let block = IpBlock::parse("10.1.0.0/16");
        assert!(block.is_some_and(|b| b.contains("10.1.200.3".parse().unwrap_or(DEFAULT_IP))));
        assert!(block.is_some_and(|b| !b.contains("10.2.0.1".parse().unwrap_or(DEFAULT_IP))));
        assert!(block.is_some_and(|b| b.contains("::ffff:10.1.0.9".parse().unwrap_or(DEFAULT_IP))));
        let one = IpBlock::parse("127.0.0.2");
        assert!(one.is_some_and(|b| b.contains("127.0.0.2".parse().unwrap_or(DEFAULT_IP))));
        assert!(one.is_some_and(|b| !b.contains("127.0.0.1".parse().unwrap_or(DEFAULT_IP))));
        let v6 = IpBlock::parse("fd00::/8");
        assert!(v6.is_some_and(|b| b.contains("fd12::1".parse().unwrap_or(DEFAULT_IP))));
        assert!(v6.is_some_and(|b| !b.contains("10.0.0.1".parse().unwrap_or(DEFAULT_IP))));
        assert!(IpBlock::parse("0.0.0.0/0").is_some_and(|b| b.contains(DEFAULT_IP)));
        for bad in ["10.0.0.0/33", "10.0.0.0/", "example.org", "10.0.0.0/+8", ""] {
            assert!(IpBlock::parse(bad).is_none(), "{bad}");
        }
    }

    const DEFAULT_IP: std::net::IpAddr =
        std::net::IpAddr::V4(std::net::Ipv4Addr::new(192, 0, 2, 1));
}
