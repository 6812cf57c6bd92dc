//! robots.txt for `web_fetch` (RFC 9309; design §8; REQ-CMP-005, LIM-F13):
//! read through worker-net under the agent profile, parsed in
//! worker-parse, kept here per origin for an hour, 1024 origins at most
//! (least recently used forgotten first).
//!
//! RFC 9309 §2.3.1: a 2xx is parsed; redirects are followed up to five
//! times; 4xx means no rules (everything allowed); 5xx and a file that
//! cannot be read mean everything disallowed. Only answers that carry
//! rules (2xx, 4xx, too many redirects) and a file past LIM-F13 (kept as
//! "disallow everything") are kept: a failing site is asked again on the
//! next call. A site that cannot be reached at all answers
//! like the page would (`unavailable`, `network`), never `denied`, so a
//! refused name still answers exactly like a name that does not resolve.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rypsok_proto::limits::{ROBOTS_CACHE_HOSTS, ROBOTS_FRESHNESS_S, ROBOTS_MAX_BYTES};
use rypsok_proto::{NetFailure, RobotsRule, RobotsRules};
use tokio::time::Instant;
use url::Url;

use super::Env;
use super::failure::FetchFailure;
use super::hop::{HopFailure, exchange, redirect_location};
use super::policy::{self, Strict, Target};

/// Redirects followed for robots.txt (RFC 9309 §2.3.1.2: at least five).
const ROBOTS_REDIRECTS: usize = 5;

/// Kept rules per origin.
#[derive(Debug, Default)]
pub(crate) struct RobotsCache {
    entries: Mutex<HashMap<String, Entry>>,
    clock: AtomicU64,
}

#[derive(Debug)]
struct Entry {
    rules: Arc<RobotsRules>,
    stored: Instant,
    used: u64,
}

impl RobotsCache {
    fn get(&self, origin: &str) -> Option<Arc<RobotsRules>> {
        let tick = self.clock.fetch_add(1, Ordering::Relaxed);
        let mut entries = self
            .entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let fresh = Duration::from_secs(ROBOTS_FRESHNESS_S);
        match entries.get_mut(origin) {
            Some(entry) if entry.stored.elapsed() < fresh => {
                entry.used = tick;
                Some(Arc::clone(&entry.rules))
            }
            Some(_) => {
                entries.remove(origin);
                None
            }
            None => None,
        }
    }

    fn put(&self, origin: String, rules: Arc<RobotsRules>) {
        let tick = self.clock.fetch_add(1, Ordering::Relaxed);
        let mut entries = self
            .entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if !entries.contains_key(&origin) && entries.len() >= ROBOTS_CACHE_HOSTS {
            let oldest = entries
                .iter()
                .min_by_key(|(_, e)| e.used)
                .map(|(k, _)| k.clone());
            if let Some(oldest) = oldest {
                entries.remove(&oldest);
            }
        }
        entries.insert(
            origin,
            Entry {
                rules,
                stored: Instant::now(),
                used: tick,
            },
        );
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.entries.lock().map(|e| e.len()).unwrap_or_default()
    }
}

/// Whether robots.txt lets rypsok read `target`: `Ok`, or how it did not.
pub(super) async fn check(
    env: Env<'_>,
    target: &Target,
    network_deadline: Instant,
    call_deadline: Instant,
) -> Result<(), FetchFailure> {
    let rules = rules_for(env, target, network_deadline, call_deadline).await?;
    let path = match target.url.query() {
        Some(q) => format!("{}?{q}", target.url.path()),
        None => target.url.path().to_owned(),
    };
    if rules.allows(&path) {
        Ok(())
    } else {
        Err(FetchFailure::RobotsDisallow)
    }
}

fn origin(url: &Url) -> String {
    format!(
        "{}://{}:{}",
        url.scheme(),
        url.host_str().unwrap_or_default(),
        url.port_or_known_default().unwrap_or_default()
    )
}

