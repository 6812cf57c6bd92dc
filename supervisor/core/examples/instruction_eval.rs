//! Measures the instruction-like detector on a labelled corpus and on the
//! sentences of the extraction page sets; run through
//! `tests/bench/instruction_eval.sh`.
//!
//!     instruction_eval CORPUS_TSV PAGE_SETS_DIR [OLD_CORPUS_TSV]
//!     instruction_eval --explain < TEXTS
//!     instruction_eval --cost CORPUS_TSV PAGE_SETS_DIR
//!
//! The halves are the training script's: a corpus row is in the tuning
//! half when the FNV-1a 64-bit hash of its text is even, a page's sentences
//! when the hash of the page id is. Prints, for each half, recall by class
//! (strong, weak and other classes apart), false positives by negative
//! class, precision, the false-positive rate on page sentences; then the
//! older corpus's precision and recall, and the cost per snippet (median
//! of per-snippet medians over repeated runs; a measurement on a shared
//! machine, not a bound).

// A measuring command, not the core: it reads the corpus files and its
// arguments itself, which the core's architecture rule forbids the library.
#![allow(clippy::disallowed_methods)]
// A measuring command: it prints, and a missing or malformed input file
// ends it with a message.
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    clippy::expect_used,
    clippy::cast_possible_truncation,
    clippy::cast_precision_loss
)]

use std::collections::{BTreeMap, HashSet};
use std::path::Path;
use std::time::Instant;

use rypsok_core::measure::{explain_instruction, is_instruction_like};

const STRONG: &[&str] = &[
    "override",
    "role_reassignment",
    "system_prompt_leak",
    "exfiltration_markdown",
    "authority_claim",
    "fake_turn",
    "encoded_base64",
    "encoded_other",
    "unicode_tags",
    "task_hijack",
];
const WEAK: &[&str] = &[
    "persuasion",
    "hypothetical",
    "distraction",
    "content_insertion",
    "output_manipulation",
    "act_as_prompt",
];

fn fnv64(text: &str) -> u64 {
    let mut h: u64 = 0xCBF2_9CE4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01B3);
    }
    h
}

fn tuning_half(key: &str) -> bool {
    fnv64(key).is_multiple_of(2)
}

struct Row {
    positive: bool,
    text: String,
    class: String,
}

fn load_corpus(path: &Path) -> Vec<Row> {
    let data = std::fs::read_to_string(path).expect("read the corpus");
    data.lines()
        .skip(1)
        .filter_map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            (cols.len() >= 5).then(|| Row {
                positive: cols[0] == "positive",
                text: cols[1].to_owned(),
                class: cols[3].to_owned(),
            })
        })
        .collect()
}

/// Sentences of 20 to 400 characters of every page's ground truth, split
/// after `.!?。！？` and whitespace or at line breaks, with the page id.
fn page_sentences(dir: &Path) -> Vec<(String, String)> {
    let mut sets: Vec<_> = std::fs::read_dir(dir)
        .expect("read the page sets folder")
        .filter_map(Result::ok)
        .map(|e| e.path().join("ground-truth.json"))
        .filter(|p| p.exists())
        .collect();
    sets.sort();
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for set in sets {
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&set).expect("read ground truth"))
                .expect("ground truth is JSON");
        let Some(pages) = json.as_object() else {
            continue;
        };
        let mut ids: Vec<&String> = pages.keys().collect();
        ids.sort();
        for id in ids {
            if !seen.insert(id.clone()) {
                continue;
            }
            let body = pages[id]["articleBody"].as_str().unwrap_or("");
            for s in split_sentences(body) {
                let n = s.chars().count();
                if (20..=400).contains(&n) {
                    out.push((id.clone(), s));
                }
            }
        }
    }
    out
}

fn split_sentences(body: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev: Option<char> = None;
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        let after_end = prev.is_some_and(|p| ".!?。！？".contains(p));
        if (c.is_whitespace() && after_end) || c == '\n' {
            out.push(std::mem::take(&mut cur).trim().to_owned());
            while chars.peek().is_some_and(|c| c.is_whitespace()) {
                chars.next();
            }
            prev = None;
            continue;
        }
        cur.push(c);
        prev = Some(c);
    }
    out.push(cur.trim().to_owned());
    out
}

fn base_class(class: &str) -> &str {
    class
        .strip_prefix("embedded_")
        .or_else(|| class.strip_prefix("indirect_"))
        .unwrap_or(class)
}

