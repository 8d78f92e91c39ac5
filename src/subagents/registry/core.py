"""The agent registry: which agents a directory sees, from where, and why not.

Users' top complaint about Claude Code is an agent that silently does not appear.  So the
registry keeps, besides the winners, every shadowed definition (and what shadows it), every
clash, and the diagnostics of every file that failed — :meth:`AgentRegistry.explain` turns
them into an answer for one name, and ``subagents doctor`` for a whole directory.

Design notes
------------
* Scopes and precedence come from :mod:`subagents.harnesses.layout` (managed > cli > project >
  user > plugin > built-in).  Within one *source* (one folder, one JSON text or file) two
  definitions of one name are a clash (SA601): both files are named, neither wins,
  the name is blocked (``get`` raises :class:`DefinitionError`) and lower-scope definitions of it
  are listed as shadowed.  Falling through to a user-scope definition would be exactly the
  silent surprise this module exists to prevent.  Across sources the earlier wins.
* Lazy: discovery reads front matter only (``include_body=False``);
  :class:`AgentEntry` carries the name, description, model and tools, and ``entry.definition``
  reads the body on first use.  JSON sources carry their prompts anyway and are read whole.
* Cached (codex-subagents): each file's :class:`~subagents.harnesses.layout.Stamp` (mtime, size,
  inode) is kept; :meth:`reload` stats every file and re-parses only changed ones, so a reload
  with nothing changed costs one ``stat`` per file plus one per folder.  A stamp within
  ``RACY_NS`` of the read is not trusted (a second write in the same tick would keep it).
* A file read while it changes (stamp before != stamp after) is read again, up to three times;
  a file that vanishes mid-scan is simply gone.  A file that fails keeps its diagnostics in and
  its definition out — a previously good file that breaks drops its agent, and
  :meth:`reload` reports ``removed`` plus ``error`` with the reason.
* Files the harness would skip are not loaded, with the reason: reader errors (``LoadResult.ok``
  false) and :func:`subagents.harnesses.layout.harness_skip` (empty or invalid ``name``, empty
  ``description``, codex-subagents' own rejections).  The full rule set is ``validate``'s job.
  In a JSON source (``--agents``, ``agents.json``) one bad entry does not drop its siblings,
  as NanoClaw drops only invalid entries.
* ``get`` matches like the Task tool's ``subagent_type``: exact id, then ignoring case and the
  separators ``-``, ``_`` and space, then a unique plugin agent by its bare name.
* Watching lives in :mod:`subagents.registry.watch`; it drives :meth:`reload`, so the events
  it yields are computed from the registry's own before/after state (the visible winner of
  each name) and a missed filesystem event can delay a change but never lose it.
* Paths are shown as ``validate`` shows them (:meth:`display`): relative to the cwd, ``../``
  at most once, else absolute -- one file, one spelling across ``validate``/``list``/``watch``.
"""

from __future__ import annotations

import builtins
import difflib
import json
import os
import time
from collections import defaultdict
from collections.abc import AsyncGenerator, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from subagents.claude_code.profile import get_profile
from subagents.claude_code.scan import code_unit_key
from subagents.definition import AgentDefinition, Dialect, Scope
from subagents.diagnostics import Diagnostic, Severity, sort_diagnostics
from subagents.errors import AgentNotFoundError, DefinitionError, UsageError
from subagents.harnesses import get_harness
from subagents.harnesses.layout import (
    BUILTIN_AGENTS,
    DirListingCache,
    Source,
    SourceKind,
    Stamp,
    harness_skip,
    plan_sources,
    scan_folder,
)
from subagents.harnesses.loader import LoadResult, parse_agent_text, read_agent_file
from subagents.lint.rules.catalog import rule
from subagents.lint.rules.claude_code import duplicate_diagnostic, registry_diagnostics
from subagents.names import normalize_agent_name as normalize_name
from subagents.registry.records import (
    AgentEntry,
    FileRecord,
    FolderState,
    _state_of,
    keeps_last,
    read_in_scope,
    reads_hidden,
)
from subagents.registry.watch import ChangeEvent, diff_state

__all__ = [
    "BUILTIN_AGENTS",
    "AgentEntry",
    "AgentRegistry",
    "Explanation",
    "FileRecord",
    "FolderState",
    "normalize_name",
]



