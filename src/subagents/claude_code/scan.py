"""Finding agent files and keeping one per name, as Claude Code does in one scope folder.

Claude Code lists a scope folder with ripgrep (``--files --hidden --follow --no-ignore --glob
'*.md'``), so hidden files and folders count, symlinks are followed, ``.gitignore`` does not
apply and only names ending in ``.md`` (case-sensitive) are read; ``*.agent.md`` is one of them.
The paths are sorted in JavaScript's default order (UTF-16 code units, :func:`code_unit_key`)
and each agent is put into a map by name in that order, so when one folder defines a name twice
the **last path wins** (``b.md`` over ``a.md``, ``a.md`` over ``Z.md``, ``zsub/x.md`` over
``a.md``). Two paths to one file (a symlink, a hard link) are read once.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from subagents._dataclass import dataclass
from subagents.claude_code.profile import ClaudeCodeProfile, get_profile
from subagents.claude_code.reader import ClaudeCodeView, Skip, SkipKind, read_claude_code
from subagents.fs import TooLarge, read_regular

__all__ = ["FolderReading", "code_unit_key", "read_agents_folder", "scan_agents_folder"]


def code_unit_key(path: str) -> bytes:
    """Sort key equal to JavaScript's default string order (UTF-16 code units)."""
    return path.encode("utf-16-be", "surrogatepass")


def _walk(folder: Path, seen: set[tuple[int, int]]) -> Iterator[Path]:
    try:
        st = os.stat(folder)
    except OSError:
        return
    key = (st.st_dev, st.st_ino)
    if key in seen:
        return  # a symlink loop
    seen.add(key)
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        path = Path(entry.path)
        try:
            is_dir = entry.is_dir()  # follows symlinks
            is_file = entry.is_file()
        except OSError:
            continue
        if is_dir:
            yield from _walk(path, seen)
        elif is_file and entry.name.endswith(".md"):
            yield path


def scan_agents_folder(root: str | os.PathLike[str]) -> list[Path]:
    """Every file Claude Code considers in ``root``, in the order it reads them."""
    files = list(_walk(Path(root), set()))
    files.sort(key=lambda p: code_unit_key(str(p)))
    out: list[Path] = []
    inodes: set[tuple[int, int]] = set()
    for path in files:
        try:
            st = os.stat(path)
        except OSError:
            continue
        key = (st.st_dev, st.st_ino)
        if key in inodes:
            continue  # the same file again through a link
        inodes.add(key)
        out.append(path)
    return out


@dataclass(frozen=True, slots=True)
class FolderReading:
    """One scope folder as Claude Code reads it."""

    files: tuple[tuple[Path, ClaudeCodeView], ...]
    # name -> the path that wins, in Claude Code's listing order
    winners: dict[str, Path]
    # (loser path, name, winner path): definitions Claude Code drops for a later one
    duplicates: tuple[tuple[Path, str, Path], ...]

    def view(self, path: Path) -> ClaudeCodeView | None:
        for p, v in self.files:
            if p == path:
                return v
        return None


def read_file(path: Path, profile: ClaudeCodeProfile) -> ClaudeCodeView:
    """Read one file as Claude Code would (regular files only, never blocking on a FIFO)."""
    try:
        data = read_regular(path, profile.max_file_bytes)
    except TooLarge as big:
        return read_claude_code(b"", profile=profile, size=big.size)
    except OSError as exc:
        return _unreadable(profile, exc.strerror or str(exc))
    return read_claude_code(data, profile=profile, size=len(data))


def _unreadable(profile: ClaudeCodeProfile, why: str) -> ClaudeCodeView:
    from subagents.claude_code.reader import ParseMode

    return ClaudeCodeView(
        profile, False, Skip(SkipKind.TOO_LARGE, f"cannot be read: {why}", True), ParseMode.NONE
    )


def read_agents_folder(
    root: str | os.PathLike[str], *, profile: ClaudeCodeProfile | None = None
) -> FolderReading:
    """Read every agent file of one scope folder and keep one definition per name."""
    profile = profile or get_profile()
    files = tuple((p, read_file(p, profile)) for p in scan_agents_folder(root))
    winners: dict[str, Path] = {}
    duplicates: list[tuple[Path, str, Path]] = []
    losers: dict[str, list[Path]] = {}
    for path, view in files:
        if not view.loaded or view.name is None:
            continue
        if view.name in winners:
            losers.setdefault(view.name, []).append(winners[view.name])
        winners[view.name] = path
    for name, paths in losers.items():
        duplicates.extend((p, name, winners[name]) for p in paths)
    return FolderReading(files, winners, tuple(duplicates))
