//! `[metrics]`: the listener an operator's Prometheus scrapes (`GET
//! /metrics`). Off unless `bind` is set; off loopback it needs a token by
//! reference, the rule of the MCP listener (`http`).

use crate::config::MetricsConfig;
use crate::config::reader::{Lookup, Problems, Section};
use crate::config::section::http::{listener_bind, listener_token};

pub(in crate::config) fn metrics(s: &mut Section<'_>, p: &mut Problems) -> Option<MetricsConfig> {
    let bind = match listener_bind(s, p) {
        Lookup::Absent => Some(None),
        Lookup::Found(bind) => Some(Some(bind)),
        Lookup::Invalid => None,
    };
    let auth_token = listener_token(s, p, bind.flatten());
    let bind = bind?;
    Some(MetricsConfig {
        bind,
        auth_token: match auth_token {
            Lookup::Absent => None,
            Lookup::Found(reference) => Some(reference),
            Lookup::Invalid => return None,
        },
    })
}
