//! Engine answer parsers: an engine's HTTP answer in, hits or a failure
//! class out (REQ-ENG-005, REQ-ENG-006). One module per engine type, named
//! as the driver's other half in the supervisor, with a `parse_answer`
//! entry point; the dispatch below is made from the engine list
//! (`rypsok_proto::engine_list!`), so a new engine cannot go unparsed.
//!
//! Everything here reads hostile bytes: no function panics on any input,
//! and no provider text leaves except inside hits.

mod arxiv;
mod brave;
mod crossref;
mod duckduckgo;
mod gdelt;
mod github;
mod hackernews;
mod openalex;
mod searxng;
mod stackexchange;
#[cfg(test)]
mod test_support;
mod text;
mod wikipedia;

use rypsok_proto::limits::URL_MAX_CHARS;
// The one reading of a provider's wait, shared with the supervisor's fetch:
// digits only, capped at RETRY_AFTER_MAX_S (design §14).
pub(crate) use rypsok_proto::retry_after_ms;
use rypsok_proto::{EngineFailure, EngineKind, EngineParse, Header};
use rypsok_proto::{capped_wait_ms, header_value, whole_number};
use serde_json::{Map, Value};

/// One engine answer, as every parser takes it.
pub(crate) struct Answer<'a> {
    /// Base for result URLs the driver builds itself (Wikipedia's article
    /// path); empty for drivers whose answers carry absolute URLs.
    pub(crate) base_url: &'a str,
    pub(crate) status: u16,
    pub(crate) headers: &'a [Header],
    pub(crate) body: &'a [u8],
}

/// Makes the dispatch from the engine list: one arm per engine type, each
/// calling the `parse_answer` of the module the list names.
macro_rules! dispatch {
    ($($(#[$doc:meta])* $variant:ident => $module:ident,)+) => {
        /// Parses one engine answer with the parser of its driver.
        pub(crate) fn parse_engine_answer(engine: EngineKind, answer: &Answer<'_>) -> EngineParse {
            match engine {
                $(EngineKind::$variant => $module::parse_answer(answer),)+
            }
        }
    };
}

rypsok_proto::engine_list!(dispatch);

/// Hits kept from one answer by the parsers that share this bound. The
/// supervisor asks for LIM-S3 (10); an endpoint that ignores the count
/// cannot make the worker build more.
pub(crate) const MAX_HITS: usize = 50;

/// The answer as a JSON object, or `None` for anything else (serde_json
/// bounds nesting depth itself, so a deeply nested body is an error, not a
/// stack overflow).
pub(crate) fn json_object(body: &[u8]) -> Option<Map<String, Value>> {
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(answer)) => Some(answer),
        _ => None,
    }
}

/// A string field of a JSON object; `None` when absent or of another type.
pub(crate) fn str_of<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str)
}

/// The failure class a status says by itself, for answers whose body names
/// nothing more precise: 429 is the provider's rate limit (its
/// `Retry-After` read), 401 a refused credential, 403 a block, anything
/// else a failed request.
pub(crate) fn status_failure(status: u16, headers: &[Header]) -> EngineFailure {
    match status {
        429 => EngineFailure::RateLimited {
            retry_after_ms: retry_after_ms(headers),
            quota: false,
        },
        401 => EngineFailure::AuthFailure,
        403 => EngineFailure::Blocked,
        _ => EngineFailure::RequestFailure,
    }
}

/// An absolute http(s) URL with a host, no whitespace or control
/// characters, and no longer than a URL `web_fetch` accepts.
pub(crate) fn is_web_url(url: &str) -> bool {
    let rest = ["https://", "http://"].iter().find_map(|scheme| {
        url.get(..scheme.len())
            .filter(|head| head.eq_ignore_ascii_case(scheme))
            .map(|_| &url[scheme.len()..])
    });
    let Some(rest) = rest else {
        return false;
    };
    let authority_len = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    authority_len > 0
        && url.chars().count() <= URL_MAX_CHARS
        && !url.chars().any(|c| c.is_whitespace() || c.is_control())
}

/// Whether `x-ratelimit-remaining` says the provider's window is spent (a
/// single `0`; a list, as Brave sends, is that driver's own reading).
pub(crate) fn rate_window_spent(headers: &[Header]) -> bool {
    header_value(headers, "x-ratelimit-remaining").and_then(whole_number) == Some(0)
}

