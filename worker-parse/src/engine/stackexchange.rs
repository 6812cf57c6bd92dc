//! Stack Exchange's parser: an answer of the Stack Exchange API 2.3
//! (`/2.3/search/advanced`, a site such as `stackoverflow`) in, hits or a
//! failure class out (REQ-ENG-005, REQ-ENG-006). The request builder and the
//! admission record are the other half of this driver, in the supervisor's
//! `engine/stackexchange.rs`.
//!
//! A question becomes a hit whose URL is the question's `link`, whose date
//! is its creation day, and whose snippet gives its score, its answer count
//! (and whether one was accepted) and its tags. Titles arrive HTML-escaped;
//! the supervisor's content boundary decodes them.
//!
//! Failures: every error is the common wrapper `{"error_id", "error_name",
//! "error_message"}` (answered 400 or with the error's own status).
//! `throttle_violation` (502) is the rate limit; the access and key errors
//! (401, 402, 403, 405, 406) refuse the credential; the rest refuse the
//! request. The throttle answer as the API sends it carries neither
//! `backoff` nor `quota_remaining`: its wait is in the message, "… more
//! requests available in N seconds", and is read from there. The wrapper's
//! `backoff`, when a successful answer carries one, asks the client to wait
//! that many seconds before the same method again: the answer's hits are
//! kept and the wait travels as [`EngineParse::Paced`]. Every wait, whatever
//! its source or spelling (`1000.0`, `1e30`), is held by the one rule of a
//! provider's wait, `capped_wait_ms`.

use rypsok_proto::{EngineFailure, EngineHit, EngineParse, Header};
use serde_json::{Map, Value};

use super::text::{date_of_unix, join_parts};
use super::{
    Answer, MAX_HITS, capped_wait_ms, is_web_url, json_object, retry_after_ms, status_failure,
    str_of, whole_number,
};

/// `throttle_violation`: too many requests from this address or key.
const THROTTLE_VIOLATION: u64 = 502;
/// Errors about the key or the access token.
const CREDENTIAL_ERRORS: [u64; 5] = [401, 402, 403, 405, 406];

/// Tags listed in a snippet.
const TAGS_LISTED: usize = 5;

/// The entry point of the dispatch, which hands every parser the same
/// [`Answer`].
pub(crate) fn parse_answer(answer: &Answer<'_>) -> EngineParse {
    parse(answer.status, answer.headers, answer.body)
}

/// Parses one answer.
pub(crate) fn parse(status: u16, headers: &[Header], body: &[u8]) -> EngineParse {
    let answer = json_object(body);
    if let Some(answer) = &answer
        && let Some(error_id) = answer.get("error_id")
    {
        return EngineParse::Failure(classify(error_id.as_u64(), answer, headers));
    }
    if status != 200 {
        return EngineParse::Failure(status_failure(status, headers));
    }
    let Some(answer) = answer else {
        return EngineParse::Failure(EngineFailure::ParseFailure);
    };
    let Some(items) = answer.get("items").and_then(Value::as_array) else {
        return EngineParse::Failure(EngineFailure::ParseFailure);
    };
    let hits: Vec<EngineHit> = items.iter().filter_map(hit).take(MAX_HITS).collect();
    match backoff_ms(&answer) {
        Some(wait_ms) => EngineParse::Paced { hits, wait_ms },
        None => EngineParse::Hits(hits),
    }
}

/// The class of an error wrapper.
fn classify(
    error_id: Option<u64>,
    answer: &Map<String, Value>,
    headers: &[Header],
) -> EngineFailure {
    match error_id {
        Some(THROTTLE_VIOLATION) => EngineFailure::RateLimited {
            retry_after_ms: backoff_ms(answer)
                .or_else(|| message_wait_ms(answer))
                .or_else(|| retry_after_ms(headers)),
            // The daily quota of an address or key is spent when its
            // remaining count says so: a long wait, not a short one.
            quota: answer.get("quota_remaining").and_then(Value::as_u64) == Some(0),
        },
        Some(id) if CREDENTIAL_ERRORS.contains(&id) => EngineFailure::AuthFailure,
        _ => EngineFailure::RequestFailure,
    }
}

