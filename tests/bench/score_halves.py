#!/usr/bin/env python3
"""Scores the extraction benchmark's predictions on two fixed halves of
each page set, so that a rule chosen on one half is checked on the other.

Usage: score_halves.py BENCH_DIR OUT_DIR [SET_DIR]

The split: a page belongs to half A when the first byte of the SHA-256 of
its id (the ground truth's key, as UTF-8) is even, else to half B. Rules
are chosen on A; B is held apart and only measured. The rule names no page
and does not change when pages are added.

For each set (articles/, mixed/, wcxb-dev/, and SET_DIR: a further set
in the same layout, named by its folder, scored like articles/) and each
system whose
predictions OUT_DIR holds (rypsok: <set>.json; trafilatura:
trafilatura-<set>.json; readability: readability-<set>.json), prints F1 on
half A, half B and the whole set, with the set's own metric: the article
benchmark's 4-word shingles for articles/ and SET_DIR, WCXB's word F1 for
mixed/ and wcxb-dev/, all with --strip-md. For the WCXB sets it also prints F1 by page kind and
half. The scoring functions are BENCH_DIR/evaluate.py's own.
"""
import hashlib
import importlib.util
import json
import statistics
import sys
from pathlib import Path

SYSTEMS = (("rypsok", "{set}.json"), ("trafilatura", "trafilatura-{set}.json"),
           ("readability", "readability-{set}.json"))


def half(page_id: str) -> str:
    return "A" if hashlib.sha256(page_id.encode()).digest()[0] % 2 == 0 else "B"


def page_sets(bench: Path, extra) -> list:
    """(name, folder) of each set: the bench folder's, then the extra ones."""
    named = [(name, bench / name) for name in ("articles", "mixed", "wcxb-dev")]
    return named + [(Path(p).name, Path(p)) for p in extra]


def wcxb_metric(name: str) -> bool:
    """WCXB's word F1 for the WCXB sets; the article shingles for the rest."""
    return name in ("mixed", "wcxb-dev")


def load_evaluate(bench: Path):
    spec = importlib.util.spec_from_file_location("evaluate", bench / "evaluate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> None:
    bench, out = Path(sys.argv[1]), Path(sys.argv[2])
    ev = load_evaluate(bench)
    for name, folder in page_sets(bench, sys.argv[3:]):
        gt_path = folder / "ground-truth.json"
        if not gt_path.exists() or not (out / f"{name}.json").exists():
            continue
        raw = json.loads(gt_path.read_text(encoding="utf8"))
        truth = ev.load_truth(gt_path)
        kinds = {k: v.get("page_type", "") for k, v in raw.items()}
        halves = {h: {k: t for k, t in truth.items() if half(k) == h} for h in "AB"}
        wcxb = wcxb_metric(name)
        print(f"== F1, {name} ({'wcxb word F1' if wcxb else 'shingles'}, --strip-md): "
              f"A {len(halves['A'])} pages, B {len(halves['B'])} pages")
        print(f"   {'system':<12} {'half A':>7} {'half B':>7} {'all':>7}")
        per_kind = {}
        for system, pattern in SYSTEMS:
            path = out / pattern.format(set=name)
            if not path.exists():
                continue
            pred, _, _ = ev.load_prediction(path, truth.keys())
            pred = {k: ev.strip_markdown_targets(v) for k, v in pred.items()}
            scores = []
            for part in (halves["A"], halves["B"], truth):
                p = {k: pred[k] for k in part}
                if wcxb:
                    m, per_doc = ev.evaluate_wcxb(part, p, 0, 0)
                else:
                    m, per_doc = ev.evaluate(part, p, 4, "word", 0, 0)
                scores.append(m["f1"])
            print(f"   {system:<12} {scores[0]:7.3f} {scores[1]:7.3f} {scores[2]:7.3f}")
            if wcxb:
                for k, d in per_doc.items():
                    per_kind.setdefault((kinds[k], system), {"A": [], "B": []})[half(k)].append(d["f1"])
        if per_kind:
            print(f"   by kind      {'A':>7} {'B':>7}")
            for (kind, system), f1s in sorted(per_kind.items()):
                a = statistics.mean(f1s["A"]) if f1s["A"] else float("nan")
                b = statistics.mean(f1s["B"]) if f1s["B"] else float("nan")
                print(f"   {kind[:13]:<13} {system[:11]:<11} {a:7.3f} {b:7.3f}"
                      f"  (n={len(f1s['A'])}/{len(f1s['B'])})")


if __name__ == "__main__":
    main()
