//! Wikipedia's parser: a MediaWiki Action API answer to
//! `action=query&list=search&format=json&formatversion=2` in, hits or a
//! failure class out (REQ-ENG-005, REQ-ENG-006, REQ-ENG-009). The request
//! builder and the admission record are the other half of this driver, in
//! the supervisor's `engine/wikipedia.rs`.
//!
//! Titles and snippets leave exactly as sent, markup and entities included:
//! the supervisor's content boundary cleans them. The answers carry no URL,
//! so each is built from the title the way MediaWiki builds article paths.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use rypsok_proto::{EngineFailure, EngineHit, EngineParse, Header};
use serde_json::{Map, Value};

use super::{Answer, retry_after_ms};

/// Hits kept from one answer. The supervisor asks for LIM-S3 (10); a
/// mirror that ignores `srlimit` cannot make the worker build more.
const MAX_HITS: usize = 50;

/// Bytes of a 403 body searched for the block wording: Wikimedia's block
/// answers are one line of text.
const BLOCK_SCAN_BYTES: usize = 4096;

/// What MediaWiki's `wfUrlencode` leaves unescaped in article paths: PHP's
/// `urlencode` keeps ASCII letters, digits and `-._`; MediaWiki then
/// restores `;:@$!*(),/~`. Everything else, non-ASCII UTF-8 included, is
/// percent-encoded.
const ARTICLE_PATH: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b';')
    .remove(b':')
    .remove(b'@')
    .remove(b'$')
    .remove(b'!')
    .remove(b'*')
    .remove(b'(')
    .remove(b')')
    .remove(b',')
    .remove(b'/')
    .remove(b'~');

/// API error codes that mean "slow down" rather than "bad request":
/// `ratelimited` (the API's own rate limiter) and `maxlag` (replication lag;
/// the API asks the client to come back after Retry-After).
const SLOW_DOWN_CODES: [&str; 2] = ["ratelimited", "maxlag"];

/// The entry point of the dispatch, which hands every parser the same
/// [`Answer`].
pub(crate) fn parse_answer(answer: &Answer<'_>) -> EngineParse {
    parse(answer.base_url, answer.status, answer.headers, answer.body)
}

/// Parses one answer; `base_url` is the article path the URLs are built on
/// (for example `https://en.wikipedia.org/wiki/`).
pub(crate) fn parse(base_url: &str, status: u16, headers: &[Header], body: &[u8]) -> EngineParse {
    match status {
        200 => parse_served(base_url, headers, body),
        429 => EngineParse::Failure(EngineFailure::RateLimited {
            retry_after_ms: retry_after_ms(headers),
            quota: false,
        }),
        403 if is_user_agent_block(body) => EngineParse::Failure(EngineFailure::Blocked),
        // Other 4xx and 5xx are the provider refusing or failing this
        // request. The API itself answers 200 for everything it serves,
        // errors included, so any other status (another 2xx, an unfollowed
        // redirect) is also not an answer to parse.
        _ => EngineParse::Failure(EngineFailure::RequestFailure),
    }
}

/// A 403 from Wikimedia's edge that names the User-Agent policy (or the
/// robot policy) is a block of this client, not a refusal of the query.
fn is_user_agent_block(body: &[u8]) -> bool {
    let head = &body[..body.len().min(BLOCK_SCAN_BYTES)];
    let text = String::from_utf8_lossy(head).to_ascii_lowercase();
    ["user-agent", "user agent", "robot policy"]
        .iter()
        .any(|marker| text.contains(marker))
}

/// Parses an answer the API served (status 200): results, or its own error.
fn parse_served(base_url: &str, headers: &[Header], body: &[u8]) -> EngineParse {
    // serde_json bounds nesting depth itself, so a deeply nested body is an
    // error, not a stack overflow.
    let Ok(Value::Object(answer)) = serde_json::from_slice::<Value>(body) else {
        return EngineParse::Failure(EngineFailure::ParseFailure);
    };
    if let Some(failure) = api_error(&answer, headers) {
        return EngineParse::Failure(failure);
    }
    let Some(results) = answer
        .get("query")
        .and_then(|query| query.get("search"))
        .and_then(Value::as_array)
    else {
        return EngineParse::Failure(EngineFailure::ParseFailure);
    };
    EngineParse::Hits(
        results
            .iter()
            .filter_map(|result| hit(base_url, result))
            .take(MAX_HITS)
            .collect(),
    )
}

