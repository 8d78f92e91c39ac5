"""The agents one session started: ids, background runs, notifications, messages, stopping.

Claude Code 2.1.332 (RUNTIME-2.1.332.md row 4, scenarios BG and the SendMessage captures)
gives every agent it starts an id (``a`` + 16 hex digits), runs agents in the background by
default and tells the parent when one stops, and lets a model continue an agent that has
stopped by sending it a message (``SendMessage`` with ``to: <agentId>``).  This module keeps
the bookkeeping; :mod:`subagents.dispatch.dispatcher` runs the agents.

Design decisions
----------------
* **One table per session** (:class:`AgentSessions`, owned by the dispatcher): any run of
  the session may address any agent id it was told about; an unknown id is a clear tool
  error that lists the ids the session knows.
* **Mailboxes per run.**  A background agent's notification goes to the run that started
  it (its *owner*); a message sent to a running agent goes to that agent's run.  A run
  reads its mailbox through :class:`DelegationTurns`, its
  :class:`~subagents.runtime.runner.TurnControl`: after each round of tool calls (the text
  joins that round's results) and when it ends a turn (the text becomes the next user
  message, and the run goes on).
* **A run does not end while agents it started in the background are running**: at the end
  of a turn :meth:`DelegationTurns.next_input` waits for the next notification.  So a
  notification always has a reader, and a parent's result includes its children's work.
* **Background only where it can be delivered**: a run without :class:`DelegationTurns`
  (a library caller's own loop, an agent team's lead) gets foreground results instead.
* **Stopping** (``TaskStop``): the agent's task is cancelled; its owner is told, with
  status ``killed``.  A background agent that fails (a provider error, a crash, a timeout)
  is reported with status ``failed`` and the error; nothing is lost silently.
* **Recursion**: a message to oneself is refused; a message to a running agent is queued,
  never a second concurrent run of the same conversation; continuing a stopped agent runs
  it one level below the sender, under the sender's policy restricted to the agent (never
  looser), within the depth limit.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from subagents.definition import AgentDefinition
from subagents.dispatch.handback import send_result
from subagents.providers.base import Message
from subagents.runtime.result import AgentResult
from subagents.runtime.runner import TurnControl, TurnInput
from subagents.runtime.tools.base import Tool, ToolContext, ToolOutput

if TYPE_CHECKING:
    from subagents.dispatch.dispatcher import AgentDispatcher

__all__ = [
    "AgentRecord",
    "AgentSessions",
    "DelegationTurns",
    "SendMessageTool",
    "TaskStopTool",
]


@dataclass(eq=False, slots=True)
class AgentRecord:
    """One agent the session started: what it is, where it reports, how it ended."""

    id: str
    definition: AgentDefinition
    description: str
    model: str | None
    owner: str  # run id of the run that started (or last continued) it: it gets the notice
    depth: int
    tool_use_id: str | None = None
    run_id: str | None = None  # its current or last run
    state: Literal["running", "stopped"] = "running"
    background: bool = False
    result: AgentResult | None = None
    messages: tuple[Message, ...] = ()
    task: asyncio.Task[Any] | None = None
    transcript: Path | None = None
    #: where a background run's report is written when no transcript is kept (the starting
    #: run's tool-results folder, never the project): a launch result always names a file
    output_file: Path | None = None
    stopped_by: str | None = None  # who stopped it (TaskStop), when it was


@dataclass(slots=True)
class _Mailbox:
    pending: list[TurnInput] = field(default_factory=list)
    # read only with a round's tool results, never as a turn of its own (the agent listing a
    # child gets after its first tool call, as in Claude Code)
    with_results: list[str] = field(default_factory=list)
    running: set[str] = field(default_factory=set)  # background agents this run started
    event: asyncio.Event | None = None

    def wake(self) -> None:
        if self.event is not None:
            self.event.set()


class AgentSessions:
    """The agent table and the runs' mailboxes (see the module docstring)."""

    def __init__(self) -> None:
        self.records: dict[str, AgentRecord] = {}
        self._boxes: dict[str, _Mailbox] = {}

    def add(self, record: AgentRecord) -> AgentRecord:
        self.records[record.id] = record
        return record

    def _box(self, run_id: str) -> _Mailbox:
        box = self._boxes.get(run_id)
        if box is None:
            box = self._boxes[run_id] = _Mailbox()
        return box

    @staticmethod
    def can_notify(ctx: ToolContext) -> bool:
        """Can the run of ``ctx`` be told later (does it read its mailbox)?"""
        return isinstance(ctx.extra.get("turns"), DelegationTurns)

    def post(self, run_id: str, text: str) -> None:
        box = self._box(run_id)
        box.pending.append(text)
        box.wake()

    def post_with_results(self, run_id: str, text: str) -> None:
        """``text`` for ``run_id``'s next round of tool results only (it never starts a turn)."""
        self._box(run_id).with_results.append(text)

    def take(self, run_id: str, *, round_end: bool = False) -> TurnInput | None:
        """Everything waiting for ``run_id``, joined (at the end of a round of tool calls,
        also what waits for one); ``None`` when nothing is.  Texts side by side are joined
        into one; a notice made of several blocks keeps them apart."""
        box = self._boxes.get(run_id)
        if box is None:
            return None
        parts = [*box.with_results, *box.pending] if round_end else list(box.pending)
        if round_end:
            box.with_results.clear()
        box.pending.clear()
        if not parts:
            return None
        blocks: list[str] = []
        loose: list[str] = []
        for part in parts:
            if isinstance(part, str):
                loose.append(part)
                continue
            if loose:
                blocks.append("\n\n".join(loose))
                loose = []
            blocks.extend(part)
        if loose:
            blocks.append("\n\n".join(loose))
        return blocks[0] if len(blocks) == 1 else tuple(blocks)

    def running_for(self, run_id: str) -> set[str]:
        box = self._boxes.get(run_id)
        return set(box.running) if box is not None else set()

    async def wait(self, run_id: str) -> TurnInput | None:
        """The next text for ``run_id``; waits while its background agents run, ``None``
        when nothing waits and none runs."""
        box = self._box(run_id)
        while True:
            text = self.take(run_id)
            if text is not None:
                return text
            if not box.running:
                return None
            box.event = asyncio.Event()
            await box.event.wait()

    def started(self, record: AgentRecord) -> None:
        record.state = "running"
        if record.background:
            self._box(record.owner).running.add(record.id)

    def finished(self, record: AgentRecord, notice: TurnInput | None) -> None:
        """``record`` stopped; ``notice`` (background) goes to its owner."""
        record.state = "stopped"
        box = self._box(record.owner)
        box.running.discard(record.id)
        if notice is not None:
            box.pending.append(notice)
        box.wake()

    def forget_run(self, run_id: str) -> None:
        """A run ended: drop its mailbox (late texts for it have no reader)."""
        self._boxes.pop(run_id, None)

    def stop_owned(self, run_id: str, reason: str) -> list[asyncio.Task[Any]]:
        """Cancel the background agents ``run_id`` started that still run; their tasks."""
        tasks = []
        for agent_id in self.running_for(run_id):
            record = self.records.get(agent_id)
            if record is not None and record.task is not None and not record.task.done():
                record.stopped_by = record.stopped_by or reason
                record.task.cancel()
                tasks.append(record.task)
        return tasks

    def stop_all(self, reason: str) -> list[asyncio.Task[Any]]:
        tasks = []
        for record in self.records.values():
            if record.task is not None and not record.task.done():
                record.stopped_by = record.stopped_by or reason
                record.task.cancel()
                tasks.append(record.task)
        return tasks


