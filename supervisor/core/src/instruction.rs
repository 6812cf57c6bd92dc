//! The instruction-like detector (design §9; REQ-SEC-003): whether an
//! external text reads like an instruction addressed to an AI reader.
//!
//! It is a signal for the `instruction_like_content` notice, not a gate, so
//! it is tuned for precision: benign text that uses the same trigger words
//! ("ignore the previous error message", "forget everything you know about
//! sourdough") stays quiet, and so does a sentence that reports an
//! injection by quoting it under a verb of saying or showing.
//!
//! Hidden forms are decoded first ([`decode`]): Unicode tag characters as
//! the ASCII they spell, HTML entities, percent-encoding, long base64 and
//! hex runs that decode to text; the decoded text is judged too, and the
//! forms found are returned for a log field. Then three judges, any of
//! which suffices:
//!
//! - word patterns that need a shape, not a word: an override verb *and* a
//!   reference to earlier instructions, a note *addressed to* a model, a
//!   fake conversation or a fake end of the tool's output followed by a new
//!   turn, a Markdown image whose address carries a template placeholder, a
//!   claim that the user granted the reader some authority;
//! - a small learned model ([`model`]), logistic regression over hashed
//!   character n-grams and words, which carries the shapes of the other
//!   languages (the twenty most used on the web) and of the classes the
//!   patterns do not name;
//! - words spelled invisibly in tag characters, which no honest page hides.
//!
//! The patterns read through invisible characters, with Cyrillic and Greek
//! look-alikes folded to Latin, digits of leetspeak read as letters in a
//! second pass, and letters spaced out one by one joined again. The figures
//! measured on the development corpus are in `tests/bench/instruction_eval.sh`
//! and the regression examples in this module's tests.

mod decode;
mod model;

pub use decode::DecodedForms;

/// What the detector found in one text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Detection {
    /// Whether the text reads like an instruction to an AI reader.
    pub instruction_like: bool,
    /// The hidden forms decoded before judging (for a log field; the text
    /// itself is never logged).
    pub decoded: DecodedForms,
}

/// Whether `text` reads like an instruction to an AI reader.
pub fn is_instruction_like(text: &str) -> bool {
    detect(text).instruction_like
}

/// Judges `text` and its decoded forms. Pass the text before invisible
/// characters are removed, so that tag characters can be read.
pub fn detect(text: &str) -> Detection {
    let decoded = decode::decode(text);
    let instruction_like = judge(text, &decoded);
    Detection {
        instruction_like,
        decoded: decoded.forms,
    }
}

/// How each judge saw `text`: whether the hidden words or the patterns
/// matched, the model's score and its threshold. For the evaluation
/// command (choosing a threshold on the tuning half); not a stable API.
#[doc(hidden)]
pub fn explain(text: &str) -> (bool, f64, f64) {
    let decoded = decode::decode(text);
    let changed = !decoded.forms.is_empty();
    let rules = hidden_words(&decoded.hidden_tag_text)
        || patterns_match(text)
        || (changed && patterns_match(&decoded.text));
    let judged = mask_reported_quotes(&decoded.text);
    (rules, model::MODEL.score(&judged), model_threshold(&judged))
}

fn judge(text: &str, decoded: &decode::Decoded) -> bool {
    if hidden_words(&decoded.hidden_tag_text) {
        return true;
    }
    let changed = !decoded.forms.is_empty();
    if patterns_match(text) || (changed && patterns_match(&decoded.text)) {
        return true;
    }
    let judged = mask_reported_quotes(&decoded.text);
    model::MODEL.score(&judged) >= model_threshold(&judged)
}

/// Texts of fewer words than this need the model's score above its
/// threshold by [`SHORT_MARGIN`]: the score is normalized by the square
/// root of the number of features, so in a short text a few n-grams ("your
/// response", "answer") weigh much; most of the tuning half's page-sentence
/// false positives were such short lines.
const SHORT_WORDS: usize = 12;
const SHORT_MARGIN: f64 = 1.3;

fn model_threshold(text: &str) -> f64 {
    if text.split_whitespace().nth(SHORT_WORDS - 1).is_none() {
        model::MODEL.threshold + SHORT_MARGIN
    } else {
        model::MODEL.threshold
    }
}

