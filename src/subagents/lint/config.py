"""Project configuration: ``[tool.subagents]`` in ``pyproject.toml`` or ``.subagents.toml``.

Design notes
------------
* Found by walking up from the target (file or folder) like ruff does, but only up to the
  target's project root (:func:`config_root`: its git root, as discovery finds it; without
  one, the working folder when the target is inside it, else the folder holding its
  ``.claude``/``.codex`` folder, else the target's own folder) — never from the folders above
  it, which belong to someone else (a ``.subagents.toml`` in ``/tmp`` or a shared parent must
  not change what is reported).  In each folder a ``.subagents.toml`` wins over a
  ``pyproject.toml``; a ``pyproject.toml`` without a ``[tool.subagents]`` table is skipped and
  the walk goes on.  A file that is a symlink, not a regular file, another user's or writable
  by group or others is skipped with a warning (``notes``), as ssh treats its config
  (:func:`subagents.lint.trust.unsafe_file`).  ``.subagents.toml`` holds the keys at top
  level (a ``[tool.subagents]`` table inside it is accepted too).
* Keys: ``select``, ``ignore`` (codes, prefixes like ``SA2``, slugs, ``ALL``), ``extra-tools``,
  ``model-aliases`` (alias -> model id; also read by the runtime), ``max-file-size`` (bytes),
  ``per-file-ignores`` (glob relative to the config folder -> selectors), ``strict`` (bool).
  Runtime keys (read by ``subagents run``): ``allow`` (permission rules pre-approved without
  asking, e.g. ``"Bash(git status:*)"``, ``"Edit"``), ``allow-bypass-permissions`` (bool: may an
  agent's ``permissionMode: bypassPermissions`` take effect), ``writable-dirs`` (folders outside
  the working folder that tools may write to, relative to the config folder) and
  ``transcript-dir`` (where run transcripts go, relative to the config folder) and
  ``mcp-read-only`` (MCP tools that need no permission; a server's own ``readOnlyHint`` is not
  enough).  ``subagents run`` reads these only from ``~/.subagents/config.toml`` and a trusted
  project (:mod:`subagents.lint.trust`).  ``sandbox`` (``required``/``ask``/``off``) and
  ``sandbox-network`` (bool) set the Bash sandbox, from the user's own config only.
  ``sync`` (harness names, e.g. ``["gemini", "codex"]``) is what ``subagents sync`` writes
  when no ``--to`` is given.  ``max-tokens`` (output limit of a request), ``effort``
  (``low``/``medium``/``high``/``xhigh``/``max``) and ``thinking`` (bool) override the model's
  own generation parameters in ``subagents run``.  ``[batch]`` (``workers``, ``db``, and
  ``[batch.providers.NAME]`` with ``concurrency``, ``rate``, ``period``) sets batch runs
  (``docs/batch.md``).
  Unknown keys and wrong types are a :class:`~subagents.errors.ConfigError` with the path (and
  the line, which ``tomllib`` gives for syntax errors): a typo in ``ignore`` must not silently
  turn into "lint nothing".
* In-file silencer: ``# subagents: ignore[SA201,SA305]`` as a YAML comment in the frontmatter,
  or ``<!-- subagents: ignore[...] -->`` in the body; without ``[...]`` it silences every rule
  that may be silenced.  It silences the listed rules for that
  file only; security rules (``silenceable=False``) cannot be silenced in-file.
"""

from __future__ import annotations

import contextlib
import fnmatch
import os
import re
from collections.abc import Mapping
from dataclasses import field
from pathlib import Path

from subagents._dataclass import dataclass
from subagents._lazy_re import lazy_compile
from subagents.errors import ConfigError
from subagents.lint.rules.catalog import is_valid_selector, selector_problem

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "DEFAULT_MAX_FILE_SIZE",
    "BatchConfig",
    "BatchLimits",
    "Config",
    "config_root",
    "find_config",
    "inline_ignores",
    "load_config",
]

DEFAULT_MAX_FILE_SIZE = 1 << 20  # 1 MiB, Claude Code's own limit

_KNOWN_KEYS = frozenset(
    {"select", "ignore", "extra-tools", "model-aliases", "max-file-size", "per-file-ignores",
     "strict", "allow", "allow-bypass-permissions", "writable-dirs", "transcript-dir",
     "claude-code", "claude_code", "teams", "team-layout", "max-teammates",
     "max-team-messages", "mcp-read-only", "sandbox", "sandbox-network", "sync",
     "gemini-acknowledged", "max-tokens", "effort", "thinking", "batch"}
)
_BATCH_KEYS = frozenset({"workers", "db", "providers"})
_LIMIT_KEYS = frozenset({"concurrency", "rate", "period"})


