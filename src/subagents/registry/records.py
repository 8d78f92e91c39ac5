"""What the registry keeps per file and per definition: entries, file records, folder states.

Split from :mod:`subagents.registry.core` (which resolves precedence and answers queries) so each
stays a readable size.  :class:`AgentEntry` is one definition as discovered, cheap to list and
read in full on first use; both steps ask the harness of the source what loads
(:func:`reading_of`: Claude Code's emulation for its folders), so the body loaded later is the
one the harness runs.
The names are re-exported by :mod:`subagents.registry.core`.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from subagents.definition import AgentDefinition, Dialect, Scope
from subagents.diagnostics import Diagnostic, Severity
from subagents.errors import DefinitionError
from subagents.harnesses import get_harness
from subagents.harnesses.base import Harness
from subagents.harnesses.layout import FolderScan, Source, SourceKind, Stamp, harness_skip
from subagents.harnesses.loader import LoadResult, read_agent_file
from subagents.harnesses.reading import Reading
from subagents.harnesses.table import get_spec, same_name_rule

__all__ = [
    "AgentEntry",
    "FileRecord",
    "FolderState",
    "keeps_last",
    "read_in_scope",
    "reading_of",
    "reads_hidden",
]


class _JsonReading(Reading):
    """``--agents`` and ``agents.json``: every entry that reads loads, unless the harness would
    refuse it (an empty name or description, ...); one bad entry does not drop the others."""

    def __init__(self, *, colon_ok: bool) -> None:
        self.colon_ok = colon_ok  # a ':' is fine in an --agents key (measured on 2.1.332)

    def refuses(self, definition: AgentDefinition, display: str) -> Diagnostic | None:
        return harness_skip(definition, display, Dialect.JSON, colon_ok=self.colon_ok)


_JSON_FILE_READING = _JsonReading(colon_ok=False)
_JSON_TEXT_READING = _JsonReading(colon_ok=True)


def reading_of(src: Source) -> Harness | Reading:
    """Who says what loads from ``src``: the harness of a folder's (or a plugin's agent
    file's) dialect, or the JSON form."""
    if src.kind in (SourceKind.FOLDER, SourceKind.AGENT_FILE):
        return get_harness(src.dialect.value)
    return _JSON_TEXT_READING if src.kind is SourceKind.JSON_TEXT else _JSON_FILE_READING


def read_in_scope(src: Source, result: LoadResult) -> tuple[LoadResult, Harness | Reading]:
    """``result`` as the harness reads it at ``src`` (a plugin's file on its own terms), and
    the harness to ask what loads."""
    reading = reading_of(src)
    if src.plugin is not None:
        result = reading.for_plugin(result, src.plugin)
    return result, reading


def keeps_last(src: Source) -> bool:
    """One name twice in ``src``: the last path in code-unit order is used (the harness's
    ``same_name`` rule is ``last``), rather than a clash that loads neither."""
    return src.kind is SourceKind.FOLDER and same_name_rule(src.dialect.value) == "last"


def reads_hidden(src: Source) -> bool:
    """The harness reads dot-files and dot-folders of its folders too."""
    return src.kind is SourceKind.FOLDER and get_spec(src.dialect.value).hidden