class DelegationTurns(TurnControl):
    """The turn control of a run that may start agents in the background: notifications and
    messages join the current round or become the next user message; at the end of a turn
    the run waits for its background agents."""

    def __init__(self, sessions: AgentSessions) -> None:
        self.sessions = sessions

    async def next_input(self, ctx: ToolContext, text: str) -> TurnInput | None:
        return await self.sessions.wait(ctx.run_id)

    def pending_input(self, ctx: ToolContext) -> TurnInput | None:
        return self.sessions.take(ctx.run_id, round_end=True)


_SEND_DESCRIPTION = """\
Send a message to an agent this session started, by the agentId its Agent call returned.

An agent that has stopped picks up its earlier conversation where it left off, with your \
message as the next thing it reads, and runs again; its new report reaches you the way its \
first one did (a notification, or this tool's result when it cannot come later). An agent \
that is still running reads the message at its next step. A new Agent call, by contrast, \
always starts from nothing.

Write the message as a complete instruction: the first line should say what it is about."""


class SendMessageTool(Tool):
    """``SendMessage {to, message, summary?}``: continue (or message) an agent by its id."""

    name: str = "SendMessage"
    description: str = _SEND_DESCRIPTION
    read_only: bool = True  # coordination; what the agent then does is checked in its run
    input_schema: Mapping[str, Any] = {
        "type": "object",
        "properties": {
            "to": {"type": "string", "pattern": "^[^\\n\\r]*$", "maxLength": 300,
                   "description": "The agentId of the agent (from its Agent call's result)"},
            "summary": {"type": "string", "maxLength": 200,
                        "description": "A 5-10 word label for this message, for the record"},
            "message": {"type": "string", "default": "",
                        "description": "The message: what the agent should do next"},
        },
        "required": ["to", "message"],
        "additionalProperties": False,
    }

    def __init__(self, dispatcher: AgentDispatcher) -> None:
        self.dispatcher = dispatcher

    def validate(self, input: Mapping[str, Any]) -> str | None:
        # Lenient about extra fields other harnesses send (notify_when_idle...).
        if not isinstance(input.get("to"), str) or not input["to"].strip():
            return "'to' must be the agentId of an agent this session started"
        if not isinstance(input.get("message", ""), str):
            return "'message' must be text"
        return None

    async def run(self, input: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        sessions = self.dispatcher.sessions
        to = str(input["to"]).strip()
        message = str(input.get("message") or "").strip()
        record = sessions.records.get(to)
        known = list(sessions.records)[-20:]
        if record is None:
            same_type = [r.id for r in sessions.records.values()
                         if r.definition.name.casefold() == to.casefold()]
            if same_type:
                why = (f"{to!r} is an agent type, not an agent id; agents of that type in this "
                       f"session: {', '.join(same_type)}. Use one of these ids in 'to'.")
            else:
                why = (f"there is no agent with id {to!r} in this session: agent ids come from "
                       "the result of an Agent call ('agentId: ...').")
            return ToolOutput.error(send_result(False, why, known=known))
        if not message:
            return ToolOutput.error(send_result(False, "the message is empty: say what the "
                                                "agent should do next"))
        if record.run_id is not None and record.run_id == ctx.run_id:
            return ToolOutput.error(send_result(False, "that id is your own: an agent cannot "
                                                "send a message to itself"))
        return await self.dispatcher.continue_agent(record, message, ctx)


class TaskStopTool(Tool):
    """``TaskStop {task_id}``: stop a background agent of this session."""

    name: str = "TaskStop"
    description: str = (
        "Stop an agent that runs in the background, by the agentId its Agent call returned "
        "(task_id). The agent that started it is told that it was stopped. Use it when the "
        "agent's work is no longer needed or it is going the wrong way.")
    read_only: bool = True
    input_schema: Mapping[str, Any] = {
        "type": "object",
        "properties": {
            "task_id": {"type": "string", "description": "The agentId of the agent to stop"},
            "shell_id": {"type": "string", "description": "Former name of task_id"},
        },
        "additionalProperties": False,
    }

    def __init__(self, dispatcher: AgentDispatcher) -> None:
        self.dispatcher = dispatcher

    async def run(self, input: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        task_id = input.get("task_id") or input.get("shell_id")
        if not isinstance(task_id, str) or not task_id.strip():
            return ToolOutput.error("give the agentId of the agent to stop in task_id")
        record = self.dispatcher.sessions.records.get(task_id.strip())
        if record is None:
            return ToolOutput.error(f"there is no agent with id {task_id!r} in this session")
        if record.state != "running" or record.task is None or record.task.done():
            what = record.description or record.definition.name
            return ToolOutput.error(f"agent {record.id} ({what}) is not running in the "
                                    "background; nothing to stop")
        record.stopped_by = f"stopped by {ctx.agent_name or 'its caller'}"
        record.task.cancel()
        what = record.description or record.definition.name
        return ToolOutput(json.dumps({"message": f"Stopped agent {record.id} ({what})",
                                     "task_id": record.id, "task_type": "agent"},
                                    ensure_ascii=False))