/// An API error in either shape: the default `error` object, or the
/// `errors` array of `errorformat=plaintext` (and the other error formats).
fn api_error(answer: &Map<String, Value>, headers: &[Header]) -> Option<EngineFailure> {
    let codes: Vec<Option<&str>> = match (answer.get("error"), answer.get("errors")) {
        (Some(error), _) => vec![error_code(error)],
        (None, Some(Value::Array(errors))) if !errors.is_empty() => {
            errors.iter().map(error_code).collect()
        }
        _ => return None,
    };
    let slow_down = codes
        .iter()
        .flatten()
        .any(|code| SLOW_DOWN_CODES.contains(code));
    Some(if slow_down {
        EngineFailure::RateLimited {
            retry_after_ms: retry_after_ms(headers),
            quota: false,
        }
    } else {
        EngineFailure::RequestFailure
    })
}

fn error_code(error: &Value) -> Option<&str> {
    error.get("code").and_then(Value::as_str)
}

/// One search result, or nothing when it lacks a usable title or carries
/// a field of the wrong type. A missing snippet is an empty one: the
/// supervisor asks for it, a mirror may not send it.
fn hit(base_url: &str, result: &Value) -> Option<EngineHit> {
    let title = result.get("title")?.as_str()?;
    if title.trim().is_empty() {
        return None;
    }
    let snippet = match result.get("snippet") {
        None => "",
        Some(snippet) => snippet.as_str()?,
    };
    Some(EngineHit {
        title: title.to_owned(),
        url: article_url(base_url, title),
        snippet: snippet.to_owned(),
        // `timestamp` is the last edit, not a publication date.
        date: None,
    })
}

/// The article URL MediaWiki itself links to: the title's spaces become
/// underscores (its database key), then `wfUrlencode`.
fn article_url(base_url: &str, title: &str) -> String {
    let key = title.replace(' ', "_");
    format!("{base_url}{}", utf8_percent_encode(&key, ARTICLE_PATH))
}

#[cfg(test)]
mod tests {

    use super::*;
    use crate::engine::test_support::{failure, hits};

    // Fixtures: testdata/wikipedia/PROVENANCE.md.
    const COUNTER_STRIKE: &[u8] =
        include_bytes!("../../testdata/wikipedia/en_search_counter_strike_2021.json");
    const HALLO: &[u8] = include_bytes!("../../testdata/wikipedia/de_search_hallo_2019.json");
    const NO_RESULTS: &[u8] =
        include_bytes!("../../testdata/wikipedia/en_search_no_results_gobbilygook_2017.json");
    const ERROR_NOSRSEARCH: &[u8] =
        include_bytes!("../../testdata/wikipedia/frwiktionary_error_nosrsearch.json");
    const BLOCK_BODY: &[u8] =
        include_bytes!("../../testdata/wikipedia/wikimedia_403_user_agent_policy.txt");
    const BLOCK_HEADERS: &str =
        include_str!("../../testdata/wikipedia/wikimedia_403_user_agent_policy.headers.txt");

    const EN: &str = "https://en.wikipedia.org/wiki/";
    const DE: &str = "https://de.wikipedia.org/wiki/";

    fn header(name: &str, value: &str) -> Header {
        Header {
            name: name.to_owned(),
            value: value.to_owned(),
        }
    }

    /// Reads a `.headers.txt` fixture: `HTTP <status>`, then `name: value`
    /// lines.
    fn status_and_headers(text: &str) -> (u16, Vec<Header>) {
        let mut lines = text.lines();
        let status = lines
            .next()
            .and_then(|line| line.strip_prefix("HTTP "))
            .and_then(|code| code.trim().parse().ok())
            .expect("status line");
        let headers = lines
            .filter_map(|line| line.split_once(':'))
            .map(|(name, value)| header(&name.to_ascii_lowercase(), value.trim()))
            .collect();
        (status, headers)
    }

    #[test]
    fn parses_ten_counter_strike_hits_in_order() {
        // Verifies: REQ-ENG-005, REQ-TEST-002
        let hits = hits(parse(EN, 200, &[], COUNTER_STRIKE));
        let titles: Vec<&str> = hits.iter().map(|hit| hit.title.as_str()).collect();
        assert_eq!(
            titles,
            [
                "Counter-Strike",
                "Counter-Strike: Global Offensive",
                "Counter-Strike: Source",
                "Counter-Strike (video game)",
                "Counter-Strike Online",
                "Counter-Strike: Global Offensive Major Championships",
                "Counter-Strike: Condition Zero",
                "Counter-Strike in esports",
                "Counter-Strike: Malvinas",
                "Counter-Strike match fixing scandal",
            ]
        );
        assert_eq!(hits[0].url, "https://en.wikipedia.org/wiki/Counter-Strike");
        assert_eq!(
            hits[1].url,
            "https://en.wikipedia.org/wiki/Counter-Strike:_Global_Offensive"
        );
        assert_eq!(
            hits[3].url,
            "https://en.wikipedia.org/wiki/Counter-Strike_(video_game)"
        );
        assert_eq!(
            hits[9].url,
            "https://en.wikipedia.org/wiki/Counter-Strike_match_fixing_scandal"
        );
        assert!(hits.iter().all(|hit| hit.date.is_none()));
    }

