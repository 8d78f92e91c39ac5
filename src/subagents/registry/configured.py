"""The registry a command sees: what it is given, then the environment, then the configuration.

Every command that reads agents (``list``, ``doctor``, ``show``, ``run``, ``validate`` and
``fix`` with no PATH, ...) builds its registry here, and so can a program that wants the same
answer as the command line: the same arguments and environment give the same agents.

Design notes
------------
* What the arguments leave unset comes from the environment: ``SUBAGENTS_MANAGED_DIR``,
  ``SUBAGENTS_PLUGIN_DIRS`` (``os.pathsep``-separated), ``SUBAGENTS_GROUP_DIR`` and
  ``SUBAGENTS_GLOBAL_DIR`` (the folders of NanoClaw's ``agents.json`` stores, the same
  variables as ``subagents define/remove/export``).  The Claude Code version whose reading
  applies is the one the configuration nearest the folder chooses (:func:`chosen_claude_code`).
* A harness with a reader of its own (``codex``, ``gemini``, ...: the table's
  ``OWN_READERS``) gets a :class:`~subagents.registry.harness_view.HarnessRegistry`; Claude
  Code and ``codex-md`` an :class:`~subagents.registry.core.AgentRegistry` with its scopes.
* Problems are :class:`~subagents.errors.UsageError` (the command line shows them as usage
  errors, exit 2).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from subagents.definition import Dialect
from subagents.errors import UsageError

if TYPE_CHECKING:
    from subagents.harnesses.layout import Source
    from subagents.registry.core import AgentRegistry

__all__ = [
    "GLOBAL_DIR_ENV",
    "GROUP_DIR_ENV",
    "MANAGED_DIR_ENV",
    "PLUGIN_DIRS_ENV",
    "chosen_claude_code",
    "configured_registry",
    "scope_sources",
]

MANAGED_DIR_ENV = "SUBAGENTS_MANAGED_DIR"
PLUGIN_DIRS_ENV = "SUBAGENTS_PLUGIN_DIRS"
GROUP_DIR_ENV = "SUBAGENTS_GROUP_DIR"  # the same variables as `subagents define/remove/export`
GLOBAL_DIR_ENV = "SUBAGENTS_GLOBAL_DIR"
_STORE_FILENAME = "agents.json"  # = subagents.store.file.STORE_FILENAME (a higher layer)


def _env_path(name: str) -> Path | None:
    value = os.environ.get(name, "").strip()
    return Path(value) if value else None


def _env_paths(name: str) -> tuple[Path, ...]:
    return tuple(Path(p) for p in os.environ.get(name, "").split(os.pathsep) if p.strip())


def chosen_claude_code(start: Path) -> str | None:
    """The Claude Code version the configuration nearest ``start`` chooses (None: the newest
    recorded).  A broken configuration is reported by the command that needs it."""
    from subagents.errors import SubagentError
    from subagents.lint.config import load_config

    try:
        return load_config(start=start).claude_code
    except SubagentError:
        return None


def configured_registry(
    *,
    agents: str | None = None,
    dialect: Dialect | None = None,
    cwd: Path | None = None,
    plugin_dirs: tuple[Path, ...] = (),
    managed_dir: Path | None = None,
    group_dir: Path | None = None,
    global_dir: Path | None = None,
    agents_json: tuple[Path | None, Path | None] | None = None,
    gemini_acknowledged: bool = False,
    refuse_bad_agents: bool = True,
) -> AgentRegistry:
    """The registry for these arguments, the environment filling what they leave unset (not
    loaded yet).  An ``agents`` value Claude Code refuses to start with is a usage error
    (nothing runs), unless ``refuse_bad_agents`` is False (``doctor``: the registry then
    reports it)."""
    from subagents.harnesses.table import OWN_READERS
    from subagents.registry.core import AgentRegistry

    if dialect is not None and dialect.value in OWN_READERS:
        from subagents.registry.harness_view import HarnessRegistry

        if agents is not None:
            raise UsageError(
                f"--agents adds Claude Code agents; --dialect {dialect.value} shows the agents "
                f"that harness loads from its own files: drop one of them")
        if dialect is Dialect.GEMINI and gemini_acknowledged:
            from subagents.harnesses.gemini import GeminiHarness

            return HarnessRegistry(cwd, harness=GeminiHarness(acknowledged=True))
        return HarnessRegistry(cwd, harness=dialect.value)
    if agents is not None and refuse_bad_agents:
        from subagents.claude_code.agents_flag import agents_flag_problem

        problem = agents_flag_problem(str(agents))
        if problem is not None:
            # Claude Code starts nothing with such a value; neither do we
            raise UsageError(
                f"--agents:{problem.line}:{problem.column}: Claude Code refuses to start with "
                f"this value: {problem.message}; nothing runs (fix the entry or leave it out)")
    if managed_dir is None:
        managed_dir = _env_path(MANAGED_DIR_ENV)
    if not plugin_dirs:
        plugin_dirs = _env_paths(PLUGIN_DIRS_ENV)
    if agents_json is None:
        group = group_dir or _env_path(GROUP_DIR_ENV)
        glob = global_dir or _env_path(GLOBAL_DIR_ENV)
        if group is not None or glob is not None:
            agents_json = (
                Path(glob) / _STORE_FILENAME if glob is not None else None,
                Path(group) / _STORE_FILENAME if group is not None else None,
            )
    return AgentRegistry(
        cwd,
        claude_code=chosen_claude_code(cwd or Path.cwd()),
        cli_agents=agents,
        managed_dir=managed_dir,
        plugin_dirs=tuple(plugin_dirs),
        dialect=dialect or Dialect.CLAUDE,
        agents_json=agents_json,
    )


def scope_sources(*, dialect: Dialect | None = None, cwd: Path | None = None) -> list[Source]:
    """The sources (folders and ``agents.json`` files) :func:`configured_registry` would read.

    The one definition of "the agents this directory sees" for commands that take paths:
    ``validate`` and ``fix`` with no PATH read exactly these roots, ``list`` and ``doctor`` load
    a registry that plans the same ones (both go through ``layout.plan_sources``).
    """
    from subagents.harnesses.layout import plan_sources

    reg = configured_registry(dialect=dialect, cwd=cwd)
    return plan_sources(
        cwd=reg.cwd,
        home=reg.home,
        dialect=reg.dialect,
        managed_dir=reg.managed_dir,
        cli_text=None,
        agents_json=reg.agents_json,
        plugin_dirs=reg.plugin_dirs,
    )
