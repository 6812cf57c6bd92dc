//! arXiv's parser: an answer of the arXiv API (`/api/query`, an Atom
//! feed) in, hits or a failure class out (REQ-ENG-005, REQ-ENG-006). The
//! request builder, the admission record and the pacing are the other half
//! of this driver, in the supervisor's `engine/arxiv.rs`.
//!
//! An entry becomes a hit whose URL is its abstract page (the `alternate`
//! link, else its `id`), whose date is `published` (the first version's
//! submission), and whose snippet is the summary's first sentences. Titles
//! and summaries are plain text (TeX, not markup) that arrives
//! hard-wrapped: whitespace is collapsed, nothing else is changed.
//!
//! Failures: a malformed request is answered 200 with a feed of one entry
//! whose `id` is under `/api/errors` and whose title is `Error` (the user
//! manual's "Errors" section): a failed request, never a one-hit search.
//! Throttling is the plain-text body `Rate exceeded.` (with 503 or 429):
//! the rate limit.
//!
//! The reader is quick-xml's pull parser over the (already bounded) body:
//! no DTD, no external entities, only the five predefined entities and
//! character references; each field keeps at most
//! [`FIELD_READ_CHARS`] characters.

use quick_xml::Reader;
use quick_xml::escape::resolve_predefined_entity;
use quick_xml::events::{BytesStart, Event};
use rypsok_proto::limits::SNIPPET_MAX_CHARS;
use rypsok_proto::{EngineFailure, EngineHit, EngineParse, Header};

use super::text::{FIELD_READ_CHARS, collapse_whitespace, first_sentences, iso_date_prefix};
use super::{Answer, MAX_HITS, is_web_url, retry_after_ms, status_failure};

/// The throttling answer's text.
const RATE_EXCEEDED: &str = "Rate exceeded.";

/// Where error entries live: `http://arxiv.org/api/errors#…`.
const ERROR_ID_PATH: &str = "/api/errors";

/// The entry point of the dispatch, which hands every parser the same
/// [`Answer`].
pub(crate) fn parse_answer(answer: &Answer<'_>) -> EngineParse {
    parse(answer.status, answer.headers, answer.body)
}

/// Parses one answer.
pub(crate) fn parse(status: u16, headers: &[Header], body: &[u8]) -> EngineParse {
    let rate_limited = || {
        EngineParse::Failure(EngineFailure::RateLimited {
            retry_after_ms: retry_after_ms(headers),
            quota: false,
        })
    };
    if body.trim_ascii() == RATE_EXCEEDED.as_bytes() {
        return rate_limited();
    }
    match status {
        200 => {}
        503 => return rate_limited(),
        _ => return EngineParse::Failure(status_failure(status, headers)),
    }
    let Ok(text) = std::str::from_utf8(body) else {
        return EngineParse::Failure(EngineFailure::ParseFailure);
    };
    match read_feed(text) {
        Some(Feed::Entries(entries)) => EngineParse::Hits(
            entries
                .into_iter()
                .filter_map(Entry::into_hit)
                .take(MAX_HITS)
                .collect(),
        ),
        Some(Feed::Error) => EngineParse::Failure(EngineFailure::RequestFailure),
        None => EngineParse::Failure(EngineFailure::ParseFailure),
    }
}

/// What a feed said.
enum Feed {
    Entries(Vec<Entry>),
    /// An error entry: the request was refused.
    Error,
}

/// The fields of one entry that make a hit.
#[derive(Default)]
struct Entry {
    id: String,
    title: String,
    summary: String,
    published: String,
    alternate: Option<String>,
}

impl Entry {
    fn is_error(&self) -> bool {
        self.id.trim().contains(ERROR_ID_PATH)
    }

    fn into_hit(self) -> Option<EngineHit> {
        let title = collapse_whitespace(&self.title);
        if title.is_empty() {
            return None;
        }
        let url = self
            .alternate
            .filter(|url| is_web_url(url))
            .or_else(|| Some(self.id.trim().to_owned()).filter(|id| is_web_url(id)))?;
        Some(EngineHit {
            title,
            url,
            snippet: first_sentences(&collapse_whitespace(&self.summary), SNIPPET_MAX_CHARS),
            date: iso_date_prefix(self.published.trim()),
        })
    }
}

/// The entry field text goes to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Field {
    Id,
    Title,
    Summary,
    Published,
}

