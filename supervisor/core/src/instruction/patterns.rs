//! The instruction shapes as patterns over normalized words, compiled
//! once, and the structural checks (a fake end of output followed by a new
//! turn, a Markdown image with a template placeholder, role play, CJK
//! overrides) that a word pattern cannot express.

use super::*;

/// Word patterns: slots separated by spaces, alternatives by `|`; a slot
/// that starts with `?` may be absent; an alternative that ends with `*`
/// matches any word it begins.
pub(super) const PATTERNS: &[&str] = &[
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
    // A request to show, copy or transform the reader's own instructions.
    "repeat|reproduce|recite|translate|rewrite|restate|dump|echo|paste|disclose|leak|quote|reveal|print|output|show|display|type|spell ?me ?out ?all ?of your ?full|complete|entire|initial|original|first|hidden|secret|system|current|exact prompt*|pre-prompt*|instruction*|directive*",
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
    // German: "from now on you are a ... bot".
    "ab|von sofort|jetzt|nun ?an ?, bist du ?ein|eine|der|die ?neuer|neue|uneingeschränkter|uneingeschränkte|unzensierter|unzensierte|böser|böse ki|assistent|bot|chatbot|modell|dan",
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
pub(super) const SUBSTRINGS: &[&str] = &[
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

// Building fails only past the searcher's size limits, far above these few
// fixed phrases; the detector's tests build both at their first use.

/// [`SUBSTRINGS`] sought in one pass over the text.
#[allow(clippy::expect_used, reason = "fixed phrases, far within the limits")]
static SUBSTRING_SEARCH: std::sync::LazyLock<aho_corasick::AhoCorasick> =
    std::sync::LazyLock::new(|| {
        aho_corasick::AhoCorasick::new(SUBSTRINGS).expect("fixed phrases build a searcher")
    });

/// [`TURN_LABELS`] sought in one pass over the text, every occurrence.
#[allow(clippy::expect_used, reason = "fixed labels, far within the limits")]
static TURN_LABEL_SEARCH: std::sync::LazyLock<aho_corasick::AhoCorasick> =
    std::sync::LazyLock::new(|| {
        aho_corasick::AhoCorasick::new(TURN_LABELS).expect("fixed labels build a searcher")
    });

pub(super) fn matches_any(text: &str) -> bool {
    let ascii = text.is_ascii();
    if SUBSTRING_SEARCH.is_match(text) {
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
        let first = words[start].as_ref();
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
pub(super) struct Slot {
    optional: bool,
    alternatives: Vec<(&'static str, bool)>,
}

/// The patterns parsed once, indexed by the words their first slot
/// matches exactly; `others` start with an optional or prefix slot and are
/// tried at every word.
pub(super) struct Compiled {
    patterns: Vec<Vec<Slot>>,
    by_first_word: std::collections::HashMap<&'static str, Vec<usize>>,
    others: Vec<usize>,
}

pub(super) static COMPILED: std::sync::LazyLock<Compiled> = std::sync::LazyLock::new(|| {
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
pub(super) fn has_role_play(text: &str) -> bool {
    let roles = ["user:", "system:", "assistant:"];
    roles.iter().filter(|r| text.contains(*r)).count() >= 2
}

/// Chinese, Japanese and Korean overrides: a verb of ignoring within a
/// few characters of a word for instructions or orders, in either order.
pub(super) fn cjk_override(text: &str) -> bool {
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
pub(super) const TURN_LABELS: &[&str] = &[
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
pub(super) const END_OBJECTS: &[&str] = &[
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
pub(super) fn has_fake_end_and_turn(text: &str) -> bool {
    // Where the last label starts, whichever it is.
    let Some(turn) = TURN_LABEL_SEARCH
        .find_overlapping_iter(text)
        .map(|m| m.start())
        .max()
    else {
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
pub(super) fn has_template_image(text: &str) -> bool {
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

pub(super) fn match_slots(slots: &[Slot], words: &[std::borrow::Cow<'_, str>], at: usize) -> bool {
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