fn report_half(name: &str, rows: &[&Row], sentences: &[&str], show: bool) {
    let mut by_class: BTreeMap<&str, (u32, u32)> = BTreeMap::new();
    for r in rows {
        let hit = is_instruction_like(&r.text);
        if show && hit != r.positive {
            let text: String = r.text.chars().take(160).collect();
            println!(
                "  [{}] {}: {text}",
                if hit { "flagged" } else { "missed" },
                r.class
            );
        }
        let e = by_class.entry(r.class.as_str()).or_default();
        e.0 += u32::from(hit);
        e.1 += 1;
    }
    println!(
        "== {name} half: {} rows, {} page sentences",
        rows.len(),
        sentences.len()
    );
    let (mut tp, mut fp) = (0u32, 0u32);
    let mut groups: BTreeMap<&str, (u32, u32)> = BTreeMap::new();
    for (class, (hit, n)) in &by_class {
        let positive = rows.iter().any(|r| r.class == *class && r.positive);
        if positive {
            tp += hit;
            let base = base_class(class);
            let group = if STRONG.contains(&base) {
                "strong"
            } else if WEAK.contains(&base) {
                "weak"
            } else {
                "other"
            };
            let g = groups.entry(group).or_default();
            g.0 += hit;
            g.1 += n;
            println!("  positive {group:6} {class:34} caught {hit:4} of {n:4}");
        } else {
            fp += hit;
            println!("  negative        {class:34} flagged {hit:4} of {n:4}");
        }
    }
    for (group, (hit, n)) in &groups {
        println!(
            "  recall {group}: {:.3} ({hit} of {n})",
            f64::from(*hit) / f64::from(*n)
        );
    }
    let positives: u32 = rows.iter().filter(|r| r.positive).count() as u32;
    println!(
        "  precision on the corpus (every negative is a hard one): {:.3}; recall overall {:.3}",
        f64::from(tp) / f64::from((tp + fp).max(1)),
        f64::from(tp) / f64::from(positives.max(1))
    );
    let flagged = sentences
        .iter()
        .filter(|s| is_instruction_like(s))
        .inspect(|s| {
            if show {
                println!("  [flagged] page sentence: {s}");
            }
        })
        .count();
    println!(
        "  page sentences flagged: {flagged} of {} (false-positive rate {:.4} %)",
        sentences.len(),
        100.0 * flagged as f64 / sentences.len().max(1) as f64
    );
}

fn report_old(path: &Path, show: bool) {
    let data = std::fs::read_to_string(path).expect("read the older corpus");
    let (mut tp, mut fp, mut fn_) = (0u32, 0u32, 0u32);
    for l in data
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("label\t"))
    {
        let cols: Vec<&str> = l.split('\t').collect();
        if cols.len() < 2 {
            continue;
        }
        let (positive, hit) = (cols[0] == "positive", is_instruction_like(cols[1]));
        if show && positive != hit {
            println!("  [{}] {}", if hit { "flagged" } else { "missed" }, cols[1]);
        }
        match (positive, hit) {
            (true, true) => tp += 1,
            (true, false) => fn_ += 1,
            (false, true) => fp += 1,
            (false, false) => {}
        }
    }
    println!(
        "== older corpus: precision {:.3}, recall {:.3} ({tp} caught, {fn_} missed, {fp} false positives)",
        f64::from(tp) / f64::from((tp + fp).max(1)),
        f64::from(tp) / f64::from((tp + fn_).max(1))
    );
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Median over snippets of each snippet's median time over `reps` calls.
fn cost(snippets: &[String], reps: usize) -> (f64, f64) {
    let mut per = Vec::with_capacity(snippets.len());
    for s in snippets {
        let mut times = Vec::with_capacity(reps);
        for _ in 0..reps {
            let t = Instant::now();
            std::hint::black_box(is_instruction_like(std::hint::black_box(s)));
            times.push(t.elapsed().as_secs_f64() * 1e6);
        }
        per.push(median(&mut times));
    }
    let mean = per.iter().sum::<f64>() / per.len() as f64;
    (median(&mut per), mean)
}

/// Snippet-sized texts: every 40th page sentence and corpus row, cut to
/// 300 characters (the snippet bound).
fn cost_snippets(rows: &[Row], sentences: &[(String, String)]) -> Vec<String> {
    sentences
        .iter()
        .map(|(_, s)| s.as_str())
        .step_by(40)
        .chain(rows.iter().map(|r| r.text.as_str()).step_by(40))
        .map(|s| s.chars().take(300).collect())
        .collect()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--explain") {
        // One text a line on standard input: the rules' verdict, the
        // model's score and threshold.
        for line in std::io::stdin().lines().map_while(Result::ok) {
            let (rules, score, threshold) = explain_instruction(&line);
            println!("rules {rules:5} score {score:7.3} (threshold {threshold:.2}): {line}");
        }
        return;
    }
    if args.len() < 3 {
        eprintln!("usage: instruction_eval CORPUS_TSV PAGE_SETS_DIR [OLD_CORPUS_TSV]");
        std::process::exit(2);
    }
    // With INSTRUCTION_EVAL_SHOW set, the tuning half's errors are
    // listed (the held-apart half is only counted, never read).
    let show = std::env::var_os("INSTRUCTION_EVAL_SHOW").is_some();
    let cost_only = args.get(1).map(String::as_str) == Some("--cost");
    let args: Vec<String> = if cost_only {
        // `--cost CORPUS PAGES`: only the snippets, each judged once (for
        // an instruction count under callgrind).
        args[1..].to_vec()
    } else {
        args
    };
    let rows = load_corpus(Path::new(&args[1]));
    let sentences = page_sentences(Path::new(&args[2]));
    if cost_only {
        let snippets = cost_snippets(&rows, &sentences);
        for s in &snippets {
            std::hint::black_box(is_instruction_like(std::hint::black_box(s)));
        }
        println!("judged {} snippets", snippets.len());
        return;
    }
    for (name, tuning) in [("tuning", true), ("held-apart", false)] {
        let half: Vec<&Row> = rows
            .iter()
            .filter(|r| tuning_half(&r.text) == tuning)
            .collect();
        let sent: Vec<&str> = sentences
            .iter()
            .filter(|(id, _)| tuning_half(id) == tuning)
            .map(|(_, s)| s.as_str())
            .collect();
        report_half(name, &half, &sent, show && tuning);
    }
    if let Some(old) = args.get(3) {
        report_old(Path::new(old), show);
    }
    let snippets = cost_snippets(&rows, &sentences);
    let (med, mean) = cost(&snippets, 15);
    println!(
        "== cost per snippet over {} snippets of at most 300 characters: median {med:.2} µs, mean {mean:.2} µs",
        snippets.len()
    );
}