    #[test]
    fn passes_titles_and_snippets_through_raw() {
        // Verifies: REQ-ENG-005, REQ-ENG-012
        let hits = hits(parse(EN, 200, &[], COUNTER_STRIKE));
        assert_eq!(
            hits[0].snippet,
            "<span class=\"searchmatch\">Counter</span>-<span class=\"searchmatch\">Strike</span> \
             (CS) is a series of multiplayer first-person shooter video games in which teams of \
             terrorists battle to perpetrate an act of terror (bombing"
        );
    }

    #[test]
    fn percent_encodes_non_ascii_titles_like_mediawiki() {
        // Verifies: REQ-ENG-005
        let hits = hits(parse(DE, 200, &[], HALLO));
        assert_eq!(hits.len(), 6);
        assert_eq!(hits[0].url, "https://de.wikipedia.org/wiki/Hallo");
        assert_eq!(
            hits[3].title,
            "Liste von Hallo-Welt-Programmen/Höhere Programmiersprachen"
        );
        assert_eq!(
            hits[3].url,
            "https://de.wikipedia.org/wiki/Liste_von_Hallo-Welt-Programmen/H%C3%B6here_Programmiersprachen"
        );
        assert_eq!(hits[5].url, "https://de.wikipedia.org/wiki/Hallo_Robbie!");
        assert!(hits[0].snippet.contains("mündlicher"));
    }

    #[test]
    fn encodes_reserved_characters_as_wfurlencode_does() {
        // Verifies: REQ-ENG-005
        let cases = [
            ("Ender's Game", "Ender%27s_Game"),
            ("AT&T", "AT%26T"),
            ("C++", "C%2B%2B"),
            ("100% (song)", "100%25_(song)"),
            ("What? Where=here", "What%3F_Where%3Dhere"),
            ("a;b:c@d$e!f*g,h/i~j", "a;b:c@d$e!f*g,h/i~j"),
            ("\"Quoted\" #1", "%22Quoted%22_%231"),
            ("Ελλάδα", "%CE%95%CE%BB%CE%BB%CE%AC%CE%B4%CE%B1"),
        ];
        for (title, path) in cases {
            assert_eq!(article_url(EN, title), format!("{EN}{path}"), "{title}");
        }
    }

    #[test]
    fn answers_zero_hits_as_empty_not_failure() {
        // Verifies: REQ-ERR-005, REQ-ENG-005
        assert_eq!(parse(EN, 200, &[], NO_RESULTS), EngineParse::Hits(vec![]));
    }

