"""Checkpointed model turns and tool calls: the runner's own seams, wrapped.

The runner is not changed for batch runs.  Two wrappers and a hook make a run durable:

* :class:`DurableModel` wraps the :class:`~subagents.providers.base.Model`: every request is
  a *step* whose reply is recorded.  When a job is resumed, the run starts again from the
  prompt and each finished turn's reply comes back from the record; the request is not sent
  again.  A request cut off mid-way (the worker died before the reply was recorded) is sent
  again: it never finished.
* :class:`DurableTool` wraps every tool: a finished call's output is recorded and replayed,
  so a tool call that finished is not run again.  A call cut off mid-way is run again (it has
  no recorded output); tools are expected to be safe to repeat, as a ``Write`` of the same
  text or a ``Read`` are.
* :class:`ToolCallIds` (a :class:`~subagents.runtime.hooks.RunHooks`) tells a tool wrapper
  which call of the model's message it is running: ``before_tool`` runs in the same task as
  the tool, so a context variable carries the call's id there.

Replay must meet every step in the order it was recorded.  Model requests of one run come
one after another; the calls of one message may run concurrently and finish in any order.
So the step of every call is *reserved* (its place in the record fixed) as soon as the
model's reply arrives, in the reply's order, and each call runs in its own reserved place
whenever it gets there.  A call that is refused never runs its step; its reserved place
stays empty, on the first run as on every replay.

What records a step is a :class:`Recorder` (the DBOS one is in
:mod:`subagents.batch.engine`); this module does not import DBOS.  Outcomes that are errors
(a provider error, a tool that raised) are recorded as data and raised again on replay.
"""

from __future__ import annotations

import contextvars
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Protocol

from subagents import errors
from subagents.providers.base import Model, ModelRequest, ModelResponse, ToolUseBlock
from subagents.runtime.hooks import HookDecision, RunHooks, ToolCall
from subagents.runtime.tools.base import Tool, ToolContext, ToolInputError, ToolOutput

__all__ = ["DurableModel", "DurableTool", "Recorder", "ToolCallIds", "durable_tools"]

#: The id of the tool call the current task is running (set by :class:`ToolCallIds`).
CURRENT_CALL: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "subagents_batch_call", default=None)


class Recorder(Protocol):
    """Records steps of one job and replays the finished ones."""

    async def model_step(self, fn: Callable[[], Awaitable[Any]]) -> Any:
        """Run ``fn`` as the next model step (or return its recorded outcome)."""
        ...

    def reserve_calls(self, uses: Sequence[ToolUseBlock]) -> None:
        """Fix the places of these tool calls in the record, in this order."""
        ...

    async def tool_step(self, call_id: str | None, name: str,
                        fn: Callable[[], Awaitable[Any]]) -> Any:
        """Run ``fn`` in the place reserved for ``call_id`` (or return its recorded outcome)."""
        ...


def _error_outcome(exc: BaseException) -> dict[str, str]:
    return {"error": type(exc).__name__, "message": str(exc)}


def _provider_error(outcome: Mapping[str, str]) -> errors.ProviderError:
    cls = getattr(errors, outcome.get("error", ""), None)
    if not (isinstance(cls, type) and issubclass(cls, errors.ProviderError)):
        cls = errors.ProviderResponseError
    return cls(outcome.get("message") or "the model request failed")


class DurableModel:
    """A model whose every reply is a recorded step (see the module docstring)."""

    def __init__(self, inner: Model, recorder: Recorder) -> None:
        self.inner = inner
        self.recorder = recorder
        self.name = inner.name
        self.default_model = getattr(inner, "default_model", None)

    async def complete(self, request: ModelRequest) -> ModelResponse:
        async def step() -> ModelResponse | dict[str, str]:
            try:
                return await self.inner.complete(request)
            except errors.ProviderError as exc:
                # recorded as data: a replay fails the same way without sending anything
                return _error_outcome(exc)

        outcome = await self.recorder.model_step(step)
        if isinstance(outcome, dict):
            raise _provider_error(outcome)
        response: ModelResponse = outcome
        if response.tool_uses:
            self.recorder.reserve_calls(response.tool_uses)
        return response


class DurableTool(Tool):
    """A tool whose finished calls are recorded steps (see the module docstring)."""

    def __init__(self, inner: Tool, recorder: Recorder) -> None:
        self.inner = inner
        self.recorder = recorder
        self.name = inner.name
        self.description = inner.description
        self.input_schema = inner.input_schema
        self.read_only = inner.read_only
        self.edits_files = inner.edits_files

    def validate(self, input: Mapping[str, Any]) -> str | None:
        return self.inner.validate(input)

    def check_input(self, input: object) -> Mapping[str, Any]:
        return self.inner.check_input(input)

    def write_paths(self, input: Mapping[str, Any]) -> Sequence[str]:
        return self.inner.write_paths(input)

    def read_paths(self, input: Mapping[str, Any]) -> Sequence[str]:
        return self.inner.read_paths(input)

    def __getattr__(self, name: str) -> Any:  # anything else a policy may ask the tool
        if name == "inner":  # not set yet (copying, unpickling): no recursion
            raise AttributeError(name)
        return getattr(self.inner, name)

    async def run(self, input: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        async def step() -> ToolOutput | dict[str, str]:
            try:
                return await self.inner.run(input, ctx)
            except ToolInputError as exc:
                return {"error": "ToolInputError", "message": exc.message}

        outcome = await self.recorder.tool_step(CURRENT_CALL.get(), self.name, step)
        if isinstance(outcome, dict):
            raise ToolInputError(outcome.get("message", "invalid arguments"))
        result: ToolOutput = outcome
        return result


def durable_tools(tools: Mapping[str, Tool], recorder: Recorder) -> dict[str, Tool]:
    """Every tool of ``tools`` wrapped in a :class:`DurableTool`."""
    return {name: DurableTool(tool, recorder) for name, tool in tools.items()}


class ToolCallIds(RunHooks):
    """Carries the id of the call about to run to its tool wrapper (same task)."""

    async def before_tool(self, ctx: ToolContext, call: ToolCall) -> HookDecision | None:
        CURRENT_CALL.set(call.id)
        return None
