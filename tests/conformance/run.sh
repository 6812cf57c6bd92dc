#!/usr/bin/env bash
# Runs the official MCP conformance suite (the npm package
# @modelcontextprotocol/conformance, pinned with Node.js 22 in
# package-lock.json) against `rypsok serve --transport http` on a loopback
# port, once per protocol era: the handshake-based revisions
# (--requirements 2025-11-25) and the stateless one (2026-07-28). Each era
# has its expected-failures file listing only features rypsok deliberately
# lacks, each with its reason; any other failure, or a listed scenario that
# passes, fails this script.
#
# Usage: tests/conformance/run.sh [path to the rypsok binary]
# (default: target/debug/rypsok; build it first).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
bin="${1:-$root/target/debug/rypsok}"
[ -x "$bin" ] || { echo "conformance: build rypsok first ($bin is missing)" >&2; exit 1; }
bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"

cd "$here"
npm ci --no-audit --no-fund --loglevel=error >/dev/null
# The suite needs Node.js 22; the pinned `node` package brings it.
export PATH="$here/node_modules/node/bin:$PATH"
echo "conformance: suite $(node -p 'require("@modelcontextprotocol/conformance/package.json").version') on Node.js $(node --version)"

work="$(mktemp -d)"
pid=""
cleanup() {
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then kill -TERM "$pid" 2>/dev/null || true; fi
    if [ -n "${KEEP_CONFORMANCE:-}" ]; then echo "conformance: kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

cat >"$work/rypsok.toml" <<'EOF'
config_version = 1
[http]
bind = "127.0.0.1:0"
EOF
env -u RYPSOK_CONFIG -u BRAVE_API_KEY "$bin" --config "$work/rypsok.toml" serve --transport http 2>"$work/rypsok.log" &
pid=$!
addr=""
for _ in $(seq 1 100); do
    addr="$(grep -o '"addr":"127\.0\.0\.1:[0-9]*"' "$work/rypsok.log" | head -1 | cut -d'"' -f4 || true)"
    [ -n "$addr" ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
done
[ -n "$addr" ] || { echo "conformance: rypsok did not start listening" >&2; cat "$work/rypsok.log" >&2; exit 1; }
url="http://$addr/mcp"

status=0
for revision in 2025-11-25 2026-07-28; do
    log="$work/conformance-$revision.log"
    # The suite's own summary lines look like a test runner's closing line;
    # they stay in the log, and this script prints its own verdict.
    if npx --no-install conformance server --url "$url" --requirements "$revision" \
        --expected-failures "$here/expected-failures-$revision.yml" \
        --output-dir "$work/results-$revision" >"$log" 2>&1; then
        echo "conformance $revision: every scenario passed except the expected failures"
    else
        echo "conformance $revision: FAILED (unexpected failures or stale expected failures):"
        sed -n '/=== SUMMARY ===/,$p' "$log" | sed 's/^/  | /'
        status=1
    fi
done

kill -TERM "$pid"
if wait "$pid"; then
    echo "conformance: rypsok exited 0 after SIGTERM"
else
    echo "conformance: rypsok did not exit 0 after SIGTERM" >&2
    status=1
fi
pid=""
exit "$status"