/// Reads the feed; `None` when it is not an Atom feed or not well formed
/// up to the point where enough entries were read.
fn read_feed(text: &str) -> Option<Feed> {
    let mut reader = Reader::from_str(text);
    reader.config_mut().check_end_names = true;
    let mut seen_root = false;
    let mut entries: Vec<Entry> = Vec::new();
    let mut entry: Option<Entry> = None;
    let mut field: Option<Field> = None;
    // Depth inside the current entry, so that a nested element of the same
    // name (an author's own `name`) does not end the field early.
    let mut depth_in_entry = 0usize;
    loop {
        let event = reader.read_event().ok()?;
        match event {
            Event::Start(start) => {
                let name = local(&start);
                if !seen_root {
                    if name != b"feed" {
                        return None;
                    }
                    seen_root = true;
                    continue;
                }
                if let Some(current) = entry.as_mut() {
                    depth_in_entry += 1;
                    if depth_in_entry == 1 {
                        field = field_of(name);
                        if name == b"link" {
                            read_link(&start, current);
                        }
                    }
                } else if name == b"entry" {
                    entry = Some(Entry::default());
                    depth_in_entry = 0;
                }
            }
            Event::Empty(start) => {
                if !seen_root {
                    return None;
                }
                if let Some(current) = entry.as_mut()
                    && depth_in_entry == 0
                    && local(&start) == b"link"
                {
                    read_link(&start, current);
                }
            }
            Event::End(end) => {
                if let Some(current) = entry.take() {
                    if depth_in_entry == 0 && end.local_name().as_ref() == b"entry" {
                        if current.is_error() {
                            return Some(Feed::Error);
                        }
                        entries.push(current);
                        if entries.len() == MAX_HITS {
                            return Some(Feed::Entries(entries));
                        }
                        continue;
                    }
                    entry = Some(current);
                    if depth_in_entry == 1 {
                        field = None;
                    }
                    depth_in_entry = depth_in_entry.saturating_sub(1);
                }
            }
            Event::Text(text) => {
                if let (Some(current), Some(f)) = (entry.as_mut(), field) {
                    push_field(current, f, &text.xml10_content().ok()?);
                }
            }
            Event::CData(data) => {
                if let (Some(current), Some(f)) = (entry.as_mut(), field) {
                    push_field(current, f, &data.xml10_content().ok()?);
                }
            }
            Event::GeneralRef(reference) => {
                if let (Some(current), Some(f)) = (entry.as_mut(), field) {
                    let resolved = match reference.resolve_char_ref().ok()? {
                        Some(c) => c.to_string(),
                        None => resolve_predefined_entity(&reference.decode().ok()?)?.to_owned(),
                    };
                    push_field(current, f, &resolved);
                }
            }
            Event::Eof => {
                return seen_root.then_some(Feed::Entries(entries));
            }
            Event::Decl(_) | Event::PI(_) | Event::Comment(_) => {}
            // A DTD could declare entities; an Atom feed has none.
            Event::DocType(_) => return None,
        }
    }
}

/// The local name of an element (`arxiv:doi` → `doi`).
fn local<'a>(start: &'a BytesStart<'_>) -> &'a [u8] {
    let name = start.name().into_inner();
    match name.iter().rposition(|&b| b == b':') {
        Some(at) => &name[at + 1..],
        None => name,
    }
}

fn field_of(name: &[u8]) -> Option<Field> {
    match name {
        b"id" => Some(Field::Id),
        b"title" => Some(Field::Title),
        b"summary" => Some(Field::Summary),
        b"published" => Some(Field::Published),
        _ => None,
    }
}

/// Keeps the `href` of a `rel="alternate"` link (the abstract page).
fn read_link(start: &BytesStart<'_>, entry: &mut Entry) {
    let mut rel = None;
    let mut href = None;
    for attribute in start.attributes().flatten() {
        match attribute.key.local_name().as_ref() {
            b"rel" => rel = attribute.unescape_value().ok().map(|v| v.into_owned()),
            b"href" => href = attribute.unescape_value().ok().map(|v| v.into_owned()),
            _ => {}
        }
    }
    if rel.as_deref() == Some("alternate") && entry.alternate.is_none() {
        entry.alternate = href.filter(|h| h.chars().count() <= FIELD_READ_CHARS);
    }
}

/// Appends text to a field, keeping at most [`FIELD_READ_CHARS`]
/// characters in it.
fn push_field(entry: &mut Entry, field: Field, text: &str) {
    let target = match field {
        Field::Id => &mut entry.id,
        Field::Title => &mut entry.title,
        Field::Summary => &mut entry.summary,
        Field::Published => &mut entry.published,
    };
    let room = FIELD_READ_CHARS.saturating_sub(target.chars().count());
    target.push_str(super::text::bounded(text, room));
}

#[cfg(test)]
mod tests {

    use super::*;
    use crate::engine::test_support::{failure, headers, hits};