@dataclass(slots=True, eq=False)
class AgentEntry:
    """One definition as discovered: cheap to list, body loaded on first ``definition``.

    The attributes ``name``, ``description``, ``model``, ``tools``, ``source`` (a
    :class:`Scope`) and ``path`` read like :class:`AgentDefinition`'s, so code that only lists
    agents (the Task tool description, ``subagents list``) never needs the body.
    """

    header: AgentDefinition
    origin: Source
    display_path: str | None
    stamp: Stamp | None = None
    shadowed_by: AgentEntry | None = None
    _full: AgentDefinition | None = field(default=None, repr=False)
    _id: str = field(init=False, default="", repr=False)

    def __post_init__(self) -> None:
        self._id = self.header.qualified_name  # computed once: resolution reads it a lot

    @property
    def name(self) -> str:
        """The id: ``name``, or ``plugin:sub:name`` for plugin agents."""
        return self._id

    @property
    def description(self) -> str:
        return self.header.description

    @property
    def model(self) -> str | None:
        return self.header.model

    @property
    def tools(self) -> tuple[str, ...] | None:
        return self.header.tools

    @property
    def source(self) -> Scope:
        return self.origin.scope

    @property
    def path(self) -> Path | None:
        return self.header.path

    @property
    def harness(self) -> str:
        """The harness that loads this agent (its dialect name): ``claude`` for Claude Code's
        folders, ``--agents`` and ``agents.json`` (Claude Code / Agent SDK JSON) and the
        built-ins; ``gemini``, ``codex``, ... for an agent read by that harness's reader."""
        dialect = self.origin.dialect
        return "claude" if dialect is Dialect.JSON else dialect.value

    @property
    def body_loaded(self) -> bool:
        return self._full is not None

    @property
    def definition(self) -> AgentDefinition:
        """The full definition, body included (read from disk on first use)."""
        if self._full is None:
            self._full = self._load_full()
        return self._full

    def _load_full(self) -> AgentDefinition:
        path = self.header.path
        if path is None:
            return self.header
        display = self.display_path or str(path)
        result = read_agent_file(path, dialect=self.origin.dialect, display_path=display)
        result, reading = read_in_scope(self.origin, result)
        full = next((d for d in reading.loaded(result) if d.name == self.header.name), None)
        if full is None:
            raise DefinitionError(
                f"{display} changed after it was listed and no longer defines agent {self.name!r}",
                result.diagnostics,
                hint="run `subagents doctor` to see what is wrong with the file",
            )
        if self.origin.dialect is Dialect.CODEX_MD and not full.system_prompt.strip():
            raise DefinitionError(
                f"{display}: Codex agent {self.name!r} has no instructions (empty body)",
                result.diagnostics,
                hint="write the agent's instructions below the front matter",
            )
        return full.evolve(source=self.origin.scope, path=path, plugin=self.header.plugin)

    def to_dict(self) -> dict[str, Any]:
        """One item of ``subagents list --format json``'s ``agents`` (DESIGN.md), plus the
        ``harness`` that loads it."""
        return {
            "name": self.name,
            "description": self.description,
            "source": self.source.value,
            "path": self.display_path,
            "model": self.model,
            "tools": builtins.list(self.tools) if self.tools is not None else None,
            "harness": self.harness,
        }

    def to_shadow_dict(self) -> dict[str, Any]:
        """One item of ``shadowed``: name, source, path, and who wins (null under a clash)."""
        by = self.shadowed_by
        return {
            "name": self.name,
            "source": self.source.value,
            "path": self.display_path,
            "harness": self.harness,
            "shadowed_by": None
            if by is None
            else {"source": by.source.value, "path": by.display_path},
        }

    def describe_origin(self) -> str:
        """``project .claude/agents/x.md`` -- for messages."""
        where = self.display_path or self.origin.label
        return f"{self.origin.scope.value} {where}"


@dataclass(slots=True)
class FileRecord:
    """What one file (or JSON source) yielded at its last read."""

    stamp: Stamp | None
    entries: tuple[AgentEntry, ...]
    diagnostics: tuple[Diagnostic, ...]
    display_path: str
    guessed_name: str | None = None  # the `name` a broken file seems to declare
    trusted: bool = True  # False: re-read on the next reload even if the stamp is equal
    origin: Source | None = None  # the scope folder / JSON source it was read from

    @property
    def failed(self) -> bool:
        return not self.entries and any(d.severity is Severity.ERROR for d in self.diagnostics)


class FolderState(NamedTuple):
    """What a scan found at a source: ``state`` is ``missing``, ``empty``, ``ok``,
    ``unreadable`` (SA603/SA604/SA605: nothing read), ``file`` (a JSON file) or ``given``
    (``--agents``); ``files`` counts the ``*.md`` files found (1 for a JSON file)."""

    state: str
    files: int

    def __str__(self) -> str:
        if self.state == "ok":
            return f"{self.files} file" + ("" if self.files == 1 else "s")
        return self.state


def _state_of(scan: FolderScan) -> FolderState:
    if not scan.exists:
        return FolderState("missing", 0)
    if scan.diagnostics and not scan.folders:
        return FolderState("unreadable", 0)
    return FolderState("ok" if scan.files else "empty", len(scan.files))
