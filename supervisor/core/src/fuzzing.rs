//! Entry points for the fuzz targets in `fuzz/` (REQ-SEC-023), compiled
//! only with the `fuzzing` feature. Each is a thin door onto crate-internal
//! policy code, under the default configuration unless a configuration is
//! given; the invariants are asserted by the targets, not here.

use rypsok_proto::Header;
use serde_json::{Map, Value};

use crate::config::Config;
use crate::error::ToolError;
use crate::fetch::policy::{Strict, check};
use crate::returned::ReturnedUrls;

/// A URL the fetch policy admitted, reduced to what a target can check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Admitted {
    /// The URL that would be requested, as the URL parser writes it.
    pub url: String,
    /// An http URL was upgraded to https.
    pub upgraded: bool,
    /// The host as compared for "same host".
    pub host: String,
}

/// The fetch URL policy on the caller's URL (strict check included).
pub fn url_policy(config: &Config, text: &str) -> Result<Admitted, ToolError> {
    check(text, config, &ReturnedUrls::default(), Strict::Check).map(|t| Admitted {
        url: t.url.to_string(),
        upgraded: t.upgraded,
        host: t.host,
    })
}

/// The fetch pipeline's `Retry-After` reading, in milliseconds: the one
/// rule the engine parsers read it by too.
pub fn fetch_retry_after_ms(headers: &[Header]) -> Option<u64> {
    rypsok_proto::retry_after_ms(headers)
}

/// Text after a content-boundary cleaner: text, cut, characters removed.
pub type Cleaned = (String, bool, usize);

/// [`crate::boundary::clean_markup_text`].
pub fn clean_markup_text(raw: &str, max_chars: usize) -> Cleaned {
    let c = crate::boundary::clean_markup_text(raw, max_chars);
    (c.text, c.truncated, c.removed)
}

/// [`crate::boundary::clean_decoded_text`].
pub fn clean_decoded_text(text: &str, max_chars: usize) -> Cleaned {
    let c = crate::boundary::clean_decoded_text(text, max_chars);
    (c.text, c.truncated, c.removed)
}

/// [`crate::boundary::clean_document_text`].
pub fn clean_document_text(text: &str) -> Cleaned {
    let c = crate::boundary::clean_document_text(text);
    (c.text, c.truncated, c.removed)
}

/// A validated `web_search` call, reduced to what a target can check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchCall {
    /// The query after trimming.
    pub query: String,
    /// Results asked for.
    pub max_results: u32,
    /// The language chosen.
    pub language: String,
}

/// `web_search` argument validation, every category served.
pub fn search_args(config: &Config, args: &Map<String, Value>) -> Result<SearchCall, ToolError> {
    let served = crate::validate::served_categories(config, |_| true);
    crate::validate::search_args(config, &served, args).map(|a| SearchCall {
        query: a.query,
        max_results: a.max_results,
        language: a.language,
    })
}

/// `web_fetch` argument validation: the URL, `max_chars`, `start_char`.
pub fn fetch_args(
    config: &Config,
    args: &Map<String, Value>,
) -> Result<(String, usize, usize), ToolError> {
    crate::validate::fetch_args(config, args).map(|a| (a.url, a.max_chars, a.start_char))
}

/// `engine_status` argument validation.
pub fn status_args(args: &Map<String, Value>) -> Result<(), ToolError> {
    crate::validate::status_args(args)
}

/// A credential the secret check found, reduced to what a target can
/// check: its kind's word and where it lies, in Unicode scalar values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecretFinding {
    /// The kind, as the mask writes it between brackets.
    pub kind: &'static str,
    /// First character of the credential.
    pub position: usize,
    /// Characters it spans.
    pub len: usize,
}

fn secret_findings(findings: &[crate::secret::Finding]) -> Vec<SecretFinding> {
    findings
        .iter()
        .map(|f| SecretFinding {
            kind: f.kind.as_str(),
            position: f.position,
            len: f.len,
        })
        .collect()
}

/// The secret check on the text as written.
pub fn find_secrets(text: &str) -> Vec<SecretFinding> {
    secret_findings(&crate::secret::find(text))
}

/// The secret check on the text and the forms a receiver may decode it to.
pub fn find_decoded_secrets(text: &str) -> Vec<SecretFinding> {
    secret_findings(&crate::secret::find_decoded(text))
}

/// The text with what [`find_secrets`] finds masked.
pub fn mask_secrets(text: &str) -> String {
    crate::secret::mask(text, &crate::secret::find(text))
}

/// The text with what [`find_decoded_secrets`] finds masked.
pub fn mask_decoded_secrets(text: &str) -> String {
    crate::secret::mask(text, &crate::secret::find_decoded(text))
}

/// The instruction-like detector's verdict.
pub fn is_instruction_like(text: &str) -> bool {
    crate::instruction::is_instruction_like(text)
}

/// The configuration loader on text.
pub fn load_config(text: &str) -> Result<Config, Vec<crate::ConfigProblem>> {
    crate::config::load_str(text)
}

/// Whether a secret reference's value (a variable name, a path) looks like
/// a secret itself, by the rule the configuration refuses it with.
pub fn reference_looks_like_secret(value: &str) -> bool {
    crate::config::looks_like_secret(value)
}
