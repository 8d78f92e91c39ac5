"""The canonical agent definition.

Every dialect (Claude Markdown, Codex Markdown, ``agents.json`` / ``--agents`` / Agent SDK JSON,
and later OpenCode and Copilot) reads into :class:`AgentDefinition` and writes out of it; every
later stage (registry, dispatch, runtime, conversion, MCP management) speaks only this type.

Design notes
------------
* Values are *normalised but not judged*: ``tools: "Read, Grep"`` and ``tools: [Read, Grep]``
  both become ``("Read", "Grep")``; an unknown tool name stays in the tuple and the rules report
  it.  A field whose value has the wrong *type* is left at its default and the reader emits a
  diagnostic, so a definition object is always well-typed.
* ``tools is None`` means "inherit every tool of the parent"; ``()`` means none.
* ``model is None`` means the field was omitted, which Claude Code treats as ``inherit``.
* ``locations`` maps a frontmatter key, as written in the file, to the 1-based position of that
  key in the file, so later rules and the CLI can point at it.
* ``extra`` keeps unknown keys verbatim (Claude Code ignores them; we warn and round-trip them).
* Field names follow Python; ``FIELD_ALIASES`` maps the file spellings (``disallowedTools``,
  ``permissionMode``, ``maxTurns``, ``mcpServers``, ``initialPrompt``, and the snake_case forms
  some people write) onto them.
"""

from __future__ import annotations

import operator
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import MISSING, field, fields, replace
from enum import StrEnum
from itertools import filterfalse, repeat
from operator import attrgetter, itemgetter
from pathlib import Path

from subagents._dataclass import TWINS as _TWINS
from subagents._dataclass import dataclass

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "BUILTIN_AGENT_NAMES",
    "EFFORTS",
    "FIELD_ALIASES",
    "HOOK_EVENTS",
    "MODEL_ALIASES",
    "PERMISSION_MODES",
    "AgentDefinition",
    "Dialect",
    "HookCommand",
    "HookMatcher",
    "McpServerSpec",
    "Scope",
    "SourceLocation",
    "fields_setter",
]

#: The effort levels Claude Code accepts (``--effort``, an agent's ``effort``).
EFFORTS: tuple[str, ...] = ("low", "medium", "high", "xhigh", "max")


class Scope(StrEnum):
    """Where a definition came from, highest precedence first (REFERENCE.md)."""

    MANAGED = "managed"
    CLI = "cli"
    PROJECT = "project"
    USER = "user"
    PLUGIN = "plugin"
    BUILTIN = "builtin"

    @property
    def precedence(self) -> int:
        """Lower wins."""
        return list(Scope).index(self)


class Dialect(StrEnum):
    """The file formats agents are written in (``--dialect``, ``convert --from/--to``).

    ``codex`` is the official OpenAI Codex CLI's TOML; ``codex-md`` is the Markdown form some
    Codex tools read from ``.codex/agents/*.md`` (the official CLI ignores those files).
    """

    CLAUDE = "claude"
    CODEX = "codex"
    CODEX_MD = "codex-md"
    GEMINI = "gemini"
    OPENCODE = "opencode"
    COPILOT = "copilot"
    CURSOR = "cursor"
    QWEN = "qwen"
    FACTORY = "factory"
    JSON = "json"


# Model aliases Claude Code accepts in `model:` (REFERENCE.md). Full ids are accepted too.
MODEL_ALIASES: tuple[str, ...] = ("sonnet", "opus", "haiku", "fable", "inherit")

# permissionMode values Claude Code accepts today (`manual` is an alias of `default`).
PERMISSION_MODES: tuple[str, ...] = (
    "default",
    "acceptEdits",
    "auto",
    "dontAsk",
    "bypassPermissions",
    "plan",
    "manual",
)

# Hook events the newest recorded Claude Code (2.1.332) publishes (`HOOK_EVENTS` in the Agent
# SDK's typings); each version's own list is in its profile (subagents.claude_code.profile).
HOOK_EVENTS: tuple[str, ...] = (
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PostToolBatch",
    "Notification",
    "UserPromptSubmit",
    "UserPromptExpansion",
    "SessionStart",
    "SessionEnd",
    "Stop",
    "StopFailure",
    "SubagentStart",
    "SubagentStop",
    "PreCompact",
    "PostCompact",
    "PreModelSwitch",
    "PostModelSwitch",
    "PermissionRequest",
    "PermissionDenied",
    "Setup",
    "TeammateIdle",
    "TaskCreated",
    "TaskCompleted",
    "Elicitation",
    "ElicitationResult",
    "ConfigChange",
    "WorktreeCreate",
    "WorktreeRemove",
    "InstructionsLoaded",
    "CwdChanged",
    "FileChanged",
    "DirectoryAdded",
    "MessageDisplay",
    "PreSkillShellCommand",
)

