//! The instruction-like detector (design §9; REQ-SEC-003): whether an
//! external text reads like an instruction addressed to an AI reader.
//!
//! It is a signal for the `instruction_like_content` notice, not a gate, so
//! it is tuned for precision: benign text that uses the same trigger words
//! ("ignore the previous error message", "forget everything you know about
//! sourdough") stays quiet. Each pattern needs a shape, not a word: an
//! override verb *and* a reference to earlier instructions, a note
//! *addressed to* a model, a fake conversation with several roles, a fake
//! delimiter, an order about "your response".
//!
//! The text is read through invisible characters, with Cyrillic and Greek
//! look-alikes folded to Latin, digits of leetspeak read as letters in a
//! second pass, and letters spaced out one by one joined again. Patterns
//! cover English, German, French, Russian, Japanese and Chinese phrasings
//! of the common overrides. The measured precision and recall on the
//! project's corpus are in this module's tests.

/// Whether `text` reads like an instruction to an AI reader.
pub fn is_instruction_like(text: &str) -> bool {
    let plain = normalize(text, false);
    if matches_any(&plain) {
        return true;
    }
    let leet = normalize(text, true);
    leet != plain && matches_any(&leet)
}

/// Lower-cased text without invisible characters, look-alikes folded, the
/// two characters `\n` read as a line break, spaced-out letters joined;
/// with `leet`, the digits of leetspeak read as letters.
fn normalize(text: &str, leet: bool) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' && chars.peek() == Some(&'n') {
            chars.next();
            out.push('\n');
            continue;
        }
        if is_invisible(c) {
            continue;
        }
        let c = if leet { unleet(c) } else { c };
        out.extend(c.to_lowercase());
    }
    join_spaced_letters(&fold_lookalikes(&out))
}

/// Folds look-alike letters in each word that also has a Latin letter, so
/// `іgnore` (with a Cyrillic і) reads as `ignore` while Russian words keep
/// their own letters.
fn fold_lookalikes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        if word.chars().any(|c| c.is_ascii_alphabetic()) {
            out.extend(word.chars().map(fold_lookalike));
        } else {
            out.push_str(word);
        }
        word.clear();
    };
    for c in text.chars() {
        if c.is_alphabetic() {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{061C}'
            | '\u{180E}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{206F}'
            | '\u{FEFF}'
            | '\u{E0000}'..='\u{E007F}'
    )
}

/// Cyrillic and Greek letters that look like Latin ones, as Latin.
fn fold_lookalike(c: char) -> char {
    match c {
        'а' => 'a',
        'е' => 'e',
        'о' | 'ο' => 'o',
        'р' | 'ρ' => 'p',
        'с' => 'c',
        'у' => 'y',
        'х' => 'x',
        'і' => 'i',
        'І' | 'Ι' => 'I',
        'ј' => 'j',
        'ѕ' => 's',
        'А' | 'Α' => 'A',
        'Е' | 'Ε' => 'E',
        'О' | 'Ο' => 'O',
        'Р' | 'Ρ' => 'P',
        'С' => 'C',
        'Т' | 'Τ' => 'T',
        'Н' | 'Η' => 'H',
        'К' | 'Κ' => 'K',
        'М' | 'Μ' => 'M',
        'В' | 'Β' => 'B',
        other => other,
    }
}

fn unleet(c: char) -> char {
    match c {
        '0' => 'o',
        '1' => 'i',
        '3' => 'e',
        '4' => 'a',
        '5' => 's',
        '7' => 't',
        other => other,
    }
}

/// `i g n o r e   a l l` as `ignore all`: a run of at least three single
/// letters separated by single spaces is one word; wider gaps separate
/// words.
fn join_spaced_letters(text: &str) -> String {
    let parts: Vec<&str> = text.split(' ').collect();
    let single = |p: &str| p.chars().count() == 1 && p.chars().all(char::is_alphabetic);
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < parts.len() {
        let mut j = i;
        while j < parts.len() && single(parts[j]) {
            j += 1;
        }
        if j - i >= 3 {
            out.push(parts[i..j].concat());
            i = j;
        } else {
            out.push(parts[i].to_owned());
            i += 1;
        }
    }
    out.join(" ")
}

