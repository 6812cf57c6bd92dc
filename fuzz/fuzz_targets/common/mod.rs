//! Shared input shapes for the targets that take an HTTP answer, and the
//! percent-encoding the secret targets apply.
// Each target includes this module and uses only part of it.
#![allow(dead_code)]

use rypsok_proto::Header;

/// Statuses an answer target picks from by its first byte: success twice as
/// likely, then the ones the parsers read specially.
const STATUSES: [u16; 8] = [200, 200, 200, 429, 403, 422, 401, 503];

/// An HTTP answer from fuzz bytes: the first byte picks a status, lines up
/// to an empty line are `name: value` headers, the rest is the body.
pub struct Answer<'a> {
    pub status: u16,
    pub headers: Vec<Header>,
    pub body: &'a [u8],
}

pub fn answer(data: &[u8]) -> Answer<'_> {
    let Some((&first, rest)) = data.split_first() else {
        return Answer {
            status: 200,
            headers: Vec::new(),
            body: data,
        };
    };
    let status = STATUSES[usize::from(first) % STATUSES.len()];
    let (head, body) = match rest.windows(2).position(|w| w == b"\n\n") {
        Some(i) => (&rest[..i], &rest[i + 2..]),
        None => (&rest[..0], rest),
    };
    Answer {
        status,
        headers: headers(head),
        body,
    }
}

/// `name: value` lines; a line without a colon is skipped.
pub fn headers(head: &[u8]) -> Vec<Header> {
    String::from_utf8_lossy(head)
        .lines()
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| Header {
            name: name.trim().to_ascii_lowercase(),
            value: value.trim_start().to_owned(),
        })
        .collect()
}

/// Characters no static message of rypsok uses. A message made of static
/// text and numbers has none, so no input string holding one (a non-ASCII
/// letter, a control, `@`, `%`…) can have been echoed into it (braces
/// brackets and `*` are left out: messages name `{lang}`, `[egress]`
/// and the port `*`). (Searching
/// the message for each input string instead would teach the fuzzer the
/// messages through its comparison hooks, and it would then echo them.)
pub fn foreign(c: char) -> bool {
    !c.is_ascii() || c.is_ascii_control() || "#$%&<>?@\\^|~`".contains(c)
}

/// Asserts that `message` is static text and numbers within the bound.
pub fn assert_static(message: &str) {
    assert!(!message.chars().any(foreign), "{message:?}");
    assert!(
        message.chars().count() <= rypsok_proto::limits::ERROR_MESSAGE_MAX_CHARS,
        "{message:?}"
    );
}

/// The credentials the secret check finds in `text`, as written.
pub fn credentials(text: &str) -> Vec<String> {
    rypsok_core::fuzzing::find_secrets(text)
        .into_iter()
        .map(|f| text.chars().skip(f.position).take(f.len).collect())
        .collect()
}

/// The invariants every engine answer parser keeps, checked for one fuzz
/// input read as an HTTP answer for `engine`: the same answer parses the
/// same way twice; at most fifty hits, each with a title and an http(s) URL
/// with an authority, without whitespace or control characters, within
/// LIM-F9, dates real `YYYY-MM-DD`; a delay (Retry-After, a backoff, a
/// pause) within its cap.
pub fn check_engine_answer(engine: rypsok_proto::EngineKind, data: &[u8]) {
    use rypsok_proto::limits::{RETRY_AFTER_MAX_S, URL_MAX_CHARS};
    use rypsok_proto::{EngineFailure, EngineParse, ParseRequest, ParseResponse, is_result_date};

    let answer = answer(data);
    let request = || ParseRequest::EngineAnswer {
        engine,
        base_url: String::new(),
        status: answer.status,
        headers: answer.headers.clone(),
        body: answer.body.to_vec(),
    };
    let ParseResponse::Engine(result) = rypsok_worker_parse::parse(request()) else {
        panic!("an engine answer gives an engine result");
    };
    let ParseResponse::Engine(again) = rypsok_worker_parse::parse(request()) else {
        panic!("an engine answer gives an engine result");
    };
    assert_eq!(result, again);
    let cap = RETRY_AFTER_MAX_S * 1000;
    let hits = match result {
        EngineParse::Hits(hits) => hits,
        EngineParse::Paced { hits, wait_ms } => {
            assert!(wait_ms <= cap);
            hits
        }
        EngineParse::Failure(EngineFailure::RateLimited {
            retry_after_ms: Some(ms),
            ..
        }) => {
            assert!(ms <= cap);
            return;
        }
        EngineParse::Failure(_) => return,
    };
    assert!(hits.len() <= 50);
    for hit in hits {
        assert!(!hit.title.trim().is_empty());
        assert!(hit.url.chars().count() <= URL_MAX_CHARS);
        let lower = hit.url.to_ascii_lowercase();
        let rest = lower
            .strip_prefix("https://")
            .or_else(|| lower.strip_prefix("http://"))
            .expect("an http(s) URL");
        assert!(!rest.starts_with(['/', '?', '#']) && !rest.is_empty());
        assert!(!hit.url.chars().any(|c| c.is_whitespace() || c.is_control()));
        assert!(hit.date.as_deref().is_none_or(is_result_date));
    }
}

/// `text` with the character at `at` percent-encoded (its UTF-8 bytes).
pub fn encode_at(text: &str, at: usize) -> String {
    text.chars()
        .enumerate()
        .map(|(i, c)| {
            if i == at {
                let mut buf = [0_u8; 4];
                c.encode_utf8(&mut buf)
                    .bytes()
                    .map(|b| format!("%{b:02X}"))
                    .collect()
            } else {
                c.to_string()
            }
        })
        .collect()
}
