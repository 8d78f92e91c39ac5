"""A tiny stdio MCP server for tests: `echo` (read-only) and `write_note` (writes a file)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations

server = MCPServer("echo-test")


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def echo(text: str) -> str:
    """Echo the text back, with the value of $ECHO_PREFIX in front."""
    return os.environ.get("ECHO_PREFIX", "") + text


@server.tool()
def write_note(name: str, body: str) -> str:
    """Write a note file in the server's working folder."""
    Path(name).write_text(body)
    return f"wrote {name}"


if __name__ == "__main__":
    Path(sys.argv[1]).write_text(str(os.getpid())) if len(sys.argv) > 1 else None
    server.run("stdio")