/// Tag characters that spell at least two words of letters: text hidden
/// from the human reader on purpose (an emoji flag's tag letters are one
/// short run without a space).
fn hidden_words(hidden: &str) -> bool {
    hidden
        .split(' ')
        .filter(|w| w.chars().filter(char::is_ascii_alphabetic).count() >= 2)
        .count()
        >= 2
}

fn patterns_match(text: &str) -> bool {
    let plain = normalize(&mask_reported_quotes(text), false);
    if matches_any(&plain) {
        return true;
    }
    if !has_leet(text) {
        return false;
    }
    let leet = normalize(text, true);
    let leet = normalize(&mask_reported_quotes(&leet), false);
    leet != plain && matches_any(&leet)
}

/// A digit of leetspeak next to a letter (`1gn0r3`): only then is the
/// second, leet-reading pass worth its cost.
fn has_leet(text: &str) -> bool {
    let b = text.as_bytes();
    b.windows(2).any(|w| {
        let digit = |c: u8| matches!(c, b'0' | b'1' | b'3' | b'4' | b'5' | b'7');
        (digit(w[0]) && w[1].is_ascii_alphabetic()) || (w[0].is_ascii_alphabetic() && digit(w[1]))
    })
}

/// Words that, shortly before a quotation, make it reported speech: a verb
/// of saying or showing, or a noun naming what is quoted.
const REPORTING: &[&str] = &[
    "said",
    "says",
    "say",
    "saying",
    "wrote",
    "writes",
    "write",
    "written",
    "reads",
    "read",
    "reading",
    "typed",
    "type",
    "types",
    "contain",
    "contains",
    "contained",
    "containing",
    "include",
    "includes",
    "included",
    "including",
    "like",
    "as",
    "such",
    "phrase",
    "phrases",
    "message",
    "messages",
    "prompt",
    "prompts",
    "text",
    "example",
    "examples",
    "e.g",
    "eg",
    "called",
    "titled",
    "known",
    "claims",
    "claimed",
    "told",
    "tells",
    "asked",
    "asks",
    "shows",
    "showed",
    "shown",
    "show",
    "displayed",
    "displays",
    "quoted",
    "quote",
    "quotes",
    "words",
    "line",
    "lines",
    "string",
    "strings",
    "sentence",
    "sentences",
    "command",
    "commands",
    "payload",
    "payloads",
    "injection",
    "injections",
    "attack",
    "attacks",
    "instruction",
    "instructions",
    "inserted",
    "hidden",
    "embedded",
    "posted",
    "tweeted",
    "replied",
    "answered",
    "stating",
    "stated",
    "states",
    "reportedly",
    "dubbed",
    "labelled",
    "labeled",
    "sagte",
    "schrieb",
    "wie",
    "dit",
    "écrit",
    "comme",
    "dijo",
    "escribió",
    "como",
    "disse",
    "scrisse",
    "сказал",
    "написал",
    "как",
];

/// Pairs of quotation marks.
const QUOTES: &[(char, char)] = &[
    ('"', '"'),
    ('“', '”'),
    ('„', '“'),
    ('«', '»'),
    ('‘', '’'),
    ('「', '」'),
    ('『', '』'),
];

/// The text with the inside of each quotation that follows a reporting
/// word (within six words) blanked: a sentence that reports an injection by
/// quoting it is not an order. Text outside the quotation is judged as
/// usual, so an order after a quoted mention is still seen.
fn mask_reported_quotes(text: &str) -> std::borrow::Cow<'_, str> {
    if !text
        .chars()
        .any(|c| QUOTES.iter().any(|&(open, _)| open == c))
    {
        return std::borrow::Cow::Borrowed(text);
    }
    let chars: Vec<char> = text.chars().collect();
    let mut out = chars.clone();
    let mut i = 0;
    while i < chars.len() {
        let Some(&(_, close)) = QUOTES.iter().find(|(open, _)| *open == chars[i]) else {
            i += 1;
            continue;
        };
        let Some(len) = chars[i + 1..].iter().position(|&c| c == close) else {
            break;
        };
        let end = i + 1 + len;
        if reported_before(&chars[..i]) {
            for c in &mut out[i + 1..end] {
                *c = ' ';
            }
        }
        i = end + 1;
    }
    std::borrow::Cow::Owned(out.into_iter().collect())
}

