//! `[search]`: languages, region, safe search and the result and time
//! bounds (REQ-SEARCH-004, REQ-SEARCH-008, LIM-S1..S6).

use crate::config::problem::LANG_SAMPLE;
use crate::config::reader::{Lookup, Problems, Range, Section, default_of, indexed};
use crate::config::{SafeSearch, SearchConfig};
use crate::limits;

/// More languages than this would only bloat the tool definitions (LIM-I1).
const LANGUAGES_MAX: usize = 20;

pub(in crate::config) fn search(s: &mut Section<'_>, p: &mut Problems) -> Option<SearchConfig> {
    let languages = languages(s, p);
    let region = match s.string(p, "region") {
        Lookup::Absent => Some("US".to_owned()),
        Lookup::Invalid => None,
        Lookup::Found(text) if text.len() == 2 && text.bytes().all(|b| b.is_ascii_uppercase()) => {
            Some(text.to_owned())
        }
        Lookup::Found(_) => {
            p.push(
                s.key_path("region"),
                "expected two upper-case letters such as US",
            );
            None
        }
    };
    let safe_search = s.choice(
        p,
        "safe_search",
        SafeSearch::ALL,
        SafeSearch::as_str,
        SafeSearch::Moderate,
    );

    const CEILING_MAX: i64 = 50;
    let ceiling = s
        .integer(p, "max_results_ceiling", Range::new(1, CEILING_MAX))
        .or(limits::MAX_RESULTS_CEILING.into());
    // A default above a lowered ceiling follows the ceiling down: the
    // operator asked for fewer results, not for a refusal.
    let max_results_default =
        i64::from(limits::MAX_RESULTS_DEFAULT).min(ceiling.unwrap_or(CEILING_MAX));
    let max_results = s.number(
        p,
        "max_results",
        Range::up_to(1, "max_results_ceiling", ceiling, CEILING_MAX),
        max_results_default,
    );
    let query_max_chars = s.number(
        p,
        "query_max_chars",
        Range::new(1, 2000),
        default_of(limits::QUERY_MAX_CHARS),
    );
    const DEADLINE_MAX: i64 = 60_000;
    let deadline = s
        .integer(p, "deadline_ms", Range::new(100, DEADLINE_MAX))
        .or(default_of(limits::SEARCH_DEADLINE_MS));
    let grace_default = default_of(limits::SEARCH_GRACE_MS).min(deadline.unwrap_or(DEADLINE_MAX));
    let grace_ms = s.number(
        p,
        "grace_ms",
        Range::up_to(0, "deadline_ms", deadline, DEADLINE_MAX),
        grace_default,
    );
    let drop_instruction_like = s.boolean(p, "drop_instruction_like", false);
    Some(SearchConfig {
        drop_instruction_like: drop_instruction_like?,
        languages: languages?,
        region: region?,
        safe_search: safe_search?,
        max_results: max_results?,
        max_results_ceiling: u32::try_from(ceiling?).ok()?,
        query_max_chars: query_max_chars?,
        deadline_ms: u64::try_from(deadline?).ok()?,
        grace_ms: grace_ms?,
    })
}

fn languages(s: &mut Section<'_>, p: &mut Problems) -> Option<Vec<String>> {
    let path = s.key_path("languages");
    let items = match s.strings(p, "languages") {
        Lookup::Absent => return Some(vec![LANG_SAMPLE.to_owned()]),
        Lookup::Invalid => return None,
        Lookup::Found(items) => items,
    };
    let before = p.0.len();
    if items.is_empty() {
        p.push(path.clone(), "needs at least one language");
    }
    if items.len() > LANGUAGES_MAX {
        p.push(
            path.clone(),
            format!("must list at most {LANGUAGES_MAX} languages"),
        );
    }
    for (index, code) in items.iter().enumerate() {
        if !is_language_code(code) {
            p.push(
                indexed(&path, index),
                "expected a language code such as en or pt-br",
            );
        } else if items[..index].contains(code) {
            p.push(indexed(&path, index), "duplicate language");
        }
    }
    (p.0.len() == before).then(|| items.iter().map(|&c| c.to_owned()).collect())
}

/// `^[a-z]{2,3}(-[a-z0-9]{2,8})?$`.
fn is_language_code(code: &str) -> bool {
    let (primary, subtag) = match code.split_once('-') {
        Some((primary, subtag)) => (primary, Some(subtag)),
        None => (code, None),
    };
    (2..=3).contains(&primary.len())
        && primary.bytes().all(|b| b.is_ascii_lowercase())
        && subtag.is_none_or(|t| {
            (2..=8).contains(&t.len())
                && t.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
}