/// The wrapper's `backoff` (seconds) in milliseconds, capped by the one
/// rule. The documentation says an integer, but a number is a number: a
/// fraction (`1000.0`) waits its whole seconds rounded up, and one too
/// large for any integer (`1e30`) is the longest wait, not no wait. A
/// negative, absent or non-numeric value is no wait.
fn backoff_ms(answer: &Map<String, Value>) -> Option<u64> {
    let backoff = answer.get("backoff")?;
    let seconds = match backoff.as_u64() {
        Some(seconds) => seconds,
        None => {
            let seconds = backoff.as_f64().filter(|s| s.is_finite() && *s >= 0.0)?;
            // `as` saturates: past u64 is u64::MAX, which the cap holds.
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let whole = seconds.ceil() as u64;
            whole
        }
    };
    Some(capped_wait_ms(seconds))
}

/// The wait a throttle message names, "… more requests available in N
/// seconds", in milliseconds, capped by the one rule; `None` when the
/// message names none.
fn message_wait_ms(answer: &Map<String, Value>) -> Option<u64> {
    const MARK: &str = "available in ";
    let message = answer.get("error_message")?.as_str()?;
    // Bounded: the message is provider text of any length.
    let message = message.get(..message.len().min(512)).unwrap_or(message);
    let start = message.find(MARK)? + MARK.len();
    let rest = &message[start..];
    let digits = rest.split(|c: char| !c.is_ascii_digit()).next()?;
    let unit = rest[digits.len()..].trim_start();
    if !unit.starts_with("second") {
        return None;
    }
    whole_number(digits).map(capped_wait_ms)
}

/// One question, or nothing without a title or a web link.
fn hit(question: &Value) -> Option<EngineHit> {
    let title = str_of(question, "title")?;
    if title.trim().is_empty() {
        return None;
    }
    let url = str_of(question, "link").filter(|url| is_web_url(url))?;
    Some(EngineHit {
        title: title.to_owned(),
        url: url.to_owned(),
        snippet: snippet(question),
        date: question
            .get("creation_date")
            .and_then(Value::as_i64)
            .and_then(date_of_unix),
    })
}

/// "Score 112 · 3 answers, one accepted · rust, borrow-checker".
fn snippet(question: &Value) -> String {
    let score = question
        .get("score")
        .and_then(Value::as_i64)
        .map(|score| format!("Score {score}"))
        .unwrap_or_default();
    let answers = question
        .get("answer_count")
        .and_then(Value::as_u64)
        .map(|count| {
            let noun = if count == 1 { "answer" } else { "answers" };
            if question
                .get("accepted_answer_id")
                .is_some_and(|id| !id.is_null())
            {
                format!("{count} {noun}, one accepted")
            } else {
                format!("{count} {noun}")
            }
        })
        .unwrap_or_default();
    let tags = question
        .get("tags")
        .and_then(Value::as_array)
        .map(|tags| {
            tags.iter()
                .filter_map(Value::as_str)
                .take(TAGS_LISTED)
                .collect::<Vec<_>>()
                .join(", ")
        })
        .unwrap_or_default();
    join_parts([score.as_str(), answers.as_str(), tags.as_str()])
}

#[cfg(test)]
mod tests {

    use super::*;
    use crate::engine::test_support::failure;

    // Fixtures: testdata/stackexchange/PROVENANCE.md.
    const QUESTIONS: &[u8] =
        include_bytes!("../../testdata/stackexchange/written_search_advanced_borrow_checker.json");
    const NO_ITEMS: &[u8] =
        include_bytes!("../../testdata/stackexchange/written_search_advanced_no_items.json");
    const THROTTLED: &[u8] =
        include_bytes!("../../testdata/stackexchange/written_400_throttle_violation.json");
    const KEY_INVALID: &[u8] =
        include_bytes!("../../testdata/stackexchange/written_400_key_invalid.json");
    const TOKEN_REQUIRED: &[u8] =
        include_bytes!("../../testdata/stackexchange/written_401_access_token_required.json");

    #[test]
    fn gives_questions_with_score_and_answers_and_keeps_the_backoff() {
        // Verifies: REQ-ENG-005, REQ-ENG-012, REQ-CMP-002
        let EngineParse::Paced { hits, wait_ms } = parse(200, &[], QUESTIONS) else {
            panic!("a backoff paces the engine");
        };
        assert_eq!(wait_ms, 10_000);
        assert_eq!(hits.len(), 2);
        assert_eq!(
            hits[0].title,
            "Why does the borrow checker reject this loop?"
        );
        assert_eq!(
            hits[0].url,
            "https://stackoverflow.com/questions/30200000/why-does-the-borrow-checker-reject-this-loop"
        );
        assert_eq!(
            hits[0].snippet,
            "Score 112 · 3 answers, one accepted · rust, borrow-checker"
        );
        assert_eq!(hits[0].date.as_deref(), Some("2015-05-15"));
        assert_eq!(hits[1].snippet, "Score -1 · 0 answers · rust");
        // Titles stay escaped for the content boundary.
        assert!(hits[1].title.contains("&amp;"));
    }