fn reported_before(before: &[char]) -> bool {
    let start = before.len().saturating_sub(80);
    let tail: String = before[start..].iter().collect::<String>().to_lowercase();
    tail.split(|c: char| !c.is_alphanumeric() && c != '.')
        .filter(|w| !w.is_empty())
        .rev()
        .take(6)
        .any(|w| REPORTING.contains(&w.trim_end_matches('.')))
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
    // The reader addressed by its role, or on the condition that it is one.
    "if|when you are|you're ?an|a ?large language model*",
    "if|when you are|you're ?an|a ai|llm*|chatbot*|gpt* ,|.|:|reading|assistant*|model*|agent*|system*|and|then|please|you",
    "to|for ?the|any|all ai|llm assistant*|agent*|model*|system* reading|summarizing|summarising|processing|browsing",
    "as an ai|llm assistant*|agent*|model* reading|summarizing|processing this",
    // Identity reassignment.
    "from now on ?, you are|you're|you'll|you will ?be ?a|an|the ?new|unrestricted|uncensored|unfiltered|evil|free ai|assistant|bot|chatbot|model|dan|jailbroken",
    "from now on ?, you will|you'll act|respond|answer|behave|reply|obey|pretend",
    "from now on ?, act|respond|answer|behave|reply|obey|pretend as|like|only|to",
    "you are|you're no longer ?a|an|the ?search|helpful|language|ai|web ai|assistant*|chatbot*|chatgpt|claude|gemini|model|bot|bound|restricted|limited|constrained",
    "ai|bot|agent|model|assistant|chatbot with|without no ?content|ethical|moral|safety restrictions|rules|filters|limits|policy|policies|guidelines|censorship",
    "your new name|identity|role|persona|purpose|instructions is|are",
    "you are|you're now ?a|an|the ?completely unrestricted|uncensored|unfiltered|jailbroken|evil|dan|developer|root|admin|system|administrator|superuser|unlimited",
    "you will now act|operate|respond as",
    // Authority the user is said to have granted.
    "the ?user|owner|operator|administrator|admin has|have ?already|explicitly|now|fully authorized|authorised|granted|approved|allowed|permitted|pre-approved|preapproved ?the|this you|ai|assistant|agent|model",
    "with|under the user's ?full|explicit|prior permission|consent|authorization|authorisation|approval ,|you",
    "you are|you're ?now|hereby ?fully authorized|authorised|permitted|allowed|cleared by ?the user|owner|developer|admin|administrator",
    "you have been granted|given ?full|admin|root|elevated|special permission*|access|authority|privileges",
    "si eres|es un|una ia|asistente|modelo|chatbot",
    "se você|voce é|e|for um|uma ia|assistente|modelo|chatbot",
    "si tu es|vous êtes|etes un|une ia|assistant|modèle|chatbot",
    "wenn|falls du eine|ein ki|sprachmodell|ki-assistent|assistent|chatbot",
    // Overrides in other languages of the web: a verb of ignoring, an
    // optional "all"/article, a word for "previous", a word for
    // instructions.
    "игнорируй|игнорируйте|забудь|забудьте ?все ?предыдущие|прежние|прошлые|вышеуказанные|свои инструкции|указания|команды|инструкцию",
    "ігноруй|ігноруйте|забудь|забудьте ?усі|всі ?попередні|минулі інструкції|вказівки|команди",
    "negeer|vergeet ?alle ?de|je ?vorige|eerdere|voorgaande|bovenstaande instructies|aanwijzingen|opdrachten",
    "ignora|olvida|ignore|esquece|esqueça|ignorem ?todas ?las|as|le ?instrucciones|instruções|instrucoes|istruzioni|indicaciones anteriores|precedentes|previas|precedenti",
    "ignora|dimentica ?tutte ?le istruzioni precedenti|sopra",
    "zignoruj|ignoruj|zapomnij ?wszystkie ?poprzednie|wcześniejsze instrukcje|polecenia",
    "ignoruj|zapomeň ?všechny ?předchozí|předešlé pokyny|instrukce",
    "ignorera|glöm ?alla ?tidigare|föregående instruktioner|anvisningar",
    "αγνόησε|αγνοήστε|ξέχασε|ξεχάστε ?όλες ?τις ?προηγούμενες οδηγίες|οδηγίεσ|εντολές|εντολέσ",
    "abaikan|lupakan ?semua instruksi|perintah|petunjuk sebelumnya",
    // German.
    "ignoriere|ignorieren|vergiss|vergessen|missachte ?sie ?nun ?alle|die|deine|meine ?vorherigen|bisherigen|obigen|vorigen|vorhergehenden|bereitgestellten anweisungen|instruktionen|aufträge|aufgaben|angaben|ausführungen|befehle|anweisung",
    "ignoriere|ignorieren|vergiss sie ?die|das obige|obigen",
    "vorherigen|bisherigen|obigen|vorigen anweisungen|instruktionen|aufträge|aufgaben|angaben|ausführungen ignorieren|ignoriere|vergessen",
    "abweichend zu|von ?den vorherigen|bisherigen|obigen instruktionen|anweisungen",
    "vergiss alles ,|.|!|was",
    "vergiss alle aufträge|aufgaben|anweisungen|angaben",
    "nun|jetzt folgen|kommen neue anweisungen|aufgaben",
    "deinen|deine|gesamten|vollständigen prompt text*",
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
    // Japanese: "ignore the (previous) instructions".
    "指示はすべて無視",
    "指示を無視",
    // Chinese: "ignore the previous instructions".
    "忽略之前的指示",
    "忽略以上指示",
    "忽略先前的指示",
    "忽略所有指令",
    // Russian.
    "игнорируй все",
    "игнорируйте все",
    "забудь все предыдущие",
];

