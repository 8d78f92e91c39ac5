"""Hover and completion for agent files: the field reference, rule explanations, value sets.

Design notes
------------
* Plain Python, no pygls; 0-based lines, code-point columns.
* Hover: on a key, what the field does for the file's harness (the reference below; for a
  harness other than Claude Code, which of its keys it is and what Claude Code would call it);
  on a diagnostic, the rule's explanation (``subagents explain``), both when both apply.
* Completion is by context, read from the current line and the lines above it -- never a YAML
  parse, since the text being typed is rarely valid YAML: at the start of a frontmatter line,
  the keys of the file's harness that are not there yet; after ``tools:``/``disallowedTools:``
  (or in their list), tool names; after ``model:``, ``color:``, ``permissionMode:``,
  ``effort:``, ``isolation:``, ``memory:``, their values; one level under ``hooks:``, the hook
  events.  Values come from the Claude Code version the configuration names (``claude-code``),
  through :func:`subagents.claude_code.get_profile`, so they change with the recorded version.
* The reference is our own words, kept short; the value sets are not repeated in it (they come
  from the profile).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from subagents.definition import Dialect

if TYPE_CHECKING:
    from subagents.claude_code import ClaudeCodeProfile
    from subagents.lsp.analysis import Finding

__all__ = ["FIELD_DOCS", "Completion", "completions", "hover_text", "key_at", "keys_for"]

#: What each Claude Code frontmatter key does (Markdown, one or two sentences).
FIELD_DOCS: Mapping[str, str] = {
    "name": "The agent's id: how it is called (`@name`, the Task tool's `subagent_type`). "
            "Lowercase letters, digits and hyphens travel best between harnesses.",
    "description": "When the main thread should hand work to this agent. Claude Code reads it "
                   "to choose an agent, so say what it does and when to use it.",
    "model": "The model the agent runs on: an alias (`sonnet`, `opus`, `haiku`), a full "
             "model id, or `inherit` (the default: the parent's model).",
    "tools": "Allowlist of the tools the agent may use, as a comma-separated string or a "
             "YAML list; omitted, the agent gets every tool the parent has. "
             "`mcp__server__tool` names an MCP tool, `Agent(a, b)` limits sub-agents.",
    "disallowedTools": "Tools taken away from the agent (applied before `tools`).",
    "color": "The colour of the agent's name in Claude Code's interface; any other value "
             "is dropped.",
    "permissionMode": "How the agent's tool calls are approved (for example `plan` to only "
                      "read, `acceptEdits` to accept file edits).",
    "maxTurns": "The most turns the agent takes before it stops; a positive integer.",
    "autoCompactWindow": "A key Claude Code reads for this agent's context compaction; "
                         "subagents does not judge its value.",
    "initialPrompt": "A first user message sent when the agent starts as the main thread.",
    "memory": "Persistent memory for the agent: `user`, `project` or `local`.",
    "background": "`true` runs the agent in the background by default.",
    "omitClaudeMd": "`true` leaves the CLAUDE.md files out of the agent's context.",
    "isolation": "`worktree` runs the agent in its own git worktree.",
    "effort": "The reasoning effort the agent's model uses.",
    "skills": "Skills loaded into the agent's context when it starts.",
    "mcpServers": "MCP servers for this agent only: a mapping of name to server, or names "
                  "of servers configured elsewhere.",
    "hooks": "Hooks active only while this agent runs, keyed by hook event; a `Stop` hook "
             "runs when the agent stops (`SubagentStop`).",
    "observer": "A key Claude Code reads for observer agents; subagents does not judge "
                "its value.",
    "observerMessage": "A key Claude Code reads for observer agents; subagents does not "
                       "judge its value.",
    "observeSubagents": "A key Claude Code reads for observer agents; subagents does not "
                        "judge its value.",
    "observeToolResults": "A key Claude Code reads for observer agents; subagents does not "
                          "judge its value.",
}

_HARNESS_LABELS: Mapping[Dialect, str] = {
    Dialect.CLAUDE: "Claude Code", Dialect.CODEX: "Codex CLI", Dialect.CODEX_MD: "Codex (Markdown)",
    Dialect.GEMINI: "Gemini CLI", Dialect.OPENCODE: "OpenCode", Dialect.COPILOT: "Copilot CLI",
    Dialect.CURSOR: "Cursor", Dialect.QWEN: "Qwen Code", Dialect.FACTORY: "Factory (droids)",
    Dialect.JSON: "agents.json",
}
# another harness's key -> the Claude Code field it corresponds to (for the hover)
_SAME_AS: Mapping[str, str] = {
    "developer_instructions": "the body (system prompt)", "prompt": "the body (system prompt)",
    "max_turns": "maxTurns", "maxSteps": "maxTurns", "steps": "maxTurns",
    "mcp_servers": "mcpServers", "mcp-servers": "mcpServers",
    "model_reasoning_effort": "effort", "reasoningEffort": "effort",
    "display_name": "name (shown)", "readonly": "tools without Write/Edit/Bash",
}

_KEY_LINE = re.compile(r"""^(\s*)(?:"([^"\\]+)"|'([^'\\]+)'|([A-Za-z_][\w.-]*))\s*[:=]""")
_VALUE_KEYS = ("model", "color", "permissionMode", "effort", "isolation", "memory")


