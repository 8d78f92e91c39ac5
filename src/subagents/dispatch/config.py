"""The options of delegation, as frozen values: ``DispatchConfig`` and ``MainThreadConfig``.

:class:`~subagents.dispatch.dispatcher.AgentDispatcher` and
:func:`~subagents.dispatch.main_thread.run_main_thread_async` took long keyword lists.  Their
options are now one frozen dataclass each, the way
:class:`~subagents.runtime.config.RunConfig` holds an ``AgentRunner``'s:

* ``AgentDispatcher(agents, DispatchConfig(...), runner=...)`` and
  ``run_main_thread_async(prompt, MainThreadConfig(...), registry=..., model=...)`` are the
  typed ways; the keyword arguments they always took still work: they are typed by
  :class:`DispatchOptions` / :class:`MainThreadOptions` and applied on top of the config (a
  keyword wins over the same field of the config).
* What a call works *on* (the agents, the model or runner, the result slot) stays a keyword
  of its own: it is not an option one config could share between calls.
* Frozen means a config may be shared; ``dataclasses.replace`` or :meth:`with_options` makes a
  changed copy.  An unknown option is a ``TypeError`` naming it, as a misspelt keyword was.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypedDict, TypeVar

from subagents.dispatch.task_tool import DEFAULT_BUDGET_CHARS

if TYPE_CHECKING:
    from subagents.definition import AgentDefinition
    from subagents.runtime.permissions import PermissionPolicy

__all__ = [
    "DEFAULT_MAX_CONCURRENCY",
    "DEFAULT_MAX_DEPTH",
    "DispatchConfig",
    "DispatchOptions",
    "MainThreadConfig",
    "MainThreadOptions",
]

DEFAULT_MAX_DEPTH = 3
DEFAULT_MAX_CONCURRENCY = 20

EventSink = Callable[[str, Mapping[str, Any]], None]
_C = TypeVar("_C")


def _with_options(config: _C, options: Mapping[str, Any], what: str) -> _C:
    names = {f.name for f in dataclasses.fields(config)}  # type: ignore[arg-type]
    unknown = sorted(set(options) - names)
    if unknown:
        raise TypeError(f"unknown {what} option(s): {', '.join(unknown)}")
    return dataclasses.replace(config, **options)  # type: ignore[type-var]


@dataclass(frozen=True, slots=True, kw_only=True)
class DispatchConfig:
    """How an :class:`~subagents.dispatch.dispatcher.AgentDispatcher` delegates.

    ``nesting``: children that have every tool may delegate too (up to ``max_depth``
    levels; a child at depth ``max_depth`` gets no Agent tool); ``max_concurrency``: children
    running at once per level; ``timeout``: seconds a child may run; ``policy``: the
    permission policy of top-level children; ``budget_chars``: the size of the agent
    listing; ``on_event``: delegation events; ``reload``: re-read a registry at each
    dispatch; ``background``: an Agent call that does not say ``run_in_background`` runs in
    the background where its run can be told later (as in Claude Code); ``model_aliases``:
    more names the Agent tool's ``model`` offers (the config's model table).
    """

    nesting: bool = True
    max_depth: int = DEFAULT_MAX_DEPTH
    max_concurrency: int = DEFAULT_MAX_CONCURRENCY
    timeout: float | None = None
    policy: PermissionPolicy | None = None
    budget_chars: int = DEFAULT_BUDGET_CHARS
    on_event: EventSink | None = None
    reload: bool = True
    background: bool = True
    model_aliases: tuple[str, ...] = ()

    def with_options(self, **options: Any) -> DispatchConfig:
        """A copy with ``options`` (the keyword arguments of :class:`DispatchOptions`)."""
        return _with_options(self, options, "dispatch")


class DispatchOptions(TypedDict, total=False):
    """The keyword arguments ``AgentDispatcher(...)`` accepted before :class:`DispatchConfig`."""

    nesting: bool
    max_depth: int
    max_concurrency: int
    timeout: float | None
    policy: PermissionPolicy | None
    budget_chars: int
    on_event: EventSink | None
    reload: bool
    background: bool
    model_aliases: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class MainThreadConfig(DispatchConfig):
    """How :func:`~subagents.dispatch.main_thread.run_main_thread_async` runs a request: the
    delegation options of :class:`DispatchConfig` and the main thread's own.

    ``main_agent`` runs the main thread (default: the built-in main thread) on ``model_id``
    for at most ``max_turns``; ``agent_tools`` offers each agent as its own tool next to Task;
    ``explicit`` honours "use the X agent" in the request; ``auto_route`` sends a request that
    hits one agent's ``keywords`` straight to it; ``cwd`` is where the run works.
    """

    main_agent: AgentDefinition | None = None
    model_id: str | None = None
    max_turns: int | None = None
    agent_tools: bool = False
    explicit: bool = True
    auto_route: bool = False
    cwd: str | os.PathLike[str] | None = None

    def with_options(self, **options: Any) -> MainThreadConfig:
        """A copy with ``options`` (the keyword arguments of :class:`MainThreadOptions`)."""
        return _with_options(self, options, "main thread")

    def dispatch(self, on_event: EventSink | None) -> DispatchConfig:
        """The delegation part, with the run's own event sink."""
        shared = {f.name: getattr(self, f.name) for f in dataclasses.fields(DispatchConfig)}
        return DispatchConfig(**{**shared, "on_event": on_event})


class MainThreadOptions(DispatchOptions, total=False):
    """The keyword arguments ``run_main_thread_async(...)`` accepted before
    :class:`MainThreadConfig`."""

    main_agent: AgentDefinition | None
    model_id: str | None
    max_turns: int | None
    agent_tools: bool
    explicit: bool
    auto_route: bool
    cwd: str | os.PathLike[str] | None
