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
``@cwd_option``, ``@plugin_dir_option``, ``@managed_dir_option``, ``@group_dir_option``,
``@global_dir_option``, ``@format_option(...)``); the parameter names are ``agents``,
``dialect``, ``cwd``, ``plugin_dirs``, ``managed_dir`` and ``output_format``.  A command with
its own ``--agents``/``--cwd`` (``subagents run``) adds ``@registry_scope_options`` and keeps
calling ``build_registry(agents=..., cwd=...)``.

Design notes
------------
* ``--agents`` is validated *here*, at parse time, so a malformed value is a click usage error
  (exit 2) before any work starts: not JSON, not a JSON object, a key that is empty, an entry
  that is not an object, or a ``name`` / ``description`` / ``prompt`` that is not a string.
  The option keeps the *original text* (not the parsed object): the registry hands it to the
  reader's JSON dialect, whose diagnostics then carry the line numbers of what the user typed.
* ``--agents @file.json`` reads the JSON from a file (handy for long definitions in scripts);
  a plain value is the JSON itself, as in Claude Code's ``claude --agents '<json>'``.
* Scope folders beyond the working tree come from flags or the environment, the same for
  every command: ``--managed-dir`` / ``SUBAGENTS_MANAGED_DIR``, ``--plugin-dir`` (repeatable)
  / ``SUBAGENTS_PLUGIN_DIRS`` (``os.pathsep``-separated), and NanoClaw's ``agents.json`` by
  ``--group-dir`` / ``SUBAGENTS_GROUP_DIR`` and ``--global-dir`` / ``SUBAGENTS_GLOBAL_DIR``
  (the variables ``subagents define/remove/export`` use, so a stored agent is listed).
* ``--group-dir``/``--global-dir`` (and everything in :func:`registry_scope_options`) are
  declared ``expose_value=False`` and reach :func:`build_registry` through ``ctx.meta``: adding
  an option here never breaks the signature of a command that uses ``registry_options``.
  ``build_registry`` falls back to the environment for whatever it is not given, so even a
  command that forgot the flags sees the same agents as ``list`` under the same environment.
* ``--dialect`` picks the discovery layout (``claude``: ``.claude/agents``; ``codex``:
  ``.codex/agents``); commands that need more dialects pass their own choices.
* Nothing here imports the registry at module import time: ``build_registry`` imports it when
  called, so ``--help`` stays cheap.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import click

from subagents.definition import Dialect

if TYPE_CHECKING:
    from subagents.harnesses.layout import Source
    from subagents.registry.core import AgentRegistry

__all__ = [
    "agents_option",
    "build_registry",
    "check_agents_json",
    "cwd_option",
    "dialect_option",
    "fail",
    "fail_json",
    "format_option",
    "global_dir_option",
    "group_dir_option",
    "managed_dir_option",
    "plugin_dir_option",
    "registry_options",
    "registry_scope_options",
    "report_broken_scopes",
    "scope_sources",
    "wants_json",
]

F = TypeVar("F", bound=Callable[..., Any])

MANAGED_DIR_ENV = "SUBAGENTS_MANAGED_DIR"
PLUGIN_DIRS_ENV = "SUBAGENTS_PLUGIN_DIRS"
GROUP_DIR_ENV = "SUBAGENTS_GROUP_DIR"  # the same variables as `subagents define/remove/export`
GLOBAL_DIR_ENV = "SUBAGENTS_GLOBAL_DIR"
STORE_FILENAME = "agents.json"  # = subagents.store.file.STORE_FILENAME (not imported here)
_META = "subagents.registry.core"

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
        return Dialect.CODEX_MD if value == "codex" else Dialect(value)

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

_PLUGIN_HELP = (
    "A plugin folder whose agents/ subfolder holds plugin agents (ids plugin:name, subfolders "
    "add :sub segments). Repeatable. Env: SUBAGENTS_PLUGIN_DIRS (os.pathsep-separated)."
)
_MANAGED_HELP = (
    "Folder of organisation-managed agents (highest precedence). Env: SUBAGENTS_MANAGED_DIR."
)
_GROUP_HELP = (
    "NanoClaw group folder: its agents.json is read at cli scope and wins over the global "
    "one. Env: SUBAGENTS_GROUP_DIR."
)
_GLOBAL_HELP = (
    "NanoClaw global folder: its agents.json is read at cli scope, below the group's. "
    "Env: SUBAGENTS_GLOBAL_DIR."
)

