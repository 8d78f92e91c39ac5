"""The Claude Agent SDK ``agents=`` wire form (what ``query(options=...)`` takes).

``query(options=ClaudeAgentOptions(agents={name: AgentDefinition(...)}))`` takes a mapping of
agent name to an ``AgentDefinition`` whose fields are spelled in camelCase.  This module turns
the canonical :class:`~subagents.definition.AgentDefinition` into that form.

Design notes
------------
* :func:`to_sdk_dict` is pure and needs no third-party package: it is what
  ``subagents export --format sdk`` prints and what ``convert`` reuses.  Keys appear in the
  SDK's field order; ``None`` values are dropped (the SDK treats a missing key as "inherit").
* The SDK's ``AgentDefinition`` has no ``name`` (the name is the key of the mapping), no
  ``hooks`` and no ``color``; those are left out rather than smuggled in, so that
  ``AgentDefinition(**value)`` accepts every value this module produces.
* ``tools=None`` (inherit all) is omitted; ``tools=()`` (no tools) is kept as ``[]`` because
  the two mean different things.
* ``permissionMode: manual`` is Claude Code's alias of ``default``; the SDK only knows
  ``default``, so it is translated.  An ``effort`` written as digits becomes an ``int`` (the
  SDK accepts a level name or a number).
* MCP servers: a bare reference (``mcpServers: [github]``) stays a string; an inline server
  becomes ``{name: {type?, command?, args?, env?, url?, headers?, ...extra}}``.
* :func:`to_sdk_agent_definitions` imports ``claude_agent_sdk`` lazily and raises a
  :class:`~subagents.errors.SubagentError` that says how to install it when it is missing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from subagents.errors import SubagentError

if TYPE_CHECKING:
    from subagents.definition import AgentDefinition, McpServerSpec

__all__ = [
    "SDK_KEYS",
    "mcp_server_config",
    "to_sdk_agent_definitions",
    "to_sdk_dict",
    "to_sdk_mapping",
]

# The SDK dataclass's fields, in its declaration order (claude-agent-sdk 0.2.x).
SDK_KEYS: tuple[str, ...] = (
    "description",
    "prompt",
    "tools",
    "disallowedTools",
    "model",
    "skills",
    "memory",
    "mcpServers",
    "initialPrompt",
    "maxTurns",
    "background",
    "effort",
    "permissionMode",
)


def _mcp_server_wire(spec: McpServerSpec) -> str | dict[str, Any]:
    if spec.reference:
        return spec.name
    return {spec.name: mcp_server_config(spec)}


def mcp_server_config(spec: McpServerSpec) -> dict[str, Any]:
    """A server's configuration mapping as files and the SDK write it (unknown keys kept)."""
    config: dict[str, Any] = {}
    if spec.type is not None:
        config["type"] = spec.type
    if spec.command is not None:
        config["command"] = spec.command
    if spec.args:
        config["args"] = list(spec.args)
    if spec.env:
        config["env"] = dict(spec.env)
    if spec.url is not None:
        config["url"] = spec.url
    if spec.headers:
        config["headers"] = dict(spec.headers)
    for key, value in spec.extra.items():
        config.setdefault(key, value)
    return config


def _effort_wire(effort: str | None) -> str | int | None:
    if effort is None:
        return None
    text = effort.strip()
    return int(text) if text.isdigit() else text


def to_sdk_dict(defn: AgentDefinition) -> dict[str, Any]:
    """One definition in the SDK's ``agents=`` wire form (camelCase, ``None`` dropped)."""
    permission_mode = defn.permission_mode
    if permission_mode == "manual":
        permission_mode = "default"
    values: dict[str, Any] = {
        "description": defn.description,
        "prompt": defn.system_prompt,
        "tools": list(defn.tools) if defn.tools is not None else None,
        "disallowedTools": (
            list(defn.disallowed_tools) if defn.disallowed_tools is not None else None
        ),
        "model": defn.model,
        "skills": list(defn.skills) if defn.skills else None,
        "memory": defn.memory,
        "mcpServers": [_mcp_server_wire(s) for s in defn.mcp_servers] or None,
        "initialPrompt": defn.initial_prompt,
        "maxTurns": defn.max_turns,
        "background": defn.background,
        "effort": _effort_wire(defn.effort),
        "permissionMode": permission_mode,
    }
    return {key: values[key] for key in SDK_KEYS if values[key] is not None}


def to_sdk_mapping(defs: Iterable[AgentDefinition]) -> dict[str, dict[str, Any]]:
    """``{name: wire dict}`` for many definitions; a later duplicate name wins."""
    return {d.name: to_sdk_dict(d) for d in defs}


def to_sdk_agent_definitions(
    defs: Iterable[AgentDefinition] | Mapping[str, AgentDefinition],
) -> dict[str, Any]:
    """``{name: claude_agent_sdk.AgentDefinition}``, ready for ``ClaudeAgentOptions(agents=)``.

    Raises :class:`SubagentError` when ``claude-agent-sdk`` is not installed.
    """
    try:
        from claude_agent_sdk import AgentDefinition as SdkAgentDefinition
    except ImportError as exc:
        raise SubagentError(
            "the Claude Agent SDK (package `claude-agent-sdk`) is not installed",
            hint="pip install 'subagents[sdk]' (or `pip install claude-agent-sdk`), "
            "or use to_sdk_dict() for the plain JSON form",
        ) from exc
    items = defs.values() if isinstance(defs, Mapping) else defs
    return {d.name: SdkAgentDefinition(**to_sdk_dict(d)) for d in items}