@dataclass(frozen=True, slots=True)
class Completion:
    label: str
    kind: str  # "field", "tool", "value", "event"
    detail: str = ""
    documentation: str = ""


def _profile(version: str | None) -> ClaudeCodeProfile:
    from subagents.claude_code import get_profile
    from subagents.errors import SubagentError

    try:
        return get_profile(version)
    except SubagentError:
        return get_profile()


def keys_for(dialect: Dialect, version: str | None = None) -> tuple[str, ...]:
    """The keys the file's harness reads, in a stable order."""
    if dialect in (Dialect.CLAUDE, Dialect.CODEX_MD, Dialect.JSON):
        known = _profile(version).known_keys
        return tuple(k for k in FIELD_DOCS if k in known) + tuple(sorted(known - set(FIELD_DOCS)))
    if dialect is Dialect.QWEN:
        from subagents.harnesses.qwen import IGNORED_CLAUDE_KEYS

        known = _profile(version).known_keys
        return tuple(k for k in FIELD_DOCS if k in known and k not in IGNORED_CLAUDE_KEYS)
    if dialect is Dialect.CODEX:
        return ("name", "description", "developer_instructions", "model",
                "model_reasoning_effort", "nickname_candidates", "mcp_servers")
    if dialect is Dialect.GEMINI:
        from subagents.harnesses._gemini_schema import LOCAL_KEYS

        return LOCAL_KEYS
    if dialect is Dialect.OPENCODE:
        from subagents.harnesses.opencode_schema import SCHEMA_KEYS

        return SCHEMA_KEYS
    if dialect is Dialect.COPILOT:
        from subagents.harnesses.copilot import KNOWN_KEYS

        return tuple(sorted(KNOWN_KEYS))
    if dialect is Dialect.CURSOR:
        from subagents.harnesses.cursor import FIELDS

        return FIELDS
    from subagents.harnesses.factory import FIELDS as FACTORY_FIELDS

    return FACTORY_FIELDS


def tools_for(dialect: Dialect, extra: Iterable[str] = ()) -> tuple[str, ...]:
    """Tool names the harness's ``tools`` field takes."""
    if dialect is Dialect.GEMINI:
        from subagents.harnesses._gemini_schema import BUILTIN_TOOL_NAMES

        return tuple(sorted(BUILTIN_TOOL_NAMES))
    if dialect is Dialect.OPENCODE:
        from subagents.harnesses.opencode import OPT_IN_TOOLS, SUBAGENT_TOOLS

        return (*SUBAGENT_TOOLS, *OPT_IN_TOOLS)
    if dialect is Dialect.QWEN:
        from subagents.harnesses._qwen_tools import QWEN_TOOL_LOOKUP

        return tuple(sorted(set(QWEN_TOOL_LOOKUP)))
    if dialect is Dialect.COPILOT:
        from subagents.harnesses.copilot import ALIASES

        return tuple(sorted(ALIASES))
    from subagents.known_tools import BUILTIN_TOOLS

    return tuple(sorted({*BUILTIN_TOOLS, *extra}))


