# Claude Code: add rypsok for the current user (or --scope project, which
# writes the same entry as claude-code.mcp.json to the project's .mcp.json).
claude mcp add --transport stdio --scope user --env BRAVE_API_KEY=your-brave-search-key rypsok -- /usr/bin/rypsok serve --transport stdio
