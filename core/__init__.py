"""The medlit plugin host: settings, upstream clients, errors, rendering and the MCP server."""
