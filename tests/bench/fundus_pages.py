#!/usr/bin/env python3
"""Builds an extraction corpus of news articles from Fundus's own parser
test pages, in the bench sets' layout, for a held-out measurement.

Usage: fundus_pages.py CHECKOUT OUT_SET_DIR

Provenance: the repository github.com/flairNLP/fundus (MIT License),
measured at commit 18da6e53592f99cf0ac5770dc63d6ba99ba63ae8. CHECKOUT is a
checkout (or `git archive` of tests/resources/parser/test_data) of that
repository; only tests/resources/parser/test_data/<country>/ is read:
<Publisher>_<date>.html.gz (a page of the publisher's, as crawled),
<Publisher>.json (what Fundus's parser for that publisher must return, one
entry per parser version, oldest first, each paired with the test page of
the same rank by crawl date, as Fundus's own test pairs them) and
meta.info (each page's address).

One page per publisher, its newest, so that no publisher's template is in
both halves of score_halves.py's split. A page is named
`<country>-<Publisher>`. The truth is the article's body as Fundus's
publisher-written parser reads it: the summary, then each section's
headline and paragraphs, in order, one block each. Pages whose truth has
fewer than 50 words are left out (this drops most pages in scripts without
spaces between words, whose runs of characters count as one word).
Nothing else is chosen.

Writes OUT_SET_DIR/html/<name>.html.gz, OUT_SET_DIR/ground-truth.json
(`{"<name>": {"articleBody": …, "url": …}}`, as articles/ has it) and
OUT_SET_DIR/metadata.json (page kind "article" and the provenance).
"""
import gzip
import json
import re
import sys
from pathlib import Path

REPOSITORY = "github.com/flairNLP/fundus"
COMMIT = "18da6e53592f99cf0ac5770dc63d6ba99ba63ae8"
LICENCE = "MIT"
MIN_WORDS = 50


def version_key(name: str) -> tuple:
    """V1 < V1_1 < V2: the parser versions in the order they were written."""
    return tuple(int(p) for p in re.findall(r"\d+", name))


def body_text(body: dict) -> str:
    blocks = list(body.get("summary") or [])
    for section in body.get("sections") or []:
        blocks += list(section.get("headline") or [])
        blocks += list(section.get("paragraphs") or [])
    return "\n\n".join(b.strip() for b in blocks if b.strip())


def main() -> None:
    checkout, out = Path(sys.argv[1]), Path(sys.argv[2])
    data = checkout / "tests" / "resources" / "parser" / "test_data"
    (out / "html").mkdir(parents=True, exist_ok=True)
    truth, meta, unpaired, short = {}, {}, 0, 0
    for country in sorted(p for p in data.iterdir() if p.is_dir()):
        info_path = country / "meta.info"
        info = json.loads(info_path.read_text(encoding="utf8")) if info_path.exists() else {}
        for expected in sorted(country.glob("*.json")):
            publisher = expected.stem
            versions = json.loads(expected.read_text(encoding="utf8"))
            pages = sorted(country.glob(f"{publisher}_????_??_??.html.gz"))
            if not pages or len(pages) != len(versions):
                unpaired += 1
                continue
            newest = versions[max(versions, key=version_key)]
            page = pages[-1]
            text = body_text(newest.get("body") or {})
            if len(re.findall(r"\w+", text)) < MIN_WORDS:
                short += 1
                continue
            name = f"{country.name}-{publisher}"
            (out / "html" / f"{name}.html.gz").write_bytes(
                gzip.compress(gzip.decompress(page.read_bytes()), mtime=0))
            url = info.get(page.name, {}).get("url", "")
            truth[name] = {"articleBody": text, "url": url}
            meta[name] = {"page_type": "article", "source": REPOSITORY,
                          "commit": COMMIT, "licence": LICENCE}
    (out / "ground-truth.json").write_text(json.dumps(truth, indent=1, ensure_ascii=False))
    (out / "metadata.json").write_text(json.dumps(meta, indent=1))
    print(f"{len(truth)} pages written; {unpaired} publishers without one test page per "
          f"version, {short} with fewer than {MIN_WORDS} words of truth left out")


if __name__ == "__main__":
    main()
