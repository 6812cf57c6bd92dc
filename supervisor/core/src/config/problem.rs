//! What the validator reports and the fixed values it falls back to: the
//! leaf below the loader (`load.rs`), the reader (`reader.rs`) and every
//! section, so that none of them imports another for these (STYLE.md
//! rule 9; REQ-CFG-001, REQ-CMP-004).

use std::fmt;

/// The project's address, the default operator contact and part of every
/// User-Agent (ARCHITECTURE.md "Configuration additions").
pub const PROJECT_URL: &str = "https://github.com/rypsok/rypsok";

/// The language searched when the operator names none, and the one put in
/// place of `{lang}` when an endpoint template is checked.
pub(super) const LANG_SAMPLE: &str = "en";

/// One thing wrong with the configuration: where, and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigProblem {
    /// Dotted key path (`engines.brave.timeout_ms`, `egress.allow[3]`);
    /// empty for a problem with the file as a whole.
    pub path: String,
    /// Static text plus numbers; never a value from the file.
    pub message: String,
}

impl fmt::Display for ConfigProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}
