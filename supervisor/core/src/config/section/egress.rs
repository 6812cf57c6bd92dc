//! `[egress]`: plain http, allow and deny rules, static host answers (REQ-
//! FETCH-010), the forward proxy and the extra trust anchors (design §8,
//! REQ-RES-008).

use std::net::IpAddr;
use std::path::PathBuf;

use rypsok_egress::{EgressPolicy, EgressRule, StaticHost, parse_host_name, parse_rule};
use toml::Value;

use crate::config::reader::{Lookup, Problems, Section, as_strings, child, indexed};
use crate::config::{EgressConfig, ProxyConfig};

pub(in crate::config) fn egress(s: &mut Section<'_>, p: &mut Problems) -> Option<EgressConfig> {
    let allow_http = s.boolean(p, "allow_http", false);
    let allow = rules(s, p, "allow");
    let deny = rules(s, p, "deny");
    let hosts_path = s.key_path("hosts");
    let hosts = static_hosts(s.value("hosts"), &hosts_path, p);
    let proxy = proxy(s, p);
    let ca_file = match s.string(p, "ca_file") {
        Lookup::Absent => Some(None),
        Lookup::Found("") => {
            p.push(s.key_path("ca_file"), "expected a file path");
            None
        }
        Lookup::Found(path) => Some(Some(PathBuf::from(path))),
        Lookup::Invalid => None,
    };
    Some(EgressConfig {
        allow_http: allow_http?,
        policy: EgressPolicy {
            allow: allow?,
            deny: deny?,
            hosts: hosts?,
            // Filled once the engines are read (`load.rs`).
            endpoints: Vec::new(),
        },
        proxy: proxy?,
        ca_file: ca_file?,
    })
}

/// `proxy = "http://HOST:PORT"` and the keys that only make sense with it.
/// Credentials never sit in the URL: only `proxy_auth_env` or
/// `proxy_auth_file` name them.
fn proxy(s: &mut Section<'_>, p: &mut Problems) -> Option<Option<ProxyConfig>> {
    let url = s.string(p, "proxy");
    let auth = s.secret_ref(p, "proxy_auth_env", "proxy_auth_file");
    let enforces_profile = s.boolean(p, "proxy_enforces_profile", false);
    let url = match url {
        Lookup::Absent => {
            for key in [
                "proxy_auth_env",
                "proxy_auth_file",
                "proxy_enforces_profile",
            ] {
                if s.value(key).is_some() {
                    p.push(s.key_path(key), "needs egress.proxy");
                }
            }
            return matches!(auth, Lookup::Absent).then_some(None);
        }
        Lookup::Found(url) => url,
        Lookup::Invalid => return None,
    };
    let (host, port) = match parse_proxy_url(url) {
        Ok(found) => found,
        Err(message) => {
            p.push(s.key_path("proxy"), message);
            return None;
        }
    };
    let auth = match auth {
        Lookup::Absent => None,
        Lookup::Found(reference) => Some(reference),
        Lookup::Invalid => return None,
    };
    Some(Some(ProxyConfig {
        host,
        port,
        auth,
        enforces_profile: enforces_profile?,
    }))
}

/// `http://HOST:PORT`, nothing else: no credentials, path, query or
/// fragment. Messages are static: the URL is never quoted back.
fn parse_proxy_url(text: &str) -> Result<(String, u16), &'static str> {
    const EXPECTED: &str = "expected http://HOST:PORT";
    let url = url::Url::parse(text).map_err(|_| EXPECTED)?;
    if url.scheme() != "http" {
        return Err("expected an http:// proxy (https is reached through it with CONNECT)");
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err("credentials are refused in the URL; use proxy_auth_env or proxy_auth_file");
    }
    if url.path() != "/" || url.query().is_some() || url.fragment().is_some() {
        return Err(EXPECTED);
    }
    let port = url.port_or_known_default().ok_or(EXPECTED)?;
    let host = match url.host() {
        Some(url::Host::Domain(name)) => parse_host_name(name).ok_or(EXPECTED)?,
        Some(url::Host::Ipv4(v4)) => v4.to_string(),
        Some(url::Host::Ipv6(v6)) => v6.to_string(),
        None => return Err(EXPECTED),
    };
    Ok((host, port))
}

fn rules(s: &mut Section<'_>, p: &mut Problems, key: &'static str) -> Option<Vec<EgressRule>> {
    let path = s.key_path(key);
    let items = s.strings(p, key).or(Vec::new())?;
    let before = p.0.len();
    let mut rules = Vec::with_capacity(items.len());
    for (index, text) in items.into_iter().enumerate() {
        match parse_rule(text) {
            Ok(rule) => rules.push(rule),
            // RuleError's messages are static and never quote the rule.
            Err(error) => p.push(indexed(&path, index), error.to_string()),
        }
    }
    (p.0.len() == before).then_some(rules)
}

/// `[egress.hosts]`: every key is a host name, so none is "unknown".
fn static_hosts(
    value: Option<&Value>,
    hosts_path: &str,
    p: &mut Problems,
) -> Option<Vec<StaticHost>> {
    let table = match value {
        None => return Some(Vec::new()),
        Some(Value::Table(table)) => table,
        Some(_) => {
            p.push(hosts_path, "expected a table");
            return None;
        }
    };
    let before = p.0.len();
    let mut hosts: Vec<StaticHost> = Vec::with_capacity(table.len());
    for (key, value) in table {
        let path = child(hosts_path, key);
        let name = parse_host_name(key);
        match &name {
            None => p.push(path.clone(), "expected a host name"),
            Some(name) if hosts.iter().any(|h| h.name == *name) => {
                p.push(path.clone(), "duplicate host name");
            }
            Some(_) => {}
        }
        let Some(items) = as_strings(value) else {
            p.push(path, "expected an array of strings");
            continue;
        };
        if items.is_empty() {
            p.push(path.clone(), "needs at least one address");
        }
        let mut addrs = Vec::with_capacity(items.len());
        for (index, text) in items.into_iter().enumerate() {
            match text.parse::<IpAddr>() {
                Ok(addr) => addrs.push(addr),
                Err(_) => p.push(indexed(&path, index), "expected an IP address"),
            }
        }
        if let Some(name) = name {
            hosts.push(StaticHost { name, addrs });
        }
    }
    (p.0.len() == before).then_some(hosts)
}

#[cfg(test)]
mod tests {
    use super::parse_proxy_url;

    // Verifies: REQ-RES-008
    #[test]
    fn reads_a_proxy_url_and_refuses_credentials_and_paths_in_it() {
        assert_eq!(
            parse_proxy_url("http://proxy.corp.example:3128"),
            Ok(("proxy.corp.example".to_owned(), 3128))
        );
        assert_eq!(
            parse_proxy_url("http://[fd00::1]:8080/"),
            Ok(("fd00::1".to_owned(), 8080))
        );
        assert_eq!(
            parse_proxy_url("http://10.0.0.1"),
            Ok(("10.0.0.1".to_owned(), 80))
        );
        for bad in [
            "https://proxy.corp.example:3128",
            "socks5://proxy.corp.example:1080",
            "http://user:pass@proxy.corp.example:3128",
            "http://proxy.corp.example:3128/path",
            "proxy.corp.example:3128",
        ] {
            assert!(parse_proxy_url(bad).is_err(), "{bad}");
        }
    }
}
