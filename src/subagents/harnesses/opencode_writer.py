"""The text of an OpenCode 1.18.33 agent file for one canonical definition.

Decisions (see :mod:`subagents.harnesses.opencode` for the whole picture):

* ``permission`` is the tool restriction.  Claude allowlist → native names (crosswalk); each
  permission key is ``deny`` when none of its tools is wanted (``edit`` covers Write, Edit and
  MultiEdit; ``bash`` Bash; ``webfetch`` WebFetch; ...), ``allow`` when a wanted tool is
  outside OpenCode's default subagent set (``list`` for LS, ``task``, ``todowrite``, ...).  A
  Claude denylist adds ``deny`` for its tools.  Parked ``x-opencode.permission`` entries come
  first, so glob rules (``bash: {"git *": allow}``) survive a round trip; the allowlist then
  overrides what it must.
* ``model``: ``provider/model`` kept; ``claude-*`` → ``anthropic/claude-*``; aliases and other
  bare ids dropped (with a note).
* Claude fields OpenCode has no place for (hooks, skills, MCP servers, permissionMode, memory,
  effort, ...) are not written: OpenCode would hand unknown keys to the model provider.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from subagents.definition import MODEL_ALIASES, AgentDefinition
from subagents.harnesses import yamlout
from subagents.harnesses.crosswalk import to_native
from subagents.harnesses.graymatter import js_trim
from subagents.harnesses.opencode_schema import ACTIONS, COLOR_THEMES, is_hex_color

__all__ = ["PERMISSION_KEYS", "render"]

# permission key -> the native tools it governs (what the writer may deny or allow)
PERMISSION_KEYS: Mapping[str, tuple[str, ...]] = {
    "read": ("read",), "edit": ("edit", "write"), "glob": ("glob",), "grep": ("grep",),
    "list": ("list",), "bash": ("bash",), "task": ("task",), "webfetch": ("webfetch",),
    "websearch": ("websearch",), "todowrite": ("todowrite",), "skill": ("skill",),
    "question": ("question",),
}
_DEFAULT_ON = frozenset({"read", "edit", "glob", "grep", "bash", "webfetch", "skill"})


def _permission(defn: AgentDefinition, parked: Mapping[str, Any]) -> dict[str, Any]:
    perms: dict[str, Any] = {}
    base = parked.get("permission")
    if isinstance(base, str) and base in ACTIONS:
        perms["*"] = base
    elif isinstance(base, Mapping):
        perms.update({str(k): v for k, v in base.items()})
    if defn.tools is not None and "*" not in defn.tools:
        wanted = set(to_native("opencode", defn.tools).names)
        for key, natives in PERMISSION_KEYS.items():
            if not wanted.intersection(natives):
                # the keys outside the default set are off unless something allowed them
                if key in _DEFAULT_ON or perms.get(key) in ("allow", "ask"):
                    perms[key] = "deny"
            elif key not in _DEFAULT_ON:
                perms[key] = perms.get(key) if perms.get(key) not in (None, "deny") else "allow"
            elif perms.get(key) == "deny" or perms.get("*") == "deny":
                perms[key] = "allow"
    if defn.disallowed_tools:
        for native in to_native("opencode", defn.disallowed_tools).names:
            for key, natives in PERMISSION_KEYS.items():
                if native in natives:
                    perms[key] = "deny"
    return perms


def _model(model: str | None) -> tuple[str | None, str | None]:
    """(model to write, note when dropped)."""
    if model is None or model == "inherit":
        return None, None
    if "/" in model and not model.startswith("/") and not model.endswith("/"):
        return model, None
    if model.startswith("claude-"):
        return f"anthropic/{model}", None
    if model in MODEL_ALIASES:
        return None, (f"model {model!r} was not written: OpenCode needs a provider/model id "
                      "(for example anthropic/claude-sonnet-4-5); the agent uses the caller's")
    return None, (f"model {model!r} was not written: OpenCode needs a provider/model id; "
                  "the agent uses the caller's")


def render(defn: AgentDefinition, stem: str) -> tuple[str, list[str]]:
    """(file text, notes for the user); ``stem``: the path below ``agents/`` without ``.md``."""
    parked_any = defn.extra.get("x-opencode")
    parked: Mapping[str, Any] = parked_any if isinstance(parked_any, Mapping) else {}
    notes: list[str] = []
    lines: list[str] = []
    if stem != defn.name:
        lines.append(yamlout.line("name", defn.name))
    mode = parked.get("mode")
    lines.append(yamlout.line("mode", mode if mode in ("subagent", "primary", "all")
                              else "subagent"))
    if defn.description:
        lines.append(yamlout.line("description", defn.description))
    model, note = _model(defn.model)
    if model:
        lines.append(yamlout.line("model", model))
    if note:
        notes.append(note)
    variant = parked.get("variant")
    if isinstance(variant, str):
        lines.append(yamlout.line("variant", variant))
    for key in ("temperature", "top_p"):
        value = parked.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            lines.append(yamlout.line(key, value))
    for key in ("hidden", "disable"):
        if isinstance(parked.get(key), bool):
            lines.append(yamlout.line(key, parked[key]))
    color = defn.color if defn.color is not None else parked.get("color")
    if isinstance(color, str) and (is_hex_color(color) or color in COLOR_THEMES):
        lines.append(yamlout.line("color", color))
    if defn.max_turns is not None and defn.max_turns > 0:
        lines.append(yamlout.line("steps", int(defn.max_turns)))
    options = parked.get("options")
    if isinstance(options, Mapping) and options:
        lines.append(yamlout.line("options", dict(options)))
    perms = _permission(defn, parked)
    if perms:
        lines.extend(yamlout.block_map("permission", perms))
    body = js_trim(defn.system_prompt)
    return "---\n" + "\n".join(lines) + "\n---\n" + body + ("\n" if body else ""), notes
