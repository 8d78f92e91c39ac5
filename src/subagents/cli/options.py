"""Shared click options for every command that reads the agent registry.

Every command that sees "the agents this directory sees" accepts the same flags, spelled the
same way, so they live here once, as *option groups*: a frozen dataclass per group, added to a
command by one decorator that passes the command one typed object::

    import click
    from subagents.cli.options import RegistryOptions, format_option, option_group

    @click.command()
    @option_group(RegistryOptions)  # --agents, --dialect, --cwd, --plugin-dir, --managed-dir,
    @format_option("text", "json")  # --group-dir, --global-dir
    def my_cmd(registry: RegistryOptions, output_format: str) -> None:
        reg = registry.load()

A command with its own ``--agents``/``--cwd`` (``subagents run``) takes
``@option_group(ScopeOptions)`` (--dialect, --plugin-dir, --managed-dir, --group-dir,
--global-dir) and calls ``scope.build_registry(agents=..., cwd=...)``.  The single options
(``@agents_option``, ``@dialect_option()``, ``@cwd_option``, ``@format_option(...)``...) stay
available for commands that need only one of them.

Design notes
------------
* One channel: every flag reaches the command as a field of a group object; nothing travels
  through the click context.  :func:`option_group` checks, when the command module is
  imported, that a group's options name exactly its fields, so a group cannot grow a flag
  that the command never sees.
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
  :func:`build_registry` falls back to the environment for whatever it is not given, so a
  command without the flags sees the same agents as ``list`` under the same environment.
* ``--dialect`` picks whose agents to see, as that harness loads them: ``claude`` (Claude
  Code's folders, ``--agents``, plugins, managed), ``codex-md`` (``.codex/agents/*.md``), or a
  harness read by its own module (``codex`` = the Codex CLI's TOML, ``gemini``, ``opencode``,
  ``copilot``, ``cursor``, ``qwen``, ``factory``: :class:`~subagents.registry.harness_view.
  HarnessRegistry`).  ``all`` (``list``, ``doctor``) gives one registry per harness present
  (:meth:`RegistryOptions.load_every`); other commands refuse it (exit 2).  An unknown name
  exits 2 with the closest known one.  ``--agents``, managed and plugin folders are Claude
  Code's: ``--agents`` with a harness dialect is a usage error.
* Nothing here imports the registry at module import time: ``build_registry`` imports it when
  called, so ``--help`` stays cheap.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import (
    TYPE_CHECKING,
    Any,
    ClassVar,
    Literal,
    NoReturn,
    ParamSpec,
    Protocol,
    TypeVar,
    cast,
)

import click

from subagents.definition import Dialect
from subagents.errors import UsageError
from subagents.registry.configured import (
    GLOBAL_DIR_ENV,
    GROUP_DIR_ENV,
    MANAGED_DIR_ENV,
    PLUGIN_DIRS_ENV,
    configured_registry,
)

if TYPE_CHECKING:
    from subagents.registry.core import AgentRegistry

__all__ = [
    "OptionGroup",
    "RegistryOptions",
    "ScopeOptions",
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
    "option_group",
    "plugin_dir_option",
    "report_broken_scopes",
    "wants_json",
]

F = TypeVar("F", bound=Callable[..., Any])

STORE_FILENAME = "agents.json"  # = subagents.store.file.STORE_FILENAME (not imported here)

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


class AgentsText(str):
    """The ``--agents`` JSON, remembering the file ``@FILE`` read it from (``source``): a file
    inside an untrusted project is that project's text, and trust applies to it."""

    source: Path | None = None


