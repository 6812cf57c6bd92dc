//! `[egress]`: plain http, allow and deny rules, static host answers (REQ-
//! FETCH-010).

use std::net::IpAddr;

use rypsok_egress::{EgressPolicy, EgressRule, StaticHost, parse_host_name, parse_rule};
use toml::Value;

use crate::config::EgressConfig;
use crate::config::reader::{Problems, Section, as_strings, child, indexed};

pub(in crate::config) fn egress(s: &mut Section<'_>, p: &mut Problems) -> Option<EgressConfig> {
    let allow_http = s.boolean(p, "allow_http", false);
    let allow = rules(s, p, "allow");
    let deny = rules(s, p, "deny");
    let hosts_path = s.key_path("hosts");
    let hosts = static_hosts(s.value("hosts"), &hosts_path, p);
    Some(EgressConfig {
        allow_http: allow_http?,
        policy: EgressPolicy {
            allow: allow?,
            deny: deny?,
            hosts: hosts?,
            // Filled once the engines are read (`load.rs`).
            endpoints: Vec::new(),
        },
    })
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
