"""Tool names across harnesses: Claude Code's names and each harness's own.

One table, read both ways.  ``to_native("gemini", ("Read", "Grep"))`` gives Gemini CLI's names
for a Claude allowlist and the Claude names it could not place; ``to_claude("gemini",
("read_file",))`` goes back.  The table is what the harnesses' CLIs were seen to offer
(``FORMATS.md`` in the project's shared notes; the recordings under ``conformance/data``), not
what their docs say.

Design notes
------------
* A Claude name may map to several native names (Gemini ``Read`` is ``read_file`` and
  ``read_many_files``), and several Claude names may share one native name (Copilot's ``edit``
  alias covers Edit, MultiEdit and Write).  Going back, a native name gives the *first* Claude
  name listed for it, so ``Read`` → ``read``/``view`` → ``Read`` round-trips, and
  ``Write`` → Copilot ``edit`` → ``Edit`` is reported by the converter as a change.
* Names the table does not know are returned in ``unmapped``; each writer decides (Gemini must
  drop them, since one unknown name rejects the file; Copilot ignores unknown names; Qwen keeps
  what it can resolve).
* MCP tools have a per-harness spelling: Claude ``mcp__srv__tool``, Gemini ``mcp_srv_tool``,
  Copilot ``srv/tool``, Qwen keeps Claude's spelling.
* Codex and Cursor have no per-agent tool list; they are not in the table and every name is
  ``unmapped`` for them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from subagents.known_tools import canonical_tool_name

__all__ = [
    "HARNESSES_WITH_TOOL_LISTS",
    "TOOL_TABLE",
    "Translation",
    "markdown_table",
    "to_claude",
    "to_native",
]

# Claude name -> harness -> native names (all are written; going back, each gives the first
# Claude name that lists it).
TOOL_TABLE: Mapping[str, Mapping[str, tuple[str, ...]]] = {
    "Read": {"gemini": ("read_file", "read_many_files"), "opencode": ("read",),
             "copilot": ("read",), "qwen": ("read_file",), "factory": ("Read",)},
    "Write": {"gemini": ("write_file",), "opencode": ("write",), "copilot": ("edit",),
              "qwen": ("write_file",), "factory": ("Create",)},
    "Edit": {"gemini": ("replace",), "opencode": ("edit",), "copilot": ("edit",),
             "qwen": ("edit",), "factory": ("Edit",)},
    "MultiEdit": {"gemini": ("replace",), "opencode": ("edit",), "copilot": ("edit",),
                  "qwen": ("edit",), "factory": ("Edit",)},
    "NotebookEdit": {"copilot": ("edit",), "qwen": ("notebook_edit",)},
    "Bash": {"gemini": ("run_shell_command",), "opencode": ("bash",), "copilot": ("execute",),
             "qwen": ("run_shell_command",), "factory": ("Execute",)},
    "Grep": {"gemini": ("grep_search",), "opencode": ("grep",), "copilot": ("search",),
             "qwen": ("grep_search",), "factory": ("Grep",)},
    "Glob": {"gemini": ("glob",), "opencode": ("glob",), "copilot": ("search",),
             "qwen": ("glob",), "factory": ("Glob",)},
    "LS": {"gemini": ("list_directory",), "opencode": ("list",), "qwen": ("list_directory",),
           "factory": ("LS",)},
    "WebFetch": {"gemini": ("web_fetch",), "opencode": ("webfetch",), "copilot": ("web",),
                 "qwen": ("web_fetch",), "factory": ("FetchUrl",)},
    "WebSearch": {"gemini": ("google_web_search",), "opencode": ("websearch",),
                  "copilot": ("web",), "qwen": ("web_search",), "factory": ("WebSearch",)},
    "TodoWrite": {"gemini": ("write_todos",), "opencode": ("todowrite",), "copilot": ("todo",),
                  "qwen": ("todo_write",), "factory": ("TodoWrite",)},
    "Agent": {"opencode": ("task",), "copilot": ("agent",), "qwen": ("agent",)},
    "Skill": {"gemini": ("activate_skill",), "opencode": ("skill",), "qwen": ("skill",)},
    "AskUserQuestion": {"gemini": ("ask_user",), "opencode": ("question",)},
}

HARNESSES_WITH_TOOL_LISTS: tuple[str, ...] = ("gemini", "opencode", "copilot", "qwen", "factory")

_MCP_CLAUDE = re.compile(r"^mcp__([^_][^\s]*?)__(.+)$")


@dataclass(frozen=True, slots=True)
class Translation:
    names: tuple[str, ...]  # translated names, in first-seen order, without duplicates
    unmapped: tuple[str, ...]  # input names the table could not place


def _mcp_to_native(harness: str, name: str) -> str | None:
    match = _MCP_CLAUDE.match(name)
    server, tool = (match.group(1), match.group(2)) if match else (None, None)
    if server is None and name.startswith("mcp__") and name.count("__") == 1:
        server, tool = name[len("mcp__"):], "*"
    if server is None or tool is None:
        return None
    if harness == "gemini":
        return f"mcp_{server}_{tool}"
    if harness == "copilot":
        return f"{server}/{tool}"
    if harness == "qwen":
        return name
    return None


def to_native(harness: str, claude_names: Iterable[str]) -> Translation:
    """Claude tool names -> ``harness``'s names (duplicates folded, order kept)."""
    out: list[str] = []
    unmapped: list[str] = []
    for name in claude_names:
        bare = name.split("(", 1)[0].strip()  # "Bash(git diff:*)" is Bash for other harnesses
        native = TOOL_TABLE.get(canonical_tool_name(bare), {}).get(harness)  # Task = Agent
        if native is None:
            mcp = _mcp_to_native(harness, bare)
            native = (mcp,) if mcp is not None else None
        if native is None:
            unmapped.append(name)
            continue
        for item in native:
            if item not in out:
                out.append(item)
    return Translation(tuple(out), tuple(unmapped))


