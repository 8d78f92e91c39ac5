"""The tool-call step of the agentic loop: one assistant message's tool calls, checked and run.

:class:`ToolStep` owns what happens between "the model asked for tools" and "the results go
back": for each call, in this order, stopping at the first refusal (which goes back to the
model as an ``is_error`` result *without executing anything*): offered? → input usable
(:meth:`Tool.check_input`, which raises :class:`~subagents.runtime.tools.base.ToolInputError`)
→ inside the tool rules' specifiers? → ``hooks.before_tool`` → the permission policy.  Each
call's :class:`~subagents.runtime.result.ToolCallRecord` says which check refused it
(``unknown``, ``not_allowed``, ``arguments``, ``rule``, ``hook``, ``permission``, ``unasked``,
``interrupted``), and so does its transcript ``tool`` event.

Design decisions
----------------
* **Fail closed.**  A check that raises (an ``ask`` callback, a hook) refuses the call; a tool
  that raises gives an ``is_error`` result; only cancellation propagates.
* **Bad input is a typed error**, not a dict convention: arguments a provider could not parse
  (:attr:`ToolUseBlock.malformed <subagents.providers.base.ToolUseBlock.malformed>`), input
  that is not an object or does not match the schema, and a :class:`ToolInputError` a tool
  raises from ``run`` all become the same ``arguments`` refusal the model can correct.
* **Parallel calls** run concurrently (``asyncio.gather``); calls touching a file another call
  of the message writes run one after another in the model's order (:func:`write_locks`).
* **Claude Code's error shapes.**  A call that does not run comes back wrapped in
  ``<tool_use_error>…</tool_use_error>``: ``Error: No such tool available: X`` for a tool
  that does not exist, the same plus a reason for one this agent or context does not have
  (``notes``: Grep in a main thread that searches through Bash), and
  ``InputValidationError: X failed due to the following issue(s):`` with one line per
  missing, unexpected or mistyped parameter.  The refusals of our own checks (rules, hooks,
  permissions) are wrapped the same way, in our words.
* Split from the runner so the loop (turns, requests, summaries) and the step (checks,
  execution, records) can be read and tested apart.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from subagents.known_tools import AGENT_TOOL_NAMES
from subagents.providers.base import Message, ToolResultBlock, ToolUseBlock
from subagents.runtime.hooks import RunHooks, ToolCall
from subagents.runtime.permissions import PermissionPolicy
from subagents.runtime.result import ToolCallRecord
from subagents.runtime.tools.base import (
    Tool,
    ToolContext,
    ToolInputError,
    ToolOutput,
    resolve_path,
)
from subagents.runtime.transcript import Transcript
from subagents.runtime.untrusted import fetches_untrusted, wrap_untrusted

__all__ = ["ToolStep", "current_tool_use_id", "write_locks"]

# The id of the tool call being run (each parallel call runs in a task of its own, so each
# sees its own): the Agent tool names it in a background agent's notification.
_TOOL_USE_ID: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "subagents_tool_use_id", default=None)


def current_tool_use_id() -> str | None:
    """The ``tool_use`` id of the call the calling tool code runs for, if any."""
    return _TOOL_USE_ID.get()


@dataclass(slots=True, kw_only=True)
class ToolStep:
    """The tool calls of one run (one instance per run, used at every turn)."""

    ctx: ToolContext
    hooks: RunHooks
    offered: Mapping[str, Tool]
    everything: Mapping[str, Tool]
    policy: PermissionPolicy
    transcript: Transcript
    calls: list[ToolCallRecord]
    warnings: list[str]
    emit: Callable[[str, Mapping[str, Any]], None]
    #: why a tool that exists is not offered in this context (``Grep`` in a main thread
    #: that searches through ``Bash``): added to the "no such tool" error
    notes: Mapping[str, str] = field(default_factory=dict)

    async def run(self, uses: Sequence[ToolUseBlock], turn: int) -> Message:
        """Run one message's calls; their records join ``calls`` and the results come back
        as the user message for the model, in the model's order whatever finished first."""
        locks = write_locks(self.ctx, uses, self.offered)
        tasks = [asyncio.ensure_future(self._call(use, turn, locks.get(use.id, ())))
                 for use in uses]
        try:
            done = await asyncio.gather(*tasks)
        except asyncio.CancelledError:
            # Interrupted.  gather() raises as soon as the first call is cancelled, while
            # the others may still be cleaning up (killing their process group): let them
            # finish, so that every call is in the result — the finished ones as they
            # ended, the ones cut short as "interrupted" (they record themselves).
            for t in tasks:
                t.cancel()
            with contextlib.suppress(BaseException):
                await asyncio.wait(tasks, timeout=10)
            self.calls.extend(t.result()[1] for t in tasks
                              if t.done() and not t.cancelled() and t.exception() is None)
            raise
        self.calls.extend(record for _, record in done)
        return Message("user", tuple(
            # outside text reaches the model marked as data (records keep it as it was); a
            # refusal is ours, not outside text
            ToolResultBlock(use.id, wrap_untrusted(use.name, out.content)
                            if fetches_untrusted(use.name) and record.refusal is None
                            else out.content, out.is_error)
            for use, (out, record) in zip(uses, done, strict=True)
        ))

    async def _call(self, use: ToolUseBlock, turn: int,
                    locks: Sequence[asyncio.Lock]) -> tuple[ToolOutput, ToolCallRecord]:
        if not locks:
            return await self._call_now(use, turn)
        async with contextlib.AsyncExitStack() as held:
            for lock in locks:  # taken before the first await: FIFO = the model's order
                await held.enter_async_context(lock)
            return await self._call_now(use, turn)

    async def _call_now(self, use: ToolUseBlock,
                        turn: int) -> tuple[ToolOutput, ToolCallRecord]:
        started = time.perf_counter()
        self.emit("tool", {"agent": self.ctx.agent_name, "turn": turn, "name": use.name,
                           "input": dict(use.input) if isinstance(use.input, Mapping) else {}})
        tool = self.offered.get(use.name)
        output: ToolOutput
        refusal: str | None
        if tool is None:
            # Claude Code's shape: "Error: No such tool available: X", then why, if known.
            missing = f"Error: No such tool available: {use.name}"
            if use.name in self.notes:
                output, refusal = _refuse(f"{missing}. {self.notes[use.name]}", "not_allowed")
            elif use.name in self.everything or use.name in AGENT_TOOL_NAMES:
                output, refusal = _refuse(
                    f"{missing}. {use.name} is not among the tools this agent has; go on with "
                    "the ones it has.", "not_allowed")
            else:
                output, refusal = _refuse(missing, "unknown")
        else:
            try:
                output, refusal = await self._checked(tool, use)
            except asyncio.CancelledError:
                # Ctrl-C or a parent's timeout while the call ran: keep a trace of it (the
                # process group is killed by the run), so the transcript says what was cut.
                self._record(use, turn, started,
                             ToolOutput.error("interrupted while running"), "interrupted")
                raise
            except Exception as exc:  # a failing check (ask callback, schema) refuses the call
                output, refusal = _refuse(f"{use.name} was not run: checking the call failed "
                                          f"({type(exc).__name__}: {exc})", "permission")
        return output, self._record(use, turn, started, output, refusal, keep=False)

    def _record(self, use: ToolUseBlock, turn: int, started: float, output: ToolOutput,
                refusal: str | None, *, keep: bool = True) -> ToolCallRecord:
        """A call's record, and its ``tool`` transcript event (with the reason of a refusal).

        ``keep`` appends it to the run's calls at once (an interrupted call: the normal path
        appends after the whole message, in the model's order)."""
        duration = time.perf_counter() - started
        executed = refusal is None  # an interrupted call did not complete
        record = ToolCallRecord(
            id=use.id, name=use.name,
            input=dict(use.input) if isinstance(use.input, Mapping) else {},
            output=output.content, is_error=output.is_error, turn=turn, duration=duration,
            executed=executed, refusal=refusal,
        )
        event: dict[str, Any] = {"id": use.id, "name": use.name, "turn": turn,
                                 "executed": executed, "is_error": output.is_error,
                                 "duration": round(duration, 6)}
        if refusal is not None:
            event["refusal"] = refusal
            event["reason"] = output.content
        self.transcript.event("tool", event)
        if keep:
            self.calls.append(record)
        return record

    async def _checked(self, tool: Tool, use: ToolUseBlock) -> tuple[ToolOutput, str | None]:
        """(output, refusal): a refusal (its kind) comes back as an ``is_error`` output, and
        nothing was run; ``None`` means the tool ran."""
        ctx = self.ctx
        try:
            if use.malformed is not None:  # the provider could not parse the JSON
                raise ToolInputError(f"InputValidationError: {tool.name} failed: "
                                     f"{use.malformed}")
            input = tool.check_input(use.input)
        except ToolInputError as exc:
            return _refuse(exc.message, "arguments")
        policy = ctx.policy or self.policy
        reason = policy.tools.refusal(tool.name, input, ctx.cwd)
        if reason:
            return _refuse(f"{tool.name} refused: {reason}; it was not run", "rule")
        call = ToolCall(use.id, tool.name, input, tool.read_only)
        try:
            decision = await self.hooks.before_tool(ctx, call)
        except Exception as exc:  # a broken hook refuses, it does not crash the run
            return _refuse(f"{tool.name} refused: a hook failed ({exc}); it was not run", "hook")
        if decision is not None and not decision.allow:
            return _refuse(f"{tool.name} refused by a hook: {decision.reason or 'blocked'}",
                           "hook")
        with ctx.resolved_once(_call_paths(tool, input)):
            # one resolution for the decision and the tool (the file tools open it with no
            # link followed: a swap after this point fails the call, it cannot redirect it)
            judged = _write_targets(tool, input, ctx)
            verdict = await policy.decide(tool, input, ctx)
            if not verdict.allowed:
                return _refuse(f"permission denied for {tool.name}: {verdict.reason}; it was "
                               "not run", "unasked" if verdict.unasked else "permission")
            if _write_targets(tool, input, ctx, fresh=True) != judged:
                # a link swapped while the question was open (another call of the same
                # message): said plainly before running (and the only guard for a tool of
                # the library's user that writes by name)
                return _refuse(f"permission denied for {tool.name}: the path now leads "
                               "somewhere else than when it was approved (a symbolic link "
                               "changed); it was not run", "permission")
            token = _TOOL_USE_ID.set(use.id)
            try:
                output = await tool.run(input, ctx)
            except asyncio.CancelledError:
                raise
            except ToolInputError as exc:  # the tool's own, finer check of its input
                return _refuse(exc.message, "arguments")
            except Exception as exc:  # a tool bug becomes an is_error result, never a crash
                output = ToolOutput.error(f"{tool.name} failed: {type(exc).__name__}: {exc}")
            finally:
                _TOOL_USE_ID.reset(token)
        try:
            await self.hooks.after_tool(ctx, call, output)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self.warnings.append(f"hook after_tool failed: {type(exc).__name__}: {exc}")
        return output, None