def key_at(line: str, column: int) -> str | None:
    """The key written at the start of ``line`` when ``column`` is on it."""
    m = _KEY_LINE.match(line)
    if m is None:
        return None
    key = m.group(2) or m.group(3) or m.group(4)
    start = len(m.group(1))
    end = m.end() - 1
    return key if start <= column <= end else None


def field_doc(key: str, dialect: Dialect, version: str | None = None) -> str | None:
    """Markdown for a key of the file's harness; None when the harness does not read it."""
    label = _HARNESS_LABELS.get(dialect, str(dialect))
    keys = keys_for(dialect, version)
    if dialect in (Dialect.CLAUDE, Dialect.CODEX_MD, Dialect.JSON, Dialect.QWEN):
        doc = FIELD_DOCS.get(key)
        if doc is not None and key in keys:
            return f"**{key}** ({label})\n\n{doc}"
        if key in FIELD_DOCS:
            return f"**{key}**: {label} does not read this key.\n\n{FIELD_DOCS[key]}"
        return None
    if key not in keys:
        return None
    text = f"**{key}**: a key {label} reads."
    same = _SAME_AS.get(key) or (key if key in FIELD_DOCS else None)
    if same is not None:
        text += f" Claude Code's counterpart: `{same}`."
        if same in FIELD_DOCS:
            text += f"\n\n{FIELD_DOCS[same]}"
    return text


def rule_doc(code: str) -> str | None:
    """Markdown for a rule: ``subagents explain CODE``, shortened for a hover."""
    from subagents.lint.rules.catalog import harness_family
    from subagents.lint.rules.explanations import explanation_for

    found = explanation_for(code)
    if found is None:
        family = harness_family(code)
        if family is None:
            return None
        return (f"**{code.upper()}**: a finding of {family[1]}'s own reading of the file. "
                "The message says what that harness does with it.")
    rule, expl = found
    out = [f"**{rule.code} {rule.name}**: {rule.doc}", "", expl.checks]
    if expl.claude_code:
        out += ["", f"*What Claude Code does:* {expl.claude_code}"]
    if expl.fix:
        out += ["", f"*Fix:* {expl.fix}"]
    out += ["", f"`subagents explain {rule.code}` says more."]
    return "\n".join(out)


def hover_text(lines: Sequence[str], line: int, column: int, dialect: Dialect,
               findings: Sequence[Finding], version: str | None = None) -> str | None:
    """The hover at a position: the field's doc on a key, the rule's on a diagnostic."""
    parts: list[str] = []
    if 0 <= line < len(lines) and _in_header(lines, line, dialect):
        key = key_at(lines[line], column)
        if key is not None:
            doc = field_doc(key, dialect, version)
            if doc is not None:
                parts.append(doc)
    seen: set[str] = set()
    for f in findings:
        if f.line == line and f.start <= column <= max(f.end, f.start + 1):
            code = f.diagnostic.rule
            if code in seen:
                continue
            seen.add(code)
            doc = rule_doc(code)
            if doc is not None:
                parts.append(doc)
    return "\n\n---\n\n".join(parts) or None


def _frontmatter_end(lines: Sequence[str]) -> int | None:
    """The 0-based line of the closing ``---`` (None without a frontmatter); an unclosed
    frontmatter runs to the end."""
    if not lines or lines[0].rstrip() != "---":
        return None
    for i in range(1, min(len(lines), 5000)):
        if lines[i].rstrip() in ("---", "..."):
            return i
    return len(lines)


