"""``AgentDispatcher``: an Agent call becomes an isolated child run.

::

    dispatcher = AgentDispatcher(registry, runner=AgentRunner(model))
    result = await dispatcher.dispatch("code-reviewer", "Review the diff in HEAD~1")
    agent = dispatcher.task_tool()                      # a runtime Tool named "Agent"
    await runner.run(main_agent, user_prompt, extra_tools=[agent])

Design decisions
------------------
* **Isolation** is the runner's: a child run starts with the task prompt as its only message,
  its own system prompt, model and tools (``AgentRunner.run``).  The dispatcher passes the
  parent's :class:`~subagents.runtime.tools.ToolContext` as ``parent`` so the runner intersects
  the child's tools and permission mode with the parent's (``PermissionPolicy.restrict``): a
  denylist or a ``plan`` mode of the parent cannot be escaped by delegating (Claude Code
  #78063).  The dispatcher never widens a policy; it only passes the parent's on.
* **The protocol is Claude Code 2.1.332's** (RUNTIME-2.1.332.md row 4): every agent gets an
  id; a foreground result is framed as model output with the id and usage
  (:mod:`subagents.dispatch.handback`); by default an agent runs in the background where the
  calling run can be told later (:mod:`subagents.dispatch.sessions`): the call returns at
  once and a notification follows; ``SendMessage`` continues a stopped agent with its
  earlier conversation; ``TaskStop`` stops a background one.
* **Nesting**: a child that has every tool gets the Agent tool itself (and ``SendMessage``
  and ``TaskStop``) while its depth is below ``max_depth`` (3: children at depth 1 and 2 may
  delegate, as measured); its own allowlist and denylist still decide whether it is offered.
  A call that would go deeper is refused with an ``is_error`` result naming the limit.  The
  same agent type may appear twice in one chain (Claude Code allows general-purpose →
  general-purpose); the depth limit is what bounds recursion.  ``nesting=False`` gives
  children no Agent tool at all.
* **Concurrency**: at most ``max_concurrency`` (20, as Claude Code) children run at once *per
  nesting level*; the rest wait on a semaphore.  One pool for all levels could deadlock (20
  parents each waiting for a slot for their child).  Several Agent calls in one assistant
  message already run concurrently (the runner gathers tool calls); the semaphore bounds them.
* **Failures are results.**  An unknown ``subagent_type`` (with the available agents named),
  a missing prompt, a child that raises, times out (``timeout``) or whose file
  broke since listing: the parent gets an ``is_error`` tool result (or a ``failed``
  notification) saying so and continues.  Only cancellation propagates.
* **The registry is re-read at every dispatch** (``AgentRegistry.reload``: one ``stat`` per
  file), so an agent added, changed or removed while a main thread runs is seen by the next
  Agent call; a child already running keeps the definition it started with.
* **Turn limit**: a child that stops at its ``maxTurns`` has no report; the parent is told
  so, with the id to continue it.  Every child result, failed ones included, is appended to
  the parent's ``ctx.children`` so the whole tree comes back in ``AgentResult.children``;
  :func:`tree_usage` adds usage up across it.
* **Events** for live displays: ``delegate`` / ``delegate_done`` (with ``node`` and
  ``parent_node`` ids), and the runner's own events tagged with the node they belong to (a
  context variable follows each child run into its tool calls).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import itertools
import re
import time
import uuid
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Unpack

from subagents.definition import AgentDefinition
from subagents.dispatch.config import (
    DEFAULT_MAX_CONCURRENCY,
    DEFAULT_MAX_DEPTH,
    DispatchConfig,
    DispatchOptions,
)
from subagents.dispatch.handback import (
    foreground_text,
    incoming_message,
    launch_text,
    new_agent_id,
    notification_blocks,
    send_result,
)
from subagents.dispatch.sessions import (
    AgentRecord,
    AgentSessions,
    DelegationTurns,
    SendMessageTool,
    TaskStopTool,
)
from subagents.dispatch.task_tool import (
    AGENT_TOOL_NAME,
    DELEGATION_BUILTINS,
    TaskCall,
    TaskInputError,
    agent_listing,
    agent_tool_map,
    build_task_tool,
    describe_tools,
    normalize_agent_name,
    parse_task_input,
    resolve_agent,
    with_builtins,
)
from subagents.errors import SubagentError
from subagents.fs import atomic_write
from subagents.providers.base import Message, Model, ToolSpec, Usage
from subagents.runtime.result import AgentResult, ResultSlot
from subagents.runtime.tool_step import current_tool_use_id
from subagents.runtime.tools.base import Tool, ToolContext, ToolInputError, ToolOutput
from subagents.runtime.tools.shell import tool_results_dir

if TYPE_CHECKING:
    from subagents.registry.core import AgentEntry, AgentRegistry
    from subagents.runtime.permissions import PermissionPolicy
    from subagents.runtime.runner import AgentRunner

__all__ = [
    "DEFAULT_MAX_CONCURRENCY",
    "DEFAULT_MAX_DEPTH",
    "AgentDispatcher",
    "AgentTool",
    "DispatchEvent",
    "TaskTool",
    "current_node",
    "listing_reminder",
    "tree_usage",
]

EventSink = Callable[[str, Mapping[str, Any]], None]
DispatchEvent = tuple[str, Mapping[str, Any]]

# The delegation chain of the run this code is executing in: ((node id, agent key), ...).
_CHAIN: contextvars.ContextVar[tuple[tuple[str, str], ...]] = contextvars.ContextVar(
    "subagents_dispatch_chain", default=()
)
_node_ids = itertools.count(1)


def current_node() -> str:
    """The delegation node the calling code runs in (``main`` outside any delegation)."""
    chain = _CHAIN.get()
    return chain[-1][0] if chain else "main"


def tree_usage(result: AgentResult) -> Usage:
    """Token usage of a run plus every run it delegated to, recursively."""
    total = result.usage
    for child in result.children:
        total = total + tree_usage(child)
    return total


def listing_reminder(listing: str, *, lead: str = "") -> str:
    """The agent listing as the model reads it in the conversation: one system reminder
    (``lead``, e.g. an explicit-invocation line, first)."""
    tip = ("Agents for independent pieces of work can be started together: several Agent "
           "calls in one message run at the same time.")
    body = "\n\n".join(p for p in (lead, listing, tip) if p)
    return f"<system-reminder>\n{body}\n</system-reminder>"


def _run_id(agent: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9_-]+", "-", agent).strip("-")[:40] or "agent"
    return f"{time.strftime('%Y%m%dT%H%M%S')}-{slug}-{uuid.uuid4().hex[:8]}"


def _error_result(agent: str, message: str, *, started: float | None = None) -> AgentResult:
    return AgentResult(
        agent=agent,
        model="",
        final_text="",
        stop_reason="error",
        turns=0,
        error=message,
        duration=(time.perf_counter() - started) if started is not None else 0.0,
    )


@dataclass(frozen=True, slots=True)
class _Resolved:
    definition: AgentDefinition | None
    available: tuple[str, ...]
    problem: str | None = None


@dataclass(frozen=True, slots=True)
class _Prepared:
    """A delegation that passed its checks: what runs, where."""

    agent: AgentDefinition
    depth: int


class AgentDispatcher:
    """Runs Task calls as isolated child runs of an :class:`AgentRunner`.

    ``agents`` is an :class:`~subagents.registry.core.AgentRegistry` (re-read at each dispatch), a
    fixed iterable of definitions, or a callable returning the current ones.  Built-in
    ``general-purpose`` is always available unless an agent of that name overrides it.
    ``runner`` runs the children (it may be the one running the parent); ``runner_factory``
    makes one per child instead; ``model`` alone makes a default runner.  The options are a
    :class:`~subagents.dispatch.config.DispatchConfig` (``config``) or its fields as keywords.
    """

    def __init__(
        self,
        agents: AgentRegistry | Iterable[AgentDefinition] | Callable[[], Iterable[AgentDefinition]],
        config: DispatchConfig | None = None,
        *,
        runner: AgentRunner | None = None,
        runner_factory: Callable[[], AgentRunner] | None = None,
        model: Model | None = None,
        **options: Unpack[DispatchOptions],
    ) -> None:
        cfg = (config or DispatchConfig()).with_options(**options)
        if runner is None and runner_factory is None and model is not None:
            from subagents.runtime.runner import AgentRunner

            runner = AgentRunner(model, policy=cfg.policy)
        if runner is None and runner_factory is None:
            raise SubagentError(
                "AgentDispatcher needs a model or a runner to run the agents",
                hint="pass model=..., runner=AgentRunner(model) or runner_factory=...",
            )
        if cfg.max_depth < 1 or cfg.max_concurrency < 1:
            raise SubagentError("max_depth and max_concurrency must be at least 1")
        self._source: Any = (
            agents if callable(agents) or _is_registry(agents) else tuple(agents)  # type: ignore[arg-type]
        )
        self.runner = runner
        self.runner_factory = runner_factory
        self.config = cfg
        self._semaphores: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, dict[int, asyncio.Semaphore]
        ] = weakref.WeakKeyDictionary()
        self.running = 0  # children running now (all levels), for tests and displays
        self.peak_running = 0
        self.sessions = AgentSessions()

    # ------------------------------------------------------------------ the agents

    def _entries(self) -> list[tuple[AgentDefinition, AgentEntry | None]]:
        """(header definition, registry entry or None), current, in precedence order."""
        src = self._source
        if _is_registry(src):
            registry: AgentRegistry = src
            if self.config.reload:
                with contextlib.suppress(SubagentError, OSError):
                    registry.reload()
            return [(e.header, e) for e in registry.list(include_builtin=True)]
        if callable(src):
            return [(d, None) for d in src()]
        return [(d, None) for d in src]

    def agents(self) -> list[AgentDefinition]:
        """The agents a Task call may name now (headers: bodies not necessarily loaded)."""
        return with_builtins((d for d, _ in self._entries()), DELEGATION_BUILTINS)

    def _resolve(self, requested: str) -> _Resolved:
        entries = self._entries()
        headers = with_builtins((d for d, _ in entries), DELEGATION_BUILTINS)
        available = tuple(d.qualified_name for d in headers)
        found = resolve_agent(requested, headers)
        if found is None:
            return _Resolved(None, available)
        entry = next((e for d, e in entries if d is found), None)
        if entry is None:
            return _Resolved(found, available)
        try:
            return _Resolved(entry.definition, available)
        except SubagentError as exc:
            return _Resolved(None, available, f"agent {found.qualified_name!r} cannot be "
                                              f"loaded: {exc}")

    # ------------------------------------------------------------------ tools for the model

    def task_tool(self, *, query: str | None = None, pinned: Iterable[str] = (),
                  listing_in_description: bool = False) -> TaskTool:
        """The ``Agent`` tool over the current agents, built now (call once per request).

        The agents are listed by :meth:`listing` (in the conversation); with
        ``listing_in_description`` in the tool's description instead."""
        spec = build_task_tool(
            [d for d, _ in self._entries()], query=query, budget_chars=self.config.budget_chars,
            pinned=pinned, listing_in_description=listing_in_description,
            model_aliases=self.config.model_aliases,
        )
        return TaskTool(self, spec)

    def listing(self, *, query: str | None = None, pinned: Iterable[str] = ()) -> str:
        """The agent listing (:func:`~subagents.dispatch.task_tool.agent_listing`) now."""
        return agent_listing(self.agents(), query=query, budget_chars=self.config.budget_chars,
                             pinned=pinned)

    def session_tools(self) -> list[Tool]:
        """``SendMessage`` and ``TaskStop`` for the agents this dispatcher starts."""
        return [SendMessageTool(self), TaskStopTool(self)]

    def delegation_tools(self, *, query: str | None = None,
                         pinned: Iterable[str] = ()) -> list[Tool]:
        """Everything a run that may delegate gets: Agent, SendMessage, TaskStop."""
        return [self.task_tool(query=query, pinned=pinned), *self.session_tools()]

    def turn_control(self) -> DelegationTurns:
        """The :class:`~subagents.runtime.runner.TurnControl` a run must have for background
        agents: pass it as ``runner.run(..., turns=...)``."""
        return DelegationTurns(self.sessions)

    def agent_tool_definitions(self) -> list[ToolSpec]:
        """Each agent as its own tool ``agent__{name}``."""
        return [t.spec() for t in self.agent_tools()]

    def agent_tools(self) -> list[Tool]:
        """Runtime tools for :meth:`agent_tool_definitions`: calling one dispatches its agent."""
        tools: list[Tool] = []
        current = with_builtins(d for d, _ in self._entries())
        for tool_name, agent in agent_tool_map(current).items():
            tools.append(AgentTool(self, agent, name=tool_name))
        return tools

    # ------------------------------------------------------------------ dispatching

    @contextlib.contextmanager
    def rooted_at(self, agent_name: str | None) -> Iterator[None]:
        """Run the code inside as a fresh delegation tree whose root is ``agent_name``.

        The main thread uses it: with an agent as main thread (``run --agent X``), X is the
        root of the chain (the display's and the events' tree); ``None`` starts an empty
        chain (the built-in main thread)."""
        root = (("main", normalize_agent_name(agent_name)),) if agent_name is not None else ()
        token = _CHAIN.set(root)
        try:
            yield
        finally:
            _CHAIN.reset(token)

    def _semaphore(self, depth: int) -> asyncio.Semaphore:
        # Keyed by the loop object itself (weakly), not ``id(loop)``: a dispatcher used by
        # several ``asyncio.run`` calls could otherwise meet a new loop at a dead loop's
        # address and reuse its semaphore ("bound to a different event loop").
        per_loop = self._semaphores.setdefault(asyncio.get_running_loop(), {})
        sem = per_loop.get(depth)
        if sem is None:
            sem = per_loop[depth] = asyncio.Semaphore(self.config.max_concurrency)
        return sem

    def _emit(self, kind: str, data: Mapping[str, Any]) -> None:
        if self.config.on_event is not None:
            with contextlib.suppress(Exception):
                self.config.on_event(kind, data)

    async def dispatch(
        self,
        agent_name: str,
        task: str,
        *,
        parent: ToolContext | None = None,
        model: str | None = None,
        description: str = "",
    ) -> AgentResult:
        """Run ``agent_name`` on ``task`` in a fresh context, in the foreground; always
        returns a result.

        Failures (unknown agent, depth, a raising or timed-out child) come back as a result
        with ``stop_reason="error"`` and ``error`` set; cancellation propagates.
        """
        _, result = await self._foreground(agent_name, task, parent, model, description)
        return result

    def _prepare(self, agent_name: str, task: str, parent: ToolContext | None,
                 started: float) -> _Prepared | AgentResult:
        if not isinstance(task, str) or not task.strip():
            return _error_result(agent_name, "no task prompt was given: write the full task "
                                             "for the agent in 'prompt'", started=started)
        resolved = self._resolve(agent_name)
        if resolved.definition is None:
            message = resolved.problem or (
                f"Agent type {agent_name!r} not found. Available agents: "
                # in name order, case aside, as Claude Code lists them
                + ", ".join(sorted(resolved.available, key=str.casefold))
                + ". Use one of these names in subagent_type, or do the task yourself "
                "(general-purpose handles anything no specialist fits)."
            )
            return _error_result(agent_name, message, started=started)
        return self._checked_depth(resolved.definition, parent, started)

    def _checked_depth(self, agent: AgentDefinition, parent: ToolContext | None,
                       started: float) -> _Prepared | AgentResult:
        depth = (parent.depth if parent is not None else len(_CHAIN.get())) + 1
        if depth > self.config.max_depth:
            return _error_result(agent.name, f"cannot start {agent.name!r}: agents may be "
                                 f"nested at most {self.config.max_depth} deep (delegation "
                                 f"depth limit of {self.config.max_depth} reached); do this "
                                 "part of the work yourself", started=started)
        return _Prepared(agent, depth)

    def _record(self, prep: _Prepared, parent: ToolContext | None, model: str | None,
                description: str, *, background: bool) -> AgentRecord:
        record = AgentRecord(
            id=new_agent_id(), definition=prep.agent, description=description, model=model,
            owner=parent.run_id if parent is not None else "", depth=prep.depth,
            tool_use_id=current_tool_use_id(), background=background)
        return self.sessions.add(record)

    async def _foreground(
        self, agent_name: str, task: str, parent: ToolContext | None, model: str | None,
        description: str,
    ) -> tuple[AgentRecord | None, AgentResult]:
        started = time.perf_counter()
        prep = self._prepare(agent_name, task, parent, started)
        if isinstance(prep, AgentResult):
            if parent is not None:
                parent.children.append(prep)
            return None, prep
        record = self._record(prep, parent, model, description, background=False)
        self._new_run(record)
        result = await self._execute(record, task, parent, started)
        return record, result

    async def _execute(
        self, record: AgentRecord, task: str, parent: ToolContext | None, started: float,
        *, history: Sequence[Message] = (),
    ) -> AgentResult:
        """Run ``record``'s agent (a first run, or a continuation with ``history``); the
        result joins ``parent.children`` and the record."""
        agent = record.definition
        chain = _CHAIN.get()
        key = normalize_agent_name(agent.qualified_name)
        node = f"n{next(_node_ids)}"
        parent_node = current_node()
        if record.run_id is None:
            self._new_run(record)
        run_ids: list[str] = [record.run_id or ""]
        self.sessions.started(record)
        self._emit("delegate", {"node": node, "parent_node": parent_node, "agent": agent.name,
                                "description": record.description, "depth": record.depth,
                                "tools": describe_tools(agent), "agent_id": record.id,
                                "background": record.background})
        token = _CHAIN.set((*chain, (node, key)))
        result: AgentResult | None = None
        try:
            result = await self._run_child(record, task, parent, started, history)
            # Messages that came in just as it stopped: it goes on with them.
            while (late := self.sessions.take(run_ids[-1])) is not None:
                self._new_run(record)
                run_ids.append(record.run_id or "")
                late_text = late if isinstance(late, str) else "\n\n".join(late)
                result = await self._run_child(record, late_text, parent, started,
                                               record.messages or result.messages)
        finally:
            _CHAIN.reset(token)
            record.state = "stopped"
            for run_id in run_ids:
                # Its own background agents do not outlive it (it ended at a limit, failed
                # or was stopped).
                for t in self.sessions.stop_owned(run_id, f"{agent.name} stopped"):
                    with contextlib.suppress(BaseException):
                        await asyncio.wait_for(asyncio.shield(t), 5)
                self.sessions.forget_run(run_id)
        self._emit("delegate_done", {
            "node": node, "parent_node": parent_node, "agent": agent.name,
            "stop_reason": result.stop_reason, "ok": result.ok, "error": result.error,
            "turns": result.turns, "input_tokens": result.usage.input_tokens,
            "output_tokens": result.usage.output_tokens, "agent_id": record.id,
        })
        if parent is not None:
            parent.children.append(result)
        return result

    def _new_run(self, record: AgentRecord) -> None:
        """A fresh run id (and transcript path) for the next run of ``record``."""
        record.run_id = _run_id(record.definition.name)
        record.transcript = self._transcript_path(record.run_id)

    def _transcript_path(self, run_id: str) -> Path | None:
        runner = self.runner
        if runner is None or not runner.transcripts:
            return None
        from subagents.runtime.transcript import default_transcript_dir

        return (runner.transcript_dir or default_transcript_dir()) / f"{run_id}.jsonl"

    def _delegates(self, record: AgentRecord, parent: ToolContext | None,
                   runner: AgentRunner) -> bool:
        """Does this child get the Agent tool (nesting on, depth below the limit, and its
        own tools, under its parent's policy, allow it)?"""
        if not self.config.nesting or record.depth >= self.config.max_depth:
            return False
        outer = (parent.policy if parent is not None else None) or self.config.policy or (
            runner.policy)
        return self.offers_agent_tool(record.definition, outer)

    def offers_agent_tool(self, agent: AgentDefinition, policy: PermissionPolicy) -> bool:
        """Would a run of ``agent`` under ``policy`` be offered the Agent tool (its tools
        and disallowedTools, and the policy's, allow it)?"""
        probe = {AGENT_TOOL_NAME: self.task_tool()}
        return bool(policy.restrict(agent).tools.apply(probe))

    async def _run_child(
        self,
        record: AgentRecord,
        task: str,
        parent: ToolContext | None,
        started: float,
        history: Sequence[Message] = (),
    ) -> AgentResult:
        agent = record.definition
        runner = self.runner if self.runner is not None else self.runner_factory()  # type: ignore[misc]
        extra: list[Tool] = []
        turns: DelegationTurns | None = None
        if self._delegates(record, parent, runner):
            extra = self.delegation_tools(query=task)
            turns = self.turn_control()
            if not history:
                # A first run is told which agents exist with its first tool results, as in
                # Claude Code (a child that answers at once never needs the list).
                self.sessions.post_with_results(record.run_id or "", listing_reminder(
                    self.listing(query=task)))
        slot = ResultSlot()
        async with self._semaphore(record.depth):
            self.running += 1
            self.peak_running = max(self.peak_running, self.running)
            deadline = asyncio.timeout(self.config.timeout)
            try:
                async with deadline:
                    result = await runner.run(
                        agent, task, model=record.model, parent=parent, extra_tools=extra,
                        policy=None if parent is not None else self.config.policy,
                        turns=turns, run_id=record.run_id, history=history, result_slot=slot,
                    )
            except asyncio.CancelledError:
                # stopped (TaskStop, or its parent ended): what it did joins the tree
                if slot.result is not None:
                    record.result = slot.result
                    if parent is not None:
                        parent.children.append(slot.result)
                raise
            except TimeoutError as exc:
                if not deadline.expired():
                    # A TimeoutError of the child's own (a tool, a client): a failure, not
                    # our deadline, and there may be no deadline to print.
                    result = _error_result(agent.name, f"agent {agent.name!r} failed: "
                                           f"TimeoutError: {exc}", started=started)
                else:
                    result = _error_result(agent.name, f"agent {agent.name!r} timed out after "
                                           f"{self.config.timeout:g} s and was stopped",
                                           started=started)
            except SubagentError as exc:
                result = _error_result(agent.name, f"agent {agent.name!r} failed: {exc}",
                                       started=started)
            except Exception as exc:  # a child's bug must not take the parent down
                result = _error_result(agent.name, f"agent {agent.name!r} failed: "
                                       f"{type(exc).__name__}: {exc}", started=started)
            finally:
                self.running -= 1
        record.result = result
        if result.messages:
            record.messages = result.messages
        return result

    # ------------------------------------------------------------------ the protocol

    def _limit_of(self, record: AgentRecord) -> int | None:
        runner = self.runner
        return record.definition.max_turns or (runner.default_max_turns if runner else None)

    async def handle_call(self, call: TaskCall, ctx: ToolContext) -> ToolOutput:
        """A parsed Agent call → the tool result the parent model sees: a background
        launch where the run can be told later (and the call did not ask to wait), else the
        framed foreground result."""
        background = self.config.background if call.run_in_background is None else (
            call.run_in_background)
        if background and self.sessions.can_notify(ctx):
            return self._launch(call, ctx)
        record, result = await self._foreground(call.subagent_type, call.prompt, ctx,
                                                call.model, call.description)
        return result_to_output(result, record, limit=self._limit_of(record) if record else None)

    def _launch(self, call: TaskCall, ctx: ToolContext) -> ToolOutput:
        started = time.perf_counter()
        prep = self._prepare(call.subagent_type, call.prompt, ctx, started)
        if isinstance(prep, AgentResult):
            ctx.children.append(prep)
            return result_to_output(prep, None)
        record = self._record(prep, ctx, call.model, call.description, background=True)
        self._start_background(record, call.prompt, ctx, started)
        # the path the transcript will have (the run id is made when the run starts), or the
        # file in the starting run's tool-results folder that gets the report
        return ToolOutput(launch_text(record.id, record.transcript or record.output_file,
                                      report_only=record.transcript is None))

    def _start_background(self, record: AgentRecord, task: str, ctx: ToolContext,
                          started: float, history: Sequence[Message] = ()) -> None:
        record.background = True
        record.owner = ctx.run_id
        record.state = "running"
        record.stopped_by = None
        self._new_run(record)
        if record.transcript is None:
            record.output_file = tool_results_dir(ctx) / f"agent-{record.id}.output"
        self.sessions.started(record)
        record.task = asyncio.get_running_loop().create_task(
            self._background(record, task, ctx, started, history))

    async def _background(self, record: AgentRecord, task: str, ctx: ToolContext,
                          started: float, history: Sequence[Message]) -> None:
        notice: tuple[str, ...] | None = None
        output = record.transcript or record.output_file
        try:
            result = await self._execute(record, task, ctx, started, history=history)
            status: Any = "completed"
            if result.stop_reason == "error":
                status = "failed"
            elif result.stop_reason == "interrupted":
                status = "killed"
            notice = notification_blocks(
                agent_id=record.id, tool_use_id=record.tool_use_id,
                description=record.description, status=status, result=result,
                transcript=output, error=result.error,
                limit=self._limit_of(record))
        except asyncio.CancelledError:
            notice = notification_blocks(
                agent_id=record.id, tool_use_id=record.tool_use_id,
                description=record.description, status="killed", result=record.result,
                transcript=output, error=record.stopped_by or "it was cancelled")
            raise
        except Exception as exc:  # pragma: no cover - _execute turns failures into results
            notice = notification_blocks(
                agent_id=record.id, tool_use_id=record.tool_use_id,
                description=record.description, status="failed", result=None,
                transcript=output, error=f"{type(exc).__name__}: {exc}")
        finally:
            self._write_output(record)
            self.sessions.finished(record, notice)

    @staticmethod
    def _write_output(record: AgentRecord) -> None:
        """The report of a background run, in the file its launch result named when no
        transcript stands in for it.  The folder is the starting run's own (0700, outside
        the project); a failure to write leaves the file missing, never the notification
        undelivered."""
        path = record.output_file
        if path is None or record.transcript is not None:
            return
        result = record.result
        text = "" if result is None else (result.final_text or result.error or "")
        with contextlib.suppress(OSError):
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            atomic_write(path, text, mode=0o600, fsync=False)

    async def continue_agent(self, record: AgentRecord, message: str,
                             ctx: ToolContext) -> ToolOutput:
        """``SendMessage`` to ``record``: queue the message for a running agent, or run a
        stopped one again with its earlier conversation and the message (in the background
        where ``ctx``'s run can be told later), one level below the sender."""
        if record.state == "running":
            if record.run_id is None:  # pragma: no cover - set before a run starts
                return ToolOutput.error(send_result(False, "the agent is starting; try again"))
            self.sessions.post(record.run_id, incoming_message(message))
            return ToolOutput(send_result(
                True, f"Message queued for agent {record.id}, which is still running: it reads "
                "it at its next step."))
        started = time.perf_counter()
        prep = self._checked_depth(record.definition, ctx, started)
        if isinstance(prep, AgentResult):
            return ToolOutput.error(send_result(False, prep.error or "cannot continue"))
        record.depth = prep.depth
        record.tool_use_id = current_tool_use_id()
        history = record.messages
        text = incoming_message(message)
        if self.config.background and self.sessions.can_notify(ctx):
            self._start_background(record, text, ctx, started, history)
            return ToolOutput(send_result(
                True, f"Agent {record.id} continues with your message in the background; its "
                "new report arrives as a notification.", agent_id=record.id))
        record.background = False
        record.owner = ctx.run_id
        self._new_run(record)
        result = await self._execute(record, text, ctx, started, history=history)
        return result_to_output(result, record, limit=self._limit_of(record))