def write_locks(
    ctx: ToolContext, uses: Sequence[ToolUseBlock], offered: Mapping[str, Tool]
) -> dict[str, tuple[asyncio.Lock, ...]]:
    """Locks that make calls of one message touching a file *being written* keep their order.

    Independent calls run concurrently; two edits of one file would race (both read the old
    text, the last write wins and the other edit is lost), and a ``Read`` next to an ``Edit``
    of the same file would see either version.  So calls sharing a written path run one after
    another in the model's order (as Claude Code runs such calls).  Only those calls get
    locks: a message without writes costs nothing.
    """
    writers: dict[str, list[str]] = {}
    for use in uses:
        tool = offered.get(use.name)
        if tool is None or tool.read_only or not isinstance(use.input, Mapping):
            continue
        try:
            if tool.validate(use.input) is not None:
                continue
            paths = {str(ctx.resolve(p)) for p in tool.write_paths(use.input)}
        except Exception:  # the call itself will report its problem
            continue
        for path in paths:
            writers.setdefault(path, []).append(use.id)
    if not writers:
        return {}
    by_path: dict[str, list[str]] = {}
    for use in uses:  # again, in order, now with the readers of those paths
        if any(use.id in ids for ids in writers.values()):
            for path, ids in writers.items():
                if use.id in ids:
                    by_path.setdefault(path, []).append(use.id)
            continue
        tool = offered.get(use.name)
        target = use.input.get("file_path") if isinstance(use.input, Mapping) else None
        if tool is not None and tool.read_only and isinstance(target, str) and target:
            try:
                path = str(ctx.resolve(target))
            except (OSError, RuntimeError, ValueError):
                continue
            if path in writers:
                by_path.setdefault(path, []).append(use.id)
    shared = {path: asyncio.Lock() for path, ids in by_path.items() if len(ids) > 1}
    locks: dict[str, tuple[asyncio.Lock, ...]] = {}
    for path in sorted(shared):  # one global order of acquisition: no deadlock
        for use_id in by_path[path]:
            locks[use_id] = (*locks.get(use_id, ()), shared[path])
    return locks


def _refuse(message: str, kind: str) -> tuple[ToolOutput, str]:
    """A call that did not run: Claude Code marks those ``<tool_use_error>``."""
    return ToolOutput.tool_use_error(message), kind


def _write_targets(tool: Tool, input: Mapping[str, Any], ctx: ToolContext, *,
                   fresh: bool = False) -> list[str]:
    """Where ``tool`` would write, links resolved (compared before and after approval);
    ``fresh``: resolved again now, not the call's pinned resolution."""
    try:
        raws = tool.write_paths(input)
        if not fresh:
            return [str(ctx.resolve(p)) for p in raws]
        return [str(resolve_path(ctx.cwd, p)) for p in raws]
    except (OSError, RuntimeError, TypeError, ValueError, KeyError):
        return ["?"]


def _call_paths(tool: Tool, input: Mapping[str, Any]) -> list[object]:
    """The paths a call names (written and read), to resolve once."""
    try:
        return [*tool.write_paths(input), *tool.read_paths(input)]
    except (TypeError, ValueError, KeyError, AttributeError):
        return []
