"""A JSON Schema (draft 2020-12) of the Claude agent frontmatter, for editors.

Design notes
------------
* Built from the same constants the rules use (``HOOK_EVENTS``, ``MODEL_ALIASES``,
  ``PERMISSION_MODES``, the documented colours), so the schema and ``validate`` agree.
* The schema describes what Claude Code *accepts* (the default profile): unknown keys are
  allowed (Claude Code ignores them; ``validate`` warns), ``color`` suggests the documented
  values without forbidding others, ``model`` is an alias or a model id.
* Editors map it with e.g. ``# yaml-language-server: $schema=<file>`` - YAML language servers
  apply it to the frontmatter block.
"""

from __future__ import annotations

from typing import Any

from subagents.definition import HOOK_EVENTS, MODEL_ALIASES, PERMISSION_MODES
from subagents.lint.rules.spec import DOCUMENTED_COLORS

__all__ = ["SCHEMA_ID", "frontmatter_schema"]

SCHEMA_ID = "https://subagents.invalid/schema/claude-agent-frontmatter.json"

_TOOL_LIST: dict[str, Any] = {
    "oneOf": [
        {"type": "string", "description": "Comma-separated tool names: `Read, Grep, Glob`."},
        {"type": "array", "items": {"type": "string", "minLength": 1}},
    ]
}
_NAME_LIST: dict[str, Any] = {
    "oneOf": [
        {"type": "string"},
        {"type": "array", "items": {"type": "string", "minLength": 1}},
    ]
}


def _hooks() -> dict[str, Any]:
    command = {
        "type": "object",
        "properties": {
            "type": {"enum": ["command", "prompt", "agent", "http"], "default": "command"},
            "command": {"type": "string", "minLength": 1},
            "prompt": {"type": "string", "minLength": 1},
            "url": {"type": "string"},
            "timeout": {"type": "number", "exclusiveMinimum": 0},
        },
    }
    group = {
        "type": "object",
        "properties": {
            "matcher": {"type": "string", "description": "Tool name pattern, e.g. `Write|Edit`."},
            "hooks": {"type": "array", "items": command, "minItems": 1},
        },
        "required": ["hooks"],
        "additionalProperties": False,
    }
    return {
        "type": "object",
        "description": "Hooks active only while this agent runs; `Stop` becomes `SubagentStop`.",
        "propertyNames": {"enum": list(HOOK_EVENTS)},
        "additionalProperties": {"type": "array", "items": group},
    }


def _mcp_servers() -> dict[str, Any]:
    server = {
        "type": "object",
        "properties": {
            "command": {"type": "string"},
            "args": {"type": "array", "items": {"type": "string"}},
            "env": {"type": "object", "additionalProperties": {"type": "string"},
                    "description": "Use `${VAR}` references; never hard-code secrets."},
            "url": {"type": "string"},
            "type": {"type": "string"},
            "headers": {"type": "object", "additionalProperties": {"type": "string"}},
        },
        "anyOf": [{"required": ["command"]}, {"required": ["url"]}],
    }
    return {
        "description": "Agent-scoped MCP servers: a mapping of name to config, or a list of "
        "names configured elsewhere.",
        "oneOf": [
            {"type": "object", "additionalProperties": server},
            {"type": "array", "items": {"oneOf": [
                {"type": "string"},
                {"type": "object", "additionalProperties": server, "minProperties": 1,
                 "maxProperties": 1},
            ]}},
        ],
    }


def frontmatter_schema() -> dict[str, Any]:
    """The schema as a JSON-ready dict."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": "Claude Code subagent frontmatter",
        "description": "YAML frontmatter of an agent file in .claude/agents/*.md.",
        "type": "object",
        "required": ["name", "description"],
        "properties": {
            "name": {
                "type": "string",
                "description": "Unique id: lowercase letters, digits and hyphens.",
                "pattern": "^[^:\\-][^:]*$",
                "examples": ["code-reviewer"],
            },
            "description": {
                "type": "string",
                "minLength": 1,
                "description": "When to use this agent (10-200 characters per the spec).",
            },
            "model": {
                "type": "string",
                "description": "An alias or a full model id; omitted = inherit.",
                "anyOf": [
                    {"enum": list(MODEL_ALIASES)},
                    {"pattern": "^[a-z][A-Za-z0-9.:@/_\\-\\[\\]]*$"},
                ],
            },
            "tools": {**_TOOL_LIST, "description": "Allowlist; omitted = every tool."},
            "disallowedTools": {**_TOOL_LIST, "description": "Denylist, applied first."},
            "permissionMode": {"enum": list(PERMISSION_MODES)},
            "color": {
                "type": "string",
                "anyOf": [{"enum": sorted(DOCUMENTED_COLORS)}, {"type": "string"}],
            },
            "maxTurns": {"type": "integer", "minimum": 1},
            "hooks": _hooks(),
            "skills": {**_NAME_LIST, "description": "Skills loaded into the context (2-3 max)."},
            "mcpServers": _mcp_servers(),
            "memory": {"type": "string", "description": "`user`, `project`, `local` or text."},
            "background": {"type": "boolean"},
            "effort": {"enum": ["low", "medium", "high", "xhigh", "max"]},
            "isolation": {"enum": ["worktree"]},
            "initialPrompt": {"type": "string"},
            "version": {"type": "string", "pattern": "^\\d+\\.\\d+\\.\\d+(?:[-+].*)?$"},
            "author": {"type": "string"},
            "tags": {"type": "array", "items": {"type": "string", "minLength": 1}},
            "created": {"type": "string"},
            "modified": {"type": "string"},
        },
        "additionalProperties": True,
    }