/// The time until the provider's rate window resets, in milliseconds,
/// capped at [`RETRY_AFTER_MAX_S`](rypsok_proto::limits::RETRY_AFTER_MAX_S),
/// for providers whose `x-ratelimit-reset`
/// is a moment in UTC epoch seconds (GitHub). The moment is read against
/// the answer's own `Date`, so both ends come from the provider's clock
/// and the parser needs none; without a readable `Date` or reset the wait
/// is unknown (`None`). A reset already past is no wait.
pub(crate) fn reset_epoch_wait_ms(headers: &[Header]) -> Option<u64> {
    let reset = header_value(headers, "x-ratelimit-reset").and_then(whole_number)?;
    let date = header_value(headers, "date")
        // An HTTP date is at most 29 characters (IMF-fixdate) or a few
        // more in the obsolete forms; anything longer is not one.
        .filter(|value| value.len() <= 40)
        .and_then(|value| httpdate::parse_http_date(value).ok())?;
    let now = date.duration_since(std::time::UNIX_EPOCH).ok()?.as_secs();
    Some(capped_wait_ms(reset.saturating_sub(now)))
}

#[cfg(test)]
mod tests {
    use rypsok_proto::limits::RETRY_AFTER_MAX_S;

    use super::*;
    use crate::engine::test_support::headers;

    /// `Date` of the moment 1_700_000_000 (UTC epoch seconds).
    const DATE_1_700_000_000: &str = "Tue, 14 Nov 2023 22:13:20 GMT";

    #[test]
    fn reads_a_reset_epoch_against_the_answers_date() {
        // Verifies: REQ-RES-002, REQ-CMP-002
        let wait = |reset: &str, date: &str| {
            reset_epoch_wait_ms(&headers(&[("x-ratelimit-reset", reset), ("date", date)]))
        };
        assert_eq!(wait("1700000042", DATE_1_700_000_000), Some(42_000));
        // Already past: no wait.
        assert_eq!(wait("1699999000", DATE_1_700_000_000), Some(0));
        // A bogus or huge moment is clamped to the longest wait.
        let capped = Some(RETRY_AFTER_MAX_S * 1000);
        assert_eq!(wait("99999999999", DATE_1_700_000_000), capped);
        assert_eq!(
            wait("999999999999999999999999999999", DATE_1_700_000_000),
            capped
        );
        // However many digits: a reset past any clock is the longest wait,
        // not an unknown one.
        assert_eq!(wait(&"9".repeat(100), DATE_1_700_000_000), capped);
        assert_eq!(wait(&"9".repeat(10_000), DATE_1_700_000_000), capped);
        // Unreadable resets or dates: the wait is unknown.
        for (reset, date) in [
            ("-5", DATE_1_700_000_000),
            ("17e8", DATE_1_700_000_000),
            ("", DATE_1_700_000_000),
            ("1700000042", "yesterday"),
            ("1700000042", "1700000000"),
        ] {
            assert_eq!(wait(reset, date), None, "{reset:?} {date:?}");
        }
        assert_eq!(
            reset_epoch_wait_ms(&headers(&[("x-ratelimit-reset", "1700000042")])),
            None
        );
    }

    #[test]
    fn a_spent_window_is_a_remaining_of_zero() {
        // Verifies: REQ-RES-002
        let spent = |value: &str| rate_window_spent(&headers(&[("x-ratelimit-remaining", value)]));
        assert!(spent("0"));
        assert!(spent(" 0 "));
        assert!(!spent("1"));
        assert!(!spent("0, 1999"));
        assert!(!spent("zero"));
        assert!(!spent(&"9".repeat(100)));
        assert!(spent(&"0".repeat(100)));
        assert!(!rate_window_spent(&[]));
    }

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
        // However many digits: capped, never dropped.
        for digits in [65, 100, 10_000] {
            assert_eq!(
                retry_after_ms(&headers(&[("retry-after", &"9".repeat(digits))])),
                capped,
                "{digits} digits"
            );
        }
        // Leading zeros are no length: a hundred digits can be one second.
        let padded = format!("{}1", "0".repeat(99));
        assert_eq!(
            retry_after_ms(&headers(&[("retry-after", padded.as_str())])),
            Some(1000)
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
            "1 2",
            "\u{661}",
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
