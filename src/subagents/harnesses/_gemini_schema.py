"""Gemini CLI's frontmatter schema, checked the way its zod 3 schema checks it, with its messages.

Gemini CLI 0.61.0 validates an agent's frontmatter with a strict zod object (source:
``google-gemini/gemini-cli`` ``packages/core/src/agents/agentLoader.ts`` at ``5411f113``,
zod 3.25.76).  This module reproduces that check closely enough to print the same lines:

* a field of the wrong type *aborts* its branch (``tools: Expected array, received string``);
  a failed refinement (``Name must be a valid slug``, ``Invalid tool name``), a too-short
  string and unknown keys (``Unrecognized key(s) in object: 'color'``) only make it *dirty*;
* the frontmatter is a union of three branches (local agent, remote agent by URL, remote agent
  by inline JSON).  zod returns the first valid branch, else the first dirty one (its issues,
  unlabelled), else every branch's issues labelled ``(Local Agent)`` / ``(Remote Agent)``,
  filtered by Gemini's guess of the kind the author meant (``guessIntendedKind``);
* a frontmatter that is a YAML list is a list of remote agents.  Gemini labels that union's
  branches by position with the same table, so the URL branch prints as ``(Local Agent)``:
  reproduced as is.

Tool names are Gemini's ``isValidToolName`` with wildcards allowed
(``packages/core/src/tools/tool-names.ts``, same commit): the built-in names below, the legacy
alias ``search_file_content``, ``discovered_tool_*``, ``*``, ``mcp_*`` and ``mcp_<server>_<tool>``
/ ``mcp_<server>_*`` with slug-like parts.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from subagents.harnesses._yaml12 import js_type

__all__ = [
    "BUILTIN_TOOL_NAMES",
    "LEGACY_TOOL_ALIASES",
    "LOCAL_KEYS",
    "Issue",
    "Result",
    "is_valid_tool_name",
    "validate_frontmatter",
]

# ALL_BUILTIN_TOOL_NAMES in packages/core/src/tools/tool-names.ts (gemini-cli 5411f113).
BUILTIN_TOOL_NAMES: tuple[str, ...] = (
    "glob",
    "write_todos",
    "write_file",
    "google_web_search",
    "web_fetch",
    "replace",
    "run_shell_command",
    "grep_search",
    "read_many_files",
    "read_file",
    "list_directory",
    "activate_skill",
    "ask_user",
    "tracker_create_task",
    "tracker_update_task",
    "tracker_get_task",
    "tracker_list_tasks",
    "tracker_add_dependency",
    "tracker_visualize",
    "get_internal_docs",
    "enter_plan_mode",
    "exit_plan_mode",
    "update_topic",
    "complete_task",
    "invoke_agent",
    "read_mcp_resource",
    "list_mcp_resources",
)
LEGACY_TOOL_ALIASES: Mapping[str, str] = {"search_file_content": "grep_search"}

LOCAL_KEYS: tuple[str, ...] = (
    "kind",
    "name",
    "description",
    "display_name",
    "tools",
    "mcp_servers",
    "model",
    "temperature",
    "max_turns",
    "timeout_mins",
)
_REMOTE_BASE_KEYS = ("kind", "name", "description", "display_name", "auth")
_SLUG = re.compile(r"^[a-z0-9_-]+$")
_MCP_PART = re.compile(r"^[a-z0-9_.:-]+$", re.I)
_MCP_SPLIT = re.compile(r"^([^_]+)_(.+)$", re.S)


def is_valid_tool_name(name: str) -> bool:
    """Gemini CLI's ``isValidToolName(name, {allowWildcards: true})``."""
    if name in BUILTIN_TOOL_NAMES or name in LEGACY_TOOL_ALIASES:
        return True
    if name.startswith("discovered_tool_") or name == "*":
        return True
    if not name.startswith("mcp_"):
        return False
    if name == "mcp_*":
        return True
    if name.startswith("mcp__"):
        return False
    match = _MCP_SPLIT.match(name[len("mcp_") :])
    if match is None:
        return False
    server, tool = match.group(1), match.group(2)
    if not _MCP_PART.match(server):
        return False
    if tool == "*":
        return True
    if re.fullmatch(r"_*", tool):
        return False
    return _MCP_PART.match(tool) is not None


