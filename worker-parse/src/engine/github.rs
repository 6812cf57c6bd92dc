//! GitHub's parser: an answer of GitHub's REST search
//! (`/search/repositories`, or `/search/issues`) in, hits or a failure class
//! out (REQ-ENG-005, REQ-ENG-006). The request builder and the admission
//! record are the other half of this driver, in the supervisor's
//! `engine/github.rs`.
//!
//! A repository becomes a hit titled with its full name, whose URL is its
//! page and whose snippet is its description (with its language and stars);
//! its date is its last push. An issue or pull request becomes a hit with
//! its title, its page, the first sentences of its body and its creation
//! day. The two shapes are told apart by their fields, so one parser reads
//! both endpoints.
//!
//! Failures: the primary rate limit is 403 or 429 with
//! `x-ratelimit-remaining: 0`; the secondary rate limit is 403 or 429 whose
//! `message` names it, usually with `retry-after`. Both are `rate_limited`.
//! 401 is a refused token; any other 403 a block; 422 (a query GitHub cannot
//! run) and the rest a failed request.
//!
//! The wait, as "Rate limits for the REST API" ("Exceeding the rate limit",
//! <https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api>)
//! asks: `retry-after` when present; else, with `x-ratelimit-remaining: 0`,
//! until `x-ratelimit-reset` (UTC epoch seconds, read against the answer's
//! `Date`); else, for the secondary limit, at least one minute. A
//! successful answer that spends the window (`x-ratelimit-remaining: 0`)
//! counts, and pauses the engine until the reset. Every wait is capped at
//! `RETRY_AFTER_MAX_S`.

use rypsok_proto::limits::SNIPPET_MAX_CHARS;
use rypsok_proto::{EngineFailure, EngineHit, EngineParse, Header};
use serde_json::{Map, Value};

use super::text::{first_sentences, iso_date_prefix, join_parts, plain_text};
use super::{
    Answer, MAX_HITS, is_web_url, json_object, rate_window_spent, reset_epoch_wait_ms,
    retry_after_ms, str_of,
};

/// The words GitHub's secondary rate limit answers carry in `message`.
const SECONDARY_LIMIT_WORDS: &str = "secondary rate limit";

/// The wait after a secondary rate limit that names none: "wait for at
/// least one minute before retrying" (the documentation above).
const SECONDARY_LIMIT_WAIT_MS: u64 = 60_000;

/// The entry point of the dispatch, which hands every parser the same
/// [`Answer`].
pub(crate) fn parse_answer(answer: &Answer<'_>) -> EngineParse {
    parse(answer.status, answer.headers, answer.body)
}

/// Parses one answer.
pub(crate) fn parse(status: u16, headers: &[Header], body: &[u8]) -> EngineParse {
    let answer = json_object(body);
    if status != 200 {
        return EngineParse::Failure(classify(status, headers, answer.as_ref()));
    }
    let Some(answer) = answer else {
        return EngineParse::Failure(EngineFailure::ParseFailure);
    };
    let Some(items) = answer.get("items").and_then(Value::as_array) else {
        return EngineParse::Failure(EngineFailure::ParseFailure);
    };
    let hits = items.iter().filter_map(hit).take(MAX_HITS).collect();
    match reset_epoch_wait_ms(headers).filter(|_| rate_window_spent(headers)) {
        Some(wait_ms) => EngineParse::Paced { hits, wait_ms },
        None => EngineParse::Hits(hits),
    }
}

/// The class of an answer other than 200.
fn classify(status: u16, headers: &[Header], answer: Option<&Map<String, Value>>) -> EngineFailure {
    let message = answer
        .and_then(|answer| answer.get("message"))
        .and_then(Value::as_str)
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    let secondary = message.contains(SECONDARY_LIMIT_WORDS);
    let primary_spent = rate_window_spent(headers);
    match status {
        403 | 429 if secondary || primary_spent || status == 429 => EngineFailure::RateLimited {
            retry_after_ms: retry_after_ms(headers)
                .or_else(|| reset_epoch_wait_ms(headers).filter(|_| primary_spent))
                .or(secondary.then_some(SECONDARY_LIMIT_WAIT_MS)),
            quota: false,
        },
        401 => EngineFailure::AuthFailure,
        403 => EngineFailure::Blocked,
        _ => EngineFailure::RequestFailure,
    }
}

