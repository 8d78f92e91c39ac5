"""Write an :class:`AgentDefinition` out as a Claude file, a Codex file or an ``agents.json`` entry.

The readers live beside this module; :mod:`subagents.repair.convert` uses these writers and
then reads the output back to prove what survived (the writers themselves never judge).
The Agent SDK wire form is :func:`subagents.formats.sdkwire.to_sdk_dict`.

Design notes
------------
* **Claude Markdown**: frontmatter keys in the order of the schema, then the
  optional metadata, then unknown keys verbatim (Claude Code ignores them; we round-trip them).
  ``tools``/``disallowedTools`` are written as a comma string — the form Claude Code documents —
  because a YAML list has been reported to end with zero tools (REFERENCE.md, #13331); a list is
  used only when an entry holds a top-level comma the string form could not carry.
  Multi-line text (descriptions with ``<example>`` blocks) is a literal block scalar, so it never
  breaks the frontmatter the way hand-written ``description:`` lines do (#16916, #45971).
* **Body**: the system prompt is written verbatim after the closing ``---``.  A prompt that does
  not start with a newline (one that came from JSON) gets a blank line after ``---`` and a final
  newline, which every harness strips; conversion compares prompts with outer whitespace
  stripped for that reason.
* **Codex Markdown**: ``name``, ``description``, ``model``, ``tools`` (a YAML list),
  ``keywords``; nothing else — Codex ignores unknown keys, so anything more would look honoured
  and not be.  Duplicate ``tools``/``keywords`` entries (which Codex rejects) are dropped here
  and reported by the caller.
* **JSON entry**: the NanoClaw/``--agents`` shape ``{description, prompt, tools?, model?, ...}``
  with every other field in its camelCase wire spelling, so JSON carries everything Claude
  Markdown does (the JSON reader accepts the same spellings).  The prompt is stored with its
  outer whitespace stripped.  Values JSON cannot hold (YAML dates in unknown keys) become ISO
  strings; the caller notices the change when it reads the result back.
"""

from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Iterable, Mapping
from typing import Any

import yaml

from subagents.definition import AgentDefinition, HookMatcher, McpServerSpec
from subagents.known_tools import split_tool_list

__all__ = [
    "hooks_to_data",
    "mcp_servers_to_data",
    "to_claude_markdown",
    "to_codex_markdown",
    "to_json_entry",
    "to_json_text",
]

class _Dumper(yaml.SafeDumper):
    """SafeDumper that writes multi-line strings as literal blocks and never folds lines."""


def _str_representer(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    # PyYAML falls back to a quoted style by itself when a block cannot hold the text
    # (trailing spaces on a line, control characters).
    style = "|" if "\n" in value.strip("\n") else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str_representer)


class _FlowList(list[Any]):
    """A list to be written in flow style (``[a, b]``): Codex's documented form."""


def _flow_representer(dumper: yaml.SafeDumper, value: _FlowList) -> yaml.SequenceNode:
    return dumper.represent_sequence("tag:yaml.org,2002:seq", list(value), flow_style=True)


_Dumper.add_representer(_FlowList, _flow_representer)


def _dump(data: Mapping[str, Any]) -> str:
    if not data:
        return ""
    text: str = yaml.dump(
        dict(data),
        Dumper=_Dumper,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=1 << 30,
    )
    return text


def _tool_value(tools: tuple[str, ...]) -> str | list[str]:
    if tools and split_tool_list(", ".join(tools)) == list(tools):
        return ", ".join(tools)
    return list(tools)


def hooks_to_data(hooks: Mapping[str, tuple[HookMatcher, ...]]) -> dict[str, Any]:
    """The settings-schema form: ``{event: [{matcher?, hooks: [{type, command, ...}]}]}``."""
    out: dict[str, Any] = {}
    for event, groups in hooks.items():
        entries: list[dict[str, Any]] = []
        for group in groups:
            entry: dict[str, Any] = {}
            if group.matcher is not None:
                entry["matcher"] = group.matcher
            commands: list[dict[str, Any]] = []
            for h in group.hooks:
                item: dict[str, Any] = {"type": h.type}
                if h.command is not None:
                    item["command"] = h.command
                if h.prompt is not None:
                    item["prompt"] = h.prompt
                if h.timeout is not None:
                    item["timeout"] = int(h.timeout) if h.timeout.is_integer() else h.timeout
                for key, value in h.extra.items():
                    item.setdefault(key, value)
                commands.append(item)
            entry["hooks"] = commands
            entries.append(entry)
        out[event] = entries
    return out


def _server_config(spec: McpServerSpec) -> dict[str, Any]:
    from subagents.formats.sdkwire import mcp_server_config

    return mcp_server_config(spec)


def mcp_servers_to_data(servers: Iterable[McpServerSpec]) -> list[Any]:
    """A list of server names and ``{name: config}`` items: the only form Claude Code reads
    (2.1.330, measured: a ``{name: config}`` mapping is silently ignored, no server starts)."""
    return [s.name if s.reference else {s.name: _server_config(s)} for s in servers]


