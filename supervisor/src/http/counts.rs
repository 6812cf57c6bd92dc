//! The listener's refusals: why it refused something (a closed
//! vocabulary, design §2's `http_counts` reasons) and how many times, each
//! reason logged as its table says.

use std::sync::atomic::{AtomicU64, Ordering};

rypsok_core::vocabulary! {
    /// Why the listener refused something, counted under `http` (design §2).
    pub(super) Reason {
        TooManyConnections => "too_many_connections",
        IdleConnection => "idle_connection",
        /// hyper's: a request head not complete within LIM-H5 of the previous
        /// answer, an idle keep-alive connection included.
        HeaderTimeout => "header_timeout",
        NotFound => "not_found",
        Unauthorized => "unauthorized",
        BodyTooLarge => "body_too_large",
        RequestTimeout => "request_timeout",
        SessionLimit => "session_limit",
        SdkBadRequest => "sdk_bad_request",
        SdkForbidden => "sdk_forbidden",
        SdkNotAcceptable => "sdk_not_acceptable",
        SdkBodyTooLarge => "sdk_body_too_large",
        /// A connection past one peer's share of LIM-H1.
        PeerConnections => "too_many_from_peer",
        /// A POST whose body is not JSON (broken syntax, not UTF-8, a lone
        /// surrogate escape, nesting past the parser's limit).
        InvalidJson => "invalid_json",
        /// A session closed, least recently used, for a new one past LIM-H6.
        SessionEvicted => "session_evicted",
        /// An HTTP/2 connection sent SETTINGS or PING frames past LIM-H8:
        /// told to go away (GOAWAY) and closed.
        ControlFrameFlood => "control_frame_flood",
        /// An idle connection that never presented a token, closed to make
        /// room for a new one (`table`).
        ConnectionEvicted => "connection_evicted",
    }
}

impl Reason {
    /// Whether each refusal writes an `http_refused` line (the table's
    /// "Logged as" column). The others are only counted: a flood of them
    /// must not write a flood of lines.
    pub(super) const fn logged(self) -> bool {
        matches!(
            self,
            Self::TooManyConnections
                | Self::Unauthorized
                | Self::BodyTooLarge
                | Self::RequestTimeout
                | Self::SessionLimit
                | Self::SdkForbidden
        )
    }
}

/// Refusals counted by reason.
#[derive(Debug, Default)]
pub(super) struct Counts([AtomicU64; Reason::ALL.len()]);

impl Counts {
    pub(super) fn add(&self, reason: Reason) {
        let index = Reason::ALL.iter().position(|r| *r == reason).unwrap_or(0);
        let total = self.0[index].fetch_add(1, Ordering::Relaxed) + 1;
        if let Some(metrics) = crate::metrics::get() {
            metrics.http_refused(reason.as_str());
        }
        if reason.logged() {
            tracing::info!(
                event = "http_refused",
                reason = reason.as_str(),
                total,
                "request refused"
            );
        }
    }

    pub(super) fn snapshot(&self) -> Vec<u64> {
        self.0.iter().map(|c| c.load(Ordering::Relaxed)).collect()
    }

    /// One line with every count, each reason a field.
    pub(super) fn log(&self) {
        let n = self.snapshot();
        tracing::info!(
            event = "http_counts",
            too_many_connections = n[0],
            idle_connection = n[1],
            header_timeout = n[2],
            not_found = n[3],
            unauthorized = n[4],
            body_too_large = n[5],
            request_timeout = n[6],
            session_limit = n[7],
            sdk_bad_request = n[8],
            sdk_forbidden = n[9],
            sdk_not_acceptable = n[10],
            sdk_body_too_large = n[11],
            too_many_from_peer = n[12],
            invalid_json = n[13],
            session_evicted = n[14],
            control_frame_flood = n[15],
            connection_evicted = n[16],
            "refusals by reason"
        );
    }
}
