"""The registry for any harness: the agents Gemini CLI, Codex, OpenCode, ... load for a project.

:class:`HarnessRegistry` is an :class:`~subagents.registry.core.AgentRegistry` whose entries come
from a harness module (:func:`subagents.harnesses.load_project`) instead of Claude Code's folder
scan, so ``list``, ``show``, ``doctor``, ``route`` and ``run --agent`` work on top unchanged.
:func:`present_harnesses` says which harnesses a project and home have folders for, and
:func:`harness_report` sums up, for one registry, which files load, which are skipped and why,
and which stop the harness from starting.

Design notes
------------
* The harness decides what loads.  Its reader already models precedence, duplicate names,
  trust and acknowledgements, so only the agents it reports as ``loads`` become entries; a
  skipped file becomes a failed :class:`FileRecord` whose diagnostics are its findings under
  the one severity rule (:func:`subagents.lint.harness_rules.diagnostics_for`).  The registry's
  own precedence pass then sees at most one entry per name.
* One :class:`Source` per harness :class:`~subagents.harnesses.base.Location` (a folder, or a
  file such as ``opencode.json`` / ``config.toml``); each file's records hang under the closest
  location that holds it, so ``doctor`` shows the harness's folders as scope folders.
* Entries carry the full canonical definition (Claude vocabulary, body included): the harness
  read the whole file anyway, and the runtime runs it unchanged.  ``--agents`` is Claude Code's
  flag and is refused with a harness dialect rather than silently mixed in.
* No incremental cache: a reload reads the harness's files again (a harness's outcome can
  depend on other files -- acknowledgements, trust, a higher layer), and the change events
  come from the same before/after comparison as Claude's (:func:`diff_state`).
"""

from __future__ import annotations

import builtins
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from subagents.definition import Dialect, Scope
from subagents.diagnostics import Diagnostic, Severity
from subagents.errors import UsageError
from subagents.harnesses.layout import Source, SourceKind, Stamp, find_git_root
from subagents.harnesses.table import OWN_READERS
from subagents.registry.core import AgentRegistry
from subagents.registry.records import AgentEntry, FileRecord, FolderState
from subagents.registry.watch import ChangeEvent, diff_state

if TYPE_CHECKING:
    from subagents.harnesses.base import Harness, HarnessAgent

__all__ = [
    "HARNESS_REGISTRY_DIALECTS",
    "HarnessRegistry",
    "HarnessReport",
    "harness_label",
    "harness_report",
    "present_harnesses",
    "untrusted_guards",
]

# dialects whose agents come from a harness module (claude and codex-md keep the folder scan)
HARNESS_REGISTRY_DIALECTS: frozenset[str] = OWN_READERS

_SCOPES = {"project": Scope.PROJECT, "user": Scope.USER}


def harness_label(harness: Harness, version: str | None = None) -> str:
    """``Gemini CLI 0.61.0``: the harness and the version whose behaviour we reproduce
    (``version``: a recorded version chosen instead of the newest, as a registry may follow
    one of Claude Code's)."""
    if harness.version == "format":
        return harness.display_name
    if harness.version == "docs":
        return f"{harness.display_name} (as documented)"
    return f"{harness.display_name} {version or harness.version}"


