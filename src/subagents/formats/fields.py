"""Raw fields (a dict from any dialect) -> :class:`AgentDefinition`, with type findings.

Shared by every dialect: the Markdown readers pass the frontmatter's values, the JSON reader an
entry's values (camelCase wire form and snake_case both accepted via ``FIELD_ALIASES``).

Only *shape* is checked here (``SA014``: a list where a string belongs, ``maxTurns: "ten"``); a
field of the wrong shape is left at its default so the definition is always well-typed.
Whether a value is *allowed* (a known tool, a model alias, a permission mode, a hook event) is
the rules' business, so that severities follow the profile.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from subagents._dataclass import dataclass
from subagents.definition import (
    FIELD_ALIASES,
    AgentDefinition,
    Dialect,
    HookCommand,
    HookMatcher,
    McpServerSpec,
    SourceLocation,
    new_definition,
)
from subagents.formats.yamltree import YamlIssue
from subagents.known_tools import split_tool_list

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    #: A field as :func:`build_from_items` takes it: key, value, where the key is, the scalar
    #: as written (or None) and the (line, column) of the value (or None) -- a
    #: :class:`RawField` as a plain tuple (the Markdown reader makes one per field of every
    #: file it reads).
    FieldItem = tuple[str, Any, SourceLocation | None, str | None, tuple[int, int] | None]

__all__ = [
    "TYPE_ERRORS",
    "TYPE_ERROR_CODES",
    "RawField",
    "build_definition",
    "build_from_items",
]


@dataclass(frozen=True, slots=True)
class RawField:
    """One frontmatter key with its value and position, as read."""

    key: str
    value: Any
    location: SourceLocation | None
    source_text: str | None = None  # the scalar as written, when the dialect has one
    value_location: SourceLocation | None = None  # where the value starts, when known


_TEXT_AS_WRITTEN = frozenset({"version", "created", "modified", "author"})


def build_definition(
    raw: list[RawField],
    *,
    dialect: Dialect,
    path: Path | None,
    system_prompt: str = "",
    body_line: int | None = None,
    name: str | None = None,
    default_location: SourceLocation | None = None,
) -> tuple[AgentDefinition, list[YamlIssue]]:
    """Build a definition; ``name`` overrides the ``name`` field (JSON keys are names)."""
    return build_from_items(
        [(f.key, f.value, f.location, f.source_text,
          None if f.value_location is None else (f.value_location.line, f.value_location.column))
         for f in raw],
        dialect=dialect, path=path, system_prompt=system_prompt, body_line=body_line,
        name=name, default_location=default_location,
    )


def build_from_items(
    raw: list[FieldItem],
    *,
    dialect: Dialect,
    path: Path | None,
    system_prompt: str = "",
    body_line: int | None = None,
    name: str | None = None,
    default_location: SourceLocation | None = None,
) -> tuple[AgentDefinition, list[YamlIssue]]:
    """:func:`build_definition` of fields given as :data:`FieldItem` tuples."""
    issues: list[YamlIssue] = []
    values: dict[str, Any] = {}
    locations: dict[str, SourceLocation] = {}
    extra: dict[str, Any] = {}

    for f in raw:
        key, value, location, source_text, _ = f
        if location is not None:
            locations[key] = location
        attr = FIELD_ALIASES.get(key)
        if attr is None:
            extra[key] = value
            continue
        if attr in values:  # `maxTurns` and `max_turns` both given: the first wins, say so
            issues.append(_bad(f, "given once (another spelling of this field came first)",
                               default_location))
            continue
        if attr in _TEXT_AS_WRITTEN and source_text is not None and value is not None:
            value = source_text
        if type(value) is str and attr in _PLAIN_TEXT:  # what _convert returns for these
            values[attr] = value
            continue
        converted = _convert(attr, value)
        if converted is _BAD:
            issues.append(_bad(f, _EXPECTED[attr], default_location))
            continue
        values[attr] = converted

    if name is not None:
        values["name"] = name
    if "system_prompt" in values and dialect is not Dialect.JSON:
        # `prompt:` in a Markdown frontmatter is not the system prompt; keep it as unknown.
        extra["prompt"] = values.pop("system_prompt")
    if dialect is not Dialect.JSON:
        values["system_prompt"] = system_prompt
    values.setdefault("name", "")
    # (AgentDefinition(**values, extra=extra, ...), built by position: one per file read)
    return new_definition(values, extra, dialect, path, locations, body_line), issues


def _bad(f: FieldItem, expected: str, default_location: SourceLocation | None) -> YamlIssue:
    """The finding of a field of the wrong shape (a module function, not a closure made for
    every definition built)."""
    # Point at the value (what is wrong), falling back to the key.
    key, value, location, _, at = f
    loc = (SourceLocation(*at) if at is not None
           else location or default_location or SourceLocation(1, 1))
    return YamlIssue(
        TYPE_ERROR_CODES.get(key, "SA014"),
        f"`{key}` must be {expected}, not {_describe(value)}",
        loc.line,
        loc.column,
        _TYPE_HINTS.get(FIELD_ALIASES.get(key, "")),
        key=key,
    )


#: The fields whose text value :func:`_convert` returns as it is (a string, not a list or a
#: number): most of a file's fields, taken without walking its chain of cases
#: (tests/test_fields_plain_text.py checks the set against it).
_PLAIN_TEXT = frozenset({"name", "description", "system_prompt", "model", "permission_mode",
                         "color", "memory", "effort", "isolation", "initial_prompt"})


class _Bad:
    pass


_BAD: Any = _Bad()


def _describe(value: Any) -> str:
    if value is None:
        return "empty"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, str):
        return f"the text {value[:40]!r}"
    if isinstance(value, list):
        for i, item in enumerate(value, 1):
            if not isinstance(item, str):
                return f"a list whose item {i} is {_describe(item)}"
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


_EXPECTED = {
    "name": "a string",
    "description": "a string",
    "system_prompt": "a string",
    "model": "a string (an alias such as `sonnet` or a full model id)",
    "tools": "a comma-separated string or a list of tool names",
    "disallowed_tools": "a comma-separated string or a list of tool names",
    "permission_mode": "a string",
    "color": "a string",
    "max_turns": "a positive whole number",
    "hooks": "a mapping of hook events to matcher lists",
    "skills": "a comma-separated string or a list of skill names",
    "mcp_servers": "a mapping of server names to configs, or a list of server names",
    "memory": "a string",
    "background": "true or false",
    "effort": "a string",
    "isolation": "a string",
    "initial_prompt": "a string",
    "version": "a string such as 1.0.0",
    "author": "a string",
    "tags": "a list of strings",
    "created": "a date or string",
    "modified": "a date or string",
    "keywords": "a list of strings",
}

# A value of the wrong *type* is SA014; for these fields the rule catalogue has a specific rule,
# so the reader emits that code (and `ignore = ["SA108"]` covers both `maxTurns: 0` and
# `maxTurns: ten`).
TYPE_ERROR_CODES: dict[str, str] = {
    "tags": "SA113", "maxTurns": "SA108", "max_turns": "SA108", "version": "SA112",
    "permissionMode": "SA106", "permission_mode": "SA106", "hooks": "SA110", "model": "SA105",
    "effort": "SA115", "isolation": "SA116",
}
#: every code the reader gives a value of the wrong type
TYPE_ERRORS: frozenset[str] = frozenset({"SA014", *TYPE_ERROR_CODES.values()})

_TYPE_HINTS = {
    "tools": "write `tools: Read, Grep, Glob` (or a YAML list of names)",
    "max_turns": "write a whole number, e.g. `maxTurns: 30`",
    "tags": "write `tags: [review, security]`",
    "keywords": "write `keywords: [review, lint]`",
    "description": 'quote the text: `description: "..."`',
    "name": "write a lowercase-hyphenated name, e.g. `name: code-reviewer`",
}


def _str_list(value: Any, *, comma: bool) -> tuple[str, ...] | Any:
    if isinstance(value, str):
        return tuple(split_tool_list(value)) if comma else (value,)
    if isinstance(value, list):
        if all(isinstance(v, str) for v in value):
            return tuple(v.strip() for v in value)
        return _BAD
    if isinstance(value, dict) and all(isinstance(v, bool) for v in value.values()):
        # OpenCode's `tools: {read: true, write: false}` map: the enabled ones.
        return tuple(str(k) for k, v in value.items() if v)
    return _BAD


def _convert(attr: str, value: Any) -> Any:
    if attr in ("tools", "disallowed_tools"):
        if value is None:
            return None
        return _str_list(value, comma=True)
    if attr == "skills":
        if value is None:
            return ()
        return _str_list(value, comma=True)
    if attr in ("tags", "keywords"):
        if value is None:
            return None if attr == "tags" else ()
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return tuple(value)
        return _BAD
    if attr == "max_turns":
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            return _BAD
        return value
    if attr == "background":
        if value is None:
            return None
        return value if isinstance(value, bool) else _BAD
    if attr == "hooks":
        if value is None:
            return {}
        return _hooks(value)
    if attr == "mcp_servers":
        if value is None:
            return ()
        return _mcp_servers(value)
    if attr in ("created", "modified", "version", "author") and value is not None:
        if isinstance(value, (str, int, float)) and not isinstance(value, bool):
            return str(value)
        if hasattr(value, "isoformat"):
            return str(value.isoformat())
        return _BAD
    # plain strings
    if value is None:
        return "" if attr in ("name", "description", "system_prompt") else None
    if isinstance(value, str):
        return value
    if attr == "model" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return _BAD
    return _BAD


def _hooks(value: Any) -> Mapping[str, tuple[HookMatcher, ...]] | Any:
    """Well-formed matcher groups only; the rules judge the raw shape with positions."""
    if not isinstance(value, dict):
        return _BAD
    result: dict[str, tuple[HookMatcher, ...]] = {}
    for event, groups in value.items():
        matchers: list[HookMatcher] = []
        for group in groups if isinstance(groups, list) else []:
            if not isinstance(group, dict):
                continue
            commands: list[HookCommand] = []
            for h in group.get("hooks") or []:
                if not isinstance(h, dict):
                    continue
                timeout = h.get("timeout")
                commands.append(
                    HookCommand(
                        type=str(h.get("type", "command")),
                        command=h.get("command") if isinstance(h.get("command"), str) else None,
                        prompt=h.get("prompt") if isinstance(h.get("prompt"), str) else None,
                        timeout=float(timeout)
                        if isinstance(timeout, (int, float)) and not isinstance(timeout, bool)
                        else None,
                        extra={
                            k: v
                            for k, v in h.items()
                            if k not in ("type", "command", "prompt", "timeout")
                        },
                    )
                )
            matcher = group.get("matcher")
            matchers.append(
                HookMatcher(
                    matcher=matcher if isinstance(matcher, str) else None, hooks=tuple(commands)
                )
            )
        result[str(event)] = tuple(matchers)
    return result


def _server(name: str, config: Any) -> McpServerSpec:
    if not isinstance(config, dict):
        return McpServerSpec(name=name, reference=config is None)
    args = config.get("args")
    env = config.get("env")
    headers = config.get("headers")
    known = ("command", "args", "env", "url", "type", "headers")
    return McpServerSpec(
        name=name,
        command=config.get("command") if isinstance(config.get("command"), str) else None,
        args=tuple(str(a) for a in args) if isinstance(args, list) else (),
        env={str(k): str(v) for k, v in env.items()} if isinstance(env, dict) else {},
        url=config.get("url") if isinstance(config.get("url"), str) else None,
        type=config.get("type") if isinstance(config.get("type"), str) else None,
        headers={str(k): str(v) for k, v in headers.items()} if isinstance(headers, dict) else {},
        extra={k: v for k, v in config.items() if k not in known},
    )


def _mcp_servers(value: Any) -> tuple[McpServerSpec, ...] | Any:
    if isinstance(value, dict):
        return tuple(_server(str(k), v) for k, v in value.items())
    if isinstance(value, str):
        return tuple(McpServerSpec(name=n, reference=True) for n in split_tool_list(value))
    if isinstance(value, list):
        specs: list[McpServerSpec] = []
        for item in value:
            if isinstance(item, str):
                specs.append(McpServerSpec(name=item, reference=True))
            elif isinstance(item, dict) and len(item) == 1:
                ((k, v),) = item.items()
                specs.append(_server(str(k), v))
            else:
                return _BAD
        return tuple(specs)
    return _BAD
