"""Whether Claude Code trusts a folder (``~/.claude.json``: ``hasTrustDialogAccepted``).

Measured on 2.1.332: in a folder the user has not trusted, Claude Code loads the agents but skips
their frontmatter ``hooks`` and ``mcpServers`` (``Skipping frontmatter hooks … not trusted``), so
an agent's guards and servers silently do not apply there.

Design decisions: the folder or any folder above it counts as trusted when its entry says so (a
trusted repository root covers its sub-folders); a missing or unreadable ``~/.claude.json`` is
"not trusted", as it is for Claude Code on a fresh machine.  Nothing is ever written.
"""

from __future__ import annotations

import json
from pathlib import Path

__all__ = ["folder_trusted"]


def folder_trusted(folder: Path, home: Path) -> bool:
    """True when ``~/.claude.json`` records that the user trusted ``folder`` or a parent."""
    try:
        data = json.loads((home / ".claude.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    projects = data.get("projects") if isinstance(data, dict) else None
    if not isinstance(projects, dict):
        return False
    here = folder.resolve()
    for candidate in (here, *here.parents):
        entry = projects.get(str(candidate))
        if isinstance(entry, dict) and entry.get("hasTrustDialogAccepted") is True:
            return True
    return False
