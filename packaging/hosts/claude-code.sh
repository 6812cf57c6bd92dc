# Claude Code: add rypsok for the current user (or --scope project, which
# writes the same entry as claude-code.mcp.json to the project's .mcp.json).
# The server's name comes first: `--env` takes any number of values.
# With a Brave Search key, add `--env BRAVE_API_KEY="$BRAVE_API_KEY"` before `--`.
claude mcp add rypsok --transport stdio --scope user -- rypsok serve --transport stdio
