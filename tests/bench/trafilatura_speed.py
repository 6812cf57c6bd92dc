#!/usr/bin/env python3
"""Measures trafilatura on the same pages as rypsok's extraction benchmark.

Usage: trafilatura_speed.py BENCH_DIR OUT_DIR

Reads the pages of BENCH_DIR/{articles,mixed} into memory, times one pass of
trafilatura.extract (plain text, as in the bench anchors) over each set in
CPU time (as bench_extract does: a shared machine's clock counts other
processes' turns too),
writes its predictions to OUT_DIR/trafilatura-<set>.json and prints one line
per set in the same shape as bench_extract.
"""
import gzip
import json
import sys
import time
from pathlib import Path

import trafilatura


def main() -> None:
    bench, out = Path(sys.argv[1]), Path(sys.argv[2])
    for name in ("articles", "mixed"):
        truth = json.loads((bench / name / "ground-truth.json").read_text())
        pages = []
        for pid, v in truth.items():
            body = gzip.decompress((bench / name / "html" / f"{pid}.html.gz").read_bytes())
            pages.append((pid, v.get("url", ""), body))
        size = sum(len(b) for _, _, b in pages) / 1e6
        preds = {}
        start = time.process_time()
        for pid, url, body in pages:
            text = trafilatura.extract(body, url=url or None)
            preds[pid] = {"articleBody": text or ""}
        secs = time.process_time() - start
        (out / f"trafilatura-{name}.json").write_text(json.dumps(preds))
        print(f"{name}: {len(pages)} pages, {size:.1f} MB, {len(pages) / secs:.0f} pages/s, "
              f"{size / secs:.1f} MB/s (CPU time, one pass)")


if __name__ == "__main__":
    main()
