"""Built-in tools, one module per family, and :func:`builtin_tools` to get a set of them.

``files`` (Read, Write, Edit, MultiEdit) · ``shell`` (Bash) · ``search`` (Grep, Glob, LS) ·
``todo`` (TodoWrite) · ``web`` (WebFetch, WebSearch: only when configured) · ``base`` (the
:class:`Tool` interface) · ``formats`` (limits and result shapes per Claude Code version) ·
``toolset`` (which tools each context gets, ToolSearch).  MultiEdit, LS and TodoWrite are
ours (Claude Code 2.1.332 has none of them): built only with ``extras=True``.  Further tools
(``Task``, MCP tools) are plain :class:`Tool` objects passed to the runner next to these.
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
from subagents.runtime.tools.formats import ToolFormats, formats_for
from subagents.runtime.tools.search import GlobTool, GrepTool, LSTool
from subagents.runtime.tools.shell import DEFAULT_TIMEOUT_MS, BashTool
from subagents.runtime.tools.todo import TodoWriteTool
from subagents.runtime.tools.toolset import ToolSearchTool, ToolSet, select_tools
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
    "ToolFormats",
    "ToolOutput",
    "ToolSearchTool",
    "ToolSet",
    "WebFetchTool",
    "WebSearchTool",
    "WriteTool",
    "builtin_tools",
    "formats_for",
    "select_tools",
    "validate_input",
]


def builtin_tools(
    *,
    web: bool = False,
    search_backend: SearchBackend | None = None,
    bash_timeout_ms: int | None = None,
    sandbox: SandboxSettings | None = None,
    extras: bool = False,
    claude_code: str | None = None,
) -> dict[str, Tool]:
    """A fresh name -> tool map of the built-in tools (web tools only when configured);
    ``sandbox`` confines ``Bash`` (:mod:`subagents.runtime.sandbox`).  ``extras`` adds our
    MultiEdit, LS and TodoWrite, which Claude Code does not have (off by default);
    ``claude_code`` picks the version whose limits and formats the tools follow
    (:mod:`subagents.runtime.tools.formats`)."""
    fmt = formats_for(claude_code)
    bash = BashTool(default_timeout_ms=bash_timeout_ms or DEFAULT_TIMEOUT_MS, sandbox=sandbox,
                    formats=fmt)
    tools: list[Tool] = [
        ReadTool(fmt), WriteTool(), EditTool(), bash, GrepTool(fmt), GlobTool(fmt),
    ]
    if extras:
        tools += [MultiEditTool(), LSTool(), TodoWriteTool()]
    if web:
        tools.append(WebFetchTool())
    if search_backend is not None:
        tools.append(WebSearchTool(search_backend))
    return {t.name: t for t in tools}
