//! Crossref's parser: an answer of the Crossref REST API's works search
//! (`/works?query=…`) in, hits or a failure class out (REQ-ENG-005,
//! REQ-ENG-006). The request builder and the admission record are the
//! other half of this driver, in the supervisor's `engine/crossref.rs`.
//!
//! A work becomes a hit whose URL is its DOI link (`https://doi.org/…`),
//! whose date is its publication date (when Crossref knows the day), and
//! whose snippet is the abstract's first sentences with its JATS markup
//! removed, or the venue and the authors when the work has no abstract.
//!
//! Failures: Crossref's error bodies are "message objects" with a
//! `status` of `failed` (a `validation-failure` list of problems, answered
//! 400) or `error` (an `exception`, answered 500); a missing route is a
//! plain-text 404. All of them refuse the request. 429 is the rate limit
//! (its `Retry-After` read); 403 is a block of this client (Crossref blocks
//! clients that ignore its limits).

use percent_encoding::{AsciiSet, CONTROLS, utf8_percent_encode};
use rypsok_proto::limits::SNIPPET_MAX_CHARS;
use rypsok_proto::{EngineFailure, EngineHit, EngineParse, Header};
use serde_json::Value;

use super::text::{first_sentences, join_names, join_parts, plain_text, ymd};
use super::{Answer, MAX_HITS, is_web_url, json_object, status_failure, str_of};

/// What a DOI may not carry unescaped in a URL path: controls, space and
/// the characters that would end the path or change its meaning.
const DOI_PATH: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'[')
    .add(b'\\')
    .add(b']')
    .add(b'^')
    .add(b'`')
    .add(b'{')
    .add(b'|')
    .add(b'}');

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
    // `ok` is the only status of an answer; `failed` and `error` are the
    // message objects of a refused request, even when sent with 200.
    match answer.get("status").and_then(Value::as_str) {
        Some("ok") => {}
        Some(_) => return EngineParse::Failure(EngineFailure::RequestFailure),
        None => return EngineParse::Failure(EngineFailure::ParseFailure),
    }
    let Some(items) = answer
        .get("message")
        .and_then(|message| message.get("items"))
        .and_then(Value::as_array)
    else {
        return EngineParse::Failure(EngineFailure::ParseFailure);
    };
    EngineParse::Hits(items.iter().filter_map(hit).take(MAX_HITS).collect())
}

/// One work, or nothing when it lacks a title or a DOI (or a URL).
fn hit(work: &Value) -> Option<EngineHit> {
    let title = first_string(work.get("title"))?;
    if title.trim().is_empty() {
        return None;
    }
    let url = work_url(work)?;
    Some(EngineHit {
        title: title.to_owned(),
        url,
        snippet: snippet(work),
        date: publication_date(work),
    })
}

/// The DOI link, else the work's own `URL` when it is a web URL.
fn work_url(work: &Value) -> Option<String> {
    if let Some(doi) = str_of(work, "DOI").map(str::trim)
        && doi.starts_with("10.")
    {
        let url = format!("https://doi.org/{}", utf8_percent_encode(doi, DOI_PATH));
        if is_web_url(&url) {
            return Some(url);
        }
    }
    str_of(work, "URL")
        .filter(|url| is_web_url(url))
        .map(str::to_owned)
}

/// The abstract's first sentences, else the venue and the authors.
fn snippet(work: &Value) -> String {
    if let Some(abstract_) = str_of(work, "abstract") {
        let text = plain_text(abstract_);
        // JATS abstracts often open with a heading: "Abstract".
        let text = text
            .strip_prefix("Abstract ")
            .map_or(text.as_str(), str::trim_start);
        if !text.is_empty() {
            return first_sentences(text, SNIPPET_MAX_CHARS);
        }
    }
    let venue = first_string(work.get("container-title")).unwrap_or("");
    let authors = work
        .get("author")
        .and_then(Value::as_array)
        .map(|authors| {
            let names: Vec<String> = authors.iter().filter_map(author_name).collect();
            join_names(names.iter().map(String::as_str))
        })
        .unwrap_or_default();
    join_parts([venue, authors.as_str()])
}

/// "Given Family", or an organisation's `name`.
fn author_name(author: &Value) -> Option<String> {
    match (str_of(author, "given"), str_of(author, "family")) {
        (Some(given), Some(family)) => Some(format!("{given} {family}")),
        (None, Some(family)) => Some(family.to_owned()),
        _ => str_of(author, "name").map(str::to_owned),
    }
}

/// The first string of a Crossref list field (`title`, `container-title`).
fn first_string(value: Option<&Value>) -> Option<&str> {
    value?.as_array()?.first()?.as_str()
}

/// The publication date: `published` (the earliest of print and online),
/// then `published-print`, `published-online`, `issued`. Crossref's
/// `date-parts` hold as much as the publisher knows: `[2018, 3, 15]`,
/// `[2018, 3]` or `[2018]`; the date keeps that precision (`2018-03`,
/// `2018`) rather than being lost or given a day it never had.
fn publication_date(work: &Value) -> Option<String> {
    ["published", "published-print", "published-online", "issued"]
        .iter()
        .find_map(|key| {
            let parts = work.get(*key)?.get("date-parts")?.as_array()?.first()?;
            let parts = parts.as_array()?;
            let date = match parts.as_slice() {
                [year, month, day] => ymd(year.as_i64()?, month.as_i64()?, day.as_i64()?)?,
                [year, month] => format!("{:04}-{:02}", year.as_i64()?, month.as_i64()?),
                [year] => format!("{:04}", year.as_i64()?),
                _ => return None,
            };
            rypsok_proto::is_result_date(&date).then_some(date)
        })
}

