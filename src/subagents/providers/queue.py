"""A model that replies from a queue: the engine of :mod:`subagents.testing` and of the
``scripted`` provider.

:class:`ScriptedModel` is a :class:`~subagents.providers.base.Model` that replies from a queue,
so an agent loop runs without a network or an API key (users import it from
:mod:`subagents.testing`, whose docstring shows it in use).  It lives here, with the providers,
so that the ``scripted`` provider can use it without the provider layer importing the testing
kit.

A reply may also be a callable ``(request) -> ModelResponse`` (to answer from what was asked)
or an exception instance, which is raised (to script provider failures).
"""

from __future__ import annotations

import asyncio
import itertools
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from subagents.providers.base import (
    ModelRequest,
    ModelResponse,
    TextBlock,
    ToolUseBlock,
    Usage,
)

__all__ = ["ScriptedModel", "ScriptedReply", "text", "tool_call", "tool_calls"]

ScriptedReply = ModelResponse | Callable[[ModelRequest], ModelResponse] | BaseException

_ids = itertools.count(1)


def text(content: str, *, usage: Usage | None = None) -> ModelResponse:
    """A reply that ends the turn with ``content``."""
    return ModelResponse(
        content=(TextBlock(content),), stop_reason="end_turn", usage=usage or Usage(10, 5)
    )


def tool_call(
    name: str, input: Mapping[str, Any] | None = None, *, id: str | None = None, say: str = ""
) -> ModelResponse:
    """A reply that calls one tool."""
    return tool_calls([(name, dict(input or {}))], ids=[id] if id else None, say=say)


def tool_calls(
    calls: Iterable[tuple[str, Mapping[str, Any]]],
    *,
    ids: list[str] | None = None,
    say: str = "",
) -> ModelResponse:
    """A reply that calls several tools in one message (they may run in parallel)."""
    blocks: list[TextBlock | ToolUseBlock] = [TextBlock(say)] if say else []
    for i, (name, args) in enumerate(calls):
        call_id = ids[i] if ids and i < len(ids) else f"toolu_scripted_{next(_ids)}"
        blocks.append(ToolUseBlock(call_id, name, dict(args)))
    return ModelResponse(content=tuple(blocks), stop_reason="tool_use", usage=Usage(10, 5))


class ScriptedModel:
    """A model that answers from a queue of replies and records every request it saw."""

    name = "scripted"

    def __init__(
        self,
        replies: Iterable[ScriptedReply] = (),
        *,
        delay: float = 0.0,
        default_model: str | None = None,
    ) -> None:
        self._replies: deque[ScriptedReply] = deque(replies)
        self.requests: list[ModelRequest] = []
        self.delay = delay
        # What `inherit` resolves to when nothing above sets a model (as a real provider's
        # configured model would); None lets the runner's own default apply.
        self.default_model = default_model

    def add(self, *replies: ScriptedReply) -> None:
        self._replies.extend(replies)

    @property
    def remaining(self) -> int:
        return len(self._replies)

    async def complete(self, request: ModelRequest) -> ModelResponse:
        self.requests.append(request)
        if self.delay:
            await asyncio.sleep(self.delay)
        if not self._replies:
            raise AssertionError(
                f"ScriptedModel ran out of replies at request {len(self.requests)}"
            )
        reply = self._replies.popleft()
        if isinstance(reply, BaseException):
            raise reply
        if callable(reply):
            reply = reply(request)
        if not reply.model:
            reply = ModelResponse(
                content=reply.content,
                stop_reason=reply.stop_reason,
                usage=reply.usage,
                model=request.model,
            )
        return reply

    def assert_complete(self) -> None:
        """Fail if some scripted replies were never asked for."""
        if self._replies:
            unused = ", ".join(_summary(r) for r in self._replies)
            raise AssertionError(f"{len(self._replies)} scripted replies were not used: {unused}")


def _summary(reply: ScriptedReply) -> str:
    if isinstance(reply, BaseException):
        return f"raise {type(reply).__name__}"
    if isinstance(reply, ModelResponse):
        calls = [b.name for b in reply.content if isinstance(b, ToolUseBlock)]
        if calls:
            return "tool " + "+".join(calls)
        return repr(reply.text[:40])
    return "a callable reply"
