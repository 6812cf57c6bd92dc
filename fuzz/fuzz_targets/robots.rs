//! robots.txt parsing and matching (REQ-SEC-023, REQ-CMP-005). The input
//! is a robots.txt body, then after a 0xFF byte, paths to match (one a
//! line). Invariants: kept rules have non-empty patterns within the kept
//! bound, written in printable ASCII; parsing is deterministic; `allows` agrees with a
//! simple reference (RFC 9309: longest match wins, `allow` wins a tie,
//! `*` any run, a final `$` anchors, escapes of unreserved characters
//! decoded, `/robots.txt` always allowed), gives
//! the same verdict twice, and the same for every hex case of its
//! percent escapes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rypsok_egress::robots::RobotsRules;
use rypsok_worker_parse::robots::{MAX_KEPT_PATTERN_BYTES, parse_robots};

fn normalize(text: &str, upper: bool) -> Vec<u8> {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    for i in 0..b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && b[i + 1].is_ascii_hexdigit()
            && b[i + 2].is_ascii_hexdigit()
        {
            for j in [i + 1, i + 2] {
                out[j] = if upper {
                    b[j].to_ascii_uppercase()
                } else {
                    b[j].to_ascii_lowercase()
                };
            }
        }
    }
    out
}

/// RFC 9309 §2.2.2 as the reference reads it: an escape of an unreserved
/// character (A-Z a-z 0-9 - . _ ~) is that character; any other escape is
/// kept with upper-case hex.
fn reference_escapes(text: &str) -> Vec<u8> {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| char::from(c).to_digit(16);
        if b[i] == b'%'
            && let (Some(hi), Some(lo)) = (
                b.get(i + 1).copied().and_then(hex),
                b.get(i + 2).copied().and_then(hex),
            )
        {
            let c = u8::try_from(hi * 16 + lo).expect("two hex digits");
            if c.is_ascii_alphanumeric() || b"-._~".contains(&c) {
                out.push(c);
            } else {
                out.extend([
                    b'%',
                    b[i + 1].to_ascii_uppercase(),
                    b[i + 2].to_ascii_uppercase(),
                ]);
            }
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    out
}

/// Wildcard match by dynamic programming: `m[j]` says whether the pattern
/// so far matches the first `j` path bytes.
fn reference_matches(pattern: &[u8], path: &[u8]) -> bool {
    let (pattern, anchored) = match pattern.split_last() {
        Some((b'$', head)) => (head, true),
        _ => (pattern, false),
    };
    let mut m = vec![false; path.len() + 1];
    m[0] = true;
    for &p in pattern {
        let mut next = vec![false; path.len() + 1];
        for j in 0..=path.len() {
            next[j] = if p == b'*' {
                m[j] || (j > 0 && next[j - 1])
            } else {
                j > 0 && m[j - 1] && path[j - 1] == p
            };
        }
        m = next;
    }
    if anchored {
        m[path.len()]
    } else {
        m.iter().any(|&x| x)
    }
}

fn reference_allows(rules: &RobotsRules, path: &str) -> bool {
    if path == "/robots.txt" {
        return true;
    }
    let path = reference_escapes(path);
    let mut best: Option<(usize, bool)> = None;
    for rule in &rules.rules {
        let pattern = reference_escapes(&rule.pattern);
        if !reference_matches(&pattern, &path) {
            continue;
        }
        let better = match best {
            None => true,
            Some((len, allow)) => {
                pattern.len() > len || (pattern.len() == len && rule.allow && !allow)
            }
        };
        if better {
            best = Some((pattern.len(), rule.allow));
        }
    }
    best.is_none_or(|(_, allow)| allow)
}

fuzz_target!(|data: &[u8]| {
    let (body, paths) = match data.iter().position(|&b| b == 0xFF) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &data[..0]),
    };
    let rules = parse_robots(body);
    assert_eq!(rules, parse_robots(body));
    let kept: usize = rules.rules.iter().map(|r| r.pattern.len()).sum();
    assert!(kept <= MAX_KEPT_PATTERN_BYTES);
    for rule in &rules.rules {
        assert!(!rule.pattern.is_empty());
        assert!(
            rule.pattern.bytes().all(|b| b.is_ascii_graphic()),
            "{:?}",
            rule.pattern
        );
    }
    assert!(rules.allows("/robots.txt"));
    let paths = String::from_utf8_lossy(paths);
    for line in paths.lines().take(8) {
        let path = format!("/{}", line.trim_start_matches('/'));
        let verdict = rules.allows(&path);
        assert_eq!(verdict, rules.allows(&path));
        assert_eq!(
            verdict,
            reference_allows(&rules, &path),
            "{path:?} {rules:?}"
        );
        for upper in [false, true] {
            let respelled = String::from_utf8(normalize(&path, upper)).expect("ASCII case only");
            assert_eq!(
                verdict,
                rules.allows(&respelled),
                "{path:?} vs {respelled:?}"
            );
        }
    }
});
