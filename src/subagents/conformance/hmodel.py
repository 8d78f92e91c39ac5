"""Recorded data for the other harnesses' CLIs (Codex, Gemini CLI, OpenCode, Copilot, Qwen Code).

One data file per harness and version, ``data/<harness>-<version>.json``, in the same stable
form as the Claude Code files (sorted keys, two-space indent, final newline, relative paths,
no timestamp other than the recording date).  What a case records:

- ``agents``: every agent the main agent's first request offered to the delegation tool, as
  ``{id, description}``, without the built-ins an empty project already offers (a file that
  replaced a built-in stays, marked ``overrides_builtin``);
- ``exit_code``: how the CLI ended (OpenCode refusing to start shows up here);
- ``messages``: the lines of stderr (and of the CLI's own log, for Copilot) that speak of agents
  or errors, with ``<project>`` and ``~`` for the temporary folders;
- ``spawned``: when the case makes the main agent call the delegation tool once, what the child
  got: its model, its tool names, whether its system prompt holds (or starts with) the file's
  body, the temperature it was sent with, and the first words of the tool result the parent saw.

Design decision: a corpus recording keeps a fingerprint of each file (its sha256), never its
text, as the Claude Code corpus file does.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from subagents.conformance.model import (
    FORMAT,
    DataFileError,
    _batch_header,
    _list,
    _map,
    _str,
    _strs,
)

__all__ = ["HCaseResult", "HFileVerdict", "HFilesRecording", "HRecording", "HSpawn",
           "OfferedAgent"]


def _opt(o: Mapping[str, Any], key: str, where: str, kind: type | tuple[type, ...]) -> Any:
    value = o.get(key)
    if value is not None and (not isinstance(value, kind) or (isinstance(value, bool)
                              and kind is not bool)):
        raise DataFileError(f"{where}: {key!r} has the wrong type: {value!r}")
    return value


@dataclass(frozen=True, slots=True)
class OfferedAgent:
    """One agent the delegation tool offered."""

    id: str
    description: str
    overrides_builtin: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "description": self.description,
                "overrides_builtin": self.overrides_builtin}

    @classmethod
    def from_json(cls, obj: Any, where: str) -> OfferedAgent:
        o = _map(obj, where)
        return cls(_str(o, "id", where), _str(o, "description", where),
                   bool(o.get("overrides_builtin", False)))


@dataclass(frozen=True, slots=True)
class HSpawn:
    """What the one delegated child got (or why it got nothing)."""

    agent: str
    requested: bool  # whether the child's own request was seen
    model: str | None = None
    tools: tuple[str, ...] = ()
    body_in_prompt: bool = False
    prompt_starts_with_body: bool = False
    temperature: float | None = None
    tool_result: str | None = None  # the start of what the parent got back

    def to_json(self) -> dict[str, Any]:
        return {"agent": self.agent, "requested": self.requested, "model": self.model,
                "tools": list(self.tools), "body_in_prompt": self.body_in_prompt,
                "prompt_starts_with_body": self.prompt_starts_with_body,
                "temperature": self.temperature, "tool_result": self.tool_result}

    @classmethod
    def from_json(cls, obj: Any, where: str) -> HSpawn:
        o = _map(obj, where)
        temp = _opt(o, "temperature", where, (int, float))
        return cls(_str(o, "agent", where), bool(o.get("requested")),
                   _opt(o, "model", where, str), _strs(o, "tools", where),
                   bool(o.get("body_in_prompt")), bool(o.get("prompt_starts_with_body")),
                   None if temp is None else float(temp), _opt(o, "tool_result", where, str))


@dataclass(frozen=True, slots=True)
class HCaseResult:
    """Everything recorded for one case of one harness."""

    id: str
    about: str
    files: tuple[str, ...]  # project/<path> and home/<path> the case wrote
    exit_code: int | None
    agents: tuple[OfferedAgent, ...]
    messages: tuple[str, ...]
    spawned: HSpawn | None = None
    errors: tuple[str, ...] = ()  # problems of the run itself

    def agent(self, agent_id: str) -> OfferedAgent | None:
        return next((a for a in self.agents if a.id == agent_id), None)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "about": self.about, "files": list(self.files),
                "exit_code": self.exit_code, "agents": [a.to_json() for a in self.agents],
                "messages": list(self.messages),
                "spawned": self.spawned.to_json() if self.spawned else None,
                "errors": list(self.errors)}

    @classmethod
    def from_json(cls, obj: Any, where: str) -> HCaseResult:
        o = _map(obj, where)
        cid = _str(o, "id", where)
        w = f"{where} case {cid}"
        spawned = o.get("spawned")
        return cls(cid, _str(o, "about", w), _strs(o, "files", w),
                   _opt(o, "exit_code", w, int),
                   tuple(OfferedAgent.from_json(a, w) for a in _list(o, "agents", w)),
                   _strs(o, "messages", w),
                   HSpawn.from_json(spawned, w) if spawned is not None else None,
                   _strs(o, "errors", w))


@dataclass(frozen=True, slots=True)
class HRecording:
    """One harness data file."""

    harness: str
    version: str
    package: str
    recorded: str
    builtin_agents: tuple[OfferedAgent, ...]
    cases: tuple[HCaseResult, ...]
    format: int = FORMAT

    def case(self, case_id: str) -> HCaseResult:
        for case in self.cases:
            if case.id == case_id:
                return case
        raise KeyError(case_id)

    def to_json(self) -> dict[str, Any]:
        return {"format": self.format, "harness": self.harness, "version": self.version,
                "package": self.package, "recorded": self.recorded,
                "builtin_agents": [b.to_json() for b in sorted(self.builtin_agents,
                                                               key=lambda b: b.id)],
                "cases": [c.to_json() for c in sorted(self.cases, key=lambda c: c.id)]}

    @classmethod
    def from_json(cls, obj: Any, where: str) -> HRecording:
        o = _map(obj, where)
        if o.get("format") != FORMAT:
            raise DataFileError(f"{where}: format {o.get('format')!r}, this reader knows {FORMAT}")
        return cls(_str(o, "harness", where), _str(o, "version", where),
                   _str(o, "package", where), _str(o, "recorded", where),
                   tuple(OfferedAgent.from_json(b, where)
                         for b in _list(o, "builtin_agents", where)),
                   tuple(HCaseResult.from_json(c, where) for c in _list(o, "cases", where)))


@dataclass(frozen=True, slots=True)
class HFileVerdict:
    """One file of a ``record-files`` run: offered or not, under which id, and why not."""

    path: str  # as given on the command line, relative to the current folder when possible
    sha256: str
    loaded: bool
    ids: tuple[str, ...] = ()
    descriptions_sha256: tuple[str, ...] = ()
    decided_by: str = "batch"  # "batch", "alone" or "bisect"
    blocks_startup: bool = False  # this file alone makes the CLI exit non-zero
    messages: tuple[str, ...] = field(default=())

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "sha256": self.sha256, "loaded": self.loaded,
                "ids": list(self.ids), "descriptions_sha256": list(self.descriptions_sha256),
                "decided_by": self.decided_by, "blocks_startup": self.blocks_startup,
                "messages": list(self.messages)}

    @classmethod
    def from_json(cls, obj: Any, where: str) -> HFileVerdict:
        o = _map(obj, where)
        return cls(_str(o, "path", where), _str(o, "sha256", where), bool(o.get("loaded")),
                   _strs(o, "ids", where), _strs(o, "descriptions_sha256", where),
                   _str(o, "decided_by", where), bool(o.get("blocks_startup")),
                   _strs(o, "messages", where))


@dataclass(frozen=True, slots=True)
class HFilesRecording:
    """What one harness did with a set of files placed in one of its folders."""

    harness: str
    version: str
    recorded: str
    placement: str  # the folder the files were put in, e.g. ".gemini/agents"
    batch_size: int
    files: tuple[HFileVerdict, ...]
    format: int = FORMAT

    def to_json(self) -> dict[str, Any]:
        return {"format": self.format, "harness": self.harness, "version": self.version,
                "recorded": self.recorded, "placement": self.placement,
                "batch_size": self.batch_size,
                "files": [f.to_json() for f in sorted(self.files, key=lambda f: f.sha256)]}

    @classmethod
    def from_json(cls, obj: Any, where: str) -> HFilesRecording:
        o, size = _batch_header(obj, where)
        return cls(_str(o, "harness", where), _str(o, "version", where),
                   _str(o, "recorded", where), _str(o, "placement", where), size,
                   tuple(HFileVerdict.from_json(f, where) for f in _list(o, "files", where)))