def _reverse(harness: str) -> dict[str, str]:
    back: dict[str, str] = {}
    for claude, per_harness in TOOL_TABLE.items():
        for native in per_harness.get(harness, ()):
            back.setdefault(native.lower() if harness == "copilot" else native, claude)
    return back


def to_claude(harness: str, native_names: Iterable[str]) -> Translation:
    """``harness``'s tool names -> Claude names; names the table lacks are kept as written."""
    back = _reverse(harness)
    out: list[str] = []
    unmapped: list[str] = []
    for name in native_names:
        key = name.lower() if harness == "copilot" else name
        claude = back.get(key)
        if claude is None:
            claude = _mcp_to_claude(harness, name)
        if claude is None:
            unmapped.append(name)
            claude = name
        if claude not in out:
            out.append(claude)
    return Translation(tuple(out), tuple(unmapped))


def _mcp_to_claude(harness: str, name: str) -> str | None:
    if harness == "gemini" and name.startswith("mcp_") and name.count("_") >= 2:
        server, _, tool = name[len("mcp_"):].partition("_")
        return f"mcp__{server}__{tool}"
    if harness == "copilot" and "/" in name:
        server, _, tool = name.partition("/")
        return f"mcp__{server}__{tool}"
    if harness == "qwen" and name.startswith("mcp__"):
        return name
    return None


def markdown_table() -> str:
    """The crosswalk as the Markdown table of ``docs/harnesses.md`` (a test keeps them equal)."""
    lines = ["| Claude Code | " + " | ".join(HARNESSES_WITH_TOOL_LISTS) + " |",
             "|---|" + "---|" * len(HARNESSES_WITH_TOOL_LISTS)]
    for claude, per_harness in TOOL_TABLE.items():
        cells = [", ".join(f"`{n}`" for n in per_harness.get(h, ())) or "—"
                 for h in HARNESSES_WITH_TOOL_LISTS]
        lines.append(f"| `{claude}` | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