BUILTIN_AGENT_NAMES: tuple[str, ...] = ("general-purpose", "Explore", "Plan")

# File spelling -> AgentDefinition attribute.
FIELD_ALIASES: Mapping[str, str] = {
    "name": "name",
    "description": "description",
    "model": "model",
    "tools": "tools",
    "disallowedTools": "disallowed_tools",
    "disallowed_tools": "disallowed_tools",
    "permissionMode": "permission_mode",
    "permission_mode": "permission_mode",
    "color": "color",
    "maxTurns": "max_turns",
    "max_turns": "max_turns",
    "hooks": "hooks",
    "skills": "skills",
    "mcpServers": "mcp_servers",
    "mcp_servers": "mcp_servers",
    "memory": "memory",
    "background": "background",
    "effort": "effort",
    "isolation": "isolation",
    "initialPrompt": "initial_prompt",
    "initial_prompt": "initial_prompt",
    "version": "version",
    "author": "author",
    "tags": "tags",
    "created": "created",
    "modified": "modified",
    "keywords": "keywords",
    "prompt": "system_prompt",  # JSON dialect: the system prompt is a field
}


@dataclass(frozen=True, slots=True)
class SourceLocation:
    """A 1-based position in a file."""

    line: int
    column: int


@dataclass(frozen=True, slots=True, kw_only=True)
class HookCommand:
    """One hook action: ``{type: command, command: "...", timeout: 60}``."""

    type: str = "command"
    command: str | None = None
    prompt: str | None = None
    timeout: float | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class HookMatcher:
    """A matcher group: ``{matcher: "Write|Edit", hooks: [...]}`` (``matcher`` optional)."""

    matcher: str | None = None
    hooks: tuple[HookCommand, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class McpServerSpec:
    """An agent-scoped MCP server.

    ``reference=True`` means the file only *named* a server configured elsewhere
    (``mcpServers: [github]``); otherwise ``command`` (stdio) or ``url`` (http/sse) starts it.
    ``env`` values may contain ``${VAR}`` references, substituted at start time.
    """

    name: str
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    url: str | None = None
    type: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    reference: bool = False
    extra: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class AgentDefinition:
    """One agent, whatever file or flag it came from."""

    name: str
    description: str = ""
    system_prompt: str = ""
    model: str | None = None
    tools: tuple[str, ...] | None = None
    disallowed_tools: tuple[str, ...] | None = None
    permission_mode: str | None = None
    color: str | None = None
    max_turns: int | None = None
    hooks: Mapping[str, tuple[HookMatcher, ...]] = field(default_factory=dict)
    skills: tuple[str, ...] = ()
    mcp_servers: tuple[McpServerSpec, ...] = ()
    memory: str | None = None
    background: bool | None = None
    effort: str | None = None
    isolation: str | None = None
    initial_prompt: str | None = None
    # optional catalogue metadata
    version: str | None = None
    author: str | None = None
    tags: tuple[str, ...] | None = None
    created: str | None = None
    modified: str | None = None
    # Codex keyword auto-routing
    keywords: tuple[str, ...] = ()
    # Unknown keys, verbatim
    extra: Mapping[str, Any] = field(default_factory=dict)
    # Provenance
    dialect: Dialect = Dialect.CLAUDE
    source: Scope | None = None
    path: Path | None = None
    plugin: str | None = None
    locations: Mapping[str, SourceLocation] = field(default_factory=dict, compare=False)
    body_line: int | None = field(default=None, compare=False)

    @property
    def qualified_name(self) -> str:
        """``plugin:name`` for plugin agents (segments joined by ``:``), else ``name``."""
        return f"{self.plugin}:{self.name}" if self.plugin else self.name

    @property
    def inherits_all_tools(self) -> bool:
        return self.tools is None

    def location_of(self, key: str) -> SourceLocation | None:
        """Position of a frontmatter key, trying the file spellings of an attribute too."""
        if key in self.locations:
            return self.locations[key]
        for spelled, attr in FIELD_ALIASES.items():
            if attr == key and spelled in self.locations:
                return self.locations[spelled]
        return None

    def evolve(self, **changes: Any) -> AgentDefinition:
        """A copy with some fields changed (what ``dataclasses.replace`` does, without its
        per-call field introspection: the registry and validate make one per file)."""
        if not _FIELD_NAMES.issuperset(changes):  # (no set of the keys made to find out)
            return replace(self, **changes)  # raises the usual TypeError
        if _SLOTS is None:  # pragma: no cover - see _SLOTS
            values = {name: getattr(self, name) for name in _FIELD_NAMES}
            values.update(changes)
            return AgentDefinition(**values)
        # each slot set as the generated __init__ sets it (it only assigns), without the
        # keyword arguments of a 31-field call: half the cost, and one is made per file read;
        # which slots are copied and which changed is worked out once per set of names
        # (a call site passes the same names every time)
        names = tuple(changes)
        setter = _SETTERS.get(names)
        if setter is None:
            setter = fields_setter(names)
            if len(_SETTERS) < 256:  # (a caller making up names each time: not remembered)
                _SETTERS[names] = setter
        return setter(self, *changes.values())


def fields_setter(names: tuple[str, ...]) -> Callable[..., AgentDefinition]:
    """``set_fields(definition, *values)``: a copy of ``definition`` with the fields ``names``
    set to ``values``, in that order -- :meth:`AgentDefinition.evolve` for a caller that
    changes the same fields of every definition, without a mapping of them per call.

    The copy is made as the class's ``__init__`` makes an object.  Once the class has its
    unfrozen twin (:func:`subagents._dataclass.unfrozen_twin`: made when enough definitions
    have been built, as in a run over many files), a function written for ``names`` and
    compiled then makes it: an object of the twin, one plain attribute store per field, then
    a definition (a tenth of the cost of the setters' way).  Until then (a run over one
    file never gets there, and pays for neither the twin nor the compiling), each slot is
    set through its descriptor: the copied values read with one ``attrgetter`` and every
    slot set by one ``map`` over the setters, both loops in C."""
    chosen = set(names)
    if len(chosen) != len(names) or not _FIELD_NAMES.issuperset(chosen):
        raise TypeError(f"not distinct fields of AgentDefinition: {names!r}")
    if _SLOTS is None:  # pragma: no cover - see _SLOTS

        def set_by_replace(definition: AgentDefinition, *values: Any) -> AgentDefinition:
            return definition.evolve(**dict(zip(names, values, strict=True)))

        return set_by_replace
    kept = tuple(filterfalse(chosen.__contains__, _SETTER_OF))
    compiled: list[Callable[..., AgentDefinition]] = []

    def set_fields(definition: AgentDefinition, *values: Any) -> AgentDefinition:
        if compiled:
            return compiled[0](definition, *values)
        twin = _TWINS.get(AgentDefinition)
        if twin is None:
            return _by_setters(definition, names, kept, values)
        compiled.append(_compiled_setter(names, kept, twin))
        return compiled[0](definition, *values)

    return set_fields


def setter_text(names: tuple[str, ...], kept: tuple[str, ...]) -> str:
    """The text of the function :func:`fields_setter` compiles for ``names`` (its arguments
    after the definition, in that order) and ``kept`` (the other fields, copied)."""
    values = ", ".join(names)
    return (f"def set_fields(definition, {values}):\n new = _new(_twin)"
            + "".join([f"\n new.{name} = {name}" for name in names])
            + "".join([f"\n new.{name} = definition.{name}" for name in kept])
            + "\n new.__class__ = _shut\n return new\n")


#: The fields :func:`new_definition` is given apart from its mapping of values, in this order.
NEW_DEFINITION_TAIL = ("extra", "dialect", "path", "locations", "body_line")


def new_definition(values: dict[str, Any], extra: Mapping[str, Any], dialect: Dialect,
                   path: Path | None, locations: Mapping[str, SourceLocation],
                   body_line: int | None) -> AgentDefinition:
    """``AgentDefinition(**values, extra=extra, ...)`` (one per file read), built once the
    class has its twin by a function compiled for the names of ``values``, by position
    (:func:`maker_text`; a 31-field call by keyword costs twice as much); before the twin,
    or for names the call refuses, the class call."""
    twin = _TWINS.get(AgentDefinition)
    if twin is not None and _SLOTS is not None:
        names = tuple(values)
        make = _MAKERS.get(names)
        if make is None and "name" in values and _MADE_FROM_VALUES.issuperset(names):
            make = _compiled_maker(names, twin)
            if len(_MAKERS) < 256:  # (a caller making up names each time: not remembered)
                _MAKERS[names] = make
        if make is not None:
            return make(*values.values(), extra, dialect, path, locations, body_line)
    return AgentDefinition(**values, extra=extra, dialect=dialect, path=path,
                           locations=locations, body_line=body_line)


def maker_text(names: tuple[str, ...]) -> str:
    """What :func:`new_definition` compiles for ``names`` (then
    :data:`NEW_DEFINITION_TAIL`): one store per field, a default as ``__init__`` sets it."""
    given = (*names, *NEW_DEFINITION_TAIL)
    lines = [f"def make({', '.join(given)}):", " new = _new(_twin)"]
    for f in fields(AgentDefinition):
        if f.name in given:
            lines.append(f" new.{f.name} = {f.name}")
        elif f.default_factory is not MISSING:
            lines.append(f" new.{f.name} = _factory_{f.name}()")
        else:
            lines.append(f" new.{f.name} = _default_{f.name}")
    return "\n".join([*lines, " new.__class__ = _shut", " return new", ""])


def _compiled_maker(names: tuple[str, ...], twin: type) -> Callable[..., AgentDefinition]:
    namespace: dict[str, Any] = {}
    scope: dict[str, Any] = {"__builtins__": __builtins__, "_new": _new_object, "_twin": twin,
                             "_shut": AgentDefinition}
    for f in fields(AgentDefinition):
        if f.default_factory is not MISSING:
            scope[f"_factory_{f.name}"] = f.default_factory
        elif f.default is not MISSING:
            scope[f"_default_{f.name}"] = f.default
    exec(maker_text(names), scope, namespace)  # (our own text, of field names only)
    made: Callable[..., AgentDefinition] = namespace["make"]
    return made


def _compiled_setter(names: tuple[str, ...], kept: tuple[str, ...],
                     twin: type) -> Callable[..., AgentDefinition]:
    namespace: dict[str, Any] = {}
    exec(setter_text(names, kept),  # (our own text, of field names only)
         {"__builtins__": __builtins__, "_new": _new_object, "_twin": twin,
          "_shut": AgentDefinition}, namespace)
    made: Callable[..., AgentDefinition] = namespace["set_fields"]
    return made


def _by_setters(definition: AgentDefinition, names: tuple[str, ...], kept: tuple[str, ...],
                values: tuple[Any, ...]) -> AgentDefinition:
    """:func:`fields_setter`'s copy before the class has its twin: each slot set through its
    descriptor (the copied values read with one ``attrgetter``, every slot set by one ``map``
    over the setters, both loops in C)."""
    if len(kept) + len(values) != len(_SETTER_OF):
        raise TypeError(f"fields_setter{names!r}: {len(values)} values given")
    new = _new_object(AgentDefinition)
    # (attrgetter of one name gives the value, not a tuple of it)
    copied = attrgetter(*kept)(definition) if len(kept) > 1 else (
        (getattr(definition, kept[0]),) if kept else ())
    _consume(map(_call, map(_SETTER_OF.__getitem__, (*kept, *names)), repeat(new),
                 (*copied, *values)))
    return new


_FIELD_NAMES: frozenset[str] = frozenset(f.name for f in fields(AgentDefinition) if f.init)
#: :func:`new_definition`'s compiled function per tuple of names given in the mapping.
_MAKERS: dict[tuple[str, ...], Callable[..., AgentDefinition]] = {}
#: The names :func:`new_definition`'s mapping may hold (every field but the ones it is given
#: apart).
_MADE_FROM_VALUES: frozenset[str] = _FIELD_NAMES.difference(NEW_DEFINITION_TAIL)
#: :meth:`AgentDefinition.evolve`'s :func:`fields_setter` per tuple of changed names.
_SETTERS: dict[tuple[str, ...], Callable[..., AgentDefinition]] = {}
_new_object = object.__new__
_call = operator.call
_consume: Callable[[Any], None] = deque(maxlen=0).extend  # (runs an iterator to its end)
#: ``(field name, its slot's getter, its setter)`` of every field, for
#: :meth:`AgentDefinition.evolve` (bound once: a look-up of ``__set__`` makes an object each
#: time); None (build through ``__init__``) if ``__init__`` ever did more than assign every
#: field: a field left out of it, or a ``__post_init__``.
_SLOTS: tuple[tuple[str, Any, Any], ...] | None = (
    tuple((f.name, AgentDefinition.__dict__[f.name].__get__,
           AgentDefinition.__dict__[f.name].__set__) for f in fields(AgentDefinition))
    if all(f.init for f in fields(AgentDefinition))
    and not hasattr(AgentDefinition, "__post_init__")
    and set(AgentDefinition.__slots__) == {f.name for f in fields(AgentDefinition)}
    else None
)
#: Each field's slot setter, by field name, in the order of the fields.
_SETTER_OF: dict[str, Any] = (
    dict(zip(map(itemgetter(0), _SLOTS), map(itemgetter(2), _SLOTS), strict=True))
    if _SLOTS is not None else {})
