#!/usr/bin/env bash
# PDF benchmark (issue "PDF documents", item 7): word F1 of rypsok's text
# and of pypdf's against poppler's pdftotext as the reference, and CPU time
# per MB for all three (rypsok and pypdf: median of five passes; pdftotext:
# one pass, in processes), on every PDF of a directory.
#
# Usage: tests/bench/pdf.sh [PDF_DIR] [OUT_DIR]
#   Without PDF_DIR, 60 varied documents are generated with
#   tests/data/pdf/make.py --variants 60 (one or two columns, one to six
#   pages) plus the committed readable test documents; real documents are
#   better, when you have some whose licence allows it.
# Installs poppler-utils with apt-get when pdftotext is missing, and pypdf
# and fpdf2 in a venv under target/.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
out=${2:-target/bench-pdf}
mkdir -p "$out"

if ! command -v pdftotext >/dev/null; then
    apt-get update -qq && apt-get install -y -qq poppler-utils >/dev/null
fi
venv=target/pdf-venv
if ! "$venv/bin/python" -c 'import pypdf, fpdf' 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q pypdf fpdf2
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

rows = []
for f in files:
    ref = (out / "ref" / (f.stem + ".txt")).read_text(errors="replace")
    ours = (out / "rypsok" / (f.stem + ".txt")).read_text(errors="replace")
    theirs = (out / "pypdf" / (f.stem + ".txt")).read_text(errors="replace")
    rows.append((f.name, f1(ours, ref), f1(theirs, ref)))
with open(out / "f1.tsv", "w") as t:
    t.write("file\trypsok\tpypdf\n")
    for name, a, b in rows:
        t.write(f"{name}\t{a:.4f}\t{b:.4f}\n")
mean = lambda xs: sum(xs) / len(xs)
print(f"documents: {len(files)}, {mb:.2f} MB")
print(f"word F1 against pdftotext: rypsok mean {mean([r[1] for r in rows]):.4f} median {statistics.median([r[1] for r in rows]):.4f}; "
      f"pypdf mean {mean([r[2] for r in rows]):.4f} median {statistics.median([r[2] for r in rows]):.4f}")
print(f"CPU s per MB: pypdf {pypdf_cpu / mb:.3f} (median of 5 passes); pdftotext {poppler / mb:.3f} (one pass, process start included)")
PY
