//! One hop of a fetch (REQ-FETCH-001, design §14): a request to worker-net
//! under what is left of the network budget, and the ways it can fail
//! (answered to the caller in `failure.rs`).

use rypsok_proto::{ExchangeRequest, ExchangeResponse, Header, NetFailure, Profile};
use tokio::time::Instant;
use url::Url;

use super::Env;
use crate::limits::WORKER_SLACK;
use crate::ports::{ExchangeError, PortError};

/// Why a hop produced no response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum HopFailure {
    Net(NetFailure),
    Port(PortError),
    /// LIM-F4 was spent before the hop could start.
    BudgetSpent,
}

/// One GET through worker-net under the agent profile, within what is left
/// of LIM-F4, its body bounded to `max_bytes`, or to `pdf_max_bytes` when
/// it is a PDF.
pub(super) async fn exchange(
    env: Env<'_>,
    url: &Url,
    accept: &str,
    (max_bytes, pdf_max_bytes): (u64, Option<u64>),
    network_deadline: Instant,
) -> Result<ExchangeResponse, HopFailure> {
    let left = network_deadline
        .saturating_duration_since(Instant::now())
        .saturating_sub(WORKER_SLACK);
    if left.is_zero() {
        return Err(HopFailure::BudgetSpent);
    }
    let request = ExchangeRequest {
        url: url.to_string(),
        headers: vec![
            env.ctx.user_agent_header(),
            Header {
                name: "accept".to_owned(),
                value: accept.to_owned(),
            },
        ],
        profile: Profile::Agent,
        timeout_ms: u64::try_from(left.as_millis()).unwrap_or(u64::MAX),
        max_body_bytes: max_bytes,
        pdf_max_body_bytes: pdf_max_bytes,
    };
    match env.ctx.net.exchange(request, network_deadline).await {
        Ok(response) => Ok(response),
        Err(ExchangeError::Net(failure)) => {
            // Answered like a name that does not resolve (design §8); the
            // log says which part of the policy refused, never the address.
            if let NetFailure::Refused(refusal) = failure {
                tracing::info!(
                    event = "egress_refused",
                    refused = refusal.as_str(),
                    address_class = refusal.address_class().map(|class| class.as_str()),
                    "every address of the destination was refused at connect time"
                );
            }
            Err(HopFailure::Net(failure))
        }
        Err(ExchangeError::Port(e)) => Err(HopFailure::Port(e)),
    }
}

/// The first value of header `name` (lower-case).
pub(super) fn header<'a>(headers: &'a [Header], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|h| h.name == name)
        .map(|h| h.value.as_str())
}

/// The location of a redirect (301, 302, 303, 307, 308), when it has one.
pub(super) fn redirect_location(response: &ExchangeResponse) -> Option<&str> {
    matches!(response.status, 301 | 302 | 303 | 307 | 308)
        .then(|| header(&response.headers, "location"))
        .flatten()
        .map(str::trim)
        .filter(|l| !l.is_empty())
}
