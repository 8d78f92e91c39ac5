"""Scripted "brains" for team tests: each member answers from what it has been told.

A team's members run concurrently and their mail arrives in batches whose grouping depends on
timing, so fixed reply queues would be flaky.  A brain looks at the conversation so far (the
request's messages) and picks the next reply; the same brain drives a ScriptedModel-style
model in-process and the loopback HTTP server (through the real SDKs).
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from subagents.providers.base import (
    Message,
    ModelRequest,
    ModelResponse,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from subagents.testing import text, tool_call, tool_calls

Brain = Callable[[Sequence[Message]], ModelResponse]


def all_text(messages: Sequence[Message]) -> str:
    out = []
    for m in messages:
        for b in m.content:
            if isinstance(b, TextBlock):
                out.append(b.text)
            elif isinstance(b, ToolResultBlock):
                out.append(b.content)
            elif isinstance(b, ToolUseBlock):
                out.append(json.dumps({"tool": b.name, "input": dict(b.input)}))
    return "\n".join(out)


def last_user_text(messages: Sequence[Message]) -> str:
    for m in reversed(messages):
        if m.role == "user":
            return "\n".join(b.text if isinstance(b, TextBlock) else
                             b.content if isinstance(b, ToolResultBlock) else ""
                             for b in m.content)
    return ""


def assistant_turns(messages: Sequence[Message]) -> int:
    return sum(1 for m in messages if m.role == "assistant")


def shutdown_id(messages: Sequence[Message]) -> str | None:
    found = re.findall(r'"requestId": ?"(shutdown-[^"]+)"', last_user_text(messages))
    return found[-1] if found else None


def lead_brain(teammates: Mapping[str, tuple[str, str]], *, final: str = "FINAL") -> Brain:
    """A lead that creates one task per teammate, spawns them (name → (agent type, task)),
    assigns the tasks, waits for a ``REPORT-<name>`` from each, shuts them down, answers."""
    names = list(teammates)

    def brain(messages: Sequence[Message]) -> ModelResponse:
        turn = assistant_turns(messages)
        history = all_text(messages)
        if turn == 0:
            return tool_calls([("TaskCreate", {"subject": f"Task for {n}",
                                               "description": teammates[n][1]})
                               for n in names])
        if turn == 1:
            return tool_calls([("Agent", {"name": n, "subagent_type": teammates[n][0],
                                          "description": f"{n} work",
                                          "prompt": f"You are {n}. {teammates[n][1]}"})
                               for n in names])
        if turn == 2:
            return tool_calls([("TaskUpdate", {"taskId": str(i + 1), "owner": n})
                               for i, n in enumerate(names)])
        reported = all(f"REPORT-{n}" in history for n in names)
        asked = "shutdown_request" in history and "Shutdown request sent" in history
        if reported and not asked:
            return tool_calls([("SendMessage", {"to": n, "message": {
                "type": "shutdown_request", "reason": "all done"}}) for n in names])
        if asked and all(f"{n} has shut down" in history for n in names):
            reports = re.findall(r"REPORT-\w+: [^\n<\"]*", history)
            return text(f"{final}: " + " | ".join(sorted(set(reports))))
        return text("Waiting for the team.")

    return brain


def teammate_brain(name: str, task_id: str, *, finding: str = "ok") -> Brain:
    """A teammate that works its task, reports to the lead, and approves a shutdown."""

    def brain(messages: Sequence[Message]) -> ModelResponse:
        rid = shutdown_id(messages)
        if rid is not None:
            return tool_call("SendMessage", {"to": "team-lead", "message": {
                "type": "shutdown_response", "request_id": rid, "approve": True}})
        history = all_text(messages)
        last = last_user_text(messages)
        if "Updated task" not in history:
            return tool_call("TaskUpdate", {"taskId": task_id, "status": "in_progress"})
        if "completed" not in history.split("Updated task", 1)[1]:
            return tool_call("TaskUpdate", {"taskId": task_id, "status": "completed"})
        if f"REPORT-{name}" not in history:
            return tool_call("SendMessage", {"to": "team-lead", "summary": "Report",
                                             "message": f"REPORT-{name}: {finding}"})
        if "teammate-message" in last:
            return text("Noted.")
        return text(f"{name} reported.")

    return brain


class BrainModel:
    """A :class:`~subagents.providers.base.Model` answering each agent from its brain."""

    name = "scripted"
    default_model = "scripted-model"

    def __init__(self, brains: Mapping[str, Brain],
                 delays: Mapping[str, float] | None = None) -> None:
        self.brains = dict(brains)
        self.delays = dict(delays or {})
        self.requests: dict[str, list[ModelRequest]] = defaultdict(list)

    async def complete(self, request: ModelRequest) -> ModelResponse:
        agent = str(request.metadata.get("agent", ""))
        self.requests[agent].append(request)
        if self.delays.get(agent):
            import asyncio

            await asyncio.sleep(self.delays[agent])
        brain = self.brains.get(agent)
        if brain is None:
            raise AssertionError(f"no brain for agent {agent!r}")
        reply = brain(request.messages)
        if isinstance(reply, BaseException):
            raise reply
        return ModelResponse(content=reply.content, stop_reason=reply.stop_reason,
                             usage=reply.usage, model=request.model)


def first_text(request: ModelRequest) -> str:
    return "\n".join(b.text for b in request.messages[0].content if isinstance(b, TextBlock))


def script(*replies: ModelResponse | BaseException) -> Brain:
    """A brain that answers from a fixed list (for members whose order is deterministic).

    A final text reply is repeated for any later turn (more mail may arrive in more batches
    than a test can predict); a final tool call is not."""
    queue = list(replies)

    def brain(messages: Sequence[Message]) -> ModelResponse:
        if not queue:
            raise AssertionError("scripted brain ran out of replies")
        last = queue[0]
        if len(queue) == 1 and isinstance(last, ModelResponse) and not last.tool_uses:
            return last
        reply = queue.pop(0)
        if isinstance(reply, BaseException):
            raise reply
        return reply

    return brain


def lead_text(model: BrainModel) -> str:
    """Everything the lead was sent, as text."""
    return all_text(model.requests["team-lead"][-1].messages)


def as_any(x: Any) -> Any:
    return x
