//! The robots.txt matcher (RFC 9309, REQ-CMP-005): whether a path may be
//! fetched under the rules worker-parse extracted from a site's robots.txt.
//!
//! [`RobotsRules`] travels from worker-parse to the supervisor inside
//! rypsok-proto's `ParseResponse::Robots`; [`RobotsRules::allows`] is the
//! decision the supervisor's fetch pipeline takes on it, for the URL and for
//! every redirect target. Pure, and linear in the pattern and path lengths.

use serde::{Deserialize, Serialize};

/// The robots.txt rules that apply to rypsok (RFC 9309): the group of the
/// product token `rypsok`, else the group of `*`, else none (everything
/// allowed). Patterns are percent-encoded paths as the file wrote them, with
/// `*` and a final `$` as RFC 9309 defines them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RobotsRules {
    /// The rules of the group, in file order.
    pub rules: Vec<RobotsRule>,
}

/// One `allow` or `disallow` line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RobotsRule {
    /// `allow` (true) or `disallow` (false).
    pub allow: bool,
    /// The path pattern, never empty.
    pub pattern: String,
}

impl RobotsRules {
    /// Whether `path` (the URL's percent-encoded path and query, starting
    /// with `/`) may be fetched: the rule with the longest matching pattern
    /// decides, an `allow` winning a tie (RFC 9309 §2.2.2); no matching rule
    /// allows; `/robots.txt` is always allowed. Escapes of unreserved
    /// characters are decoded on both sides and the hex digits of the other
    /// escapes compare case-insensitively. Linear in the pattern and path
    /// lengths for each rule, hostile patterns included (see
    /// `pattern_matches`).
    pub fn allows(&self, path: &str) -> bool {
        if path == "/robots.txt" {
            return true;
        }
        let path = normalize_escapes(path);
        let mut best: Option<(usize, bool)> = None;
        for rule in &self.rules {
            let pattern = normalize_escapes(&rule.pattern);
            if !pattern_matches(&pattern, &path) {
                continue;
            }
            let len = pattern.len();
            best = match best {
                Some((best_len, best_allow))
                    if best_len > len || (best_len == len && (best_allow || !rule.allow)) =>
                {
                    Some((best_len, best_allow))
                }
                _ => Some((len, rule.allow)),
            };
        }
        best.is_none_or(|(_, allow)| allow)
    }
}

/// Brings `%xx` escapes to one form (RFC 9309 §2.2.2, RFC 3986 §6.2.2):
/// an escape of an unreserved character (`A-Za-z0-9-._~`) is decoded, so
/// `/%70rivate` and `/private` compare equal; any other escape keeps its
/// `%` and has its hex digits upper-cased, so `%2f` and `%2F` compare equal.
/// `*` and `$` are reserved, so an escaped `%2A` never becomes a wildcard.
fn normalize_escapes(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && bytes[i + 1].is_ascii_hexdigit()
            && bytes[i + 2].is_ascii_hexdigit()
        {
            let decoded = std::str::from_utf8(&bytes[i + 1..i + 3])
                .ok()
                .and_then(|hex| u8::from_str_radix(hex, 16).ok())
                .unwrap_or(b'%');
            if decoded.is_ascii_alphanumeric() || matches!(decoded, b'-' | b'.' | b'_' | b'~') {
                out.push(char::from(decoded));
            } else {
                out.push('%');
                out.push(char::from(bytes[i + 1].to_ascii_uppercase()));
                out.push(char::from(bytes[i + 2].to_ascii_uppercase()));
            }
            i += 3;
            continue;
        }
        // Copy one whole UTF-8 sequence.
        let len = match bytes[i] {
            0x00..=0x7F => 1,
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            _ => 4,
        };
        let end = (i + len).min(bytes.len());
        out.push_str(text.get(i..end).unwrap_or_default());
        i = end;
    }
    out
}

