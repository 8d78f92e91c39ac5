"""Which plugin an agent file belongs to: the plugin manifest's name and agent paths.

Split from :mod:`subagents.harnesses.layout` so that ``validate`` asks "is this file a plugin's
agent?" for every file it reads without importing the scope planner and the folder scan
(``subagents validate one.md`` at the prompt pays for every module it imports).
:mod:`subagents.harnesses.layout` re-exports these names.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

__all__ = ["plugin_agent_paths", "plugin_namespace", "plugin_of"]


def _manifest(plugin_dir: Path) -> dict[str, object]:
    try:
        data = json.loads((plugin_dir / ".claude-plugin" / "plugin.json").read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def plugin_namespace(plugin_dir: Path) -> str:
    """A plugin's name: ``.claude-plugin/plugin.json`` ``name`` if readable, else the folder."""
    name = _manifest(plugin_dir).get("name")
    if isinstance(name, str) and name.strip():
        return name.strip()
    return plugin_dir.resolve().name or "plugin"


def plugin_agent_paths(plugin_dir: Path) -> list[Path]:
    """Where a plugin's agents are: ``agents/``, or what the manifest's ``agents`` names.

    Measured on 2.1.332: a manifest ``agents`` entry (a path or a list of paths, relative to the
    plugin folder) *replaces* ``agents/`` -- that folder is then not read at all.
    """
    listed = _manifest(plugin_dir).get("agents")
    entries = [listed] if isinstance(listed, str) else listed if isinstance(listed, list) else None
    if entries is None:
        return [plugin_dir / "agents"]
    return [plugin_dir / e for e in entries if isinstance(e, str) and e.strip()]


def plugin_of(path: Path) -> str | None:
    """The name of the plugin whose agent ``path`` is (the nearest folder above it holding
    ``.claude-plugin/plugin.json``, when one of its agent paths holds the file), else None."""
    # plain strings and os.path: validate asks this for every file it reads
    here = os.path.abspath(path)
    folder = os.path.dirname(here)
    while True:
        if os.path.isfile(os.path.join(folder, ".claude-plugin", "plugin.json")):
            root = Path(folder)
            for listed in plugin_agent_paths(root):
                where = os.path.abspath(listed)
                if here == where or here.startswith(where.rstrip(os.sep) + os.sep):
                    return plugin_namespace(root)
            return None
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent
