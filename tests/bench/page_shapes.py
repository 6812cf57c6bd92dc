"""Pages built to the shapes that make an extractor return the wrong part
of a page, with a known truth: a post (its paragraphs taken at random from
the article truths of a development corpus) set among a site's furniture
and the parts that take a short text's place (readers' comments, related
posts, a news site's rails of linked headlines, a sidebar, a footer, a
sign-up box, share and tag links); and, as the other side of the same
judgement, a forum's thread, whose replies are its text (set like its
question, or apart from it as comments are).

Usage: python3 tests/bench/page_shapes.py BENCH_DIR [--pages N] [--seed S]
                                          [--keep DIR]
  BENCH_DIR holds wcxb-dev/ (its ground-truth.json and metadata.json give
  the paragraphs). Builds the `extract_page` example, reads each page with
  it, and prints word F1 (precision, recall) against the truth, the pages
  under F1 0.3, and the same by the text's length, by the page's kind, by
  how the page names its blocks and by which parts it holds; beside
  trafilatura's figures on the same pages where TRAFILATURA_PYTHON
  (default target/bench-venv/bin/python, see extract.sh) has it.

Each page draws, with a seeded generator: its kind (a post, or one time in
five a thread: a question of one to four paragraphs and its dated
replies); whether its blocks are named by what they are ("comments",
"related") or by hashes as style tools write them; the post's wrapper
(`<article>`, `<main>`, both, a `<div>`, none); where its title heading is
(an `<h1>` or `<h2>` in the post, an `<h1>` before it, none); a logo
heading; the post's paragraphs (2 to 12, or set between line breaks); a
byline; and each part with its placement (comments inside the wrapper or
after it, dated with `<time>` or in text; related posts with or without
excerpts; rails before and after the post; the sidebar before or after
the post in the document). It measures a development figure: the shapes
are chosen, not sampled from the web, and the paragraphs come from a
development corpus.
"""

import argparse
import collections
import html
import json
import os
import random
import re
import subprocess
import sys
import tempfile

PARTS = ["comments", "related", "rails", "sidebar", "footer", "nav", "newsletter", "share", "tags"]
EXTRACT = "target/release/examples/extract_page"

# Reads each page named on stdin with trafilatura, its readers' comments
# left out as the truth leaves them (its default reads them); one JSON
# string per page on stdout.
ANCHOR = """
import json, sys, trafilatura
for path in sys.stdin.read().splitlines():
    text = trafilatura.extract(open(path).read(), include_comments=False) or ""
    print(json.dumps(text))
"""


def paragraphs(bench):
    """Paragraphs of the article truths: whole sentences, 60 to 900 bytes."""
    corpus = os.path.join(bench, "wcxb-dev")
    truth = json.load(open(os.path.join(corpus, "ground-truth.json")))
    meta = json.load(open(os.path.join(corpus, "metadata.json")))
    out = []
    for page, value in sorted(truth.items()):
        if meta[page]["page_type"] != "article":
            continue
        for p in value["articleBody"].split("\n"):
            p = p.strip()
            if 60 < len(p) < 900 and p.count(" ") > 8 and p[-1] in ".!?":
                out.append(p)
    return out