    #[test]
    fn classifies_an_api_error_body_as_request_failure() {
        // Verifies: REQ-ENG-006
        assert_eq!(
            failure(parse(EN, 200, &[], ERROR_NOSRSEARCH)),
            EngineFailure::RequestFailure
        );
        let plaintext = br#"{"errors":[{"code":"badvalue","text":"Unrecognized value","module":"main"}],"docref":"x"}"#;
        assert_eq!(
            failure(parse(EN, 200, &[], plaintext)),
            EngineFailure::RequestFailure
        );
        assert_eq!(
            failure(parse(EN, 200, &[], br#"{"error":"odd"}"#)),
            EngineFailure::RequestFailure
        );
    }

    #[test]
    fn classifies_ratelimited_and_maxlag_errors_as_rate_limited() {
        // Verifies: REQ-ENG-006, REQ-CMP-002
        let retry = [header("retry-after", "5")];
        let ratelimited =
            br#"{"error":{"code":"ratelimited","info":"You've exceeded your rate limit."}}"#;
        assert_eq!(
            failure(parse(EN, 200, &retry, ratelimited)),
            EngineFailure::RateLimited {
                retry_after_ms: Some(5000),
                quota: false
            }
        );
        let maxlag = br#"{"errors":[{"code":"maxlag","text":"Waiting for a database server: 5 seconds lagged.","module":"main"}]}"#;
        assert_eq!(
            failure(parse(EN, 200, &[], maxlag)),
            EngineFailure::RateLimited {
                retry_after_ms: None,
                quota: false
            }
        );
    }

    #[test]
    fn classifies_the_user_agent_policy_403_as_blocked() {
        // Verifies: REQ-ENG-009, REQ-ENG-006
        let (status, headers) = status_and_headers(BLOCK_HEADERS);
        assert_eq!(status, 403);
        assert_eq!(
            failure(parse(EN, status, &headers, BLOCK_BODY)),
            EngineFailure::Blocked
        );
        let other = b"<html><body>Forbidden</body></html>";
        assert_eq!(
            failure(parse(EN, 403, &headers, other)),
            EngineFailure::RequestFailure
        );
    }

    #[test]
    fn classifies_http_statuses() {
        // Verifies: REQ-ENG-006
        let retry = [header("retry-after", "30")];
        assert_eq!(
            failure(parse(EN, 429, &retry, b"")),
            EngineFailure::RateLimited {
                retry_after_ms: Some(30_000),
                quota: false
            }
        );
        assert_eq!(
            failure(parse(
                EN,
                429,
                &[header("retry-after", "Fri, 31 Dec 1999 23:59:59 GMT")],
                b""
            )),
            EngineFailure::RateLimited {
                retry_after_ms: None,
                quota: false
            }
        );
        for status in [400, 401, 404, 500, 502, 503, 204, 301, 100, 999] {
            assert_eq!(
                failure(parse(EN, status, &retry, COUNTER_STRIKE)),
                EngineFailure::RequestFailure,
                "{status}"
            );
        }
    }

    #[test]
    fn classifies_non_json_as_parse_failure() {
        // Verifies: REQ-ENG-006, REQ-SEC-014
        for body in [
            &b"<!DOCTYPE html><html>Wikimedia Error</html>"[..],
            b"",
            b"\xff\xfe\x00garbage",
            b"[]",
            b"null",
            br#"{"batchcomplete":""}"#,
            br#"{"query":{"search":{}}}"#,
            br#"{"query":"search"}"#,
        ] {
            assert_eq!(
                failure(parse(EN, 200, &[], body)),
                EngineFailure::ParseFailure,
                "{body:?}"
            );
        }
    }

    #[test]
    fn classifies_truncated_json_as_parse_failure() {
        // Verifies: REQ-ENG-006, REQ-SEC-014
        let half = &COUNTER_STRIKE[..COUNTER_STRIKE.len() / 2];
        assert_eq!(
            failure(parse(EN, 200, &[], half)),
            EngineFailure::ParseFailure
        );
    }

    #[test]
    fn never_panics_on_any_prefix_of_an_answer() {
        // Verifies: REQ-SEC-014
        for fixture in [COUNTER_STRIKE, HALLO, ERROR_NOSRSEARCH] {
            for end in 0..=fixture.len() {
                let _ = parse(EN, 200, &[], &fixture[..end]);
            }
        }
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert_eq!(
            failure(parse(EN, 200, &[], deep.as_bytes())),
            EngineFailure::ParseFailure
        );
    }

    #[test]
    fn skips_results_without_a_usable_title_or_with_wrong_types() {
        // Verifies: REQ-ENG-005
        let body = br#"{"query":{"search":[
            {"title":"","snippet":"empty title"},
            {"title":"   ","snippet":"blank title"},
            {"snippet":"no title"},
            {"title":42,"snippet":"numeric title"},
            {"title":"Bad snippet","snippet":["x"]},
            "not an object",
            null,
            {"title":"No snippet"},
            {"title":"Good","snippet":"kept","timestamp":"2021-01-01T00:00:00Z"}
        ]}}"#;
        let hits = hits(parse(EN, 200, &[], body));
        assert_eq!(
            hits,
            vec![
                EngineHit {
                    title: "No snippet".to_owned(),
                    url: format!("{EN}No_snippet"),
                    snippet: String::new(),
                    date: None,
                },
                EngineHit {
                    title: "Good".to_owned(),
                    url: format!("{EN}Good"),
                    snippet: "kept".to_owned(),
                    date: None,
                },
            ]
        );
    }

    #[test]
    fn keeps_at_most_fifty_hits() {
        // Verifies: REQ-ENG-011, REQ-SEC-010
        let results: Vec<String> = (0..200)
            .map(|i| format!(r#"{{"title":"T{i}","snippet":"s"}}"#))
            .collect();
        let body = format!(r#"{{"query":{{"search":[{}]}}}}"#, results.join(","));
        let hits = hits(parse(EN, 200, &[], body.as_bytes()));
        assert_eq!(hits.len(), MAX_HITS);
        assert_eq!(hits[49].title, "T49");
    }
}
