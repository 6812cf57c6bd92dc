//! Admission records: what a provider asks of rypsok, as engine properties
//! (REQ-CMP-001, REQ-ENG-010). A driver ships only with its record; engine
//! selection, the concurrency limiter, attribution and the configuration's
//! contact check read these values instead of knowing engines by name.
//! Every field has a reader: a property the code does not act on yet is
//! written in the driver's documentation and joins the record with the code
//! that reads it.

/// One driver's admission record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Admission {
    /// The provider's published request rate, when it publishes one.
    pub(crate) rate_limit_per_minute: Option<u32>,
    /// Requests to this engine in flight at once, per process.
    pub(crate) concurrency_cap: u32,
    /// The provider asks for this pause between two requests (arXiv: one
    /// request every three seconds). A call waits for the next free slot
    /// when it falls within its deadline, and skips the engine with
    /// `engine_skipped`, `rate_limited` when it does not.
    pub(crate) min_interval_ms: Option<u64>,
    /// Longest query the engine accepts, in Unicode scalar values; longer
    /// queries skip the engine with `engine_skipped`, `query_too_long`.
    /// Compare with [`Admission::accepts_query`], not by hand.
    pub(crate) max_query_chars: usize,
    /// Shortest word or quoted phrase the provider searches for, in letters
    /// and digits; 0 for any. The driver's request leaves shorter ones out
    /// ([`Admission::searchable_words`]); a query with none left skips the
    /// engine with `engine_skipped`, `query_too_short`, so that nothing is
    /// sent only to be refused.
    pub(crate) min_word_chars: usize,
    /// Languages the engine honours.
    pub(crate) languages: LanguageSupport,
    /// The engine honours `time_range` (otherwise a call with one skips it).
    pub(crate) time_ranges: bool,
    /// The provider's terms allow keeping its answers in the search cache
    /// (design §12); the search pipeline neither stores nor looks up the
    /// answers of an engine whose record says no.
    pub(crate) cacheable: bool,
    /// Results must name the engine (`engines`) whatever the operator chose
    /// (REQ-CMP-003).
    pub(crate) attribution_required: bool,
    /// The provider requires a contact in the User-Agent (REQ-CMP-004);
    /// `check` refuses an empty `[service] contact` while such an engine is
    /// enabled.
    pub(crate) needs_contact_in_user_agent: bool,
}

impl Admission {
    /// Whether `query` (trimmed, as validated) is within the engine's query
    /// length.
    pub(crate) fn accepts_query(&self, query: &str) -> bool {
        query.chars().count() <= self.max_query_chars
    }

    /// The words and quoted phrases of `query` the provider searches for,
    /// in order: each of at least `min_word_chars` letters or digits. An
    /// unclosed quote runs to the end of the query.
    pub(crate) fn searchable_words<'q>(&self, query: &'q str) -> Vec<&'q str> {
        let long_enough = |unit: &str| {
            unit.chars().filter(|c| c.is_alphanumeric()).count() >= self.min_word_chars
        };
        let mut units = Vec::new();
        let mut rest = query.trim_start();
        while !rest.is_empty() {
            let end = match rest.strip_prefix('"') {
                Some(inner) => inner.find('"').map_or(rest.len(), |close| close + 2),
                None => rest.find(char::is_whitespace).unwrap_or(rest.len()),
            };
            let (unit, tail) = rest.split_at(end);
            if long_enough(unit) {
                units.push(unit);
            }
            rest = tail.trim_start();
        }
        units
    }

    /// Whether `query` has a word the provider searches for.
    pub(crate) fn has_searchable_word(&self, query: &str) -> bool {
        self.min_word_chars == 0 || !self.searchable_words(query).is_empty()
    }
}

/// Which languages an engine can search in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LanguageSupport {
    /// Any language the configuration accepts.
    Any,
    /// Only these codes, as configuration spells them.
    Listed(&'static [&'static str]),
}

impl LanguageSupport {
    /// Whether a configured language code is honoured.
    pub(crate) fn honours(self, lang: &str) -> bool {
        match self {
            Self::Any => true,
            Self::Listed(codes) => codes.contains(&lang),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RECORD: Admission = Admission {
        rate_limit_per_minute: None,
        concurrency_cap: 1,
        min_interval_ms: None,
        max_query_chars: 3,
        min_word_chars: 3,
        languages: LanguageSupport::Listed(&["en", "pt-br"]),
        time_ranges: false,
        cacheable: false,
        attribution_required: false,
        needs_contact_in_user_agent: false,
    };

    #[test]
    fn query_length_counts_characters() {
        // Verifies: REQ-ENG-010, REQ-ENG-007
        assert!(RECORD.accepts_query("abc"));
        assert!(RECORD.accepts_query("äöü"));
        assert!(!RECORD.accepts_query("abcd"));
    }

    #[test]
    fn short_words_are_left_out_and_quoted_phrases_kept_whole() {
        // Verifies: REQ-ENG-010 (GDELT: nothing sent only to be refused)
        assert_eq!(
            RECORD.searchable_words("AI rules in \"EU law\" UN"),
            ["rules", "\"EU law\""]
        );
        assert_eq!(RECORD.searchable_words("\"open quote"), ["\"open quote"]);
        assert_eq!(RECORD.searchable_words("  ä.ö  café  "), ["café"]);
        assert!(!RECORD.has_searchable_word("AI UN -x \"a\""));
        let any = Admission {
            min_word_chars: 0,
            ..RECORD
        };
        assert!(any.has_searchable_word("AI"));
    }

    #[test]
    fn listed_languages_honour_only_their_codes() {
        // Verifies: REQ-ENG-010, REQ-SEARCH-004
        assert!(RECORD.languages.honours("pt-br"));
        assert!(!RECORD.languages.honours("de"));
        assert!(LanguageSupport::Any.honours("de"));
    }
}
