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
//! GDELT is known to emit, now and then, an answer that is not quite JSON:
//! an invalid escape (`\'`, `\x`, a `\u` without four hex digits) or a raw
//! control character inside a title. One such character must not lose the
//! whole answer: when the body does not parse, it is repaired once (a stray
//! backslash becomes a literal one, a raw control character a space,
//! invalid UTF-8 the replacement character) and parsed again, in one linear
//! pass with no retry loop. What was repaired is logged
//! (`engine_answer_repaired`, counts only, never the text), and an article
//! that is still unreadable is skipped, as any article without a title or a
//! URL is.
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
    let answer = match json_object(body) {
        Some(answer) => answer,
        None if looks_like_json(body) => {
            let (repaired, count) = repair(body);
            match json_object(repaired.as_bytes()) {
                Some(answer) => {
                    tracing::info!(
                        event = "engine_answer_repaired",
                        engine = "gdelt",
                        repaired = count,
                        "the answer held invalid JSON; repaired and read"
                    );
                    answer
                }
                None => return EngineParse::Failure(EngineFailure::ParseFailure),
            }
        }
        None => return EngineParse::Failure(plain_text_failure(headers, body)),
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

/// Whether a body that did not parse was meant as JSON (GDELT's errors
/// are plain sentences).
fn looks_like_json(body: &[u8]) -> bool {
    body.trim_ascii_start().first() == Some(&b'{')
}

/// The body with what makes it invalid JSON inside strings repaired, and
/// how many repairs: a backslash that starts no valid escape is escaped
/// itself, a raw control character becomes a space, invalid UTF-8 becomes
/// U+FFFD. Outside strings nothing changes, so a body broken in its
/// structure stays broken. Linear in the body.
fn repair(body: &[u8]) -> (String, usize) {
    let text = String::from_utf8_lossy(body);
    let mut count = usize::from(matches!(text, std::borrow::Cow::Owned(_)));
    let mut out = String::with_capacity(text.len() + 16);
    let mut in_string = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if !in_string {
            in_string = c == '"';
            out.push(c);
            continue;
        }
        match c {
            '"' => {
                in_string = false;
                out.push(c);
            }
            '\\' => match chars.peek().copied() {
                Some(next @ ('"' | '\\' | '/' | 'b' | 'f' | 'n' | 'r' | 't')) => {
                    out.push(c);
                    out.push(next);
                    chars.next();
                }
                Some('u') if four_hex(chars.clone().skip(1)) => {
                    out.push(c);
                }
                _ => {
                    // A stray backslash: the text it stood in.
                    out.push_str("\\\\");
                    count += 1;
                }
            },
            c if u32::from(c) < 0x20 => {
                out.push(' ');
                count += 1;
            }
            c => out.push(c),
        }
    }
    (out, count)
}

/// Whether the next four characters are hex digits.
fn four_hex(mut chars: impl Iterator<Item = char>) -> bool {
    (0..4).all(|_| chars.next().is_some_and(|c| c.is_ascii_hexdigit()))
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
    const BAD_ESCAPES: &[u8] =
        include_bytes!("../../testdata/gdelt/written_artlist_invalid_escapes.json");

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
    fn an_answer_with_invalid_escapes_is_repaired_not_lost() {
        // Verifies: REQ-ENG-005, REQ-ENG-006
        let hits = hits(parse(200, &[], BAD_ESCAPES));
        assert_eq!(hits.len(), 3, "{hits:?}");
        assert_eq!(hits[0].title, "Minister says \\'we will act\\' on floods");
        assert_eq!(hits[1].title, "Cost in \\x24 rises; path C:\\data");
        assert_eq!(hits[2].title, "Line one line two");
        assert_eq!(hits[2].date.as_deref(), Some("2024-05-02"));
        // Valid escapes are read as escapes.
        let fine = br#"{"articles":[{"title":"caf\u00e9 \"x\"","url":"https://a.example/"}]}"#;
        assert_eq!(hits_of(fine)[0].title, "café \"x\"");
    }

    #[test]
    fn a_body_broken_beyond_its_strings_is_a_parse_failure_never_a_hang() {
        // Verifies: REQ-ENG-006
        for body in [
            &b"{\"articles\":[{\"title\":\"a\\"[..],
            b"{\"articles\":[",
            b"{\\\\\\",
            b"{\"articles\":[{\"title\":\"\\u12\",\"url\":\"https://a.example/\"}]",
        ] {
            assert_eq!(failure(parse(200, &[], body)), EngineFailure::ParseFailure);
        }
        // Large and full of backslashes: linear, bounded.
        let mut big = b"{\"articles\":[{\"title\":\"".to_vec();
        big.extend(std::iter::repeat_n(b'\\', 1 << 20));
        big.extend(b"x\",\"url\":\"https://a.example/\"}]}");
        let started = std::time::Instant::now();
        let _ = parse(200, &[], &big);
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
    }

    fn hits_of(body: &[u8]) -> Vec<EngineHit> {
        hits(parse(200, &[], body))
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
