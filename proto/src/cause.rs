//! Why an engine's request failed, in words an operator can act on
//! (REQ-ERR-002; the "all_failed names each engine's class" decision): the
//! one closed vocabulary that `all_failed`'s detail, the `engine_result`
//! and `fetch_result` log lines and `check --online` share. Finer than the
//! notices' engine error classes, which the contract fixes: "the name did
//! not resolve", "the key was refused" and "the provider rate-limited us"
//! read differently here.

use serde::{Deserialize, Serialize};

use crate::message::{EngineFailure, NetFailure};

/// The cause of one failed request. Never carries peer text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureCause {
    /// The name did not resolve (or the egress policy refused every
    /// address, which callers are answered exactly alike).
    Resolve,
    /// No address accepted a connection.
    Connect,
    /// The TLS handshake failed (an unknown CA, a wrong name).
    Tls,
    /// The deadline passed.
    Timeout,
    /// The peer broke HTTP, or the request could not be formed.
    Protocol,
    /// The engine answered an error status that says nothing more.
    HttpStatus,
    /// The engine refused the key (401/403 with a credential).
    Auth,
    /// The engine asked us to slow down.
    RateLimit,
    /// The engine blocked the request (a challenge page, 403 without a key).
    Blocked,
    /// The answer could not be read, or was larger than its bound.
    Parse,
    /// The configured proxy did not accept a connection.
    ProxyConnect,
    /// The configured proxy asked for credentials, or refused them (407).
    ProxyAuth,
    /// The configured proxy refused the tunnel with another status (502,
    /// 403, ...).
    ProxyStatus,
    /// rypsok's own worker failed.
    Internal,
}

impl FailureCause {
    /// Every cause, in declaration order.
    pub const ALL: [FailureCause; 14] = [
        Self::Resolve,
        Self::Connect,
        Self::Tls,
        Self::Timeout,
        Self::Protocol,
        Self::HttpStatus,
        Self::Auth,
        Self::RateLimit,
        Self::Blocked,
        Self::Parse,
        Self::ProxyConnect,
        Self::ProxyAuth,
        Self::ProxyStatus,
        Self::Internal,
    ];

    /// The word, as serde spells it.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Resolve => "resolve",
            Self::Connect => "connect",
            Self::Tls => "tls",
            Self::Timeout => "timeout",
            Self::Protocol => "protocol",
            Self::HttpStatus => "http_status",
            Self::Auth => "auth",
            Self::RateLimit => "rate_limit",
            Self::Blocked => "blocked",
            Self::Parse => "parse",
            Self::ProxyConnect => "proxy_connect",
            Self::ProxyAuth => "proxy_auth",
            Self::ProxyStatus => "proxy_status",
            Self::Internal => "internal",
        }
    }

    /// Every word, for schemas and documentation.
    pub fn words() -> Vec<&'static str> {
        Self::ALL.iter().map(|cause| cause.as_str()).collect()
    }
}

impl From<NetFailure> for FailureCause {
    fn from(failure: NetFailure) -> Self {
        match failure {
            // A refusal answers like a name that does not resolve: only the
            // worker's own `egress_refused` line tells them apart.
            NetFailure::Resolve | NetFailure::Refused(_) => Self::Resolve,
            NetFailure::Connect => Self::Connect,
            NetFailure::Tls => Self::Tls,
            NetFailure::Timeout => Self::Timeout,
            NetFailure::InvalidUrl | NetFailure::Protocol => Self::Protocol,
            NetFailure::TooLarge | NetFailure::PdfTooLarge => Self::Parse,
            NetFailure::ProxyConnect => Self::ProxyConnect,
            NetFailure::ProxyAuth => Self::ProxyAuth,
            NetFailure::ProxyStatus => Self::ProxyStatus,
        }
    }
}

impl From<EngineFailure> for FailureCause {
    fn from(failure: EngineFailure) -> Self {
        match failure {
            EngineFailure::RateLimited { .. } => Self::RateLimit,
            EngineFailure::Blocked => Self::Blocked,
            EngineFailure::AuthFailure => Self::Auth,
            EngineFailure::ParseFailure => Self::Parse,
            EngineFailure::RequestFailure => Self::HttpStatus,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Verifies: REQ-ERR-002
    #[test]
    fn serde_and_as_str_spell_every_cause_alike() {
        for cause in FailureCause::ALL {
            let json = serde_json::to_value(cause).unwrap();
            assert_eq!(json, serde_json::json!(cause.as_str()), "{cause:?}");
        }
        let mut words = FailureCause::words();
        words.sort_unstable();
        words.dedup();
        assert_eq!(words.len(), FailureCause::ALL.len());
    }
}
