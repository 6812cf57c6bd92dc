//! The one way a closed vocabulary of the contract or the configuration is
//! written (STYLE.md rule 2): an enum whose words are spelled once, in the
//! macro call, and given to serde, `as_str()`, `parse()` and `ALL` alike.
//! Tool schemas build their enumerations from `ALL`, configuration parses
//! through `parse`, and a test checks that serde and `as_str` agree. The
//! vocabularies shared by the configuration, the tools' arguments and the
//! engine drivers (category, safe search, time range) are declared here.

/// Declares a closed vocabulary: `Name { Variant => "word", ... }`.
/// Exported so that the adapter's own vocabularies (the HTTP listener's
/// refusal reasons) are written the same way.
#[macro_export]
macro_rules! vocabulary {
    ($(#[$m:meta])* $vis:vis $name:ident { $($(#[$vm:meta])* $variant:ident => $text:literal,)+ }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
        #[serde(rename_all = "snake_case")]
        $vis enum $name { $($(#[$vm])* $variant,)+ }
        #[allow(dead_code)] // not every vocabulary is parsed or listed
        impl $name {
            /// Every word of the vocabulary, in the order the contract lists them.
            $vis const ALL: &'static [Self] = &[$(Self::$variant,)+];
            /// The wire spelling.
            $vis const fn as_str(self) -> &'static str {
                match self { $(Self::$variant => $text,)+ }
            }
            /// Parses the wire spelling.
            $vis fn parse(text: &str) -> Option<Self> {
                Self::ALL.iter().copied().find(|word| word.as_str() == text)
            }
            /// Every wire spelling, for schemas and messages.
            $vis fn words() -> Vec<&'static str> {
                Self::ALL.iter().map(|word| word.as_str()).collect()
            }
        }
    };
}

pub(crate) use crate::vocabulary;

// The vocabularies that the configuration, the tools' arguments and the
// engine drivers share live here, below all three, so that none of them
// imports another for its words.

vocabulary! {
    /// Search categories (the `category` parameter's vocabulary), in the
    /// order the tool definition lists them.
    pub Category {
        /// The default.
        General => "general",
        /// News.
        News => "news",
        /// Science.
        Science => "science",
        /// Code.
        Code => "code",
    }
}

vocabulary! {
    /// Safe-search levels (`[search] safe_search`).
    pub SafeSearch {
        /// No filtering.
        Off => "off",
        /// The engines' default filtering.
        Moderate => "moderate",
        /// Strict filtering.
        Strict => "strict",
    }
}

vocabulary! {
    /// `time_range` values (REQ-SEARCH-005).
    pub(crate) TimeRange {
        /// The last day.
        Day => "day",
        /// The last week.
        Week => "week",
        /// The last month.
        Month => "month",
        /// The last year.
        Year => "year",
    }
}

/// Checks that serde spells every word as `as_str` does.
#[cfg(test)]
pub(crate) fn assert_serde_agrees<T: serde::Serialize + Copy>(
    all: &[T],
    as_str: fn(T) -> &'static str,
) {
    for &word in all {
        assert_eq!(
            serde_json::to_value(word).ok(),
            Some(serde_json::Value::from(as_str(word)))
        );
    }
}
