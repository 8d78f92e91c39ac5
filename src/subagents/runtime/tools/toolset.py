"""Which tools a run offers, and how, per context, as Claude Code 2.1.332 does.

:func:`select_tools` takes the tools left after the agent's ``tools:``/``disallowedTools``
filter and applies the context rules measured on the real CLI (``docs/runtime-tools.md``):

* **Grep and Glob** are offered only to an agent whose ``tools:`` list names them and that
  has no ``Bash``.  The main thread, an agent with every tool, and an agent that has ``Bash``
  search through the shell; a ``Grep`` call there is answered "No such tool available" with
  a pointer to ``grep`` through ``Bash``.  (2.1.332 behaves so; the rule is the
  ``search_tools_need_explicit`` switch of :mod:`subagents.runtime.tools.formats`.)
* **Deferred tools** (WebFetch, WebSearch, NotebookEdit, and the delegation session's
  SendMessage and TaskStop, where this run has them) are not in
  the tool list of an agent that has every tool: a ``ToolSearch`` tool is (always, as in
  Claude Code, also when this run has nothing to load), and it loads them.  Claude Code
  answers ``ToolSearch`` with ``tool_reference`` blocks that its API turns into definitions;
  we return the definitions as text (a ``<functions>`` block) and add the tools to the list
  of the following requests, which works with every provider.  A call to a deferred tool
  that was not loaded runs all the same (Claude Code's does too).  Claude Code's other
  deferred tools (cron, worktrees, Monitor) do not exist here and are not listed.
  An agent whose ``tools:`` names a deferred tool gets it directly.
* Tools of ours that Claude Code lacks (MultiEdit, LS, TodoWrite) are not built unless asked
  (:func:`~subagents.runtime.tools.builtin_tools` ``extras=True``; ``subagents run
  --extra-tools``), so they never reach this point by default.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from subagents.runtime.tools.base import BlockingTool, Tool, ToolContext, ToolOutput
from subagents.runtime.tools.formats import ToolFormats, formats_for

if TYPE_CHECKING:
    from subagents.definition import AgentDefinition

__all__ = ["LOADED_KEY", "SEARCH_TOOLS", "ToolSearchTool", "ToolSet", "select_tools"]

SEARCH_TOOLS = ("Grep", "Glob")
#: ``ctx.extra`` key: names of deferred tools loaded through ToolSearch in this run
LOADED_KEY = "loaded_tools"

_SEARCH_NOTES = {
    "Grep": "Grep is not offered here: search file contents with `grep` through the Bash "
            "tool instead.",
    "Glob": "Glob is not offered here: find files with `find` through the Bash tool instead.",
}


@dataclass(frozen=True, slots=True)
class ToolSet:
    """The tools of one run: ``offered`` may be called, ``deferred`` are among them but left
    out of the request's tool list until ToolSearch loads them; ``notes`` say why a tool
    that exists is not offered here (added to the "No such tool" error)."""

    offered: dict[str, Tool]
    deferred: frozenset[str] = frozenset()
    notes: dict[str, str] = field(default_factory=dict)
    #: warnings for the run: tools the agent names that this context does not offer
    warnings: tuple[str, ...] = ()

    def visible(self, loaded: frozenset[str] | set[str] = frozenset()) -> list[Tool]:
        """The tools for the request's list: the offered ones minus unloaded deferred ones."""
        return [t for n, t in self.offered.items() if n not in self.deferred or n in loaded]


def _explicit(agent: AgentDefinition | None) -> bool:
    tools = agent.tools if agent is not None else None
    return tools is not None and not any(t.strip() == "*" for t in tools)


def select_tools(available: Mapping[str, Tool], agent: AgentDefinition | None,
                 formats: ToolFormats | None = None) -> ToolSet:
    """The context rules of the module docstring applied to ``available``."""
    fmt = formats or formats_for()
    explicit = _explicit(agent)
    offered = dict(available)
    notes: dict[str, str] = {}
    warnings: list[str] = []
    if fmt.search_tools_need_explicit and (not explicit or "Bash" in offered):
        for name in SEARCH_TOOLS:
            if offered.pop(name, None) is not None and explicit and agent is not None:
                warnings.append(
                    f"tool {name} is in the tools of {agent.name!r}, but next to Bash it is "
                    f"not offered (as in Claude Code {fmt.version}); the agent searches "
                    "through Bash")
            if "Bash" in offered:
                notes[name] = _SEARCH_NOTES[name]
    deferred: frozenset[str] = frozenset()
    if not explicit and fmt.deferred_tools:
        # offered even with nothing to load (Claude Code's contexts with every tool have it)
        # a tool may opt out (agent teams' SendMessage is the lead's main tool, not a
        # deferred one)
        deferred = frozenset(n for n in fmt.deferred_tools
                             if n in offered and getattr(offered[n], "deferrable", True))
        if ToolSearchTool.name not in offered:
            offered[ToolSearchTool.name] = ToolSearchTool(
                {n: offered[n] for n in sorted(deferred)})
    return ToolSet(offered, deferred, notes, tuple(warnings))


class ToolSearchTool(BlockingTool):
    """Loads deferred tools: their definitions come back as text and they join the tool
    list of the next requests (see the module docstring)."""

    name = "ToolSearch"
    input_schema: Mapping[str, Any] = {
        "type": "object",
        "properties": {
            "query": {"type": "string",
                      "description": '"select:Name1,Name2" for those tools, or keywords'},
            "max_results": {"type": "number", "minimum": 1,
                            "description": "At most this many tools (default 5)"},
        },
        "required": ["query"],
        "additionalProperties": False,
    }
    read_only = True

    def __init__(self, deferred: Mapping[str, Tool]) -> None:
        self.deferred = dict(deferred)
        self.description = (
            "Load the definitions of tools that are available but not listed yet, so they "
            "can be called. Query \"select:Name\" (comma-separated names) or keywords. "
            f"Tools available this way: {', '.join(self.deferred) or 'none'}."
        )

    def call(self, input: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        query = str(input["query"]).strip()
        limit = int(input.get("max_results") or 5)
        if query.lower().startswith("select:"):
            wanted = [n.strip() for n in query[len("select:"):].split(",") if n.strip()]
            by_lower = {n.lower(): n for n in self.deferred}
            names = [by_lower[w.lower()] for w in wanted if w.lower() in by_lower]
        else:
            words = [w for w in re.split(r"\W+", query.lower()) if w]
            scored = []
            for name, tool in self.deferred.items():
                hay = f"{name} {tool.description}".lower()
                score = sum(3 if w in name.lower() else 1 for w in words if w in hay)
                if score:
                    scored.append((-score, name))
            names = [n for _, n in sorted(scored)[:limit]]
        if not names:
            return ToolOutput("No matching deferred tools found")
        loaded = ctx.extra.setdefault(LOADED_KEY, set())
        loaded.update(names)
        lines = [json.dumps({"description": self.deferred[n].description, "name": n,
                             "parameters": dict(self.deferred[n].input_schema)},
                            ensure_ascii=False) for n in names]
        return ToolOutput("<functions>\n" + "\n".join(f"<function>{line}</function>"
                                                      for line in lines) + "\n</functions>")