#[cfg(test)]
mod tests {

    use super::*;
    use crate::engine::test_support::{failure, headers, hits, status_and_headers};

    // Fixtures: testdata/crossref/PROVENANCE.md.
    const ECOLOGY: &[u8] = include_bytes!("../../testdata/crossref/works_query_ecology_rows2.json");
    const PARTIAL_DATES: &[u8] =
        include_bytes!("../../testdata/crossref/written_works_partial_dates.json");
    const NO_RESULTS: &[u8] =
        include_bytes!("../../testdata/crossref/written_works_query_no_results.json");
    const VALIDATION: &[u8] =
        include_bytes!("../../testdata/crossref/works_400_validation_failure.json");
    const EXCEPTION: &[u8] = include_bytes!("../../testdata/crossref/funders_500_exception.json");
    const NOT_FOUND: &[u8] = include_bytes!("../../testdata/crossref/works_404_not_found.txt");
    const NOT_FOUND_HEADERS: &str =
        include_str!("../../testdata/crossref/works_404_not_found.headers.txt");
    const LIMITED: &[u8] = include_bytes!("../../testdata/crossref/written_429_rate_limited.txt");
    const LIMITED_HEADERS: &str =
        include_str!("../../testdata/crossref/written_429_rate_limited.headers.txt");

    #[test]
    fn gives_doi_links_dates_and_abstract_sentences() {
        // Verifies: REQ-ENG-005, REQ-ENG-012
        let hits = hits(parse(200, &[], ECOLOGY));
        assert_eq!(hits.len(), 2);
        assert_eq!(hits[0].title, "Communicating Ecology");
        assert_eq!(
            hits[0].url,
            "https://doi.org/10.1093/obo/9780199830060-0238"
        );
        assert_eq!(hits[0].date.as_deref(), Some("2022-07-26"));
        assert!(
            hits[0]
                .snippet
                .starts_with("Communication is perhaps the most important, but least formally"),
            "{}",
            hits[0].snippet
        );
        assert!(!hits[0].snippet.contains('<'));
        assert!(hits[0].snippet.ends_with('.'));
        assert!(hits[0].snippet.chars().count() <= SNIPPET_MAX_CHARS);
        assert_eq!(
            hits[1].url,
            "https://doi.org/10.1093/obo/9780199830060-0023"
        );
        assert_eq!(hits[1].date.as_deref(), Some("2012-05-23"));
    }

    #[test]
    fn falls_back_to_venue_and_authors_without_an_abstract() {
        // Verifies: REQ-ENG-012
        let body = br#"{"status":"ok","message":{"items":[{"DOI":"10.1000/x y#z",
            "title":["T"],"container-title":["Journal of Tests"],
            "author":[{"given":"Ada","family":"Lovelace"},{"name":"The Consortium"},
            {"family":"Babbage"},{"given":"Only"},{"family":"Fourth"}],
            "issued":{"date-parts":[[2020,5]]}}]}}"#;
        let hits = hits(parse(200, &[], body));
        assert_eq!(hits[0].url, "https://doi.org/10.1000/x%20y%23z");
        assert_eq!(
            hits[0].snippet,
            "Journal of Tests · Ada Lovelace, The Consortium, Babbage et al."
        );
        // A year and a month are kept as such.
        assert_eq!(hits[0].date.as_deref(), Some("2020-05"));
    }

    #[test]
    fn keeps_the_month_or_the_year_when_that_is_all_crossref_knows() {
        // Verifies: REQ-ENG-005, REQ-CTX-001
        let hits = hits(parse(200, &headers_none(), PARTIAL_DATES));
        let dates: Vec<_> = hits.iter().map(|hit| hit.date.as_deref()).collect();
        assert_eq!(
            dates,
            [
                Some("2018-03"),
                Some("2018"),
                Some("2019-11-02"),
                None,
                None
            ]
        );
    }

    #[test]
    fn an_empty_search_is_no_hits() {
        // Verifies: REQ-ENG-005
        assert!(hits(parse(200, &[], NO_RESULTS)).is_empty());
    }

    #[test]
    fn message_objects_refuse_the_request() {
        // Verifies: REQ-ENG-006
        assert_eq!(
            failure(parse(400, &[], VALIDATION)),
            EngineFailure::RequestFailure
        );
        assert_eq!(
            failure(parse(500, &[], EXCEPTION)),
            EngineFailure::RequestFailure
        );
        // The same objects sent with 200 are still refusals.
        assert_eq!(
            failure(parse(200, &[], VALIDATION)),
            EngineFailure::RequestFailure
        );
        let (status, headers) = status_and_headers(NOT_FOUND_HEADERS);
        assert_eq!(
            failure(parse(status, &headers, NOT_FOUND)),
            EngineFailure::RequestFailure
        );
    }

    #[test]
    fn rate_limits_and_blocks_are_classified() {
        // Verifies: REQ-ENG-006, REQ-CMP-002
        let (status, headers) = status_and_headers(LIMITED_HEADERS);
        assert_eq!(
            failure(parse(status, &headers, LIMITED)),
            EngineFailure::RateLimited {
                retry_after_ms: Some(2000),
                quota: false
            }
        );
        assert_eq!(
            failure(parse(403, &headers_none(), b"")),
            EngineFailure::Blocked
        );
        assert_eq!(
            failure(parse(200, &[], b"<html>")),
            EngineFailure::ParseFailure
        );
        assert_eq!(failure(parse(200, &[], b"{}")), EngineFailure::ParseFailure);
    }

    fn headers_none() -> Vec<Header> {
        headers(&[])
    }
}