/// RFC 9309 pattern matching: a prefix match where `*` matches any run of
/// characters and a final `$` anchors the end.
///
/// Linear in the pattern and path lengths, whatever the pattern: the
/// pattern is cut at each `*` into literal pieces; the first must start the
/// path, each later one is taken at its leftmost place after the one before
/// (the leftmost place leaves the most path for the rest, so it is never
/// worse), and under `$` the last must end the path. `str::find` is the
/// two-way search, linear in what it scans, and each piece scans on from
/// where the one before ended. (A backtracking matcher costs pattern × path
/// on hostile rules, and the supervisor matches on its async threads.)
fn pattern_matches(pattern: &str, path: &str) -> bool {
    let (pattern, anchored) = match pattern.strip_suffix('$') {
        Some(head) => (head, true),
        None => (pattern, false),
    };
    let mut pieces = pattern.split('*');
    let first = pieces.next().unwrap_or_default();
    let Some(mut rest) = path.strip_prefix(first) else {
        return false;
    };
    let mut pieces = pieces.peekable();
    if pieces.peek().is_none() {
        return !anchored || rest.is_empty();
    }
    while let Some(piece) = pieces.next() {
        if anchored && pieces.peek().is_none() {
            return rest.ends_with(piece);
        }
        match rest.find(piece) {
            Some(at) => rest = &rest[at + piece.len()..],
            None => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn robots(rules: &[(bool, &str)]) -> RobotsRules {
        RobotsRules {
            rules: rules
                .iter()
                .map(|&(allow, pattern)| RobotsRule {
                    allow,
                    pattern: pattern.to_owned(),
                })
                .collect(),
        }
    }

    /// The plain recursive definition of RFC 9309 matching, exponential but
    /// obviously right, to check the linear matcher against.
    fn reference_matches(pattern: &[u8], path: &[u8], anchored: bool) -> bool {
        match pattern.split_first() {
            None => !anchored || path.is_empty(),
            Some((b'*', rest)) => {
                (0..=path.len()).any(|skip| reference_matches(rest, &path[skip..], anchored))
            }
            Some((&c, rest)) => {
                path.first() == Some(&c) && reference_matches(rest, &path[1..], anchored)
            }
        }
    }

    fn words(alphabet: &[char], max_len: usize) -> Vec<String> {
        let mut all = vec![String::new()];
        let mut last = vec![String::new()];
        for _ in 0..max_len {
            last = last
                .iter()
                .flat_map(|w| alphabet.iter().map(move |c| format!("{w}{c}")))
                .collect();
            all.extend(last.iter().cloned());
        }
        all
    }

    // Verifies: REQ-CMP-005, REQ-SEC-010 (RFC 9309 §2.2.3 matching, exhaustively against the definition; hostile patterns stay linear)
    #[test]
    fn the_linear_matcher_agrees_with_the_definition() {
        let paths = words(&['a', 'b'], 6);
        for body in words(&['a', 'b', '*'], 5) {
            for anchored in [false, true] {
                let pattern = format!("/{body}{}", if anchored { "$" } else { "" });
                for tail in &paths {
                    let path = format!("/{tail}");
                    let want =
                        reference_matches(format!("/{body}").as_bytes(), path.as_bytes(), anchored);
                    assert_eq!(
                        pattern_matches(&pattern, &path),
                        want,
                        "{pattern} on {path}"
                    );
                }
            }
        }
        // A `$` inside the pattern is a plain character.
        assert!(pattern_matches("/a$b", "/a$bc"));
        // Hostile: a backtracking matcher would take pattern × path steps
        // here, for each of the rules.
        let hostile = format!("/{}b$", "*a".repeat(2000));
        let path = format!("/{}", "a".repeat(2000));
        assert!(!pattern_matches(&hostile, &path));
        assert!(pattern_matches(&hostile, &format!("{path}b")));
    }

    // Verifies: REQ-CMP-005 (RFC 9309 §2.2.2: escapes of unreserved characters are decoded before matching)
    #[test]
    fn an_escaped_unreserved_character_does_not_bypass_a_rule() {
        let r = robots(&[(false, "/private")]);
        assert!(!r.allows("/%70rivate"));
        assert!(!r.allows("/priv%61te/x"));
        assert!(!r.allows("/%70%72%69%76%61%74%65"));
        assert!(r.allows("/public"));
        // The pattern side is decoded too.
        let r = robots(&[(false, "/%7Euser/%61")]);
        assert!(!r.allows("/~user/a"));
        // Reserved characters stay escaped: `%2F` is not `/`, `%2A` no wildcard.
        let r = robots(&[(false, "/a/b"), (false, "/x%2Ay")]);
        assert!(r.allows("/a%2Fb"));
        assert!(!r.allows("/a/b"));
        assert!(r.allows("/xzzy"));
        assert!(!r.allows("/x%2ay"));
    }
}