def _common_fields(defn: AgentDefinition, *, tools_as: str) -> dict[str, Any]:
    """Every canonical field but name/description/prompt, in file spelling, None omitted."""
    d: dict[str, Any] = {}
    if defn.tools is not None:
        d["tools"] = _tool_value(defn.tools) if tools_as == "comma" else list(defn.tools)
    if defn.disallowed_tools is not None:
        d["disallowedTools"] = (
            _tool_value(defn.disallowed_tools)
            if tools_as == "comma"
            else list(defn.disallowed_tools)
        )
    optional: list[tuple[str, Any]] = [
        ("model", defn.model),
        ("permissionMode", defn.permission_mode),
        ("maxTurns", defn.max_turns),
        ("color", defn.color),
        ("skills", list(defn.skills) if defn.skills else None),
        ("mcpServers", mcp_servers_to_data(defn.mcp_servers) if defn.mcp_servers else None),
        ("hooks", hooks_to_data(defn.hooks) if defn.hooks else None),
        ("memory", defn.memory),
        ("background", defn.background),
        ("effort", defn.effort),
        ("isolation", defn.isolation),
        ("initialPrompt", defn.initial_prompt),
        ("version", defn.version),
        ("author", defn.author),
        ("tags", list(defn.tags) if defn.tags is not None else None),
        ("created", defn.created),
        ("modified", defn.modified),
        ("keywords", list(defn.keywords) if defn.keywords else None),
    ]
    for key, value in optional:
        if value is not None:
            d[key] = value
    return d


_RESERVED = frozenset({"name", "description", "prompt"})


class _Quoted(str):
    """A string to be written double-quoted whatever it holds."""

    __slots__ = ()


def _quoted_representer(dumper: yaml.SafeDumper, value: _Quoted) -> yaml.ScalarNode:
    return dumper.represent_scalar("tag:yaml.org,2002:str", str(value), style='"')


_Dumper.add_representer(_Quoted, _quoted_representer)


def _frontmatter_text(front: Mapping[str, Any]) -> str:
    """The YAML, safe to read up to the closing ``---`` by any reader.

    A literal block as the *last* value keeps its final newline only if the reader hands the
    parser the line break before ``---``; not every reader does (ours strips it).  If the last
    value would read back differently without that line break, it is written double-quoted.
    """
    text = _dump(front)
    if front:
        last_key, last_value = list(front.items())[-1]
        if isinstance(last_value, str) and last_value.endswith("\n"):
            loaded = yaml.safe_load(text.rstrip("\n"))
            if not isinstance(loaded, dict) or loaded.get(last_key) != last_value:
                patched = dict(front)
                patched[last_key] = _Quoted(last_value)
                text = _dump(patched)
    return text


def _markdown(front: Mapping[str, Any], prompt: str) -> str:
    body = prompt
    if not body.startswith("\n"):
        body = "\n" + body
    if not body.endswith("\n"):
        body += "\n"
    return "---\n" + _frontmatter_text(front) + "---\n" + body


def to_claude_markdown(defn: AgentDefinition) -> str:
    """A ``.claude/agents/<name>.md`` file for this definition."""
    front: dict[str, Any] = {"name": defn.name, "description": defn.description}
    front.update(_common_fields(defn, tools_as="comma"))
    for key, value in defn.extra.items():
        front.setdefault(key, value)
    return _markdown(front, defn.system_prompt)


def _unique(items: Iterable[str]) -> list[str]:
    seen: dict[str, None] = {}
    for item in items:
        if item.strip():
            seen.setdefault(item, None)
    return list(seen)


def to_codex_markdown(defn: AgentDefinition) -> str:
    """A ``.codex/agents/<name>.md`` file: only the fields Codex reads."""
    front: dict[str, Any] = {"name": defn.name}
    if defn.description:
        front["description"] = defn.description
    if defn.model is not None:
        front["model"] = defn.model
    if defn.tools is not None:
        front["tools"] = _FlowList(_unique(defn.tools))
    if defn.keywords:
        front["keywords"] = _FlowList(_unique(defn.keywords))
    return _markdown(front, defn.system_prompt)


def _jsonable(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, (_dt.date, _dt.datetime)):
        return value.isoformat()
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def to_json_entry(defn: AgentDefinition) -> dict[str, Any]:
    """One ``agents.json`` value (the key is ``defn.name``)."""
    entry: dict[str, Any] = {
        "description": defn.description,
        "prompt": defn.system_prompt.strip(),
    }
    entry.update(_common_fields(defn, tools_as="list"))
    for key, value in defn.extra.items():
        if key not in _RESERVED:
            entry.setdefault(key, value)
    result: dict[str, Any] = _jsonable(entry)
    return result


def to_json_text(entries: Mapping[str, Mapping[str, Any]]) -> str:
    """``{name: entry}`` as the text of an ``agents.json`` file (2-space indent, final newline)."""
    return json.dumps(dict(entries), indent=2, ensure_ascii=False) + "\n"