@dataclass(frozen=True, slots=True)
class BatchLimits:
    """One provider's queue in batch runs: jobs at once across every worker
    (``concurrency``), and at most ``rate`` jobs started per ``period`` seconds."""

    concurrency: int | None = None
    rate: int | None = None
    period: float = 60.0


@dataclass(frozen=True, slots=True)
class BatchConfig:
    """``[batch]``: jobs at once per worker, the database, and per-provider limits."""

    workers: int | None = None
    db: str | None = None
    limits: Mapping[str, BatchLimits] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Config:
    """What the validator (and later the runtime) takes from configuration."""

    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    extra_tools: frozenset[str] = frozenset()
    model_aliases: Mapping[str, str] = field(default_factory=dict)
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    per_file_ignores: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    strict: bool = False
    # runtime (subagents run)
    allow_rules: tuple[str, ...] = ()
    allow_bypass_permissions: bool = False
    writable_dirs: tuple[Path, ...] = ()
    transcript_dir: Path | None = None
    #: The Claude Code version whose recorded behaviour the rules follow (None: the newest).
    claude_code: str | None = None
    # agent teams (subagents run --teams)
    teams: bool = False
    team_layout: str = "project"  # or "claude": ~/.claude/teams and ~/.claude/tasks
    max_teammates: int | None = None
    max_team_messages: int | None = None
    #: MCP tools (``mcp__server__tool``, globs allowed) treated as read-only at run time
    mcp_read_only: tuple[str, ...] = ()
    #: Bash sandbox: "required" / "ask" / "off", and network access (user config only)
    sandbox: str | None = None
    sandbox_network: bool = False
    #: Generation (``subagents run``): output limit, effort level, thinking on/off; ``None``:
    #: the model's own (:mod:`subagents.providers.generation`)
    max_tokens: int | None = None
    effort: str | None = None
    thinking: bool | None = None
    #: The harnesses ``subagents sync`` writes (dialect names; empty: the folders that exist)
    sync: tuple[str, ...] = ()
    #: Load Gemini project agents that Gemini CLI has not acknowledged yet (show, run)
    gemini_acknowledged: bool = False
    #: ``subagents batch``: workers, database, per-provider queue limits
    batch: BatchConfig = field(default_factory=BatchConfig)
    #: The file this came from (``None``: defaults) and the folder globs are relative to.
    path: Path | None = None

    @property
    def root(self) -> Path | None:
        return self.path.parent if self.path else None

    def ignores_for(self, file: Path | str) -> tuple[str, ...]:
        """Selectors from ``per-file-ignores`` whose glob matches ``file``."""
        if not self.per_file_ignores:
            return ()
        p = Path(file)
        candidates = [p.as_posix(), p.name]
        root = self.root
        if root is not None:
            with contextlib.suppress(ValueError, OSError):
                candidates.append(p.resolve().relative_to(root.resolve()).as_posix())
        out: list[str] = []
        for pattern, selectors in self.per_file_ignores.items():
            if any(fnmatch.fnmatchcase(c, pattern) for c in candidates):
                out.extend(selectors)
        return tuple(out)


def config_root(start: Path | str) -> Path:
    """The folder the configuration walk from ``start`` stops at (see the module notes)."""
    from subagents.fs import find_git_root

    here = Path(start).absolute()
    if not here.is_dir():
        here = here.parent
    root = find_git_root(here)
    if root is not None:
        return root
    cwd = Path.cwd().absolute()
    if here.is_relative_to(cwd):
        return cwd
    for folder in (here, *here.parents):
        if folder.name in (".claude", ".codex"):
            return folder.parent
    return here


