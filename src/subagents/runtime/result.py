"""What a run returns: :class:`AgentResult` and its parts.

Design notes
------------
* A result is plain data (frozen dataclasses) with :meth:`AgentResult.to_dict`, the shape the CLI
  prints for ``run --format json``.  Keys are stable; new keys may be added.
* ``stop_reason`` is one of ``end_turn`` (the model ended its turn), ``max_turns`` (the turn limit
  was hit while the model still wanted tools: no report, unless the opt-in summary request
  gave one), ``error`` (the provider failed; ``error`` says why) and ``interrupted`` (the run
  was cancelled / Ctrl-C).  Only ``end_turn`` is ``ok``; ``to_dict`` says ``is_error`` for the
  others, as Claude Code's ``error_max_turns`` result does.
* ``messages`` (the whole conversation) and ``context_tokens`` (input + output of the last
  request: how full the context was at the end) serve continuing an agent and the usage a
  parent is told; they are not in ``to_dict``.
* ``children`` holds the results of subagents this run delegated to (filled by the Task tool of
  :mod:`subagents.dispatch`), so a whole delegation tree comes back as one value.
* Tool call records keep the tool's output capped (``OUTPUT_PREVIEW`` characters): the full text
  went to the model and is in the transcript; a result must stay small enough to print.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from subagents.errors import RunError
from subagents.providers.base import Message, Usage

__all__ = ["AgentResult", "ResultSlot", "RunInterrupted", "RunStopReason", "ToolCallRecord"]

RunStopReason = Literal["end_turn", "max_turns", "error", "interrupted"]

OUTPUT_PREVIEW = 2000


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCallRecord:
    """One tool call the model made, and what came of it."""

    id: str
    name: str
    input: dict[str, Any]
    output: str
    is_error: bool
    turn: int
    duration: float
    executed: bool  # False when refused (unknown tool, schema, permission, hook)
    #: why it was not run: ``unknown`` (no such tool), ``not_allowed`` (not offered to this
    #: agent), ``arguments`` (bad input), ``rule`` (outside a tool rule's specifier), ``hook``,
    #: ``permission`` (denied: mode, working folder, the user), ``unasked`` (needed permission
    #: and nobody could be asked: ``--yes`` or an allow rule would have let it run);
    #: ``interrupted`` when the run was cut before it completed; ``None`` when it ran.
    refusal: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "input": self.input,
            "output": self.output[:OUTPUT_PREVIEW],
            "is_error": self.is_error,
            "turn": self.turn,
            "duration": round(self.duration, 6),
            "executed": self.executed,
            "refusal": self.refusal,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class AgentResult:
    """The outcome of one :meth:`AgentRunner.run`."""

    agent: str
    model: str
    final_text: str
    stop_reason: RunStopReason
    turns: int
    tool_calls: tuple[ToolCallRecord, ...] = ()
    usage: Usage = field(default_factory=Usage)
    duration: float = 0.0
    transcript_path: Path | None = None
    run_id: str = ""
    error: str | None = None
    warnings: tuple[str, ...] = ()
    children: tuple[AgentResult, ...] = ()
    messages: tuple[Message, ...] = field(default=(), repr=False, compare=False)
    context_tokens: int = field(default=0, compare=False)

    @property
    def ok(self) -> bool:
        """True when the run ended normally (``end_turn``); not at the turn limit."""
        return self.stop_reason == "end_turn"

    def all_warnings(self) -> tuple[str, ...]:
        """This run's warnings and those of every run below it (pipeline stages, delegated
        agents, teammates), each once; a child's is prefixed with its agent's name unless it
        names the agent already.  What a caller prints, so that a stage's "its hooks did not
        run: its project is not trusted" is not lost in the tree."""
        out: dict[str, None] = dict.fromkeys(self.warnings)
        stack = list(reversed(self.children))
        while stack:
            child = stack.pop()
            for w in child.warnings:
                named = w.startswith((f"agent {child.agent!r}", f"{child.agent}:"))
                out.setdefault(w if named else f"{child.agent}: {w}")
            stack.extend(reversed(child.children))
        return tuple(out)

    def to_dict(self) -> dict[str, Any]:
        return {
            "agent": self.agent,
            "model": self.model,
            "run_id": self.run_id,
            "final_text": self.final_text,
            "stop_reason": self.stop_reason,
            "is_error": self.stop_reason != "end_turn",
            "turns": self.turns,
            "tool_calls": [c.to_dict() for c in self.tool_calls],
            "usage": {
                "input_tokens": self.usage.input_tokens,
                "output_tokens": self.usage.output_tokens,
                "total_tokens": self.usage.total_tokens,
            },
            "duration": round(self.duration, 6),
            "transcript_path": str(self.transcript_path) if self.transcript_path else None,
            "error": self.error,
            "warnings": list(self.warnings),
            "children": [c.to_dict() for c in self.children],
        }


class ResultSlot:
    """Where a run leaves its result, also when it is cancelled.

    A cancelled coroutine returns nothing: :meth:`AgentRunner.run` re-raises
    :class:`asyncio.CancelledError` (so ``asyncio.timeout`` and task groups keep working).  A
    caller that wants the interrupted result passes ``result_slot=ResultSlot()`` and reads
    ``slot.result`` after the exception; unlike a runner attribute, a slot belongs to one call,
    so runs sharing a runner cannot overwrite each other's.
    """

    __slots__ = ("result",)

    def __init__(self) -> None:
        self.result: AgentResult | None = None

    @property
    def interrupted(self) -> AgentResult | None:
        """The result if the run was interrupted, else ``None``."""
        r = self.result
        return r if r is not None and r.stop_reason == "interrupted" else None


class RunInterrupted(RunError):
    """Raised by :meth:`AgentRunner.run_sync` on Ctrl-C; ``result`` has what was done so far.

    The async :meth:`AgentRunner.run` re-raises :class:`asyncio.CancelledError` instead (so
    ``asyncio.timeout`` and task groups keep working) and leaves the interrupted result in the
    :class:`ResultSlot` given as ``result_slot``.
    """

    exit_code = 130

    def __init__(self, result: AgentResult) -> None:
        super().__init__(
            f"run of {result.agent!r} interrupted after {result.turns} turn(s)",
            hint=f"transcript: {result.transcript_path}" if result.transcript_path else None,
        )
        self.result = result
