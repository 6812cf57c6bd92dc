#!/usr/bin/env bash
# PDF benchmark (issue "PDF documents", item 7): word F1 of rypsok's text
# and of pypdf's against poppler's pdftotext as the reference, and CPU time
# per MB for all three (rypsok and pypdf: median of five passes; pdftotext:
# one pass, in processes), on every PDF of a directory. A document from
# which pdftotext reads no word (no text layer, a password) is timed but
# not scored.
#
# Usage: tests/bench/pdf.sh [PDF_DIR] [OUT_DIR]
#   PDF_DIR: the documents to measure. The figures in worker-parse/PDF.md
#   were taken on 87 real documents (17.9 MB), not committed, assembled
#   from four repositories' files at these commits:
#     py-pdf/sample-files 6921079eb3e1ed0944db5ec75016910d59da7fdb: every
#       *.pdf (31, CC-BY-SA-4.0), prefixed sf-;
#     pdf-rs/pdf 5dea68f36a26efab80e15eeb180de0966a578331: every *.pdf
#       outside files/invalid/ (23, MIT), prefixed pdfrs-;
#     J-F-Liu/lopdf 675f451615b38c452ee769a0516478d9fb4db9f7: every *.pdf
#       under assets/ that is stored in the repository (4, MIT), prefixed
#       lopdf-;
#     mozilla/pdf.js 0f26334f9d6f96119f6e5164fb65832fbbde7344: the *.pdf
#       committed under test/pdfs/ of 20 KB to 1.5 MB from which pdftotext
#       reads at least 300 words, one of each group of copies (word counts
#       within 3 of each other: the tracemonkey paper is there seven
#       times), 29 files, prefixed pdfjs-. These are used for measuring
#       only: several are attachments of bug reports whose own licence
#       the repository does not state.
#   Without PDF_DIR, 60 generated documents (tests/data/pdf/make.py
#   --variants 60: one or two columns, one to six pages) plus the committed
#   readable test documents.
# Installs poppler-utils with apt-get when pdftotext is missing, and pypdf
# with cryptography (so that pypdf reads AES-encrypted documents as rypsok
# does) and fpdf2, all pinned, in a venv under target/.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
out=${2:-target/bench-pdf}
mkdir -p "$out"

if ! command -v pdftotext >/dev/null; then
    apt-get update -qq && apt-get install -y -qq poppler-utils >/dev/null
fi
venv=target/pdf-venv
if ! "$venv/bin/python" -c 'import pypdf, fpdf, cryptography; assert pypdf.__version__ == "7.1.1"' 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q pypdf==7.1.1 cryptography==50.0.2 fpdf2==2.8.9
fi
py=$venv/bin/python

if [ $# -ge 1 ]; then
    pdfs=$(cd "$1" && pwd)
else
    pdfs=$out/pdfs
    mkdir -p "$pdfs"
    "$py" tests/data/pdf/make.py "$pdfs" --variants 60
    for f in two-page thirty-page two-columns table-footnote scripts running-heads; do
        cp "tests/data/pdf/$f.pdf" "$pdfs/"
    done
fi

cargo build --release --locked -p rypsok-worker-parse --example bench_pdf
mkdir -p "$out/ref" "$out/rypsok" "$out/pypdf"
target/release/examples/bench_pdf "$pdfs" "$out/rypsok" | tee "$out/rypsok-speed.txt"
"$py" - "$pdfs" "$out" <<'PY'
import os, re, resource, subprocess, sys, statistics
from pathlib import Path
import pypdf

pdfs, out = Path(sys.argv[1]), Path(sys.argv[2])
files = sorted(pdfs.glob("*.pdf"))
mb = sum(f.stat().st_size for f in files) / 1e6

def cpu_children():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime

def cpu_self():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime

start = cpu_children()
for f in files:
    subprocess.run(["pdftotext", "-q", "-enc", "UTF-8", str(f), str(out / "ref" / (f.stem + ".txt"))], check=False)
poppler = cpu_children() - start

def pypdf_text(f):
    try:
        return "\n".join(p.extract_text() or "" for p in pypdf.PdfReader(str(f)).pages)
    except Exception:
        return ""

for f in files:
    (out / "pypdf" / (f.stem + ".txt")).write_text(pypdf_text(f))
passes = []
for _ in range(5):
    start = cpu_self()
    for f in files:
        pypdf_text(f)
    passes.append(cpu_self() - start)
pypdf_cpu = statistics.median(passes)

# Words as pdftotext's reference has them: ligatures spelt out, a word
# hyphenated at a line end joined, case kept, punctuation stripped.
LIG = {"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl"}
def words(text):
    for k, v in LIG.items():
        text = text.replace(k, v)
    text = re.sub(r"(\w)-\s*\n\s*(\w)", r"\1\2", text)
    return [w for w in (re.sub(r"^\W+|\W+$", "", t) for t in text.split()) if w]

def f1(pred, ref):
    from collections import Counter
    p, r = Counter(words(pred)), Counter(words(ref))
    common = sum((p & r).values())
    if not p or not r:
        return 1.0 if p == r else 0.0
    prec, rec = common / sum(p.values()), common / sum(r.values())
    return 0.0 if common == 0 else 2 * prec * rec / (prec + rec)

def text(path):
    return path.read_text(errors="replace") if path.exists() else ""

# A document pdftotext reads no word of (no text layer, a password) has
# no reference: it is timed but not scored.
rows, unscored = [], 0
for f in files:
    ref = text(out / "ref" / (f.stem + ".txt"))
    if not words(ref):
        unscored += 1
        continue
    ours = text(out / "rypsok" / (f.stem + ".txt"))
    theirs = text(out / "pypdf" / (f.stem + ".txt"))
    rows.append((f.name, f1(ours, ref), f1(theirs, ref)))
with open(out / "f1.tsv", "w") as t:
    t.write("file\trypsok\tpypdf\n")
    for name, a, b in rows:
        t.write(f"{name}\t{a:.4f}\t{b:.4f}\n")
mean = lambda xs: sum(xs) / len(xs)
print(f"documents: {len(files)}, {mb:.2f} MB; scored: {len(rows)} ({unscored} without reference text)")
print(f"word F1 against pdftotext: rypsok mean {mean([r[1] for r in rows]):.4f} median {statistics.median([r[1] for r in rows]):.4f}; "
      f"pypdf mean {mean([r[2] for r in rows]):.4f} median {statistics.median([r[2] for r in rows]):.4f}")
print(f"CPU s per MB: pypdf {pypdf_cpu / mb:.3f} (median of 5 passes); pdftotext {poppler / mb:.3f} (one pass, process start included)")
PY
