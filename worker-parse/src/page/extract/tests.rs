//! Extraction's text counts, hiding styles and class-name parts, against
//! plain reference readings of the same input.

use proptest::prelude::*;

use super::exclusion::style_hides;
use super::names::parts;
use super::weights::collapsed_chars;

proptest! {
    // Verifies: REQ-PAGE-002 (the one-pass count weighs text as before)
    #[test]
    fn collapsed_chars_counts_words_and_the_spaces_after_them(
        t in "[a-zé \t\n\u{a0}\u{2003}]{0,40}",
    ) {
        let reference: usize = t.split_whitespace().map(|w| w.chars().count() + 1).sum();
        prop_assert_eq!(collapsed_chars(&t) as usize, reference);
    }

    // Verifies: REQ-PAGE-002 (an inline style that hides an element
    // is read whatever its case and spacing)
    #[test]
    fn style_hides_reads_hiding_declarations_in_any_case_and_spacing(
        parts in prop::collection::vec(
            prop::sample::select(vec![
                "display", "DisPlay", "visibility", ":", " ", "\u{a0}", "\n", "none",
                "NONE", "hidden", "Collapse", "block", ";", "color:red", "\u{130}",
            ]),
            0..8,
        ),
    ) {
        let style = parts.concat();
        let squeezed: String = style
            .chars()
            .filter(|c| !c.is_whitespace())
            .flat_map(char::to_lowercase)
            .collect();
        let reference = ["display:none", "visibility:hidden", "visibility:collapse"]
            .iter()
            .any(|d| squeezed.contains(d));
        prop_assert_eq!(style_hides(&style), reference);
    }

    // Verifies: REQ-CTX-005 (a class or id token's words are the parts
    // between `-` and `_`, empty ones included, as `str::split` gives them)
    #[test]
    fn class_token_parts_are_those_split_at_dashes_and_underscores(
        token in "[a-zé_\\-]{0,12}",
    ) {
        let reference: Vec<&str> = token.split(['-', '_']).collect();
        prop_assert_eq!(parts(&token).collect::<Vec<_>>(), reference);
    }
}
