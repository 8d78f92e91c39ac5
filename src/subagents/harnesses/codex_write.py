"""Write one agent as a Codex CLI 0.169.0 role file (``.codex/agents/<name>.toml``).

Design notes
------------
* Only keys Codex accepts are written: ``name``, ``description``, ``developer_instructions``,
  ``model`` (a real model id; Claude's aliases ``sonnet``/``opus``/``haiku``/``inherit`` mean
  nothing to Codex and are dropped, so the agent inherits the parent's model),
  ``model_reasoning_effort`` (Claude's ``max`` becomes ``xhigh``, ``med`` ``medium``; other
  values are written as they are), ``sandbox_mode`` / ``approval_policy`` (from a read-only
  tool list and from ``permissionMode``), ``[mcp_servers.<id>]`` from inline MCP servers, and
  the ``x-codex`` keys a Codex file had (each restored only if it passes the reader's checks).
* Codex requires a non-blank ``name``, ``description`` and ``developer_instructions``.  A blank
  one is replaced (name ``agent``, the name as description, the description as instructions)
  so the file still loads; the converter's read-back reports the change.
* The file name is the name made safe for a path; the ``name`` field keeps the real name (Codex
  ignores the file name).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from subagents.definition import MODEL_ALIASES, AgentDefinition, McpServerSpec
from subagents.harnesses import tomlwrite
from subagents.harnesses.base import WrittenFile
from subagents.harnesses.codex_config import CONFIG_TOML_KEYS, ROLE_KEYS, check_config_value
from subagents.harnesses.table import UNICODE_SPACE as _SPACE
from subagents.harnesses.table import get_spec

__all__ = ["codex_file_stem", "write_codex"]

codex_file_stem = get_spec("codex").stem

WHO = f"Codex CLI {get_spec('codex').version}"
_WRITE_TOOLS = frozenset(("Write", "Edit", "MultiEdit", "NotebookEdit", "Bash"))
_EFFORTS = {"minimal": "minimal", "low": "low", "medium": "medium", "med": "medium",
            "high": "high", "xhigh": "xhigh", "max": "xhigh", "none": "none"}
_MCP_EXTRA: Mapping[str, tuple[type, ...]] = {
    "cwd": (str,), "enabled": (bool,), "required": (bool,), "bearer_token_env_var": (str,),
    "startup_timeout_sec": (int, float), "tool_timeout_sec": (int, float),
}
_OWN_KEYS = frozenset(("name", "description", "developer_instructions", "model",
                       "model_reasoning_effort", "mcp_servers"))


def _bare(tool: str) -> str:
    return tool.split("(", 1)[0].strip()


def _read_only(defn: AgentDefinition) -> bool:
    """True when the Claude tool settings leave the agent no way to write or run anything."""
    if defn.tools is not None:
        names = {_bare(t) for t in defn.tools}
        if "*" not in names and not names & _WRITE_TOOLS:
            return True
    if defn.disallowed_tools is not None:
        denied = {_bare(t) for t in defn.disallowed_tools}
        if denied >= _WRITE_TOOLS:
            return True
    return False


def _sandbox(defn: AgentDefinition) -> dict[str, str]:
    out: dict[str, str] = {}
    mode = defn.permission_mode
    if mode == "plan":
        out["sandbox_mode"] = "read-only"
    elif mode == "acceptEdits":
        out["sandbox_mode"] = "workspace-write"
    elif mode == "bypassPermissions":
        out["sandbox_mode"] = "danger-full-access"
        out["approval_policy"] = "never"
    if _read_only(defn):
        out["sandbox_mode"] = "read-only"  # the stricter setting wins
    return out


def _mcp_table(spec: McpServerSpec) -> dict[str, Any] | None:
    if spec.reference or not (spec.command or spec.url):
        return None  # a server configured elsewhere: Codex's servers are global already
    table: dict[str, Any] = {}
    if spec.command:
        table["command"] = spec.command
        if spec.args:
            table["args"] = list(spec.args)
        if spec.env:
            table["env"] = {str(k): str(v) for k, v in spec.env.items()}
    else:
        table["url"] = spec.url
        if spec.headers:
            table["http_headers"] = {str(k): str(v) for k, v in spec.headers.items()}
    for key, kinds in _MCP_EXTRA.items():
        item = spec.extra.get(key)
        if isinstance(item, kinds) and not (bool in kinds) ^ isinstance(item, bool):
            table[key] = item
    return table


def _model(model: str | None) -> str | None:
    if model is None or not model.strip() or model.strip().lower() in MODEL_ALIASES:
        return None
    return model.strip()


def _restored(extra: Any) -> dict[str, Any]:
    """The ``x-codex`` keys that Codex accepts, cleaned for TOML."""
    if not isinstance(extra, Mapping):
        return {}
    out: dict[str, Any] = {}
    for key, item in extra.items():
        if not isinstance(key, str) or key in _OWN_KEYS or key in ("name", "description"):
            continue
        if key not in CONFIG_TOML_KEYS and key not in ROLE_KEYS:
            continue
        cleaned = tomlwrite.clean(item)
        if cleaned is None:
            continue
        if key == "nickname_candidates":
            if not _nicknames_ok(cleaned):
                continue
        elif check_config_value(key, cleaned) is not None:
            continue
        out[key] = cleaned
    return out


def _nicknames_ok(items: Any) -> bool:
    if not isinstance(items, list) or not items:
        return False
    seen: set[str] = set()
    for item in items:
        if not isinstance(item, str) or not re.fullmatch(r"[A-Za-z0-9 _-]+", item.strip(_SPACE)):
            return False
        if item.strip(_SPACE) in seen:
            return False
        seen.add(item.strip(_SPACE))
    return True


def write_codex(defn: AgentDefinition) -> WrittenFile:
    """``definition`` as one Codex role file that Codex CLI 0.169.0 loads."""
    name = defn.name if defn.name.strip(_SPACE) else "agent"
    description = defn.description if defn.description.strip(_SPACE) else name
    prompt = defn.system_prompt if defn.system_prompt.strip(_SPACE) else description
    head: list[tuple[str, str]] = [
        ("name", tomlwrite.basic_string(name)),
        ("description", tomlwrite.basic_string(description)),
    ]
    rest: dict[str, Any] = {}
    model = _model(defn.model)
    if model is not None:
        rest["model"] = model
    effort = _EFFORTS.get((defn.effort or "").strip().lower()) if defn.effort else None
    if effort is None and defn.effort and not defn.effort.strip().isdigit():
        effort = defn.effort.strip() or None
    if effort is not None:
        rest["model_reasoning_effort"] = effort
    rest.update(_sandbox(defn))
    servers = {s.name: t for s in defn.mcp_servers if (t := _mcp_table(s)) is not None}
    restored = _restored(defn.extra.get("x-codex"))
    rest.update(restored)
    if servers:
        rest["mcp_servers"] = {**servers}
    # scalars before the prompt would read oddly: the prompt goes last among the head lines
    scalars = {k: v for k, v in rest.items() if not isinstance(v, Mapping)}
    tables = {k: v for k, v in rest.items() if isinstance(v, Mapping)}
    lines = [*head, *((k, tomlwrite.value(v)) for k, v in scalars.items()),
             ("developer_instructions", tomlwrite.multiline(prompt))]
    text = tomlwrite.dump_document(lines, tables)
    notes = [f"{WHO} reads project agents (.codex/agents/) only in a trusted project: mark "
             "it trusted in Codex (or run `codex exec --trust`)."]
    if defn.tools is not None or defn.disallowed_tools is not None:
        notes.append(f"{WHO} has no per-agent tool list: the tool settings were not carried "
                     "over" + (" (a read-only set became sandbox_mode = \"read-only\")."
                               if _read_only(defn) else "."))
    if "sandbox_mode" in rest or "approval_policy" in rest:
        notes.append(f"{WHO} applies the parent session's live sandbox and approval settings "
                     "to a spawned agent, overriding the file's sandbox_mode/approval_policy.")
    return WrittenFile(get_spec("codex").relpath(name), text, tuple(notes))