def find_config(start: Path | str, notes: list[str] | None = None) -> Path | None:
    """The nearest ``.subagents.toml`` or ``pyproject.toml`` with ``[tool.subagents]`` from
    ``start`` up to its project root; files others could have written are skipped, and why
    is appended to ``notes``."""
    here = Path(start).absolute()
    if not here.is_dir():
        here = here.parent
    root = config_root(here)
    for folder in (here, *here.parents):
        dot = folder / ".subagents.toml"
        if dot.is_file() or dot.is_symlink():
            # (imported here: most projects have no configuration file)
            from subagents.lint.trust import unsafe_file

            problem = unsafe_file(dot)
            if problem is None:
                return dot
            _note(notes, f"{dot} is ignored because {problem}")
        py = folder / "pyproject.toml"
        if py.is_file() and _has_tool_table(py):
            from subagents.lint.trust import unsafe_file

            problem = unsafe_file(py)
            if problem is None:
                return py
            _note(notes, f"{py}: [tool.subagents] is ignored because {problem}")
        if folder == root:
            break
    return None


def _note(notes: list[str] | None, text: str) -> None:
    if notes is not None and text not in notes:
        notes.append(text)


def _has_tool_table(path: Path) -> bool:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    # Cheap pre-check before parsing: most pyproject files have no such table.
    if "subagents" not in text:
        return False
    return re.search(r"^\s*\[\s*tool\s*\.\s*subagents\s*[\].]", text, re.M) is not None


def load_config(path: Path | str | None = None, *, start: Path | str | None = None,
                notes: list[str] | None = None) -> Config:
    """Read a config file (or find one from ``start``, see :func:`find_config`); defaults
    when there is none."""
    if path is None:
        found = find_config(start if start is not None else Path.cwd(), notes)
        if found is None:
            return Config()
        path = found
    import tomllib  # only when there is a config file: keeps `validate` start-up light

    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise ConfigError(f"{p}: cannot read configuration: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8")
        data = tomllib.loads(text)
    except UnicodeDecodeError:
        raise ConfigError(f"{p}: not UTF-8", hint="save the file as UTF-8") from None
    except tomllib.TOMLDecodeError as exc:
        # tomllib's message carries "(at line L, column C)" or "(at end of document)".
        msg = str(exc).replace(
            "(at end of document)", f"(at end of document, line {text.count(chr(10)) + 1})"
        )
        raise ConfigError(f"{p}: invalid TOML: {msg}", hint="fix the TOML syntax") from None
    table: Any = data
    if p.name == "pyproject.toml" or "tool" in data:
        table = data.get("tool", {}).get("subagents", {} if p.name == "pyproject.toml" else data)
    if not isinstance(table, dict):
        raise ConfigError(f"{p}: [tool.subagents] must be a table")
    return _parse(table, p)


def _where(p: Path, key: str) -> str:
    prefix = "[tool.subagents] " if p.name == "pyproject.toml" else ""
    return f"{p}: {prefix}`{key}`"


def _str_list(value: Any, p: Path, key: str, *, selectors: bool = False) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{_where(p, key)} must be a list of strings",
                          hint=f'write e.g. {key} = ["SA2", "unknown-key"]')
    if selectors:
        for v in value:
            problem = selector_problem(v)
            if problem is not None:
                raise ConfigError(f"{_where(p, key)}: {problem}",
                                  hint="`subagents rules` lists every code and name")
    return tuple(v.strip() for v in value)


