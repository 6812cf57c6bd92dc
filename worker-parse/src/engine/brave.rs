//! Brave Search's parser: an answer of the Brave Search API's web endpoint
//! (`/res/v1/web/search`) or news endpoint (`/res/v1/news/search`) in, hits
//! or a failure class out (REQ-ENG-005, REQ-ENG-006, REQ-CMP-002). The
//! request builder and the admission record are the other half of this
//! driver, in the supervisor's `engine/brave.rs`.
//!
//! Titles and descriptions leave exactly as sent, `<strong>` markup and
//! entities included: the supervisor's content boundary cleans them. The two
//! endpoints are told apart by the answer's shape, so one parser serves both:
//! a web answer keeps its results under `web.results`, a news answer at the
//! top level under `results`.
//!
//! Failures: a refused key is 422 `SUBSCRIPTION_TOKEN_INVALID` (not 401);
//! a 429 is `RATE_LIMITED` (the per-second rate) or `QUOTA_LIMITED` (the
//! monthly allowance). Error bodies come in two shapes, an `error` object
//! (what real answers carry) and an `errors` array (what the reference pages
//! show); both are read. The delay before a retry comes from the
//! `X-RateLimit-*` headers, which carry one value per window (for example
//! `X-RateLimit-Remaining: 0, 1999` and `X-RateLimit-Reset: 1, 1419704`:
//! per second, then per month), and otherwise from `Retry-After`.

use rypsok_proto::{EngineFailure, EngineHit, EngineParse, Header};
use serde_json::{Map, Value};

use super::{Answer, capped_wait_ms, header_value, is_web_url, retry_after_ms, whole_number};

/// Hits kept from one answer. The supervisor asks for LIM-S3 (10); an
/// endpoint that ignores `count` cannot make the worker build more.
const MAX_HITS: usize = 50;

/// The key was refused.
const TOKEN_INVALID: &str = "SUBSCRIPTION_TOKEN_INVALID";
/// The plan's request rate (per second) was exceeded.
const RATE_LIMITED: &str = "RATE_LIMITED";
/// The plan's quota (per month) is spent.
const QUOTA_LIMITED: &str = "QUOTA_LIMITED";

/// Rate-limit windows read from one header: Brave sends two (second and
/// month); more are read so that a third window is not ignored, but a
/// header of thousands of commas is not.
const MAX_WINDOWS: usize = 8;

/// The entry point of the dispatch, which hands every parser the same
/// [`Answer`].
pub(crate) fn parse_answer(answer: &Answer<'_>) -> EngineParse {
    // Brave's answers carry absolute URLs: no base to build on.
    parse(answer.status, answer.headers, answer.body)
}

/// Parses one answer of either endpoint.
pub(crate) fn parse(status: u16, headers: &[Header], body: &[u8]) -> EngineParse {
    // serde_json bounds nesting depth itself, so a deeply nested body is an
    // error, not a stack overflow.
    let answer = match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(answer)) => Some(answer),
        _ => None,
    };
    if status != 200 {
        let codes = answer.as_ref().map(error_codes).unwrap_or_default();
        return EngineParse::Failure(classify_error(status, headers, &codes));
    }
    let Some(answer) = answer else {
        return EngineParse::Failure(EngineFailure::ParseFailure);
    };
    if is_error_body(&answer) {
        return EngineParse::Failure(classify_error(status, headers, &error_codes(&answer)));
    }
    results(&answer).map_or(
        EngineParse::Failure(EngineFailure::ParseFailure),
        |results| EngineParse::Hits(results.iter().filter_map(hit).take(MAX_HITS).collect()),
    )
}

/// The result list of a web or a news answer; `Some(&[])` for a web answer
/// without web results (Brave leaves the `web` section out when it has
/// none); `None` when the answer is neither.
fn results(answer: &Map<String, Value>) -> Option<&[Value]> {
    if let Some(web) = answer.get("web") {
        return web.get("results")?.as_array().map(Vec::as_slice);
    }
    if let Some(results) = answer.get("results") {
        return results.as_array().map(Vec::as_slice);
    }
    (answer.get("type").and_then(Value::as_str) == Some("search")).then_some(&[][..])
}