/// One repository or issue, or nothing without a title or a web URL.
fn hit(item: &Value) -> Option<EngineHit> {
    let url = str_of(item, "html_url").filter(|url| is_web_url(url))?;
    if let Some(full_name) = str_of(item, "full_name") {
        return repository(item, full_name, url);
    }
    let title = str_of(item, "title")?;
    if title.trim().is_empty() {
        return None;
    }
    let body = str_of(item, "body").map(plain_text).unwrap_or_default();
    Some(EngineHit {
        title: title.to_owned(),
        url: url.to_owned(),
        snippet: first_sentences(&body, SNIPPET_MAX_CHARS),
        date: str_of(item, "created_at").and_then(iso_date_prefix),
    })
}

fn repository(item: &Value, full_name: &str, url: &str) -> Option<EngineHit> {
    if full_name.trim().is_empty() {
        return None;
    }
    let description = str_of(item, "description").unwrap_or("");
    let language = str_of(item, "language").unwrap_or("");
    let stars = item
        .get("stargazers_count")
        .and_then(Value::as_u64)
        .map(|stars| format!("{stars} stars"))
        .unwrap_or_default();
    Some(EngineHit {
        title: full_name.to_owned(),
        url: url.to_owned(),
        snippet: join_parts([description, language, stars.as_str()]),
        date: str_of(item, "pushed_at").and_then(iso_date_prefix),
    })
}

#[cfg(test)]
mod tests {

    use rypsok_proto::limits::RETRY_AFTER_MAX_S;

    use super::*;
    use crate::engine::test_support::{failure, headers, hits};

    // Fixtures: testdata/github/PROVENANCE.md.
    const REPOSITORIES: &[u8] =
        include_bytes!("../../testdata/github/written_search_repositories_tetris.json");
    const EMPTY: &[u8] =
        include_bytes!("../../testdata/github/written_search_repositories_empty.json");
    const ISSUES: &[u8] = include_bytes!("../../testdata/github/search_issues_sesame_octokit.json");
    const SECONDARY: &[u8] =
        include_bytes!("../../testdata/github/written_403_secondary_rate_limit.json");
    const PRIMARY: &[u8] =
        include_bytes!("../../testdata/github/written_403_primary_rate_limit.json");
    const BAD_CREDENTIALS: &[u8] =
        include_bytes!("../../testdata/github/written_401_bad_credentials.json");
    const VALIDATION: &[u8] =
        include_bytes!("../../testdata/github/errors_422_validation_failed_octokit.json");

    #[test]
    fn gives_repositories_with_their_description() {
        // Verifies: REQ-ENG-005, REQ-ENG-012
        let hits = hits(parse(200, &[], REPOSITORIES));
        assert_eq!(hits.len(), 2);
        assert_eq!(hits[0].title, "dtrupenn/Tetris");
        assert_eq!(hits[0].url, "https://github.com/dtrupenn/Tetris");
        assert_eq!(
            hits[0].snippet,
            "A C implementation of Tetris using Pennsim through LC4 · Assembly · 1 stars"
        );
        assert_eq!(hits[0].date.as_deref(), Some("2012-01-01"));
        // No description and no language: the stars alone.
        assert_eq!(hits[1].snippet, "0 stars");
    }

    #[test]
    fn gives_issues_with_their_body() {
        // Verifies: REQ-ENG-005
        let hits = hits(parse(200, &[], ISSUES));
        assert_eq!(hits.len(), 2);
        assert_eq!(hits[0].title, "Sesame seeds split without a pop!");
        assert_eq!(
            hits[0].url,
            "https://github.com/octokit-fixture-org/search-issues/issues/2"
        );
        assert_eq!(
            hits[0].snippet,
            "I’ve waited all year long, but there was no pop 😭"
        );
        assert_eq!(hits[0].date.as_deref(), Some("2017-10-10"));
    }

    #[test]
    fn an_empty_search_is_no_hits() {
        // Verifies: REQ-ENG-005
        assert!(hits(parse(200, &[], EMPTY)).is_empty());
    }

    #[test]
    fn both_rate_limits_are_recognised() {
        // Verifies: REQ-ENG-006, REQ-CMP-002
        assert_eq!(
            failure(parse(403, &headers(&[("retry-after", "60")]), SECONDARY)),
            EngineFailure::RateLimited {
                retry_after_ms: Some(60_000),
                quota: false
            }
        );
        assert!(matches!(
            failure(parse(429, &[], SECONDARY)),
            EngineFailure::RateLimited { .. }
        ));
        assert!(matches!(
            failure(parse(
                403,
                &headers(&[("x-ratelimit-remaining", "0"), ("x-ratelimit-limit", "10")]),
                PRIMARY
            )),
            EngineFailure::RateLimited { .. }
        ));
    }

