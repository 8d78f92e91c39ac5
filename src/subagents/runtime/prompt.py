"""The system prompt of a run: the agent's body, its memory, and optionally the environment.

Design notes
------------
* ``memory`` is free text (the format specification), appended under ``# Memory``, or one
  of Claude Code's scopes ``user`` / ``project`` / ``local``, in which case the first 200
  lines (25,000 characters at most) of ``~/.claude/agent-memory/<name>/MEMORY.md``,
  ``<cwd>/.claude/agent-memory/<name>/MEMORY.md`` or
  ``<cwd>/.claude/agent-memory-local/<name>/MEMORY.md`` are included when the file exists, with
  its path so the agent can keep it up to date (and a line saying where to create it if not).
* ``include_env=True`` appends the environment section
  (:func:`subagents.runtime.context.environment_block`).  The runner does not use it: it
  appends the environment itself, after the hand-back rules and skills and with the model's
  name (:mod:`subagents.runtime.context`).
* Skills are appended by the runner after this (:mod:`subagents.runtime.skills`).
"""

from __future__ import annotations

from pathlib import Path

from subagents.definition import AgentDefinition

__all__ = ["MEMORY_MAX_CHARS", "MEMORY_MAX_LINES", "MEMORY_SCOPES", "build_system_prompt",
           "memory_path"]

MEMORY_SCOPES = ("user", "project", "local")
MEMORY_MAX_LINES = 200
MEMORY_MAX_CHARS = 25_000


def memory_path(agent: AgentDefinition, scope: str, cwd: Path) -> Path:
    """Where Claude Code keeps an agent's memory for ``scope`` (user/project/local)."""
    name = agent.name or "agent"
    if scope == "user":
        return Path.home() / ".claude" / "agent-memory" / name / "MEMORY.md"
    if scope == "project":
        return cwd / ".claude" / "agent-memory" / name / "MEMORY.md"
    return cwd / ".claude" / "agent-memory-local" / name / "MEMORY.md"


def _memory_section(agent: AgentDefinition, cwd: Path) -> str:
    memory = (agent.memory or "").strip()
    if not memory:
        return ""
    if memory not in MEMORY_SCOPES:
        return f"# Memory\n\n{memory}"
    path = memory_path(agent, memory, cwd)
    try:
        with path.open(encoding="utf-8", errors="replace") as fh:
            lines = [line for _, line in zip(range(MEMORY_MAX_LINES), fh, strict=False)]
    except OSError:
        return (f"# Memory\n\nYour persistent memory file ({memory} scope) is {path}; it does "
                "not exist yet. Create it to remember things for next time.")
    text = "".join(lines)[:MEMORY_MAX_CHARS].rstrip()
    return (f"# Memory\n\nYour persistent memory ({memory} scope, {path}); keep it up to date:"
            f"\n\n{text}")


def build_system_prompt(agent: AgentDefinition, cwd: Path, *, include_env: bool = False,
                        model: str | None = None) -> str:
    """The system prompt of a run: body, memory, and optionally the environment."""
    parts = [agent.system_prompt.strip()]
    parts.append(_memory_section(agent, cwd))
    if include_env:
        from subagents.runtime.context.environment import environment_block

        parts.append(environment_block(cwd, model))
    return "\n\n".join(p for p in parts if p)
