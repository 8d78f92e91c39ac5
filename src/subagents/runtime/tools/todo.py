"""``TodoWrite{todos}``: the agent's own task list (read-only: it changes nothing on disk).

Each call replaces the whole list (Claude Code semantics).  Items have ``content``, ``status``
(``pending``/``in_progress``/``completed``) and optional ``activeForm``/``id``/``priority``.
The list lives in ``ctx.todos`` for the length of the run and the reply summarises it, so the
model sees its own plan; nothing is written to disk.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from subagents.runtime.tools.base import Tool, ToolContext, ToolOutput

__all__ = ["TodoWriteTool"]

_MARK = {"pending": "[ ]", "in_progress": "[~]", "completed": "[x]"}


class TodoWriteTool(Tool):
    name = "TodoWrite"
    description = (
        "Replace your task list for this run. Each todo has content, status (pending, "
        "in_progress, completed) and optional activeForm. Use it to plan multi-step work."
    )
    input_schema: Mapping[str, Any] = {
        "type": "object",
        "properties": {
            "todos": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "content": {"type": "string", "minLength": 1},
                        "status": {"type": "string",
                                   "enum": ["pending", "in_progress", "completed"]},
                        "activeForm": {"type": "string"},
                        "id": {"type": "string"},
                        "priority": {"type": "string", "enum": ["high", "medium", "low"]},
                    },
                    "required": ["content", "status"],
                },
            }
        },
        "required": ["todos"],
        "additionalProperties": False,
    }
    read_only = True

    async def run(self, input: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        ctx.todos[:] = [dict(t) for t in input["todos"]]
        if not ctx.todos:
            return ToolOutput("Todo list cleared")
        lines = [f"{_MARK[t['status']]} {t['content']}" for t in ctx.todos]
        done = sum(t["status"] == "completed" for t in ctx.todos)
        return ToolOutput(f"Todo list updated ({done}/{len(ctx.todos)} done):\n" + "\n".join(lines))