@dataclass(frozen=True, slots=True)
class Issue:
    path: tuple[str | int, ...]
    message: str
    label: str | None = None

    def line(self) -> str:
        prefix = f"({self.label}) " if self.label else ""
        where = ".".join(str(p) for p in self.path)
        return f"{prefix}{where}: {self.message}" if where else f"{prefix}{self.message}"


@dataclass(slots=True)
class _Ctx:
    issues: list[Issue] = field(default_factory=list)
    aborted: bool = False

    def abort(self, path: tuple[str | int, ...], message: str) -> None:
        self.issues.append(Issue(path, message))
        self.aborted = True

    def dirty(self, path: tuple[str | int, ...], message: str) -> None:
        self.issues.append(Issue(path, message))

    @property
    def status(self) -> str:
        if self.aborted:
            return "aborted"
        return "dirty" if self.issues else "valid"


_MISSING = object()


def _type_issue(ctx: _Ctx, path: tuple[str | int, ...], value: Any, expected: str) -> None:
    if value is _MISSING:
        ctx.abort(path, "Required")
    else:
        ctx.abort(path, f"Expected {expected}, received {js_type(value)}")


def _string(ctx: _Ctx, path: tuple[str | int, ...], value: Any, *, optional: bool) -> None:
    if value is _MISSING and optional:
        return
    if not isinstance(value, str):
        _type_issue(ctx, path, value, "string")


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and not math.isnan(value)


def _positive_int(ctx: _Ctx, path: tuple[str | int, ...], value: Any) -> None:
    if value is _MISSING:
        return
    if not _number(value):
        _type_issue(ctx, path, value, "number")
        return
    if isinstance(value, float) and not value.is_integer():
        ctx.dirty(path, "Expected integer, received float")
    if value <= 0:
        ctx.dirty(path, "Number must be greater than 0")


def _string_array(ctx: _Ctx, path: tuple[str | int, ...], value: Any) -> None:
    if value is _MISSING:
        return
    if not isinstance(value, list):
        _type_issue(ctx, path, value, "array")
        return
    for i, item in enumerate(value):
        if not isinstance(item, str):
            _type_issue(ctx, (*path, i), item, "string")


def _string_record(ctx: _Ctx, path: tuple[str | int, ...], value: Any) -> None:
    if value is _MISSING:
        return
    if not isinstance(value, dict):
        _type_issue(ctx, path, value, "object")
        return
    for key, item in value.items():
        if not isinstance(item, str):
            _type_issue(ctx, (*path, str(key)), item, "string")


def _literal(ctx: _Ctx, path: tuple[str | int, ...], value: Any, expected: str) -> None:
    if value is not _MISSING and value != expected:
        ctx.abort(path, f'Invalid literal value, expected "{expected}"')


def _get(data: Mapping[Any, Any], key: str) -> Any:
    return data.get(key, _MISSING)


def _mcp_server(ctx: _Ctx, path: tuple[str | int, ...], spec: Any) -> None:
    if not isinstance(spec, dict):
        _type_issue(ctx, path, spec, "object")
        return
    for key in ("command", "cwd", "url", "http_url", "tcp", "description"):
        _string(ctx, (*path, key), _get(spec, key), optional=True)
    for key in ("args", "include_tools", "exclude_tools"):
        _string_array(ctx, (*path, key), _get(spec, key))
    for key in ("env", "headers"):
        _string_record(ctx, (*path, key), _get(spec, key))
    kind = _get(spec, "type")
    if kind is not _MISSING and kind not in ("sse", "http"):
        if isinstance(kind, str):
            ctx.abort(
                (*path, "type"),
                f"Invalid enum value. Expected 'sse' | 'http', received '{kind}'",
            )
        else:
            ctx.abort((*path, "type"), f"Expected 'sse' | 'http', received {js_type(kind)}")
    timeout = _get(spec, "timeout")
    if timeout is not _MISSING and not _number(timeout):
        _type_issue(ctx, (*path, "timeout"), timeout, "number")
    trust = _get(spec, "trust")
    if trust is not _MISSING and not isinstance(trust, bool):
        _type_issue(ctx, (*path, "trust"), trust, "boolean")
    auth = _get(spec, "auth")
    if auth is not _MISSING and not (
        isinstance(auth, dict) and auth.get("type") in ("google-credentials", "oauth")
    ):
        ctx.abort((*path, "auth"), "Invalid input")