def _under(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


class HarnessRegistry(AgentRegistry):
    """The agents one harness (``gemini``, ``codex``, ...) loads for a directory."""

    def __init__(
        self,
        cwd: str | os.PathLike[str] | None = None,
        *,
        harness: str | Harness,
        home: str | os.PathLike[str] | None = None,
        cli_agents: str | None = None,
    ) -> None:
        from subagents.harnesses import get_harness

        name = harness if isinstance(harness, str) else harness.name
        if name not in HARNESS_REGISTRY_DIALECTS:
            raise UsageError(
                f"{name!r} is read by the folder scan, not a harness module",
                hint="use AgentRegistry(dialect=...) for claude and codex-md",
            )
        super().__init__(cwd, home=home)
        # a harness object: one with settings of its own (CodexHarness(trusted=True), ...)
        self.harness: Harness = get_harness(name) if isinstance(harness, str) else harness
        harness = name
        if cli_agents is not None:
            raise UsageError(
                f"--agents adds Claude Code agents; {self.harness.display_name} does not read "
                "them",
                hint=f"drop --agents, or use --dialect claude (not --dialect {harness})",
            )
        self.dialect = Dialect(harness)
        self.project = find_git_root(self.cwd) or self.cwd
        self._by_file: dict[tuple[int, Path | str], tuple[HarnessAgent, ...]] = {}
        self._duplicate_files: set[tuple[int, Path | str]] = set()

    @property
    def label(self) -> str:
        return harness_label(self.harness)

    # ------------------------------------------------------------------ loading
    def _plan(self) -> list[Source]:
        sources: list[Source] = []
        for loc in self.harness.locations(self.project, self.home):
            is_file = loc.path.suffix in loc.suffixes and not loc.recursive
            kind = SourceKind.JSON_FILE if is_file else SourceKind.FOLDER
            sources.append(Source(_SCOPES.get(loc.scope, Scope.USER), kind, loc.rank,
                                  loc.scope, loc.path, self.dialect))
        return sources

    def load_all(self) -> HarnessRegistry:
        self._sources = self._plan()
        self._records = {}
        self._refresh(force=True)
        self._loaded = True
        return self

    def _source_index(self, path: Path) -> int:
        best, depth = -1, -1
        for index, src in enumerate(self._sources):
            if src.root is not None and _under(path, src.root) and len(src.root.parts) > depth:
                best, depth = index, len(src.root.parts)
        if best < 0:  # a file the harness reads from elsewhere: its project or user scope
            want = Scope.PROJECT if _under(path, self.project) else Scope.USER
            best = next((i for i, s in enumerate(self._sources) if s.scope is want), 0)
        return best

    def _refresh(self, *, force: bool = False) -> builtins.list[ChangeEvent]:
        from subagents.harnesses import load_project

        agents = load_project(self.harness, self.project, self.home)
        grouped: dict[tuple[int, Path | str], builtins.list[HarnessAgent]] = {}
        for agent in agents:
            if agent.path is None:
                continue  # the harness's own built-ins: not a file of this project
            key: tuple[int, Path | str] = (self._source_index(agent.path), agent.path)
            grouped.setdefault(key, []).append(agent)
        new: dict[tuple[int, Path | str], FileRecord] = {}
        counts: dict[int, int] = {}
        for key, group in grouped.items():
            index, path = key
            assert isinstance(path, Path)
            new[key] = self._file_record(self._sources[index], path, group)
            counts[index] = counts.get(index, 0) + 1
        for index, src in enumerate(self._sources):
            root = src.root
            if root is None or not root.exists():
                self._folder_state[src] = FolderState("missing", 0)
            elif src.kind is SourceKind.JSON_FILE:
                self._folder_state[src] = FolderState("file", 1)
            else:
                n = counts.get(index, 0)
                self._folder_state[src] = FolderState("ok" if n else "empty", n)
        self._scan_diags = []
        self._by_file = {k: tuple(v) for k, v in grouped.items()}
        self._duplicate_files = set()
        old, old_winners, old_clashes = self._records, self._winners, self._clashes
        self._records = new
        self._resolve()
        self._harness_duplicates()
        if force:
            return []
        return diff_state(old, new, old_winners, self._winners, old_clashes, {})

    def _file_record(
        self, src: Source, path: Path, group: builtins.list[HarnessAgent]
    ) -> FileRecord:
        from subagents.harnesses.base import Outcome
        from subagents.lint.harness_rules import diagnostics_for

        display = self.display(path)
        try:
            stamp: Stamp | None = Stamp.of(os.stat(path))
        except OSError:
            stamp = None
        entries: builtins.list[AgentEntry] = []
        for agent in group:
            if agent.outcome is not Outcome.LOADS or agent.definition is None:
                continue
            name = agent.agent_id or agent.definition.name
            full = agent.definition.evolve(name=name, source=src.scope, path=path,
                                           dialect=self.dialect)
            entries.append(AgentEntry(full, src, display, stamp, None, full))
        diags = tuple(diagnostics_for(group, display, self.dialect))
        if not entries and all(a.outcome is Outcome.NOT_READ for a in group):
            # not read now (an untrusted Codex project): what the harness's reader says of
            # the file all the same, as `validate` does -- a broken file is a problem
            # waiting, not "every agent file is loaded"
            from subagents.harnesses.loader import read_agent_file

            own = read_agent_file(path, dialect=self.dialect, display_path=display)
            diags += tuple(d for d in own.diagnostics if d not in diags)
        guessed = None
        if not entries:
            first = group[0]
            native_name = first.native.get("name") if first.native else None
            guessed = first.agent_id or (first.definition.name if first.definition else None)
            guessed = guessed or (native_name if isinstance(native_name, str) else None)
            guessed = guessed or path.stem
        return FileRecord(stamp, tuple(entries), diags, display, guessed, True, src)

    def _harness_duplicates(self) -> None:
        """A file the harness ignores because an earlier one took its name (its reader's
        duplicate finding, the code `validate` gives it too): shadowed by the file it loads,
        and counted as a duplicate, not as a failed file."""
        from subagents.harnesses.table import get_spec

        code = get_spec(self.dialect.value).duplicate_code
        for key, group in self._by_file.items():
            record = self._records[key]
            if record.entries or not any(d.rule == code for d in record.diagnostics):
                continue
            for agent in group:
                defn = agent.definition
                if defn is None:
                    continue
                name = agent.agent_id or defn.name
                winner = self._winners.get(name)
                if winner is None:
                    continue
                full = defn.evolve(name=name, source=record.origin.scope if record.origin
                                   else None, path=key[1] if isinstance(key[1], Path) else None,
                                   dialect=self.dialect)
                assert record.origin is not None
                loser = AgentEntry(full, record.origin, record.display_path, record.stamp,
                                   winner, full)
                self._shadowed.append(loser)
                self._dropped[name] = (*self._dropped.get(name, (winner,)), loser)
                self._duplicate_files.add(key)

    def failed_files(self) -> builtins.list[FileRecord]:
        """Files that yielded no agent because of an error (a duplicate is not one: it is in
        :meth:`duplicates`)."""
        self._ensure_loaded()
        return [rec for key, rec in self._records.items()
                if rec.failed and key not in self._duplicate_files]

    # ------------------------------------------------------------------ queries
    def harness_agents(self) -> builtins.list[tuple[str, HarnessAgent]]:
        """Every agent the harness read, with its file as ``validate`` spells it."""
        self._ensure_loaded()
        return [(self._records[k].display_path, a)
                for k, group in self._by_file.items() for a in group]

    def partial_files(self) -> builtins.list[FileRecord]:
        """Files defining several agents (``opencode.json``, ``config.toml``) of which the
        harness loads some and skips others."""
        from subagents.harnesses.base import Outcome

        self._ensure_loaded()
        return [
            self._records[key]
            for key, group in self._by_file.items()
            if self._records[key].entries
            and any(a.outcome in (Outcome.SKIPPED, Outcome.FATAL) for a in group)
        ]

    def fatal_files(self) -> builtins.list[FileRecord]:
        """Files that stop the harness from starting at all (OpenCode's bad agent file)."""
        from subagents.harnesses.base import Outcome

        self._ensure_loaded()
        return [self._records[key] for key, group in self._by_file.items()
                if any(a.outcome is Outcome.FATAL for a in group)]


# --------------------------------------------------------------------------- across harnesses


def _own_locations(harness: Harness, project: Path, home: Path) -> builtins.list[Path]:
    """Where a harness keeps its *own* agents (Copilot also reads .claude/agents: not its own)."""
    out = []
    for loc in harness.locations(project, home):
        if harness.name != "claude" and ".claude" in loc.path.parts:
            continue
        out.append(loc.path)
    return out


def present_harnesses(project: Path, home: Path) -> builtins.list[str]:
    """The harnesses (dialect names, in listing order) with agent folders or files in this
    project or home.  ``codex-md`` shares ``.codex/agents`` with Codex, so it counts only
    when that folder holds Markdown files."""
    from subagents.harnesses import HARNESS_NAMES, get_harness

    out: builtins.list[str] = []
    for name in HARNESS_NAMES:
        harness = get_harness(name)
        if name == "codex-md":
            if harness.discover(project, home):
                out.append(name)
            continue
        if any(p.exists() for p in _own_locations(harness, project, home)):
            out.append(name)
    return out


@dataclass(slots=True)
class HarnessReport:
    """What one harness does with a project's agent files (``doctor``'s Harnesses section)."""

    harness: str
    label: str
    folders: builtins.list[str]
    loads: builtins.list[AgentEntry]
    skipped: builtins.list[FileRecord]
    fatal: builtins.list[FileRecord] = field(default_factory=list)

    def problems(self) -> int:
        return len(self.skipped) + len(self.fatal)

    def to_dict(self) -> dict[str, Any]:
        def errors(rec: FileRecord) -> builtins.list[dict[str, Any]]:
            return [d.to_dict() for d in rec.diagnostics if d.severity is Severity.ERROR]

        return {
            "harness": self.harness,
            "label": self.label,
            "folders": self.folders,
            "loads": [{"name": e.name, "path": e.display_path} for e in self.loads],
            "skipped": [{"path": r.display_path, "name": r.guessed_name,
                         "diagnostics": errors(r)} for r in self.skipped],
            "fatal": [{"path": r.display_path, "diagnostics": errors(r)} for r in self.fatal],
        }


def harness_report(reg: AgentRegistry) -> HarnessReport:
    """Which files ``reg``'s harness loads, skips (with why) and which stop it from starting."""
    from subagents.harnesses import get_harness

    harness = reg.harness if isinstance(reg, HarnessRegistry) else get_harness(reg.dialect.value)
    folders = [
        reg.display(src.root)
        for src, state in reg.folder_states()
        if src.root is not None and state.state not in ("missing",)
    ]
    loads = [e for e in reg.list() if e.path is not None or e.source is not Scope.BUILTIN]
    fatal = reg.fatal_files() if isinstance(reg, HarnessRegistry) else []
    fatal_paths = {r.display_path for r in fatal}
    skipped = [r for r in reg.failed_files() if r.display_path not in fatal_paths]
    dup_losers = [
        e for group in reg.duplicates().values() for e in group[1:] if e.display_path
    ]
    for loser in dup_losers:  # Claude Code ignores all but one same-name file in a folder
        skipped.append(FileRecord(None, (), tuple(
            d for d in reg.diagnostics() if d.path == loser.display_path and d.rule == "SA601"
        ), loser.display_path or "", loser.name, True, loser.origin))
    # a registry may follow a chosen recorded version, not necessarily the newest
    label = harness_label(harness, None if isinstance(reg, HarnessRegistry) else reg.claude_code)
    return HarnessReport(harness.name, label, folders, loads, skipped, fatal)


def untrusted_guards(reg: AgentRegistry) -> tuple[Path, list[str]] | None:
    """(the project folder, its agents with hooks or MCP servers) when Claude Code does not
    trust the folder (it then skips their hooks and MCP servers), else None."""
    from subagents.claude_code.trust import folder_trusted

    root = find_git_root(reg.cwd) or reg.cwd
    names = [e.name for e in reg.list(include_builtin=False)
             if e.source is Scope.PROJECT and (e.header.hooks or e.header.mcp_servers)]
    if not names or folder_trusted(root, reg.home):
        return None
    return root, names


def error_lines(rec: FileRecord) -> builtins.list[Diagnostic]:
    """The errors of a record (why the harness does not load it)."""
    return [d for d in rec.diagnostics if d.severity is Severity.ERROR]
