"""``AgentDispatcher``: a Task call becomes an isolated child run.

::

    dispatcher = AgentDispatcher(registry, runner=AgentRunner(model))
    result = await dispatcher.dispatch("code-reviewer", "Review the diff in HEAD~1")
    task = dispatcher.task_tool(query=user_prompt)      # a runtime Tool named "Task"
    await runner.run(main_agent, user_prompt, extra_tools=[task])

Design decisions
------------------
* **Isolation** is the runner's: a child run starts with the task prompt as its only message,
  its own system prompt, model and tools (``AgentRunner.run``).  The dispatcher passes the
  parent's :class:`~subagents.runtime.tools.ToolContext` as ``parent`` so the runner intersects
  the child's tools and permission mode with the parent's (``PermissionPolicy.restrict``): a
  denylist or a ``plan`` mode of the parent cannot be escaped by delegating (Claude Code
  #78063).  The dispatcher never widens a policy; it only passes the parent's on.
* **No Task tool for children** unless ``nesting=True``; then a child at depth *d* gets one
  while *d* < ``max_depth`` (3, as Claude Code).  A call that would go deeper, or that names an
  agent already running in its own chain of delegations (A → B → A), is refused with an
  ``is_error`` result: infinite recursion costs money, not just time.
* **Concurrency**: at most ``max_concurrency`` (20, as Claude Code) children run at once *per
  nesting level*; the rest wait on a semaphore.  One pool for all levels could deadlock (20
  parents each waiting for a slot for their child).  Several Task calls in one assistant message
  already run concurrently (the runner gathers tool calls); the semaphore bounds them.
* **Failures are results.**  An unknown ``subagent_type`` (with the available agents named),
  a missing prompt, a child that raises, times out (``timeout``) or whose file
  broke since listing: the parent gets an ``is_error`` tool result saying so and continues.
  Only cancellation propagates.
* **The registry is re-read at every dispatch** (``AgentRegistry.reload``: one ``stat`` per
  file), so an agent added, changed or removed while a main thread runs is seen by the next
  Task call; a child already running keeps the definition it started with.
* **The parent sees only the final text**; a child that stopped at its
  ``maxTurns`` returns its summary with a note saying so.  Every child result, failed ones
  included, is appended to the parent's ``ctx.children`` so the whole tree comes back in
  ``AgentResult.children``; :func:`tree_usage` adds usage up across it.
* **Events** for live displays: ``delegate`` / ``delegate_done`` (with ``node`` and
  ``parent_node`` ids), and the runner's own events tagged with the node they belong to (a
  context variable follows each child run into its tool calls).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import itertools
import time
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Unpack

from subagents.definition import AgentDefinition
from subagents.dispatch.config import (
    DEFAULT_MAX_CONCURRENCY,
    DEFAULT_MAX_DEPTH,
    DispatchConfig,
    DispatchOptions,
)
from subagents.dispatch.task_tool import (
    TASK_TOOL_NAME,
    TaskCall,
    TaskInputError,
    agent_tool_map,
    build_task_tool,
    describe_tools,
    normalize_agent_name,
    parse_task_input,
    resolve_agent,
    with_builtins,
)
from subagents.errors import SubagentError
from subagents.providers.base import Model, ToolSpec, Usage
from subagents.runtime.result import AgentResult
from subagents.runtime.tools.base import Tool, ToolContext, ToolInputError, ToolOutput

if TYPE_CHECKING:
    from subagents.registry.core import AgentEntry, AgentRegistry
    from subagents.runtime.runner import AgentRunner

__all__ = [
    "DEFAULT_MAX_CONCURRENCY",
    "DEFAULT_MAX_DEPTH",
    "AgentDispatcher",
    "AgentTool",
    "DispatchEvent",
    "TaskTool",
    "current_node",
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
        return with_builtins(d for d, _ in self._entries())

    def _resolve(self, requested: str) -> _Resolved:
        entries = self._entries()
        headers = with_builtins(d for d, _ in entries)
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

    def task_tool(self, *, query: str | None = None, pinned: Iterable[str] = ()) -> TaskTool:
        """A ``Task`` tool over the current agents, built now (call once per request)."""
        spec = build_task_tool(
            [d for d, _ in self._entries()], query=query, budget_chars=self.config.budget_chars,
            pinned=pinned,
        )
        return TaskTool(self, spec)

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

        The main thread uses it: with an agent as main thread (``run --agent X`` with
        nesting), X is the root of the chain, so a Task call anywhere below cannot start X
        again (recursion); ``None`` starts an empty chain (the built-in main thread)."""
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
        """Run ``agent_name`` on ``task`` in a fresh context; always returns a result.

        Failures (unknown agent, depth, recursion, a raising or timed-out child) come back as
        a result with ``stop_reason="error"`` and ``error`` set; cancellation propagates.
        """
        started = time.perf_counter()
        result = await self._dispatch(agent_name, task, parent, model, description, started)
        if parent is not None:
            parent.children.append(result)
        return result

    async def _dispatch(
        self,
        agent_name: str,
        task: str,
        parent: ToolContext | None,
        model: str | None,
        description: str,
        started: float,
    ) -> AgentResult:
        if not isinstance(task, str) or not task.strip():
            return _error_result(agent_name, "no task prompt was given: write the full task "
                                             "for the agent in 'prompt'", started=started)
        resolved = self._resolve(agent_name)
        if resolved.definition is None:
            message = resolved.problem or (
                f"agent type {agent_name!r} not found. Available agents: "
                + ", ".join(resolved.available)
                + ". Use one of these names in subagent_type, or do the task yourself "
                "(general-purpose handles anything no specialist fits)."
            )
            return _error_result(agent_name, message, started=started)
        agent = resolved.definition
        chain = _CHAIN.get()
        depth = (parent.depth if parent is not None else len(chain)) + 1
        key = normalize_agent_name(agent.qualified_name)
        if depth > self.config.max_depth:
            return _error_result(agent.name, f"cannot delegate to {agent.name!r}: delegation "
                                 f"depth limit of {self.config.max_depth} reached", started=started)
        if any(k == key for _, k in chain):
            path = " → ".join([*(k for _, k in chain), key])
            return _error_result(agent.name, f"agent {agent.name!r} is already running in this "
                                 f"chain of delegations ({path}); an agent cannot delegate to "
                                 "itself. Do the work here instead.", started=started)
        node = f"n{next(_node_ids)}"
        parent_node = current_node()
        self._emit("delegate", {"node": node, "parent_node": parent_node, "agent": agent.name,
                                "description": description, "depth": depth,
                                "tools": describe_tools(agent)})
        token = _CHAIN.set((*chain, (node, key)))
        try:
            result = await self._run_child(agent, task, parent, model, depth, started)
        finally:
            _CHAIN.reset(token)
        self._emit("delegate_done", {
            "node": node, "parent_node": parent_node, "agent": agent.name,
            "stop_reason": result.stop_reason, "ok": result.ok, "error": result.error,
            "turns": result.turns, "input_tokens": result.usage.input_tokens,
            "output_tokens": result.usage.output_tokens,
        })
        return result

    async def _run_child(
        self,
        agent: AgentDefinition,
        task: str,
        parent: ToolContext | None,
        model: str | None,
        depth: int,
        started: float,
    ) -> AgentResult:
        runner = self.runner if self.runner is not None else self.runner_factory()  # type: ignore[misc]
        extra: list[Tool] = []
        if self.config.nesting and depth < self.config.max_depth:
            extra.append(self.task_tool(query=task))
        async with self._semaphore(depth):
            self.running += 1
            self.peak_running = max(self.peak_running, self.running)
            deadline = asyncio.timeout(self.config.timeout)
            try:
                async with deadline:
                    return await runner.run(
                        agent, task, model=model, parent=parent, extra_tools=extra,
                        policy=None if parent is not None else self.config.policy,
                    )
            except TimeoutError as exc:
                if not deadline.expired():
                    # A TimeoutError of the child's own (a tool, a client): a failure, not
                    # our deadline, and there may be no deadline to print.
                    return _error_result(agent.name, f"agent {agent.name!r} failed: "
                                         f"TimeoutError: {exc}", started=started)
                return _error_result(agent.name, f"agent {agent.name!r} timed out after "
                                     f"{self.config.timeout:g} s and was stopped", started=started)
            except SubagentError as exc:
                return _error_result(agent.name, f"agent {agent.name!r} failed: {exc}",
                                     started=started)
            except Exception as exc:  # a child's bug must not take the parent down
                return _error_result(agent.name, f"agent {agent.name!r} failed: "
                                     f"{type(exc).__name__}: {exc}", started=started)
            finally:
                self.running -= 1

    async def handle_call(self, call: TaskCall, ctx: ToolContext) -> ToolOutput:
        """A parsed Task call → the tool result the parent model sees."""
        result = await self.dispatch(call.subagent_type, call.prompt, parent=ctx,
                                     model=call.model, description=call.description)
        return result_to_output(result)