def _unknown_keys(ctx: _Ctx, data: Mapping[Any, Any], known: Sequence[str]) -> None:
    extra = [str(k) for k in _js_key_order(data) if str(k) not in known]
    if extra:
        ctx.dirty((), "Unrecognized key(s) in object: " + ", ".join(f"'{k}'" for k in extra))


def _js_key_order(data: Mapping[Any, Any]) -> list[Any]:
    """A JavaScript object lists integer-like keys first, ascending, then the rest in order."""
    index = [k for k in data if re.fullmatch(r"0|[1-9][0-9]{0,8}", str(k))]
    index.sort(key=lambda k: int(str(k)))
    return index + [k for k in data if k not in index]


def _local(data: Any) -> _Ctx:
    ctx = _Ctx()
    if not isinstance(data, dict):
        _type_issue(ctx, (), data, "object")
        return ctx
    _literal(ctx, ("kind",), _get(data, "kind"), "local")
    _name(ctx, data)
    desc = _get(data, "description")
    _string(ctx, ("description",), desc, optional=False)
    if isinstance(desc, str) and len(desc) < 1:
        ctx.dirty(("description",), "String must contain at least 1 character(s)")
    _string(ctx, ("display_name",), _get(data, "display_name"), optional=True)
    tools = _get(data, "tools")
    _string_array(ctx, ("tools",), tools)
    if isinstance(tools, list):
        for i, item in enumerate(tools):
            if isinstance(item, str) and not is_valid_tool_name(item):
                ctx.dirty(("tools", i), "Invalid tool name")
    servers = _get(data, "mcp_servers")
    if servers is not _MISSING:
        if not isinstance(servers, dict):
            _type_issue(ctx, ("mcp_servers",), servers, "object")
        else:
            for key, spec in servers.items():
                _mcp_server(ctx, ("mcp_servers", str(key)), spec)
    _string(ctx, ("model",), _get(data, "model"), optional=True)
    temperature = _get(data, "temperature")
    if temperature is not _MISSING and not _number(temperature):
        _type_issue(ctx, ("temperature",), temperature, "number")
    _positive_int(ctx, ("max_turns",), _get(data, "max_turns"))
    _positive_int(ctx, ("timeout_mins",), _get(data, "timeout_mins"))
    _unknown_keys(ctx, data, LOCAL_KEYS)
    return ctx


def _name(ctx: _Ctx, data: Mapping[Any, Any]) -> None:
    name = _get(data, "name")
    _string(ctx, ("name",), name, optional=False)
    if isinstance(name, str) and not _SLUG.match(name):
        ctx.dirty(("name",), "Name must be a valid slug")


def _is_url(value: str) -> bool:
    return re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:\S", value) is not None


