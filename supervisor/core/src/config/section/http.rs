//! `[http]`: the listener, its token and the browser origins and host names
//! it admits.

use std::net::SocketAddr;

use crate::config::HttpConfig;
use crate::config::reader::{Lookup, Problems, Section};

/// The default listener: loopback, where no token is needed.
const DEFAULT_BIND: &str = "127.0.0.1:8808";

pub(in crate::config) fn http(s: &mut Section<'_>, p: &mut Problems) -> Option<HttpConfig> {
    let bind = match s.string(p, "bind") {
        Lookup::Absent => DEFAULT_BIND.parse::<SocketAddr>().ok(),
        Lookup::Invalid => None,
        Lookup::Found(text) => {
            let bind = text.parse::<SocketAddr>().ok();
            if bind.is_none() {
                p.push(
                    s.key_path("bind"),
                    "expected a socket address such as 127.0.0.1:8808",
                );
            }
            bind
        }
    };
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
    let allowed_origins = s.strings(p, "allowed_origins").or(Vec::new());
    let allowed_hosts = s.strings(p, "allowed_hosts").or(Vec::new());
    Some(HttpConfig {
        bind: bind?,
        auth_token: match auth_token {
            Lookup::Absent => None,
            Lookup::Found(reference) => Some(reference),
            Lookup::Invalid => return None,
        },
        allowed_origins: owned(allowed_origins?),
        allowed_hosts: owned(allowed_hosts?),
    })
}

fn owned(items: Vec<&str>) -> Vec<String> {
    items.into_iter().map(str::to_owned).collect()
}
