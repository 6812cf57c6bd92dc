//! SearXNG's parser: the JSON output (`format=json`) of an operator's own
//! SearXNG instance in, hits or a failure class out (REQ-ENG-005,
//! REQ-ENG-006). The request builder and the admission record are the
//! other half of this driver, in the supervisor's `engine/searxng.rs`.
//!
//! A result becomes a hit with its `title`, `url`, `content` as the snippet
//! and the day of `publishedDate` when it has one. Answers, infoboxes and
//! suggestions are not results and are left out.
//!
//! Failures: an instance whose settings do not enable the JSON format
//! answers 403 with an HTML page: a block (the operator's instance refuses
//! rypsok). Its limiter answers 429: the rate limit.

use rypsok_proto::{EngineFailure, EngineHit, EngineParse, Header};
use serde_json::Value;

use super::text::iso_date_prefix;
use super::{Answer, MAX_HITS, is_web_url, json_object, status_failure, str_of};

/// The entry point of the dispatch, which hands every parser the same
/// [`Answer`].
pub(crate) fn parse_answer(answer: &Answer<'_>) -> EngineParse {
    parse(answer.status, answer.headers, answer.body)
}

/// Parses one answer.
pub(crate) fn parse(status: u16, headers: &[Header], body: &[u8]) -> EngineParse {
    if status != 200 {
        return EngineParse::Failure(status_failure(status, headers));
    }
    let Some(answer) = json_object(body) else {
        return EngineParse::Failure(EngineFailure::ParseFailure);
    };
    let Some(results) = answer.get("results").and_then(Value::as_array) else {
        return EngineParse::Failure(EngineFailure::ParseFailure);
    };
    EngineParse::Hits(results.iter().filter_map(hit).take(MAX_HITS).collect())
}

/// One result, or nothing without a title or a web URL.
fn hit(result: &Value) -> Option<EngineHit> {
    let title = str_of(result, "title")?;
    if title.trim().is_empty() {
        return None;
    }
    let url = str_of(result, "url").filter(|url| is_web_url(url))?;
    Some(EngineHit {
        title: title.to_owned(),
        url: url.to_owned(),
        snippet: str_of(result, "content").unwrap_or("").to_owned(),
        date: str_of(result, "publishedDate").and_then(iso_date_prefix),
    })
}

#[cfg(test)]
mod tests {

    use super::*;
    use crate::engine::test_support::{failure, hits};

    // Fixtures: testdata/searxng/PROVENANCE.md.
    const RUST: &[u8] = include_bytes!("../../testdata/searxng/written_search_json_rust.json");
    const NO_RESULTS: &[u8] =
        include_bytes!("../../testdata/searxng/written_search_json_no_results.json");
    const FORBIDDEN: &[u8] =
        include_bytes!("../../testdata/searxng/written_403_json_format_disabled.html");
    const TOO_MANY: &[u8] =
        include_bytes!("../../testdata/searxng/written_429_too_many_requests.html");

    #[test]
    fn gives_web_results_with_content_and_dates() {
        // Verifies: REQ-ENG-005, REQ-ENG-012
        let hits = hits(parse(200, &[], RUST));
        // The javascript: URL is not a result.
        assert_eq!(hits.len(), 2);
        assert_eq!(hits[0].url, "https://www.rust-lang.org/");
        assert_eq!(
            hits[0].snippet,
            "A language empowering everyone to build reliable and efficient software."
        );
        assert_eq!(hits[0].date, None);
        assert_eq!(hits[1].date.as_deref(), Some("2024-03-01"));
        assert!(hits[1].snippet.contains("<b>"));
    }

    #[test]
    fn no_results_and_refusals_are_classified() {
        // Verifies: REQ-ENG-005, REQ-ENG-006
        assert!(hits(parse(200, &[], NO_RESULTS)).is_empty());
        assert_eq!(failure(parse(403, &[], FORBIDDEN)), EngineFailure::Blocked);
        assert!(matches!(
            failure(parse(429, &[], TOO_MANY)),
            EngineFailure::RateLimited { .. }
        ));
        assert_eq!(
            failure(parse(200, &[], FORBIDDEN)),
            EngineFailure::ParseFailure
        );
    }
}
