//! `[fetch]`: size bounds, robots.txt, redirects and strict mode
//! (LIM-F1..F3, LIM-F14, REQ-CMP-005, REQ-FETCH-006, REQ-SEC-021).

use crate::config::FetchConfig;
use crate::config::reader::{Problems, Range, Section, default_of};
use crate::limits;

pub(in crate::config) fn fetch(s: &mut Section<'_>, p: &mut Problems) -> Option<FetchConfig> {
    let floor = i64::from(limits::FETCH_MAX_CHARS_FLOOR);
    const CEILING_MAX: i64 = 200_000;
    let ceiling = s
        .integer(p, "max_chars_ceiling", Range::new(floor, CEILING_MAX))
        .or(limits::FETCH_MAX_CHARS_CEILING.into());
    // As for max_results: a lowered ceiling lowers the default with it.
    let max_chars_default =
        i64::from(limits::FETCH_MAX_CHARS_DEFAULT).min(ceiling.unwrap_or(CEILING_MAX));
    let max_chars = s.number(
        p,
        "max_chars",
        Range::up_to(floor, "max_chars_ceiling", ceiling, CEILING_MAX),
        max_chars_default,
    );
    // The upper bound keeps one body, with its headers, inside one LIM-W1
    // frame between processes.
    let max_bytes = s.number(
        p,
        "max_bytes",
        Range::new(64 * 1024, 7 * 1024 * 1024),
        default_of(limits::FETCH_MAX_BYTES),
    );
    // LIM-F14: the same frame ceiling; papers are often larger than HTML.
    let pdf_max_bytes = s.number(
        p,
        "pdf_max_bytes",
        Range::new(64 * 1024, 7 * 1024 * 1024),
        default_of(limits::FETCH_PDF_MAX_BYTES),
    );
    let robots_txt = s.boolean(p, "robots_txt", true);
    let follow = s.boolean(p, "follow_cross_host_redirects", false);
    let strict_mode = s.boolean(p, "strict_mode", false);
    Some(FetchConfig {
        max_chars: max_chars?,
        max_chars_ceiling: u32::try_from(ceiling?).ok()?,
        max_bytes: max_bytes?,
        pdf_max_bytes: pdf_max_bytes?,
        robots_txt: robots_txt?,
        follow_cross_host_redirects: follow?,
        strict_mode: strict_mode?,
    })
}
