"""What a Claude Code release's published typings name: tools, hook events, agent fields.

The npm package ``@anthropic-ai/claude-code`` ships ``sdk-tools.d.ts`` (one ``XInput`` interface
per tool); the Agent SDK package (``@anthropic-ai/claude-agent-sdk``, whose ``package.json``
names the Claude Code version it belongs to) ships ``sdk.d.ts`` with ``BUILTIN_TOOL_NAMES``,
``HOOK_EVENTS`` and the ``AgentDefinition`` type.  Both are generated files with a stable shape,
so a few regular expressions read them; a file that is missing or holds none of these yields
empty lists, never an error (the report then says what was not found).

Design decision: the SDK's lists win where both exist; from ``sdk-tools.d.ts`` alone the tool
names are the interface names without ``Input`` (``FileReadInput`` is ``Read``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Typings", "read_typings"]

_CONST = r"export declare const {name}: readonly \[([^\]]*)\]"
_INPUTS = re.compile(r"export type ToolInputSchemas =((?:\s*\|\s*\w+)+);")
_AGENT_DEF = re.compile(r"export declare type AgentDefinition = \{(.*?)\n\};", re.S)
_FIELD = re.compile(r"^ {4}(\w+)\??:", re.M)
# interface names that are not the tool's name
_RENAMED = {"FileRead": "Read", "FileEdit": "Edit", "FileWrite": "Write",
            "ListMcpResources": "ListMcpResourcesTool", "ReadMcpResource": "ReadMcpResourceTool",
            "ReadMcpResourceDir": "ReadMcpResourceDirTool", "ProposeSkills": "propose_skills"}
_NOT_TOOLS = {"Mcp", "ToolOutputSchemas"}


@dataclass(frozen=True, slots=True)
class Typings:
    tools: tuple[str, ...] = ()
    hook_events: tuple[str, ...] = ()
    agent_fields: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()  # the files read, for the report


def _strings(text: str, name: str) -> tuple[str, ...]:
    match = re.search(_CONST.format(name=name), text)
    return tuple(re.findall(r"'([^']*)'", match.group(1))) if match else ()


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def read_typings(package: Path | None, sdk: Path | None = None) -> Typings:
    """Read the typings of a Claude Code package folder and, when given, its Agent SDK's."""
    tools: tuple[str, ...] = ()
    events: tuple[str, ...] = ()
    fields: tuple[str, ...] = ()
    sources: list[str] = []
    if sdk is not None and (text := _read(sdk / "sdk.d.ts")) is not None:
        sources.append("@anthropic-ai/claude-agent-sdk/sdk.d.ts")
        tools = _strings(text, "BUILTIN_TOOL_NAMES")
        events = _strings(text, "HOOK_EVENTS")
        if match := _AGENT_DEF.search(text):
            fields = tuple(_FIELD.findall(match.group(1)))
    if not tools and package is not None and (text := _read(package / "sdk-tools.d.ts")):
        sources.append("@anthropic-ai/claude-code/sdk-tools.d.ts")
        if match := _INPUTS.search(text):
            names = [n.strip() for n in match.group(1).split("|") if n.strip()]
            tools = tuple(sorted(
                _RENAMED.get(base, base) for n in names
                if (base := n.removesuffix("Input")) not in _NOT_TOOLS and n.endswith("Input")))
    return Typings(tuple(sorted(set(tools))), events, fields, tuple(sources))