/// Words and the punctuation that patterns need.
fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    for c in text.chars() {
        if c.is_alphanumeric() || c == '\'' || c == '’' || c == '_' {
            word.push(if c == '’' { '\'' } else { c });
            continue;
        }
        if !word.is_empty() {
            out.push(std::mem::take(&mut word));
        }
        if matches!(
            c,
            ',' | '.' | ':' | '!' | '?' | ';' | '\n' | '<' | '>' | '/' | '*' | '='
        ) {
            out.push(c.to_string());
        }
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

/// Word patterns: slots separated by spaces, alternatives by `|`; a slot
/// that starts with `?` may be absent; an alternative that ends with `*`
/// matches any word it begins.
const PATTERNS: &[&str] = &[
    // Overrides of earlier instructions, with a qualifier ("previous") ...
    "ignore|disregard|forget|neglect|omit|skip|overlook|remove|bypass|override ?about ?all|any|your|my|the|of ?the|all previous|prior|preceding|foregoing|above|earlier|initial|original|former|provided instruction*|prompt*|request*|message*|conversation*|context|direction*|task*|rule*|information|document*|command*|guideline*|directive*|input*|text*",
    "do|did not follow ?all|any|your|the|my ?previous|prior|preceding|foregoing|above|earlier|initial instruction*|prompt*|request*|message*|conversation*|context|direction*|task*|rule*",
    "pay no attention to ?all|any|your|the ?previous|prior|preceding|foregoing|above|earlier|initial instruction*|prompt*|request*|message*|conversation*|context|direction*|task*",
    // ... or with "all"/"your" and nothing between.
    "ignore|disregard|forget|neglect|omit|skip all|any|your|my instruction*|prompt*|request*|direction*|rule*|document*|command*|guideline*|directive*",
    "ignore the above and|instruction*|prompt*|,|.",
    "disregarding the articles|documents|above|context ,",
    // "forget everything" that closes a thought or points backwards.
    "forget everything ,|.|!|we|i|you've|before|above",
    "forget waht's|what's|what before",
    // Orders about the reader's own answer.
    "add|integrate|include|insert|append|write ?a|an|the ?fabricated|short|hidden ?sentence|line|statistic|link|paragraph in|to|into your response*|answer*|reply|replies",
    "encode|encrypt|translate|reverse|format|end|begin|start your response*|answer*|reply",
    "represent your answer*|response*",
    // Notes addressed to a model.
    "note|reminder|message|instruction* to ?the|all ?ai|llm*|model*|assistant*|agent*|chatbot*",
    "dear|hey|attention ai|llm|model|assistant|chatbot ,|:|!",
    "ai|llm|model|assistant|agent ?assistant*|agent*|model* reading|reads this",
    "llm|llms :",
    "ai agents|assistants|models :",
    // Secrecy, exfiltration, tools.
    "do not tell|inform the user",
    "don't tell|inform the user",
    "without telling|informing the user",
    "you do not have to ask for permission",
    "just follow the instructions",
    "send|upload|post|exfiltrate the contents of",
    "fetch|retrieve|access|read|dump the contents of the internal|local|private",
    "call web_fetch|web_search",
    "call the * tool",
    "using|use your tools",
    "disregard|ignore the user's question|request|message",
    "reveal|show|print|display|output|return ?me ?your|the ?full|complete|initial|original|system prompt*|instruction*|embeddings|configuration|rules",
    "what your initial|original|first instructions",
    "beginning of this prompt",
    "complete|full text of the prompt",
    "copy of the full prompt",
    "showing all prompt texts",
    "i command you",
    "* important new instructions *",
    "now new tasks|instructions follow",
    "new statement please",
    "start over with a new task",
    "the real task is",
    // Line labels that start an order.
    "\n instruction|order|command|response :",
    "= = = end",
    // German.
    "ignoriere|ignorieren|vergiss|vergessen|missachte ?sie ?nun ?alle|die|deine|meine ?vorherigen|bisherigen|obigen|vorigen|vorhergehenden|bereitgestellten anweisungen|instruktionen|aufträge|aufgaben|angaben|ausführungen|befehle|anweisung",
    "ignoriere|ignorieren|vergiss sie ?die|das obige|obigen",
    "vorherigen|bisherigen|obigen|vorigen anweisungen|instruktionen|aufträge|aufgaben|angaben|ausführungen ignorieren|ignoriere|vergessen",
    "abweichend zu|von ?den vorherigen|bisherigen|obigen instruktionen|anweisungen",
    "vergiss alles ,|.|!|was",
    "vergiss alle aufträge|aufgaben|anweisungen|angaben",
    "nun|jetzt folgen|kommen neue anweisungen|aufgaben",
    "deinen|deine|gesamten|vollständigen prompt text*",
    "systemprompt",
    "obige eingabeaufforderung",
    // French.
    "oubliez|ignorez|oublie|ignore toutes|tous ?les instructions|consignes|directives",
    "votre|ton|ta invite système",
];

/// Phrases matched as substrings, for scripts written without spaces and
/// for markup that fakes a boundary.
const SUBSTRINGS: &[&str] = &[
    "</external_data>",
    "<system>",
    "</system>",
    "<|im_start|>",
    "[system]",
    "<!-- llm",
    "<!-- ai",
    // Japanese: "ignore the (previous) instructions", "system prompt".
    "指示はすべて無視",
    "指示を無視",
    "システムプロンプト",
    // Chinese: "ignore the previous instructions".
    "忽略之前的指示",
    "忽略以上指示",
    "忽略先前的指示",
    "忽略所有指令",
    "系统提示词",
    // Russian.
    "игнорируй все",
    "игнорируйте все",
    "забудь все предыдущие",
    "системный промпт",
];

fn matches_any(text: &str) -> bool {
    if SUBSTRINGS.iter().any(|s| text.contains(s)) {
        return true;
    }
    if has_role_play(text) {
        return true;
    }
    let words = tokens(text);
    PATTERNS.iter().any(|p| {
        let slots: Vec<&str> = p.split(' ').collect();
        (0..words.len()).any(|start| match_slots(&slots, &words, start))
    })
}

/// A fake conversation: two or more different role labels.
fn has_role_play(text: &str) -> bool {
    let roles = ["user:", "system:", "assistant:"];
    roles.iter().filter(|r| text.contains(*r)).count() >= 2
}

fn match_slots(slots: &[&str], words: &[String], at: usize) -> bool {
    let Some((slot, rest)) = slots.split_first() else {
        return true;
    };
    let (optional, alternatives) = match slot.strip_prefix('?') {
        Some(alts) => (true, alts),
        None => (false, *slot),
    };
    let here = words.get(at).is_some_and(|w| {
        alternatives
            .split('|')
            .any(|alt| match alt.strip_suffix('*') {
                Some("") => true,
                Some(prefix) => w.starts_with(prefix),
                None => w == alt,
            })
    });
    (here && match_slots(rest, words, at + 1)) || (optional && match_slots(rest, words, at))
}

#[cfg(test)]
mod tests;
