"""The main thread: a run that decides, by the agents' descriptions, when to delegate.

``subagents run PROMPT`` (no ``--agent``) calls :func:`run_main_thread`: the main-thread agent
gets the built-in tools plus a ``Task`` tool built *for this request* from the agents the
registry sees, and each Task call becomes an isolated child run through
:class:`~subagents.dispatch.dispatcher.AgentDispatcher`.  The result is the main thread's
:class:`~subagents.runtime.result.AgentResult` with the delegation tree in ``children``.

Design decisions
----------------
* **Explicit invocation goes through the main thread**, as in Claude Code: "Use the X agent …",
  "@X" or "@agent-X" in the prompt makes the main thread delegate to X *first* and then carry on
  with X's report (so "use the reader agent, then write what it found to out.txt" works even
  when the reader may not write).  The prompt gets Claude Code's reminder ("The user has
  expressed a desire to invoke the agent …"), and the first request forces a ``Task`` call
  where the provider can (``tool_choice`` on Anthropic and OpenAI, through
  :data:`~subagents.providers.base.FORCE_TOOL`); a provider that cannot force one has the
  reminder.  A named agent that does not exist is reported (a warning in the result and a
  ``notice`` event) and the main thread handles the request with every agent on offer.
* **Models** follow one rule everywhere (:func:`subagents.providers.models.choose_model` through
  ``AgentRunner.resolve_model``): a child delegated to — explicitly or not — runs on
  ``CLAUDE_CODE_SUBAGENT_MODEL``, else the Task call's ``model``, else its own ``model``, else
  the main thread's model (``--model`` is the main thread's, never a child's).
* **``Agent`` is an alias of ``Task``** (REFERENCE.md).  The runner only runs tools it offered,
  and offering both would list every agent twice, so the main thread's model is wrapped: a
  ``tool_use`` named ``Agent`` in a reply to a request that offered ``Task`` (and not ``Agent``)
  is read as ``Task``.
* **The main thread's agent** is a built-in with a short delegation-minded prompt, or, with
  ``main_agent`` (``subagents run --agent X`` with nesting), that agent: it then also counts as
  the root of the delegation chain, so it cannot delegate to itself.
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
    tree_usage,
)
from subagents.dispatch.explicit import parse_explicit
from subagents.dispatch.snapshot import RegistrySnapshot
from subagents.dispatch.task_tool import (
    TASK_TOOL_NAME,
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
    """Wraps a model so that a ``tool_use`` of ``Agent`` is read as ``Task`` (its alias)."""

    def __init__(self, inner: Model, aliases: Mapping[str, str] | None = None) -> None:
        self.inner = inner
        self.name = inner.name
        self.aliases = dict(aliases or {"Agent": TASK_TOOL_NAME})

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
    # An agent as main thread is the root of the delegation chain: it cannot delegate to itself.
    with dispatcher.rooted_at(main.qualified_name if main_agent is not None else None):
        pinned: str | None = None
        why = "explicitly requested"
        warning: str | None = None
        if cfg.explicit:
            names = [d.qualified_name for d in dispatcher.agents()]
            hit = parse_explicit(prompt, names)
            if hit is not None and hit.agent is not None and (
                main_agent is None or normalize_agent_name(hit.agent)
                != normalize_agent_name(main.qualified_name)
            ):
                pinned = hit.agent
            elif hit is not None and hit.agent is None:
                warning = (f"the request asks for agent {hit.requested!r}, which is not "
                           f"available (agents: {', '.join(names)}); the main thread handles "
                           "it instead")
                if sink is not None:
                    sink("notice", {"message": warning})
        if pinned is None and cfg.auto_route:
            from subagents.dispatch.router import Router

            chosen = Router(dispatcher.agents(), use_body=False).keyword_route(prompt)
            if chosen is not None:
                pinned = chosen.qualified_name
                why = "keyword auto-routing"
        extra: list[Tool] = [dispatcher.task_tool(
            query=prompt, pinned=(pinned,) if pinned is not None else ())]
        if cfg.agent_tools:
            extra.extend(dispatcher.agent_tools())
        text = prompt
        main_runner = own
        if pinned is not None:
            if sink is not None:
                sink("notice", {"message": f"delegating to {pinned!r} first ({why})"})
            text = f"{prompt}\n\n{invocation_reminder(pinned)}"
            main_runner = own.derive(model=ForceFirstCall(own.model, main.name, TASK_TOOL_NAME))
        result = await main_runner.run(
            main, text, model=cfg.model_id, max_turns=cfg.max_turns, extra_tools=extra,
            policy=policy if runner is not None else None, cwd=cwd, result_slot=result_slot,
            role="main" if main_agent is None else "agent")
        if warning:
            result = dataclasses.replace(result, warnings=(*result.warnings, warning))
        return result


def invocation_reminder(agent: str) -> str:
    """Claude Code's reminder for a named or ``@``-mentioned agent."""
    return (f'<system-reminder>The user has expressed a desire to invoke the agent "{agent}". '
            "Please invoke the agent appropriately, passing in the required context to it "
            f'(the {TASK_TOOL_NAME} tool with subagent_type "{agent}"), then continue with '
            "its result.</system-reminder>")


class ForceFirstCall:
    """Wraps a model so that the first request of agent ``agent`` must call tool ``tool``.

    The request carries :data:`~subagents.providers.base.FORCE_TOOL`; providers that can
    (Anthropic, OpenAI) turn it into ``tool_choice``, others ignore it.  Later requests, and
    requests of other agents (the delegated child), are passed on untouched.
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

