//! Characters that render as nothing. Slipped between the letters of a
//! word, a reader does not see them, so the checks that read text as a
//! reader would (the secret check, the instruction detector) read through
//! them. What the content boundary removes before the caller reads a text
//! is its own, smaller list (`boundary.rs`): variation selectors and the
//! like stay there, since they change how a visible character looks.

/// Whether `c` renders as nothing between letters: the soft hyphen, the
/// zero-width and bidirectional controls, the combining grapheme joiner,
/// the Hangul fillers, the Khmer inherent vowels, the Mongolian and Unicode
/// variation selectors, the interlinear annotation marks, the musical
/// format characters and the tag characters.
pub(crate) fn renders_as_nothing(c: char) -> bool {
    // Every one is outside ASCII.
    !c.is_ascii()
        && matches!(
            c,
            '\u{00AD}'
                | '\u{034F}'
                | '\u{061C}'
                | '\u{115F}' | '\u{1160}'
                | '\u{17B4}' | '\u{17B5}'
                | '\u{180B}'..='\u{180F}'
                | '\u{200B}'..='\u{200F}'
                | '\u{202A}'..='\u{202E}'
                | '\u{2060}'..='\u{2064}'
                | '\u{2066}'..='\u{206F}'
                | '\u{3164}'
                | '\u{FE00}'..='\u{FE0F}'
                | '\u{FEFF}'
                | '\u{FFA0}'
                | '\u{FFF9}'..='\u{FFFB}'
                | '\u{1D173}'..='\u{1D17A}'
                | '\u{E0000}'..='\u{E0FFF}'
        )
}
