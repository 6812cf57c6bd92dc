# MCP Inspector, command-line mode: list rypsok's tools. The `--` keeps the
# Inspector from reading rypsok's own `--transport` as its option.
npx @modelcontextprotocol/inspector --cli -e BRAVE_API_KEY=your-brave-search-key --method tools/list -- /usr/bin/rypsok serve --transport stdio
