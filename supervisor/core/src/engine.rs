//! The engine registry: one driver per engine type (REQ-ENG-001,
//! REQ-ENG-004, REQ-ENG-010, REQ-CMP-001). The engine types are the engine
//! list in rypsok-proto (`rypsok_proto::engine_list!`), which makes the wire
//! enum [`EngineKind`]; the registry below maps each to its driver's `SPEC`,
//! and worker-parse's dispatch to its parsers is made from the same list.
//! Configuration, engine selection, `engine_status` and the tests read the
//! registry; nothing else names an engine.
//!
//! A new engine type `<name>` needs exactly:
//!
//! 1. one line in the engine list, `proto/src/engine.rs`: `Variant =>
//!    <name>` with its doc comment, in the preference order of the zero
//!    configuration;
//! 2. its supervisor driver, `engine/<name>.rs` here with its `mod` line
//!    below: `pub(crate) const SPEC: EngineSpec` (its admission record, its
//!    configuration defaults and checks: categories, credential rule,
//!    whether the zero configuration enables it; its request builder with
//!    the default endpoint) and the builder's tests;
//! 3. its parser, worker-parse's `engine/<name>.rs` with its `mod` line in
//!    that crate's `engine.rs`: a `parse_answer` entry point and its tests;
//! 4. its test data: captured answers (`.json`, `.xml` or `.html`) under
//!    worker-parse's `testdata/<name>/`, with a `PROVENANCE.md`;
//! 5. its fuzz target: `fuzz/fuzz_targets/<name>_answer.rs` (a call of the
//!    shared `common::check_engine_answer`), its `[[bin]]` in
//!    `fuzz/Cargo.toml`, its dictionary in `fuzz/run.sh`, its seeds in
//!    `fuzz/seed.sh` and its row in `fuzz/README.md`;
//! 6. its row in the operator reference's engine table
//!    (`packaging/docs/src/reference/configuration.md`), which a test
//!    writes from the `SPEC` and compares.
//!
//! The compiler finds a list line without its two modules. The tests in
//! `engine/tests.rs` walk the whole list: every type loads from
//! configuration, has a sound admission record, builds a request against a
//! loopback endpoint, and parses its captured answers. An engine in the
//! default set also joins the expected list of
//! `absent_engines_table_gives_the_default_set_in_preference_order`.

mod admission;
mod arxiv;
mod brave;
mod crossref;
mod duckduckgo;
mod gdelt;
mod github;
mod hackernews;
mod openalex;
mod searxng;
mod stackexchange;
#[cfg(test)]
mod tests;
mod wikipedia;

pub(crate) use admission::{Admission, LanguageSupport};
use rypsok_proto::{EngineKind, Header};

use crate::vocabulary::{Category, SafeSearch, TimeRange};

/// The registry: each engine type's driver specification, the `SPEC` of
/// the module the engine list names.
macro_rules! registry {
    ($($(#[$doc:meta])* $variant:ident => $module:ident,)+) => {
        impl Driver for EngineKind {
            fn spec(self) -> &'static EngineSpec {
                match self {
                    $(Self::$variant => &$module::SPEC,)+
                }
            }
        }
    };
}

rypsok_proto::engine_list!(registry);

/// What the supervisor knows of an engine type: its driver. A trait only
/// because [`EngineKind`] is the wire's enum, declared in rypsok-proto; the
/// registry above is its one implementation.
pub(crate) trait Driver: Copy {
    /// The driver's specification.
    fn spec(self) -> &'static EngineSpec;

    /// The admission record (REQ-CMP-001).
    fn admission(self) -> &'static Admission {
        &self.spec().admission
    }

    /// Builds the engine request for a validated query, on the operator's
    /// endpoint template or the driver's own.
    fn build(self, endpoint: Option<&str>, ctx: &SearchContext<'_>) -> BuiltRequest {
        (self.spec().build)(endpoint, ctx)
    }
}