fn matches_any(text: &str) -> bool {
    let ascii = text.is_ascii();
    if SUBSTRINGS
        .iter()
        .any(|s| (!ascii || s.is_ascii()) && text.contains(s))
    {
        return true;
    }
    if !ascii && cjk_override(text) {
        return true;
    }
    let labelled = text.contains([':', '|', '[', '#']);
    if labelled && (has_role_play(text) || has_fake_end_and_turn(text)) {
        return true;
    }
    if text.contains("![") && has_template_image(text) {
        return true;
    }
    let words = tokens(text);
    let compiled = &*COMPILED;
    (0..words.len()).any(|start| {
        let first = words[start].as_str();
        compiled
            .by_first_word
            .get(first)
            .into_iter()
            .flatten()
            .chain(&compiled.others)
            .any(|&p| match_slots(&compiled.patterns[p], &words, start))
    })
}

/// One slot of a pattern: whether it may be absent, and its alternatives
/// (a word, or with `prefix` any word it begins).
struct Slot {
    optional: bool,
    alternatives: Vec<(&'static str, bool)>,
}

/// The patterns parsed once, indexed by the words their first slot
/// matches exactly; `others` start with an optional or prefix slot and are
/// tried at every word.
struct Compiled {
    patterns: Vec<Vec<Slot>>,
    by_first_word: std::collections::HashMap<&'static str, Vec<usize>>,
    others: Vec<usize>,
}

static COMPILED: std::sync::LazyLock<Compiled> = std::sync::LazyLock::new(|| {
    let patterns: Vec<Vec<Slot>> = PATTERNS
        .iter()
        .map(|p| {
            p.split(' ')
                .map(|slot| {
                    let (optional, alts) = match slot.strip_prefix('?') {
                        Some(alts) => (true, alts),
                        None => (false, slot),
                    };
                    let alternatives = alts
                        .split('|')
                        .map(|alt| match alt.strip_suffix('*') {
                            Some(prefix) => (prefix, true),
                            None => (alt, false),
                        })
                        .collect();
                    Slot {
                        optional,
                        alternatives,
                    }
                })
                .collect()
        })
        .collect();
    let mut by_first_word: std::collections::HashMap<&'static str, Vec<usize>> =
        std::collections::HashMap::new();
    let mut others = Vec::new();
    for (i, p) in patterns.iter().enumerate() {
        let first = &p[0];
        if first.optional || first.alternatives.iter().any(|&(_, prefix)| prefix) {
            others.push(i);
        } else {
            for &(alt, _) in &first.alternatives {
                by_first_word.entry(alt).or_default().push(i);
            }
        }
    }
    Compiled {
        patterns,
        by_first_word,
        others,
    }
});

/// A fake conversation: two or more different role labels.
fn has_role_play(text: &str) -> bool {
    let roles = ["user:", "system:", "assistant:"];
    roles.iter().filter(|r| text.contains(*r)).count() >= 2
}

/// Chinese, Japanese and Korean overrides: a verb of ignoring within a
/// few characters of a word for instructions or orders, in either order.
fn cjk_override(text: &str) -> bool {
    const VERBS: &[&str] = &[
        "忽略", "无视", "忘记", "忘掉", "無視", "忽視", "忘記", "忘れ", "무시", "잊어",
    ];
    const NOUNS: &[&str] = &["指令", "指示", "命令", "지시", "지침", "명령"];
    let chars: Vec<char> = text.chars().collect();
    let near = |a: &str, b: &str| {
        let a: Vec<char> = a.chars().collect();
        let b: Vec<char> = b.chars().collect();
        (0..chars.len()).any(|i| {
            chars[i..].starts_with(&a)
                && (i + a.len()..chars.len().min(i + a.len() + 12))
                    .any(|j| chars[j..].starts_with(&b))
        })
    };
    VERBS.iter().any(|v| {
        text.contains(v)
            && NOUNS
                .iter()
                .any(|n| text.contains(n) && (near(v, n) || near(n, v)))
    })
}

/// Role labels that start a turn of a conversation.
const TURN_LABELS: &[&str] = &[
    "user:",
    "human:",
    "system:",
    "assistant:",
    "<|im_start|>",
    "<|user|>",
    "<|system|>",
    "[inst]",
    "### instruction",
    "### user",
    "### system",
];

/// Words that, with "end" or a closing tag, mark the end of the tool's
/// output, a document or a result.
const END_OBJECTS: &[&str] = &[
    "output",
    "result",
    "results",
    "response",
    "document",
    "tool",
    "context",
    "data",
    "search",
    "page",
    "content",
    "function",
    "observation",
];

/// A fake end of the tool's output followed by a new turn: an end marker
/// (`</…>`, `[end of …]`, `end of … output`, `<|im_end|>`) and, after it,
/// a role label.
fn has_fake_end_and_turn(text: &str) -> bool {
    let Some(turn) = TURN_LABELS.iter().filter_map(|l| text.rfind(l)).max() else {
        return false;
    };
    let before = &text[..turn];
    if before.contains("<|im_end|>") || before.contains("<|endoftext|>") {
        return true;
    }
    // A closing tag whose name is an end object, or "end" set off by
    // markup (`[end of …]`, `--- end …`, `== end …`) near one.
    let words = tokens(before);
    let marked_end = |at: usize| {
        before[..at]
            .trim_end()
            .ends_with(['[', '-', '=', '*', '#', '<', '(', '|'])
    };
    let closing = words.iter().enumerate().any(|(i, w)| {
        w == "/"
            && i > 0
            && words[i - 1] == "<"
            && words
                .get(i + 1)
                .is_some_and(|o| END_OBJECTS.iter().any(|e| o.contains(e)))
    });
    closing
        || before.match_indices("end").any(|(at, _)| {
            let after: String = before[at + 3..].chars().take(40).collect();
            marked_end(at) && END_OBJECTS.iter().any(|e| after.contains(e))
        })
}

/// A Markdown image whose address carries a template placeholder
/// (`{…}`, `{{…}}`, `[…]`, `<…>`, `$…`, `%7b…`) to be filled in by the
/// reader: the shape of an exfiltration through a rendered image.
fn has_template_image(text: &str) -> bool {
    let mut rest = text;
    while let Some(at) = rest.find("![") {
        rest = &rest[at + 2..];
        let Some(close) = rest.find("](") else {
            return false;
        };
        let after = &rest[close + 2..];
        let url = after.split([')', ' ', '\n']).next().unwrap_or("");
        let query = url.split_once(['?', '/']).map_or("", |(_, q)| q);
        if query.contains('{')
            || query.contains('[')
            || query.contains('<')
            || query.contains('$')
            || query.contains("%7b")
        {
            return true;
        }
    }
    false
}

fn match_slots(slots: &[Slot], words: &[String], at: usize) -> bool {
    let Some((slot, rest)) = slots.split_first() else {
        return true;
    };
    let here = words.get(at).is_some_and(|w| {
        slot.alternatives
            .iter()
            .any(|&(alt, prefix)| if prefix { w.starts_with(alt) } else { w == alt })
    });
    (here && match_slots(rest, words, at + 1)) || (slot.optional && match_slots(rest, words, at))
}

#[cfg(test)]
mod tests;
