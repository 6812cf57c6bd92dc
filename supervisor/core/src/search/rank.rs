//! Ranking (design §7; REQ-RANK-001..007, REQ-ENG-011, REQ-CTX-004,
//! REQ-CMP-003): each engine's hits checked, deduplicated across engines
//! by comparison key, fused by reciprocal rank, ordered totally, cleaned
//! and cut. Pure functions of the engines' hits and the operator's options.

use std::collections::HashMap;

use rypsok_egress::{AddressVerdict, EgressPolicy};
use rypsok_proto::EngineHit;

use crate::boundary::{clean_decoded_text, clean_highlighted_text, clean_markup_text};
use crate::context::ActiveEngine;
use crate::engine::{Driver, ResultText, TextForm};
use crate::instruction::{DecodedForms, detect};
use crate::limits::{RESULTS_PER_ENGINE, SNIPPET_MAX_CHARS, TITLE_MAX_CHARS, URL_MAX_CHARS};
use crate::response::SearchResult;
use crate::response::{DropReason, Notice, NoticeCode};

/// What the operator chose about results.
#[derive(Debug, Clone, Copy)]
pub(super) struct RankOptions<'a> {
    /// `[service] attribution`: name the engines on every result.
    pub(super) attribution: bool,
    /// `[search] drop_instruction_like`.
    pub(super) drop_instruction_like: bool,
    /// `[egress]`: a result naming an address it refuses is dropped.
    pub(super) egress: &'a EgressPolicy,
}

/// Reciprocal-rank constant: the usual 60 of the RRF literature, which keeps
/// a first place on one engine from outweighing agreement between engines.
const RRF_K: f64 = 60.0;

/// One result after merging: every observation of one comparison key.
pub(super) struct Merged {
    /// The best-ranked observation (lowest rank; the earlier engine in
    /// preference order on a tie).
    hit: EngineHit,
    /// The form of `hit`'s text, from its engine's driver (design §9).
    text: ResultText,
    best_rank: usize,
    /// The best-ranked https URL seen for this key, if any.
    best_https: Option<(usize, String)>,
    score: f64,
    engines: Vec<String>,
}

/// Counts of what cleaning and checking did, for the notices.
#[derive(Default)]
pub(super) struct Tally {
    titles_cut: u64,
    snippets_cut: u64,
    removed: u64,
    pub(super) url_too_long: u64,
    pub(super) url_invalid: u64,
    pub(super) url_not_public: u64,
    instruction_like: u64,
    instruction_dropped: u64,
}