_BUILTIN_SOURCE = Source(Scope.BUILTIN, SourceKind.BUILTIN, 0, "built-in")
_REGISTERED_SOURCE = Source(Scope.CLI, SourceKind.REGISTERED, 0, "register()")



@dataclass(slots=True)
class Explanation:
    """Everything the registry knows about one name (``subagents doctor``, ``show``)."""

    name: str
    winner: AgentEntry | None
    shadowed: list[AgentEntry]
    clash: tuple[AgentEntry, ...]
    failed_files: list[tuple[str, tuple[Diagnostic, ...]]]

    def lines(self) -> list[str]:
        out: list[str] = []
        if self.winner is not None:
            out.append(f"{self.name}: loaded from {self.winner.describe_origin()}")
        elif self.clash:
            files = ", ".join(e.display_path or e.origin.label for e in self.clash)
            out.append(
                f"{self.name}: NOT loaded: defined {len(self.clash)} times in one "
                f"{self.clash[0].source.value} folder ({files}); rename or delete one"
            )
        else:
            out.append(f"{self.name}: not loaded")
        for entry in self.shadowed:
            out.append(f"  shadowed: {entry.describe_origin()}")
        for path, diags in self.failed_files:
            first = next((d for d in diags if d.severity is Severity.ERROR), None)
            reason = f"{first.rule} {first.message}" if first else "failed"
            out.append(f"  not loaded: {path}: {reason}")
        return out


def _diag(
    path: str,
    rule: str,
    message: str,
    hint: str | None,
    severity: Severity = Severity.ERROR,
    line: int | None = None,
) -> Diagnostic:
    return Diagnostic(
        path=path,
        line=line,
        column=None if line is None else 1,
        rule=rule,
        severity=severity,
        message=message,
        hint=hint,
    )


def _where(entry: AgentEntry) -> str:
    return entry.display_path or entry.origin.label


def _config_mapping(config: Any) -> dict[str, Any]:
    """A mapping, or any object with ``managed_dir`` / ``plugin_dirs`` / ``agents_json``."""
    if config is None:
        return {}
    if isinstance(config, Mapping):
        return dict(config)
    keys = ("managed_dir", "plugin_dirs", "agents_json", "claude_code")
    return {k: getattr(config, k) for k in keys if getattr(config, k, None) is not None}


def _config_paths(value: Any) -> tuple[Path, ...]:
    if value is None:
        return ()
    if isinstance(value, str | os.PathLike):
        return (Path(value),)
    return tuple(Path(v) for v in value)


