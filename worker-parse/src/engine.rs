//! Engine answer parsers: an engine's HTTP answer in, hits or a failure
//! class out (REQ-ENG-005, REQ-ENG-006). One module per engine type, named
//! as the driver's other half in the supervisor; the dispatch below has one
//! arm per [`EngineKind`], so a new engine cannot go unparsed.
//!
//! Everything here reads hostile bytes: no function panics on any input,
//! and no provider text leaves except inside hits.

mod brave;
mod duckduckgo;
#[cfg(test)]
mod test_support;
mod wikipedia;

use rypsok_proto::limits::RETRY_AFTER_MAX_S;
use rypsok_proto::{EngineKind, EngineParse, Header};

/// Parses one engine answer with the parser of its driver.
pub(crate) fn parse_engine_answer(
    engine: EngineKind,
    base_url: &str,
    status: u16,
    headers: &[Header],
    body: &[u8],
) -> EngineParse {
    match engine {
        EngineKind::Wikipedia => wikipedia::parse(base_url, status, headers, body),
        // Brave's answers carry absolute URLs: no base to build on.
        EngineKind::Brave => brave::parse(status, headers, body),
        // An HTML page: its links are absolute or DuckDuckGo's own.
        EngineKind::DuckDuckGo => duckduckgo::parse(status, body),
    }
}

/// The provider's `Retry-After`, in milliseconds, capped at
/// [`RETRY_AFTER_MAX_S`] (design §14). Only the delay-seconds form is read:
/// an HTTP date would need a clock the parser does not trust, so it counts
/// as absent, as does anything malformed.
pub(crate) fn retry_after_ms(headers: &[Header]) -> Option<u64> {
    let value = headers
        .iter()
        .find(|header| header.name.eq_ignore_ascii_case("retry-after"))?
        .value
        .trim();
    if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // All digits: the only parse failure left is overflow, which is past
    // the cap anyway.
    let seconds = value.parse::<u64>().unwrap_or(u64::MAX);
    Some(seconds.min(RETRY_AFTER_MAX_S) * 1000)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::test_support::headers;

    #[test]
    fn reads_retry_after_seconds() {
        // Verifies: REQ-ENG-006
        assert_eq!(
            retry_after_ms(&headers(&[("retry-after", "120")])),
            Some(120_000)
        );
        assert_eq!(retry_after_ms(&headers(&[("retry-after", " 0 ")])), Some(0));
        assert_eq!(
            retry_after_ms(&headers(&[("Retry-After", "5")])),
            Some(5000)
        );
    }

    #[test]
    fn caps_retry_after() {
        // Verifies: REQ-ENG-006, REQ-CMP-002
        let capped = Some(RETRY_AFTER_MAX_S * 1000);
        assert_eq!(
            retry_after_ms(&headers(&[("retry-after", "86400")])),
            capped
        );
        assert_eq!(
            retry_after_ms(&headers(&[("retry-after", "99999999999999999999999999")])),
            capped
        );
    }

    #[test]
    fn ignores_retry_after_dates_and_garbage() {
        // Verifies: REQ-ENG-006
        for value in [
            "Wed, 21 Oct 2015 07:28:00 GMT",
            "",
            "-5",
            "+5",
            "1.5",
            "12s",
        ] {
            assert_eq!(
                retry_after_ms(&headers(&[("retry-after", value)])),
                None,
                "{value:?}"
            );
        }
        assert_eq!(retry_after_ms(&headers(&[("content-type", "5")])), None);
        assert_eq!(retry_after_ms(&[]), None);
    }
}