def result_to_output(result: AgentResult) -> ToolOutput:
    """Only the child's final text goes back; failures as ``is_error``."""
    if result.stop_reason in ("error", "interrupted"):
        text = result.final_text.strip()
        message = result.error or f"agent {result.agent!r} stopped: {result.stop_reason}"
        return ToolOutput.error(message + (f"\n\nPartial output:\n{text}" if text else ""))
    text = result.final_text
    if result.stop_reason == "max_turns":
        text = (f"{text}\n\n(note: agent {result.agent!r} stopped at its turn limit after "
                f"{result.turns} turns; the above is its summary)").strip()
    return ToolOutput(text or f"(agent {result.agent!r} finished without a final message)")


def _is_registry(obj: object) -> bool:
    return hasattr(obj, "reload") and hasattr(obj, "list") and hasattr(obj, "entry")


class TaskTool(Tool):
    """The ``Task`` tool as a runtime tool: spec built from the agents, calls dispatched.

    Input is checked by :func:`parse_task_input` (a better message than the schema validator,
    and lenient about extra fields Claude Code's Task accepts such as ``run_in_background``).
    Delegating changes nothing by itself, so it needs no permission (``read_only``); what the
    child then does is checked under the child's own, never looser, policy.
    """

    name: str = TASK_TOOL_NAME
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
        call = TaskCall(self.agent.qualified_name, call.prompt, call.description, call.model)
        return await self.dispatcher.handle_call(call, ctx)
