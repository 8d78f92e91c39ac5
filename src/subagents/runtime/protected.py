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

from pathlib import PurePath

__all__ = ["PROTECTED_DIRS", "PROTECTED_FILES", "protected_reason"]

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


def protected_reason(path: PurePath) -> str | None:
    """Why writing ``path`` needs explicit permission, or ``None``.

    Judged on the resolved path's components, so ``a/../.git/config`` and a symlink into
    ``.claude`` (resolved by the caller) are caught; names compare ignoring case, since a
    case-insensitive file system would write the same file."""
    parts = [p.casefold() for p in path.parts]
    for name, why in PROTECTED_DIRS.items():
        if name.casefold() in parts[:-1] or (parts and parts[-1] == name.casefold()):
            return f"{name}/ holds {why}"
    leaf = parts[-1] if parts else ""
    for name, why in PROTECTED_FILES.items():
        key = name.casefold()
        if leaf == key or (leaf.startswith(f".{key}.") and leaf.endswith(".tmp")):
            return f"{name} is {why}"
        if key == "agents.json" and leaf.startswith("agents.json.bak"):
            return f"{name} is {why}"
    return None