    // Fixtures: testdata/arxiv/PROVENANCE.md.
    const SCIENCE: &[u8] = include_bytes!("../../testdata/arxiv/query_all_science_2019_first3.xml");
    const NO_MATCH: &[u8] = include_bytes!("../../testdata/arxiv/query_id_list_no_match_2025.xml");
    const ERROR_ENTRY: &[u8] =
        include_bytes!("../../testdata/arxiv/written_error_entry_max_results.xml");
    const RATE_EXCEEDED_BODY: &[u8] =
        include_bytes!("../../testdata/arxiv/written_503_rate_exceeded.txt");

    #[test]
    fn gives_abstract_pages_dates_and_first_sentences() {
        // Verifies: REQ-ENG-005, REQ-ENG-012
        let hits = hits(parse(200, &[], SCIENCE));
        assert_eq!(hits.len(), 3);
        assert_eq!(hits[0].title, "Defining Data Science");
        assert_eq!(hits[0].url, "http://arxiv.org/abs/1501.05039v1");
        assert_eq!(hits[0].date.as_deref(), Some("2015-01-21"));
        assert_eq!(
            hits[0].snippet,
            "Data science is gaining more and more and widespread attention, but no consensus \
             viewpoint on what data science is has emerged. As a new science, its objects of \
             study and scientific issues should not be covered by established sciences. Data \
             in cyberspace have formed what we call datanature."
        );
        // A hard-wrapped title is one line; a non-ASCII name survives.
        assert_eq!(
            hits[1].title,
            "Report on a Boston University Conference December 7-8, 2012 on 'How Can the \
             History and Philosophy of Science Contribute to Contemporary U.S. Science Teaching?'"
        );
        assert_eq!(hits[2].url, "http://arxiv.org/abs/quant-ph/0210005v1");
        assert_eq!(hits[2].date.as_deref(), Some("2002-10-01"));
    }

    #[test]
    fn a_feed_without_entries_is_no_hits() {
        // Verifies: REQ-ENG-005
        assert!(hits(parse(200, &[], NO_MATCH)).is_empty());
    }

    #[test]
    fn an_error_entry_is_a_failed_request_not_a_hit() {
        // Verifies: REQ-ENG-006
        assert_eq!(
            failure(parse(200, &[], ERROR_ENTRY)),
            EngineFailure::RequestFailure
        );
    }

    #[test]
    fn throttling_is_the_rate_limit() {
        // Verifies: REQ-ENG-006, REQ-CMP-002
        let limited =
            |status, headers: &[Header]| failure(parse(status, headers, RATE_EXCEEDED_BODY));
        assert_eq!(
            limited(503, &headers(&[("retry-after", "3")])),
            EngineFailure::RateLimited {
                retry_after_ms: Some(3000),
                quota: false
            }
        );
        assert!(matches!(
            limited(200, &[]),
            EngineFailure::RateLimited { .. }
        ));
        assert!(matches!(
            failure(parse(503, &[], b"")),
            EngineFailure::RateLimited { .. }
        ));
        assert_eq!(failure(parse(403, &[], b"")), EngineFailure::Blocked);
        assert_eq!(failure(parse(400, &[], b"")), EngineFailure::RequestFailure);
    }

    #[test]
    fn refuses_what_is_not_an_atom_feed() {
        // Verifies: REQ-ENG-006, REQ-SEC-023
        for body in [
            &b"{\"results\":[]}"[..],
            b"<html><body>maintenance</body></html>",
            b"<feed><entry><title>x</feed>",
            b"<!DOCTYPE feed [<!ENTITY e \"boom\">]><feed/>",
            b"\xff\xfe<feed/>",
            b"",
        ] {
            assert_eq!(
                failure(parse(200, &[], body)),
                EngineFailure::ParseFailure,
                "{:?}",
                String::from_utf8_lossy(body)
            );
        }
    }

    #[test]
    fn entities_and_cdata_are_text_and_fields_stay_bounded() {
        // Verifies: REQ-ENG-005, REQ-SEC-023
        let long = "a".repeat(3 * FIELD_READ_CHARS);
        let body = format!(
            "<feed xmlns=\"http://www.w3.org/2005/Atom\"><entry><id>http://arxiv.org/abs/1</id>\
             <title>R&amp;D &#x2014; <![CDATA[<b>bold</b>]]></title><summary>{long}</summary>\
             <published>2020-01-02T00:00:00Z</published></entry></feed>"
        );
        let hits = hits(parse(200, &[], body.as_bytes()));
        // Markup inside a title stays for the content boundary to clean.
        assert_eq!(hits[0].title, "R&D — <b>bold</b>");
        assert_eq!(hits[0].snippet.chars().count(), SNIPPET_MAX_CHARS);
        assert_eq!(hits[0].url, "http://arxiv.org/abs/1");
    }
}