/// Everything rypsok knows of one engine type, held in the driver's file.
/// Its `type` string, which is also the table name of the engine the zero
/// configuration sets up, is [`EngineKind::as_str`].
#[derive(Debug)]
pub(crate) struct EngineSpec {
    /// The provider's service as operators know it, for `check` messages.
    pub(crate) display_name: &'static str,
    /// What the provider asks of rypsok.
    pub(crate) admission: Admission,
    /// Categories served when the operator lists none.
    pub(crate) default_categories: &'static [Category],
    /// Whether, and where by default, the engine reads a credential.
    pub(crate) credential: CredentialRule,
    /// The zero configuration sets this engine up (REQ-OPS-003); only
    /// official interfaces may be in the default set (REQ-ENG-008).
    pub(crate) in_default_set: bool,
    /// The interface is a results page meant for people, not an API
    /// (design §11): `check` refuses the type unless `[scraping] enabled`
    /// (REQ-ENG-013), and it may never be in the default set.
    pub(crate) scraping: bool,
    /// What an operator without a key should expect, for an engine whose
    /// keyless allowance is too small for regular use: logged at start
    /// (`engine_keyless`) and printed by `check`.
    pub(crate) keyless_allowance: Option<&'static str>,
    /// How the parser hands over titles and snippets, which picks their
    /// cleaner (design §9).
    pub(crate) text: ResultText,
    /// The driver has no endpoint of its own (an operator's own instance):
    /// `check` refuses an engine of this type without `endpoint`, and the
    /// zero configuration never sets it up.
    pub(crate) endpoint_required: bool,
    /// Builds one request; `endpoint` is the operator's template.
    pub(crate) build: fn(endpoint: Option<&str>, ctx: &SearchContext<'_>) -> BuiltRequest,
}

/// The form of the titles and snippets a driver's parser hands over
/// (design §9, RFC 019 D3), declared field by field: each is cleaned as
/// what it is, so that text the provider sends as plain text keeps its
/// angle brackets (`Option<T>`, `0<p<1`), and markup removal stays for the
/// fields that carry markup.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ResultText {
    /// The title's form.
    pub(crate) title: TextForm,
    /// The snippet's form.
    pub(crate) snippet: TextForm,
}

impl ResultText {
    /// Both fields raw provider text with markup and entities.
    pub(crate) const MARKUP: Self = Self {
        title: TextForm::Markup,
        snippet: TextForm::Markup,
    };
    /// Both fields plain text.
    pub(crate) const PLAIN: Self = Self {
        title: TextForm::Plain,
        snippet: TextForm::Plain,
    };
}

/// What one provider field is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TextForm {
    /// Raw text with markup and entities (HTML-escaped titles, JATS,
    /// Wikipedia's search-match spans): cleaned by `clean_markup_text`.
    Markup,
    /// Plain text, as the provider's contract says or as the parser
    /// decoded it from a page: cleaned by `clean_decoded_text`, so that
    /// `Vec<T>` stays as written.
    Plain,
    /// Plain text in which the provider marks the matched words with a few
    /// highlight tags (`<b>`, `<strong>`, `<em>`, `<mark>`): those tags
    /// alone are removed (`clean_highlighted_text`), any other `<` is text.
    Highlighted,
}

/// What a driver needs in the way of a credential (REQ-CFG-004).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CredentialRule {
    /// Keyless: `api_key_env` and `api_key_file` are refused.
    None,
    /// Unusable without one: read from `api_key_env` or `api_key_file`,
    /// or from this environment variable when the file names neither. An
    /// engine whose credential cannot be read is inactive.
    Required {
        /// The environment variable read by default.
        default_env: &'static str,
    },
    /// Usable without one, with a higher allowance with one: read only
    /// when the operator names `api_key_env` or `api_key_file`; an engine
    /// whose named credential cannot be read is inactive (the operator
    /// asked for it).
    Optional,
}

impl CredentialRule {
    /// Whether the engine is unusable without a credential.
    pub(crate) const fn is_required(self) -> bool {
        matches!(self, Self::Required { .. })
    }
}

/// An engine credential, read once at start. Its `Debug` never shows the
/// value, so a debug print of the services cannot leak it.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Credential(String);

impl Credential {
    pub(crate) const fn new(secret: String) -> Self {
        Self(secret)
    }

    /// The secret itself, for the one header that carries it.
    pub(crate) fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Credential {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Credential(<redacted>)")
    }
}

