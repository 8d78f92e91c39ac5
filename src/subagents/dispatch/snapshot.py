"""The agents a run may delegate to, frozen when the run starts.

An agent that writes ``.claude/agents/helper.md`` (with a hook) and then delegates to
``helper`` in the same run turns a file write into a command.  So the Task tool of a run works
on a snapshot taken at its start: every definition's body is read then, ``reload`` does
nothing, and an agent added or changed on disk during the run is seen by the *next* run only
(which, for a project, is also when trust and protected-path rules had their say).

:class:`RegistrySnapshot` quacks like the :class:`~subagents.registry.core.AgentRegistry` the
dispatcher uses (``reload``/``list``/``entry``); an agent whose file failed to load at the
start keeps that failure (it is not re-read later).
"""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING

from subagents.definition import AgentDefinition, Scope
from subagents.errors import SubagentError

if TYPE_CHECKING:
    from subagents.registry.core import AgentRegistry

__all__ = ["FrozenEntry", "RegistrySnapshot"]


class FrozenEntry:
    """One agent as it was at the start of the run."""

    __slots__ = ("_error", "_full", "header", "source")

    def __init__(self, header: AgentDefinition, full: AgentDefinition | None,
                 error: SubagentError | None, source: Scope | None = None) -> None:
        self.header = header
        self._full = full
        self._error = error
        self.source = source if source is not None else header.source

    @property
    def name(self) -> str:
        return self.header.qualified_name

    @property
    def definition(self) -> AgentDefinition:
        if self._full is None:
            raise self._error or SubagentError(f"agent {self.name!r} could not be loaded")
        return self._full


class RegistrySnapshot:
    """A registry's agents read once, bodies included; see the module docstring."""

    def __init__(self, registry: AgentRegistry) -> None:
        entries: list[FrozenEntry] = []
        for e in registry.list(include_builtin=True):  # the Task tool offers the built-ins too
            try:
                entries.append(FrozenEntry(e.header, e.definition, None, e.source))
            except SubagentError as exc:
                entries.append(FrozenEntry(e.header, None, exc, e.source))
            except OSError as exc:
                entries.append(FrozenEntry(e.header, None, SubagentError(
                    f"agent {e.name!r} could not be read: {exc.strerror or exc}"), e.source))
        self._entries = tuple(entries)

    def reload(self) -> builtins.list[object]:
        return []  # frozen: changes on disk wait for the next run

    def list(self, *, include_builtin: bool = False) -> builtins.list[FrozenEntry]:
        """As :meth:`AgentRegistry.list`: the built-in agents only when asked for."""
        if include_builtin:
            return builtins.list(self._entries)
        return [e for e in self._entries if e.source is not Scope.BUILTIN]

    def entry(self, name: str) -> FrozenEntry:
        for e in self._entries:
            if e.name == name:
                return e
        raise KeyError(name)
