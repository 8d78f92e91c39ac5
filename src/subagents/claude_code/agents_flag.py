"""The ``--agents`` value as Claude Code checks it before it starts.

Measured on 2.1.332 (recorded cases ``cli-agents-*``): Claude Code validates the whole value
first, and one bad entry stops it from starting at all (``Error: Invalid --agents
configuration: …``; nothing runs, no agent of any scope):

* text that is not JSON;
* an entry without a ``description`` or a ``prompt`` (or one that is not text);
* ``tools`` given as a string or null instead of a list (``disallowedTools`` is taken to be
  checked the same way);
* a key starting with ``-``.

A key holding ``:`` is fine (``cli:colon`` loads).  Other values of an entry are left to the
usual field rules.

Design decision: the first problem is returned with its line and column in the text, so the
registry and ``validate`` can point at it; the caller decides the wording around it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

__all__ = ["AgentsFlagProblem", "agents_flag_problem"]


@dataclass(frozen=True, slots=True)
class AgentsFlagProblem:
    """Why Claude Code refuses the value: our rule code, the message, where."""

    rule: str
    message: str
    line: int
    column: int
    agent: str | None = None


def _where(text: str, needle: str | None) -> tuple[int, int]:
    if needle is None:
        return 1, 1
    at = text.find(json.dumps(needle))
    if at < 0:
        return 1, 1
    line = text.count("\n", 0, at) + 1
    return line, at - (text.rfind("\n", 0, at) + 1) + 1


def _is_text(value: Any) -> bool:
    return isinstance(value, str)


def agents_flag_problem(text: str) -> AgentsFlagProblem | None:
    """The first thing in ``text`` that makes Claude Code refuse it as ``--agents``, or None."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return AgentsFlagProblem("SA016", f"it is not JSON ({exc.msg})", exc.lineno, exc.colno)
    except RecursionError:
        return AgentsFlagProblem("SA016", "it is not JSON (nested too deeply)", 1, 1)
    if not isinstance(data, dict):
        return AgentsFlagProblem(
            "SA016", f"it must be an object of agents by name, not {type(data).__name__}", 1, 1)
    for name, entry in data.items():
        line, column = _where(text, name)
        if name.startswith("-"):
            return AgentsFlagProblem("SA101", f"the agent name {name!r} starts with '-'",
                                     line, column, name)
        if not isinstance(entry, dict):
            return AgentsFlagProblem(
                "SA014", f"agent {name!r} is {type(entry).__name__}, not an object",
                line, column, name)
        if not _is_text(entry.get("description")):
            what = "has no `description`" if "description" not in entry else (
                "has a `description` that is not text")
            return AgentsFlagProblem("SA103", f"agent {name!r} {what}", line, column, name)
        if not _is_text(entry.get("prompt")):
            what = "has no `prompt`" if "prompt" not in entry else (
                "has a `prompt` that is not text")
            return AgentsFlagProblem("SA014", f"agent {name!r} {what}", line, column, name)
        for key in ("tools", "disallowedTools"):
            if key in entry and not isinstance(entry[key], list):
                kind = "a string" if isinstance(entry[key], str) else type(entry[key]).__name__
                return AgentsFlagProblem(
                    "SA014", f"agent {name!r} gives `{key}` as {kind}, not a list",
                    line, column, name)
    return None