def _remote(data: Any, by: str, path: tuple[str | int, ...] = ()) -> _Ctx:
    ctx = _Ctx()
    if not isinstance(data, dict):
        _type_issue(ctx, path, data, "object")
        return ctx
    _literal(ctx, (*path, "kind"), _get(data, "kind"), "remote")
    sub = _Ctx()
    _name(sub, data)
    _string(sub, ("description",), _get(data, "description"), optional=True)
    _string(sub, ("display_name",), _get(data, "display_name"), optional=True)
    auth = _get(data, "auth")
    if auth is not _MISSING:
        if not isinstance(auth, dict):
            _type_issue(sub, ("auth",), auth, "object")
        elif auth.get("type") not in ("apiKey", "http", "google-credentials", "oauth"):
            sub.abort(
                ("auth", "type"),
                "Invalid discriminator value. Expected 'apiKey' | 'http' | "
                "'google-credentials' | 'oauth'",
            )
    url, card = _get(data, "agent_card_url"), _get(data, "agent_card_json")
    if by == "url":
        _string(sub, ("agent_card_url",), url, optional=False)
        if isinstance(url, str) and not _is_url(url):
            sub.dirty(("agent_card_url",), "Invalid url")
        if card is not _MISSING:
            sub.abort(("agent_card_json",), f"Expected undefined, received {js_type(card)}")
    else:
        if url is not _MISSING:
            sub.abort(("agent_card_url",), f"Expected undefined, received {js_type(url)}")
        _string(sub, ("agent_card_json",), card, optional=False)
        if isinstance(card, str):
            try:
                json.loads(card)
            except ValueError:
                sub.dirty(("agent_card_json",), "agent_card_json must be valid JSON")
    _unknown_keys(sub, data, (*_REMOTE_BASE_KEYS, "agent_card_url", "agent_card_json"))
    for issue in sub.issues:
        ctx.issues.append(Issue((*path, *issue.path), issue.message))
    ctx.aborted = ctx.aborted or sub.aborted
    return ctx


def _guess_kind(data: Any) -> str | None:
    if not isinstance(data, dict):
        return None
    if data.get("kind") in ("local", "remote"):
        return str(data["kind"])
    local = any(k in data for k in ("tools", "mcp_servers", "model", "temperature",
                                    "max_turns", "timeout_mins"))
    remote = any(k in data for k in ("agent_card_url", "auth", "agent_card_json"))
    if local and not remote:
        return "local"
    if remote and not local:
        return "remote"
    return None


_LABELS = ("Local Agent", "Remote Agent", "Remote Agent")


@dataclass(frozen=True, slots=True)
class Result:
    """``ok``: which branch passed ("local" / "remote"), or None; ``lines``: Gemini's lines."""

    ok: str | None
    issues: tuple[Issue, ...]
    context: str  # "Agent Definition" | "Remote Agents List"

    def message(self) -> str:
        lines = list(dict.fromkeys(issue.line() for issue in self.issues))
        return f"{self.context}:\n" + "\n".join(lines)


def _union(branches: Sequence[_Ctx], guess: str | None) -> tuple[int | None, list[Issue]]:
    for index, branch in enumerate(branches):
        if branch.status == "valid":
            return index, []
    for branch in branches:
        if branch.status == "dirty":
            return None, list(branch.issues)
    out: list[Issue] = []
    for index, branch in enumerate(branches):
        label = _LABELS[index]
        if guess == "local" and label == "Remote Agent":
            continue
        if guess == "remote" and label == "Local Agent":
            continue
        out.extend(Issue(i.path, i.message, i.label or label) for i in branch.issues)
    return None, out


def validate_frontmatter(data: Any) -> Result:
    """What Gemini's schema says of a parsed frontmatter (``None`` stands for ``undefined``)."""
    if isinstance(data, list):
        issues: list[Issue] = []
        for index, item in enumerate(data):
            branches = [_remote(item, "url", (index,)), _remote(item, "json", (index,))]
            _, found = _union(branches, None)
            issues.extend(found)
        return Result(None if issues else "remote", tuple(issues), "Remote Agents List")
    if data is None:
        # js-yaml gives `undefined` for an empty document: every branch says "Required"
        required = [Issue((), "Required", label) for label in _LABELS]
        return Result(None, tuple(required), "Agent Definition")
    branches = [_local(data), _remote(data, "url"), _remote(data, "json")]
    guess = _guess_kind(data)
    chosen, found = _union(branches, guess)
    ok = None if chosen is None else ("local" if chosen == 0 else "remote")
    return Result(ok, tuple(found), "Agent Definition")
