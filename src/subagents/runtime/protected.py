"""Paths whose change becomes execution: writes there always need explicit permission.

An agent allowed only to edit files (``acceptEdits``, or an allow rule ``Write``) must not turn
an edit into a command: a new ``.claude/agents/helper.md`` with a hook, a ``.subagents.toml``
that pre-approves ``Bash`` and bypass mode for later runs, ``.git/config``'s
``core.fsmonitor`` (run by the next ``git diff``), a ``.mcp.json`` server, a ``.envrc``.

:func:`protected_reason` says why a path is protected (``None`` if it is not).  The permission
policy (:meth:`PermissionPolicy.decide`) then approves a write there only when:

* the effective mode is ``bypassPermissions`` (which configuration must allow explicitly);
* an allow rule of the tool *with a path specifier* covers the path (``Write(.claude/**)``):
  a plain ``Write``/``Edit`` rule and ``acceptEdits`` do not count;
* or the user answers yes when asked (``dontAsk`` and runs without a terminal refuse).

The list follows what Claude Code protects (its settings and agent folders, ``.git``) plus
what this project reads: its own config (``.subagents.toml``, ``pyproject.toml``),
``agents.json`` stores and their lock and temp files, hook and skill files.  The Bash sandbox
(:mod:`subagents.runtime.sandbox`) mounts the same folders read-only inside the working folder,
so a shell command cannot do what the file tools may not.
"""

from __future__ import annotations

import functools
from pathlib import PurePath

__all__ = ["PROTECTED_DIRS", "PROTECTED_FILES", "PROTECTED_SUBPATHS", "protected_reason"]

#: What the harness table says each harness reads agents, hooks, MCP servers and settings
#: from, used until :func:`subagents.harnesses.table.protected_paths` is there to ask (the
#: table is the one source; this copy only keeps a checkout without it safe).
_HARNESS_FALLBACK: dict[str, str] = {
    ".claude/agents": "Claude Code's agents", ".mcp.json": "Claude Code's MCP server commands",
    ".codex/agents": "Codex CLI's agents", ".codex/config.toml": "Codex CLI's settings",
    ".gemini/agents": "Gemini CLI's agents", ".gemini/settings.json": "Gemini CLI's settings",
    ".opencode/agents": "OpenCode's agents", "opencode.json": "OpenCode's settings",
    "opencode.jsonc": "OpenCode's settings", ".github/agents": "Copilot CLI's agents",
    ".cursor/agents": "Cursor's agents", ".cursor/hooks.json": "Cursor's hook commands",
    ".cursor/mcp.json": "Cursor's MCP server commands", ".cursor/cli.json": "Cursor's settings",
    ".qwen/agents": "Qwen Code's agents", ".qwen/settings.json": "Qwen Code's settings",
    ".factory/droids": "Factory Droid's agents",
    ".factory/settings.json": "Factory Droid's settings",
    ".factory/mcp.json": "Factory Droid's MCP server commands",
}

#: Folders that are not a harness's own even though one harness reads a part of them:
#: only that part is protected (``.github/agents``, not ``.github/workflows``).
_SHARED_FOLDERS = frozenset({".github", ".config"})


def _harness_paths() -> dict[str, str]:
    import importlib

    try:
        table = importlib.import_module("subagents.harnesses.table")
    except ImportError:
        return dict(_HARNESS_FALLBACK)
    paths = getattr(table, "protected_paths", None)
    return dict(paths()) if callable(paths) else dict(_HARNESS_FALLBACK)


@functools.cache
def _derived() -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    """(folders by name, files by name, multi-part paths) from the harness table: a hidden
    folder a harness owns is protected whole (it keeps agents, hooks, commands and settings
    together); in a shared folder only the harness's own part; a top-level file by name."""
    dirs: dict[str, str] = {}
    files: dict[str, str] = {}
    sub: dict[str, str] = {}
    for path, why in _harness_paths().items():
        parts = path.split("/")
        if len(parts) == 1:
            files.setdefault(parts[0], why)
        elif parts[0].startswith(".") and parts[0] not in _SHARED_FOLDERS:
            owner = why.split("'s ")[0]
            dirs.setdefault(parts[0], f"{owner}'s agents, hooks and settings")
        else:
            sub.setdefault(path, why)
    return dirs, files, sub

#: A path with any of these as a component is protected.
PROTECTED_DIRS: dict[str, str] = {
    ".claude": "Claude Code's agents, hooks, skills and settings",
    ".codex": "Codex's agents and config",
    ".git": "git's config and hooks (core.fsmonitor, hooks/ run on the next git command)",
    ".subagents": "this tool's own data",
    ".githooks": "git hook scripts",
    ".husky": "git hook scripts",
}

#: Files protected by name wherever they are.
PROTECTED_FILES: dict[str, str] = {
    ".subagents.toml": "this project's configuration (permission rules, bypass mode)",
    "pyproject.toml": "this project's configuration ([tool.subagents]) and build hooks",
    "agents.json": "an agent store",
    "agents.json.lock": "an agent store's lock",
    ".mcp.json": "MCP servers (commands started by the harness)",
    ".envrc": "a direnv script (run when the folder is entered)",
    ".pre-commit-config.yaml": "git hook configuration",
    ".gitmodules": "git submodule configuration",
    "SKILL.md": "a skill (loaded into agents' prompts)",
    "hooks.json": "hook commands",
    "settings.json": "harness settings (hooks, permissions)",
    "settings.local.json": "harness settings (hooks, permissions)",
}


_dirs, _files, _sub = _derived()
for _name, _why in _dirs.items():
    PROTECTED_DIRS.setdefault(_name, _why)
for _name, _why in _files.items():
    PROTECTED_FILES.setdefault(_name, _why)
#: Paths of several parts protected wherever they appear (``.github/agents``).
PROTECTED_SUBPATHS: dict[str, str] = dict(_sub)


def protected_reason(path: PurePath) -> str | None:
    """Why writing ``path`` needs explicit permission, or ``None``.

    Judged on the resolved path's components, so ``a/../.git/config`` and a symlink into
    ``.claude`` (resolved by the caller) are caught; names compare ignoring case, since a
    case-insensitive file system would write the same file."""
    parts = [p.casefold() for p in path.parts]
    for name, why in PROTECTED_DIRS.items():
        if name.casefold() in parts[:-1] or (parts and parts[-1] == name.casefold()):
            return f"{name}/ holds {why}"
    for name, why in PROTECTED_SUBPATHS.items():
        want = name.casefold().split("/")
        if any(parts[i:i + len(want)] == want for i in range(len(parts) - len(want) + 1)):
            return f"{name}/ holds {why}"
    leaf = parts[-1] if parts else ""
    for name, why in PROTECTED_FILES.items():
        key = name.casefold()
        # (as a folder too: `.mcp.json/x` replaced by a file would be the harness's file)
        if leaf == key or key in parts[:-1] or (leaf.startswith(f".{key}.")
                                                 and leaf.endswith(".tmp")):
            return f"{name} is {why}"
        if key == "agents.json" and leaf.startswith("agents.json.bak"):
            return f"{name} is {why}"
    return None
