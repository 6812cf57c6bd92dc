#!/usr/bin/env bash
# Builds every fuzz target and runs each for a fixed time (CI's fuzz step;
# also the way to run them all by hand). Usage: fuzz/run.sh [SECONDS] [TARGET...]
# A crash, a leak, a timeout or an out-of-memory stops the script with a
# non-zero status; libFuzzer leaves the input in fuzz/artifacts/TARGET/.
#
# cargo-fuzz needs nightly flags; the pinned stable toolchain accepts them
# with RUSTC_BOOTSTRAP=1. The targets are safe Rust, so they are built
# without a sanitizer (`-s none`, several times faster) but with debug
# assertions and overflow checks (`-a`).
set -euo pipefail
cd "$(dirname "$0")"
export RUSTC_BOOTSTRAP=1
seconds=${1:-10}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    mapfile -t targets < <(cargo fuzz list)
fi

./seed.sh
cargo fuzz build -s none -a

dict_of() {
    case $1 in
        html_extract | html_skip | charset_decode | duckduckgo_answer) echo dict/html.dict ;;
        pdf_read) echo dict/pdf.dict ;;
        url_policy) echo dict/url.dict ;;
        config_load) echo dict/toml.dict ;;
        wikipedia_answer | brave_answer | tool_args | crossref_answer | openalex_answer \
            | hackernews_answer | gdelt_answer | stackexchange_answer | github_answer \
            | searxng_answer) echo dict/json.dict ;;
        arxiv_answer) echo dict/html.dict ;;
        *) echo "" ;;
    esac
}

for target in "${targets[@]}"; do
    dict=$(dict_of "$target")
    echo "== fuzz $target (${seconds}s)"
    # -timeout: one input taking this long is a finding (a hang);
    # -rss_limit_mb: LIM-W1 frames and 5 MiB pages stay far below it.
    log=$(mktemp)
    if ! cargo fuzz run -s none -a "$target" "corpus/$target" -- \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 ${dict:+-dict=$dict} >"$log" 2>&1; then
        tail -n 60 "$log" >&2
        echo "fuzz target $target failed; the input is in fuzz/artifacts/$target/" >&2
        exit 1
    fi
    # The coverage reached (cov:, ft:) and the speed, for the record.
    grep -E '^#[0-9]+[[:space:]]+DONE|^stat::(average_exec_per_sec|new_units_added|peak_rss_mb)' "$log" || true
    rm -f "$log"
done
