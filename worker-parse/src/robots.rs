//! robots.txt (RFC 9309): a body in, the rules for rypsok out.
//!
//! The supervisor fetches the file and keeps the rules; matching a path
//! against them is [`RobotsRules::allows`], rypsok-egress's matcher, which
//! this crate's tests apply too. Hand-written rather than a crate: the parser must stop at the
//! LIM-F13 bound, bound what it keeps, and select the group for our own
//! product token with `*` as the fallback, and the format is a few lines of
//! `key: value`.

use rypsok_proto::limits::ROBOTS_MAX_BYTES;
use rypsok_proto::{RobotsRule, RobotsRules};

/// The product token rypsok's crawler answers to.
pub const PRODUCT_TOKEN: &str = "rypsok";

/// Pattern bytes kept for the selected group: the supervisor matches every
/// rule on every fetch, and real files keep their rules for one agent far
/// below this (tens of KiB at most). A group past it is not cut short,
/// which would drop its later disallow lines (failing open): it is read as
/// disallowing everything.
pub const MAX_KEPT_PATTERN_BYTES: usize = 64 * 1024;

/// One group of the file: its agents and its rules.
#[derive(Default)]
struct Group {
    agents: Vec<String>,
    rules: Vec<RobotsRule>,
}

/// Reads the first LIM-F13 bytes of `body` and returns the rules of the
/// `rypsok` groups, else of the `*` groups, else none (all allowed).
pub fn parse_robots(body: &[u8]) -> RobotsRules {
    let body = &body[..body.len().min(ROBOTS_MAX_BYTES)];
    let text = String::from_utf8_lossy(body);
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(&text);
    let mut groups: Vec<Group> = Vec::new();
    // Whether the current group already has rules: a user-agent line after
    // a rule starts a new group, several in a row share one.
    let mut in_rules = true;
    for line in text.split(['\n', '\r']) {
        let line = line.split('#').next().unwrap_or_default();
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let key = key.trim().to_ascii_lowercase();
        let value = value.trim();
        match key.as_str() {
            "user-agent" => {
                if in_rules {
                    groups.push(Group::default());
                    in_rules = false;
                }
                if let Some(group) = groups.last_mut() {
                    group.agents.push(agent_token(value));
                }
            }
            "allow" | "disallow" => {
                in_rules = true;
                // Rules before any user-agent line belong to no group; an
                // empty value matches nothing.
                let (Some(group), false) = (groups.last_mut(), value.is_empty()) else {
                    continue;
                };
                group.rules.push(RobotsRule {
                    allow: key == "allow",
                    pattern: encode_pattern(value),
                });
            }
            // sitemap, crawl-delay and the rest neither end a group nor
            // matter here.
            _ => {}
        }
    }
    let select = |token: &str| -> Vec<&Group> {
        groups
            .iter()
            .filter(|g| g.agents.iter().any(|a| a == token))
            .collect()
    };
    let mut chosen = select(PRODUCT_TOKEN);
    if chosen.is_empty() {
        chosen = select("*");
    }
    let mut rules = Vec::new();
    let mut kept = 0usize;
    for rule in chosen.into_iter().flat_map(|g| g.rules.iter()) {
        kept += rule.pattern.len();
        if kept > MAX_KEPT_PATTERN_BYTES {
            // Fail closed: everything but /robots.txt is disallowed.
            return RobotsRules {
                rules: vec![RobotsRule {
                    allow: false,
                    pattern: "/".to_owned(),
                }],
            };
        }
        rules.push(rule.clone());
    }
    RobotsRules { rules }
}

/// The product token of a user-agent line, lower-cased: `*`, or its leading
/// letters, `_` and `-` (`rypsok/1.0` names `rypsok`).
fn agent_token(value: &str) -> String {
    if value.starts_with('*') {
        return "*".to_owned();
    }
    value
        .chars()
        .take_while(|c| c.is_ascii_alphabetic() || *c == '_' || *c == '-')
        .collect::<String>()
        .to_ascii_lowercase()
}

