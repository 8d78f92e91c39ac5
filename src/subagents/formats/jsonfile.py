"""JSON agents: ``agents.json`` (NanoClaw), ``--agents '<json>'`` and the Agent SDK.

Shape: ``{name: {description, prompt, tools?, model?, ...}}``.  Keys may be camelCase (the SDK
wire form: ``disallowedTools``, ``maxTurns``, ``mcpServers``, ``permissionMode``,
``initialPrompt``) or snake_case.  The object key is the agent's name.

Python's ``json`` module gives no positions for keys, so after a successful parse we scan the
text once with a tiny tokenizer to find the line and column of each top-level key and of each
field key inside an entry (strings are skipped properly, so a `"name":` inside a prompt does
not confuse it).  Duplicate keys, which ``json`` silently collapses, are reported (``SA007``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from subagents._lazy_re import lazy_compile
from subagents.definition import AgentDefinition, Dialect, SourceLocation
from subagents.formats.fields import RawField, build_definition
from subagents.formats.yamltree import YamlIssue

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["read_json_text"]

_STRING_RE = lazy_compile(r'"(?:[^"\\]|\\.)*"', re.S)


def read_json_text(
    text: str, *, path: Path | None
) -> tuple[list[AgentDefinition], list[YamlIssue]]:
    issues: list[YamlIssue] = []
    if not text.strip():
        return [], [YamlIssue("SA012", "the file is empty", 1, 1, "write `{}` for no agents")]
    duplicates: list[str] = []

    def pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        for k, v in pairs:
            if k in seen:
                duplicates.append(k)
            seen[k] = v
        return seen

    try:
        data = json.loads(text, object_pairs_hook=pairs_hook)
    except json.JSONDecodeError as exc:
        return [], [
            YamlIssue(
                "SA016",
                f"invalid JSON: {exc.msg}",
                exc.lineno,
                exc.colno,
                "check for a missing comma or quote, or a truncated file",
            )
        ]
    except RecursionError:
        return [], [YamlIssue("SA016", "invalid JSON: nested too deeply", 1, 1)]
    if not isinstance(data, dict):
        return [], [
            YamlIssue(
                "SA016",
                f"the JSON must be an object of agents by name, not {type(data).__name__}",
                1,
                1,
                '{"my-agent": {"description": "...", "prompt": "..."}}',
            )
        ]
    positions = _key_positions(text)
    for key in duplicates:
        line, col = positions.get((key, None), (1, 1))
        issues.append(
            YamlIssue("SA007", f"duplicate key `{key}`: JSON keeps only the last", line, col,
                      key=key)
        )
    definitions: list[AgentDefinition] = []
    for name, entry in data.items():
        line, col = positions.get((name, None), (1, 1))
        where = SourceLocation(line, col)
        if not isinstance(name, str) or not isinstance(entry, dict):
            issues.append(
                YamlIssue(
                    "SA014",
                    f"agent `{name}` must be an object with description and prompt, "
                    f"not {type(entry).__name__}",
                    line,
                    col,
                )
            )
            continue
        raw = [
            RawField(
                key,
                value,
                SourceLocation(*positions[(name, key)]) if (name, key) in positions else where,
            )
            for key, value in entry.items()
            if key != "name"
        ]
        if "name" in entry and entry["name"] != name:
            issues.append(
                YamlIssue(
                    "SA014",
                    f"`name` {entry['name']!r} inside agent `{name}` is ignored: "
                    "the object key is the name",
                    *positions.get((name, "name"), (line, col)),
                    key="name",
                )
            )
        definition, field_issues = build_definition(
            raw, dialect=Dialect.JSON, path=path, name=name, default_location=where
        )
        definitions.append(definition.evolve(locations={"name": where, **definition.locations}))
        issues.extend(field_issues)
    return definitions, issues


def _key_positions(text: str) -> dict[tuple[str, str | None], tuple[int, int]]:
    """(agent, None) -> position of the agent key; (agent, field) -> position of a field key.

    Walks the text tracking object depth; only keys at depth 1 (agents) and 2 (fields) count.
    """
    result: dict[tuple[str, str | None], tuple[int, int]] = {}
    line_starts = [0]
    line_starts.extend(nl.end() for nl in re.finditer("\n", text))

    def where(offset: int) -> tuple[int, int]:
        lo, hi = 0, len(line_starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if line_starts[mid] <= offset:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1, offset - line_starts[lo] + 1

    depth = 0
    stack: list[str] = []  # '{' or '['
    agent: str | None = None
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            sm = _STRING_RE.match(text, i)
            if sm is None:
                break
            end = sm.end()
            j = end
            while j < n and text[j] in " \t\r\n":
                j += 1
            is_key = j < n and text[j] == ":" and stack and stack[-1] == "{"
            if is_key:
                try:
                    key = json.loads(sm.group(0))
                except json.JSONDecodeError:
                    key = sm.group(0)[1:-1]
                if depth == 1:
                    agent = key
                    result.setdefault((key, None), where(i))
                elif depth == 2 and agent is not None:
                    result.setdefault((agent, key), where(i))
            i = end
            continue
        if ch in "{[":
            stack.append(ch)
            if ch == "{":
                depth += 1
        elif ch in "}]" and stack and stack.pop() == "{":
            depth -= 1
        i += 1
    return result
