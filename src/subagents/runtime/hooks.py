"""Lifecycle hooks of a run: the *seam* a hook engine plugs into.

:class:`RunHooks` has one no-op async method per moment of a run, in the style of
openai-agents-python's ``RunHooks``.  The runner calls them at exactly these points:

* ``on_start(ctx, agent, prompt)`` after the transcript is open, before the first request;
* ``before_tool(ctx, call)`` after the call passed the tool filter and schema validation and
  *before* the permission check; return a :class:`HookDecision` with ``allow=False`` to refuse
  the call (the reason goes back to the model as an ``is_error`` tool result) or ``None`` to go on;
* ``after_tool(ctx, call, output)`` after every executed call (errors included);
* ``on_stop(ctx, result)`` once, with the final :class:`AgentResult` (also on error and on
  interruption, where it must not take long).

A later issue implements Claude Code command hooks (``PreToolUse``, ``PostToolUse``,
``SubagentStart``/``SubagentStop``...) as a subclass; several hook objects compose with
:class:`CompositeHooks` (the first denial wins).  A hook that raises is a bug in the hook: the
runner turns it into a refusal of that call (``before_tool``) or a warning (the others), never a
crashed run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from subagents.definition import AgentDefinition
    from subagents.runtime.result import AgentResult
    from subagents.runtime.tools.base import ToolContext, ToolOutput

__all__ = ["CompositeHooks", "HookDecision", "RunHooks", "ToolCall"]


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A tool call as the hooks see it."""

    id: str
    name: str
    input: Mapping[str, Any]
    read_only: bool


@dataclass(frozen=True, slots=True)
class HookDecision:
    allow: bool
    reason: str = ""


class RunHooks:
    """No-op lifecycle hooks; subclass and override what you need."""

    async def on_start(self, ctx: ToolContext, agent: AgentDefinition, prompt: str) -> None:
        return None

    async def before_tool(self, ctx: ToolContext, call: ToolCall) -> HookDecision | None:
        return None

    async def after_tool(self, ctx: ToolContext, call: ToolCall, output: ToolOutput) -> None:
        return None

    async def on_stop(self, ctx: ToolContext, result: AgentResult) -> None:
        return None


class CompositeHooks(RunHooks):
    """Several hook objects called in order; the first ``allow=False`` wins."""

    def __init__(self, hooks: Sequence[RunHooks]) -> None:
        self.hooks = tuple(hooks)

    async def on_start(self, ctx: ToolContext, agent: AgentDefinition, prompt: str) -> None:
        for h in self.hooks:
            await h.on_start(ctx, agent, prompt)

    async def before_tool(self, ctx: ToolContext, call: ToolCall) -> HookDecision | None:
        for h in self.hooks:
            decision = await h.before_tool(ctx, call)
            if decision is not None and not decision.allow:
                return decision
        return None

    async def after_tool(self, ctx: ToolContext, call: ToolCall, output: ToolOutput) -> None:
        for h in self.hooks:
            await h.after_tool(ctx, call, output)

    async def on_stop(self, ctx: ToolContext, result: AgentResult) -> None:
        for h in self.hooks:
            await h.on_stop(ctx, result)
