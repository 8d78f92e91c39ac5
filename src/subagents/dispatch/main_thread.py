"""The main thread: a run that decides, by the agents' descriptions, when to delegate.

``subagents run PROMPT`` (no ``--agent``) calls :func:`run_main_thread`: the main-thread agent
gets the built-in tools plus the ``Agent`` tool (with ``SendMessage`` and ``TaskStop``), the
agents the registry sees are listed to it in a system reminder at the start of the
conversation, and each Agent call becomes an isolated child run through
:class:`~subagents.dispatch.dispatcher.AgentDispatcher`.  The result is the main thread's
:class:`~subagents.runtime.result.AgentResult` with the delegation tree in ``children``.

Design decisions
----------------
* **Explicit invocation as Claude Code 2.1.332 does it** (RUNTIME-2.1.332.md row 9): an
  ``@agent-X`` mention of an existing agent adds one line to the system reminder saying the
  user wants agent X; plain words ("use the X agent") add nothing, and no request ever
  forces a tool call (``tool_choice``): the model decides.  (``auto_route``, Codex's
  keywords, adds the same line.)  An ``@agent-X`` naming no agent is reported (a warning in
  the result and a ``notice`` event).
* **The agent listing** is in the conversation, not in the Agent tool's description: a
  ``<system-reminder>`` after the user's prompt in the first user message (Claude Code's
  system message follows the prompt too), with the explicit-invocation line first when
  there is one.
* **Background agents**: the main thread runs with the dispatcher's
  :class:`~subagents.dispatch.sessions.DelegationTurns`, so an agent it starts in the
  background reports through a notification, and the run does not end while one is still
  running.  When the run ends anyhow (Ctrl-C, an error), agents still running are stopped.
* **Models** follow one rule everywhere (:func:`subagents.providers.models.choose_model` through
  ``AgentRunner.resolve_model``): a child delegated to — explicitly or not — runs on
  ``CLAUDE_CODE_SUBAGENT_MODEL``, else the Agent call's ``model``, else its own ``model``, else
  the main thread's model (``--model`` is the main thread's, never a child's).
* **``Task`` is the old name of ``Agent``** (REFERENCE.md).  The runner only runs tools it
  offered, and offering both would double the tool, so the main thread's model is wrapped: a
  ``tool_use`` named ``Task`` in a reply to a request that offered ``Agent`` (and not
  ``Task``) is read as ``Agent``.
* **The main thread's agent** is a built-in with a short delegation-minded prompt, or, with
  ``main_agent`` (``subagents run --agent X``), that agent, the root of the delegation tree.
* **Events** (``on_event(kind, data)``) are the runner's (``start``/``turn``/``tool``/``stop``)
  tagged with the ``node`` of the delegation they belong to, plus the dispatcher's
  ``delegate``/``delegate_done`` and our ``notice``; :mod:`subagents.dispatch.display` draws
  them as a live tree.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Unpack

from subagents.definition import AgentDefinition, Scope
from subagents.dispatch.config import MainThreadConfig, MainThreadOptions
from subagents.dispatch.dispatcher import (
    AgentDispatcher,
    current_node,
    listing_reminder,
    tree_usage,
)
from subagents.dispatch.explicit import agent_mention
from subagents.dispatch.snapshot import RegistrySnapshot
from subagents.dispatch.task_tool import (
    AGENT_TOOL_NAME,
    normalize_agent_name,
)
from subagents.errors import ProviderResponseError, RunError
from subagents.providers.base import (
    FORCE_TOOL,
    Model,
    ModelRequest,
    ModelResponse,
    ToolUseBlock,
)
from subagents.runtime.context.prompts import MAIN_THREAD_PROMPT
from subagents.runtime.result import AgentResult, ResultSlot, RunInterrupted
from subagents.runtime.tools.base import Tool

if TYPE_CHECKING:
    from subagents.registry.core import AgentRegistry
    from subagents.runtime.runner import AgentRunner

__all__ = [
    "MAIN_THREAD",
    "AliasingModel",
    "ForceFirstCall",
    "invocation_reminder",
    "run_main_thread",
    "run_main_thread_async",
    "tree_usage",
]

EventSink = Callable[[str, Mapping[str, Any]], None]

MAIN_THREAD = AgentDefinition(
    name="main",
    description="The main thread: answers the user, delegating to specialised agents.",
    system_prompt=MAIN_THREAD_PROMPT,  # the harness prompt (runtime/context/prompts.py)
    tools=None,
    source=Scope.BUILTIN,
)


class AliasingModel:
    """Wraps a model so that a ``tool_use`` of ``Task`` is read as ``Agent`` (its current
    name) when only ``Agent`` was offered, and the other way round."""

    def __init__(self, inner: Model, aliases: Mapping[str, str] | None = None) -> None:
        self.inner = inner
        self.name = inner.name
        self.aliases = dict(aliases or {"Task": AGENT_TOOL_NAME, AGENT_TOOL_NAME: "Task"})

    def __getattr__(self, attr: str) -> Any:  # default_model and friends of the inner model
        return getattr(self.inner, attr)

    async def complete(self, request: ModelRequest) -> ModelResponse:
        response = await self.inner.complete(request)
        offered = {t.name for t in request.tools}
        if not any(isinstance(b, ToolUseBlock) and b.name in self.aliases
                   and b.name not in offered and self.aliases[b.name] in offered
                   for b in response.content):
            return response
        content = tuple(
            dataclasses.replace(b, name=self.aliases[b.name])
            if isinstance(b, ToolUseBlock) and b.name in self.aliases and b.name not in offered
            and self.aliases[b.name] in offered else b
            for b in response.content
        )
        return dataclasses.replace(response, content=content)


def _tagging(sink: EventSink | None) -> EventSink | None:
    if sink is None:
        return None

    def tag(kind: str, data: Mapping[str, Any]) -> None:
        sink(kind, {**data, "node": data.get("node", current_node())})

    return tag


async def run_main_thread_async(
    prompt: str,
    config: MainThreadConfig | None = None,
    *,
    registry: AgentRegistry | None = None,
    agents: list[AgentDefinition] | None = None,
    model: Model | None = None,
    runner: AgentRunner | None = None,
    result_slot: ResultSlot | None = None,
    **options: Unpack[MainThreadOptions],
) -> AgentResult:
    """Run the main thread on ``prompt``; see the module docstring.

    Give the agents as ``registry`` (read once, when the run starts) or ``agents``; the model as
    ``model`` (a runner is made) or a ready ``runner`` (left unchanged: the run uses a runner
    derived from it with the model wrapped; ``on_event``, when given, *replaces* the runner's
    sink, so a live display does not get every event twice; without it the runner's sink also
    receives the delegation events).  ``timeout`` bounds each child run.  ``result_slot``
    receives the main thread's result also when the run is interrupted.
    ``auto_route`` (Codex ``subagents.auto_route = true``) sends a request that hits one
    agent's ``keywords`` straight to that agent, like an explicit mention.  The options are a
    :class:`~subagents.dispatch.config.MainThreadConfig` (``config``) or its fields as keywords.
    """
    cfg = (config or MainThreadConfig()).with_options(**options)
    main_agent, policy, cwd = cfg.main_agent, cfg.policy, cfg.cwd
    if registry is None and agents is None:
        raise RunError("run_main_thread needs the agents: pass registry= or agents=")
    # Agents written during this run are not loaded into it (dispatch/snapshot.py).
    source: Any = RegistrySnapshot(registry) if registry is not None else list(agents or [])
    sink = _tagging(cfg.on_event)
    # The caller's runner is never changed: this run gets its own, derived from it, with the
    # aliasing model and this run's event sink.
    if runner is None:
        if model is None:
            raise RunError("run_main_thread needs a model or a runner")
        from subagents.runtime.runner import AgentRunner

        own = AgentRunner(AliasingModel(model), cwd=cwd, policy=policy, on_event=sink)
    else:
        if sink is None and runner.on_event is not None:
            # The runner's own sink gets the dispatcher's events too, tagged with their node.
            sink = _tagging(runner.on_event)
        own = runner.derive(model=AliasingModel(runner.model), on_event=sink)
    dispatcher = AgentDispatcher(source, cfg.dispatch(sink), runner=own)
    main = main_agent or MAIN_THREAD
    with dispatcher.rooted_at(main.qualified_name if main_agent is not None else None):
        pinned: str | None = None
        warning: str | None = None
        if cfg.explicit:
            names = [d.qualified_name for d in dispatcher.agents()]
            hit = agent_mention(prompt, names)
            if hit is not None and hit.agent is not None and (
                main_agent is None or normalize_agent_name(hit.agent)
                != normalize_agent_name(main.qualified_name)
            ):
                pinned = hit.agent
            elif hit is not None and hit.agent is None:
                warning = (f"the request mentions agent {hit.requested!r}, which is not "
                           f"available (agents: {', '.join(names)})")
                if sink is not None:
                    sink("notice", {"message": warning})
        if pinned is None and cfg.auto_route:
            from subagents.dispatch.router import Router

            chosen = Router(dispatcher.agents(), use_body=False).keyword_route(prompt)
            if chosen is not None:
                pinned = chosen.qualified_name
                if sink is not None:
                    sink("notice", {"message": f"keyword auto-routing suggests {pinned!r}"})
        pins = (pinned,) if pinned is not None else ()
        extra: list[Tool] = dispatcher.delegation_tools(query=prompt, pinned=pins)
        if cfg.agent_tools:
            extra.extend(dispatcher.agent_tools())
        # The listing goes to a main thread that can delegate (an --agent main thread whose
        # tools leave out Agent gets none, as in Claude Code).
        reminders: tuple[str, ...] = ()
        if dispatcher.offers_agent_tool(main, policy or own.policy):
            reminders = (listing_reminder(dispatcher.listing(query=prompt, pinned=pins),
                                          lead=invocation_reminder(pinned) if pinned else ""),)
        try:
            result = await own.run(
                main, prompt, model=cfg.model_id, max_turns=cfg.max_turns, extra_tools=extra,
                policy=policy if runner is not None else None, cwd=cwd, result_slot=result_slot,
                turns=dispatcher.turn_control(), reminders=reminders,
                role="main" if main_agent is None else "agent")
        finally:
            # Background agents do not outlive the main thread (it ended at its turn limit,
            # failed or was interrupted); they are stopped and their runs recorded.
            pending = dispatcher.sessions.stop_all("the main thread ended")
            if pending:
                await asyncio.gather(*pending, return_exceptions=True)
        if warning:
            result = dataclasses.replace(result, warnings=(*result.warnings, warning))
        return result


def invocation_reminder(agent: str) -> str:
    """The line that tells the main thread the user asked for ``agent`` (``@agent-X``)."""
    return (f'The user asked for the "{agent}" agent: delegate to it, giving it the context '
            "it needs.")


class ForceFirstCall:
    """Wraps a model so that the first request of agent ``agent`` must call tool ``tool``.

    Not used by the main thread any more (Claude Code never forces a call); kept for
    library callers that want it.  The request carries
    :data:`~subagents.providers.base.FORCE_TOOL`; providers that can (Anthropic, OpenAI) turn
    it into ``tool_choice``, others ignore it.  Later requests, and requests of other agents
    (the delegated child), are passed on untouched.
    """
    def __init__(self, inner: Model, agent: str, tool: str) -> None:
        self.inner = inner
        self.name = inner.name
        self.agent = agent
        self.tool = tool
        self.used = False
        self.refused = False  # the provider refused to force the call

    def __getattr__(self, attr: str) -> Any:
        return getattr(self.inner, attr)

    async def complete(self, request: ModelRequest) -> ModelResponse:
        if not self.used and request.metadata.get("agent") == self.agent and not (
            request.metadata.get("final_summary")
        ):
            self.used = True
            forced = dataclasses.replace(
                request, metadata={**request.metadata, FORCE_TOOL: self.tool})
            try:
                return await self.inner.complete(forced)
            except ProviderResponseError as exc:
                # Some OpenAI-compatible servers refuse a named tool_choice (400/422): ask
                # again without it; the reminder in the prompt still says what the user wants.
                if exc.status not in (400, 422):
                    raise
                self.refused = True
        return await self.inner.complete(request)


def run_main_thread(prompt: str, **kwargs: Any) -> AgentResult:
    """:func:`run_main_thread_async` in a fresh event loop (for the CLI).

    Ctrl-C raises :class:`~subagents.runtime.result.RunInterrupted` with what the main thread
    had done so far when its run recorded it, else ``KeyboardInterrupt`` propagates.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass
    else:
        raise RunError("run_main_thread() was called inside a running event loop",
                       hint="use `await run_main_thread_async(...)` there")
    slot: ResultSlot = kwargs.pop("result_slot", None) or ResultSlot()
    try:
        return asyncio.run(run_main_thread_async(prompt, result_slot=slot, **kwargs))
    except (KeyboardInterrupt, asyncio.CancelledError):
        if slot.interrupted is not None:
            raise RunInterrupted(slot.interrupted) from None
        raise