def _parse(table: Mapping[str, Any], p: Path) -> Config:
    unknown = sorted(set(table) - _KNOWN_KEYS)
    if unknown:
        raise ConfigError(f"{p}: unknown key(s) {', '.join(unknown)}",
                          hint="known keys: " + ", ".join(sorted(_KNOWN_KEYS)))
    select = _str_list(table.get("select", []), p, "select", selectors=True)
    ignore = _str_list(table.get("ignore", []), p, "ignore", selectors=True)
    extra = frozenset(_str_list(table.get("extra-tools", []), p, "extra-tools"))
    aliases_raw = table.get("model-aliases", {})
    if not isinstance(aliases_raw, dict) or not all(
        isinstance(k, str) and isinstance(v, str) and v.strip() for k, v in aliases_raw.items()
    ):
        raise ConfigError(f"{_where(p, 'model-aliases')} must map alias names to model ids",
                          hint='[tool.subagents.model-aliases]\nfast = "claude-haiku-4-5"')
    size = table.get("max-file-size", DEFAULT_MAX_FILE_SIZE)
    if isinstance(size, bool) or not isinstance(size, int) or size <= 0:
        raise ConfigError(f"{_where(p, 'max-file-size')} must be a positive number of bytes")
    pfi_raw = table.get("per-file-ignores", {})
    if not isinstance(pfi_raw, dict):
        raise ConfigError(f"{_where(p, 'per-file-ignores')} must map globs to rule lists")
    pfi = {str(k): _str_list(v, p, f"per-file-ignores.{k}", selectors=True)
           for k, v in pfi_raw.items()}
    strict = table.get("strict", False)
    if not isinstance(strict, bool):
        raise ConfigError(f"{_where(p, 'strict')} must be true or false")
    allow = _str_list(table.get("allow", []), p, "allow")
    bypass = table.get("allow-bypass-permissions", False)
    if not isinstance(bypass, bool):
        raise ConfigError(f"{_where(p, 'allow-bypass-permissions')} must be true or false")
    writable = tuple(p.parent / d for d in _str_list(table.get("writable-dirs", []), p,
                                                     "writable-dirs"))
    tdir = table.get("transcript-dir")
    if tdir is not None and not (isinstance(tdir, str) and tdir.strip()):
        raise ConfigError(f"{_where(p, 'transcript-dir')} must be a folder path")
    cc = table.get("claude-code", table.get("claude_code"))
    if os.environ.get("SUBAGENTS_CLAUDE_CODE_VERSION"):  # --claude-code wins over the file
        cc = os.environ["SUBAGENTS_CLAUDE_CODE_VERSION"]
    if cc is not None:
        from subagents.claude_code.profile import resolve_version, warn_once
        from subagents.errors import UsageError

        try:
            cc, warning = resolve_version(str(cc))
        except UsageError as exc:
            raise ConfigError(f"{_where(p, 'claude-code')}: {exc.message}") from None
        if warning:  # not recorded: the nearest recorded version, said once
            warn_once(f"{_where(p, 'claude-code')}: {warning}")
    teams = table.get("teams", False)
    if not isinstance(teams, bool):
        raise ConfigError(f"{_where(p, 'teams')} must be true or false")
    layout = table.get("team-layout", "project")
    if layout not in ("project", "claude"):
        raise ConfigError(f"{_where(p, 'team-layout')} must be \"project\" or \"claude\"",
                          hint='"project" keeps team files under .subagents/, "claude" under '
                               "~/.claude/")
    limits: dict[str, int | None] = {}
    for key in ("max-teammates", "max-team-messages"):
        value = table.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                  or value < 1):
            raise ConfigError(f"{_where(p, key)} must be a positive whole number")
        limits[key] = value
    gen_tokens = table.get("max-tokens")
    if gen_tokens is not None and (isinstance(gen_tokens, bool) or not isinstance(gen_tokens, int)
                                   or gen_tokens < 1):
        raise ConfigError(f"{_where(p, 'max-tokens')} must be a positive whole number")
    effort = table.get("effort")
    if effort is not None:
        from subagents.definition import EFFORTS

        if effort not in EFFORTS:
            raise ConfigError(f"{_where(p, 'effort')} must be one of {', '.join(EFFORTS)}")
    thinking = table.get("thinking")
    if thinking is not None:
        thinking = _flag(thinking, p, "thinking")
    return Config(select=select, ignore=ignore, extra_tools=extra,
                  max_tokens=gen_tokens, effort=effort, thinking=thinking,
                  claude_code=str(cc) if cc is not None else None,
                  model_aliases=dict(aliases_raw), max_file_size=size, per_file_ignores=pfi,
                  strict=strict, path=p, allow_rules=allow, allow_bypass_permissions=bypass,
                  writable_dirs=writable,
                  transcript_dir=(p.parent / Path(tdir).expanduser()) if tdir else None,
                  teams=teams, team_layout=layout, max_teammates=limits["max-teammates"],
                  max_team_messages=limits["max-team-messages"],
                  mcp_read_only=_str_list(table.get("mcp-read-only", []), p, "mcp-read-only"),
                  sandbox=_sandbox_mode(table.get("sandbox"), p),
                  sandbox_network=_flag(table.get("sandbox-network", False), p,
                                        "sandbox-network"),
                  sync=_sync_targets(table.get("sync", []), p),
                  gemini_acknowledged=_flag(table.get("gemini-acknowledged", False), p,
                                            "gemini-acknowledged"),
                  batch=_batch(table.get("batch", {}), p))


def _positive(value: Any, p: Path, key: str, *, number: bool = False) -> Any:
    if value is None:
        return None
    if (isinstance(value, bool) or not isinstance(value, (int, float))
            or (isinstance(value, float) and not number) or value <= 0):
        raise ConfigError(f"{_where(p, key)} must be a positive "
                          f"{'number' if number else 'whole number'}")
    return value


