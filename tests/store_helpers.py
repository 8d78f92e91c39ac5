"""Shared helpers for the store / MCP tests: a real MCP stdio client on `subagents serve-mcp`."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any


def serve_args(
    group: Path, global_: Path | None = None, *, main: bool = False, extra: tuple[str, ...] = ()
) -> list[str]:
    args = ["-m", "subagents.cli.main", "serve-mcp", "--group-dir", str(group), *extra]
    if global_ is not None:
        args += ["--global-dir", str(global_)]
    if main:
        args.append("--main")
    return args


@asynccontextmanager
async def mcp_session(
    group: Path, global_: Path | None = None, *, main: bool = False, extra: tuple[str, ...] = ()
) -> AsyncIterator[Any]:
    """An initialised official-SDK ``ClientSession`` talking to a fresh server process."""
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable, args=serve_args(group, global_, main=main, extra=extra)
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


async def call(session: Any, tool: str, **arguments: Any) -> tuple[bool, Any]:
    """``(is_error, structured result or error text)``."""
    result = await session.call_tool(tool, arguments)
    if result.is_error:
        return True, "\n".join(c.text for c in result.content if hasattr(c, "text"))
    if result.structured_content is not None:
        return False, result.structured_content
    return False, json.loads(result.content[0].text)
