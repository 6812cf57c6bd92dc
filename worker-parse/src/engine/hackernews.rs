//! Hacker News's parser: an answer of the Hacker News search API by
//! Algolia (`/api/v1/search` or `/api/v1/search_by_date`, `tags=story`) in,
//! hits or a failure class out (REQ-ENG-005, REQ-ENG-006). The request
//! builder and the admission record are the other half of this driver, in
//! the supervisor's `engine/hackernews.rs`.
//!
//! A story becomes a hit whose URL is the story's own link, or its
//! discussion page on Hacker News when it has none (an "Ask HN" post);
//! whose date is `created_at`; and whose snippet is the post's own text's
//! first sentences, else its points and comment count.
//!
//! Failures: Algolia answers a refused request with `{"message": …,
//! "status": 400}`; 429 is its rate limit (the API allows 10,000 requests
//! an hour from one address).

use rypsok_proto::limits::SNIPPET_MAX_CHARS;
use rypsok_proto::{EngineFailure, EngineHit, EngineParse, Header};
use serde_json::Value;

use super::text::{first_sentences, iso_date_prefix, plain_text};
use super::{Answer, MAX_HITS, is_web_url, json_object, status_failure, str_of};

/// Discussion pages: `item?id=` and the story's numeric id.
const ITEM_URL: &str = "https://news.ycombinator.com/item?id=";

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
    let Some(results) = answer.get("hits").and_then(Value::as_array) else {
        // An error object sent with 200 has a message and no hits.
        return EngineParse::Failure(if answer.contains_key("message") {
            EngineFailure::RequestFailure
        } else {
            EngineFailure::ParseFailure
        });
    };
    EngineParse::Hits(results.iter().filter_map(hit).take(MAX_HITS).collect())
}

/// One story, or nothing without a title or any URL.
fn hit(story: &Value) -> Option<EngineHit> {
    let title = str_of(story, "title").or_else(|| str_of(story, "story_title"))?;
    if title.trim().is_empty() {
        return None;
    }
    let url = match str_of(story, "url").filter(|url| is_web_url(url)) {
        Some(url) => url.to_owned(),
        None => discussion_url(story)?,
    };
    Some(EngineHit {
        title: title.to_owned(),
        url,
        snippet: snippet(story),
        date: str_of(story, "created_at").and_then(iso_date_prefix),
    })
}

/// The story's discussion page, from its all-digit `objectID`.
fn discussion_url(story: &Value) -> Option<String> {
    let id = str_of(story, "objectID")?;
    (!id.is_empty() && id.len() <= 20 && id.bytes().all(|b| b.is_ascii_digit()))
        .then(|| format!("{ITEM_URL}{id}"))
}

/// The post's text, else "N points · M comments".
fn snippet(story: &Value) -> String {
    if let Some(text) = str_of(story, "story_text") {
        let text = plain_text(text);
        if !text.is_empty() {
            return first_sentences(&text, SNIPPET_MAX_CHARS);
        }
    }
    let count = |key| story.get(key).and_then(Value::as_u64);
    match (count("points"), count("num_comments")) {
        (Some(points), Some(comments)) => format!("{points} points · {comments} comments"),
        (Some(points), None) => format!("{points} points"),
        (None, Some(comments)) => format!("{comments} comments"),
        (None, None) => String::new(),
    }
}

#[cfg(test)]
mod tests {

    use super::*;
    use crate::engine::test_support::{failure, hits};

    // Fixtures: testdata/hackernews/PROVENANCE.md.
    const STORIES: &[u8] =
        include_bytes!("../../testdata/hackernews/written_search_rust_stories.json");
    const NO_HITS: &[u8] = include_bytes!("../../testdata/hackernews/written_search_no_hits.json");
    const INVALID: &[u8] =
        include_bytes!("../../testdata/hackernews/written_400_invalid_numeric_filter.json");

    #[test]
    fn gives_story_links_or_discussion_pages() {
        // Verifies: REQ-ENG-005, REQ-ENG-012
        let hits = hits(parse(200, &[], STORIES));
        assert_eq!(hits.len(), 2);
        assert_eq!(hits[0].title, "Rust 1.0 released");
        assert_eq!(
            hits[0].url,
            "http://blog.rust-lang.org/2015/05/15/Rust-1.0.html"
        );
        assert_eq!(hits[0].snippet, "1521 points · 321 comments");
        assert_eq!(hits[0].date.as_deref(), Some("2015-05-15"));
        // An Ask HN post has no link: its discussion is the result.
        assert_eq!(hits[1].url, "https://news.ycombinator.com/item?id=39000001");
        assert_eq!(
            hits[1].snippet,
            "I have written Go for years. Is the borrow checker worth the effort?"
        );
    }

    #[test]
    fn a_story_without_any_url_is_left_out() {
        // Verifies: REQ-ENG-005
        let body = br#"{"hits":[{"title":"t","objectID":"12a"},{"title":"u","url":"ftp://x/"},
            {"title":" ","url":"https://example.org/"},{"title":"v","objectID":"7"}]}"#;
        let hits = hits(parse(200, &[], body));
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].url, "https://news.ycombinator.com/item?id=7");
    }

    #[test]
    fn no_hits_and_errors_are_classified() {
        // Verifies: REQ-ENG-005, REQ-ENG-006
        assert!(hits(parse(200, &[], NO_HITS)).is_empty());
        assert_eq!(
            failure(parse(400, &[], INVALID)),
            EngineFailure::RequestFailure
        );
        assert_eq!(
            failure(parse(200, &[], INVALID)),
            EngineFailure::RequestFailure
        );
        assert!(matches!(
            failure(parse(429, &[], b"")),
            EngineFailure::RateLimited { .. }
        ));
        assert_eq!(
            failure(parse(200, &[], b"<html>")),
            EngineFailure::ParseFailure
        );
    }
}
