"""Shared click options for every command that reads the agent registry.

Every command that sees "the agents this directory sees" accepts the same flags, spelled the
same way, so they live here once::

    import click
    from subagents.cli.options import registry_options, build_registry, format_option

    @click.command()
    @registry_options            # --agents JSON, --dialect, --cwd, --plugin-dir, --managed-dir
    @format_option("text", "json")
    def my_cmd(agents: str | None, dialect: Dialect, cwd: Path, plugin_dirs: tuple[Path, ...],
               managed_dir: Path | None, output_format: str) -> None:
        registry = build_registry(agents=agents, dialect=dialect, cwd=cwd,
                                  plugin_dirs=plugin_dirs, managed_dir=managed_dir)
        registry.load_all()

The options can also be used one by one (``@agents_option``, ``@dialect_option()``,
``@cwd_option``, ``@plugin_dir_option``, ``@managed_dir_option``, ``@format_option(...)``);
the parameter names are ``agents``, ``dialect``, ``cwd``, ``plugin_dirs``, ``managed_dir`` and
``output_format``.

Design notes
------------
* ``--agents`` is validated *here*, at parse time, so a malformed value is a click usage error
  (exit 2) before any work starts: not JSON, not a JSON object, a key that is empty, an entry
  that is not an object, or a ``name`` / ``description`` / ``prompt`` that is not a string.
  The option keeps the *original text* (not the parsed object): the registry hands it to the
  reader's JSON dialect, whose diagnostics then carry the line numbers of what the user typed.
* ``--agents @file.json`` reads the JSON from a file (handy for long definitions in scripts);
  a plain value is the JSON itself, as in Claude Code's ``claude --agents '<json>'``.
* ``--dialect`` picks the discovery layout (``claude``: ``.claude/agents``; ``codex``:
  ``.codex/agents``); commands that need more dialects pass their own choices.
* Nothing here imports the registry at module import time: ``build_registry`` imports it when
  called, so ``--help`` stays cheap.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from subagents.definition import Dialect

if TYPE_CHECKING:
    from subagents.registry import AgentRegistry

__all__ = [
    "agents_option",
    "build_registry",
    "check_agents_json",
    "cwd_option",
    "dialect_option",
    "format_option",
    "managed_dir_option",
    "plugin_dir_option",
    "registry_options",
]

F = TypeVar("F", bound=Callable[..., Any])

_STRING_FIELDS = ("name", "description", "prompt", "model")


def check_agents_json(text: str) -> str | None:
    """Why ``text`` is not a usable ``--agents`` value, or ``None`` when it is.

    The shape is ``{"name": {"description": ..., "prompt": ..., "tools": [...], ...}, ...}``
    (Claude Code's ``--agents`` / the Agent SDK ``agents=`` mapping).
    """
    try:
        data: Any = json.loads(text)
    except json.JSONDecodeError as exc:
        return f"not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
    if not isinstance(data, Mapping):
        return f"must be a JSON object mapping agent names to definitions, got {_kind(data)}"
    for key, value in data.items():
        if not isinstance(key, str) or not key.strip():
            return f"agent names must be non-empty strings, got {key!r}"
        if not isinstance(value, Mapping):
            return f"the definition of {key!r} must be a JSON object, got {_kind(value)}"
        for fld in _STRING_FIELDS:
            if fld in value and not isinstance(value[fld], str):
                return f"{key!r}: field {fld!r} must be a string, got {_kind(value[fld])}"
    return None


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return type(value).__name__


def _agents_callback(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is None:
        return None
    text = value
    if value.startswith("@"):
        source = Path(value[1:])
        try:
            text = source.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise click.BadParameter(f"cannot read {source}: {exc}", ctx, param) from exc
    problem = check_agents_json(text)
    if problem is not None:
        raise click.BadParameter(
            problem
            + """. Expected e.g. '{"reviewer": {"description": "Reviews code", """
            + """"prompt": "You review code."}}'""",
            ctx,
            param,
        )
    return text


agents_option = click.option(
    "--agents",
    "agents",
    metavar="JSON",
    default=None,
    callback=_agents_callback,
    help=(
        "Extra agents as a JSON object {name: {description, prompt, tools, model, ...}}, "
        "like `claude --agents`. They rank above project and user agents. "
        "Use @FILE to read the JSON from a file."
    ),
)


def dialect_option(
    *choices: str, default: str = "claude", help: str | None = None
) -> Callable[[F], F]:
    """``--dialect`` converted to :class:`~subagents.definition.Dialect` (default ``claude``)."""
    names = choices or ("claude", "codex")

    def _convert(ctx: click.Context, param: click.Parameter, value: str) -> Dialect:
        return Dialect(value)

    return click.option(
        "--dialect",
        "dialect",
        type=click.Choice(names, case_sensitive=False),
        default=default,
        show_default=True,
        callback=_convert,
        help=help
        or "Which harness layout to discover: claude (.claude/agents) or codex (.codex/agents).",
    )


cwd_option = click.option(
    "--cwd",
    "cwd",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=None,
    help="Act as if run from this folder (default: the current directory).",
)

plugin_dir_option = click.option(
    "--plugin-dir",
    "plugin_dirs",
    type=click.Path(file_okay=False, path_type=Path),
    multiple=True,
    help="A plugin folder whose agents/ subfolder holds plugin agents (ids plugin:name). "
    "Repeatable.",
)

managed_dir_option = click.option(
    "--managed-dir",
    "managed_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    envvar="SUBAGENTS_MANAGED_DIR",
    help="Folder of organisation-managed agents (highest precedence). Env: SUBAGENTS_MANAGED_DIR.",
)


def format_option(*choices: str, default: str | None = None) -> Callable[[F], F]:
    """``--format`` with the given choices (default: the first); parameter ``output_format``."""
    names = choices or ("text", "json")
    return click.option(
        "--format",
        "output_format",
        type=click.Choice(names, case_sensitive=False),
        default=default or names[0],
        show_default=True,
        help="Output format: " + ", ".join(names) + ".",
    )


def registry_options(func: F) -> F:
    """All registry options at once: --agents, --dialect, --cwd, --plugin-dir, --managed-dir."""
    for deco in (
        managed_dir_option,
        plugin_dir_option,
        cwd_option,
        dialect_option(),
        agents_option,
    ):
        func = deco(func)
    return func


def build_registry(
    *,
    agents: str | None = None,
    dialect: Dialect = Dialect.CLAUDE,
    cwd: Path | None = None,
    plugin_dirs: tuple[Path, ...] = (),
    managed_dir: Path | None = None,
) -> AgentRegistry:
    """An :class:`~subagents.registry.AgentRegistry` for the options above (not loaded yet)."""
    from subagents.registry import AgentRegistry

    return AgentRegistry(
        cwd,
        cli_agents=agents,
        managed_dir=managed_dir,
        plugin_dirs=tuple(plugin_dirs),
        dialect=dialect,
    )
