#!/usr/bin/env bash
# The MCP Inspector's command-line mode against rypsok, as its README types
# it: `npx @modelcontextprotocol/inspector --cli rypsok serve --method
# tools/list`, with the Inspector pinned in package-lock.json and run on the
# Node.js 22 that the conformance suite pins. The Inspector starts rypsok
# itself over stdio (the default transport); the answer must list the three
# tools. Bounded to one minute.
#
# Usage: tests/conformance/inspector.sh [path to the rypsok binary]
# (default: target/debug/rypsok; build it first).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
bin="${1:-$root/target/debug/rypsok}"
[ -x "$bin" ] || { echo "inspector: build rypsok first ($bin is missing)" >&2; exit 1; }
bindir="$(cd "$(dirname "$bin")" && pwd)"
[ "$(basename "$bin")" = rypsok ] || { echo "inspector: the binary must be named rypsok" >&2; exit 1; }

cd "$here"
# run.sh installs the same lock just before; install again only when the
# pinned Inspector is not what node_modules holds.
pinned="$(node -p 'require("./package-lock.json").packages["node_modules/@modelcontextprotocol/inspector"].version')"
installed="$(node -p 'try { require("@modelcontextprotocol/inspector/package.json").version } catch { "" }')"
if [ "$pinned" != "$installed" ]; then
    npm ci --no-audit --no-fund --loglevel=error >/dev/null
fi
export PATH="$here/node_modules/node/bin:$bindir:$PATH"
echo "inspector: @modelcontextprotocol/inspector $pinned on Node.js $(node --version)"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# Its own home, so the Inspector's settings stay in the scratch directory;
# no configuration file: rypsok's defaults.
if ! env -u RYPSOK_CONFIG -u BRAVE_API_KEY HOME="$work" \
    timeout 60 npx --no-install @modelcontextprotocol/inspector --cli rypsok serve --method tools/list \
    >"$work/out.json" 2>"$work/err.log" </dev/null; then
    echo "inspector: FAILED: the Inspector's CLI did not list the tools:" >&2
    sed 's/^/  | /' "$work/err.log" "$work/out.json" >&2
    exit 1
fi
names="$(node -e '
const out = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
console.log(out.tools.map((t) => t.name).sort().join(" "));
' "$work/out.json")"
if [ "$names" != "engine_status web_fetch web_search" ]; then
    echo "inspector: FAILED: expected engine_status, web_fetch and web_search, got: $names" >&2
    exit 1
fi
echo "inspector: \`npx @modelcontextprotocol/inspector --cli rypsok serve --method tools/list\` lists $names"
