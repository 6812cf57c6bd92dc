//! Which session gives way when LIM-H6 sessions are open (REQ-SEC-024).
//!
//! A tokenless listener cannot tell one client from another, so a slot
//! held is no proof of need: sixty-four sessions kept alive by a ping
//! every few minutes would refuse every new `initialize` for as long as
//! the pings went on. When every slot is taken, the session used least
//! recently is closed for the new one; its client gets the protocol's 404
//! for an unknown session and starts again, as the protocol prescribes.

use std::collections::HashMap;
use std::sync::Mutex;

use tokio::time::Instant;

/// When each open session was last used (opened, or a request of its that
/// the SDK did not answer 404).
#[derive(Debug, Default)]
pub(super) struct SessionUse(Mutex<HashMap<String, Instant>>);

impl SessionUse {
    /// Records a use of a session the SDK knows.
    pub(super) fn touch(&self, id: &str) {
        let now = Instant::now();
        let mut last = lock(&self.0);
        match last.get_mut(id) {
            Some(at) => *at = now,
            None => {
                last.insert(id.to_owned(), now);
            }
        }
    }

    /// Of the sessions `open`, the one used least recently (one never seen
    /// here first); forgets sessions no longer open.
    pub(super) fn least_recent(&self, open: &[String]) -> Option<String> {
        let mut last = lock(&self.0);
        last.retain(|id, _| open.contains(id));
        open.iter()
            .min_by_key(|id| last.get(id.as_str()).copied())
            .cloned()
    }

    pub(super) fn forget(&self, id: &str) {
        lock(&self.0).remove(id);
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Verifies: REQ-SEC-024 (the session used least recently gives way; one never used goes first)
    #[tokio::test]
    async fn the_least_recently_used_session_gives_way() {
        let used = SessionUse::default();
        used.touch("a");
        tokio::time::sleep(std::time::Duration::from_millis(2)).await;
        used.touch("b");
        tokio::time::sleep(std::time::Duration::from_millis(2)).await;
        used.touch("a");
        let open = vec!["a".to_owned(), "b".to_owned()];
        assert_eq!(used.least_recent(&open).as_deref(), Some("b"));
        let with_unknown = vec!["a".to_owned(), "b".to_owned(), "c".to_owned()];
        assert_eq!(used.least_recent(&with_unknown).as_deref(), Some("c"));
        used.forget("b");
        assert_eq!(used.least_recent(&open).as_deref(), Some("b"));
        assert_eq!(used.least_recent(&["a".to_owned()]).as_deref(), Some("a"));
    }
}