def _in_header(lines: Sequence[str], line: int, dialect: Dialect) -> bool:
    """Is ``line`` where keys are written (the frontmatter of a Markdown file; anywhere in a
    TOML or JSON file)?"""
    if dialect is Dialect.CODEX or dialect is Dialect.JSON:
        return True
    if dialect is Dialect.OPENCODE and (not lines or not lines[0].startswith("---")):
        return True  # opencode.json
    end = _frontmatter_end(lines)
    return end is not None and 0 < line < end


def _parent_key(lines: Sequence[str], line: int) -> tuple[str | None, int]:
    """The nearest key above ``line`` with less indentation, and that indentation."""
    here = lines[line]
    indent = len(here) - len(here.lstrip())
    for i in range(line - 1, -1, -1):
        text = lines[i]
        if not text.strip() or text.lstrip().startswith("#"):
            continue
        own = len(text) - len(text.lstrip())
        if own < indent or (own == indent and here.lstrip().startswith("- ")):
            m = _KEY_LINE.match(text)
            if m is None:
                return None, own
            return m.group(2) or m.group(3) or m.group(4), own
        if own == 0:
            break
    return None, 0


def completions(lines: Sequence[str], line: int, column: int, dialect: Dialect, *,
                version: str | None = None, extra_tools: Iterable[str] = ()
                ) -> list[Completion]:
    """What may be written at a position."""
    if not 0 <= line < len(lines) or not _in_header(lines, line, dialect):
        return []
    text = lines[line]
    before = text[:column]
    label = _HARNESS_LABELS.get(dialect, str(dialect))
    m = _KEY_LINE.match(before)
    if m is not None and m.group(1) == "":  # `key: value|` at the top level
        key = m.group(2) or m.group(3) or m.group(4)
        return _values(key, dialect, before[m.end():], version, extra_tools)
    stripped = before.strip()
    parent, _indent = _parent_key(lines, line)
    if parent in ("tools", "disallowedTools", "disallowed_tools") and (
            stripped.startswith("-") or not stripped):
        return [Completion(t, "tool", f"{label} tool")
                for t in tools_for(dialect, extra_tools)]
    if parent == "hooks" and ":" not in stripped:
        profile = _profile(version)
        return [Completion(e, "event", f"hook event ({profile.label})")
                for e in profile.hook_events]
    if m is None and (not before[: len(before) - len(before.lstrip())]) and ":" not in before:
        written = _written_keys(lines)
        return [Completion(k, "field", f"{label} key",
                           FIELD_DOCS.get(k, "") if dialect in (
                               Dialect.CLAUDE, Dialect.CODEX_MD, Dialect.QWEN) else "")
                for k in keys_for(dialect, version) if k not in written]
    return []


def _written_keys(lines: Sequence[str]) -> set[str]:
    out: set[str] = set()
    for text in lines[:2000]:
        m = _KEY_LINE.match(text)
        if m is not None and not m.group(1):
            out.add(m.group(2) or m.group(3) or m.group(4))
    return out


def _values(key: str, dialect: Dialect, after: str, version: str | None,
            extra_tools: Iterable[str]) -> list[Completion]:
    profile = _profile(version)
    if key in ("tools", "disallowedTools", "disallowed_tools"):
        return [Completion(t, "tool", "tool") for t in tools_for(dialect, extra_tools)]
    if key not in _VALUE_KEYS or dialect not in (Dialect.CLAUDE, Dialect.CODEX_MD):
        return []
    values: Sequence[str]
    if key == "model":
        values = (*profile.model_ids, "inherit", *sorted(set(profile.model_ids.values())))
    elif key == "color":
        values = profile.colors
    elif key == "permissionMode":
        values = profile.permission_modes
    elif key == "effort":
        values = profile.efforts
    elif key == "isolation":
        values = profile.isolations
    else:
        values = profile.memories
    del after
    return [Completion(v, "value", f"{key} ({profile.label})") for v in values]
