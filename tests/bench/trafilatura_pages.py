#!/usr/bin/env python3
"""Builds a development corpus from trafilatura's own evaluation pages, in
the bench sets' layout, with snippets as its truth.

Usage: trafilatura_pages.py CHECKOUT OUT_SET_DIR

Provenance: the repository github.com/adbar/trafilatura (Apache License
2.0), at commit e90b0ef51ab026fdb905fb6c5b3c84dd3d784fd5. CHECKOUT is a
checkout (or `git archive` of tests/) of that repository; only
tests/evaldata.json (per page: a few passages the main text holds, "with",
and a few it must leave out, "without") and the pages it names, under
tests/eval/ or tests/cache/, are read.

Writes OUT_SET_DIR/html/<name>.html.gz, OUT_SET_DIR/ground-truth.json
(`{"<name>": {"url": …, "with": […], "without": […]}}`) and
OUT_SET_DIR/metadata.json (the provenance). score_snippets.py scores it.
Every page evaldata.json names and the checkout holds is kept.

The pages are trafilatura's own evaluation pages, on which its rules were
chosen, so trafilatura is measured on its home ground here. The corpus is
for development (a rule may be chosen with it), not for a held-out figure.
"""
import gzip
import json
import sys
from pathlib import Path

REPOSITORY = "github.com/adbar/trafilatura"
COMMIT = "e90b0ef51ab026fdb905fb6c5b3c84dd3d784fd5"
LICENCE = "Apache-2.0"


def main() -> None:
    checkout, out = Path(sys.argv[1]), Path(sys.argv[2])
    tests = checkout / "tests"
    data = json.loads((tests / "evaldata.json").read_text(encoding="utf8"))
    (out / "html").mkdir(parents=True, exist_ok=True)
    truth, meta, missing = {}, {}, 0
    for key, entry in data.items():
        page = next((p for p in (tests / d / entry["file"] for d in ("eval", "cache"))
                     if p.exists()), None)
        if page is None:
            missing += 1
            continue
        name = Path(entry["file"]).stem
        (out / "html" / f"{name}.html.gz").write_bytes(
            gzip.compress(page.read_bytes(), mtime=0))
        # Some keys name the page's file, not its address.
        url = key if key.startswith(("http://", "https://")) else ""
        truth[name] = {"url": url, "with": entry.get("with", []),
                       "without": entry.get("without", [])}
        meta[name] = {"source": REPOSITORY, "commit": COMMIT, "licence": LICENCE}
    (out / "ground-truth.json").write_text(
        json.dumps(truth, indent=1, ensure_ascii=False), encoding="utf8")
    (out / "metadata.json").write_text(json.dumps(meta, indent=1), encoding="utf8")
    print(f"{len(truth)} pages written, {missing} named but not in the checkout")


if __name__ == "__main__":
    main()
