#!/usr/bin/env python3
"""Builds an extraction corpus of news articles from newspaper's own test
pages, in the bench sets' layout.

Usage: newspaper_pages.py CHECKOUT OUT_SET_DIR

Provenance: the repository github.com/codelucas/newspaper (MIT License),
measured at commit 1618b547f31c2d1fd19ae3b6afd8f7542dd02074. CHECKOUT is a
checkout (or `git archive` of tests/data) of that repository; only
tests/data/fulltext_url_list.txt (each page's address), html/<name>.html
(the page) and text/<name>.txt (the article's text newspaper's full-text
test expects, used as the truth) are read. A page's name is its address's
domain and its place among that domain's addresses in the list (the
repository's own test names them so: `nytimes.com1`).

Writes OUT_SET_DIR/html/<name>.html.gz, OUT_SET_DIR/ground-truth.json
(`{"<name>": {"articleBody": …, "url": …}}`, as articles/ has it) and
OUT_SET_DIR/metadata.json (page kind "article" and the provenance). Pages
whose truth has fewer than 50 words are left out. Nothing else is chosen.

The truth is an article extractor's expected output (newspaper's full
text, mostly the article's paragraphs), so it reads an article's body
narrowly: a system that also returns the text's headings, lists and
image descriptions loses some precision.
"""
import gzip
import json
import re
import sys
from pathlib import Path
from urllib.parse import urlsplit

REPOSITORY = "github.com/codelucas/newspaper"
COMMIT = "1618b547f31c2d1fd19ae3b6afd8f7542dd02074"
LICENCE = "MIT"
MIN_WORDS = 50
# Public suffixes of two labels among the list's addresses.
TWO_LABEL_SUFFIXES = ("co.uk", "com.au")


def base_domain(url: str) -> str:
    host = urlsplit(url).hostname or ""
    labels = host.split(".")
    keep = 3 if ".".join(labels[-2:]) in TWO_LABEL_SUFFIXES else 2
    return ".".join(labels[-keep:])


def main() -> None:
    checkout, out = Path(sys.argv[1]), Path(sys.argv[2])
    data = checkout / "tests" / "data"
    urls = [u.strip() for u in (data / "fulltext_url_list.txt").read_text().splitlines() if u.strip()]
    (out / "html").mkdir(parents=True, exist_ok=True)
    truth, meta, missing, short = {}, {}, 0, 0
    seen = {}
    for url in urls:
        domain = base_domain(url)
        seen[domain] = seen.get(domain, 0) + 1
        name = f"{domain}{seen[domain]}"
        page, text = data / "html" / f"{name}.html", data / "text" / f"{name}.txt"
        if not page.exists() or not text.exists():
            missing += 1
            continue
        body = text.read_text(encoding="utf8", errors="replace").strip()
        if len(re.findall(r"\w+", body)) < MIN_WORDS:
            short += 1
            continue
        (out / "html" / f"{name}.html.gz").write_bytes(gzip.compress(page.read_bytes(), mtime=0))
        truth[name] = {"articleBody": body, "url": url}
        meta[name] = {"page_type": "article", "source": REPOSITORY,
                      "commit": COMMIT, "licence": LICENCE}
    (out / "ground-truth.json").write_text(json.dumps(truth, indent=1, ensure_ascii=False))
    (out / "metadata.json").write_text(json.dumps(meta, indent=1))
    print(f"{len(truth)} pages written; {missing} listed without a page or a text, "
          f"{short} with fewer than {MIN_WORDS} words of truth left out")


if __name__ == "__main__":
    main()
