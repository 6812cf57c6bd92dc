//! OpenAlex's parser: an answer of the OpenAlex works search
//! (`/works?search=…`) in, hits or a failure class out (REQ-ENG-005,
//! REQ-ENG-006). The request builder and the admission record are the
//! other half of this driver, in the supervisor's `engine/openalex.rs`.
//!
//! A work becomes a hit whose URL is its DOI link (OpenAlex sends DOIs as
//! `https://doi.org/…` already), else its landing page, else its OpenAlex
//! page; whose date is `publication_date`; and whose snippet is the
//! abstract's first sentences, rebuilt from `abstract_inverted_index`
//! (OpenAlex does not send abstracts as text), or the venue and authors.
//!
//! Failures: OpenAlex answers a refused request with a JSON object holding
//! `error` and `message` (400, 403 or 404 by the kind of mistake): a failed
//! request, not a block. 429 is its rate limit, and since its allowance
//! became daily ("429 Too Many Requests: Daily limit exceeded",
//! <https://developers.openalex.org/api-reference/errors>; the other cause,
//! more than 100 requests a second, is ten times the rate the admission
//! record lets rypsok send) a spent quota: the engine rests as long as a
//! spent quota does, instead of asking again at once.

use rypsok_proto::limits::SNIPPET_MAX_CHARS;
use rypsok_proto::{EngineFailure, EngineHit, EngineParse, Header};
use serde_json::{Map, Value};

use super::text::{first_sentences, iso_date_prefix, join_names, join_parts};
use super::{Answer, MAX_HITS, is_web_url, json_object, retry_after_ms, status_failure, str_of};

/// Words of an abstract rebuilt from its inverted index: more than a
/// snippet needs, and a bound on the work a hostile index can cause.
const ABSTRACT_MAX_WORDS: usize = 400;

/// The entry point of the dispatch, which hands every parser the same
/// [`Answer`].
pub(crate) fn parse_answer(answer: &Answer<'_>) -> EngineParse {
    parse(answer.status, answer.headers, answer.body)
}

/// Parses one answer.
pub(crate) fn parse(status: u16, headers: &[Header], body: &[u8]) -> EngineParse {
    let answer = json_object(body);
    if status != 200 {
        return EngineParse::Failure(match (status, &answer) {
            (429, _) => EngineFailure::RateLimited {
                retry_after_ms: retry_after_ms(headers),
                quota: true,
            },
            (403, Some(answer)) if speaks_of_rate_limit(answer) => EngineFailure::RateLimited {
                retry_after_ms: retry_after_ms(headers),
                quota: false,
            },
            // A JSON error object names a mistake in the request.
            (_, Some(answer)) if answer.contains_key("error") => EngineFailure::RequestFailure,
            _ => status_failure(status, headers),
        });
    }
    let Some(answer) = answer else {
        return EngineParse::Failure(EngineFailure::ParseFailure);
    };
    if answer.contains_key("error") {
        return EngineParse::Failure(EngineFailure::RequestFailure);
    }
    let Some(results) = answer.get("results").and_then(Value::as_array) else {
        return EngineParse::Failure(EngineFailure::ParseFailure);
    };
    EngineParse::Hits(results.iter().filter_map(hit).take(MAX_HITS).collect())
}

/// Whether an error object's `error` or `message` says "rate limit".
fn speaks_of_rate_limit(answer: &Map<String, Value>) -> bool {
    ["error", "message"].iter().any(|key| {
        answer
            .get(*key)
            .and_then(Value::as_str)
            .is_some_and(|text| {
                let head = text.get(..text.len().min(256)).unwrap_or(text);
                head.to_ascii_lowercase().contains("rate limit")
            })
    })
}

/// One work, or nothing when it lacks a title or a usable URL.
fn hit(work: &Value) -> Option<EngineHit> {
    let title = str_of(work, "display_name").or_else(|| str_of(work, "title"))?;
    if title.trim().is_empty() {
        return None;
    }
    let landing = work
        .get("primary_location")
        .and_then(|location| str_of(location, "landing_page_url"));
    let url = [str_of(work, "doi"), landing, str_of(work, "id")]
        .into_iter()
        .flatten()
        .find(|url| is_web_url(url))?;
    Some(EngineHit {
        title: title.to_owned(),
        url: url.to_owned(),
        snippet: snippet(work),
        date: str_of(work, "publication_date").and_then(iso_date_prefix),
    })
}

/// The abstract's first sentences, else the venue and the authors.
fn snippet(work: &Value) -> String {
    if let Some(Value::Object(index)) = work.get("abstract_inverted_index") {
        let text = rebuild_abstract(index);
        if !text.is_empty() {
            return first_sentences(&text, SNIPPET_MAX_CHARS);
        }
    }
    let venue = work
        .get("primary_location")
        .and_then(|location| location.get("source"))
        .and_then(|source| str_of(source, "display_name"))
        .unwrap_or("");
    let authors = work
        .get("authorships")
        .and_then(Value::as_array)
        .map(|authorships| {
            join_names(
                authorships
                    .iter()
                    .filter_map(|a| a.get("author").and_then(|a| str_of(a, "display_name"))),
            )
        })
        .unwrap_or_default();
    join_parts([venue, authors.as_str()])
}