def _batch(value: Any, p: Path) -> BatchConfig:
    """``[batch]``: ``workers``, ``db`` and ``[batch.providers.NAME]`` limits."""
    if not isinstance(value, dict):
        raise ConfigError(f"{_where(p, 'batch')} must be a table",
                          hint="[batch]\nworkers = 4\n[batch.providers.anthropic]\n"
                               "concurrency = 8\nrate = 50\nperiod = 60")
    unknown = sorted(set(value) - _BATCH_KEYS)
    if unknown:
        raise ConfigError(f"{_where(p, 'batch')}: unknown key(s) {', '.join(unknown)}",
                          hint="known keys: " + ", ".join(sorted(_BATCH_KEYS)))
    db = value.get("db")
    if db is not None and not (isinstance(db, str) and db.strip()):
        raise ConfigError(f"{_where(p, 'batch.db')} must be a database address or file path")
    providers = value.get("providers", {})
    if not isinstance(providers, dict):
        raise ConfigError(f"{_where(p, 'batch.providers')} must be a table of providers")
    limits: dict[str, BatchLimits] = {}
    for name, raw in providers.items():
        key = f"batch.providers.{name}"
        if not isinstance(raw, dict):
            raise ConfigError(f"{_where(p, key)} must be a table (concurrency, rate, period)")
        extra = sorted(set(raw) - _LIMIT_KEYS)
        if extra:
            raise ConfigError(f"{_where(p, key)}: unknown key(s) {', '.join(extra)}",
                              hint="known keys: concurrency, rate, period")
        limits[str(name).lower()] = BatchLimits(
            concurrency=_positive(raw.get("concurrency"), p, f"{key}.concurrency"),
            rate=_positive(raw.get("rate"), p, f"{key}.rate"),
            period=float(_positive(raw.get("period", 60.0), p, f"{key}.period", number=True)))
    return BatchConfig(workers=_positive(value.get("workers"), p, "batch.workers"),
                       db=db.strip() if db else None, limits=limits)


def _sync_targets(value: Any, p: Path) -> tuple[str, ...]:
    """The ``sync`` list: harness dialect names, checked here so a typo is reported with the
    config file's path (and the closest name) rather than later."""
    import difflib

    from subagents.harnesses import HARNESS_NAMES

    known = tuple(n for n in HARNESS_NAMES if n != "claude")
    out: list[str] = []
    for name in _str_list(value, p, "sync"):
        key = name.lower()
        if key not in known:
            close = difflib.get_close_matches(key, known, n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise ConfigError(f"{_where(p, 'sync')}: unknown harness {name!r}",
                              hint=f"{hint}known harnesses: {', '.join(known)}")
        if key not in out:
            out.append(key)
    return tuple(out)


def _sandbox_mode(value: Any, p: Path) -> str | None:
    if value is None:
        return None
    if value not in ("required", "ask", "off"):
        raise ConfigError(f"{_where(p, 'sandbox')} must be \"required\", \"ask\" or \"off\"")
    return str(value)


def _flag(value: Any, p: Path, key: str) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{_where(p, key)} must be true or false")
    return value


_INLINE_RE = lazy_compile(
    r"(?:#|<!--)\s*subagents:\s*ignore(?:\[(?P<list>[^\]\n]*)\]|(?=\s*(?:$|-->)))",
    re.IGNORECASE | re.MULTILINE,
)


#: What every in-file silencer holds, as written (a text without it has none; the secrets
#: scan's gate looks for it in the same pass as its own literals).
SILENCER_MARK = "subagents:"


def inline_ignores(text: str, *, frontmatter_end: int | None = None) -> tuple[str, ...]:
    """Selectors named by in-file silencers.

    ``# ...`` comments count only inside the frontmatter (lines before ``frontmatter_end``,
    1-based, when given) - in the body a ``#`` starts a Markdown heading, not a comment.
    """
    if SILENCER_MARK not in text:
        return ()
    out: list[str] = []
    for m in _INLINE_RE.finditer(text):
        if m.group(0).startswith("#") and frontmatter_end is not None:
            line = text.count("\n", 0, m.start()) + 1
            if line > frontmatter_end:
                continue
        listed = m.group("list")
        if listed is None:  # a bare `# subagents: ignore`: every rule that may be silenced
            out.append("ALL")
            continue
        out.extend(s.strip() for s in listed.split(",") if s.strip())
    return tuple(s for s in out if is_valid_selector(s))