    /// `Date` of the moment 1_700_000_000 (UTC epoch seconds).
    const DATE: (&str, &str) = ("date", "Tue, 14 Nov 2023 22:13:20 GMT");

    #[test]
    fn a_spent_primary_limit_waits_until_its_reset() {
        // Verifies: REQ-RES-002, REQ-CMP-002
        let spent = headers(&[
            ("x-ratelimit-limit", "10"),
            ("x-ratelimit-remaining", "0"),
            ("x-ratelimit-reset", "1700000045"),
            DATE,
        ]);
        assert_eq!(
            failure(parse(403, &spent, PRIMARY)),
            EngineFailure::RateLimited {
                retry_after_ms: Some(45_000),
                quota: false
            }
        );
        // A reset hours away is held to the longest wait.
        let far = headers(&[
            ("x-ratelimit-remaining", "0"),
            ("x-ratelimit-reset", "1800000000"),
            DATE,
        ]);
        assert_eq!(
            failure(parse(429, &far, PRIMARY)),
            EngineFailure::RateLimited {
                retry_after_ms: Some(RETRY_AFTER_MAX_S * 1000),
                quota: false
            }
        );
        // So is one past any clock, however many digits it has.
        let absurd = "9".repeat(100);
        let absurd = headers(&[
            ("x-ratelimit-remaining", "0"),
            ("x-ratelimit-reset", absurd.as_str()),
            DATE,
        ]);
        assert_eq!(
            failure(parse(403, &absurd, PRIMARY)),
            EngineFailure::RateLimited {
                retry_after_ms: Some(RETRY_AFTER_MAX_S * 1000),
                quota: false
            }
        );
        // `retry-after` comes first.
        let both = headers(&[
            ("retry-after", "7"),
            ("x-ratelimit-remaining", "0"),
            ("x-ratelimit-reset", "1700000045"),
            DATE,
        ]);
        assert_eq!(
            failure(parse(403, &both, PRIMARY)),
            EngineFailure::RateLimited {
                retry_after_ms: Some(7000),
                quota: false
            }
        );
    }

    #[test]
    fn a_secondary_limit_without_a_delay_waits_a_minute() {
        // Verifies: REQ-RES-002, REQ-CMP-002
        let open = headers(&[
            ("x-ratelimit-remaining", "8"),
            ("x-ratelimit-reset", "1700000045"),
            DATE,
        ]);
        assert_eq!(
            failure(parse(403, &open, SECONDARY)),
            EngineFailure::RateLimited {
                retry_after_ms: Some(60_000),
                quota: false
            }
        );
    }

    #[test]
    fn an_answer_that_spends_the_window_pauses_until_its_reset() {
        // Verifies: REQ-RES-002, REQ-CMP-002
        let last = headers(&[
            ("x-ratelimit-remaining", "0"),
            ("x-ratelimit-reset", "1700000030"),
            DATE,
        ]);
        match parse(200, &last, REPOSITORIES) {
            EngineParse::Paced { hits, wait_ms } => {
                assert_eq!(hits.len(), 2);
                assert_eq!(wait_ms, 30_000);
            }
            other => panic!("expected a pause, got {other:?}"),
        }
        // Requests left, or no readable reset: no pause.
        let left = headers(&[
            ("x-ratelimit-remaining", "3"),
            ("x-ratelimit-reset", "1700000030"),
            DATE,
        ]);
        assert!(matches!(
            parse(200, &left, REPOSITORIES),
            EngineParse::Hits(_)
        ));
        let no_date = headers(&[
            ("x-ratelimit-remaining", "0"),
            ("x-ratelimit-reset", "1700000030"),
        ]);
        assert!(matches!(
            parse(200, &no_date, REPOSITORIES),
            EngineParse::Hits(_)
        ));
    }

    #[test]
    fn credentials_blocks_and_bad_queries_are_classified() {
        // Verifies: REQ-ENG-006
        assert_eq!(
            failure(parse(401, &[], BAD_CREDENTIALS)),
            EngineFailure::AuthFailure
        );
        assert_eq!(
            failure(parse(
                403,
                &headers(&[("x-ratelimit-remaining", "9")]),
                b"{}"
            )),
            EngineFailure::Blocked
        );
        assert_eq!(
            failure(parse(422, &[], VALIDATION)),
            EngineFailure::RequestFailure
        );
        assert_eq!(
            failure(parse(200, &[], VALIDATION)),
            EngineFailure::ParseFailure
        );
    }
}
