"""Built-in tools, one module per family, and :func:`builtin_tools` to get a set of them.

``files`` (Read, Write, Edit, MultiEdit) · ``shell`` (Bash) · ``search`` (Grep, Glob, LS) ·
``todo`` (TodoWrite) · ``web`` (WebFetch, WebSearch: only when configured) · ``base`` (the
:class:`Tool` interface).  Further tools (``Task``, MCP tools) are plain :class:`Tool` objects
passed to the runner next to these.
"""

from __future__ import annotations

from subagents.runtime.sandbox import SandboxSettings
from subagents.runtime.tools.base import (
    BlockingTool,
    ProcessRegistry,
    Tool,
    ToolContext,
    ToolOutput,
    validate_input,
)
from subagents.runtime.tools.files import EditTool, MultiEditTool, ReadTool, WriteTool
from subagents.runtime.tools.search import GlobTool, GrepTool, LSTool
from subagents.runtime.tools.shell import DEFAULT_TIMEOUT_MS, BashTool
from subagents.runtime.tools.todo import TodoWriteTool
from subagents.runtime.tools.web import SearchBackend, WebFetchTool, WebSearchTool

__all__ = [
    "BashTool",
    "BlockingTool",
    "EditTool",
    "GlobTool",
    "GrepTool",
    "LSTool",
    "MultiEditTool",
    "ProcessRegistry",
    "ReadTool",
    "TodoWriteTool",
    "Tool",
    "ToolContext",
    "ToolOutput",
    "WebFetchTool",
    "WebSearchTool",
    "WriteTool",
    "builtin_tools",
    "validate_input",
]


def builtin_tools(
    *,
    web: bool = False,
    search_backend: SearchBackend | None = None,
    bash_timeout_ms: int | None = None,
    sandbox: SandboxSettings | None = None,
) -> dict[str, Tool]:
    """A fresh name -> tool map of the built-in tools (web tools only when configured);
    ``sandbox`` confines ``Bash`` (:mod:`subagents.runtime.sandbox`)."""
    bash = BashTool(default_timeout_ms=bash_timeout_ms or DEFAULT_TIMEOUT_MS, sandbox=sandbox)
    tools: list[Tool] = [
        ReadTool(), WriteTool(), EditTool(), MultiEditTool(), bash,
        GrepTool(), GlobTool(), LSTool(), TodoWriteTool(),
    ]
    if web:
        tools.append(WebFetchTool())
    if search_backend is not None:
        tools.append(WebSearchTool(search_backend))
    return {t.name: t for t in tools}