class AgentRegistry:
    """The agents a directory sees.

    ``cli_agents`` is the ``--agents`` JSON text (or a mapping of name -> fields, serialised);
    ``agents_json`` is NanoClaw's ``(global_path, group_path)``; ``config`` may give
    ``managed_dir``, ``plugin_dirs`` and ``agents_json`` (explicit arguments win).
    """

    def __init__(
        self,
        cwd: str | os.PathLike[str] | None = None,
        *,
        home: str | os.PathLike[str] | None = None,
        cli_agents: str | Mapping[str, Any] | None = None,
        managed_dir: str | os.PathLike[str] | None = None,
        plugin_dirs: Iterable[str | os.PathLike[str]] = (),
        dialect: Dialect = Dialect.CLAUDE,
        agents_json: tuple[str | os.PathLike[str] | None, str | os.PathLike[str] | None]
        | None = None,
        config: Mapping[str, Any] | Any | None = None,
        claude_code: str | None = None,
    ) -> None:
        cfg = _config_mapping(config)
        # The Claude Code version whose recorded behaviour decides what loads (None: newest).
        version = claude_code if claude_code is not None else cfg.get("claude_code")
        self.claude_code: str | None = get_profile(version).version if version else None
        self.cwd = Path(os.path.abspath(cwd if cwd is not None else os.getcwd()))
        self.home = Path(home) if home is not None else Path(os.environ.get("HOME") or Path.home())
        self.dialect = Dialect(dialect)
        if self.dialect not in (Dialect.CLAUDE, Dialect.CODEX_MD):
            raise UsageError(
                f"the registry discovers the claude or codex layout, not {self.dialect.value!r}",
                hint="use Dialect.CLAUDE (.claude/agents) or Dialect.CODEX_MD (.codex/agents)",
            )
        managed = (
            managed_dir
            if managed_dir is not None
            else cfg.get("managed_dir", cfg.get("managed-dir"))
        )
        self.managed_dir = Path(managed) if managed is not None else None
        plugins = tuple(Path(p) for p in plugin_dirs) or _config_paths(
            cfg.get("plugin_dirs", cfg.get("plugin-dirs"))
        )
        self.plugin_dirs: tuple[Path, ...] = plugins
        aj = agents_json if agents_json is not None else cfg.get("agents_json")
        self.agents_json: tuple[Path | None, Path | None] | None = (
            None
            if aj is None
            else (
                Path(aj[0]) if aj[0] is not None else None,
                Path(aj[1]) if aj[1] is not None else None,
            )
        )
        self.cli_text = self._cli_text(cli_agents)
        self._sources: list[Source] = []
        self._registered: dict[str, AgentEntry] = {}
        self._records: dict[tuple[int, Path | str], FileRecord] = {}
        self._scan_diags: list[Diagnostic] = []
        self._dir_cache = DirListingCache()
        self._winners: dict[str, AgentEntry] = {}
        self._clashes: dict[str, tuple[AgentEntry, ...]] = {}
        self._dropped: dict[str, tuple[AgentEntry, ...]] = {}
        self._shadowed: list[AgentEntry] = []
        self._resolve_diags: list[Diagnostic] = []
        self._by_norm: dict[str, list[str]] = {}
        self._folder_state: dict[Source, FolderState] = {}
        self._loaded = False

    # ------------------------------------------------------------------ construction helpers
    @staticmethod
    def _cli_text(cli_agents: str | Mapping[str, Any] | None) -> str | None:
        if cli_agents is None or isinstance(cli_agents, str):
            return cli_agents
        if not isinstance(cli_agents, Mapping):
            raise UsageError(
                f"cli_agents must be JSON text or a mapping, not {type(cli_agents).__name__}"
            )
        bad = [k for k in cli_agents if not isinstance(k, str) or not k.strip()]
        if bad:
            raise UsageError(
                f"agent names must be non-empty strings, got {bad[0]!r}",
                hint='use {"my-agent": {"description": "...", "prompt": "..."}}',
            )
        try:
            return json.dumps(dict(cli_agents), indent=1)
        except (TypeError, ValueError) as exc:
            raise UsageError(f"cli_agents cannot be written as JSON: {exc}") from exc

    def display(self, path: Path) -> str:
        """``path`` as every command prints it (:func:`subagents.fs.display_path`):
        relative inside the working folder, ``~/...`` under home, else absolute -- so one
        file has one spelling in ``validate``, ``list``, ``doctor`` and ``watch``."""
        from subagents.fs import display_path

        return display_path(path, self.cwd, self.home)

    @property
    def sources(self) -> list[Source]:
        """Every source in precedence order (planned by ``load_all``)."""
        return list(self._sources)

    # ------------------------------------------------------------------ loading
    def load_all(self) -> AgentRegistry:
        """Scan every scope from scratch (front matter only) and resolve precedence."""
        self._sources = plan_sources(
            cwd=self.cwd,
            home=self.home,
            dialect=self.dialect,
            managed_dir=self.managed_dir,
            cli_text=self.cli_text,
            agents_json=self.agents_json,
            plugin_dirs=self.plugin_dirs,
        )
        self._records = {}
        self._dir_cache = DirListingCache()
        self._refresh(force=True)
        self._loaded = True
        return self

    def reload(self) -> list[ChangeEvent]:
        """Stat everything, re-read only what changed; the changes, as events."""
        if not self._loaded:
            self.load_all()
            return []
        return self._refresh()

    def _ensure_loaded(self) -> None:
        if not self._loaded:
            self.load_all()

    def _refresh(self, *, force: bool = False) -> list[ChangeEvent]:
        old = self._records
        new: dict[tuple[int, Path | str], FileRecord] = {}
        key: tuple[int, Path | str]
        scan_diags: list[Diagnostic] = []
        changed = force
        for index, src in enumerate(self._sources):
            if src.kind is SourceKind.FOLDER:
                assert src.root is not None
                scan = scan_folder(
                    src.root,
                    display=self.display,
                    cache=self._dir_cache,
                    hidden=reads_hidden(src),
                )
                scan_diags.extend(scan.diagnostics)
                self._folder_state[src] = _state_of(scan)
                stat = os.stat
                for path, segments in scan.files:
                    key = (index, path)
                    prev = old.get(key)
                    if prev is not None and prev.trusted:
                        # The hot path of a reload: one stat, one tuple compare, no parsing.
                        try:
                            st = stat(path)
                        except OSError:
                            st = None
                        if st is not None and prev.stamp == (
                            st.st_mtime_ns,
                            st.st_size,
                            st.st_ino,
                            st.st_dev,
                        ):
                            new[key] = prev
                            continue
                    changed = True
                    rec = self._read_file(src, path, segments, prev)
                    if rec is not None:
                        new[key] = rec
            elif src.kind in (SourceKind.JSON_FILE, SourceKind.AGENT_FILE):
                assert src.root is not None
                key = (index, src.root)
                rec = self._read_file(src, src.root, (), old.get(key))
                self._folder_state[src] = FolderState("missing" if rec is None else "file", 1)
                if rec is not None:
                    new[key] = rec
                    changed = changed or rec is not old.get(key)
            elif src.kind is SourceKind.JSON_TEXT:
                key = (index, "--agents")
                rec = old.get(key) or self._parse_text(src)
                changed = changed or rec is not old.get(key)
                new[key] = rec
        self._scan_diags = scan_diags
        if not changed and len(new) == len(old):
            return []  # nothing re-read or gone: the resolution stands (the stat-only case)
        old_winners, old_clashes = self._winners, self._clashes
        old_dropped = {(n, e.path) for n, g in self._dropped.items() for e in g[1:]}
        self._records = new
        self._resolve()
        if force:
            return []  # load_all: a fresh start, not a change
        clash_diags = {
            name: tuple(
                d
                for d in self._resolve_diags
                if d.rule == "SA601" and any(d.path == _where(e) for e in group)
            )
            for name, group in self._clashes.items()
            if name not in old_clashes
        }
        events = diff_state(old, new, old_winners, self._winners, old_clashes, clash_diags)
        # A file Claude Code now ignores for a same-name file later in its folder: an error.
        for name, group in self._dropped.items():
            for loser in group[1:]:
                if (name, loser.path) not in old_dropped:
                    diag = self._dropped_duplicate(loser, group[0])
                    events.append(
                        ChangeEvent("error", name, loser.display_path, None, diagnostics=(diag,))
                    )
        return events

    def _parse_text(self, src: Source) -> FileRecord:
        assert src.text is not None
        # a harness may refuse an --agents value as a whole (Claude Code: one bad entry and it
        # does not start at all)
        refusal = get_harness(self.dialect.value).refuses_agents_value(src.text, src.label)
        if refusal is not None:
            return FileRecord(None, (), (refusal,), src.label, None, True, src)
        result = parse_agent_text(src.text, path=src.label, dialect=Dialect.JSON)
        return self._record(src, result, None, None, src.label, (), trusted=True)

    def _read_file(
        self, src: Source, path: Path, segments: tuple[str, ...], old: FileRecord | None
    ) -> FileRecord | None:
        try:
            stamp = Stamp.of(os.stat(path))
        except FileNotFoundError:
            return None  # deleted between the listing and now
        except OSError:
            stamp = None  # unreadable / loop: the reader turns it into a diagnostic
        if old is not None and old.trusted and stamp is not None and old.stamp == stamp:
            return old
        display = self.display(path)
        stable = False
        result: LoadResult | None = None
        for _attempt in range(3):
            result = read_agent_file(
                path,
                dialect=src.dialect,
                include_body=False,
                display_path=display,
                claude_code=self.claude_code,
            )
            try:
                after: Stamp | None = Stamp.of(os.stat(path))
            except FileNotFoundError:
                return None  # deleted half-way through the read
            except OSError:
                after = None
            if after == stamp:
                stable = True
                break
            stamp = after  # rewritten half-way through the read: read it again
        assert result is not None
        extra: tuple[Diagnostic, ...] = ()
        if not stable:
            extra = (
                _diag(
                    display,
                    "SA606",
                    "the file kept changing while it was read; "
                    "it will be read again on the next reload",
                    None,
                    Severity.WARNING,
                ),
            )
        trusted = stable and stamp is not None and not stamp.racy(time.time_ns())
        return self._record(src, result, stamp, path, display, segments, trusted, extra)

    def _record(
        self,
        src: Source,
        result: LoadResult,
        stamp: Stamp | None,
        path: Path | None,
        display: str,
        segments: tuple[str, ...],
        trusted: bool,
        extra: tuple[Diagnostic, ...] = (),
    ) -> FileRecord:
        result, reading = read_in_scope(src, result)
        diags = [*registry_diagnostics(result, display), *extra]
        entries: list[AgentEntry] = []
        for defn in reading.loaded(result, include_body=False):
            problem = reading.refuses(defn, display)
            if problem is not None:
                diags.append(problem)
                continue
            plugin = ":".join((src.plugin, *segments)) if src.plugin else None
            header = defn.evolve(source=src.scope, path=path, plugin=plugin)
            entry = AgentEntry(header, src, display if path else None, stamp)
            if src.dialect is Dialect.JSON:
                entry._full = header  # JSON carries the prompt: nothing lazy to load
            entries.append(entry)
        guessed = None if entries else reading.declared_name(result)
        if guessed is None and not entries and path is not None and src.dialect is not Dialect.JSON:
            guessed = path.stem
        return FileRecord(stamp, tuple(entries), tuple(diags), display, guessed, trusted, src)

    def register(self, defn: AgentDefinition) -> AgentEntry:
        """Add a definition at ``cli`` scope (like ``--agents``); a later call replaces it."""
        if not isinstance(defn, AgentDefinition):
            raise UsageError(f"register() takes an AgentDefinition, not {type(defn).__name__}")
        if not isinstance(defn.name, str) or not defn.name.strip():
            raise UsageError(f"agent name must be a non-empty string, got {defn.name!r}")
        problem = harness_skip(defn, "register()", Dialect.JSON)
        if problem is not None:
            raise DefinitionError(
                f"cannot register agent: {problem.message}", (problem,), hint=problem.hint
            )
        full = defn.evolve(source=Scope.CLI)
        entry = AgentEntry(full, _REGISTERED_SOURCE, None, None, None, full)
        self._registered[entry.name] = entry
        if self._loaded:
            self._resolve()
        return entry

    # ------------------------------------------------------------------ precedence
    def _groups(self) -> Iterator[tuple[Source, list[AgentEntry]]]:
        if self._registered:
            yield _REGISTERED_SOURCE, list(self._registered.values())
        by_source: dict[int, list[AgentEntry]] = defaultdict(list)
        # Records are kept in scan order (sorted listings), so no sort is needed here.
        for (index, _key), rec in self._records.items():
            by_source[index].extend(rec.entries)
        for index, src in enumerate(self._sources):
            yield src, by_source.get(index, [])
        yield (
            _BUILTIN_SOURCE,
            [AgentEntry(b, _BUILTIN_SOURCE, None, None, None, b) for b in BUILTIN_AGENTS],
        )

    def _resolve(self) -> None:
        winners: dict[str, AgentEntry] = {}
        clashes: dict[str, tuple[AgentEntry, ...]] = {}
        dropped: dict[str, tuple[AgentEntry, ...]] = {}
        shadowed: list[AgentEntry] = []
        diags: list[Diagnostic] = []
        for _src, entries in sorted(self._groups(), key=lambda g: g[0].order):
            by_name: dict[str, list[AgentEntry]] = defaultdict(list)
            for entry in entries:
                entry.shadowed_by = None
                by_name[entry.name].append(entry)
            for name, found in by_name.items():
                group = found
                if len(group) > 1 and keeps_last(_src):
                    # Claude Code keeps the last path in code-unit order; the others are
                    # dropped (reported), not blocking the name.
                    group.sort(key=lambda e: code_unit_key(str(e.path or "")))
                    last = group[-1]
                    dropped[name] = (last, *group[:-1])
                    for loser in group[:-1]:
                        loser.shadowed_by = last
                        shadowed.append(loser)
                        diags.append(self._dropped_duplicate(loser, last))
                    group = [last]
                if name in winners or name in clashes:
                    for entry in group:
                        entry.shadowed_by = winners.get(name)
                        shadowed.append(entry)
                elif len(group) > 1:
                    clashes[name] = tuple(group)
                    diags.extend(self._clash_diags(name, group))
                else:
                    winners[name] = group[0]
        self._winners, self._clashes, self._shadowed = winners, clashes, shadowed
        self._dropped = dropped
        self._resolve_diags = diags
        by_norm: dict[str, list[str]] = defaultdict(list)
        for name in (*winners, *clashes):
            by_norm[normalize_name(name)].append(name)
        self._by_norm = dict(by_norm)

    @staticmethod
    def _dropped_duplicate(loser: AgentEntry, winner: AgentEntry) -> Diagnostic:
        loc = loser.header.location_of("name")
        return duplicate_diagnostic(
            loser.display_path or loser.origin.label,
            loser.name,
            winner.display_path or winner.origin.label,
            loser.source.value,
            get_profile().label,
            loc.line if loc else None,
        )

    @staticmethod
    def _clash_diags(name: str, group: list[AgentEntry]) -> list[Diagnostic]:
        files = [e.display_path or e.origin.label for e in group]
        out = []
        for entry, where in zip(group, files, strict=True):
            others = ", ".join(f for f in files if f != where) or where
            loc = entry.header.location_of("name")
            line = loc.line if loc else None
            out.append(
                rule("SA601").templated(
                    "clash", where, line, None if line is None else 1,
                    "rename one agent (the `name` field, not the file name) or delete one file",
                    name=name, others=others)
            )
        return out

    # ------------------------------------------------------------------ queries
    def list(self, *, include_builtin: bool = False) -> builtins.list[AgentEntry]:
        """The winners, highest scope first, then by name (bodies not loaded).

        The built-in agents (general-purpose, Explore, Plan) only with ``include_builtin``,
        as ``subagents list --include-builtin``; :meth:`get` finds them either way."""
        self._ensure_loaded()
        entries = [
            e for e in self._winners.values() if include_builtin or e.source is not Scope.BUILTIN
        ]
        return sorted(entries, key=lambda e: (e.origin.order, e.name.casefold()))

    def names(self) -> builtins.list[str]:
        """Every name :meth:`get` resolves, built-ins included."""
        return [e.name for e in self.list(include_builtin=True)]

    def shadowed(self, *, include_builtin: bool = False) -> builtins.list[AgentEntry]:
        """Definitions hidden by a higher one (``entry.shadowed_by``; None under a clash)."""
        self._ensure_loaded()
        return [e for e in self._shadowed if include_builtin or e.source is not Scope.BUILTIN]

    def clashes(self) -> dict[str, tuple[AgentEntry, ...]]:
        """Names defined more than once in one source: blocked, with every definition."""
        self._ensure_loaded()
        return dict(self._clashes)

    def duplicates(self) -> dict[str, tuple[AgentEntry, ...]]:
        """Names one Claude Code folder defines more than once: ``(used, *ignored)``.

        Claude Code keeps the last path in code-unit order and ignores the others (each one
        is also in :meth:`shadowed` and has an ``SA601`` diagnostic)."""
        self._ensure_loaded()
        return dict(self._dropped)

    def diagnostics(self) -> builtins.list[Diagnostic]:
        """Folder problems, reader diagnostics of every file, skips and clashes, sorted."""
        self._ensure_loaded()
        diags = list(self._scan_diags) + list(self._resolve_diags)
        for rec in self._records.values():
            diags.extend(rec.diagnostics)
        return sort_diagnostics(diags)

    def failed_files(self) -> builtins.list[FileRecord]:
        """Files that yielded no agent because of an error."""
        self._ensure_loaded()
        return [rec for rec in self._records.values() if rec.failed]

    def partial_files(self) -> builtins.list[FileRecord]:
        """JSON sources that loaded some agents but skipped others because of errors."""
        self._ensure_loaded()
        return [
            rec
            for rec in self._records.values()
            if rec.entries and any(d.severity is Severity.ERROR for d in rec.diagnostics)
        ]

    def folder_states(self) -> builtins.list[tuple[Source, FolderState]]:
        """Each source in precedence order with its :class:`FolderState`."""
        self._ensure_loaded()
        given = FolderState("given", 0)
        return [(s, self._folder_state.get(s, given)) for s in self._sources]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self._resolve_name(name) is not None

    def __len__(self) -> int:
        self._ensure_loaded()
        return len(self._winners)

    def _resolve_name(self, name: str) -> str | None:
        self._ensure_loaded()
        if name in self._winners or name in self._clashes:
            return name
        hits = self._by_norm.get(normalize_name(name), [])
        if len(hits) == 1:
            return hits[0]
        if not hits and ":" not in name:
            bare = [
                n
                for n in (*self._winners, *self._clashes)
                if ":" in n and normalize_name(n.rsplit(":", 1)[1]) == normalize_name(name)
            ]
            if len(bare) == 1:
                return bare[0]
        return None

    def entry(self, name: str) -> AgentEntry:
        """The winning entry for ``name`` (Task-tool matching); bodies not loaded."""
        resolved = self._resolve_name(name)
        if resolved is None:
            failed = self.explain(name).failed_files
            hint = None
            if failed:
                # The top complaint ("agent type not found"): the file exists but is skipped.
                path, diags = failed[0]
                first = next((d for d in diags if d.severity is Severity.ERROR), None)
                why = "an error"
                if first is not None:
                    at = f" at line {first.line}" if first.line else ""
                    why = f"{first.rule}{at}: {first.message}"
                hint = (
                    f"{path} would define it but is not loaded ({why}); fix the file "
                    "(`subagents doctor` explains, `subagents fix` repairs YAML quoting), or "
                    "run without --agent to let the general-purpose main thread handle it"
                )
            raise AgentNotFoundError(name, self.suggest(name), hint=hint)
        if resolved in self._clashes:
            group = self._clashes[resolved]
            files = " and ".join(e.display_path or e.origin.label for e in group)
            raise DefinitionError(
                f"agent {resolved!r} is defined {len(group)} times in one "
                f"{group[0].source.value} scope ({files}); neither is used",
                [
                    d
                    for d in self._resolve_diags
                    if d.rule == "SA601"
                    and any(d.path == (e.display_path or e.origin.label) for e in group)
                ],
                hint="rename or delete one of them",
            )
        return self._winners[resolved]

    def get(self, name: str) -> AgentDefinition:
        """The full definition (body read now if needed); raises if unknown or clashing."""
        return self.entry(name).definition

    def find(self, name: str) -> AgentDefinition | None:
        """Like :meth:`get` but ``None`` for an unknown name (clashes still raise)."""
        try:
            return self.get(name)
        except AgentNotFoundError:
            return None

    def suggest(self, name: str, n: int = 3) -> builtins.list[str]:
        """The closest known names (difflib on the normalised form)."""
        self._ensure_loaded()
        names = [*self._winners, *self._clashes]
        norm = {normalize_name(x): x for x in names}
        close = difflib.get_close_matches(normalize_name(name), list(norm), n=n, cutoff=0.5)
        return [norm[c] for c in close]

    def explain(self, name: str) -> Explanation:
        """Who wins ``name``, who is shadowed, any clash, and files that failed to define it."""
        resolved = self._resolve_name(name) or name
        winner = self._winners.get(resolved)
        shadowed = [e for e in self._shadowed if e.name == resolved]
        clash = self._clashes.get(resolved, ())
        norm = normalize_name(resolved)
        failed = [
            (rec.display_path, rec.diagnostics)
            for rec in self._records.values()
            if rec.failed and rec.guessed_name and normalize_name(rec.guessed_name) == norm
        ]
        return Explanation(resolved, winner, shadowed, clash, failed)

    # ------------------------------------------------------------------ watching
    def watch_targets(self) -> tuple[set[Path], set[Path]]:
        """(folders to watch recursively, folders to watch flat) for the current sources.

        A missing agents folder is covered by watching its nearest existing parent flat, so a
        folder created later is noticed (and the targets then change).
        """
        recursive: set[Path] = set()
        flat: set[Path] = set()
        for src in self._sources:
            if src.root is None:
                continue
            if src.kind is SourceKind.FOLDER and src.root.is_dir():
                recursive.add(src.root)
                continue
            target = src.root.parent if src.kind in (
                SourceKind.JSON_FILE, SourceKind.AGENT_FILE) else src.root
            while not target.is_dir() and target != target.parent:
                target = target.parent
            flat.add(target)
        return recursive, flat - recursive

    def watch(
        self, *, debounce_ms: int = 50, force_polling: bool = False
    ) -> AsyncGenerator[ChangeEvent, None]:
        """Async iterator of change events: ``ready`` first, then one per change.

        Uses ``watchfiles`` (imported lazily).  Stop by breaking out of the loop (or cancelling
        the task); the watchers are closed on exit.
        """
        from subagents.registry.watch import watch_registry

        return watch_registry(self, debounce_ms=debounce_ms, force_polling=force_polling)