/// Everything a driver may need to build one engine request: the validated
/// call and the operator's search settings.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SearchContext<'a> {
    /// One of the configured languages, as configuration spells it.
    pub(crate) lang: &'a str,
    /// The trimmed query.
    pub(crate) query: &'a str,
    /// Results to ask for (LIM-S3); drivers clamp it to what the engine
    /// allows.
    pub(crate) count: u32,
    /// The call's category.
    pub(crate) category: Category,
    /// `[search] region`: two upper-case letters.
    pub(crate) region: &'a str,
    /// `[search] safe_search`.
    pub(crate) safe_search: SafeSearch,
    /// The call's `time_range`, if any; only drivers whose admission
    /// record honours time ranges are asked with one.
    pub(crate) time_range: Option<TimeRange>,
    /// The engine's credential, when it has one.
    pub(crate) credential: Option<&'a Credential>,
    /// `[service] contact`, for providers that take a contact as a
    /// parameter as well as in the User-Agent (REQ-CMP-004).
    pub(crate) contact: &'a str,
    /// The time of the call, in seconds since the Unix epoch: time ranges
    /// become provider dates from it.
    pub(crate) now_unix: i64,
}

impl SearchContext<'_> {
    /// The Unix time at which the call's time range begins, if it has one.
    pub(crate) fn since_unix(&self) -> Option<i64> {
        let days = match self.time_range? {
            TimeRange::Day => 1,
            TimeRange::Week => 7,
            TimeRange::Month => 31,
            TimeRange::Year => 366,
        };
        Some(self.now_unix.saturating_sub(days * 86_400))
    }

    /// The day the call's time range begins, as `YYYY-MM-DD`.
    pub(crate) fn since_date(&self) -> Option<String> {
        rypsok_proto::iso_date_of_unix(self.since_unix()?)
    }

    /// The endpoint to ask: the operator's when set, else the driver's
    /// default, with `{lang}` filled in.
    pub(crate) fn endpoint(&self, set: Option<&str>, default: &str) -> String {
        set.unwrap_or(default).replace("{lang}", self.lang)
    }

    /// The contact when it is an e-mail address (what `mailto` parameters
    /// take), else `None`.
    pub(crate) fn contact_email(&self) -> Option<&str> {
        let contact = self.contact.trim();
        let contact = contact.strip_prefix("mailto:").unwrap_or(contact);
        let (local, domain) = contact.split_once('@')?;
        (!local.is_empty()
            && domain.contains('.')
            && !contact
                .bytes()
                .any(|b| b.is_ascii_whitespace() || b.is_ascii_control()))
        .then_some(contact)
    }
}

/// What the pipeline sends for one engine; the answer goes to the parser of
/// the same engine type.
#[derive(Clone)]
pub(crate) struct BuiltRequest {
    /// Absolute URL.
    pub(crate) url: String,
    /// Headers besides User-Agent (a credential header among them).
    pub(crate) headers: Vec<Header>,
    /// Base for result URLs the parser builds.
    pub(crate) base_url: String,
}

impl BuiltRequest {
    /// A GET of `url` that accepts JSON and whose answer carries absolute
    /// result URLs (no base to build on).
    pub(crate) fn json(url: String) -> Self {
        Self {
            url,
            headers: vec![accept_json()],
            base_url: String::new(),
        }
    }
}

impl std::fmt::Debug for BuiltRequest {
    // Header values and query parameters may hold a credential (a key
    // parameter of Stack Exchange or OpenAlex): header names and the URL
    // without its query only.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.headers.iter().map(|h| h.name.as_str()).collect();
        let path = self.url.split(['?', '#']).next().unwrap_or_default();
        f.debug_struct("BuiltRequest")
            .field("url", &path)
            .field("headers", &names)
            .field("base_url", &self.base_url)
            .finish()
    }
}

pub(crate) fn accept_json() -> Header {
    Header {
        name: "accept".to_owned(),
        value: "application/json".to_owned(),
    }
}

/// Appends encoded query parameters to an endpoint that may already carry
/// a query string of its own (an operator's mirror, for example).
pub(crate) fn with_query(base: &str, params: &str) -> String {
    let separator = match base.rfind('?') {
        None => "?",
        Some(at) if at + 1 == base.len() || base.ends_with('&') => "",
        Some(_) => "&",
    };
    format!("{base}{separator}{params}")
}