/// The abstract's first words in order, from `{word: [positions]}`. Only
/// positions below [`ABSTRACT_MAX_WORDS`] are placed; a position no word
/// claims is left out.
fn rebuild_abstract(index: &Map<String, Value>) -> String {
    let mut words: Vec<Option<&str>> = vec![None; ABSTRACT_MAX_WORDS];
    for (word, positions) in index {
        let Some(positions) = positions.as_array() else {
            continue;
        };
        for position in positions.iter().filter_map(Value::as_u64) {
            if let Some(slot) = usize::try_from(position)
                .ok()
                .and_then(|at| words.get_mut(at))
            {
                *slot = Some(word.as_str());
            }
        }
    }
    let mut text = String::new();
    for word in words.into_iter().flatten() {
        let word = word.trim();
        if word.is_empty() {
            continue;
        }
        if !text.is_empty() {
            text.push(' ');
        }
        text.push_str(word);
    }
    text
}

#[cfg(test)]
mod tests {

    use super::*;
    use crate::engine::test_support::{failure, hits};

    // Fixtures: testdata/openalex/PROVENANCE.md.
    const WORKS: &[u8] = include_bytes!(
        "../../testdata/openalex/works_search_machine_learning_public_health_trimmed.json"
    );
    const END: &[u8] =
        include_bytes!("../../testdata/openalex/works_search_end_of_pagination.json");
    const INVALID: &[u8] = include_bytes!("../../testdata/openalex/written_403_invalid_query.json");
    const RATE_LIMIT_403: &[u8] =
        include_bytes!("../../testdata/openalex/written_403_rate_limit_exceeded.json");
    const LIMITED: &[u8] =
        include_bytes!("../../testdata/openalex/written_429_too_many_requests.json");

    #[test]
    fn gives_doi_links_dates_and_rebuilt_abstracts() {
        // Verifies: REQ-ENG-005, REQ-ENG-012
        let hits = hits(parse(200, &[], WORKS));
        assert_eq!(hits.len(), 2);
        assert!(hits[0].title.starts_with("Redefining climate regions"));
        assert_eq!(hits[0].url, "https://doi.org/10.4081/gh.2014.294");
        assert_eq!(hits[0].date.as_deref(), Some("2014-12-01"));
        assert_eq!(
            hits[0].snippet,
            "Existing climate classification has not been designed for an efficient handling \
             of public health scenarios. This work aims to design an objective spatial climate \
             regionalization method for assessing health risks in response to extreme weather."
        );
    }

    #[test]
    fn falls_back_to_venue_and_authors_without_an_abstract() {
        // Verifies: REQ-ENG-012
        let hits = hits(parse(200, &[], WORKS));
        assert_eq!(hits[1].url, "https://doi.org/10.30773/pi.2018.08.27");
        assert_eq!(
            hits[1].snippet,
            "Psychiatry investigation · Seunghyong Ryu, Hyeongrae Lee, Dong-Kyun Lee et al."
        );
    }

    #[test]
    fn takes_the_landing_page_without_a_doi() {
        // Verifies: REQ-ENG-005
        let body = br#"{"results":[{"id":"https://openalex.org/W1","doi":null,
            "display_name":"T","primary_location":{"landing_page_url":"https://example.org/p"}},
            {"id":"https://openalex.org/W2","display_name":"U"},
            {"id":"W3","display_name":"no URL at all"}]}"#;
        let hits = hits(parse(200, &[], body));
        let urls: Vec<&str> = hits.iter().map(|h| h.url.as_str()).collect();
        assert_eq!(urls, ["https://example.org/p", "https://openalex.org/W2"]);
    }

    #[test]
    fn a_hostile_inverted_index_stays_bounded() {
        // Verifies: REQ-ENG-005, REQ-SEC-023
        let body = br#"{"results":[{"id":"https://openalex.org/W1","display_name":"T",
            "abstract_inverted_index":{"far":[18446744073709551615, 99999999],"x":"no",
            "a":[0],"b":[2]}}]}"#;
        assert_eq!(hits(parse(200, &[], body))[0].snippet, "a b");
    }

    #[test]
    fn the_last_page_is_no_hits() {
        // Verifies: REQ-ENG-005
        assert!(hits(parse(200, &[], END)).is_empty());
    }

    #[test]
    fn the_documented_403_rate_limit_is_a_rate_limit_not_a_failed_request() {
        // Verifies: REQ-ENG-006
        assert_eq!(
            failure(parse(403, &[], RATE_LIMIT_403)),
            EngineFailure::RateLimited {
                retry_after_ms: None,
                quota: false
            }
        );
        let retry = crate::engine::test_support::headers(&[("retry-after", "2")]);
        assert_eq!(
            failure(parse(403, &retry, RATE_LIMIT_403)),
            EngineFailure::RateLimited {
                retry_after_ms: Some(2_000),
                quota: false
            }
        );
    }

    #[test]
    fn error_objects_and_rate_limits_are_classified() {
        // Verifies: REQ-ENG-006
        assert_eq!(
            failure(parse(403, &[], INVALID)),
            EngineFailure::RequestFailure
        );
        assert_eq!(
            failure(parse(200, &[], INVALID)),
            EngineFailure::RequestFailure
        );
        assert_eq!(
            failure(parse(429, &[], LIMITED)),
            EngineFailure::RateLimited {
                retry_after_ms: None,
                quota: true
            }
        );
        // A 403 that is not OpenAlex's error object is a block.
        assert_eq!(failure(parse(403, &[], b"<html>")), EngineFailure::Blocked);
        assert_eq!(failure(parse(200, &[], b"[]")), EngineFailure::ParseFailure);
    }
}