/// Percent-encodes what a URL path would carry encoded (non-ASCII bytes,
/// spaces and controls), so that a pattern written with raw UTF-8 matches
/// the encoded path of a URL.
fn encode_pattern(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for &b in value.as_bytes() {
        if b.is_ascii_graphic() {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(text: &str) -> RobotsRules {
        parse_robots(text.as_bytes())
    }

    // Verifies: REQ-CMP-005 (the group for rypsok wins over *; longest match decides)
    #[test]
    fn prefers_the_rypsok_group_over_the_star_group() {
        let r = rules(
            "User-agent: *\nDisallow: /\n\nUser-agent: Rypsok/1.0\nDisallow: /private\nAllow: /private/open\n",
        );
        assert!(r.allows("/"));
        assert!(r.allows("/public/page"));
        assert!(!r.allows("/private/x"));
        assert!(r.allows("/private/open/x"));
        let star = rules("User-agent: other\nDisallow: /\nUser-agent: *\nDisallow: /tmp\n");
        assert!(!star.allows("/tmp/a"));
        assert!(star.allows("/a"));
    }

    // Verifies: REQ-CMP-005 (no group for us: everything allowed; robots.txt itself always)
    #[test]
    fn allows_everything_without_a_matching_group() {
        assert!(rules("User-agent: googlebot\nDisallow: /\n").allows("/x"));
        assert!(rules("").allows("/x"));
        assert!(rules("User-agent: *\nDisallow: /\n").allows("/robots.txt"));
        assert!(rules("User-agent: *\nDisallow:\n").allows("/x"));
    }

    // Verifies: REQ-CMP-005 (RFC 9309 §2.2.2: longest match; allow wins a tie)
    #[test]
    fn longest_match_wins_and_allow_wins_a_tie() {
        let r = rules("User-agent: *\nAllow: /p\nDisallow: /\n");
        assert!(r.allows("/page"));
        assert!(!r.allows("/other"));
        let tie = rules("User-agent: *\nDisallow: /a\nAllow: /a\n");
        assert!(tie.allows("/a/b"));
        let longer = rules("User-agent: *\nAllow: /folder\nDisallow: /folder/\n");
        assert!(!longer.allows("/folder/page"));
        assert!(longer.allows("/folder"));
    }

    // Verifies: REQ-CMP-005 (RFC 9309 §2.2.3: * and $)
    #[test]
    fn honours_wildcards_and_the_end_anchor() {
        let r = rules("User-agent: *\nDisallow: /*.pdf$\nDisallow: /*/secret\nDisallow: /exact$\n");
        assert!(!r.allows("/docs/a.pdf"));
        assert!(r.allows("/docs/a.pdf?x=1"));
        assert!(r.allows("/docs/a.pdfx"));
        assert!(!r.allows("/a/b/secret/c"));
        assert!(!r.allows("/exact"));
        assert!(r.allows("/exactly"));
        let q = rules("User-agent: *\nDisallow: /*?session=\n");
        assert!(!q.allows("/page?session=1"));
        assert!(q.allows("/page?x=1"));
    }

    // Verifies: REQ-CMP-005 (consecutive user-agent lines share a group; merged groups; comments)
    #[test]
    fn groups_agents_merges_groups_and_ignores_comments() {
        let r = rules(
            "# hello\nUser-agent: a\nUser-agent: rypsok # us\nDisallow: /one\nSitemap: https://x/s.xml\nDisallow: /two\nUser-agent: rypsok\nDisallow: /three\n",
        );
        assert!(!r.allows("/one"));
        assert!(!r.allows("/two"));
        assert!(!r.allows("/three"));
        assert!(r.allows("/four"));
        // Rules before any user-agent line belong to no one.
        assert!(rules("Disallow: /\n").allows("/x"));
        // CR line ends, keys in any case, a BOM.
        let crlf = rules("\u{FEFF}USER-AGENT: *\r\nDISALLOW: /x\r\n");
        assert!(!crlf.allows("/x"));
    }

    // Verifies: REQ-CMP-005 (raw UTF-8 patterns match encoded paths; hex case does not matter)
    #[test]
    fn encodes_patterns_like_urls_encode_paths() {
        let r = rules("User-agent: *\nDisallow: /ä\nDisallow: /%7euser\n");
        assert!(!r.allows("/%C3%A4/x"));
        assert!(!r.allows("/%7Euser/x"));
    }

    // Verifies: LIM-F13 (only the first 512 KiB are read)
    #[test]
    fn reads_only_the_first_bound_of_the_file() {
        let mut body = b"User-agent: *\n".to_vec();
        body.resize(ROBOTS_MAX_BYTES, b'\n');
        body.extend_from_slice(b"Disallow: /\n");
        assert!(parse_robots(&body).allows("/x"));
    }

    // Verifies: REQ-SEC-010, REQ-CMP-005 (what is kept is bounded; a group past the bound fails closed; hostile patterns match)
    #[test]
    fn bounds_the_rules_kept_and_fails_closed_past_the_bound() {
        let line = "Disallow: /*a*a*a*a*a*a*a*a*b$\n";
        let pattern_len = "/*a*a*a*a*a*a*a*a*b$".len();
        let within = MAX_KEPT_PATTERN_BYTES / pattern_len;
        let mut text = "User-agent: *\n".to_owned();
        text.push_str(&line.repeat(within));
        let path = format!("/{}", "a".repeat(2000));
        let r = rules(&text);
        assert_eq!(r.rules.len(), within);
        assert!(r.allows(&path));
        assert!(!r.allows(&format!("{path}b")));
        // One rule more, then a disallow that a cut-short group would lose.
        text.push_str(line);
        text.push_str("Disallow: /secret\n");
        let r = rules(&text);
        assert!(r.rules.iter().map(|r| r.pattern.len()).sum::<usize>() <= MAX_KEPT_PATTERN_BYTES);
        assert!(!r.allows("/secret"));
        assert!(!r.allows("/anything"));
        assert!(r.allows("/robots.txt"));
    }
}
