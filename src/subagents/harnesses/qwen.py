"""Qwen Code 0.24.4: where it finds subagents, what it makes of a file, and how to write one.

Facts are from running ``@qwen-code/qwen-code@0.24.4`` offline and from its bundle
(``chunks/chunk-DPEB6S2R.js``: ``parseSubagentContent``, ``SubagentValidator``,
``listSubagentsAtLevel``, ``resolveToolNames``; ``chunks/chunk-RSWOFJBY.js``: tool names and
display names; ``chunks/chunk-DXXCNZW4.js``: its YAML front door).

Design notes
------------
* **Discovery:** ``.qwen/agents/*.md`` of the project (not when the project root is the home
  folder) and ``~/.qwen/agents/*.md``, one level, ``.md`` only.  Levels are tried project,
  user, built-in; the first agent of a name wins, without a word.
  :meth:`QwenHarness.load_all` (an addition to the protocol) models the whole scan.
* **Reading** follows ``parseSubagentContent``: BOM stripped, line ends normalised, the
  pattern ``^---\\n(...)\\n---\\n(...)$``, then the ``yaml`` package (YAML 1.2 core schema, no
  timestamps); when that throws, or gives no mapping, Qwen falls back to a *line parser* that
  reads ``key: rest of line`` -- which is why an unquoted ``: `` in a description still loads.
  Null values are dropped.  Then its checks: ``name`` and ``description`` present, the name
  2-50 letters/digits/``-``/``_`` and not reserved, a prompt of at least 10 characters, a
  valid ``approvalMode``.  **A file that fails is skipped silently** (a debug log only), so
  every SKIP finding says so.
* **What loads differently.**  ``color`` outside the eight colours (and ``auto``), an invalid
  ``permissionMode``/``maxTurns``/``background``, a ``mcpServers`` that is not a mapping and
  ``hooks`` that are not lists are dropped; ``effort``, ``memory``, ``isolation``, ``skills``
  and ``initialPrompt`` are not read at all; a tool name that is neither a Qwen tool name nor
  a display name (``Read``, ``Write``, ``Bash``, ``LS``, ``MultiEdit``) is dropped.  Each is a
  DIFFERS error.
* **Writing:** ``.qwen/agents/<name>.md`` with Qwen's tool names, ``color`` only from the
  allowlist, ``permissionMode`` kept (Qwen maps it to ``approvalMode``) and every other key
  Qwen reads; a Claude alias model (``sonnet``...) is left out because Qwen would pass it
  verbatim to its provider.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from subagents.definition import (
    MODEL_ALIASES,
    AgentDefinition,
    HookCommand,
    HookMatcher,
    McpServerSpec,
)
from subagents.formats.writers import hooks_to_data
from subagents.harnesses import _yaml12
from subagents.harnesses._qwen_tools import QWEN_TOOL_LOOKUP
from subagents.harnesses.base import Effect, Finding, HarnessAgent, Location, Outcome, WrittenFile
from subagents.harnesses.crosswalk import to_claude, to_native
from subagents.harnesses.folders import flat_locations, in_flat_folder, scan_flat
from subagents.harnesses.table import TableHarness, get_spec

__all__ = ["HARNESS", "QwenHarness", "parse_simple", "resolve_tool"]

SPEC = get_spec("qwen")
VERSION = str(SPEC.version)
LABEL = f"Qwen Code {VERSION}"
SILENT = f"{LABEL} skips this file without a word"
FRONTMATTER = re.compile(r"^---\n([\s\S]*?)\n---\n([\s\S]*)\Z")
COLORS: tuple[str, ...] = ("red", "blue", "green", "yellow", "purple", "orange", "pink", "cyan")
PERMISSION_TO_APPROVAL: Mapping[str, str] = {
    "default": "default", "plan": "plan", "acceptEdits": "auto-edit", "auto": "auto-edit",
    "bypassPermissions": "yolo", "dontAsk": "default",
}
APPROVAL_MODES: tuple[str, ...] = ("plan", "default", "auto-edit", "auto", "yolo", "bubble")
RESERVED = ("self", "system", "user", "model", "tool", "config", "default", "main")
AUTH_TYPES = ("openai", "openai-responses", "qwen-oauth", "gemini", "vertex-ai", "anthropic")
BUILTIN_AGENTS: tuple[str, ...] = ("general-purpose", "Explore", "statusline-setup",
                                   "review-agent", "claude-code", "codex")
IGNORED_CLAUDE_KEYS: tuple[str, ...] = ("effort", "memory", "isolation", "skills",
                                        "initialPrompt")
MAX_FILE_BYTES = 16 << 20  # our own limit
_X = "x-qwen"


def resolve_tool(name: str) -> str | None:
    """The Qwen tool a tools entry names (by tool name, display name or old display name)."""
    if name.startswith("mcp__"):
        return name  # kept as a pattern
    return QWEN_TOOL_LOOKUP.get(name)


def _js_number(text: str) -> float | None:
    """``Number(text)`` for the line parser (``None`` for NaN and infinities)."""
    stripped = text.strip()
    if stripped == "":
        return 0.0
    try:
        if re.fullmatch(r"[+-]?0[xX][0-9a-fA-F]+", stripped) and stripped[0] not in "+-":
            return float(int(stripped, 16))
        if re.fullmatch(r"0[oO][0-7]+", stripped):
            return float(int(stripped[2:], 8))
        if re.fullmatch(r"0[bB][01]+", stripped):
            return float(int(stripped[2:], 2))
        if not re.fullmatch(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", stripped):
            return None
        value = float(stripped)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _simple_value(text: str) -> Any:
    if text in ("true", "false"):
        return text == "true"
    if text == "null":
        return None
    if text == "":
        return ""
    if len(text) >= 2 and text.startswith('"') and text.endswith('"'):
        return text[1:-1].replace('\\"', '"').replace("\\\\", "\\")
    number = _js_number(text)
    if number is not None:
        return int(number) if number.is_integer() else number
    return text


def parse_simple(block: str) -> dict[str, Any]:
    """Qwen's fallback line parser (``parseSimple`` in its ``yaml-parser.ts``)."""
    lines = [ln for ln in block.split("\n") if ln.strip() and not ln.strip().startswith("#")]
    result: dict[str, Any] = {}
    key, in_array = "", False
    array: list[Any] = []
    obj: dict[str, Any] = {}
    in_obj, obj_key = False, ""
    for i, line in enumerate(lines):
        if line.startswith("  - "):
            if not in_array:
                in_array, array = True, []
            array.append(_simple_value(line[4:].strip()))
            continue
        if in_array:
            result[key] = array
            in_array, array, key = False, [], ""
        if line.startswith("  ") and in_obj:
            sub, _, rest = line.strip().partition(":")
            obj[sub.strip()] = _simple_value(rest.strip())
            continue
        if in_obj:
            result[obj_key] = obj
            in_obj, obj, obj_key = False, {}, ""
        if ":" in line:
            head, _, rest = line.partition(":")
            value = rest.strip()
            if value == "":
                key = head.strip()
                if i + 1 < len(lines):
                    following = lines[i + 1]
                    if following.startswith("  - "):
                        continue
                    if following.startswith("  "):
                        in_obj, obj_key, obj, key = True, key, {}, ""
                        continue
            else:
                result[head.strip()] = _simple_value(value)
    if in_array:
        result[key] = array
    if in_obj:
        result[obj_key] = obj
    return result