/// Whether a 200 answer is an error body all the same.
fn is_error_body(answer: &Map<String, Value>) -> bool {
    answer.contains_key("error")
        || answer.contains_key("errors")
        || answer.get("type").and_then(Value::as_str) == Some("ErrorResponse")
}

/// The `code` of every error in the body, in either shape.
fn error_codes(answer: &Map<String, Value>) -> Vec<&str> {
    let mut codes: Vec<&str> = Vec::new();
    if let Some(code) = answer.get("error").and_then(error_code) {
        codes.push(code);
    }
    if let Some(Value::Array(errors)) = answer.get("errors") {
        codes.extend(errors.iter().filter_map(error_code));
    }
    codes
}

fn error_code(error: &Value) -> Option<&str> {
    error.get("code").and_then(Value::as_str)
}

/// The failure class of an error answer: the body's code when it names
/// one this driver knows, else the status.
fn classify_error(status: u16, headers: &[Header], codes: &[&str]) -> EngineFailure {
    let has = |code: &str| codes.contains(&code);
    let rate_limited = |quota| EngineFailure::RateLimited {
        retry_after_ms: rate_limit_reset_ms(headers).or_else(|| retry_after_ms(headers)),
        quota,
    };
    if has(TOKEN_INVALID) {
        EngineFailure::AuthFailure
    } else if has(QUOTA_LIMITED) {
        rate_limited(true)
    } else if has(RATE_LIMITED) {
        rate_limited(false)
    } else {
        match status {
            429 => rate_limited(quota_exhausted(headers)),
            401 | 403 => EngineFailure::AuthFailure,
            // Any other status, 422 validation errors included, refuses or
            // fails this request; the 200s that carry an error body land
            // here too.
            _ => EngineFailure::RequestFailure,
        }
    }
}

/// Milliseconds until the rate-limit windows let a request through, from
/// `X-RateLimit-Reset`, capped at
/// [`RETRY_AFTER_MAX_S`](rypsok_proto::limits::RETRY_AFTER_MAX_S): the
/// longest reset among the windows `X-RateLimit-Remaining` reports as spent
/// (every spent window must reset first), else the first window's reset.
fn rate_limit_reset_ms(headers: &[Header]) -> Option<u64> {
    let resets = windows(headers, "x-ratelimit-reset")?;
    let remaining = windows(headers, "x-ratelimit-remaining").unwrap_or_default();
    let spent = resets
        .iter()
        .zip(&remaining)
        .filter(|(_, left)| **left == Some(0))
        .filter_map(|(reset, _)| *reset)
        .max();
    let seconds = spent.or(*resets.first()?)?;
    Some(capped_wait_ms(seconds))
}

/// Whether a 429 without a known code is the quota: the first (shortest)
/// window still has room and a later one is spent.
fn quota_exhausted(headers: &[Header]) -> bool {
    let Some(remaining) = windows(headers, "x-ratelimit-remaining") else {
        return false;
    };
    remaining.first().is_some_and(|first| *first != Some(0))
        && remaining.iter().skip(1).any(|left| *left == Some(0))
}

/// A comma-separated per-window header as numbers: `None` for an absent
/// header, `None` items for values that are not whole numbers (the engine
/// parsers' one number rule, so a huge reset caps like a huge Retry-After).
fn windows(headers: &[Header], name: &str) -> Option<Vec<Option<u64>>> {
    let value = header_value(headers, name)?;
    Some(
        value
            .split(',')
            .take(MAX_WINDOWS)
            .map(|item| whole_number(item.trim()))
            .collect(),
    )
}

/// One result, or nothing when it lacks a usable title or URL, or carries
/// a field of the wrong type. A missing description is an empty one.
fn hit(result: &Value) -> Option<EngineHit> {
    let title = result.get("title")?.as_str()?;
    if title.trim().is_empty() {
        return None;
    }
    let url = result.get("url")?.as_str()?;
    if !is_web_url(url) {
        return None;
    }
    let snippet = match result.get("description") {
        None | Some(Value::Null) => "",
        Some(description) => description.as_str()?,
    };
    Some(EngineHit {
        title: title.to_owned(),
        url: url.to_owned(),
        snippet: snippet.to_owned(),
        // `age` is free text ("1 month ago", "June 22, 2023"): not read.
        date: result
            .get("page_age")
            .and_then(Value::as_str)
            .and_then(page_date),
    })
}

