"""The ``agents.json`` config store: one global file and one per group.

``AgentStore(global_dir, group_dir, main=False)`` reads both files, merges them (the group wins
on a name clash), and changes one of them at a time: ``define``, ``remove``.  The MCP server
(:mod:`subagents.store.mcp_server`) and the ``define`` / ``remove`` / ``export`` commands are thin
layers over this class.

Design decisions
----------------
* The byte level (parsing with positions, splicing one entry, atomic writes, the lock) lives
  in :mod:`subagents.store.file`; this module decides what to write and who may.
* **Never lose a definition.**  Every write happens under a cross-process lock (an
  ``flock`` on ``agents.json.lock`` beside the store, compatible with ``filelock``) and
  re-reads the file *inside* the lock, so concurrent writers serialise instead of
  overwriting each other's entries.  The new text goes to a temporary file in the same
  folder, is ``fsync``-ed, renamed over the old one with ``os.replace`` (atomic on POSIX)
  and the folder is ``fsync``-ed (just after the lock is released, before success is
  reported; see :mod:`subagents.store.file`), so a reader
  sees either the old file or the new one, never half of either; a crash or a full disk
  leaves the old file as it was.  The file's permission bits are kept; a symlinked store is
  written through to its target.  Readers take no lock: the rename makes that safe.
* **Stray temp files** (``.agents.json.<random>.tmp``) from a writer that died between its
  write and its rename are ignored by readers and removed by the next writer (it holds the
  lock, so no live writer owns them).
* **A corrupt file is never overwritten silently.**  Truncated JSON, a non-object top level,
  ``NaN``, non-UTF-8 bytes or a duplicate key (which ``json`` would silently collapse, losing
  an entry on the next write) raise :class:`StoreCorruptError` naming the line and column.
  Writes refuse until the file is fixed, or ``force=True`` first copies the bad bytes to
  ``agents.json.bak-<UTC timestamp>`` and starts from an empty store.  A whitespace-only
  file is treated as empty: there is nothing in it to lose.
* **Round-tripping.**  Unknown top-level entries, unknown keys inside an entry and the order
  of entries and keys are kept; in fact a write splices only the changed entry into the
  text, so every other entry stays byte for byte as the user formatted it (the splice is
  re-parsed and checked; if anything is off the file is re-encoded in full).  Re-defining an
  agent updates ``description``/``prompt`` in place; ``tools``/``model`` are set, or
  removed when omitted, and every other key of that
  entry (``disallowedTools``, ``x-note``...) stays.  New entries use the file's indentation
  (2 spaces for a new file) and plain UTF-8, not ``\\u`` escapes.
* **Validation at write time**: name ``[a-z0-9_-]+`` of at most
  :data:`MAX_NAME_LENGTH` characters; non-empty string description and prompt; model one of
  the aliases (``sonnet opus haiku fable inherit``) or a full Claude model id, by the
  reader's own test (rule SA105), so the store never writes what ``subagents validate``
  calls an error; tools a list of known tool names (:mod:`subagents.known_tools`).
  Deliberately stricter than the reader (see ``tests/test_store_agreement.py`` and
  docs/mcp.md): names of at most 64 characters, tools only as a list (the reader also takes
  ``"Read, Grep"``), size limits, no padded model, no project model aliases.  Size limits keep every
  store readable by the loader, whose file limit is 1 MiB: a prompt may hold
  :data:`MAX_PROMPT_BYTES`, a description :data:`MAX_DESCRIPTION_BYTES`, and a write that
  would make the file exceed :data:`MAX_STORE_BYTES` is refused.  Store-level codes are
  ``ST0xx`` (the reader's are ``SA0xx``).
* **Scopes.**  ``group`` is read-write; ``global`` is writable only when ``main=True`` (the
  NanoClaw "main group"), readable always.  A store without a global folder simply has no
  global scope.
* **Lock waits are bounded** (``lock_timeout``, default 10 s) and raise
  :class:`StoreLockTimeout`; the time a write waited is reported in its result, which is how
  ``bench/bench_store.py`` measures the worst wait.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import difflib
import os
import re
import shutil
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, TypeVar

from subagents.definition import MODEL_ALIASES, AgentDefinition
from subagents.diagnostics import Diagnostic, Severity
from subagents.errors import AgentNotFoundError, StoreCorruptError, StoreError
from subagents.known_tools import is_known_tool
from subagents.names import JSON_NAME
from subagents.store.file import (
    STORE_FILENAME,
    StoreDoc,
    StoreLock,
    atomic_write_bytes,
    decode_store,
    dump_store,
    fsync_dir,
    os_error,
    parse_store_text,
    quick_doc,
    read_regular,
    render_change,
    written_doc,
)

__all__ = [
    "MAX_DESCRIPTION_BYTES",
    "MAX_NAME_LENGTH",
    "MAX_PROMPT_BYTES",
    "MAX_STORE_BYTES",
    "STORE_FILENAME",
    "AgentStore",
    "ChangeResult",
    "StoreListing",
    "StoreScope",
    "StoreScopeError",
    "StoredAgent",
    "dump_store",
    "parse_store_text",
    "validate_entry",
]

MAX_NAME_LENGTH = 64
MAX_DESCRIPTION_BYTES = 16 * 1024
MAX_PROMPT_BYTES = 256 * 1024
MAX_STORE_BYTES = 1 << 20  # the loader's file limit
DEFAULT_LOCK_TIMEOUT = 10.0

NAME_RE = re.compile(JSON_NAME.pattern)  # agents.json keys (subagents.names.JSON_NAME)

_T = TypeVar("_T")


class StoreScope(StrEnum):
    GLOBAL = "global"
    GROUP = "group"


class StoreScopeError(StoreError):
    """The caller may not write to that scope (``global`` without ``main``), or it is absent."""


# --------------------------------------------------------------------------------- validation


def _diag(path: str, code: str, variant: str = "", hint: str | None = None, /,
          **params: Any) -> Diagnostic:
    """A finding of the store rule ``code``: its wording and severity are the rule registry's
    (:mod:`subagents.lint.rules.catalog`), an undeclared code cannot be built."""
    from subagents.lint.rules.catalog import rule

    return rule(code).templated(variant, path, None, None, hint, **params)


def _validate_model(model: Any, path: str) -> list[Diagnostic]:
    if model is None:
        return []
    if not isinstance(model, str):
        return [_diag(path, "ST010", "model", None, kind=type(model).__name__)]
    from subagents.lint.rules.fields import is_valid_model

    # The reader's own test (rule SA105), so that the store never writes a model that
    # `subagents validate` calls an error: aliases, claude-* ids, Bedrock/Vertex forms.
    # Padding is refused here (the reader tolerates it) because the SDK would get it as is.
    if model == model.strip() and is_valid_model(model):
        return []
    aliases = ", ".join(MODEL_ALIASES)
    close = difflib.get_close_matches(model.strip().lower(), MODEL_ALIASES, n=1, cutoff=0.6)
    hint = (
        f"did you mean {close[0]!r}?"
        if close
        else f"use one of {aliases} or a full Claude model id such as claude-sonnet-4-5"
    )
    return [
        _diag(
            path,
            "ST005",
            "",
            hint,
            model=model,
            aliases=aliases,
        )
    ]


def _validate_tools(tools: Any, path: str) -> list[Diagnostic]:
    if tools is None:
        return []
    if not isinstance(tools, list | tuple):
        return [
            _diag(
                path,
                "ST006",
                "",
                'write ["Read", "Grep"]; omit tools to inherit every tool',
                kind=type(tools).__name__,
            )
        ]
    out: list[Diagnostic] = []
    seen: set[str] = set()
    for i, tool in enumerate(tools):
        if not isinstance(tool, str):
            out.append(
                _diag(path, "ST006", "item", None, index=i, kind=type(tool).__name__)
            )
        elif not is_known_tool(tool):
            out.append(
                _diag(
                    path,
                    "ST007",
                    "",
                    "use a built-in tool name (Read, Grep, Bash, WebSearch, ...) "
                    "or mcp__server__tool",
                    tool=tool,
                    index=i,
                )
            )
        elif tool in seen:
            out.append(
                _diag(path, "ST011", "", None, tool=tool)
            )
        if isinstance(tool, str):
            seen.add(tool)
    return out


def _validate_text(value: Any, field_name: str, limit: int, path: str) -> list[Diagnostic]:
    if not isinstance(value, str):
        kind = "missing" if value is None else type(value).__name__
        return [_diag(path, "ST010", "text", None, field=field_name, kind=kind)]
    if not value.strip():
        rule = "ST003" if field_name == "description" else "ST004"
        what = (
            "when the orchestrator should use this agent"
            if field_name == "description"
            else "the agent's system prompt"
        )
        return [_diag(path, rule, "", f"write {what}", field=field_name)]
    size = len(value.encode("utf-8"))
    if size > limit:
        return [
            _diag(
                path,
                "ST008",
                "",
                "shorten it (the whole agents.json must stay under 1 MiB to load)",
                field=field_name,
                size=size,
                limit=limit,
            )
        ]
    return []


def validate_entry(
    name: Any,
    description: Any,
    prompt: Any,
    tools: Any = None,
    model: Any = None,
    *,
    path: str = "<entry>",
) -> list[Diagnostic]:
    """Everything wrong with one entry before it is written; ``[]`` when it may be written.

    Arguments are typed ``Any`` on purpose: they arrive from MCP clients and command lines.
    Warnings (severity ``warning``) do not stop a write.
    """
    out: list[Diagnostic] = []
    if not isinstance(name, str):
        out.append(_diag(path, "ST001", "type", None, kind=type(name).__name__))
    elif len(name) > MAX_NAME_LENGTH:
        out.append(
            _diag(
                path,
                "ST002",
                "",
                "choose a short kebab-case name",
                length=len(name),
                limit=MAX_NAME_LENGTH,
            )
        )
    elif not NAME_RE.fullmatch(name):
        bad = sorted({c for c in name if not NAME_RE.fullmatch(c)})
        shown = "".join(bad)[:20] or "(empty)"
        suggestion = JSON_NAME.suggest(name)
        out.append(
            _diag(
                path,
                "ST001",
                "chars" if name else "empty",
                f"try {suggestion!r}" if suggestion else "use e.g. 'fact-checker'",
                name=name[:80],
                found=shown,
            )
        )
    out += _validate_text(description, "description", MAX_DESCRIPTION_BYTES, path)
    out += _validate_text(prompt, "prompt", MAX_PROMPT_BYTES, path)
    out += _validate_tools(tools, path)
    out += _validate_model(model, path)
    return out


def _raise_if_errors(diagnostics: list[Diagnostic], name: Any) -> None:
    errors = [d for d in diagnostics if d.severity is Severity.ERROR]
    if errors:
        from subagents.errors import DefinitionError

        label = name[:80] if isinstance(name, str) else "?"
        lines = "; ".join(f"{d.rule} {d.message}" for d in errors)
        raise DefinitionError(f"agent {label!r} not written: {lines}", errors, hint=errors[0].hint)


# ---------------------------------------------------------------------------------- the store


@dataclass(frozen=True, slots=True)
class StoredAgent:
    """One entry of one store file, with what the merge made of it."""

    name: str
    scope: StoreScope
    path: Path
    line: int | None
    data: Any  # the entry as written (normally a dict)
    problems: tuple[str, ...] = ()  # why a loader would skip it (not an object, no prompt...)
    overrides: bool = False  # a group entry that replaces a global entry of the same name
    overridden: bool = False  # a global entry replaced by a group entry

    @property
    def active(self) -> bool:
        """Whether this entry is the one a merged load would use."""
        return not self.overridden and not self.problems

    def to_dict(self) -> dict[str, Any]:
        data = self.data if isinstance(self.data, dict) else {}
        return {
            "name": self.name,
            "source": str(self.scope),
            "path": str(self.path),
            "line": self.line,
            "description": data.get("description"),
            "model": data.get("model"),
            "tools": data.get("tools"),
            "overrides_global": self.overrides,
            "overridden_by_group": self.overridden,
            "active": self.active,
            "problems": list(self.problems),
        }


@dataclass(frozen=True, slots=True)
class StoreListing:
    agents: tuple[StoredAgent, ...]
    errors: tuple[str, ...] = ()  # a corrupt or unreadable store file, with line:col

    def to_dict(self) -> dict[str, Any]:
        return {"agents": [a.to_dict() for a in self.agents], "errors": list(self.errors)}


@dataclass(frozen=True, slots=True)
class ChangeResult:
    """What a ``define`` / ``remove`` did."""

    name: str
    scope: StoreScope
    path: Path
    action: str  # "created" | "updated" | "removed"
    lock_wait: float  # seconds spent waiting for the lock
    backup: Path | None = None  # where a corrupt file was saved (force=True)
    warnings: tuple[Diagnostic, ...] = field(default=())
    lock_held: float = 0.0  # seconds the lock was held (read, change, write)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "scope": str(self.scope),
            "path": str(self.path),
            "action": self.action,
            "lock_wait_ms": round(self.lock_wait * 1000, 3),
            "lock_held_ms": round(self.lock_held * 1000, 3),
            "backup": str(self.backup) if self.backup else None,
            "warnings": [d.to_dict() for d in self.warnings],
        }


def _entry_problems(entry: Any) -> tuple[str, ...]:
    if not isinstance(entry, dict):
        return (f"not an object ({type(entry).__name__})",)
    problems = [
        f"{key} is missing or not a non-empty string"
        for key in ("description", "prompt")
        if not isinstance(entry.get(key), str) or not entry[key].strip()
    ]
    return tuple(problems)


class AgentStore:
    """The global + group ``agents.json`` pair of one group."""

    def __init__(
        self,
        global_dir: str | os.PathLike[str] | None,
        group_dir: str | os.PathLike[str] | None,
        *,
        main: bool = False,
        lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
        filename: str = STORE_FILENAME,
    ) -> None:
        self.global_dir = Path(global_dir) if global_dir is not None else None
        self.group_dir = Path(group_dir) if group_dir is not None else None
        self.main = main
        self.lock_timeout = lock_timeout
        self.filename = filename
        # The last text this object wrote per file, already validated: under the lock, a
        # file that others have only appended to since is checked by its new part alone.
        self._written: dict[Path, StoreDoc] = {}

    # -- paths and reading ------------------------------------------------------------------

    def path(self, scope: StoreScope | str) -> Path:
        scope = self._scope(scope)
        folder = self.global_dir if scope is StoreScope.GLOBAL else self.group_dir
        if folder is None:
            raise StoreScopeError(f"no {scope} store is configured", hint=f"pass --{scope}-dir DIR")
        return folder / self.filename

    @staticmethod
    def _scope(scope: StoreScope | str) -> StoreScope:
        try:
            return StoreScope(scope)
        except ValueError:
            raise StoreScopeError(
                f"unknown scope {scope!r}", hint="use 'group' or 'global'"
            ) from None

    @property
    def scopes(self) -> tuple[StoreScope, ...]:
        """Configured scopes, lowest precedence first (global, then group)."""
        out: list[StoreScope] = []
        if self.global_dir is not None:
            out.append(StoreScope.GLOBAL)
        if self.group_dir is not None:
            out.append(StoreScope.GROUP)
        return tuple(out)

    def _check_not_shared(self, path: Path) -> None:
        """The group store must not be the global file under another name (a hard link)."""
        others = [self.path(s) for s in self.scopes if self.path(s) != path]
        for other in others:
            with contextlib.suppress(OSError):
                if path.exists() and other.exists() and os.path.samefile(path, other):
                    raise StoreError(f"{path} is the same file as {other}; each store must "
                                     "be its own file", hint="copy it instead of linking it")

    def read_text(self, scope: StoreScope | str) -> str | None:
        """The file's text (BOM stripped), or ``None`` if it does not exist."""
        path = self.path(scope)
        try:
            raw = read_regular(path)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise os_error(exc, path, "read") from None
        return decode_store(raw, str(path))

    def read(self, scope: StoreScope | str) -> dict[str, Any]:
        """The entries of one file in file order; ``{}`` if absent; raises if corrupt."""
        text = self.read_text(scope)
        if text is None:
            return {}
        return parse_store_text(text, str(self.path(scope)))[0]

    def _read_with_lines(self, scope: StoreScope) -> tuple[dict[str, Any], dict[str, int]]:
        text = self.read_text(scope)
        if text is None:
            return {}, {}
        return parse_store_text(text, str(self.path(scope)))

    def merged(self) -> dict[str, Any]:
        """``{name: entry}`` of both files, the group winning (global order first)."""
        out: dict[str, Any] = {}
        for scope in self.scopes:
            out.update(self.read(scope))
        return out

    def definitions(self) -> tuple[list[AgentDefinition], list[Diagnostic]]:
        """The merged, loadable definitions (group wins) and the loader's diagnostics.

        Reads each file with the JSON dialect of :mod:`subagents.harnesses.loader`, so entries the
        loader would skip are skipped here too (and said so in the diagnostics).
        """
        from subagents.definition import Dialect
        from subagents.harnesses.loader import parse_agent_text

        by_name: dict[str, AgentDefinition] = {}
        diagnostics: list[Diagnostic] = []
        for scope in self.scopes:
            path = self.path(scope)
            text = self.read_text(scope)
            if text is None:
                continue
            parse_store_text(text, str(path))  # corrupt -> StoreCorruptError with line:col
            result = parse_agent_text(text, path=str(path), dialect=Dialect.JSON)
            diagnostics.extend(result.diagnostics)
            for found in result.definitions:
                defn = found.evolve(path=path) if found.path is None else found
                by_name.pop(defn.name, None)  # the group's version takes the later position
                by_name[defn.name] = defn
        return list(by_name.values()), diagnostics

    # -- writing -----------------------------------------------------------------------------

    def validate_entry(
        self,
        name: Any,
        description: Any,
        prompt: Any,
        tools: Any = None,
        model: Any = None,
        *,
        scope: StoreScope | str = StoreScope.GROUP,
    ) -> list[Diagnostic]:
        """:func:`validate_entry` with the diagnostics' path set to that scope's file."""
        return validate_entry(name, description, prompt, tools, model, path=str(self.path(scope)))

    def _check_writable(self, scope: StoreScope) -> None:
        if scope is StoreScope.GLOBAL and not self.main:
            raise StoreScopeError(
                "the global agents.json is read-only for this group; only the main group may "
                "change it",
                hint="use scope 'group' (the default) to change this group's agents only",
            )

    def _clean_stray_temps(self, path: Path) -> None:
        # Called with the lock held: no live writer owns a temp file now.
        for stray in path.parent.glob(f".{path.name}.*.tmp"):
            with contextlib.suppress(OSError):
                stray.unlink()

    def _backup(self, path: Path) -> Path:
        stamp = _dt.datetime.now(_dt.UTC).strftime("%Y%m%dT%H%M%S%fZ")
        backup = path.with_name(f"{path.name}.bak-{stamp}")
        try:
            shutil.copy2(path, backup)
            with open(backup, "rb") as fh:
                os.fsync(fh.fileno())
        except OSError as exc:
            raise os_error(exc, backup, "back up the corrupt store to") from None
        return backup

    def _mutate(
        self,
        scope: StoreScope,
        change: Callable[[dict[str, Any]], tuple[dict[str, Any], _T]],
        *,
        force: bool,
    ) -> tuple[_T, Path, float, float, Path | None]:
        """Lock, re-read, apply ``change``, write atomically.

        Returns ``(value, path, seconds waited, seconds held, backup or None)``.
        """
        self._check_writable(scope)
        path = self.path(scope)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise os_error(exc, path.parent, "create the folder") from None
        # Never through a symlink (issue 12): a group store linked to the global one would let
        # a group rewrite global agents; and never the global file under another name.
        if path.is_symlink():
            raise StoreError(f"{path} is a symbolic link; a store must be a regular file (a "
                             "link could make this store write another one)",
                             hint="replace the link with the file itself")
        self._check_not_shared(path)
        target = path
        lock = StoreLock(target.with_name(f"{target.name}.lock"), self.lock_timeout)
        waited = lock.acquire()
        acquired = time.monotonic()
        try:
            self._clean_stray_temps(target)
            backup: Path | None = None
            old_bytes: bytes | None
            try:
                old_bytes = read_regular(target)
                mode = os.stat(target).st_mode & 0o7777
            except FileNotFoundError:
                old_bytes, mode = None, 0o644
            except OSError as exc:
                raise os_error(exc, path, "read") from None
            try:
                doc = (
                    quick_doc(
                        decode_store(old_bytes, str(path)), str(path), self._written.get(target)
                    )
                    if old_bytes is not None
                    else StoreDoc("", path=str(path))
                )
            except StoreCorruptError:
                if not force:
                    raise
                backup = self._backup(target)
                doc = StoreDoc("", path=str(path))
            entries, value = change(dict(doc.entries))
            new_text = render_change(doc, entries)
            data = new_text.encode("utf-8")
            if len(data) > MAX_STORE_BYTES and len(data) > len(old_bytes or b""):
                raise StoreError(
                    f"{path} would grow to {len(data):,} bytes, over the {MAX_STORE_BYTES:,}-byte "
                    "limit the loader reads; nothing was written",
                    hint="shorten prompts or remove unused agents first",
                )
            try:
                atomic_write_bytes(target, data, mode, sync_dir=False)
            except OSError as exc:
                self._written.pop(target, None)
                raise os_error(exc, path, "write") from None
            self._written[target] = written_doc(new_text, entries, str(path))
        finally:
            lock.release()
            held = time.monotonic() - acquired
        # Outside the lock: the next writer's rename is ordered after ours anyway, and the
        # caller hears of success only after the rename is durable.
        fsync_dir(target.parent)
        return value, path, waited, held, backup

    def define(
        self,
        name: str,
        description: str,
        prompt: str,
        *,
        tools: Iterable[str] | None = None,
        model: str | None = None,
        scope: StoreScope | str = StoreScope.GROUP,
        force: bool = False,
    ) -> ChangeResult:
        """Add or replace one agent in one file (validated first; see the module notes)."""
        scope = self._scope(scope)
        tool_list = list(tools) if isinstance(tools, list | tuple) else tools
        diagnostics = validate_entry(
            name, description, prompt, tool_list, model, path=str(self.path(scope))
        )
        _raise_if_errors(diagnostics, name)

        def change(entries: dict[str, Any]) -> tuple[dict[str, Any], str]:
            existed = name in entries
            old = entries.get(name)
            # Keep every other key of an existing entry (and its key order).
            entry: dict[str, Any] = dict(old) if isinstance(old, dict) else {}
            entry["description"] = description
            entry["prompt"] = prompt
            for key, value in (("tools", tool_list), ("model", model)):
                if value is None:
                    entry.pop(key, None)  # omitted = inherit
                else:
                    entry[key] = list(value) if key == "tools" else value
            entries[name] = entry  # an existing name keeps its position in the file
            return entries, "updated" if existed else "created"

        action, path, waited, held, backup = self._mutate(scope, change, force=force)
        warnings = tuple(d for d in diagnostics if d.severity is not Severity.ERROR)
        return ChangeResult(name, scope, path, action, waited, backup, warnings, held)

    def remove(
        self, name: str, scope: StoreScope | str = StoreScope.GROUP, *, force: bool = False
    ) -> ChangeResult:
        """Delete one agent from one file; :class:`AgentNotFoundError` if it is not there."""
        scope = self._scope(scope)
        self._check_writable(scope)

        def change(entries: dict[str, Any]) -> tuple[dict[str, Any], None]:
            if name not in entries:
                raise self._not_found(name, scope, entries)
            del entries[name]
            return entries, None

        _, path, waited, held, backup = self._mutate(scope, change, force=force)
        return ChangeResult(name, scope, path, "removed", waited, backup, (), held)

    def _not_found(self, name: str, scope: StoreScope, entries: Mapping[str, Any]) -> Exception:
        hint = None
        other = StoreScope.GLOBAL if scope is StoreScope.GROUP else StoreScope.GROUP
        if other in self.scopes:
            with contextlib.suppress(StoreError):
                if name in self.read(other):
                    hint = f"{name!r} is defined in the {other} agents.json; use scope '{other}'"
                    if other is StoreScope.GLOBAL and not self.main:
                        hint += " (only the main group may change global agents)"
        suggestions = difflib.get_close_matches(str(name), list(entries), n=3)
        err = AgentNotFoundError(
            name,
            suggestions,
            hint=hint or "list_agents / `subagents export --format json` shows what is defined",
        )
        # Say which file was searched: the name may well exist in the other one.
        err.message = err.message.replace(
            f"no agent named {name!r}", f"no agent named {name!r} in {self.path(scope)}", 1
        )
        err.args = (err.message,)
        return err

    # -- listing (kept last: the method name shadows the builtin inside the class body) -------

    def list(self, scope: str = "all") -> StoreListing:
        """Entries of ``all`` (both files), ``group`` or ``global``, with override info.

        A corrupt file does not stop the listing: its entries are missing and ``errors`` says
        where the file breaks.  Override flags compare with the other file even when only one
        scope is listed.
        """
        if scope not in ("all", "group", "global"):
            raise StoreScopeError(f"unknown scope {scope!r}", hint="use 'all', 'group' or 'global'")
        contents: dict[StoreScope, tuple[dict[str, Any], dict[str, int]]] = {}
        errors: list[str] = []
        for s in self.scopes:
            try:
                contents[s] = self._read_with_lines(s)
            except StoreError as exc:
                errors.append(exc.message)
                contents[s] = ({}, {})
        group_names = set(contents.get(StoreScope.GROUP, ({}, {}))[0])
        global_names = set(contents.get(StoreScope.GLOBAL, ({}, {}))[0])
        agents: list[StoredAgent] = []
        for s in self.scopes:
            if scope != "all" and str(s) != scope:
                continue
            entries, lines = contents[s]
            for name, entry in entries.items():
                agents.append(
                    StoredAgent(
                        name=name,
                        scope=s,
                        path=self.path(s),
                        line=lines.get(name),
                        data=entry,
                        problems=_entry_problems(entry),
                        overrides=s is StoreScope.GROUP and name in global_names,
                        overridden=s is StoreScope.GLOBAL and name in group_names,
                    )
                )
        if scope in ("group", "global") and StoreScope(scope) not in self.scopes:
            errors.append(f"no {scope} store is configured")
        return StoreListing(tuple(agents), tuple(errors))