def _agents_callback(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is None:
        return None
    text = AgentsText(value)
    if value.startswith("@"):
        source = Path(value[1:])
        try:
            text = AgentsText(source.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            raise click.BadParameter(f"cannot read {source}: {exc}", ctx, param) from exc
        text.source = source.absolute()
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


ALL_HARNESSES: Literal["all"] = "all"
# the names --dialect takes for the agents a directory sees (json is a file format, not a
# harness with folders): subagents.harnesses.HARNESS_NAMES, spelled out so --help stays cheap
DIALECT_NAMES: tuple[str, ...] = (
    "claude", "codex", "codex-md", "gemini", "opencode", "copilot", "cursor", "qwen", "factory",
)
DialectChoice = Dialect | Literal["all"]
_DIALECT_HELP = (
    "Which harness's agents to see: claude (.claude/agents), codex (the Codex CLI's "
    ".codex/agents/*.toml and config.toml), codex-md (.codex/agents/*.md), gemini, opencode, "
    "copilot, cursor, qwen or factory -- as that harness loads them"
)


def parse_dialect(value: str | None, *, allow_all: bool, param: str = "--dialect"
                  ) -> DialectChoice | None:
    """A ``--dialect`` value: a :class:`Dialect`, ``"all"`` (when allowed) or ``None``; an
    unknown name is a usage error (exit 2) with the closest name."""
    if value is None:
        return None
    key = value.strip().lower()
    if allow_all and key == ALL_HARNESSES:
        return ALL_HARNESSES
    if key in DIALECT_NAMES:
        return Dialect(key)
    import difflib

    names = (*DIALECT_NAMES, ALL_HARNESSES) if allow_all else DIALECT_NAMES
    close = difflib.get_close_matches(key, names, n=1, cutoff=0.5)
    guess = f"did you mean {close[0]!r}? " if close else ""
    raise click.BadParameter(
        f"unknown dialect {value!r}; {guess}known: {', '.join(names)}", param_hint=param
    )


def dialect_option(
    *choices: str, default: str | None = "claude", help: str | None = None,
    allow_all: bool = False,
) -> Callable[[F], F]:
    """``--dialect`` converted to :class:`~subagents.definition.Dialect` (default ``claude``).

    ``choices`` limits the accepted names (default: every harness, plus ``all`` when
    ``allow_all``); an unknown name exits 2 with the closest known one."""
    names = choices or (*DIALECT_NAMES, *((ALL_HARNESSES,) if allow_all else ()))

    def _convert(ctx: click.Context, param: click.Parameter, value: str | None
                 ) -> DialectChoice | None:
        if value is not None and value.strip().lower() not in names:
            if value.strip().lower() in DIALECT_NAMES:
                raise click.BadParameter(
                    f"{value!r} is not available here; use one of: {', '.join(names)}")
            parse_dialect(value, allow_all=allow_all)
        return parse_dialect(value, allow_all=allow_all)

    return click.option(
        "--dialect",
        "dialect",
        metavar="[" + "|".join(names) + "]",
        default=default,
        show_default=default is not None,
        callback=_convert,
        help=help or _DIALECT_HELP + ".",
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


group_dir_option = click.option(
    "--group-dir",
    "group_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    envvar=GROUP_DIR_ENV,
    help=_GROUP_HELP,
)

global_dir_option = click.option(
    "--global-dir",
    "global_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    envvar=GLOBAL_DIR_ENV,
    help=_GLOBAL_HELP,
)


gemini_acknowledged_option = click.option(
    "--gemini-acknowledged",
    "gemini_acknowledged",
    is_flag=True,
    default=False,
    help="With --dialect gemini: also load project agents that Gemini CLI has not "
    "acknowledged yet (Gemini CLI itself does not load them until you acknowledge them "
    "there). Config: gemini-acknowledged = true.",
)


def _config_acknowledges(cwd: Path | None) -> bool:
    """``gemini-acknowledged = true`` in the configuration that applies to ``cwd``."""
    from subagents.errors import ConfigError
    from subagents.lint.config import load_config

    try:
        return load_config(start=cwd or Path.cwd()).gemini_acknowledged
    except ConfigError:  # a broken file is reported by the commands that read it
        return False


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


# --------------------------------------------------------------------------- option groups


class OptionGroup(Protocol):
    """What :func:`option_group` needs of a group: a dataclass whose fields are the click
    parameter names of ``click_options`` (top first, as ``--help`` lists them), and the name
    of the keyword argument the command receives the built object under."""

    param: ClassVar[str]
    click_options: ClassVar[tuple[Callable[[Any], Any], ...]]

    def __init__(self, **values: Any) -> None: ...


def option_group(group: type[OptionGroup]) -> Callable[[F], F]:
    """Add ``group``'s click options to a command and pass it one ``group`` object.

    The command declares one parameter, named ``group.param`` and typed ``group``, instead of
    one per flag; the flags, their help, defaults and ``--help`` order are those of
    ``group.click_options``.  A group whose options do not name exactly its fields is a
    programming error, caught when the command module is imported.
    """
    def _probe() -> None: ...

    for deco in reversed(group.click_options):
        _probe = deco(_probe)
    params: list[click.Parameter] = list(getattr(_probe, "__click_params__", []))
    names = [p.name for p in params if p.name is not None]
    fields = {f.name for f in dataclasses.fields(group)}  # type: ignore[arg-type]
    if set(names) != fields:
        raise TypeError(f"{group.__name__}: options {sorted(names)} != fields {sorted(fields)}")

    def decorate(func: F) -> F:
        @functools.wraps(func)
        def command(*args: Any, **kwargs: Any) -> Any:
            values = {name: kwargs.pop(name) for name in names}
            kwargs[group.param] = group(**values)
            return func(*args, **kwargs)

        wrapped: Any = command
        for deco in reversed(group.click_options):
            wrapped = deco(wrapped)
        return cast(F, wrapped)

    return decorate


@dataclass(frozen=True, slots=True)
class ScopeOptions:
    """The scope folders beyond the working tree: --dialect, --plugin-dir, --managed-dir,
    --group-dir, --global-dir.  For a command with its own ``--agents``/``--cwd`` (``subagents
    run``); what is unset here comes from the environment in :meth:`build_registry`."""

    param: ClassVar[str] = "scope"
    click_options: ClassVar[tuple[Callable[[Any], Any], ...]] = (
        dialect_option(default=None, help=_DIALECT_HELP + " (default: claude)."),
        plugin_dir_option,
        managed_dir_option,
        group_dir_option,
        global_dir_option,
        gemini_acknowledged_option,
    )

    dialect: DialectChoice | None = None
    plugin_dirs: tuple[Path, ...] = ()
    managed_dir: Path | None = None
    group_dir: Path | None = None
    global_dir: Path | None = None
    gemini_acknowledged: bool = False

    def build_registry(self, *, agents: str | None = None, cwd: Path | None = None,
                       gemini_acknowledged: bool = False) -> AgentRegistry:
        """The registry these options (plus ``agents`` and ``cwd``) describe, not loaded.
        ``gemini_acknowledged``: the run's configuration says so (applied only once the
        project is trusted, by the caller)."""
        return build_registry(
            agents=agents, dialect=_one(self.dialect), cwd=cwd, plugin_dirs=self.plugin_dirs,
            managed_dir=self.managed_dir, group_dir=self.group_dir, global_dir=self.global_dir,
            gemini_acknowledged=self.gemini_acknowledged or gemini_acknowledged,
        )


@dataclass(frozen=True, slots=True)
class RegistryOptions:
    """Every registry option: --agents, --dialect, --cwd, --plugin-dir, --managed-dir,
    --group-dir, --global-dir (``list``, ``show``, ``doctor``, ``route``, ``test``, ``watch``)."""

    param: ClassVar[str] = "registry"
    click_options: ClassVar[tuple[Callable[[Any], Any], ...]] = (
        agents_option,
        dialect_option(default=None, allow_all=True,
                       help=_DIALECT_HELP + "; all: every harness with folders here (list, "
                       "doctor). Default: claude (doctor: all)."),
        cwd_option,
        plugin_dir_option,
        managed_dir_option,
        group_dir_option,
        global_dir_option,
        gemini_acknowledged_option,
    )

    agents: str | None = None
    dialect: DialectChoice | None = None
    cwd: Path | None = None
    plugin_dirs: tuple[Path, ...] = ()
    managed_dir: Path | None = None
    group_dir: Path | None = None
    global_dir: Path | None = None
    gemini_acknowledged: bool = False

    def _acknowledged(self) -> bool:
        return self.gemini_acknowledged or _config_acknowledges(self.cwd)

    @property
    def every_harness(self) -> bool:
        """``--dialect all``: one registry per harness present (:meth:`load_every`)."""
        return self.dialect == ALL_HARNESSES

    def build(self, *, refuse_bad_agents: bool = True) -> AgentRegistry:
        """The registry these options describe (not loaded yet); ``--dialect all`` is a usage
        error here (the commands that show every harness call :meth:`load_every`).
        ``refuse_bad_agents``: see :func:`build_registry`."""
        return build_registry(
            agents=self.agents, dialect=_one(self.dialect), cwd=self.cwd,
            plugin_dirs=self.plugin_dirs, managed_dir=self.managed_dir,
            group_dir=self.group_dir, global_dir=self.global_dir,
            gemini_acknowledged=self._acknowledged(), refuse_bad_agents=refuse_bad_agents,
        )

    def load(self, *, refuse_bad_agents: bool = True) -> AgentRegistry:
        """The registry these options describe, loaded."""
        return self.build(refuse_bad_agents=refuse_bad_agents).load_all()

    def load_every(self) -> list[AgentRegistry]:
        """One loaded registry per harness with agent folders in this project or home (in
        the order of ``subagents.harnesses.HARNESS_NAMES``).  Claude's also when --agents,
        --managed-dir, a plugin folder or an ``agents.json`` folder adds agents to it."""
        from subagents.harnesses.layout import find_git_root
        from subagents.registry.harness_view import present_harnesses

        claude = build_registry(
            agents=self.agents, dialect=Dialect.CLAUDE, cwd=self.cwd,
            plugin_dirs=self.plugin_dirs, managed_dir=self.managed_dir,
            group_dir=self.group_dir, global_dir=self.global_dir, refuse_bad_agents=False,
        )
        project = find_git_root(claude.cwd) or claude.cwd
        present = present_harnesses(project, claude.home)
        extra = (claude.cli_text is not None or claude.managed_dir is not None
                 or bool(claude.plugin_dirs) or claude.agents_json is not None)
        out: list[AgentRegistry] = []
        for name in present if "claude" in present or not extra else ["claude", *present]:
            reg = claude if name == "claude" else build_registry(
                dialect=Dialect(name), cwd=self.cwd,
                gemini_acknowledged=name == "gemini" and self._acknowledged())
            out.append(reg.load_all())
        return out


def _one(dialect: DialectChoice | None) -> Dialect | None:
    if dialect == ALL_HARNESSES:
        raise click.UsageError(
            "--dialect all shows every harness in `list` and `doctor`; name one harness here "
            f"({', '.join(DIALECT_NAMES)})"
        )
    assert dialect is None or isinstance(dialect, Dialect)
    return dialect


_P = ParamSpec("_P")
_R = TypeVar("_R")


def _as_usage_errors(function: Callable[_P, _R]) -> Callable[_P, _R]:
    """``function`` with its :class:`~subagents.errors.UsageError` raised as click's (exit 2,
    with the command's usage line)."""

    @functools.wraps(function)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            return function(*args, **kwargs)
        except UsageError as exc:
            raise click.UsageError(str(exc)) from None

    return wrapper


#: :func:`subagents.registry.configured.configured_registry` (the environment fills what the
#: options leave unset), its problems as usage errors.
build_registry = _as_usage_errors(configured_registry)


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
