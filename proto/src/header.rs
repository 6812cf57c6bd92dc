//! Header values read the same way in every process (design §14;
//! REQ-RES-002, REQ-FETCH-011): the supervisor's fetch pipeline and the
//! engine parsers in worker-parse take a provider's or a site's wait by one
//! rule, digits only and capped at [`RETRY_AFTER_MAX_S`], never dropped.

use crate::Header;
use crate::limits::RETRY_AFTER_MAX_S;

/// A `Retry-After`, in milliseconds, capped at [`RETRY_AFTER_MAX_S`]. Only
/// the delay-seconds form is read: an HTTP date would need a clock that a
/// reader of hostile bytes does not trust, so it counts as absent, as does
/// anything malformed. A longer delay is the longest wait, not an unknown
/// one.
pub fn retry_after_ms(headers: &[Header]) -> Option<u64> {
    header_value(headers, "retry-after")
        .and_then(whole_number)
        .map(capped_wait_ms)
}

/// The value of the first header named `name` (names compared without
/// case), trimmed.
pub fn header_value<'a>(headers: &'a [Header], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|header| header.name.eq_ignore_ascii_case(name))
        .map(|header| header.value.trim())
}

/// A header value that is a whole number: one or more ASCII digits, and
/// nothing else (no sign, fraction, unit or date), else `None`. A number
/// past `u64` saturates rather than being refused: every caller caps the
/// wait it reads with [`capped_wait_ms`], so an absurdly long delay or a
/// far-off reset still means "the longest wait", never "unknown".
pub fn whole_number(value: &str) -> Option<u64> {
    if value.is_empty() {
        return None;
    }
    value.bytes().try_fold(0_u64, |number, byte| {
        byte.is_ascii_digit().then(|| {
            number
                .saturating_mul(10)
                .saturating_add(u64::from(byte - b'0'))
        })
    })
}

/// A wait of `seconds`, in milliseconds, held to [`RETRY_AFTER_MAX_S`].
pub const fn capped_wait_ms(seconds: u64) -> u64 {
    if seconds > RETRY_AFTER_MAX_S {
        RETRY_AFTER_MAX_S * 1000
    } else {
        seconds * 1000
    }
}

/// A wait already in milliseconds (a parser's reading of a provider's
/// pause), held to the same [`RETRY_AFTER_MAX_S`].
pub const fn capped_ms(ms: u64) -> u64 {
    if ms > RETRY_AFTER_MAX_S * 1000 {
        RETRY_AFTER_MAX_S * 1000
    } else {
        ms
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn retry_after(value: &str) -> Option<u64> {
        retry_after_ms(&[Header {
            name: "retry-after".to_owned(),
            value: value.to_owned(),
        }])
    }

    // Verifies: REQ-RES-002, REQ-FETCH-011 (a wait above the cap is capped, not dropped)
    #[test]
    fn caps_a_retry_after_above_the_cap_instead_of_dropping_it() {
        let cap = Some(RETRY_AFTER_MAX_S * 1000);
        assert_eq!(retry_after("120"), Some(120_000));
        assert_eq!(retry_after(&RETRY_AFTER_MAX_S.to_string()), cap);
        assert_eq!(retry_after(&(RETRY_AFTER_MAX_S + 1).to_string()), cap);
        assert_eq!(retry_after("86400"), cap);
        assert_eq!(retry_after(&"9".repeat(100)), cap);
        assert_eq!(retry_after(" 0 "), Some(0));
    }

    // Verifies: REQ-RES-002 (a provider's pause read in milliseconds is held to the same cap)
    #[test]
    fn caps_a_pause_in_milliseconds_by_the_same_rule() {
        let cap = RETRY_AFTER_MAX_S * 1000;
        assert_eq!(capped_ms(0), 0);
        assert_eq!(capped_ms(1_500), 1_500);
        assert_eq!(capped_ms(cap), cap);
        assert_eq!(capped_ms(cap + 1), cap);
        assert_eq!(capped_ms(u64::MAX), cap);
        assert_eq!(
            capped_ms(capped_wait_ms(u64::MAX)),
            capped_wait_ms(u64::MAX)
        );
    }

    // Verifies: REQ-RES-002 (only the delay-seconds form is a wait)
    #[test]
    fn reads_no_wait_from_a_date_or_anything_but_digits() {
        for value in [
            "Wed, 21 Oct 2015 07:28:00 GMT",
            "",
            "-5",
            "+5",
            "1.5",
            "12s",
            "1 2",
        ] {
            assert_eq!(retry_after(value), None, "{value:?}");
        }
        let named = |name: &str| {
            retry_after_ms(&[Header {
                name: name.to_owned(),
                value: "5".to_owned(),
            }])
        };
        assert_eq!(named("Retry-After"), Some(5000));
        assert_eq!(named("content-type"), None);
    }
}
