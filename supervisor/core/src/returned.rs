//! The URLs `web_search` returned, which strict mode admits to `web_fetch`
//! (REQ-SEC-021): written by the search pipeline, read by the fetch
//! pipeline's URL policy, held in the shared context below both.

use std::collections::{HashSet, VecDeque};
use std::sync::Mutex;

use url::Url;

/// The URLs `web_search` returned in this process, kept only in strict
/// mode (REQ-SEC-021), at most [`RETURNED_MAX`], the oldest forgotten
/// first.
#[derive(Debug, Default)]
pub(crate) struct ReturnedUrls {
    inner: Mutex<(HashSet<String>, VecDeque<String>)>,
}

/// URLs strict mode remembers: 2000 searches of five results.
pub(crate) const RETURNED_MAX: usize = 10_000;

impl ReturnedUrls {
    /// Remembers `urls`, as returned and as the URL parser writes them.
    pub(crate) fn record<'a>(&self, urls: impl IntoIterator<Item = &'a str>) {
        let mut guard = self
            .inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let (set, order) = &mut *guard;
        for url in urls {
            let normal = Url::parse(url).map(String::from).ok();
            for form in std::iter::once(url.to_owned()).chain(normal) {
                if set.insert(form.clone()) {
                    order.push_back(form);
                }
            }
        }
        while order.len() > RETURNED_MAX {
            if let Some(old) = order.pop_front() {
                set.remove(&old);
            }
        }
    }

    pub(crate) fn contains(&self, url: &str) -> bool {
        let guard = self
            .inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        guard.0.contains(url)
    }
}
