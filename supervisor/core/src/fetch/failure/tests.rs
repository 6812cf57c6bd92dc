use rypsok_egress::{AddressClass, Refusal};
use rypsok_proto::NetFailure;

use super::*;
use crate::error::Reason;

/// Every way a hop fails.
fn every_hop_failure() -> Vec<HopFailure> {
    vec![
        HopFailure::Net(NetFailure::InvalidUrl),
        HopFailure::Net(NetFailure::Resolve),
        HopFailure::Net(NetFailure::Refused(Refusal::AddressClass(
            AddressClass::Loopback,
        ))),
        HopFailure::Net(NetFailure::Refused(Refusal::PeerMismatch)),
        HopFailure::Net(NetFailure::Connect),
        HopFailure::Net(NetFailure::Tls),
        HopFailure::Net(NetFailure::Timeout),
        HopFailure::Net(NetFailure::TooLarge),
        HopFailure::Net(NetFailure::PdfTooLarge),
        HopFailure::Net(NetFailure::Protocol),
        HopFailure::Net(NetFailure::ProxyConnect),
        HopFailure::Net(NetFailure::ProxyAuth),
        HopFailure::Net(NetFailure::ProxyStatus),
        HopFailure::Port(PortError::Unavailable),
        HopFailure::Port(PortError::WorkerFailed),
        HopFailure::Port(PortError::Timeout),
        HopFailure::BudgetSpent,
    ]
}

/// What a hop failure answers, for the page (`robots` false) or for its
/// robots.txt, as `kind:reason`.
fn hop_answer(failure: HopFailure, upgraded: bool, robots: bool) -> &'static str {
    match failure {
        HopFailure::Net(NetFailure::Protocol | NetFailure::TooLarge | NetFailure::PdfTooLarge)
            if robots =>
        {
            "denied:robots_txt"
        }
        HopFailure::Net(NetFailure::Connect | NetFailure::Tls) if upgraded => "denied:scheme",
        HopFailure::Net(NetFailure::InvalidUrl) => "denied:scheme",
        HopFailure::Net(NetFailure::TooLarge | NetFailure::PdfTooLarge) => "too_large:",
        HopFailure::Net(NetFailure::Timeout)
        | HopFailure::Port(PortError::Timeout)
        | HopFailure::BudgetSpent => "unavailable:deadline",
        HopFailure::Net(
            NetFailure::Resolve
            | NetFailure::Refused(_)
            | NetFailure::Connect
            | NetFailure::Tls
            | NetFailure::Protocol
            | NetFailure::ProxyConnect
            | NetFailure::ProxyAuth
            | NetFailure::ProxyStatus,
        )
        | HopFailure::Port(PortError::Unavailable | PortError::WorkerFailed) => {
            "unavailable:network"
        }
    }
}

fn answer(failure: FetchFailure) -> String {
    let error = ToolError::from(failure);
    format!(
        "{}:{}",
        error.kind().as_str(),
        error.reason().map_or("", Reason::as_str)
    )
}

// Verifies: REQ-ERR-002, REQ-FETCH-011, REQ-CMP-005 (every fetch failure is answered with one kind and reason)
#[test]
fn classifies_every_fetch_failure() {
    let rows = [
        (
            FetchFailure::RateLimited { retry_after_ms: 10 },
            "unavailable:rate_limited",
        ),
        (FetchFailure::Busy, "unavailable:busy"),
        (FetchFailure::CallDeadline, "unavailable:deadline"),
        (FetchFailure::UnresolvableLocation, "unavailable:network"),
        (FetchFailure::TooManyRedirects, "unavailable:network"),
        (
            FetchFailure::RedirectRefused(ToolError::denied_egress(Refused::DenyRule)),
            "denied:egress",
        ),
        (
            FetchFailure::RedirectRefused(ToolError::denied_strict_mode()),
            "denied:strict_mode",
        ),
        (
            FetchFailure::RedirectRefused(ToolError::url_too_long(2048)),
            "denied:egress",
        ),
        (
            FetchFailure::CrossHost {
                location: "https://b.example/".to_owned(),
            },
            "redirected:",
        ),
        (
            FetchFailure::ErrorStatus {
                status: 404,
                retry_after_ms: None,
            },
            "unavailable:http_status",
        ),
        (FetchFailure::UnexpectedStatus, "unavailable:network"),
        (
            FetchFailure::MediaType("image/png".to_owned()),
            "unsupported_content:media_type",
        ),
        (
            FetchFailure::PageReader(PortError::Timeout),
            "unavailable:deadline",
        ),
        (
            FetchFailure::PageReader(PortError::Unavailable),
            "unavailable:busy",
        ),
        (
            FetchFailure::PageReader(PortError::WorkerFailed),
            "unavailable:busy",
        ),
        (
            FetchFailure::NothingExtracted,
            "unsupported_content:extraction_failed",
        ),
        (
            FetchFailure::StartCharBeyond { length: 5 },
            "invalid_request:",
        ),
        (FetchFailure::RobotsDisallow, "denied:robots_txt"),
        (FetchFailure::RobotsUrl, "denied:egress"),
        (
            FetchFailure::RobotsReader(PortError::Timeout),
            "unavailable:deadline",
        ),
        (
            FetchFailure::RobotsReader(PortError::Unavailable),
            "unavailable:busy",
        ),
        (
            FetchFailure::RobotsReader(PortError::WorkerFailed),
            "unavailable:busy",
        ),
    ];
    for (failure, want) in rows {
        let shown = format!("{failure:?}");
        assert_eq!(answer(failure), want, "{shown}");
    }
    for failure in every_hop_failure() {
        for upgraded in [false, true] {
            let page = FetchFailure::Hop {
                failure,
                upgraded,
                max_bytes: 1000,
                pdf_max_bytes: 2000,
            };
            assert_eq!(
                answer(page),
                hop_answer(failure, upgraded, false),
                "{failure:?}, upgraded {upgraded}"
            );
            let robots = FetchFailure::RobotsHop { failure, upgraded };
            assert_eq!(
                answer(robots),
                hop_answer(failure, upgraded, true),
                "robots.txt: {failure:?}, upgraded {upgraded}"
            );
        }
    }
}

// Verifies: REQ-SEC-008, REQ-ERR-004 (a redirect the policy cannot read is refused as a URL form; the page's own bound is reported)
#[test]
fn a_redirect_the_policy_cannot_read_is_refused_as_a_url_form() {
    let unreadable = ToolError::from(FetchFailure::RedirectRefused(ToolError::invalid_url()));
    assert_eq!(unreadable, ToolError::denied_egress(Refused::UrlForm));
    let too_large = ToolError::from(FetchFailure::Hop {
        failure: HopFailure::Net(NetFailure::TooLarge),
        upgraded: false,
        max_bytes: 1234,
        pdf_max_bytes: 5678,
    });
    assert_eq!(too_large, ToolError::too_large(1234));
    // A PDF past its own bound, which worker-net applied, reports that one.
    let pdf_too_large = ToolError::from(FetchFailure::Hop {
        failure: HopFailure::Net(NetFailure::PdfTooLarge),
        upgraded: false,
        max_bytes: 1234,
        pdf_max_bytes: 5678,
    });
    assert_eq!(pdf_too_large, ToolError::too_large(5678));
}
