#!/usr/bin/env bash
# Extraction benchmark (PERF-4): rypsok's page reader over the bench page
# sets, scored by the sets' own evaluate.py on two fixed halves of each set
# (score_halves.py says how they are split), with throughput; and, where a
# Python with trafilatura (and readability-lxml) is available, the anchors
# on the same pages in the same run.
#
# Usage: tests/bench/extract.sh [--cross] [--third SET_DIR]... [--snippets SET_DIR]
#                               [--dev SET_DIR] BENCH_DIR [OUT_DIR]
#   BENCH_DIR holds articles/, mixed/, evaluate.py and optionally wcxb-dev/.
#   --cross also scores across corpora (score_cross.py): each direction's
#   held-out corpus (tuned on wcxb-dev/, measured on articles/, and the
#   other way round) beside the anchors of the same run, and the
#   catastrophic pages per corpus and half with their failure classes.
#   The anchors then run on every set, which takes a few minutes.
#   --third SET_DIR adds a third corpus in the same layout (one made by
#   readability_pages.py from Mozilla Readability's own test pages, or by
#   fundus_pages.py from Fundus's), read, scored and counted like the
#   others and measured held out from both development corpora; given
#   twice, two such corpora.
#   --snippets SET_DIR adds a development corpus whose truth is passages
#   each page's main text holds or leaves out (one made by
#   trafilatura_pages.py from trafilatura's own evaluation pages), scored
#   by score_snippets.py.
#   --dev SET_DIR adds a development corpus of news articles in the
#   articles' layout (one made by newspaper_pages.py from newspaper's own
#   test pages), scored by halves like articles/ and counted for
#   catastrophic pages, but no held-out direction.
#   TRAFILATURA_PYTHON (default target/bench-venv/bin/python) is the
#   interpreter to time the anchors with; set it up once with
#     python3 -m venv target/bench-venv
#     target/bench-venv/bin/pip install trafilatura lxml_html_clean
#     target/bench-venv/bin/pip install readability-lxml
set -euo pipefail
cross=
third=()
snippets=()
dev=()
while :; do
    case "${1:-}" in
        --cross) cross=1; shift ;;
        --third) third+=("$(cd "${2:?--third needs SET_DIR}" && pwd)"); shift 2 ;;
        --snippets) snippets=("$(cd "${2:?--snippets needs SET_DIR}" && pwd)"); shift 2 ;;
        --dev) dev=("$(cd "${2:?--dev needs SET_DIR}" && pwd)"); shift 2 ;;
        *) break ;;
    esac
done
bench=$(cd "$1" && pwd)
out=${2:-target/bench-extract}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
sets=()
for set in articles mixed wcxb-dev; do
    [ -f "$bench/$set/ground-truth.json" ] && sets+=("$set")
done
sets+=("${third[@]}" "${snippets[@]}" "${dev[@]}")

cargo build --release --locked -p rypsok-worker-parse --example bench_extract
echo "== rypsok (Markdown, CPU time, median of 5 passes)"
target/release/examples/bench_extract "$bench" "$out" "${sets[@]}" | tee "$out/rypsok-speed.txt"

py=${TRAFILATURA_PYTHON:-target/bench-venv/bin/python}
if [ -x "$py" ] && "$py" -c 'import trafilatura' 2>/dev/null; then
    passes=${TRAFILATURA_PASSES:-5}
    echo "== anchors (plain text, CPU time; trafilatura median of $passes passes, readability one)"
    "$py" "$here/trafilatura_speed.py" "$bench" "$out" "${third[@]}" "${snippets[@]}" "${dev[@]}" | tee "$out/trafilatura-speed.txt"
    echo "== speed ratio (MB/s, rypsok median of 5 passes / trafilatura median of $passes)"
    for set in "${sets[@]}"; do
        set=$(basename "$set")
        r=$(grep "^$set:" "$out/rypsok-speed.txt" | grep -o '[0-9.]* MB/s' | cut -d' ' -f1 || true)
        t=$(grep "^$set:" "$out/trafilatura-speed.txt" | grep -o '[0-9.]* MB/s' | cut -d' ' -f1 || true)
        [ -n "$r" ] && [ -n "$t" ] || continue
        awk -v s="$set" -v r="$r" -v t="$t" 'BEGIN { printf "%s: %.1fx\n", s, r / t }'
    done
else
    echo "== trafilatura not found ($py): anchors and speed ratio skipped"
    # Only the anchors' files: a set may be named readability-… too.
    for set in "${sets[@]}"; do
        set=$(basename "$set")
        rm -f "$out/trafilatura-$set.json" "$out/readability-$set.json"
    done
fi

python3 "$here/score_halves.py" "$bench" "$out" "${third[@]}" "${dev[@]}"
if [ -n "$cross" ]; then
    python3 "$here/score_cross.py" "$bench" "$out" "${third[@]}" ${dev[@]:+--dev "${dev[@]}"}
fi
if [ ${#snippets[@]} -gt 0 ]; then
    python3 "$here/score_snippets.py" "$bench" "$out" "${snippets[0]}"
fi
