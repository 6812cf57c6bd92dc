#!/usr/bin/env python3
"""Measures the anchors on the same pages as rypsok's extraction benchmark.

Usage: trafilatura_speed.py BENCH_DIR OUT_DIR [SET_DIR...]

Reads the pages of BENCH_DIR/{articles,mixed,wcxb-dev} (those present) and
of each SET_DIR (further sets in the same layout, named by their folders) into
memory, times five passes of trafilatura.extract (plain text, as in the
bench anchors; TRAFILATURA_PASSES=N sets the number) over each set in CPU
time (as bench_extract does: a shared machine's clock counts other
processes' turns too), writes its predictions to
OUT_DIR/trafilatura-<set>.json and prints one line per set in the same shape
as bench_extract, with the median pass. Where readability-lxml is
installed, it does the same in one pass on each set (its text, from the
HTML it returns), writing OUT_DIR/readability-<set>.json.
"""
import gzip
import json
import os
import statistics
import sys
import time
from pathlib import Path

import trafilatura

try:
    import lxml.html
    from readability import Document
except ImportError:
    Document = None


def readability_text(body: bytes) -> str:
    html = Document(body).summary(html_partial=True)
    return lxml.html.fromstring(html).text_content() if html.strip() else ""


def main() -> None:
    bench, out = Path(sys.argv[1]), Path(sys.argv[2])
    passes = max(1, int(os.environ.get("TRAFILATURA_PASSES", "5")))
    dirs = [bench / name for name in ("articles", "mixed", "wcxb-dev")]
    dirs += [Path(p) for p in sys.argv[3:]]
    for folder in dirs:
        name = folder.name
        if not (folder / "ground-truth.json").exists():
            continue
        truth = json.loads((folder / "ground-truth.json").read_text())
        pages = []
        for pid, v in truth.items():
            body = gzip.decompress((folder / "html" / f"{pid}.html.gz").read_bytes())
            pages.append((pid, v.get("url", ""), body))
        size = sum(len(b) for _, _, b in pages) / 1e6
        preds = {}
        times = []
        for _ in range(passes):
            start = time.process_time()
            for pid, url, body in pages:
                text = trafilatura.extract(body, url=url or None)
                preds[pid] = {"articleBody": text or ""}
            times.append(time.process_time() - start)
        secs = statistics.median(times)
        (out / f"trafilatura-{name}.json").write_text(json.dumps(preds))
        print(f"{name}: {len(pages)} pages, {size:.1f} MB, {len(pages) / secs:.0f} pages/s, "
              f"{size / secs:.1f} MB/s (CPU time, median of {passes})")
        if Document is not None:
            preds = {}
            start = time.process_time()
            for pid, _, body in pages:
                try:
                    preds[pid] = {"articleBody": readability_text(body)}
                except Exception:  # an anchor that fails on a page scores it empty
                    preds[pid] = {"articleBody": ""}
            secs = time.process_time() - start
            (out / f"readability-{name}.json").write_text(json.dumps(preds))
            print(f"readability {name}: {len(pages)} pages, {size:.1f} MB, "
                  f"{len(pages) / secs:.0f} pages/s, {size / secs:.1f} MB/s (CPU time, one pass)")


if __name__ == "__main__":
    main()
