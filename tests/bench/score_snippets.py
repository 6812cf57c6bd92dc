#!/usr/bin/env python3
"""Scores a snippet corpus (one made by trafilatura_pages.py): for each
system, whether each page's passages that belong to the main text
("with") are in its output and those that do not ("without") are not.

Usage: score_snippets.py BENCH_DIR OUT_DIR SET_DIR

OUT_DIR holds <set>.json (rypsok) and, where the anchors ran,
trafilatura-<set>.json and readability-<set>.json, as extract.sh writes
them. Outputs are read as the bench's evaluate.py reads them (Markdown
link targets stripped) and cut into its words (so that Markdown's
emphasis marks and the plain text of the anchors compare alike); a
passage counts as found where its words, joined by single spaces, are
in the output's (a passage may start or end inside a word).

Printed per system: precision, recall and F1 over passages (a "with"
passage found is a true positive, one missing a false negative, a
"without" passage found a false positive), accuracy over all passages,
and the pages where none of the "with" passages is found (the wrong part
of the page, or nothing), with how many of those the best other system
reads at least half of.
"""
import json
import sys
from pathlib import Path

from score_halves import load_evaluate

SYSTEMS = (("rypsok", "{}.json"), ("trafilatura", "trafilatura-{}.json"),
           ("readability", "readability-{}.json"))


def words(ev, text: str) -> str:
    """The text's words, separated by single spaces."""
    return " ".join(ev.tokenize(text, "word"))


def found(ev, pred: dict, truth: dict) -> dict:
    """Per page: (with found, with total, without found, without total).
    A passage may start or end inside a word; one without words (a
    smiley) is left out."""
    out = {}
    for name, t in truth.items():
        text = pred.get(name, "")
        with_ = [p for p in (words(ev, s) for s in t["with"]) if p]
        without = [p for p in (words(ev, s) for s in t["without"]) if p]
        out[name] = (sum(p in text for p in with_), len(with_),
                     sum(p in text for p in without), len(without))
    return out


def main() -> None:
    bench, out, folder = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
    ev = load_evaluate(bench)
    name = folder.name
    truth = json.loads((folder / "ground-truth.json").read_text(encoding="utf8"))
    results = {}
    for system, pattern in SYSTEMS:
        path = out / pattern.format(name)
        if not path.exists():
            continue
        raw = json.loads(path.read_text(encoding="utf8"))
        pred = {}
        for k, v in raw.items():
            body = v.get("articleBody") if isinstance(v, dict) else v
            pred[k] = words(ev, ev.strip_markdown_targets(body or ""))
        results[system] = found(ev, pred, truth)
    print(f"== snippets, {name}: {len(truth)} pages "
          "(passages found; precision and recall over passages)")
    print(f"   {'system':12} {'P':>6} {'R':>6} {'F1':>6} {'acc':>6}  none found (best other >= half)")
    for system, res in results.items():
        tp = sum(r[0] for r in res.values())
        fn = sum(r[1] - r[0] for r in res.values())
        fp = sum(r[2] for r in res.values())
        tn = sum(r[3] - r[2] for r in res.values())
        p = tp / max(tp + fp, 1)
        r = tp / max(tp + fn, 1)
        f = 2 * p * r / max(p + r, 1e-9)
        acc = (tp + tn) / max(tp + fn + fp + tn, 1)
        none = [k for k, x in res.items() if x[1] and x[0] == 0]
        others = [o for s, o in results.items() if s != system]
        rescued = sum(any(2 * o[k][0] >= o[k][1] for o in others) for k in none)
        print(f"   {system:12} {p:6.3f} {r:6.3f} {f:6.3f} {acc:6.3f}  {len(none):4d} ({rescued})")


if __name__ == "__main__":
    main()