class Page:
    """One page's drawing: its features, HTML and truth."""

    def __init__(self, rng, pool):
        self.rng, self.pool = rng, pool
        self.hashes = {}
        f = self.features = {
            "named": rng.random() < 0.7,
            "wrap": rng.choice(["article", "main", "div", "main>article", "none"]),
            "title": rng.choice(["h1 in post", "h1 in post", "h1 before", "h2 in post", "none"]),
            "logo_h1": rng.random() < 0.4,
            "paragraphs": rng.choice([2, 3, 4, 5, 6, 8, 10, 12]),
            "breaks": rng.random() < 0.25,
            "byline": rng.random() < 0.6,
            "parts": [p for p in PARTS if rng.random() < 0.45],
            "sidebar_first": rng.random() < 0.3,
            "comments_inside": rng.random() < 0.5,
            "comments_timed": rng.random() < 0.7,
            "comments": rng.choice([3, 6, 12, 25]),
            "excerpts": rng.random() < 0.6,
            "related": rng.choice([3, 4, 6, 9]),
        }
        f["kind"] = "thread" if rng.random() < 0.2 else "post"
        self.title = self.phrase().title()
        self.post = [self.para() for _ in range(f["paragraphs"])]
        self.replies = []
        if f["kind"] == "thread":
            # A forum's question (short or long) and its replies, which are
            # the page's text too: set like the question or apart from it.
            self.post = self.post[: rng.choice([1, 2, 4])]
            f["alike"] = rng.random() < 0.5
            self.replies = [
                [self.para() for _ in range(rng.randint(1, 3))] for _ in range(rng.choice([2, 4, 8, 15]))
            ]
        self.html = self.build()
        self.truth = "\n\n".join(self.post + [p for r in self.replies for p in r])

    def para(self):
        return self.rng.choice(self.pool)

    def phrase(self):
        words = self.para().split()[: self.rng.randint(3, 9)]
        return " ".join(words).rstrip(".,;:")

    def cls(self, name):
        """The block's class: its name, or a hash fixed per page and name."""
        if self.features["named"]:
            return name
        return self.hashes.setdefault(name, "c%04x" % self.rng.randrange(65536))

    def links(self, prefix, n, text):
        return "".join(
            f'<li><a href="/{prefix}{k}">{html.escape(text())}</a></li>' for k in range(n)
        )

    def comments(self):
        f, e = self.features, html.escape
        items = []
        for k in range(f["comments"]):
            day = k % 28 + 1
            when = (
                f'<time datetime="2021-03-{day:02}">March {day}, 2021</time>'
                if f["comments_timed"]
                else f"<span>March {day}, 2021 at 1:00 pm</span>"
            )
            body = "".join(
                f"<p>{e(self.para()[: self.rng.randint(80, 400)])}</p>"
                for _ in range(self.rng.randint(1, 2))
            )
            items.append(
                f'<li class="{self.cls("comment")}"><div class="{self.cls("comment-meta")}">'
                f"<b>{e(self.phrase().split()[0])}</b> {when}</div>{body}"
                f'<a href="#r{k}">Reply</a></li>'
            )
        return (
            f'<div class="{self.cls("comments")}"><h3>{f["comments"]} Comments</h3>'
            f"<ol>{''.join(items)}</ol></div>"
        )

    def thread(self):
        """The replies: set like the question's text, or as comments."""
        f, e = self.features, html.escape
        items = []
        for k, reply in enumerate(self.replies):
            day = k % 28 + 1
            who = f'<div class="{self.cls("author")}"><b>{e(self.phrase().split()[0])}</b> <time datetime="2021-03-{day:02}">March {day}, 2021</time></div>'
            body = "".join(f"<p>{e(p)}</p>" for p in reply)
            if f["alike"]:
                items.append(f'<div class="{self.cls("post")}">{who}<div class="{self.cls("entry-content")}">{body}</div></div>')
            else:
                items.append(f'<li class="{self.cls("reply")}">{who}{body}<a href="#q{k}">Quote</a></li>')
        if f["alike"]:
            return "".join(items)
        return f'<div class="{self.cls("replies")}"><h3>{len(items)} replies</h3><ol>{"".join(items)}</ol></div>'

    def related(self):
        f, e = self.features, html.escape
        cards = "".join(
            f'<div class="{self.cls("card")}"><h4><a href="/r{k}">{e(self.phrase().title())}</a></h4>'
            + (f"<p>{e(self.para()[: self.rng.randint(100, 250)])}</p>" if f["excerpts"] else "")
            + "</div>"
            for k in range(f["related"])
        )
        return f'<section class="{self.cls("related")}"><h3>You may also like</h3>{cards}</section>'

    def rail(self, name):
        """A news site's rail of stories: headlines linked, some with a
        line of text, under a label."""
        e = html.escape
        stories = "".join(
            f'<div class="{self.cls("story")}"><h3><a href="/n{name}{k}">{e(self.phrase().title())}</a></h3>'
            + (f"<p>{e(self.para()[: self.rng.randint(80, 200)])}</p>" if self.rng.random() < 0.5 else "")
            + "</div>"
            for k in range(self.rng.randint(4, 8))
        )
        return f'<section class="{self.cls(name)}"><h2>{e(name.replace("-", " ").title())}</h2>{stories}</section>'

    def sidebar(self):
        tag = "aside" if self.rng.random() < 0.5 else "div"
        return (
            f'<{tag} class="{self.cls("sidebar")}"><div><h3>About</h3><p>{html.escape(self.para())}</p></div>'
            f'<div><h3>Popular</h3><ul>{self.links("p", 6, self.phrase)}</ul></div></{tag}>'
        )

    def build(self):
        f, e, parts = self.features, html.escape, self.features["parts"]
        out = [f"<html><head><meta charset=utf-8><title>{e(self.title)} | Example Site</title></head><body>"]
        logo = '<a href="/">Example Site</a>'
        out.append(f'<header class="{self.cls("site-header")}">')
        out.append(f'<h1 class="{self.cls("logo")}">{logo}</h1>' if f["logo_h1"] else logo)
        if "nav" in parts:
            out.append(f'<nav class="{self.cls("menu")}"><ul>{self.links("s", 10, lambda: self.phrase().split()[0])}</ul></nav>')
        out.append("</header>")
        post = []
        if f["title"] == "h1 in post":
            post.append(f"<h1>{e(self.title)}</h1>")
        if f["title"] == "h2 in post":
            post.append(f"<h2>{e(self.title)}</h2>")
        if f["byline"]:
            post.append(f'<div class="{self.cls("byline")}">By <a href="/author">{e(self.phrase().split()[0])}</a> · June 3, 2022</div>')
        if "share" in parts:
            post.append(f'<div class="{self.cls("share")}"><a href="/fb">Share</a> <a href="/tw">Tweet</a> <a href="/em">Email</a></div>')
        if f["breaks"]:
            body = "<br><br>".join(e(p) for p in self.post)
        else:
            body = "".join(f"<p>{e(p)}</p>" for p in self.post)
        post.append(f'<div class="{self.cls("entry-content")}">{body}</div>')
        if "tags" in parts:
            tags = ", ".join(f'<a href="/t{k}">{e(self.phrase().split()[0])}</a>' for k in range(5))
            post.append(f'<div class="{self.cls("tags")}">Tags: {tags}</div>')
        if "comments" in parts and f["comments_inside"] and f["kind"] == "post":
            post.append(self.comments())
        inner = "".join(post)
        wrapped = {
            "article": f"<article>{inner}</article>",
            "main": f"<main>{inner}</main>",
            "div": f'<div class="{self.cls("post")}">{inner}</div>',
            "main>article": f"<main><article>{inner}</article></main>",
            "none": inner,
        }[f["wrap"]]
        column = [f'<h1 class="{self.cls("page-title")}">{e(self.title)}</h1>'] if f["title"] == "h1 before" else []
        if "rails" in parts:
            column.insert(0, self.rail("top-stories"))
        column.append(wrapped)
        if f["kind"] == "thread":
            column.append(self.thread())
        elif "comments" in parts and not f["comments_inside"]:
            column.append(self.comments())
        if "related" in parts:
            column.append(self.related())
        if "rails" in parts:
            column.append(self.rail("latest-news"))
            column.append(self.rail("most-read"))
        if "newsletter" in parts:
            column.append(
                f'<div class="{self.cls("newsletter")}"><h3>Subscribe</h3><p>{e(self.para()[:200])}</p>'
                '<form><input type="email" placeholder="Email"><button>Sign up</button></form></div>'
            )
        column = f'<div class="{self.cls("content")}">{"".join(column)}</div>'
        if "sidebar" in parts:
            column = self.sidebar() + column if f["sidebar_first"] else column + self.sidebar()
        out.append(f'<div class="{self.cls("wrapper")}">{column}</div>')
        if "footer" in parts:
            out.append(
                f'<footer class="{self.cls("site-footer")}"><p>{e(self.para()[:160])}</p>'
                f'<ul>{self.links("f", 8, self.phrase)}</ul><p>© 2022 Example Site</p></footer>'
            )
        out.append("</body></html>")
        return "\n".join(out)