def result_to_output(result: AgentResult, record: AgentRecord | None = None, *,
                     limit: int | None = None) -> ToolOutput:
    """A foreground child's result as its parent reads it: framed with its id and usage
    (:func:`~subagents.dispatch.handback.foreground_text`); failures as ``is_error``."""
    if result.stop_reason in ("error", "interrupted"):
        text = result.final_text.strip()
        message = result.error or f"agent {result.agent!r} stopped: {result.stop_reason}"
        message += f"\n\nPartial output:\n{text}" if text else ""
        if record is not None:
            from subagents.dispatch.handback import continue_hint

            message += "\n" + continue_hint(record.id)
        return ToolOutput.error(message)
    if record is None:  # pragma: no cover - every run that ran has a record
        return ToolOutput(result.final_text or f"(agent {result.agent!r} gave no report)")
    return ToolOutput(foreground_text(result, record.id, limit=limit))


def _is_registry(obj: object) -> bool:
    return hasattr(obj, "reload") and hasattr(obj, "list") and hasattr(obj, "entry")


class TaskTool(Tool):
    """The ``Task`` tool as a runtime tool: spec built from the agents, calls dispatched.

    Input is checked by :func:`parse_task_input` (a better message than the schema validator,
    and lenient about extra fields Claude Code's Task accepts such as ``run_in_background``).
    Delegating changes nothing by itself, so it needs no permission (``read_only``); what the
    child then does is checked under the child's own, never looser, policy.
    """

    name: str = AGENT_TOOL_NAME
    read_only: bool = True

    def __init__(self, dispatcher: AgentDispatcher, spec: ToolSpec) -> None:
        self.dispatcher = dispatcher
        self._spec = spec

    def spec(self) -> ToolSpec:
        return ToolSpec(self.name, self._spec.description, self._spec.input_schema)

    def validate(self, input: Mapping[str, Any]) -> str | None:
        return None  # see run(): the Task-specific checks give the model a better message

    async def run(self, input: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        try:
            call = parse_task_input(input)
        except TaskInputError as exc:
            raise ToolInputError(exc.message) from None
        return await self.dispatcher.handle_call(call, ctx)


class AgentTool(Tool):
    """One agent offered as its own tool (``agent__{name}``); input ``{prompt}``."""

    read_only: bool = True

    def __init__(self, dispatcher: AgentDispatcher, agent: AgentDefinition, *,
                 name: str | None = None) -> None:
        from subagents.dispatch.task_tool import agent_tool_map

        self.dispatcher = dispatcher
        self.agent = agent
        self.name = name or next(iter(agent_tool_map([agent])))

    def spec(self) -> ToolSpec:
        from subagents.dispatch.task_tool import agent_tool_definitions

        base = agent_tool_definitions([self.agent])[0]
        return ToolSpec(self.name, base.description, base.input_schema)

    def validate(self, input: Mapping[str, Any]) -> str | None:
        return None

    async def run(self, input: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        try:
            call = parse_task_input(input, default_agent=self.agent.qualified_name)
        except TaskInputError as exc:
            raise ToolInputError(exc.message) from None
        call = TaskCall(self.agent.qualified_name, call.prompt, call.description, call.model,
                        call.run_in_background)
        return await self.dispatcher.handle_call(call, ctx)
