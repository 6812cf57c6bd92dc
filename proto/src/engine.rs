//! The engine list (REQ-ENG-001): every engine type this build contains,
//! written once. The list makes [`EngineKind`], the enum the supervisor and
//! worker-parse name an engine by; the supervisor's registry (its driver
//! specifications) and worker-parse's dispatch to its parsers are made from
//! the same list through [`engine_list!`](crate::engine_list!), so neither
//! can miss an engine and neither names one the other does not know.

use serde::{Deserialize, Serialize};

/// Hands the engine list to the macro `$callback`, as lines of
/// `Variant => module`, each with its doc comment.
///
/// The module is the engine's `type` string in the configuration and the
/// name of its driver's files: `engine/<module>.rs` in the supervisor's
/// core and in worker-parse, `testdata/<module>/` in worker-parse, the fuzz
/// target `<module>_answer`. The order is the preference order of the zero
/// configuration, and also the variant's index on the wire: both ends of
/// the pipe are built from the same list, so a new engine may go anywhere.
#[macro_export]
macro_rules! engine_list {
    ($callback:ident) => {
        $callback! {
            /// MediaWiki Action API, `list=search`.
            Wikipedia => wikipedia,
            /// Brave Search API, web and news endpoints.
            Brave => brave,
            /// DuckDuckGo's HTML results page (a scraping driver).
            DuckDuckGo => duckduckgo,
            /// Crossref REST API, works search.
            Crossref => crossref,
            /// OpenAlex works search.
            OpenAlex => openalex,
            /// arXiv API query (an Atom feed).
            Arxiv => arxiv,
            /// Hacker News search API by Algolia.
            HackerNews => hackernews,
            /// GDELT DOC 2.0 API, article list as JSON.
            Gdelt => gdelt,
            /// Stack Exchange API 2.3 search.
            StackExchange => stackexchange,
            /// GitHub REST search (repositories and issues).
            GitHub => github,
            /// An operator's own SearXNG instance, JSON output.
            Searxng => searxng,
        }
    };
}

/// Declares [`EngineKind`] from the engine list.
macro_rules! engine_kind {
    ($($(#[$doc:meta])* $variant:ident => $module:ident,)+) => {
        /// An engine type: one per driver this build contains, in the
        /// preference order of the zero configuration.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
        pub enum EngineKind {
            $($(#[$doc])* $variant,)+
        }

        impl EngineKind {
            /// Every engine type, in the preference order of the zero
            /// configuration.
            pub const ALL: &'static [Self] = &[$(Self::$variant),+];

            /// The `type` string of the configuration, which is also the
            /// name of the driver's files.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(Self::$variant => stringify!($module),)+
                }
            }
        }
    };
}

engine_list!(engine_kind);

impl EngineKind {
    /// Parses the `type` string.
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|kind| kind.as_str() == text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_engine_kind_travels_as_its_place_in_the_list() {
        // Verifies: REQ-ENG-001
        for (index, kind) in EngineKind::ALL.iter().enumerate() {
            let wire = postcard::to_stdvec(kind).expect("encodes");
            assert_eq!(wire, [u8::try_from(index).expect("a short list")]);
            let back: EngineKind = postcard::from_bytes(&wire).expect("decodes");
            assert_eq!(back, *kind);
        }
        let past_the_list = [u8::try_from(EngineKind::ALL.len()).expect("a short list")];
        assert!(postcard::from_bytes::<EngineKind>(&past_the_list).is_err());
    }

    #[test]
    fn type_strings_are_distinct_lower_case_identifiers_that_parse_back() {
        // Verifies: REQ-ENG-001
        for (i, kind) in EngineKind::ALL.iter().enumerate() {
            let name = kind.as_str();
            assert!(
                !name.is_empty()
                    && name
                        .bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'),
                "{name}"
            );
            assert!(
                EngineKind::ALL[..i]
                    .iter()
                    .all(|other| other.as_str() != name)
            );
            assert_eq!(EngineKind::parse(name), Some(*kind));
        }
        assert_eq!(EngineKind::parse("Wikipedia"), None);
        assert_eq!(EngineKind::parse(""), None);
    }
}
