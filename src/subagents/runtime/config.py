"""``RunConfig``: the options of an :class:`~subagents.runtime.runner.AgentRunner`, as one value.

The runner used to take twenty keyword arguments and keep each as a mutable attribute, and
callers (the main thread, agent teams) changed those attributes on a shared runner for the
length of a run.  Now the options are one frozen dataclass:

* ``AgentRunner(model, config=RunConfig(...))`` is the typed way; the old keyword arguments
  (``AgentRunner(model, cwd=..., policy=...)``) still work: they are typed by
  :class:`RunOptions` and applied on top of ``config`` (a keyword wins over the same field of
  ``config``).
* ``runner.derive(model=..., on_event=...)`` gives a *new* runner with the same tools and some
  options changed, so a caller that needs another model or event sink for one run never
  mutates a runner somebody else may be using.
* Frozen means one config may be shared by many runners and runs; ``dataclasses.replace``
  makes a changed copy.  Tools are not part of it: they are objects with their own state
  (a sandboxed ``Bash``), passed to the runner next to the config.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict

if TYPE_CHECKING:
    from subagents.definition import McpServerSpec
    from subagents.lint.trust import TrustPolicy
    from subagents.runtime.hooks import RunHooks
    from subagents.runtime.permissions import PermissionPolicy

__all__ = ["DEFAULT_MAX_TURNS", "EventSink", "RunConfig", "RunOptions"]

DEFAULT_MAX_TURNS = 50

#: ``on_event(kind, data)``: "start", "turn", "tool", "stop" — for progress displays.
EventSink = Callable[[str, Mapping[str, Any]], None]


@dataclass(frozen=True, slots=True, kw_only=True)
class RunConfig:
    """How an :class:`~subagents.runtime.runner.AgentRunner` runs agents (see its module).

    ``cwd`` (``None``: the current folder when the runner is made) is where runs work;
    ``policy`` the outer permission policy; ``hooks`` run for every run; a transcript is kept
    when ``transcripts`` is true or a ``transcript_dir`` is given; ``default_max_turns`` bounds
    runs whose call and agent name no limit; ``max_tokens`` is the output limit of a request,
    ``effort`` the effort level and ``thinking`` (``False``: off) the model's thinking, all
    ``None`` for the model's own row of :mod:`subagents.providers.generation`;
    ``model_table`` maps model aliases; ``parent_model`` is the model of the level above the
    runner's runs; ``include_env`` adds the environment to system prompts;
    ``project_context`` puts the ``CLAUDE.md`` files and a git snapshot in each run's first
    user message and ``handback_rules`` the hand-back rules in subagents' system prompts
    (:mod:`subagents.runtime.context`; the CLI turns all three on); ``on_event``
    receives progress events; ``environ`` stands in for ``os.environ`` when choosing a
    subagent's model; ``mcp_servers`` are the configured servers agents may name, and
    ``mcp_read_only`` the MCP tools declared read-only; ``trust`` keeps hooks and MCP servers
    of untrusted projects from running; ``allow_flagged_prompts`` runs agents whose prompt
    reads like a prompt injection; ``max_turns_summary`` makes one more tool-less request
    for a summary when a run reaches its turn limit (off: the run stops there, as in Claude
    Code).
    """

    cwd: Path | None = None
    policy: PermissionPolicy | None = None
    hooks: RunHooks | None = None
    transcript_dir: Path | None = None
    transcripts: bool | None = None
    default_max_turns: int = DEFAULT_MAX_TURNS
    max_tokens: int | None = None
    effort: str | None = None
    thinking: bool | None = None
    model_table: Mapping[str, str] | None = None
    parent_model: str | None = None
    include_env: bool = False
    project_context: bool = False
    handback_rules: bool = False
    on_event: EventSink | None = None
    environ: Mapping[str, str] | None = None
    mcp_servers: Mapping[str, McpServerSpec] = field(default_factory=dict)
    trust: TrustPolicy | None = None
    mcp_read_only: tuple[str, ...] = ()
    allow_flagged_prompts: bool = False
    max_turns_summary: bool = False
    #: the Claude Code version whose tool set per context the runs follow (``None``: the
    #: default row of :mod:`subagents.runtime.tools.formats`)
    claude_code: str | None = None

    @property
    def keeps_transcripts(self) -> bool:
        """A library writes no files unless asked: ``transcripts``, or a ``transcript_dir``."""
        return self.transcripts if self.transcripts is not None else (
            self.transcript_dir is not None)

    def with_options(self, **options: Any) -> RunConfig:
        """A copy with ``options`` (the keyword arguments of :class:`RunOptions`) applied."""
        unknown = sorted(set(options) - {f.name for f in dataclasses.fields(self)})
        if unknown:
            raise TypeError(f"unknown run option(s): {', '.join(unknown)}")
        changes = dict(options)
        if changes.get("cwd") is not None:
            changes["cwd"] = Path(changes["cwd"])
        if changes.get("transcript_dir") is not None:
            changes["transcript_dir"] = Path(changes["transcript_dir"])
        if "mcp_servers" in changes:
            changes["mcp_servers"] = dict(changes["mcp_servers"] or {})
        if "mcp_read_only" in changes:
            changes["mcp_read_only"] = tuple(changes["mcp_read_only"] or ())
        return dataclasses.replace(self, **changes)

    def resolved(self) -> RunConfig:
        """The config with ``cwd`` made absolute (the current folder when unset)."""
        return dataclasses.replace(self, cwd=Path(self.cwd or os.getcwd()).resolve())


class RunOptions(TypedDict, total=False):
    """The keyword arguments ``AgentRunner(...)`` accepted before :class:`RunConfig`."""

    cwd: str | os.PathLike[str] | None
    policy: PermissionPolicy | None
    hooks: RunHooks | None
    transcript_dir: str | os.PathLike[str] | None
    transcripts: bool | None
    default_max_turns: int
    max_tokens: int | None
    effort: str | None
    thinking: bool | None
    model_table: Mapping[str, str] | None
    parent_model: str | None
    include_env: bool
    project_context: bool
    handback_rules: bool
    on_event: EventSink | None
    environ: Mapping[str, str] | None
    mcp_servers: Mapping[str, McpServerSpec] | None
    trust: TrustPolicy | None
    mcp_read_only: Iterable[str]
    allow_flagged_prompts: bool
    max_turns_summary: bool
    claude_code: str | None
