#!/usr/bin/env python3
"""Scores the extraction benchmark across corpora, and counts catastrophic
pages, so that a rule is judged on pages it was not chosen with.

Usage: score_cross.py BENCH_DIR OUT_DIR [SET_DIR...] [--dev DEV_DIR]

Cross-corpus: a rule is chosen and tuned on one corpus and measured on
another that no rule was looked at with. Two directions: tuned on
wcxb-dev/, measured on articles/; tuned on articles/, measured on
wcxb-dev/. For each direction the held-out corpus's F1 is printed for
rypsok, trafilatura and readability (predictions of the same run, in
OUT_DIR as score_halves.py reads them), with the corpus's own metric
(shingles for articles/, WCXB word F1 for wcxb-dev/, --strip-md), beside
the tuning corpus's F1, which is what was watched while tuning. Each
SET_DIR, when given, is a further corpus (same layout, named by its
folder, scored with the article shingles) that no rule was chosen with:
it is measured held out from both development corpora at once. DEV_DIR, when given, is
a further development corpus in the same layout (one made by
newspaper_pages.py from newspaper's own test pages): its catastrophic
pages are counted with the others, but it is no held-out direction. The halves
of score_halves.py remain the second check; their catastrophic counts are
printed here too.

Catastrophic pages: the output shares almost nothing with the truth
(page F1 < 0.3) while the best other system gets 0.5 or more. Counted per
corpus and half for rypsok (against the better anchor) and for
trafilatura (against rypsok): the goal is no rypsok page, and fewer than
trafilatura's. Each of rypsok's is put in one failure class, measured on
the output alone (see `failure_class`). Page ids are never printed: they
are written to OUT_DIR/catastrophic-<set>.json, to be read only for the
corpus being tuned on.
"""
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from score_halves import half, load_evaluate, page_sets, wcxb_metric  # noqa: E402

SYSTEMS = (("rypsok", "{set}.json"), ("trafilatura", "trafilatura-{set}.json"),
           ("readability", "readability-{set}.json"))
DIRECTIONS = (("wcxb-dev", "articles"), ("articles", "wcxb-dev"))
FAIL_BELOW = 0.3
ANCHOR_AT_LEAST = 0.5

_WORD = re.compile(r"\w+")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
# A date or a time of day: digits grouped the way dates and clocks are.
_DATE = re.compile(r"\b(\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}|\d{1,2}:\d{2}|(19|20)\d{2})\b")


def blocks(markdown: str) -> list:
    """Blank-line separated blocks, and list items as blocks of their own."""
    out = []
    for para in re.split(r"\n\s*\n", markdown):
        lines = [ln for ln in para.splitlines() if ln.strip()]
        if lines and sum(ln.lstrip().startswith(("- ", "* ", "1")) for ln in lines) > 1:
            out.extend(lines)
        elif lines:
            out.append(" ".join(lines))
    return out


def failure_class(markdown: str, precision: float) -> str:
    """A failed output's class, from measurable properties of the output.

    empty: fewer than ten words. too-little: what is there is mostly the
    main text (precision >= 0.5), but far too little of it. link-list:
    half the words or more are link text (navigation, a link menu).
    dated-series: five blocks or more, a third of them carrying a date or a
    time, most of them short (a comment thread, a feed of dated items).
    teaser-list: five blocks or more, most short, a third or more of them
    led by a link or a heading (related posts, "more stories"). other-text:
    the rest (another part of the page's prose).
    """
    words = _WORD.findall(markdown)
    if len(words) < 10:
        return "empty"
    if precision >= 0.5:
        return "too-little"
    link_words = sum(len(_WORD.findall(t)) for t in _LINK.findall(markdown))
    if link_words >= 0.5 * len(words):
        return "link-list"
    bs = blocks(markdown)
    if len(bs) >= 5:
        short = sum(len(_WORD.findall(b)) <= 40 for b in bs) >= 0.5 * len(bs)
        dated = sum(bool(_DATE.search(b)) for b in bs)
        led = sum(b.lstrip("-*0123456789. ").startswith(("[", "#")) for b in bs)
        if short and dated >= len(bs) / 3:
            return "dated-series"
        if short and led >= len(bs) / 3:
            return "teaser-list"
    return "other-text"


