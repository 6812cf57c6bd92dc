#!/usr/bin/env python3
"""Compares ways of training the instruction-like detector's model on four
folds of the tuning half only (the held-apart half is never read here).

    python3 tests/bench/instruction_cv.py CORPUS_TSV PAGE_SETS_DIR \\
        [--hard-negatives N] [--folds 0,1,2,3]

A tuning-half row (or page, by its id) is in fold (FNV-1a 64 >> 1) % 4; each
fold is scored by a model trained as `instruction_train.py` trains, on the
other three folds' rows, 6,000 of their page sentences and the shape rows.
The patterns' verdicts come from the Rust detector
(`instruction_eval --explain`, built with the `measure` feature), so the
figures are the whole detector's, with its short-text margin. For each
fold, the threshold is the lowest that flags at most 0.1 % of 5,000 of the
fold's page sentences and keeps the fold's precision at least P; printed
for P = 0.95 and 0.96: recall (overall and strong/weak/other), precision,
hard negatives and page sentences flagged, summed over the folds.
"""

import argparse
import random
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import instruction_train as T  # noqa: E402
from instruction_shapes import benign_shape_rows, shape_rows  # noqa: E402

STRONG = {"override", "role_reassignment", "system_prompt_leak", "exfiltration_markdown",
          "authority_claim", "fake_turn", "encoded_base64", "encoded_other", "unicode_tags",
          "task_hijack"}
WEAK = {"persuasion", "hypothetical", "distraction", "content_insertion", "output_manipulation",
        "act_as_prompt"}
# The detector's short-text margin (instruction.rs: SHORT_WORDS, SHORT_MARGIN).
SHORT_WORDS, SHORT_MARGIN = 12, 1.3


def group(cls):
    for prefix in ("embedded_", "indirect_"):
        cls = cls.removeprefix(prefix)
    return "strong" if cls in STRONG else "weak" if cls in WEAK else "other"


def fold_of(key):
    return (T.fnv64(key) >> 1) % 4


def pattern_verdicts(texts):
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run(
        ["cargo", "run", "--quiet", "--release", "-p", "rypsok-core", "--features", "measure",
         "--example", "instruction_eval", "--", "--explain"],
        cwd=root, input="\n".join(texts) + "\n", capture_output=True, text=True, check=True)
    lines = out.stdout.splitlines()
    assert len(lines) == len(texts)
    return {t: line.split()[1] == "true" for t, line in zip(texts, lines)}


def fold_scores(rows, sents, k, hard_negatives, vec):
    train_rows = [r for r in rows if fold_of(r["text"]) != k]
    pool = [s for p, s in sents if fold_of(p) != k]
    s_train = random.Random(11).sample(pool, min(len(pool), 6000))
    s_eval = random.Random(5).sample([s for p, s in sents if fold_of(p) == k], 5000)
    shapes, benign = shape_rows(), benign_shape_rows(s_train)
    n_pos = sum(r["label"] for r in train_rows) + len(shapes)
    n_neg = sum(not r["label"] for r in train_rows) + len(s_train) + len(benign)
    pw = (n_neg / n_pos) ** 0.5
    samples = [(vec(r["text"]), r["label"], pw if r["label"] else 1.0) for r in train_rows]
    samples += [(vec(t), True, pw) for t, _ in shapes]
    samples += [(vec(t), False, 1.0) for t in s_train + benign]
    w, b = T.train(samples)
    if hard_negatives:
        used = set(s_train)
        rest = sorted(set(s for s in pool if s not in used))
        ranked = sorted((-(b + sum(w[j] * v for j, v in vec(s))), s) for s in rest)
        samples += [(vec(s), False, 1.0) for _, s in ranked[:hard_negatives]]
        w, b = T.train(samples)
    q, scale = T.quantize(w)

    def score(t):
        return T.score_q(q, scale, b, [j for j, _ in vec(t)])
    return ([(score(s), len(s.split())) for s in s_eval],
            [(score(r["text"]), len(r["text"].split()), r) for r in rows if fold_of(r["text"]) == k])


def main():
    args = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    args.add_argument("corpus")
    args.add_argument("pages")
    args.add_argument("--hard-negatives", type=int, default=0)
    args.add_argument("--folds", default="0,1,2,3")
    opts = args.parse_args()
    rows = [r for r in T.load_corpus(opts.corpus) if T.tuning_half(r["text"])]
    sents = [(p, s) for p, s in T.page_sentences(opts.pages) if T.tuning_half(p)]
    rules = pattern_verdicts([r["text"] for r in rows])
    cache = {}

    def vec(t):
        if t not in cache:
            cache[t] = T.vector(T.features(T.normalize(T.decode(t)[0])))
        return cache[t]
    folds = [fold_scores(rows, sents, int(k), opts.hard_negatives, vec)
             for k in opts.folds.split(",")]

    def flagged(x, n, t):
        return x >= t + (SHORT_MARGIN if n < SHORT_WORDS else 0.0)
    for precision in (0.95, 0.96):
        hits = {"strong": [0, 0], "weak": [0, 0], "other": [0, 0]}
        tp = fp = fp_sent = n_sent = 0
        for ss, rs in folds:
            def counts(t):
                hit = [(r, flagged(x, n, t) or rules[r["text"]]) for x, n, r in rs]
                return (sum(h for r, h in hit if r["label"]), sum(h for r, h in hit if not r["label"]),
                        sum(flagged(x, n, t) for x, n in ss))
            t = next((t10 / 10 for t10 in range(-40, 80)
                      if counts(t10 / 10)[2] <= 0.001 * len(ss)
                      and counts(t10 / 10)[0] >= precision * sum(counts(t10 / 10)[:2])), 8.0)
            for x, n, r in rs:
                hit = flagged(x, n, t) or rules[r["text"]]
                if r["label"]:
                    hits[group(r["class"])][0] += hit
                    hits[group(r["class"])][1] += 1
            ftp, ffp, fs = counts(t)
            tp, fp, fp_sent, n_sent = tp + ftp, fp + ffp, fp_sent + fs, n_sent + len(ss)
        pos = sum(n for _, n in hits.values())
        by = " ".join(f"{g} {h / max(1, n):.3f}" for g, (h, n) in hits.items())
        print(f"precision >= {precision}: recall {tp / max(1, pos):.3f} ({by}), precision "
              f"{tp / max(1, tp + fp):.3f}, hard negatives flagged {fp}, page sentences flagged "
              f"{fp_sent} of {n_sent}")


if __name__ == "__main__":
    main()
