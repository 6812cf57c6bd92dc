//! The format of a date on the wire (`EngineHit::date`): worker-parse
//! writes only dates that pass [`is_result_date`] (a day, or a month or a
//! year where the provider knows no more), and the supervisor checks
//! each one again when it ranks the hits (a worker's answer is never
//! trusted). Both sides apply this one definition, so it lives in the crate
//! they share, beside the message type, not in it.

/// Whether `text` is a date as [`EngineHit::date`](crate::EngineHit::date) carries it: `YYYY-MM-DD`
/// naming a real day of the proleptic Gregorian calendar.
pub fn is_iso_date(text: &str) -> bool {
    let b = text.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let number = |digits: &[u8]| {
        digits.iter().try_fold(0u32, |n, &d| {
            d.is_ascii_digit().then(|| n * 10 + u32::from(d - b'0'))
        })
    };
    let (Some(year), Some(month), Some(day)) =
        (number(&b[0..4]), number(&b[5..7]), number(&b[8..10]))
    else {
        return false;
    };
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    year >= 1 && (1..=days).contains(&day)
}

/// Whether `text` is a date of a result as the supervisor passes it on: a
/// day ([`is_iso_date`]), or a date of reduced precision, `YYYY-MM` or
/// `YYYY` (ISO 8601 calendar date forms), for a provider that knows only
/// the month or the year of a publication (Crossref's `date-parts`).
pub fn is_result_date(text: &str) -> bool {
    let b = text.as_bytes();
    let year_ok = |y: &[u8]| y.len() == 4 && y.iter().all(u8::is_ascii_digit) && y != b"0000";
    match b.len() {
        10 => is_iso_date(text),
        7 => {
            year_ok(&b[..4])
                && b[4] == b'-'
                && b[5..].iter().all(u8::is_ascii_digit)
                && matches!((b[5] - b'0') * 10 + (b[6] - b'0'), 1..=12)
        }
        4 => year_ok(b),
        _ => false,
    }
}

/// The UTC calendar date of a Unix time in seconds, as `YYYY-MM-DD`, when
/// it falls in years 1 to 9999 (H. Hinnant's days-to-civil algorithm).
pub fn iso_date_of_unix(seconds: i64) -> Option<String> {
    let z = seconds.div_euclid(86_400) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    if !(1..=9999).contains(&year) {
        return None;
    }
    let date = format!("{year:04}-{month:02}-{day:02}");
    is_iso_date(&date).then_some(date)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Verifies: REQ-CTX-001 (a date is YYYY-MM-DD of a real day, else absent)
    #[test]
    fn only_real_days_in_the_one_form_pass() {
        for good in ["2024-02-29", "2000-02-29", "2023-12-31", "0001-01-01"] {
            assert!(is_iso_date(good), "{good}");
        }
        for bad in [
            "2023-02-29",
            "1900-02-29",
            "2024-13-01",
            "2024-00-10",
            "2024-04-31",
            "0000-01-01",
            "2024-1-01",
            "2024-01-01T00:00:00",
            "２０２４-01-01",
            "",
        ] {
            assert!(!is_iso_date(bad), "{bad}");
        }
    }
}

#[cfg(test)]
mod result_date_tests {
    use super::is_result_date;

    #[test]
    fn a_result_date_is_a_day_a_month_or_a_year() {
        // Verifies: REQ-CTX-001
        for good in ["2024-02-29", "2018-03", "2018", "0001"] {
            assert!(is_result_date(good), "{good}");
        }
        for bad in [
            "2023-02-29",
            "2018-13",
            "2018-00",
            "2018-3",
            "0000",
            "18",
            "2018-",
            "20180",
            "２０１８",
            "2018-03-",
            "-2018",
        ] {
            assert!(!is_result_date(bad), "{bad}");
        }
    }
}
