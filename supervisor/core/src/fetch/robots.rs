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

use super::policy::{self, Strict, Target};
use super::{HopFailure, exchange, redirect_location};
use crate::error::{DeniedReason, ToolError};
use crate::ports::PortError;
use crate::services::Services;

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

/// Whether robots.txt lets rypsok read `target`: `Ok` or `denied`,
/// `robots_txt`; a site that cannot be reached answers as the page would.
pub(crate) async fn check(
    services: &Services,
    target: &Target,
    network_deadline: Instant,
    call_deadline: Instant,
) -> Result<(), ToolError> {
    let rules = rules_for(services, target, network_deadline, call_deadline).await?;
    let path = match target.url.query() {
        Some(q) => format!("{}?{q}", target.url.path()),
        None => target.url.path().to_owned(),
    };
    if rules.allows(&path) {
        Ok(())
    } else {
        Err(ToolError::denied(DeniedReason::RobotsTxt))
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

fn disallowed() -> ToolError {
    ToolError::denied(DeniedReason::RobotsTxt)
}

async fn rules_for(
    services: &Services,
    target: &Target,
    network_deadline: Instant,
    call_deadline: Instant,
) -> Result<Arc<RobotsRules>, ToolError> {
    let cache = &services.fetch.robots;
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
        .map_err(|_| ToolError::denied(DeniedReason::Egress))?;
    let mut upgraded = target.upgraded;
    for _ in 0..=ROBOTS_REDIRECTS {
        let response =
            match exchange(services, &url, "text/plain", max_bytes, network_deadline).await {
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
                // A broken answer: unreadable, so everything is disallowed,
                // and asked again next time.
                Err(HopFailure::Net(NetFailure::Protocol)) => {
                    return Err(disallowed());
                }
                Err(failure) => return Err(failure.into_error(upgraded, max_bytes)),
            };
        let status = response.status;
        if let Some(location) = redirect_location(&response) {
            let next = url.join(location).ok().and_then(|next| {
                policy::check(
                    next.as_str(),
                    &services.config,
                    &services.fetch.returned,
                    Strict::Skip,
                )
                .ok()
            });
            match next {
                Some(next) => {
                    url = next.url;
                    upgraded = next.upgraded;
                    continue;
                }
                // A redirect rypsok may not follow: the file is
                // unavailable, which allows everything (RFC 9309 §2.3.1.2).
                None => break,
            }
        }
        if (200..300).contains(&status) {
            let rules = match services
                .parse
                .parse_robots(response.body, call_deadline)
                .await
            {
                Ok(rules) => Arc::new(rules),
                Err(PortError::Timeout) => return Err(ToolError::fetch_deadline()),
                Err(PortError::Unavailable | PortError::WorkerFailed) => return Err(disallowed()),
            };
            cache.put(key, Arc::clone(&rules));
            return Ok(rules);
        }
        if status >= 500 {
            return Err(disallowed());
        }
        // 4xx (and any other answer): unavailable, no rules.
        break;
    }
    let rules = Arc::new(RobotsRules::default());
    cache.put(key, Arc::clone(&rules));
    Ok(rules)
}
