#!/usr/bin/env bash
# Extraction benchmark (PERF-4): rypsok's page reader over the bench page
# sets, scored by the sets' own evaluate.py, with throughput; and, where a
# Python with trafilatura is available, trafilatura on the same pages.
#
# Usage: tests/bench/extract.sh BENCH_DIR [OUT_DIR]
#   BENCH_DIR holds articles/, mixed/ and evaluate.py.
#   TRAFILATURA_PYTHON (default target/bench-venv/bin/python) is the
#   interpreter to time trafilatura with; set it up once with
#     python3 -m venv target/bench-venv
#     target/bench-venv/bin/pip install trafilatura lxml_html_clean
set -euo pipefail
bench=$(cd "$1" && pwd)
out=${2:-target/bench-extract}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"

cargo build --release --locked -p rypsok-worker-parse --example bench_extract
echo "== rypsok (Markdown, CPU time, median of 9 passes)"
target/release/examples/bench_extract "$bench" "$out" | tee "$out/rypsok-speed.txt"

echo "== F1, articles (--strip-md)"
python3 "$bench/evaluate.py" --strip-md \
    --ground-truth "$bench/articles/ground-truth.json" "$out/articles.json" | tail -n 1
echo "== F1, mixed (--strip-md --metric wcxb), per page kind"
python3 "$bench/evaluate.py" --strip-md --metric wcxb --per-type \
    --ground-truth "$bench/mixed/ground-truth.json" "$out/mixed.json" | tail -n 2

py=${TRAFILATURA_PYTHON:-target/bench-venv/bin/python}
if [ -x "$py" ] && "$py" -c 'import trafilatura' 2>/dev/null; then
    echo "== trafilatura (plain text, CPU time, one pass)"
    "$py" "$here/trafilatura_speed.py" "$bench" "$out" | tee "$out/trafilatura-speed.txt"
    echo "== speed ratio (MB/s, rypsok / trafilatura)"
    paste -d' ' <(grep -o '[0-9.]* MB/s' "$out/rypsok-speed.txt" | cut -d' ' -f1) \
                <(grep -o '[0-9.]* MB/s' "$out/trafilatura-speed.txt" | cut -d' ' -f1) |
        awk 'NR==1{s="articles"} NR==2{s="mixed"} {printf "%s: %.1fx\n", s, $1/$2}'
else
    echo "== trafilatura not found ($py): speed ratio skipped"
fi
