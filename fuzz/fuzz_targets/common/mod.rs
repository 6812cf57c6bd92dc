//! Shared input shapes for the targets that take an HTTP answer.
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