plugin_dir_option = click.option(
    "--plugin-dir",
    "plugin_dirs",
    type=click.Path(file_okay=False, path_type=Path),
    multiple=True,
    envvar=PLUGIN_DIRS_ENV,
    help=_PLUGIN_HELP,
)

managed_dir_option = click.option(
    "--managed-dir",
    "managed_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    envvar=MANAGED_DIR_ENV,
    help=_MANAGED_HELP,
)


def _remember(key: str) -> Callable[[click.Context, click.Parameter, Any], Any]:
    """A callback that keeps the value in ``ctx.meta`` for :func:`build_registry`.

    Options declared with ``expose_value=False`` reach ``build_registry`` this way, so adding
    one to :func:`registry_options` never changes the signature of a command that uses it.
    """

    def _cb(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
        if value is not None and value != ():
            ctx.meta.setdefault(_META, {})[key] = value
        return value

    return _cb


group_dir_option = click.option(
    "--group-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    envvar=GROUP_DIR_ENV,
    expose_value=False,
    callback=_remember("group_dir"),
    help=_GROUP_HELP,
)

global_dir_option = click.option(
    "--global-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    envvar=GLOBAL_DIR_ENV,
    expose_value=False,
    callback=_remember("global_dir"),
    help=_GLOBAL_HELP,
)


def format_option(
    *choices: str, default: str | None = None, help: str | None = None
) -> Callable[[F], F]:
    """``--format`` with the given choices (default: the first); parameter ``output_format``.

    Every command's ``--format`` comes from here, so they all parse the same way."""
    names = choices or ("text", "json")
    return click.option(
        "--format",
        "output_format",
        type=click.Choice(names, case_sensitive=False),
        default=default or names[0],
        show_default=True,
        help=help or "Output format: " + ", ".join(names) + ".",
    )


def registry_options(func: F) -> F:
    """All registry options at once: --agents, --dialect, --cwd, --plugin-dir, --managed-dir
    (passed to the command), and --group-dir, --global-dir (kept for ``build_registry``)."""
    for deco in (
        global_dir_option,
        group_dir_option,
        managed_dir_option,
        plugin_dir_option,
        cwd_option,
        dialect_option(),
        agents_option,
    ):
        func = deco(func)
    return func


def registry_scope_options(func: F) -> F:
    """The scope options for a command that has its own ``--agents``/``--cwd`` handling
    (``subagents run``): --dialect, --plugin-dir, --managed-dir, --group-dir, --global-dir.

    None of them is passed to the command: ``build_registry`` reads them from the click
    context, so the command only adds this decorator and keeps calling
    ``build_registry(agents=..., cwd=...)``.
    """
    for deco in (
        global_dir_option,
        group_dir_option,
        click.option(
            "--managed-dir",
            type=click.Path(file_okay=False, path_type=Path),
            default=None,
            envvar=MANAGED_DIR_ENV,
            expose_value=False,
            callback=_remember("managed_dir"),
            help=_MANAGED_HELP,
        ),
        click.option(
            "--plugin-dir",
            type=click.Path(file_okay=False, path_type=Path),
            multiple=True,
            envvar=PLUGIN_DIRS_ENV,
            expose_value=False,
            callback=_remember("plugin_dirs"),
            help=_PLUGIN_HELP,
        ),
        click.option(
            "--dialect",
            type=click.Choice(["claude", "codex"], case_sensitive=False),
            default=None,
            expose_value=False,
            callback=_remember("dialect"),
            help="Which harness layout to discover: claude (.claude/agents, the default) or "
            "codex (.codex/agents).",
        ),
    ):
        func = deco(func)
    return func


def _env_path(name: str) -> Path | None:
    value = os.environ.get(name, "").strip()
    return Path(value) if value else None


def _env_paths(name: str) -> tuple[Path, ...]:
    return tuple(Path(p) for p in os.environ.get(name, "").split(os.pathsep) if p.strip())


def build_registry(
    *,
    agents: str | None = None,
    dialect: Dialect | None = None,
    cwd: Path | None = None,
    plugin_dirs: tuple[Path, ...] = (),
    managed_dir: Path | None = None,
    agents_json: tuple[Path | None, Path | None] | None = None,
) -> AgentRegistry:
    """An :class:`~subagents.registry.core.AgentRegistry` for the options above (not loaded yet).

    What the arguments leave unset comes from the current click context (options declared
    with ``expose_value=False``: --group-dir, --global-dir, and the options of
    :func:`registry_scope_options`), then from the environment (SUBAGENTS_MANAGED_DIR,
    SUBAGENTS_PLUGIN_DIRS, SUBAGENTS_GROUP_DIR, SUBAGENTS_GLOBAL_DIR) -- so every command that
    reads the registry sees the same agents for the same flags and environment.
    """
    from subagents.registry.core import AgentRegistry

    ctx = click.get_current_context(silent=True)
    meta: dict[str, Any] = dict(ctx.meta.get(_META, {})) if ctx is not None else {}
    if dialect is None:
        word = meta.get("dialect") or "claude"
        dialect = Dialect.CODEX_MD if word == "codex" else Dialect(word)
    if managed_dir is None:
        managed_dir = meta.get("managed_dir") or _env_path(MANAGED_DIR_ENV)
    if not plugin_dirs:
        plugin_dirs = tuple(meta.get("plugin_dirs") or _env_paths(PLUGIN_DIRS_ENV))
    if agents_json is None:
        group = meta.get("group_dir") or _env_path(GROUP_DIR_ENV)
        glob = meta.get("global_dir") or _env_path(GLOBAL_DIR_ENV)
        if group is not None or glob is not None:
            agents_json = (
                Path(glob) / STORE_FILENAME if glob is not None else None,
                Path(group) / STORE_FILENAME if group is not None else None,
            )
    return AgentRegistry(
        cwd,
        cli_agents=agents,
        managed_dir=managed_dir,
        plugin_dirs=tuple(plugin_dirs),
        dialect=dialect,
        agents_json=agents_json,
    )


def scope_sources(*, dialect: Dialect | None = None, cwd: Path | None = None) -> list[Source]:
    """The sources (folders and ``agents.json`` files) :func:`build_registry` would read.

    The one definition of "the agents this directory sees" for commands that take paths:
    ``validate`` and ``fix`` with no PATH read exactly these roots, ``list`` and ``doctor`` load
    a registry that plans the same ones (both go through ``discovery.plan_sources``).
    """
    from subagents.harnesses.layout import plan_sources

    reg = build_registry(dialect=dialect, cwd=cwd)
    return plan_sources(
        cwd=reg.cwd,
        home=reg.home,
        dialect=reg.dialect,
        managed_dir=reg.managed_dir,
        cli_text=None,
        agents_json=reg.agents_json,
        plugin_dirs=reg.plugin_dirs,
    )


def wants_json(args: list[str]) -> bool:
    """Did the command line ask for ``--format json``?"""
    for i, a in enumerate(args):
        if a == "--":
            return False
        if a == "--format=json" or (a == "--format" and args[i + 1 : i + 2] == ["json"]):
            return True
    return False


def fail_json(message: str, hint: str | None, exit_code: int, **extra: Any) -> NoReturn:
    """Print an error as ``{"error": {"message", "hint", "exit_code", ...}}`` on stdout (where
    a script reading ``--format json`` looks) and exit with ``exit_code``."""
    error: dict[str, Any] = {"message": message, "hint": hint, "exit_code": exit_code}
    error.update(extra)
    click.echo(json.dumps({"error": error}, indent=2, ensure_ascii=False))
    sys.exit(exit_code)


def fail(output_format: str, message: str, hint: str | None = None, exit_code: int = 1,
         **extra: Any) -> NoReturn:
    """An error in the command's format: JSON on stdout, or ``error: ...`` on stderr."""
    if output_format == "json":
        fail_json(message, hint, exit_code, **extra)
    click.echo(f"error: {message}", err=True)
    if hint:
        click.echo(f"  hint: {hint}", err=True)
    sys.exit(exit_code)


BROKEN_SCOPE_RULES = ("SA603", "SA605")  # a scope folder that is a file or cannot be read


def report_broken_scopes(reg: AgentRegistry) -> bool:
    """Print, on stderr, every scope folder the registry could not read (``.claude/agents``
    that is a file, an unreadable folder); ``True`` if there was one.  ``list``, ``doctor``,
    ``show``, ``validate`` and ``fix`` also exit 1 then; ``run``, ``route``, ``test`` go on
    with the agents they could read, but say so."""
    from subagents.diagnostics import Severity

    broken = [d for d in reg.diagnostics()
              if d.rule in BROKEN_SCOPE_RULES and d.severity is Severity.ERROR]
    for d in broken:
        click.echo(f"error: {d.path}: {d.rule} {d.message}", err=True)
    return bool(broken)
