#!/usr/bin/env python3
"""Builds a third extraction corpus from Mozilla Readability's own test
pages, in the bench sets' layout, for a held-out measurement.

Usage: readability_pages.py CHECKOUT OUT_SET_DIR

Provenance: the repository github.com/mozilla/readability (Apache License
2.0), measured at commit ab4027a8b37669745016869a37a504727992b2ba. CHECKOUT
is a checkout (or `git archive` of test/test-pages) of that repository;
only test/test-pages/<name>/source.html (the page) and expected.html (the
text Readability is expected to return, used as the truth) are read.

Writes OUT_SET_DIR/html/<name>.html.gz, OUT_SET_DIR/ground-truth.json
(`{"<name>": {"articleBody": …, "url": …}}`, as articles/ and wcxb-dev/
have it) and OUT_SET_DIR/metadata.json (page kind "article" and the
provenance). The truth is expected.html's text: block elements end a
paragraph, line breaks end a line, list items are lines of their own.
Pages whose truth has fewer than 50 words are left out (the repository
also holds small pages that each test one cleaning feature; they are no
pages a reader meets). Nothing else is chosen: every remaining page is
kept, and no page's output is looked at to choose a rule.

The pages are Readability's own test pages: Readability's expected output
is the truth, so an anchor built on its algorithm (readability-lxml) is
measured on pages its family was developed against, to its advantage.
"""
import gzip
import json
import re
import sys
from html.parser import HTMLParser
from pathlib import Path

REPOSITORY = "github.com/mozilla/readability"
COMMIT = "ab4027a8b37669745016869a37a504727992b2ba"
LICENCE = "Apache-2.0"
URL = "http://fakehost/test/page.html"  # the base URL Readability's tests use
MIN_WORDS = 50

BLOCK = {"p", "div", "section", "article", "main", "header", "footer", "aside",
         "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre", "table", "tr",
         "ul", "ol", "dl", "figure", "figcaption", "form", "hr", "nav"}
LINE = {"br", "li", "dt", "dd", "td", "th"}
SKIP = {"script", "style", "template"}


class Text(HTMLParser):
    """Text of an HTML fragment, with paragraph and line breaks."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts, self.skip = [], 0

    def handle_starttag(self, tag, attrs):
        if tag in SKIP:
            self.skip += 1
        elif tag in BLOCK:
            self.parts.append("\n\n")
        elif tag in LINE:
            self.parts.append("\n")

    def handle_endtag(self, tag):
        if tag in SKIP:
            self.skip = max(0, self.skip - 1)
        elif tag in BLOCK:
            self.parts.append("\n\n")

    def handle_data(self, data):
        if not self.skip:
            self.parts.append(data)

    def text(self) -> str:
        raw = "".join(self.parts)
        paras = []
        for para in re.split(r"\n\s*\n", raw):
            lines = [" ".join(ln.split()) for ln in para.split("\n")]
            para = "\n".join(ln for ln in lines if ln)
            if para:
                paras.append(para)
        return "\n\n".join(paras)


def html_text(html: str) -> str:
    parser = Text()
    parser.feed(html)
    parser.close()
    return parser.text()


def main() -> None:
    checkout, out = Path(sys.argv[1]), Path(sys.argv[2])
    pages = checkout / "test" / "test-pages"
    (out / "html").mkdir(parents=True, exist_ok=True)
    truth, meta, dropped = {}, {}, 0
    for page in sorted(p for p in pages.iterdir() if p.is_dir()):
        source, expected = page / "source.html", page / "expected.html"
        if not source.exists() or not expected.exists():
            continue
        body = html_text(expected.read_text(encoding="utf8"))
        if len(re.findall(r"\w+", body)) < MIN_WORDS:
            dropped += 1
            continue
        (out / "html" / f"{page.name}.html.gz").write_bytes(
            gzip.compress(source.read_bytes(), mtime=0))
        truth[page.name] = {"articleBody": body, "url": URL}
        meta[page.name] = {"page_type": "article", "source": REPOSITORY,
                           "commit": COMMIT, "licence": LICENCE}
    (out / "ground-truth.json").write_text(json.dumps(truth, indent=1, ensure_ascii=False))
    (out / "metadata.json").write_text(json.dumps(meta, indent=1))
    print(f"{len(truth)} pages written, {dropped} with fewer than {MIN_WORDS} words of truth left out")


if __name__ == "__main__":
    main()