async fn rules_for(
    env: Env<'_>,
    target: &Target,
    network_deadline: Instant,
    call_deadline: Instant,
) -> Result<Arc<RobotsRules>, FetchFailure> {
    let cache = &env.state.robots;
    let key = origin(&target.url);
    if let Some(rules) = cache.get(&key) {
        return Ok(rules);
    }
    // LIM-F13, not the page's byte limit: the file is read up to its own
    // bound whatever the operator set for pages.
    let max_bytes = ROBOTS_MAX_BYTES as u64;
    let mut url = target
        .url
        .join("/robots.txt")
        .map_err(|_| FetchFailure::RobotsUrl)?;
    let mut upgraded = target.upgraded;
    for _ in 0..=ROBOTS_REDIRECTS {
        let response =
            match exchange(env, &url, "text/plain", (max_bytes, None), network_deadline).await {
                Ok(response) => response,
                // A file past LIM-F13. RFC 9309 §2.5 would have us read its
                // first 500 KiB, but worker-net fails a body past its bound
                // rather than truncating it, and a truncation flag would
                // widen the pipe protocol and worker-net for a rare case.
                // So the file counts as unreadable (everything disallowed,
                // failing closed), and that verdict is kept like rules are,
                // so that such a file is not downloaded again on every call.
                Err(HopFailure::Net(NetFailure::TooLarge)) => {
                    let rules = Arc::new(RobotsRules {
                        rules: vec![RobotsRule {
                            allow: false,
                            pattern: "/".to_owned(),
                        }],
                    });
                    cache.put(key, Arc::clone(&rules));
                    return Ok(rules);
                }
                // Otherwise not kept: a broken answer (unreadable, so
                // everything is disallowed) or a site that cannot be reached is
                // asked again next time.
                Err(failure) => return Err(FetchFailure::RobotsHop { failure, upgraded }),
            };
        match status_verdict(response.status, redirect_location(&response)) {
            Verdict::Follow(location) => {
                let next = url.join(location).ok().and_then(|next| {
                    policy::check(
                        next.as_str(),
                        &env.ctx.config,
                        &env.ctx.returned,
                        Strict::Skip,
                    )
                    .ok()
                });
                match next {
                    Some(next) => {
                        url = next.url;
                        upgraded = next.upgraded;
                    }
                    // A redirect rypsok may not follow: the file is
                    // unavailable, which allows everything (RFC 9309
                    // §2.3.1.2).
                    None => break,
                }
            }
            Verdict::Parse => {
                let rules = env
                    .ctx
                    .parse
                    .parse_robots(response.body, call_deadline)
                    .await
                    .map(Arc::new)
                    .map_err(FetchFailure::RobotsReader)?;
                cache.put(key, Arc::clone(&rules));
                return Ok(rules);
            }
            Verdict::DisallowAll => return Err(FetchFailure::RobotsDisallow),
            Verdict::NoRules => break,
        }
    }
    let rules = Arc::new(RobotsRules::default());
    cache.put(key, Arc::clone(&rules));
    Ok(rules)
}

/// What RFC 9309 §2.3.1 makes of one answer for robots.txt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict<'a> {
    /// 2xx: the body holds the rules.
    Parse,
    /// A redirect: follow it (§2.3.1.2), within the bound on redirects.
    Follow(&'a str),
    /// 4xx, or any other answer: the file is unavailable, everything is
    /// allowed (§2.3.1.3).
    NoRules,
    /// 5xx: the file is unreachable, everything is disallowed (§2.3.1.4).
    DisallowAll,
}

/// The RFC 9309 status rules, as a function of the answer's status and its
/// redirect location (present only for a redirect status with one).
fn status_verdict(status: u16, location: Option<&str>) -> Verdict<'_> {
    match (location, status) {
        (Some(location), _) => Verdict::Follow(location),
        (None, 200..=299) => Verdict::Parse,
        (None, 500..) => Verdict::DisallowAll,
        (None, _) => Verdict::NoRules,
    }
}

#[cfg(test)]
mod status_tests {
    use super::{Verdict, status_verdict};

    #[test]
    fn reads_2xx_follows_redirects_allows_on_4xx_and_disallows_on_5xx() {
        // Verifies: REQ-CMP-005 (RFC 9309 §2.3.1 status rules)
        assert_eq!(status_verdict(200, None), Verdict::Parse);
        assert_eq!(status_verdict(204, None), Verdict::Parse);
        assert_eq!(
            status_verdict(301, Some("/r.txt")),
            Verdict::Follow("/r.txt")
        );
        assert_eq!(
            status_verdict(308, Some("https://b/")),
            Verdict::Follow("https://b/")
        );
        // A redirect status without a location is an answer without rules.
        assert_eq!(status_verdict(302, None), Verdict::NoRules);
        for status in [400, 401, 403, 404, 410, 429, 100, 304] {
            assert_eq!(status_verdict(status, None), Verdict::NoRules, "{status}");
        }
        for status in [500, 502, 503, 599] {
            assert_eq!(
                status_verdict(status, None),
                Verdict::DisallowAll,
                "{status}"
            );
        }
    }
}
