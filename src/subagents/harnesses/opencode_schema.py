"""OpenCode 1.18.33's ``AgentConfig`` schema: which values it refuses, in its own words.

The schema was read from the JavaScript embedded in the ``opencode`` binary (an Effect
``Schema``); the messages below are those ``opencode agent list`` printed for the cases that
were run (``Expected string | undefined, got null description``, ``Expected object | undefined,
got "Read, Grep, Glob" tools``, both halves of the ``color`` union, ``Expected an integer, got
2.5 steps``, ``Expected a value greater than 0, got 0 steps``, ``Expected boolean, got "yes"
tools.bash``, ``Expected PermissionActionConfig, got "nope" permission.bash``).  Messages for
cases that were not run follow the same pattern.  Every key outside the schema is accepted (it
is moved into ``options``), and ``name`` may be any value.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

__all__ = [
    "ACTIONS",
    "ACTION_ONLY_KEYS",
    "COLOR_THEMES",
    "PERMISSION_RULE_KEYS",
    "SCHEMA_KEYS",
    "js_show",
    "schema_issues",
]

ACTIONS = ("ask", "allow", "deny")
COLOR_THEMES = ("primary", "secondary", "accent", "success", "warning", "error", "info")
PERMISSION_RULE_KEYS = (
    "read", "edit", "glob", "grep", "list", "bash", "task", "external_directory", "lsp", "skill",
)
ACTION_ONLY_KEYS = ("todowrite", "question", "webfetch", "websearch", "doom_loop")
SCHEMA_KEYS = (
    "name", "model", "variant", "prompt", "description", "temperature", "top_p", "mode",
    "hidden", "color", "steps", "maxSteps", "options", "permission", "disable", "tools",
)
_ACTION = "PermissionActionConfig"


def js_show(value: Any) -> str:
    """A value the way OpenCode's messages print it (JSON; numbers as JavaScript prints them)."""
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return str(int(value)) if value.is_integer() else repr(value)
    if isinstance(value, (int, str)):
        return json.dumps(value, ensure_ascii=False)
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    except (TypeError, ValueError, RecursionError):
        return str(value)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_object(value: Any) -> bool:
    return isinstance(value, Mapping)


def _rule_issues(value: Any, where: str, optional: bool) -> list[str]:
    """A permission rule: an action, or a ``{pattern: action}`` map."""
    tail = " | undefined" if optional else ""
    if isinstance(value, str):
        if value in ACTIONS:
            return []
        # measured: a wrong action on a rule key is reported against the action member
        return [f"Expected {_ACTION}, got {js_show(value)} {where}"]
    if _is_object(value):
        return [
            f"Expected {_ACTION}, got {js_show(v)} {where}.{k}"
            for k, v in value.items()
            if v not in ACTIONS
        ]
    return [f"Expected {_ACTION} | PermissionObjectConfig{tail}, got {js_show(value)} {where}"]


def _permission_issues(value: Any) -> list[str]:
    if isinstance(value, str):
        if value in ACTIONS:
            return []
        expected = f"{_ACTION} | PermissionObjectConfig | undefined"
        return [f"Expected {expected}, got {js_show(value)} permission"]
    if not _is_object(value):
        return [f"Expected PermissionConfig | undefined, got {js_show(value)} permission"]
    issues: list[str] = []
    for key, rule in value.items():
        where = f"permission.{key}"
        if key in ACTION_ONLY_KEYS:
            if rule not in ACTIONS:
                issues.append(f"Expected {_ACTION} | undefined, got {js_show(rule)} {where}")
        else:
            issues.extend(_rule_issues(rule, where, key in PERMISSION_RULE_KEYS))
    return issues


def _steps_issues(value: Any, key: str) -> list[str]:
    if not _is_number(value):
        return [f"Expected number | undefined, got {js_show(value)} {key}"]
    if isinstance(value, float) and not value.is_integer():
        return [f"Expected an integer, got {js_show(value)} {key}"]
    if value <= 0:
        return [f"Expected a value greater than 0, got {js_show(value)} {key}"]
    return []


def schema_issues(config: Mapping[str, Any], prefix: str = "") -> list[str]:
    """OpenCode's complaints about one agent's config (empty: valid).  ``prefix`` is the path
    of the agent inside a JSON file (``agent.reviewer.``)."""
    issues: list[str] = []

    def add(message: str) -> None:
        issues.append(_with_prefix(message, prefix))

    for key in ("model", "variant", "prompt", "description"):
        if key in config and not isinstance(config[key], str):
            add(f"Expected string | undefined, got {js_show(config[key])} {key}")
    for key in ("temperature", "top_p"):
        if key in config:
            v = config[key]
            if not _is_number(v):
                add(f"Expected number | undefined, got {js_show(v)} {key}")
            elif isinstance(v, float) and not math.isfinite(v):
                add(f"Expected a finite number, got {js_show(v)} {key}")
    for key in ("disable", "hidden"):
        if key in config and not isinstance(config[key], bool):
            add(f"Expected boolean | undefined, got {js_show(config[key])} {key}")
    if "mode" in config and config["mode"] not in ("subagent", "primary", "all"):
        modes = '"subagent" | "primary" | "all" | undefined'
        add(f"Expected {modes}, got {js_show(config['mode'])} mode")
    if "tools" in config:
        tools = config["tools"]
        if not _is_object(tools):
            add(f"Expected object | undefined, got {js_show(tools)} tools")
        else:
            for name, flag in tools.items():
                if not isinstance(flag, bool):
                    add(f"Expected boolean, got {js_show(flag)} tools.{name}")
    if "options" in config and not _is_object(config["options"]):
        add(f"Expected object | undefined, got {js_show(config['options'])} options")
    if "color" in config:
        color = config["color"]
        if not (isinstance(color, str) and (_is_hex(color) or color in COLOR_THEMES)):
            shown = js_show(color)
            if isinstance(color, str):
                pattern = "a string matching the RegExp ^#[0-9a-fA-F]{6}$"
                add(f"Expected {pattern}, got {shown} color")
            else:
                add(f"Expected string | undefined, got {shown} color")
            themes = " | ".join(f'"{t}"' for t in COLOR_THEMES)
            add(f"Expected {themes}, got {shown} color")
    for key in ("steps", "maxSteps"):
        if key in config:
            issues.extend(_with_prefix(m, prefix) for m in _steps_issues(config[key], key))
    if "permission" in config:
        issues.extend(_with_prefix(m, prefix) for m in _permission_issues(config["permission"]))
    return issues


def _with_prefix(message: str, prefix: str) -> str:
    if not prefix:
        return message
    head, _, where = message.rpartition(" ")
    return f"{head} {prefix}{where}"


def is_hex_color(value: str) -> bool:
    return _is_hex(value)


def _is_hex(value: str) -> bool:
    hexdigits = "0123456789abcdefABCDEF"
    return len(value) == 7 and value[0] == "#" and all(c in hexdigits for c in value[1:])