def scored(ev, name, truth, pred):
    """(corpus F1, per-page scores) with the set's own metric."""
    if wcxb_metric(name):
        m, per_doc = ev.evaluate_wcxb(truth, pred, 0, 0)
    else:
        m, per_doc = ev.evaluate(truth, pred, 4, "word", 0, 0)
    return m["f1"], per_doc


def main() -> None:
    bench, out = Path(sys.argv[1]), Path(sys.argv[2])
    ev = load_evaluate(bench)
    scores, catastrophic = {}, {}
    directions = list(DIRECTIONS)
    args = sys.argv[3:]
    dev = [Path(p).name for p in args[args.index("--dev") + 1:]] if "--dev" in args else []
    extra = [a for a in args if a != "--dev"]
    for name, folder in page_sets(bench, extra):
        if name == "mixed":  # a subset of wcxb-dev/
            continue
        if name not in ("articles", "wcxb-dev") and name not in dev:
            directions.append(("wcxb-dev+articles", name))
        gt_path = folder / "ground-truth.json"
        if not gt_path.exists() or not (out / f"{name}.json").exists():
            continue
        truth = ev.load_truth(gt_path)
        raw, docs = {}, {}
        for system, pattern in SYSTEMS:
            path = out / pattern.format(set=name)
            if not path.exists():
                continue
            pred, _, _ = ev.load_prediction(path, truth.keys())
            raw[system] = pred
            stripped = {k: ev.strip_markdown_targets(v) for k, v in pred.items()}
            scores[(name, system)], docs[system] = scored(ev, name, truth, stripped)
        catastrophic[name] = count_catastrophic(name, truth, raw, docs, out)
    print_directions(scores, directions)
    print_catastrophic(catastrophic)


def count_catastrophic(name, truth, raw, docs, out):
    """Per half and whole: rypsok's catastrophic pages by class, and
    trafilatura's count against rypsok."""
    anchors = [s for s in ("trafilatura", "readability") if s in docs]
    result = {}
    ids = {}
    for part in ("A", "B", "all"):
        keys = [k for k in truth if part == "all" or half(k) == part]
        ours, theirs = {}, 0
        for k in keys:
            r = docs["rypsok"][k]
            best = max((docs[a][k]["f1"] for a in anchors), default=None)
            if best is not None and r["f1"] < FAIL_BELOW and best >= ANCHOR_AT_LEAST:
                cls = failure_class(raw["rypsok"][k], r["precision"])
                ours[cls] = ours.get(cls, 0) + 1
                if part == "all":
                    ids[k] = cls
            t = docs.get("trafilatura", {}).get(k)
            if t is not None and t["f1"] < FAIL_BELOW and r["f1"] >= ANCHOR_AT_LEAST:
                theirs += 1
        result[part] = (ours, theirs if "trafilatura" in docs else None)
    (out / f"catastrophic-{name}.json").write_text(json.dumps(ids, indent=1))
    return result


def print_directions(scores, directions):
    print("== cross-corpus F1 (tuned on one corpus, measured on the other; --strip-md)")
    print(f"   {'direction':<40} {'system':<12} {'tuned on':>9} {'measured':>9}")
    for tuned, measured in directions:
        for system, _ in SYSTEMS:
            if (measured, system) not in scores:
                continue
            t = scores.get((tuned, system))
            t_text = f"{t:9.3f}" if t is not None else f"{'-':>9}"
            print(f"   {tuned + ' -> ' + measured:<40} {system:<12} {t_text} "
                  f"{scores[(measured, system)]:9.3f}")


def print_catastrophic(catastrophic):
    print(f"== catastrophic pages (page F1 < {FAIL_BELOW} where the best other "
          f"system gets >= {ANCHOR_AT_LEAST})")
    print(f"   {'set':<17} {'part':<4} {'rypsok':>6} {'trafilatura':>11}  rypsok's classes")
    for name, parts in catastrophic.items():
        for part, (ours, theirs) in parts.items():
            classes = ", ".join(f"{c} {n}" for c, n in sorted(ours.items())) or "-"
            t_text = f"{theirs:11d}" if theirs is not None else f"{'-':>11}"
            print(f"   {name:<17} {part:<4} {sum(ours.values()):6d} {t_text}  {classes}")


if __name__ == "__main__":
    main()
