"""What the registry keeps per file and per definition: entries, file records, folder states.

Split from :mod:`subagents.registry.core` (which resolves precedence and answers queries) so each
stays a readable size.  :class:`AgentEntry` is one definition as discovered, cheap to list and
read in full on first use; for Claude Code's folders both steps go through Claude Code's own
reading (:func:`follows_claude_code`), so the body loaded later is the one Claude Code runs.
The names are re-exported by :mod:`subagents.registry.core`.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from subagents.claude_code.definition import definition_from_view
from subagents.claude_code.reader import ClaudeCodeView, as_plugin_agent
from subagents.definition import AgentDefinition, Dialect, Scope
from subagents.diagnostics import Diagnostic, Severity
from subagents.errors import DefinitionError
from subagents.harnesses.layout import FolderScan, Source, SourceKind, Stamp
from subagents.harnesses.loader import read_agent_file

__all__ = [
    "AgentEntry",
    "FileRecord",
    "FolderState",
    "follows_claude_code",
    "refused_agents_value",
]


def follows_claude_code(src: Source) -> bool:
    """Claude Code's folders (managed, project, user, plugins): read as Claude Code reads."""
    return src.kind in (SourceKind.FOLDER, SourceKind.AGENT_FILE) and (
        src.dialect is Dialect.CLAUDE)


def refused_agents_value(src: Source) -> FileRecord | None:
    """The ``--agents`` value refused as a whole when Claude Code would not start with it (one
    bad entry and nothing runs, measured on 2.1.332), else None."""
    from subagents.claude_code.agents_flag import agents_flag_problem

    assert src.text is not None
    problem = agents_flag_problem(src.text)
    if problem is None:
        return None
    diag = Diagnostic(
        path=src.label, line=problem.line, column=problem.column, rule=problem.rule,
        severity=Severity.ERROR,
        message=f"Claude Code refuses to start with this --agents value: {problem.message}; "
        "nothing runs, and no agent of it is loaded",
        hint="fix the entry (every agent needs a `description` and a `prompt`; `tools` is a "
        "list; names do not start with '-'), or leave it out",
    )
    return FileRecord(None, (), (diag,), src.label, None, True, src)


def _as_claude_code_reads(
    view: ClaudeCodeView, src: Source, path: Path | None
) -> ClaudeCodeView:
    """A plugin's agents load on terms of their own (``as_plugin_agent``)."""
    if src.plugin is None or path is None:
        return view
    return as_plugin_agent(view, file_stem=path.stem, plugin=src.plugin.split(":", 1)[0])




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
        if follows_claude_code(self.origin) and result.claude_code is not None:
            view = _as_claude_code_reads(result.claude_code, self.origin, path)
            if not view.loaded or view.name != self.header.name:
                raise DefinitionError(
                    f"{display} changed after it was listed and no longer defines agent "
                    f"{self.name!r}",
                    result.diagnostics,
                    hint="run `subagents doctor` to see what is wrong with the file",
                )
            strict = result.definition
            cc_full = definition_from_view(
                view,
                path=path,
                strict=strict,
            )
            return cc_full.evolve(source=self.origin.scope, path=path, plugin=self.header.plugin)
        full = result.definition
        if not result.ok or full is None or full.name != self.header.name:
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
