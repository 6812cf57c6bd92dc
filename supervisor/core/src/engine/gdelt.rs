//! GDELT's driver, supervisor half: the admission record (with its pacing),
//! the configuration defaults and the request builder (REQ-CMP-001,
//! REQ-ENG-010, REQ-ENG-008). The parser is the other half, in
//! worker-parse's `engine/gdelt.rs`; its fixtures are under worker-parse's
//! `testdata/gdelt/`.
//!
//! The interface is the GDELT DOC 2.0 API's article list as JSON
//! (`/api/v2/doc/doc?mode=artlist&format=json`), keyless. Sources of the
//! record below:
//!
//! - Parameters (`query`, `mode`, `format`, `maxrecords` up to 250,
//!   `timespan`, `sort`) and the rolling three-month window: "GDELT DOC 2.0
//!   API Debuts" (<https://blog.gdeltproject.org/gdelt-doc-2-0-api-debuts/>).
//! - Pacing: the API's own rate-limit answer asks to "limit requests to
//!   one every 5 seconds".
//! - Terms: GDELT's data is free and open for any use provided the GDELT
//!   Project is cited (<https://www.gdeltproject.org/about.html#termsofuse>):
//!   results name the engine, and may be kept.

use url::form_urlencoded;

use super::{
    Admission, BuiltRequest, CredentialRule, EngineSpec, LanguageSupport, ResultText, SearchContext,
};
use crate::vocabulary::{Category, TimeRange};

/// The GDELT driver.
pub(crate) const SPEC: EngineSpec = EngineSpec {
    display_name: "GDELT DOC 2.0",
    admission: ADMISSION,
    default_categories: &[Category::News],
    credential: CredentialRule::None,
    in_default_set: true,
    scraping: false,
    keyless_allowance: None,
    text: ResultText::MARKUP,
    endpoint_required: false,
    build,
};

/// GDELT's admission record.
const ADMISSION: Admission = Admission {
    // One request every five seconds.
    rate_limit_per_minute: Some(12),
    concurrency_cap: 1,
    min_interval_ms: Some(5000),
    // No published bound; the contract's own (400) applies.
    max_query_chars: 400,
    // GDELT refuses a keyword of one or two characters ("The specified
    // phrase is too short"): its request leaves such words out.
    min_word_chars: 3,
    // GDELT translates the news of 65 languages and searches them all.
    languages: LanguageSupport::Any,
    // `timespan`; the index holds three months, so a year's range is
    // honoured by every article it has.
    time_ranges: true,
    // Free and open for any use with the citation: answers may be kept.
    cacheable: true,
    // The terms ask for the GDELT Project to be cited.
    attribution_required: true,
    needs_contact_in_user_agent: false,
};

/// Endpoint used when the operator sets none.
const DEFAULT_ENDPOINT: &str = "https://api.gdeltproject.org/api/v2/doc/doc";

/// Largest `maxrecords` asked for (the API allows 250; the parser keeps 50).
const MAX_RECORDS: u32 = 50;

/// The registry's request builder.
fn build(endpoint: Option<&str>, ctx: &SearchContext<'_>) -> BuiltRequest {
    let base = ctx.endpoint(endpoint, DEFAULT_ENDPOINT);
    let max = ctx.count.clamp(1, MAX_RECORDS).to_string();
    let mut params = form_urlencoded::Serializer::new(String::new());
    params
        .append_pair("query", &gdelt_query(ctx.query))
        .append_pair("mode", "artlist")
        .append_pair("format", "json")
        .append_pair("maxrecords", &max)
        .append_pair("sort", "hybridrel");
    if let Some(range) = ctx.time_range {
        params.append_pair("timespan", timespan(range));
    }
    BuiltRequest::json(super::with_query(&base, &params.finish()))
}

/// The query as GDELT accepts it: without the words it refuses as too
/// short (selection skips GDELT when none is left), and without
/// parentheses, whose `OR` GDELT would read as an operator. An `OR` between
/// words is one of the short words, so GDELT looks for all of them.
fn gdelt_query(query: &str) -> String {
    let plain = query.replace(['(', ')'], " ");
    ADMISSION.searchable_words(&plain).join(" ")
}

const fn timespan(range: TimeRange) -> &'static str {
    match range {
        TimeRange::Day => "1d",
        TimeRange::Week => "1w",
        TimeRange::Month => "1m",
        // The whole index: three months.
        TimeRange::Year => "3m",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocabulary::SafeSearch;

    #[test]
    fn asks_for_an_article_list_as_json() {
        // Verifies: REQ-ENG-001, REQ-SEARCH-005
        let ctx = SearchContext {
            lang: "en",
            query: "climate summit",
            count: 10,
            category: Category::News,
            region: "US",
            safe_search: SafeSearch::Moderate,
            time_range: Some(TimeRange::Week),
            credential: None,
            contact: "",
            now_unix: 1_700_000_000,
        };
        assert_eq!(
            build(None, &ctx).url,
            "https://api.gdeltproject.org/api/v2/doc/doc?query=climate+summit&mode=artlist\
             &format=json&maxrecords=10&sort=hybridrel&timespan=1w"
        );
        assert_eq!(ADMISSION.min_interval_ms, Some(5000));
    }

    #[test]
    fn leaves_out_the_words_gdelt_refuses_as_too_short() {
        // Verifies: REQ-ENG-010 (a shape GDELT refuses is not sent)
        assert_eq!(gdelt_query("AI rules in the EU"), "rules the");
        assert_eq!(gdelt_query("(wind OR solar) power"), "wind solar power");
        assert_eq!(gdelt_query("\"climate summit\" UN"), "\"climate summit\"");
        assert!(!ADMISSION.has_searchable_word("AI UN"));
    }
}
