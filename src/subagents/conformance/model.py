"""Typed recorded data: what a real harness did with each case, and how it is stored.

A data file is JSON written with sorted keys, two-space indent and a final newline, so a
re-recording shows up as a plain line diff.  It holds no temporary paths (paths are relative to
the agents folder; other paths are shown as ``<project>`` and ``~``) and no timestamp other than
the recording date.

Design decisions: plain frozen dataclasses with ``to_json``/``from_json`` (no pydantic); a
reader rejects a malformed file with the path and what is wrong (``DataFileError``) instead of
a ``KeyError`` deep inside a test.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from subagents.fs import atomic_write

__all__ = [
    "FORMAT",
    "BuiltinAgent",
    "CaseResult",
    "CorpusEntry",
    "CorpusRecording",
    "DataFileError",
    "FileResult",
    "LoadedAgent",
    "Recording",
    "SpawnResult",
    "dump_json",
    "write_atomic",
]

FORMAT = 1  # bump when the shape of a data file changes


class DataFileError(ValueError):
    """A recorded data file that cannot be read."""


def _str(obj: Mapping[str, Any], key: str, where: str) -> str:
    value = obj.get(key)
    if not isinstance(value, str):
        raise DataFileError(f"{where}: {key!r} must be a string, got {value!r}")
    return value


def _opt_str(obj: Mapping[str, Any], key: str, where: str) -> str | None:
    value = obj.get(key)
    if value is not None and not isinstance(value, str):
        raise DataFileError(f"{where}: {key!r} must be a string or null, got {value!r}")
    return value


def _strs(obj: Mapping[str, Any], key: str, where: str) -> tuple[str, ...]:
    value = obj.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise DataFileError(f"{where}: {key!r} must be a list of strings")
    return tuple(value)


def _map(obj: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(obj, dict):
        raise DataFileError(f"{where}: expected an object, got {type(obj).__name__}")
    return obj


def _batch_header(obj: Any, where: str) -> tuple[Mapping[str, Any], int]:
    """The object of a batch recording and its batch size, after checking its format."""
    o = _map(obj, where)
    if o.get("format") != FORMAT:
        raise DataFileError(f"{where}: format {o.get('format')!r}, this reader knows {FORMAT}")
    size = o.get("batch_size")
    if not isinstance(size, int):
        raise DataFileError(f"{where}: 'batch_size' must be an integer")
    return o, size


def _list(obj: Mapping[str, Any], key: str, where: str) -> list[Any]:
    value = obj.get(key, [])
    if not isinstance(value, list):
        raise DataFileError(f"{where}: {key!r} must be a list")
    return value


@dataclass(frozen=True, slots=True)
class LoadedAgent:
    """One agent the harness made active, as it reported and listed it.

    ``model`` is the model as the ``initialize`` reply gave it (the file's value, not resolved;
    None when the file set none or a non-string).  ``tools`` is the ``(Tools: ...)`` text of the
    listing.  ``source`` is ``project/REL`` or ``user/REL`` (REL relative to that scope's agents
    folder; ``<project>/PATH`` for a nested agents folder), or None when no single file could
    be named.
    """

    name: str
    description: str
    model: str | None
    tools: str | None
    listing_line: str | None
    source: str | None
    overrides_builtin: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "model": self.model,
                "tools": self.tools, "listing_line": self.listing_line, "source": self.source,
                "overrides_builtin": self.overrides_builtin}

    @classmethod
    def from_json(cls, obj: Any, where: str) -> LoadedAgent:
        o = _map(obj, where)
        return cls(_str(o, "name", where), _str(o, "description", where),
                   _opt_str(o, "model", where), _opt_str(o, "tools", where),
                   _opt_str(o, "listing_line", where), _opt_str(o, "source", where),
                   bool(o.get("overrides_builtin", False)))


def _params(obj: Mapping[str, Any], where: str) -> tuple[tuple[str, str], ...]:
    value = obj.get("params", {})
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise DataFileError(f"{where}: 'params' must map names to strings")
    return tuple(sorted((str(k), v) for k, v in value.items()))


@dataclass(frozen=True, slots=True)
class SpawnResult:
    """What one launched subagent got: the model id, tool names and prompt, or the refusal."""

    name: str
    model: str | None = None
    tools: tuple[str, ...] = ()
    body: str | None = None
    error: str | None = None
    # every mcp__SERVER__TOOL name the subagent's request holds (a deferred MCP tool is named
    # in a system message, not in ``tools``); written only when there is one
    mcp: tuple[str, ...] = ()
    # the request parameters a case asked for (name -> compact JSON, "(absent)"); only then
    params: tuple[tuple[str, str], ...] = ()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "model": self.model,
                               "tools": list(self.tools), "body": self.body,
                               "error": self.error}
        if self.mcp:
            out["mcp"] = list(self.mcp)
        if self.params:
            out["params"] = dict(self.params)
        return out

    def param(self, name: str) -> str | None:
        return dict(self.params).get(name)

    @classmethod
    def from_json(cls, obj: Any, where: str) -> SpawnResult:
        o = _map(obj, where)
        return cls(_str(o, "name", where), _opt_str(o, "model", where), _strs(o, "tools", where),
                   _opt_str(o, "body", where), _opt_str(o, "error", where),
                   _strs(o, "mcp", where), _params(o, where))


@dataclass(frozen=True, slots=True)
class FileResult:
    """One file of a case: the agent it became (if any) and the debug lines naming it."""

    path: str  # project/REL or user/REL
    loaded_as: str | None
    debug: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "loaded_as": self.loaded_as, "debug": list(self.debug)}

    @classmethod
    def from_json(cls, obj: Any, where: str) -> FileResult:
        o = _map(obj, where)
        return cls(_str(o, "path", where), _opt_str(o, "loaded_as", where),
                   _strs(o, "debug", where))


@dataclass(frozen=True, slots=True)
class CaseResult:
    """Everything recorded for one case (built-in agents left out unless a file replaced one)."""

    id: str
    about: str
    agents: tuple[LoadedAgent, ...]
    files: tuple[FileResult, ...]
    debug: tuple[str, ...]  # agent-related debug lines, paths made relative
    spawned: tuple[SpawnResult, ...]
    errors: tuple[str, ...] = ()  # problems of the run itself (no reply, no listing...)
    # Claude Code refused to start (its stderr, paths made relative); written only then
    startup_error: str | None = None

    def agent(self, name: str) -> LoadedAgent | None:
        return next((a for a in self.agents if a.name == name), None)

    def to_json(self) -> dict[str, Any]:
        out = {"id": self.id, "about": self.about,
               "agents": [a.to_json() for a in self.agents],
               "files": [f.to_json() for f in self.files], "debug": list(self.debug),
               "spawned": [s.to_json() for s in self.spawned], "errors": list(self.errors)}
        if self.startup_error is not None:
            out["startup_error"] = self.startup_error
        return out

    @classmethod
    def from_json(cls, obj: Any, where: str) -> CaseResult:
        o = _map(obj, where)
        cid = _str(o, "id", where)
        w = f"{where} case {cid}"
        return cls(
            cid, _str(o, "about", w),
            tuple(LoadedAgent.from_json(a, w) for a in _list(o, "agents", w)),
            tuple(FileResult.from_json(f, w) for f in _list(o, "files", w)),
            _strs(o, "debug", w),
            tuple(SpawnResult.from_json(s, w) for s in _list(o, "spawned", w)),
            _strs(o, "errors", w),
            _opt_str(o, "startup_error", w),
        )


@dataclass(frozen=True, slots=True)
class BuiltinAgent:
    """An agent an empty project already has."""

    name: str
    description: str
    model: str | None
    tools: str | None

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "model": self.model,
                "tools": self.tools}

    @classmethod
    def from_json(cls, obj: Any, where: str) -> BuiltinAgent:
        o = _map(obj, where)
        return cls(_str(o, "name", where), _str(o, "description", where),
                   _opt_str(o, "model", where), _opt_str(o, "tools", where))


@dataclass(frozen=True, slots=True)
class Recording:
    """One data file: a harness version and what it did with every case."""

    harness: str  # "claude-code"
    version: str
    recorded: str  # YYYY-MM-DD
    parent_model: str | None  # the main thread's model id (what `inherit` resolves to)
    builtin_agents: tuple[BuiltinAgent, ...]
    cases: tuple[CaseResult, ...]
    format: int = FORMAT

    def case(self, case_id: str) -> CaseResult:
        for case in self.cases:
            if case.id == case_id:
                return case
        raise KeyError(case_id)

    @property
    def case_ids(self) -> tuple[str, ...]:
        return tuple(c.id for c in self.cases)

    def to_json(self) -> dict[str, Any]:
        return {"format": self.format, "harness": self.harness, "version": self.version,
                "recorded": self.recorded, "parent_model": self.parent_model,
                "builtin_agents": [b.to_json() for b in self.builtin_agents],
                "cases": [c.to_json() for c in sorted(self.cases, key=lambda c: c.id)]}

    @classmethod
    def from_json(cls, obj: Any, where: str) -> Recording:
        o = _map(obj, where)
        if o.get("format") != FORMAT:
            raise DataFileError(f"{where}: format {o.get('format')!r}, this reader knows {FORMAT}")
        return cls(
            _str(o, "harness", where), _str(o, "version", where), _str(o, "recorded", where),
            _opt_str(o, "parent_model", where),
            tuple(BuiltinAgent.from_json(b, where) for b in _list(o, "builtin_agents", where)),
            tuple(CaseResult.from_json(c, where) for c in _list(o, "cases", where)),
        )


@dataclass(frozen=True, slots=True)
class CorpusEntry:
    """One corpus file: loaded or not, and a fingerprint of what was loaded (never the text)."""

    path: str  # relative to the corpus root
    loaded: bool
    name: str | None = None
    description_len: int | None = None
    description_sha1: str | None = None  # sha1 of the UTF-8 description, hex
    model: str | None = None
    tools: str | None = None
    decided_by: str = "batch"  # "batch" or "alone"
    debug: tuple[str, ...] = field(default=())

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "loaded": self.loaded, "name": self.name,
                "description_len": self.description_len,
                "description_sha1": self.description_sha1, "model": self.model,
                "tools": self.tools, "decided_by": self.decided_by, "debug": list(self.debug)}

    @classmethod
    def from_json(cls, obj: Any, where: str) -> CorpusEntry:
        o = _map(obj, where)
        length = o.get("description_len")
        if length is not None and not isinstance(length, int):
            raise DataFileError(f"{where}: 'description_len' must be an integer or null")
        return cls(_str(o, "path", where), bool(o.get("loaded")), _opt_str(o, "name", where),
                   length, _opt_str(o, "description_sha1", where), _opt_str(o, "model", where),
                   _opt_str(o, "tools", where), _str(o, "decided_by", where),
                   _strs(o, "debug", where))


@dataclass(frozen=True, slots=True)
class CorpusRecording:
    harness: str
    version: str
    recorded: str
    batch_size: int
    files: tuple[CorpusEntry, ...]
    format: int = FORMAT

    def to_json(self) -> dict[str, Any]:
        return {"format": self.format, "harness": self.harness, "version": self.version,
                "recorded": self.recorded, "batch_size": self.batch_size,
                "files": [f.to_json() for f in sorted(self.files, key=lambda f: f.path)]}

    @classmethod
    def from_json(cls, obj: Any, where: str) -> CorpusRecording:
        o, size = _batch_header(obj, where)
        return cls(_str(o, "harness", where), _str(o, "version", where),
                   _str(o, "recorded", where), size,
                   tuple(CorpusEntry.from_json(f, where) for f in _list(o, "files", where)))


def dump_json(data: Any) -> str:
    """The stable text form: sorted keys, 2-space indent, non-ASCII kept, final newline."""
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write_atomic(path: Path, text: str) -> None:
    """Write a data file all at once (:func:`subagents.fs.atomic_write`)."""
    atomic_write(path, text, make_parents=True)
