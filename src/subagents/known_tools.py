"""Tool names an agent definition may mention, and how to read a tool entry.

The format specification's list plus the tools current Claude Code has (REFERENCE.md: ``Agent`` is
the new name of ``Task``; agent teams' ``Task*``/``Team*``/``SendMessage``; ``KillShell`` was
``KillBash``; ``Skill``; ``NotebookRead``; ``ExitPlanMode``).  An entry may also be:

* ``mcp__server`` / ``mcp__server__tool`` / ``mcp__server__*``;
* ``Agent(a, b)`` / ``Task(a, b)``: an allowlist of the agents this agent may spawn;
* ``Bash(git diff:*)``-style permission rules: a tool name followed by a parenthesised
  specifier, which Claude Code accepts in ``tools``.

Extra names can be added by configuration (``extra-tools``); the rules take them as an argument.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType

from subagents._dataclass import dataclass
from subagents._lazy_re import lazy_compile

__all__ = [
    "AGENT_TOOL",
    "AGENT_TOOL_NAMES",
    "BUILTIN_TOOLS",
    "MUTATING_TOOLS",
    "READ_ONLY_TOOLS",
    "TOOL_ALIASES",
    "ToolEntry",
    "canonical_tool_name",
    "is_agent_tool",
    "is_known_tool",
    "parse_tool_entry",
    "split_tool_list",
]

BUILTIN_TOOLS: frozenset[str] = frozenset(
    {
        # the format specification's list
        "Read",
        "Write",
        "Edit",
        "MultiEdit",
        "Bash",
        "Grep",
        "Glob",
        "LS",
        "WebFetch",
        "WebSearch",
        "TodoWrite",
        "NotebookEdit",
        "BashOutput",
        "KillBash",
        "Task",
        # current Claude Code (REFERENCE.md)
        "Agent",
        "TaskCreate",
        "TaskGet",
        "TaskList",
        "TaskUpdate",
        "TaskOutput",
        "TaskStop",
        "SendMessage",
        "TeamCreate",
        "TeamDelete",
        "KillShell",
        "Skill",
        "NotebookRead",
        "ExitPlanMode",
        "EnterPlanMode",
        "AskUserQuestion",
        "SlashCommand",
        "ListMcpResourcesTool",
        "ReadMcpResourceTool",
        "LSP",
    }
)

#: Tools Claude Code renamed, old name -> current name: ``Agent`` is the new name of ``Task``
#: (both are accepted in ``tools``, in permission rules and as a call), ``KillShell`` was
#: ``KillBash``.  The one table of these renames: everything that compares tool names goes
#: through :func:`canonical_tool_name`.
TOOL_ALIASES: Mapping[str, str] = MappingProxyType({"Task": "Agent", "KillBash": "KillShell"})

#: The delegation tool under its current name, and every name it goes by.
AGENT_TOOL = "Agent"
AGENT_TOOL_NAMES: frozenset[str] = frozenset(
    {AGENT_TOOL, *(old for old, new in TOOL_ALIASES.items() if new == AGENT_TOOL)}
)


def canonical_tool_name(name: str) -> str:
    """The current name of a tool: ``Task`` -> ``Agent``, ``KillBash`` -> ``KillShell``;
    any other name unchanged."""
    return TOOL_ALIASES.get(name, name)


def is_agent_tool(name: str) -> bool:
    """Is ``name`` the delegation tool (``Agent``, or its old name ``Task``)?"""
    return canonical_tool_name(name) == AGENT_TOOL


# Tools that never change anything and need no permission (issue "Run an agent", item 4).
READ_ONLY_TOOLS: frozenset[str] = frozenset(
    {"Read", "Grep", "Glob", "LS", "TodoWrite", "NotebookRead", "BashOutput", "TaskGet",
     "TaskList", "ListMcpResourcesTool", "ReadMcpResourceTool"}
)

# Tools that write files or run commands: what a read-only role should not hold.
MUTATING_TOOLS: frozenset[str] = frozenset(
    {"Write", "Edit", "MultiEdit", "NotebookEdit", "Bash", "KillShell", "KillBash"}
)

_ENTRY_RE = lazy_compile(r"^(?P<name>[A-Za-z_][A-Za-z0-9_]*)\s*(?:\((?P<spec>.*)\))?$", re.S)
_MCP_RE = lazy_compile(r"^mcp__(?P<server>[A-Za-z0-9_.-]+?)(?:__(?P<tool>[A-Za-z0-9_.*-]+))?$")


@dataclass(frozen=True, slots=True)
class ToolEntry:
    """One parsed ``tools`` entry."""

    raw: str
    name: str
    specifier: str | None = None  # text inside the parentheses, if any
    mcp_server: str | None = None
    mcp_tool: str | None = None  # None = every tool of the server, "*" likewise

    @property
    def is_mcp(self) -> bool:
        return self.mcp_server is not None

    @property
    def agent_allowlist(self) -> tuple[str, ...] | None:
        """``Agent(a, b)`` / ``Task(a, b)`` -> ``("a", "b")``."""
        if is_agent_tool(self.name) and self.specifier is not None:
            return tuple(s.strip() for s in self.specifier.split(",") if s.strip())
        return None


def parse_tool_entry(raw: str) -> ToolEntry | None:
    """Parse one entry; ``None`` if it is not even shaped like a tool name."""
    text = raw.strip()
    mcp = _MCP_RE.match(text)
    if mcp:
        return ToolEntry(text, text, None, mcp.group("server"), mcp.group("tool"))
    m = _ENTRY_RE.match(text)
    if not m:
        return None
    return ToolEntry(text, m.group("name"), m.group("spec"))


def is_known_tool(raw: str, extra: frozenset[str] | set[str] = frozenset()) -> bool:
    entry = parse_tool_entry(raw)
    if entry is None:
        return False
    if entry.is_mcp:
        return True
    return entry.name in BUILTIN_TOOLS or entry.name in extra or entry.raw in extra


def split_tool_list(text: str) -> list[str]:
    """Split ``"Read, Bash(git diff:*), Agent(a, b)"`` on top-level commas only."""
    if "(" not in text:  # every comma is at the top level (what the loop below finds)
        return [i for i in map(str.strip, text.split(",")) if i]
    return _split_by_characters(text)


def _split_by_characters(text: str) -> list[str]:
    """:func:`split_tool_list` one character at a time, counting parentheses."""
    items: list[str] = []
    depth = 0
    current: list[str] = []
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")" and depth:
            depth -= 1
        if ch == "," and depth == 0:
            items.append("".join(current).strip())
            current = []
        else:
            current.append(ch)
    items.append("".join(current).strip())
    return [i for i in items if i]