/// `page_age` (`2024-12-27T15:49:55`, no zone) as `YYYY-MM-DD`, when its
/// date part is a real calendar date.
fn page_date(value: &str) -> Option<String> {
    let date = value.get(..10)?;
    let rest = &value[10..];
    (rypsok_proto::is_iso_date(date) && (rest.is_empty() || rest.starts_with('T')))
        .then(|| date.to_owned())
}

#[cfg(test)]
mod tests {

    use rypsok_proto::limits::{RETRY_AFTER_MAX_S, URL_MAX_CHARS};

    use super::*;
    use crate::engine::test_support::{failure, headers, hits};

    // Fixtures: testdata/brave/PROVENANCE.md.
    const WEB: &[u8] = include_bytes!("../../testdata/brave/web_search_hello_world_2024.json");
    const RATE_LIMITED_BODY: &[u8] =
        include_bytes!("../../testdata/brave/error_429_rate_limited_free_plan.json");
    const TOKEN_INVALID_BODY: &[u8] = include_bytes!(
        "../../testdata/brave/docs_example_error_422_subscription_token_invalid.json"
    );

    fn rate_limited(retry_after_ms: Option<u64>, quota: bool) -> EngineFailure {
        EngineFailure::RateLimited {
            retry_after_ms,
            quota,
        }
    }

    #[test]
    fn parses_the_twenty_web_results_in_order() {
        // Verifies: REQ-ENG-005, REQ-TEST-002
        let hits = hits(parse(200, &[], WEB));
        assert_eq!(hits.len(), 20);
        assert_eq!(hits[0].title, "\"Hello, World!\" program - Wikipedia");
        assert_eq!(
            hits[0].url,
            "https://en.wikipedia.org/wiki/%22Hello,_World!%22_program"
        );
        assert_eq!(hits[1].url, "https://www.helloworldcs.org/");
        assert_eq!(hits[19].title, "Go by Example: Hello World");
        assert_eq!(hits[19].url, "https://gobyexample.com/hello-world");
        // Videos and the other sections are not web results.
        assert!(
            hits.iter()
                .all(|hit| !hit.url.contains("watch?v=j2dhmBIobew"))
        );
    }

    #[test]
    fn passes_titles_and_descriptions_through_raw() {
        // Verifies: REQ-ENG-005, REQ-ENG-012
        let hits = hits(parse(200, &[], WEB));
        assert!(hits[0].snippet.starts_with(
            "A &quot;Hello, World!&quot; program is <strong>usually a simple computer program"
        ));
        assert!(hits[0].snippet.contains("language&#x27;s basic syntax."));
    }

    #[test]
    fn takes_dates_from_page_age_not_age() {
        // Verifies: REQ-ENG-005
        let hits = hits(parse(200, &[], WEB));
        assert_eq!(hits[0].date.as_deref(), Some("2024-12-27"));
        assert_eq!(hits[3].date.as_deref(), Some("2024-12-31"));
        // learnpython.org: neither page_age nor age.
        assert_eq!(hits[4].url, "https://www.learnpython.org/en/Hello,_World!");
        assert_eq!(hits[4].date, None);
        // hello-world.com: no page_age.
        assert_eq!(hits[13].date, None);
        let dated = hits.iter().filter(|hit| hit.date.is_some()).count();
        assert_eq!(dated, 16);
    }

    #[test]
    fn keeps_only_real_calendar_dates() {
        // Verifies: REQ-ENG-005
        assert_eq!(
            page_date("2024-02-29T00:00:00").as_deref(),
            Some("2024-02-29")
        );
        assert_eq!(
            page_date("2000-02-29T00:00:00").as_deref(),
            Some("2000-02-29")
        );
        assert_eq!(page_date("2024-12-31").as_deref(), Some("2024-12-31"));
        for value in [
            "2023-02-29T00:00:00",
            "1900-02-29T00:00:00",
            "2024-13-01T00:00:00",
            "2024-00-10T00:00:00",
            "2024-04-31T00:00:00",
            "2024-01-00T00:00:00",
            "0000-01-01T00:00:00",
            "2024-1-01T00:00:00",
            "2024/01/01T00:00:00",
            "2024-01-01 00:00:00",
            "2024-01-01x",
            "+024-01-01",
            "2024-01-0é",
            "June 22, 2023",
            "1 month ago",
            "",
        ] {
            assert_eq!(page_date(value), None, "{value:?}");
        }
    }

