# MCP Inspector, command-line mode: list rypsok's tools. The `--` keeps the
# Inspector from reading rypsok's own `--transport` as its option.
# With a Brave Search key, add `-e BRAVE_API_KEY="$BRAVE_API_KEY"` before `--method`.
npx @modelcontextprotocol/inspector --cli --method tools/list -- rypsok serve --transport stdio
