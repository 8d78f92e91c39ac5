"""The folder shape most harnesses share: ``<project>/.<tool>/<folder>/*.md`` and the same under
the home folder, read one level deep (Gemini CLI, Qwen Code, Cursor, Factory).

Each harness keeps its own small differences as arguments: which entries count (Gemini CLI
skips names starting with ``_`` and links; Qwen Code takes links), and whether the project
folder is read at all (Qwen Code skips it when the project is the home folder).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from subagents.harnesses.base import Location

__all__ = ["flat_locations", "in_flat_folder", "scan_flat"]


def flat_locations(project: Path | None, home: Path, dot: str, folder: str = "agents", *,
                   first_rank: int = 0) -> tuple[Location, ...]:
    """Project ``.dot/folder`` (unless ``project`` is None), then the user's; project first."""
    out = []
    if project is not None:
        out.append(Location(project / dot / folder, "project", False, (".md",), first_rank))
    out.append(Location(home / dot / folder, "user", False, (".md",), first_rank + 1))
    return tuple(out)


def _regular_md(entry: Path) -> bool:
    return entry.name.endswith(".md") and entry.is_file()


def scan_flat(locations: Sequence[Location],
              accept: Callable[[Path], bool] = _regular_md) -> list[Path]:
    """The entries of each folder that ``accept`` takes, by name, folder after folder; a folder
    that cannot be listed is skipped (a harness does the same)."""
    found: list[Path] = []
    for location in locations:
        try:
            entries = sorted(location.path.iterdir(), key=lambda p: p.name)
        except OSError:
            continue
        for entry in entries:
            try:
                if accept(entry):
                    found.append(entry)
            except OSError:
                continue
    return found


def in_flat_folder(path: Path, dot: str, folder: str = "agents") -> bool:
    """``path`` is a ``.md`` file directly in a ``.dot/folder`` folder."""
    return (path.name.endswith(".md") and path.parent.name == folder
            and path.parent.parent.name == dot)