    #[test]
    fn parses_news_answers_at_the_top_level() {
        // Verifies: REQ-ENG-005
        // Hand-written in the documented news shape; no public capture.
        let body = br#"{"type":"news","query":{"original":"rust"},"results":[
            {"type":"news_result","title":"Rust 1.95 released","url":"https://blog.example/rust-1-95",
             "description":"The <strong>Rust</strong> team","age":"2 days ago","page_age":"2025-05-15T09:30:00"},
            {"type":"news_result","title":"No date","url":"http://news.example/a","age":"yesterday"}
        ]}"#;
        assert_eq!(
            hits(parse(200, &[], body)),
            vec![
                EngineHit {
                    title: "Rust 1.95 released".to_owned(),
                    url: "https://blog.example/rust-1-95".to_owned(),
                    snippet: "The <strong>Rust</strong> team".to_owned(),
                    date: Some("2025-05-15".to_owned()),
                },
                EngineHit {
                    title: "No date".to_owned(),
                    url: "http://news.example/a".to_owned(),
                    snippet: String::new(),
                    date: None,
                },
            ]
        );
        let empty = br#"{"type":"news","query":{"original":"x"},"results":[]}"#;
        assert_eq!(parse(200, &[], empty), EngineParse::Hits(vec![]));
    }

    #[test]
    fn answers_a_web_answer_without_web_results_as_empty() {
        // Verifies: REQ-ERR-005, REQ-ENG-005
        let body =
            br#"{"type":"search","query":{"original":"qwxzv"},"mixed":{"type":"mixed","main":[]}}"#;
        assert_eq!(parse(200, &[], body), EngineParse::Hits(vec![]));
    }

    #[test]
    fn keeps_only_http_and_https_urls() {
        // Verifies: REQ-ENG-005, REQ-SEC-014
        let long = format!("https://example.com/{}", "a".repeat(URL_MAX_CHARS));
        let body = serde_json::json!({"web": {"results": [
            {"title": "js", "url": "javascript:alert(1)"},
            {"title": "data", "url": "data:text/html,x"},
            {"title": "ftp", "url": "ftp://example.com/x"},
            {"title": "relative", "url": "/local/path"},
            {"title": "no host", "url": "https:///path"},
            {"title": "space", "url": "https://example.com/a b"},
            {"title": "newline", "url": "https://example.com/\nx"},
            {"title": "too long", "url": long},
            {"title": "number", "url": 7},
            {"title": "missing"},
            {"title": "Upper", "url": "HTTPS://Example.com/"},
            {"title": "plain", "url": "http://example.com"}
        ]}});
        let hits = hits(parse(200, &[], body.to_string().as_bytes()));
        let titles: Vec<&str> = hits.iter().map(|hit| hit.title.as_str()).collect();
        assert_eq!(titles, ["Upper", "plain"]);
        assert_eq!(hits[0].url, "HTTPS://Example.com/");
    }

    #[test]
    fn skips_results_without_a_title_or_with_wrong_types() {
        // Verifies: REQ-ENG-005
        let body = br#"{"web":{"results":[
            {"title":"","url":"https://a.example/"},
            {"title":"  ","url":"https://b.example/"},
            {"url":"https://c.example/"},
            {"title":["x"],"url":"https://d.example/"},
            {"title":"Bad description","url":"https://e.example/","description":5},
            "not an object",
            null,
            {"title":"Null description","url":"https://f.example/","description":null,"page_age":7},
            {"title":"Good","url":"https://g.example/","description":"kept","page_age":"2024-01-02T03:04:05"}
        ]}}"#;
        let hits = hits(parse(200, &[], body));
        assert_eq!(
            hits,
            vec![
                EngineHit {
                    title: "Null description".to_owned(),
                    url: "https://f.example/".to_owned(),
                    snippet: String::new(),
                    date: None,
                },
                EngineHit {
                    title: "Good".to_owned(),
                    url: "https://g.example/".to_owned(),
                    snippet: "kept".to_owned(),
                    date: Some("2024-01-02".to_owned()),
                },
            ]
        );
    }

    #[test]
    fn keeps_at_most_fifty_hits() {
        // Verifies: REQ-ENG-011, REQ-SEC-010
        let results: Vec<String> = (0..200)
            .map(|i| format!(r#"{{"title":"T{i}","url":"https://e.example/{i}"}}"#))
            .collect();
        let body = format!(r#"{{"results":[{}]}}"#, results.join(","));
        let hits = hits(parse(200, &[], body.as_bytes()));
        assert_eq!(hits.len(), MAX_HITS);
        assert_eq!(hits[49].title, "T49");
    }

    #[test]
    fn classifies_an_invalid_key_as_auth_failure_in_both_shapes() {
        // Verifies: REQ-ENG-006
        assert_eq!(
            failure(parse(422, &[], TOKEN_INVALID_BODY)),
            EngineFailure::AuthFailure
        );
        let object = br#"{"type":"ErrorResponse","error":{"id":"x","status":422,"code":"SUBSCRIPTION_TOKEN_INVALID","detail":"The provided subscription token is invalid.","meta":{"component":"authentication"}},"time":1}"#;
        assert_eq!(failure(parse(422, &[], object)), EngineFailure::AuthFailure);
        for status in [401, 403] {
            assert_eq!(failure(parse(status, &[], b"")), EngineFailure::AuthFailure);
        }
    }

    #[test]
    fn classifies_other_422s_as_request_failure() {
        // Verifies: REQ-ENG-006
        let validation = br#"{"type":"ErrorResponse","error":{"id":"x","status":422,"code":"VALIDATION","detail":"Unable to validate request parameter(s)"}}"#;
        assert_eq!(
            failure(parse(422, &[], validation)),
            EngineFailure::RequestFailure
        );
        assert_eq!(
            failure(parse(422, &[], b"<html>Unprocessable</html>")),
            EngineFailure::RequestFailure
        );
    }

    #[test]
    fn reads_the_rate_limited_body_and_the_per_second_window() {
        // Verifies: REQ-ENG-006, REQ-CMP-002
        let limits = headers(&[
            ("x-ratelimit-limit", "1, 2000"),
            ("x-ratelimit-policy", "1;w=1, 2000;w=2592000"),
            ("x-ratelimit-remaining", "0, 1985"),
            ("x-ratelimit-reset", "1, 1419704"),
        ]);
        assert_eq!(
            failure(parse(429, &limits, RATE_LIMITED_BODY)),
            rate_limited(Some(1000), false)
        );
        // Without rate-limit headers, Retry-After; without either, unknown.
        let retry = headers(&[("retry-after", "2")]);
        assert_eq!(
            failure(parse(429, &retry, RATE_LIMITED_BODY)),
            rate_limited(Some(2000), false)
        );
        assert_eq!(
            failure(parse(429, &[], RATE_LIMITED_BODY)),
            rate_limited(None, false)
        );
    }

    #[test]
    fn tells_a_spent_quota_from_the_rate_and_caps_its_wait() {
        // Verifies: REQ-ENG-006, REQ-CMP-002
        let quota_body = br#"{"type":"ErrorResponse","error":{"id":"x","status":429,"code":"QUOTA_LIMITED","detail":"Request quota limit exceeded for plan"}}"#;
        let spent = headers(&[
            ("X-RateLimit-Remaining", "1, 0"),
            ("X-RateLimit-Reset", "1, 1419704"),
        ]);
        let capped = Some(RETRY_AFTER_MAX_S * 1000);
        assert_eq!(
            failure(parse(429, &spent, quota_body)),
            rate_limited(capped, true)
        );
        // The errors-array shape.
        let array = br#"{"type":"ErrorResponse","errors":[{"code":"QUOTA_LIMITED","status":429}]}"#;
        assert_eq!(failure(parse(429, &[], array)), rate_limited(None, true));
        // No known code: the headers tell.
        assert_eq!(
            failure(parse(429, &spent, b"Too Many Requests")),
            rate_limited(capped, true)
        );
        let both_spent = headers(&[
            ("x-ratelimit-remaining", "0, 0"),
            ("x-ratelimit-reset", "1, 30"),
        ]);
        assert_eq!(
            failure(parse(429, &both_spent, b"")),
            rate_limited(Some(30_000), false)
        );
    }

    #[test]
    fn reads_rate_limit_windows_leniently() {
        // Verifies: REQ-ENG-006
        let reset = |pairs: &[(&str, &str)]| rate_limit_reset_ms(&headers(pairs));
        // Nothing spent: the first window.
        assert_eq!(
            reset(&[
                ("x-ratelimit-reset", "3, 100"),
                ("x-ratelimit-remaining", "1, 5")
            ]),
            Some(3000)
        );
        // No Remaining header: the first window.
        assert_eq!(reset(&[("x-ratelimit-reset", " 4 ,100")]), Some(4000));
        // The spent window's value is garbage, another one is not.
        assert_eq!(
            reset(&[
                ("x-ratelimit-reset", "x, 9"),
                ("x-ratelimit-remaining", "0, 0")
            ]),
            Some(9000)
        );
        assert_eq!(reset(&[("x-ratelimit-reset", "soon")]), None);
        assert_eq!(reset(&[("x-ratelimit-reset", "")]), None);
        assert_eq!(reset(&[("x-ratelimit-reset", "-1")]), None);
        assert_eq!(
            reset(&[("x-ratelimit-reset", "99999999999999999999999")]),
            Some(RETRY_AFTER_MAX_S * 1000)
        );
        assert_eq!(reset(&[]), None);
        let many = vec!["5"; 10_000].join(",");
        assert_eq!(reset(&[("x-ratelimit-reset", many.as_str())]), Some(5000));
    }

    #[test]
    fn classifies_other_statuses() {
        // Verifies: REQ-ENG-006
        for status in [400, 404, 500, 502, 503, 204, 301, 100, 999] {
            assert_eq!(
                failure(parse(status, &[], WEB)),
                EngineFailure::RequestFailure,
                "{status}"
            );
        }
        // An error body behind a 200 is still an error.
        assert_eq!(
            failure(parse(200, &[], TOKEN_INVALID_BODY)),
            EngineFailure::AuthFailure
        );
        assert_eq!(
            failure(parse(200, &[], RATE_LIMITED_BODY)),
            rate_limited(None, false)
        );
        assert_eq!(
            failure(parse(200, &[], br#"{"type":"ErrorResponse"}"#)),
            EngineFailure::RequestFailure
        );
    }

    #[test]
    fn classifies_non_json_and_foreign_json_as_parse_failure() {
        // Verifies: REQ-ENG-006, REQ-SEC-014
        for body in [
            &b"<!DOCTYPE html><html>Bad gateway</html>"[..],
            b"",
            b"\xff\xfe\x00garbage",
            b"[]",
            b"null",
            br#"{"type":"videos","results":{}}"#,
            br#"{"web":{"type":"search"}}"#,
            br#"{"web":{"results":{}}}"#,
            br#"{"type":"images"}"#,
        ] {
            assert_eq!(
                failure(parse(200, &[], body)),
                EngineFailure::ParseFailure,
                "{body:?}"
            );
        }
        let half = &WEB[..WEB.len() / 2];
        assert_eq!(failure(parse(200, &[], half)), EngineFailure::ParseFailure);
    }

    #[test]
    fn never_panics_on_any_prefix_of_an_answer() {
        // Verifies: REQ-SEC-014
        for fixture in [RATE_LIMITED_BODY, TOKEN_INVALID_BODY] {
            for end in 0..=fixture.len() {
                for status in [200, 422, 429] {
                    let _ = parse(status, &[], &fixture[..end]);
                }
            }
        }
        for end in (0..=WEB.len()).step_by(7) {
            let _ = parse(200, &[], &WEB[..end]);
        }
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert_eq!(
            failure(parse(200, &[], deep.as_bytes())),
            EngineFailure::ParseFailure
        );
        let odd = headers(&[
            ("x-ratelimit-reset", ",,,é,\u{0}"),
            ("x-ratelimit-remaining", "0,0,0,0,0,0,0,0,0,0"),
        ]);
        let _ = parse(429, &odd, b"");
    }
}