def words(text):
    return collections.Counter(re.findall(r"\w+", text.lower()))


def score(output, truth):
    """Word F1, precision and recall (bags of words, as WCXB scores)."""
    got, want = words(output), words(truth)
    common = sum((got & want).values())
    if not common:
        return 0.0, 0.0, 0.0
    p, r = common / sum(got.values()), common / sum(want.values())
    return 2 * p * r / (p + r), p, r


def anchor(paths):
    """Trafilatura's output for each page, or None where it is not installed."""
    python = os.environ.get("TRAFILATURA_PYTHON", "target/bench-venv/bin/python")
    if not os.path.exists(python):
        return None
    run = subprocess.run([python, "-c", ANCHOR], input="\n".join(paths), capture_output=True, text=True)
    if run.returncode != 0:
        return None
    return [json.loads(line) for line in run.stdout.splitlines()]


def report(label, rows):
    """rows: (rypsok's scores, trafilatura's scores or None) per page."""
    n = len(rows)
    if not n:
        return
    line = f"  {label:<24} {n:>4} pages"
    for at, name in [(0, "rypsok"), (1, "trafilatura")]:
        scores = [r[at] for r in rows if r[at] is not None]
        if len(scores) < n:
            continue
        f1 = sum(s[0] for s in scores) / n
        p = sum(s[1] for s in scores) / n
        rec = sum(s[2] for s in scores) / n
        bad = sum(s[0] < 0.3 for s in scores)
        line += f"  {name} F1 {f1:.3f} P {p:.3f} R {rec:.3f} <0.3: {bad:>2}"
    print(line)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("bench")
    ap.add_argument("--pages", type=int, default=500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep", help="write each page, its truth and the output here")
    args = ap.parse_args()
    pool = paragraphs(args.bench)
    subprocess.run(
        ["cargo", "build", "--release", "--locked", "-q", "-p", "rypsok-worker-parse", "--example", "extract_page"],
        check=True,
    )
    rng = random.Random(args.seed)
    keep = args.keep or tempfile.mkdtemp(prefix="page-shapes-")
    os.makedirs(keep, exist_ok=True)
    rows, paths, truths = [], [], []
    for i in range(args.pages):
        page = Page(rng, pool)
        path = os.path.join(keep, f"{i:04}.html")
        with open(path, "w") as f:
            f.write(page.html)
        with open(os.path.join(keep, f"{i:04}.txt"), "w") as f:
            f.write(page.truth)
        run = subprocess.run([EXTRACT, path], capture_output=True, text=True, check=True)
        # The example's first two lines are the title and the partial flag.
        output = run.stdout.split("\n", 3)[-1]
        with open(os.path.join(keep, f"{i:04}.out"), "w") as f:
            f.write(output)
        rows.append((score(output, page.truth), page.features, len(page.truth)))
        paths.append(path)
        truths.append(page.truth)
    texts = anchor(paths)
    rows = [
        ((ours, score(texts[i], truths[i]) if texts else None), f, n)
        for i, (ours, f, n) in enumerate(rows)
    ]
    print(f"page shapes: {args.pages} pages, seed {args.seed} (pages in {keep})")
    report("all", [r for r, _, _ in rows])
    print("by the text's length")
    for label, lo, hi in [("under 400 bytes", 0, 400), ("400 to 1000", 400, 1000), ("1000 and more", 1000, 10**9)]:
        report(label, [r for r, _, n in rows if lo <= n < hi])
    print("by the page's kind")
    report("a post", [r for r, f, _ in rows if f["kind"] == "post"])
    report("a thread", [r for r, f, _ in rows if f["kind"] == "thread"])
    report("  replies set like it", [r for r, f, _ in rows if f["kind"] == "thread" and f["alike"]])
    report("  replies set apart", [r for r, f, _ in rows if f["kind"] == "thread" and not f["alike"]])
    print("by the blocks' names")
    report("named by what they are", [r for r, f, _ in rows if f["named"]])
    report("named by hashes", [r for r, f, _ in rows if not f["named"]])
    print("by the parts the page holds")
    for part in PARTS:
        report(part, [r for r, f, _ in rows if part in f["parts"]])
    report("none", [r for r, f, _ in rows if not f["parts"]])
    return 0


if __name__ == "__main__":
    sys.exit(main())