    #[test]
    fn no_items_is_no_hits() {
        // Verifies: REQ-ENG-005
        assert_eq!(parse(200, &[], NO_ITEMS), EngineParse::Hits(Vec::new()));
    }

    #[test]
    fn the_error_wrapper_is_classified_by_error_id() {
        // Verifies: REQ-ENG-006
        assert_eq!(
            failure(parse(400, &[], KEY_INVALID)),
            EngineFailure::RequestFailure
        );
        assert_eq!(
            failure(parse(401, &[], TOKEN_REQUIRED)),
            EngineFailure::AuthFailure
        );
        // The wrapper decides even when sent with 200.
        assert_eq!(
            failure(parse(200, &[], TOKEN_REQUIRED)),
            EngineFailure::AuthFailure
        );
        let spent = br#"{"error_id":502,"error_name":"throttle_violation","backoff":60,
            "quota_remaining":0}"#;
        assert_eq!(
            failure(parse(400, &[], spent)),
            EngineFailure::RateLimited {
                retry_after_ms: Some(60_000),
                quota: true
            }
        );
        assert_eq!(
            failure(parse(200, &[], b"<html>")),
            EngineFailure::ParseFailure
        );
        assert_eq!(failure(parse(503, &[], b"")), EngineFailure::RequestFailure);
    }

    #[test]
    fn a_throttle_rests_the_engine_for_the_wait_its_message_names_capped() {
        // Verifies: REQ-ENG-006, REQ-RES-002
        // The documented throttle: HTTP 400, error_id 502, no `backoff`,
        // no `quota_remaining`; the message names 33635 seconds, past the
        // cap of the one rule.
        assert_eq!(
            failure(parse(400, &[], THROTTLED)),
            EngineFailure::RateLimited {
                retry_after_ms: Some(capped_wait_ms(33_635)),
                quota: false
            }
        );
        let short = br#"{"error_id":502,"error_name":"throttle_violation",
            "error_message":"too many requests from this IP, more requests available in 7 seconds"}"#;
        assert_eq!(
            failure(parse(400, &[], short)),
            EngineFailure::RateLimited {
                retry_after_ms: Some(7_000),
                quota: false
            }
        );
        // A message without a wait leaves the header's, or none.
        let bare =
            br#"{"error_id":502,"error_name":"throttle_violation","error_message":"slow down"}"#;
        assert_eq!(
            failure(parse(400, &[], bare)),
            EngineFailure::RateLimited {
                retry_after_ms: None,
                quota: false
            }
        );
    }

    #[test]
    fn an_absurd_backoff_is_capped_by_the_one_rule_not_ignored() {
        // Verifies: REQ-RES-002, REQ-CMP-002
        let cap = capped_wait_ms(u64::MAX);
        for (backoff, wait) in [
            ("1e30", cap),
            ("1000.0", capped_wait_ms(1000)),
            ("99999999999999999999999", cap),
            ("2.5", 3_000),
            ("10", 10_000),
        ] {
            let body = format!(r#"{{"items":[],"backoff":{backoff}}}"#);
            assert_eq!(
                parse(200, &[], body.as_bytes()),
                EngineParse::Paced {
                    hits: Vec::new(),
                    wait_ms: wait
                },
                "{backoff}"
            );
        }
        for ignored in ["-5", "\"soon\"", "null"] {
            let body = format!(r#"{{"items":[],"backoff":{ignored}}}"#);
            assert_eq!(
                parse(200, &[], body.as_bytes()),
                EngineParse::Hits(Vec::new()),
                "{ignored}"
            );
        }
    }

    #[test]
    fn a_status_without_the_error_wrapper_is_classified_by_the_shared_status_rule() {
        // Verifies: REQ-ENG-006
        let retry = crate::engine::test_support::headers(&[("retry-after", "30")]);
        for status in [429, 401, 403, 500, 502] {
            assert_eq!(
                failure(parse(status, &retry, b"<html>busy</html>")),
                status_failure(status, &retry),
                "{status}"
            );
        }
        assert_eq!(
            failure(parse(429, &retry, b"")),
            EngineFailure::RateLimited {
                retry_after_ms: Some(30_000),
                quota: false
            }
        );
    }
}