/// Checks each engine's hits (worker-parse is not trusted to have done so),
/// deduplicates across engines by comparison key, fuses ranks, orders
/// totally, cleans and cuts (REQ-ENG-011, REQ-RANK-003..007, REQ-CTX-004).
pub(super) fn merge(
    per_engine: Vec<(&ActiveEngine, Vec<EngineHit>)>,
    max_results: usize,
    options: RankOptions<'_>,
    notices: &mut Vec<Notice>,
) -> Vec<SearchResult> {
    // Engines whose results must name them (REQ-CMP-003).
    let must_attribute: Vec<String> = per_engine
        .iter()
        .filter(|(engine, _)| engine.config.kind.admission().attribution_required)
        .map(|(engine, _)| engine.config.id.clone())
        .collect();
    let mut tally = Tally::default();
    let mut merged: Vec<Merged> = Vec::new();
    let mut by_key: HashMap<String, usize> = HashMap::new();
    for (engine, hits) in per_engine {
        let weight = engine.config.weight;
        for (rank, mut hit) in hits
            .into_iter()
            .take(RESULTS_PER_ENGINE as usize)
            .enumerate()
        {
            let Some(parsed) = check_url(&hit.url, &mut tally) else {
                continue;
            };
            if names_refused_address(&parsed, options.egress) {
                tally.url_not_public += 1;
                continue;
            }
            if hit
                .date
                .as_deref()
                .is_some_and(|d| !rypsok_proto::is_result_date(d))
            {
                hit.date = None;
            }
            // The URL returned is the engine's, less its tracking
            // parameters (REQ-RANK-003).
            hit.url = returned_url(&hit.url);
            let https = (parsed.scheme() == "https").then(|| (rank, hit.url.clone()));
            let score = weight / (RRF_K + rank as f64 + 1.0);
            let key = comparison_key(&parsed);
            if let Some(&i) = by_key.get(&key) {
                let m = &mut merged[i];
                m.score += score;
                if rank < m.best_rank {
                    m.best_rank = rank;
                    m.hit = hit;
                    m.text = engine.config.kind.spec().text;
                }
                if let Some((r, url)) = https
                    && m.best_https.as_ref().is_none_or(|(best, _)| r < *best)
                {
                    m.best_https = Some((r, url));
                }
                if !m.engines.contains(&engine.config.id) {
                    m.engines.push(engine.config.id.clone());
                }
            } else {
                by_key.insert(key, merged.len());
                merged.push(Merged {
                    hit,
                    text: engine.config.kind.spec().text,
                    best_rank: rank,
                    best_https: https,
                    score,
                    engines: vec![engine.config.id.clone()],
                });
            }
        }
    }
    // A total order: score, then best rank, then URL bytes, so identical
    // engine answers give identical output (I8).
    merged.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then(a.best_rank.cmp(&b.best_rank))
            .then_with(|| a.hit.url.cmp(&b.hit.url))
    });
    // Clean in rank order until max_results are kept; a result whose
    // title or snippet reads like an instruction is noticed, or dropped
    // when the operator chose so, and the next one takes its place.
    let attribution = options.attribution;
    let drop_instruction_like = options.drop_instruction_like;
    let mut results = Vec::new();
    let mut decoded = DecodedForms::default();
    for m in merged {
        if results.len() == max_results {
            break;
        }
        let clean = |form: TextForm, text: &str, max: usize| match form {
            TextForm::Markup => clean_markup_text(text, max),
            TextForm::Plain => clean_decoded_text(text, max),
            TextForm::Highlighted => clean_highlighted_text(text, max),
        };
        let title = clean(m.text.title, &m.hit.title, TITLE_MAX_CHARS);
        let snippet = clean(m.text.snippet, &m.hit.snippet, SNIPPET_MAX_CHARS);
        // The provider's text is judged as it came, before cleaning removes
        // invisible characters: Unicode tag characters spell text the
        // detector reads (issue: decode, then judge).
        let (t, s) = (detect(&m.hit.title), detect(&m.hit.snippet));
        decoded = decoded.union(t.decoded).union(s.decoded);
        if t.instruction_like || s.instruction_like {
            if drop_instruction_like {
                tally.instruction_dropped += 1;
                continue;
            }
            tally.instruction_like += 1;
        }
        tally.titles_cut += u64::from(title.truncated);
        tally.snippets_cut += u64::from(snippet.truncated);
        tally.removed += (title.removed + snippet.removed) as u64;
        // One resource seen over http and https is shown over https
        // (REQ-RANK-003).
        let url = match m.best_https {
            Some((_, https)) if !m.hit.url.starts_with("https:") => https,
            _ => m.hit.url,
        };
        let required = m.engines.iter().any(|id| must_attribute.contains(id));
        results.push(SearchResult {
            title: title.text,
            url,
            snippet: snippet.text,
            date: m.hit.date,
            engines: (attribution || required).then_some(m.engines),
        });
    }
    if !decoded.is_empty() {
        // What was decoded, from a closed list; never the text.
        tracing::info!(event = "hidden_text_decoded", decoded = %decoded, "provider text held hidden forms; judged decoded too");
    }
    for (code, n) in [
        (NoticeCode::SnippetTruncated, tally.snippets_cut),
        (NoticeCode::TitleTruncated, tally.titles_cut),
        (NoticeCode::CharactersRemoved, tally.removed),
        (NoticeCode::InstructionLikeContent, tally.instruction_like),
    ] {
        if n > 0 {
            notices.push(Notice::counted(code, n));
        }
    }
    for (reason, n) in [
        (
            DropReason::InstructionLikeContent,
            tally.instruction_dropped,
        ),
        (DropReason::UrlTooLong, tally.url_too_long),
        (DropReason::UrlInvalid, tally.url_invalid),
        (DropReason::UrlNotPublic, tally.url_not_public),
    ] {
        if n > 0 {
            notices.push(Notice::dropped(reason, n));
        }
    }
    results
}

/// A result URL the caller could use: http(s), a host without empty labels,
/// within LIM-F9. Anything else is dropped and counted.
pub(super) fn check_url(url: &str, tally: &mut Tally) -> Option<url::Url> {
    if url.chars().count() > URL_MAX_CHARS {
        tally.url_too_long += 1;
        return None;
    }
    let parsed = url::Url::parse(url).ok().filter(|u| {
        matches!(u.scheme(), "http" | "https")
            && u.host_str().is_some_and(|h| {
                let h = h.strip_suffix('.').unwrap_or(h);
                !h.is_empty() && !h.split('.').any(str::is_empty)
            })
    });
    if parsed.is_none() {
        tally.url_invalid += 1;
    }
    parsed
}

