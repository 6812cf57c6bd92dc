//! GDELT's parser: an answer of the GDELT DOC 2.0 API
//! (`/api/v2/doc/doc?mode=artlist&format=json`) in, hits or a failure class
//! out (REQ-ENG-005, REQ-ENG-006). The request builder, the admission record
//! and the pacing are the other half of this driver, in the supervisor's
//! `engine/gdelt.rs`.
//!
//! An article becomes a hit whose URL is the article, whose date is the day
//! GDELT saw it (`seendate`, `YYYYMMDDTHHMMSSZ`), and whose snippet names
//! the source: its domain, language and country. The API sends no text of
//! the article. A search without articles is answered `{}`.
//!
//! Failures: GDELT reports errors as plain text sent with 200, not JSON.
//! The text asking to "limit requests" is its rate limit; any other plain
//! text refuses the request (a phrase too short, an invalid operator); 429
//! is the rate limit too.

use rypsok_proto::{EngineFailure, EngineHit, EngineParse, Header};
use serde_json::Value;

use super::text::{join_parts, ymd};
use super::{Answer, MAX_HITS, is_web_url, json_object, retry_after_ms, status_failure, str_of};

/// The wording of GDELT's rate-limit answer.
const RATE_LIMIT_WORDS: &str = "limit requests";

/// Bytes of a plain-text answer searched for the rate-limit wording; the
/// answers are one sentence.
const TEXT_SCAN_BYTES: usize = 1024;

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
        return EngineParse::Failure(plain_text_failure(headers, body));
    };
    match answer.get("articles") {
        // No articles: GDELT's empty answer is an empty object.
        None if answer.is_empty() => EngineParse::Hits(Vec::new()),
        Some(Value::Array(articles)) => {
            EngineParse::Hits(articles.iter().filter_map(hit).take(MAX_HITS).collect())
        }
        _ => EngineParse::Failure(EngineFailure::ParseFailure),
    }
}

/// The class of a 200 answer that is not JSON: GDELT's plain-text errors,
/// or something else altogether (an HTML page: not an answer).
fn plain_text_failure(headers: &[Header], body: &[u8]) -> EngineFailure {
    let head = &body[..body.len().min(TEXT_SCAN_BYTES)];
    let text = String::from_utf8_lossy(head).to_ascii_lowercase();
    let text = text.trim_start();
    if text.contains(RATE_LIMIT_WORDS) {
        EngineFailure::RateLimited {
            retry_after_ms: retry_after_ms(headers),
            quota: false,
        }
    } else if text.is_empty() || text.starts_with('<') || text.starts_with(['{', '[']) {
        EngineFailure::ParseFailure
    } else {
        EngineFailure::RequestFailure
    }
}

/// One article, or nothing without a title or a web URL.
fn hit(article: &Value) -> Option<EngineHit> {
    let title = str_of(article, "title")?;
    if title.trim().is_empty() {
        return None;
    }
    let url = str_of(article, "url").filter(|url| is_web_url(url))?;
    let field = |key| str_of(article, key).unwrap_or("");
    Some(EngineHit {
        title: title.to_owned(),
        url: url.to_owned(),
        snippet: join_parts([field("domain"), field("language"), field("sourcecountry")]),
        date: str_of(article, "seendate").and_then(seen_date),
    })
}

/// `20240501T091500Z` as `2024-05-01`.
fn seen_date(value: &str) -> Option<String> {
    let digits = value.get(..8)?;
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let number = |range: std::ops::Range<usize>| digits[range].parse::<i64>().ok();
    ymd(number(0..4)?, number(4..6)?, number(6..8)?)
}

#[cfg(test)]
mod tests {

    use super::*;
    use crate::engine::test_support::{failure, headers, hits};

    // Fixtures: testdata/gdelt/PROVENANCE.md.
    const ARTICLES: &[u8] = include_bytes!("../../testdata/gdelt/written_artlist_climate.json");
    const NO_ARTICLES: &[u8] =
        include_bytes!("../../testdata/gdelt/written_artlist_no_articles.json");
    const RATE_LIMIT: &[u8] = include_bytes!("../../testdata/gdelt/written_rate_limit.txt");
    const TOO_SHORT: &[u8] = include_bytes!("../../testdata/gdelt/written_phrase_too_short.txt");

    #[test]
    fn gives_articles_with_their_source_and_day() {
        // Verifies: REQ-ENG-005, REQ-ENG-012
        let hits = hits(parse(200, &[], ARTICLES));
        assert_eq!(hits.len(), 2);
        assert_eq!(
            hits[0].title,
            "Climate summit opens with pledges on methane"
        );
        assert_eq!(
            hits[0].url,
            "https://www.example-news.org/2024/05/01/climate-summit-opens"
        );
        assert_eq!(
            hits[0].snippet,
            "example-news.org · English · United Kingdom"
        );
        assert_eq!(hits[0].date.as_deref(), Some("2024-05-01"));
        assert_eq!(hits[1].snippet, "zeitung.example.de · German · Germany");
    }

    #[test]
    fn the_empty_object_is_no_hits() {
        // Verifies: REQ-ENG-005
        assert!(hits(parse(200, &[], NO_ARTICLES)).is_empty());
    }

    #[test]
    fn plain_text_errors_are_classified() {
        // Verifies: REQ-ENG-006, REQ-CMP-002
        assert_eq!(
            failure(parse(200, &headers(&[("retry-after", "5")]), RATE_LIMIT)),
            EngineFailure::RateLimited {
                retry_after_ms: Some(5000),
                quota: false
            }
        );
        assert_eq!(
            failure(parse(200, &[], TOO_SHORT)),
            EngineFailure::RequestFailure
        );
        assert_eq!(
            failure(parse(200, &[], b"<html></html>")),
            EngineFailure::ParseFailure
        );
        assert_eq!(failure(parse(200, &[], b"")), EngineFailure::ParseFailure);
        assert_eq!(
            failure(parse(200, &[], br#"{"articles":"x"}"#)),
            EngineFailure::ParseFailure
        );
        assert!(matches!(
            failure(parse(429, &[], b"")),
            EngineFailure::RateLimited { .. }
        ));
    }

    #[test]
    fn reads_only_real_seen_dates() {
        // Verifies: REQ-ENG-005
        assert_eq!(seen_date("20240229T000000Z").as_deref(), Some("2024-02-29"));
        assert_eq!(seen_date("20230229T000000Z"), None);
        assert_eq!(seen_date("2024-05-01"), None);
        assert_eq!(seen_date("2024"), None);
        assert_eq!(seen_date("２０２４0501"), None);
    }
}