def _strip_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {_yaml12.js_string(k) if not isinstance(k, str) else k: _strip_nulls(v)
                for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_strip_nulls(v) for v in value if v is not None]
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return value


def _split(value: Any) -> list[str] | None:
    if isinstance(value, list):
        return [item for item in value if isinstance(item, str)]
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    return None


def _max_turns(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and value:
        number = _js_number(value)
        if number is None:
            return None
        value = number
    if not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    if value != int(value) or value <= 0:
        return None
    return int(value)


def _name_errors(name: str) -> list[str]:
    trimmed = name.strip()
    if not trimmed:
        return ["Name is required and cannot be empty"]
    errors = []
    if len(trimmed) < 2:
        errors.append("Name must be at least 2 characters long")
    if len(trimmed) > 50:
        errors.append("Name must be 50 characters or less")
    if not all(ch.isalpha() or ch.isnumeric() or ch in "_-" for ch in trimmed):
        errors.append("Name can only contain letters, numbers, hyphens, and underscores")
    if trimmed[0] in "-_":
        errors.append("Name cannot start with a hyphen or underscore")
    if trimmed[-1] in "-_":
        errors.append("Name cannot end with a hyphen or underscore")
    if trimmed.lower() in RESERVED:
        errors.append(f'"{trimmed}" is a reserved name and cannot be used')
    return errors


def _validation_errors(name: str, description: str, prompt: str, tools: list[str] | None,
                       disallowed: list[str] | None, model: str | None,
                       run_config: Any) -> list[str]:
    errors = _name_errors(name)
    if not description.strip():
        errors.append("Description is required and cannot be empty")
    if not prompt.strip():
        errors.append("System prompt is required and cannot be empty")
    elif len(prompt.strip()) < 10:
        errors.append("System prompt must be at least 10 characters long")
    for listed in (tools, disallowed):
        errors.extend("Tool name cannot be empty" for tool in listed or () if not tool.strip())
    if model is not None:
        if not model.strip():
            errors.append("Model must be a non-empty string")
        else:
            head, colon, rest = model.strip().partition(":")
            if colon and head.strip() in AUTH_TYPES and not rest.strip():
                errors.append("Model selector must include a model ID after the authType")
    if isinstance(run_config, dict):
        for key in ("max_time_minutes", "max_turns"):
            value = run_config.get(key)
            if value is None:
                continue
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                errors.append(f"{key} must be a number")
            elif value <= 0:
                errors.append(f"{key} must be greater than 0")
            elif key == "max_turns" and value != int(value):
                errors.append("max_turns must be an integer")
    return errors


class QwenHarness(TableHarness, dialect="qwen"):
    """Qwen Code's subagent dialect (see the module docstring)."""


    # ------------------------------------------------------------------ discovery

    def locations(self, project: Path, home: Path) -> Sequence[Location]:
        # Qwen Code skips the project folder when the project is the home folder
        same = project.resolve() == home.resolve()
        return flat_locations(None if same else project, home, ".qwen", first_rank=1)

    def discover(self, project: Path, home: Path) -> Sequence[Path]:
        return scan_flat(self.locations(project, home),
                         lambda entry: entry.name.endswith(".md") and not entry.is_dir())

    def claims(self, path: Path) -> bool:
        return in_flat_folder(path, ".qwen")

    # ------------------------------------------------------------------ reading

    def read_text(self, text: str, path: Path | None = None) -> Sequence[HarnessAgent]:
        normalized = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
        match = FRONTMATTER.match(normalized)
        if match is None:
            return (self._skip("QW001", "Invalid format: missing YAML frontmatter", path, 1,
                               hint="start the file with `---`, the fields, `---` and a "
                               "line break"),)
        block, body = match.group(1), match.group(2)
        findings: list[Finding] = []
        try:
            parsed = _yaml12.load(block, with_timestamps=False)
        except _yaml12.TooDeep as exc:
            return (HarnessAgent(self.name, path, Outcome.SKIPPED, None, findings=(Finding(
                "QW002", f"subagents refused to parse this frontmatter ({exc}); {LABEL} would "
                "probably load it", Effect.SKIP, line=(exc.line or 1) + 1),)),)
        except _yaml12.YamlError as exc:
            parsed = None
            findings.append(Finding(
                "QW018", f"{LABEL} cannot parse this frontmatter as YAML ({exc}) and reads it "
                "with its fallback line parser instead: each `key: value` line is taken as "
                "written, and nested values may be lost", Effect.DIFFERS,
                line=(exc.line or 1) + 1, hint="quote values that contain `: `"))
        if not isinstance(parsed, dict):
            parsed = parse_simple(block)
        fm: dict[str, Any] = _strip_nulls(parsed)
        lines: dict[str, int] = {}
        for offset, line in enumerate(block.split("\n")):
            key_match = re.match(r"^([^\s:#][^:]*?)\s*:", line)
            if key_match:
                lines.setdefault(key_match.group(1).strip("'\""), offset + 2)
        return (self._judge(fm, body, path, findings, lines),)

    def _skip(self, code: str, message: str, path: Path | None, line: int | None,
              key: str | None = None, hint: str | None = None,
              native: Mapping[str, object] | None = None) -> HarnessAgent:
        finding = Finding(code, f"{SILENT}: Failed to parse subagent file: {message}",
                          Effect.SKIP, line=line, key=key, hint=hint)
        return HarnessAgent(self.name, path, Outcome.SKIPPED, None, native=dict(native or {}),
                            findings=(finding,))

    def _judge(self, fm: dict[str, Any], body: str, path: Path | None,
               findings: list[Finding], lines: Mapping[str, int]) -> HarnessAgent:
        name_raw, desc_raw = fm.get("name"), fm.get("description")
        if name_raw is None or name_raw == "":
            return self._skip("QW003", 'Missing "name" in frontmatter', path, 1, "name",
                              native=fm)
        if desc_raw is None or desc_raw == "":
            return self._skip("QW003", 'Missing "description" in frontmatter', path,
                              lines.get("name"), "description", native=fm)
        name, description = _yaml12.js_string(name_raw), _yaml12.js_string(desc_raw)
        tools, disallowed = _split(fm.get("tools")), _split(fm.get("disallowedTools"))
        approval_raw = fm.get("approvalMode")
        if approval_raw is not None and not isinstance(approval_raw, str):
            return self._skip("QW004", f'Invalid "approvalMode" value: expected a string, got '
                              f"{_js_typeof(approval_raw)}. Valid values: "
                              f"{', '.join(APPROVAL_MODES)}", path, lines.get("approvalMode"),
                              "approvalMode", native=fm)
        if approval_raw and approval_raw not in APPROVAL_MODES:
            return self._skip("QW004", f'Invalid "approvalMode" value "{approval_raw}". Valid '
                              f"values: {', '.join(APPROVAL_MODES)}", path,
                              lines.get("approvalMode"), "approvalMode", native=fm)
        model_raw = fm.get("model")
        legacy = fm.get("modelConfig")
        model: str | None = (
            _yaml12.js_string(model_raw) if model_raw not in (None, "") else
            legacy["model"] if isinstance(legacy, dict) and isinstance(legacy.get("model"), str)
            else None
        )
        prompt = body.strip()
        errors = _validation_errors(name, description, prompt, tools, disallowed, model,
                                    fm.get("runConfig"))
        if errors:
            return self._skip("QW005", "Validation failed: " + ", ".join(errors), path,
                              lines.get("name"), native=fm,
                              hint="names: 2-50 letters, digits, '-' or '_', not reserved; "
                              "the prompt needs at least 10 characters")
        return self._loaded(fm, name, description, prompt, model, tools, disallowed, path,
                            findings, lines)

    def _loaded(self, fm: dict[str, Any], name: str, description: str, prompt: str,
                model: str | None, tools: list[str] | None, disallowed: list[str] | None,
                path: Path | None, findings: list[Finding],
                lines: Mapping[str, int]) -> HarnessAgent:
        def differs(code: str, key: str, message: str, hint: str | None = None) -> None:
            findings.append(Finding(code, message, Effect.DIFFERS, line=lines.get(key), key=key,
                                    hint=hint))

        color = fm.get("color")
        if "color" in fm and not (isinstance(color, str) and (color in COLORS or color == "auto")):
            differs("QW010", "color", f"{LABEL} drops `color: {_yaml12.js_string(color)}`: it "
                    f"accepts only {', '.join(COLORS)} or auto", "pick one of those colours")
            color = None
        native_tools = self._tools(tools, "tools", differs)
        native_denied = self._tools(disallowed, "disallowedTools", differs)
        permission = fm.get("permissionMode")
        if permission is not None and permission not in PERMISSION_TO_APPROVAL:
            differs("QW012", "permissionMode", f"{LABEL} drops `permissionMode: "
                    f"{_yaml12.js_string(permission)}`; the agent runs in the default mode")
            permission = None
        approval = fm.get("approvalMode") or (
            PERMISSION_TO_APPROVAL[permission] if isinstance(permission, str) else None)
        max_turns = _max_turns(fm.get("maxTurns"))
        if "maxTurns" in fm and max_turns is None:
            differs("QW013", "maxTurns", f"{LABEL} drops `maxTurns: "
                    f"{_yaml12.js_string(fm['maxTurns'])}` (not a positive integer): no limit")
        background = fm.get("background")
        if "background" in fm and background not in (True, False, "true", "false"):
            differs("QW017", "background", f"{LABEL} drops this `background` value")
        servers = fm.get("mcpServers")
        server_map = ({k: v for k, v in servers.items() if isinstance(v, dict)}
                      if isinstance(servers, dict) else {})
        if "mcpServers" in fm and not server_map:
            differs("QW015", "mcpServers", f"{LABEL} reads `mcpServers` only as a mapping of "
                    "server name to its settings; this one is dropped")
        hooks = fm.get("hooks")
        hook_map = ({k: v for k, v in hooks.items() if isinstance(v, list)}
                    if isinstance(hooks, dict) else {})
        if "hooks" in fm and not hook_map:
            differs("QW016", "hooks", f"{LABEL} drops these `hooks` (expected event -> list)")
        for key in IGNORED_CLAUDE_KEYS:
            if key in fm:
                differs("QW014", key, f"{LABEL} does not read `{key}` in agent files; it has "
                        "no effect there")
        definition = AgentDefinition(
            name=name,
            description=description,
            system_prompt=prompt,
            model=model,
            tools=to_claude("qwen", native_tools).names if native_tools is not None else None,
            disallowed_tools=(to_claude("qwen", native_denied).names
                              if native_denied else None),
            permission_mode=permission if isinstance(permission, str) else None,
            color=color if isinstance(color, str) else None,
            max_turns=max_turns,
            background=True if background in (True, "true") else (
                False if background in (False, "false") else None),
            hooks=_hooks(hook_map),
            mcp_servers=tuple(_server(str(k), v) for k, v in server_map.items()),
            extra=({_X: {"approvalMode": fm["approvalMode"]}} if fm.get("approvalMode")
                   else {}),
            path=path,
        )
        native = dict(fm)
        if approval:
            native["approvalMode"] = approval
        return HarnessAgent(self.name, path, Outcome.LOADS, name, description, prompt,
                            model if model and model.strip() != "inherit" else None,
                            native_tools, native, tuple(findings), definition)

    @staticmethod
    def _tools(names: list[str] | None, key: str, differs: Any) -> tuple[str, ...] | None:
        if not names:
            return None  # missing or empty: every tool
        resolved: list[str] = []
        for entry in names:
            tool = resolve_tool(entry)
            if tool is None:
                suggestion = to_native("qwen", (entry,)).names
                hint = f"write `{suggestion[0]}`" if suggestion else None
                what = ("the agent runs without it" if key == "tools"
                        else "it is not taken away")
                differs("QW011", key, f"{LABEL} knows no tool `{entry}` (it matches neither a "
                        f"tool name nor a display name) and drops it: {what}", hint)
            elif tool not in resolved:
                resolved.append(tool)
        return tuple(resolved)

    # ------------------------------------------------------------------ the whole folder

    def load_all(self, project: Path, home: Path) -> list[HarnessAgent]:
        """Every agent file Qwen Code reads for ``project``; the first of a name wins."""
        seen: dict[str, str] = {}
        out: list[HarnessAgent] = []
        for path in self.discover(project, home):
            text = _read(path)
            if text is None:
                out.append(self._skip("QW006", "the file cannot be read as text", path, None))
                continue
            for read in self.read_text(text, path):
                agent_id = read.agent_id
                agent = read
                if read.outcome is Outcome.LOADS and agent_id is not None:
                    if agent_id in seen:
                        agent = replace(read, outcome=Outcome.SKIPPED, findings=(Finding(
                            "QW021", f"{LABEL} uses the {seen[agent_id]} agent of the "
                            "same name; this one is never offered (no warning)", Effect.SKIP,
                            key="name"), *read.findings))
                    else:
                        seen[agent_id] = str(path)
                        if agent_id in BUILTIN_AGENTS:
                            agent = replace(read, findings=(*read.findings, Finding(
                                "QW022", f"this agent replaces {LABEL}'s built-in "
                                f"'{agent_id}'", Effect.INFO, key="name")))
                out.append(agent)
        return out

    # ------------------------------------------------------------------ writing

    def write(self, definition: AgentDefinition) -> WrittenFile:
        name = _qwen_name(definition.name)
        notes: list[str] = []
        if name != definition.name:
            notes.append(f"the name '{definition.name}' became '{name}' ({LABEL} accepts "
                         "2-50 letters, digits, '-' and '_', not starting or ending with "
                         "'-' or '_', and not a reserved word)")
        front: dict[str, Any] = {"name": name,
                                 "description": (definition.description.strip() and
                                 definition.description) or name}
        tools = _write_tools(definition.tools)
        if tools == []:
            tools = ["todo_write"]
            notes.append(f"{LABEL} reads an empty tool list as every tool; the agent gets "
                         "only todo_write instead")
        if tools is not None:
            front["tools"] = tools
        denied = _write_tools(definition.disallowed_tools)
        if denied:
            front["disallowedTools"] = denied
        model = definition.model
        if model and model.strip() and model not in MODEL_ALIASES and not model.startswith(
                "claude"):
            front["model"] = model
        if definition.color in COLORS:
            front["color"] = definition.color
        permission = "default" if definition.permission_mode == "manual" else (
            definition.permission_mode)
        parked = definition.extra.get(_X)
        approval = parked.get("approvalMode") if isinstance(parked, Mapping) else None
        if isinstance(approval, str) and approval in APPROVAL_MODES:
            front["approvalMode"] = approval
        elif permission in PERMISSION_TO_APPROVAL:
            front["permissionMode"] = permission
        if isinstance(definition.max_turns, int) and definition.max_turns > 0:
            front["maxTurns"] = definition.max_turns
        if definition.background is not None:
            front["background"] = definition.background
        servers = {s.name: _server_data(s) for s in definition.mcp_servers if not s.reference}
        servers = {k: v for k, v in servers.items() if v}
        if servers:
            front["mcpServers"] = servers
        if definition.hooks:
            front["hooks"] = hooks_to_data(definition.hooks)
        prompt = definition.system_prompt.strip()
        if len(prompt) < 10:
            prompt = (prompt + "\n\n" if prompt else "") + f"You are the {name} agent."
            notes.append(f"{LABEL} needs a prompt of at least 10 characters; one was added")
        text = "---\n" + _yaml12.dump(front) + "---\n" + prompt + "\n"
        return WrittenFile(SPEC.relpath(name), text, tuple(notes))


def _js_typeof(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return "object"


def _qwen_name(name: str) -> str:
    cleaned = "".join(ch if ch.isalpha() or ch.isnumeric() or ch in "_-" else "-"
                      for ch in name.strip())
    # one `-` per run: a `---` in a name would end a Claude Code frontmatter on the way back
    cleaned = re.sub(r"-{2,}", "-", cleaned).strip("-_")[:50].strip("-_")
    if len(cleaned) < 2 or cleaned.lower() in RESERVED:
        cleaned = (cleaned + "-agent").lstrip("-_") if cleaned else "agent"
    return cleaned


def _write_tools(names: tuple[str, ...] | None) -> list[str] | None:
    if names is None or any(n.strip() == "*" for n in names):
        return None
    out: list[str] = []
    for entry in names:
        bare = entry.split("(", 1)[0].strip()
        tool = resolve_tool(bare)
        candidates = [tool] if tool else list(to_native("qwen", (bare,)).names)
        out.extend(c for c in candidates if c and resolve_tool(c) and c not in out)
    return out


def _hooks(data: Mapping[str, Any]) -> dict[str, tuple[HookMatcher, ...]]:
    out: dict[str, tuple[HookMatcher, ...]] = {}
    for event, groups in data.items():
        matchers = []
        for group in groups:
            if not isinstance(group, dict):
                continue
            commands = tuple(
                HookCommand(type=str(h.get("type", "command")), command=h.get("command"),
                            prompt=h.get("prompt"), timeout=h.get("timeout"))
                for h in group.get("hooks") or () if isinstance(h, dict)
            )
            matcher = group.get("matcher")
            matchers.append(HookMatcher(matcher=matcher if isinstance(matcher, str) else None,
                                        hooks=commands))
        out[str(event)] = tuple(matchers)
    return out


def _server(name: str, spec: Mapping[str, Any]) -> McpServerSpec:
    known = ("command", "args", "env", "url", "type", "headers")
    args = spec.get("args")
    env, headers = spec.get("env"), spec.get("headers")
    return McpServerSpec(
        name=name,
        command=spec["command"] if isinstance(spec.get("command"), str) else None,
        args=tuple(str(a) for a in args) if isinstance(args, list) else (),
        env={str(k): str(v) for k, v in env.items()} if isinstance(env, dict) else {},
        url=spec["url"] if isinstance(spec.get("url"), str) else None,
        type=spec["type"] if isinstance(spec.get("type"), str) else None,
        headers=({str(k): str(v) for k, v in headers.items()}
                 if isinstance(headers, dict) else {}),
        extra={k: v for k, v in spec.items() if k not in known},
    )


def _server_data(spec: McpServerSpec) -> dict[str, Any]:
    data: dict[str, Any] = {k: v for k, v in spec.extra.items() if isinstance(k, str)}
    for key, value in (("command", spec.command), ("url", spec.url), ("type", spec.type)):
        if value:
            data[key] = value
    if spec.args:
        data["args"] = list(spec.args)
    if spec.env:
        data["env"] = dict(spec.env)
    if spec.headers:
        data["headers"] = dict(spec.headers)
    return data


def _read(path: Path) -> str | None:
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError:
        return None
    if len(data) > MAX_FILE_BYTES:
        return None
    return data.decode("utf-8", errors="replace")


HARNESS = QwenHarness()