/// Whether a result URL's host is a literal address that egress refuses
/// for its class (private, loopback, link-local, metadata...; design §8,
/// REQ-SEC-006): the same address classes and allow rules `web_fetch`
/// obeys, judged on the literal only. A name is never looked up here: what
/// it resolves to is judged when it is fetched.
pub(super) fn names_refused_address(url: &url::Url, egress: &EgressPolicy) -> bool {
    let addr = match url.host() {
        Some(url::Host::Ipv4(v4)) => std::net::IpAddr::V4(v4),
        Some(url::Host::Ipv6(v6)) => std::net::IpAddr::V6(v6),
        Some(url::Host::Domain(_)) | None => return false,
    };
    let port = url.port_or_known_default().unwrap_or_default();
    let class = rypsok_egress::classify(addr);
    !class.is_global() && egress.judge_addr(addr, port) != AddressVerdict::AllowedByRule
}

/// Query parameters that only track where a visitor came from
/// (REQ-RANK-002, REQ-RANK-003): campaign tags of the analytics suites and
/// the click identifiers of the ad networks. Compared ASCII
/// case-insensitively on the raw name; `utm_` is a prefix.
const TRACKING_PARAMETERS: &[&str] = &[
    "_ga",
    "_gl",
    "_hsenc",
    "_hsmi",
    "dclid",
    "fbclid",
    "gbraid",
    "gclid",
    "gclsrc",
    "igshid",
    "mc_cid",
    "mc_eid",
    "mkt_tok",
    "msclkid",
    "oly_anon_id",
    "oly_enc_id",
    "srsltid",
    "ttclid",
    "twclid",
    "vero_id",
    "wbraid",
    "yclid",
];

fn is_tracking_parameter(pair: &str) -> bool {
    let name = pair.split_once('=').map_or(pair, |(name, _)| name);
    let lower = name.to_ascii_lowercase();
    lower.starts_with("utm_") || TRACKING_PARAMETERS.contains(&lower.as_str())
}

/// The URL a result shows (REQ-RANK-003): the engine's, byte for byte,
/// unless it carries tracking parameters; then its query is rebuilt from
/// the other parameters, each keeping its text and its place, and the `?`
/// goes when none is left. The fragment stays.
pub(super) fn returned_url(url: &str) -> String {
    let (before_fragment, fragment) = match url.find('#') {
        Some(at) => url.split_at(at),
        None => (url, ""),
    };
    let Some((base, query)) = before_fragment.split_once('?') else {
        return url.to_owned();
    };
    if !query.split('&').any(is_tracking_parameter) {
        return url.to_owned();
    }
    let kept: Vec<&str> = query
        .split('&')
        .filter(|pair| !is_tracking_parameter(pair))
        .collect();
    let kept = kept.join("&");
    if kept.is_empty() {
        format!("{base}{fragment}")
    } else {
        format!("{base}?{kept}{fragment}")
    }
}

/// The comparison key of a result URL (REQ-RANK-002): one resource, however
/// the engines wrote it. The scheme does not count (http and https merge);
/// the host is lower-cased (the URL parser has already put it in ASCII,
/// IDNA included) without one leading `www.` and without a root dot; a
/// port counts only when it is not the scheme's default; the path keeps its
/// case but not a trailing slash; the fragment does not count; tracking
/// parameters and empty pairs do not count, and the others count in sorted
/// order, so `?b=2&a=1` and `?a=1&b=2` are one resource.
pub(super) fn comparison_key(url: &url::Url) -> String {
    let host = url.host_str().unwrap_or_default().to_ascii_lowercase();
    let host = host.strip_suffix('.').unwrap_or(&host);
    let host = host.strip_prefix("www.").unwrap_or(host);
    let port = url.port().map(|p| format!(":{p}")).unwrap_or_default();
    let path = url.path().trim_end_matches('/');
    let mut pairs: Vec<&str> = url
        .query()
        .unwrap_or_default()
        .split('&')
        .filter(|pair| !pair.is_empty() && !is_tracking_parameter(pair))
        .collect();
    pairs.sort_unstable();
    if pairs.is_empty() {
        format!("{host}{port}{path}")
    } else {
        format!("{host}{port}{path}?{}", pairs.join("&"))
    }
}
