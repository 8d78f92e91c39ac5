"""``CLAUDE.md`` files as Claude Code finds them, read safely, rendered as one reminder block.

What Claude Code 2.1.332 reads (measured: ``claude -p`` against a fake API, with marker files
in every candidate place; the order below is the order in the first user message):

1. the user's ``~/.claude/CLAUDE.md``, then ``~/.claude/rules/**/*.md``;
2. for every folder from the filesystem root down to the working folder (so also folders
   *above* the git root; never folders below the working folder): ``CLAUDE.md``,
   ``.claude/CLAUDE.md``, ``.claude/rules/**/*.md`` (sorted; a rule whose frontmatter has
   ``paths:`` applies only to matching files and is not read at the start), then
   ``CLAUDE.local.md``;
3. each file is followed at once by the files it imports, depth first.

Imports: ``@path`` at the start of a line or after white space (``foo@bar.com`` and
``(@x.md)`` are not imports), outside code spans and fenced code blocks; ``\\ `` escapes a
space; ``~/`` is the home folder, ``/`` absolute, anything else relative to the importing
file.  Four levels below the file the walk found are read (``CLAUDE.md`` → d1 → d2 → d3 → d4;
d5 is not).  A file already read is not read again (cycles end there).  A missing file, a
folder, or a binary extension (``.dat``, images, archives) is skipped without a word.  In a
project file, an import whose real path (symlinks resolved) is outside the working folder is
not followed (Claude Code would ask first; without a terminal it skips it); the user's own
files may import from anywhere.  Rule files that are symlinks out of the working folder are
skipped too.

Where we differ on purpose (each with a note for the run's warnings, and the run goes on):

* **Bounded.**  Claude Code sent a 2.5 MB ``CLAUDE.local.md`` whole.  We read at most
  :data:`MAX_FILE_BYTES` of a file (the rest is cut with a line saying so), at most
  :data:`MAX_TOTAL_CHARS` in all (later files are left out), at most :data:`MAX_FILES` files.
* **Regular files only**, opened without blocking (:func:`subagents.fs.read_regular`'s rules):
  a symlink to ``/dev/zero`` or a FIFO is skipped, never read.
* **Text only**: a file with NUL bytes is skipped (Claude Code sent its bytes); undecodable
  bytes are replaced.
* Unreadable files are skipped with the reason.
* More than :data:`LARGE_CHARS` in all gets a note (they ride on every request); Claude Code
  warns about a large ``CLAUDE.md`` in its interactive ``/doctor``.

No ``CLAUDE.md`` at all: no block.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from subagents.fs import NotRegular, read_head

__all__ = [
    "MAX_FILES",
    "MAX_FILE_BYTES",
    "MAX_IMPORT_DEPTH",
    "MAX_TOTAL_CHARS",
    "Instructions",
    "InstructionsFile",
    "find_instructions",
    "import_targets",
]

Scope = Literal["user", "project", "local"]

MAX_IMPORT_DEPTH = 4  # levels of imports below a file the walk found (measured)
MAX_FILE_BYTES = 256 * 1024
MAX_TOTAL_CHARS = 400_000
MAX_FILES = 200
LARGE_CHARS = 40_000  # past this, a note: every request of every run carries the text
_RULES_MAX_ENTRIES = 2000  # entries looked at in one rules folder tree
_RULES_MAX_DEPTH = 8

#: Extensions never imported (binary data): Claude Code skipped ``@x.dat`` and read ``@x.py``,
#: ``@x.json``, ``@x.txt`` and a file without an extension.
BINARY_SUFFIXES = frozenset((
    ".dat", ".bin", ".exe", ".dll", ".so", ".dylib", ".o", ".a", ".class", ".jar", ".zip",
    ".gz", ".tgz", ".bz2", ".xz", ".7z", ".rar", ".tar", ".png", ".jpg", ".jpeg", ".gif",
    ".bmp", ".ico", ".webp", ".tiff", ".pdf", ".mp3", ".mp4", ".mov", ".avi", ".wav", ".flac",
    ".ogg", ".woff", ".woff2", ".ttf", ".otf", ".sqlite", ".db", ".pyc", ".wasm"))

_LABELS: dict[Scope, str] = {
    "user": "your own instructions, for every project",
    "project": "project instructions, kept with the code",
    "local": "your private instructions for this project, not committed",
}

_INTRO = ("Instructions from the CLAUDE.md files of the user and of this project follow. "
          "They take precedence over your usual way of working: follow them as written.")


@dataclass(frozen=True, slots=True)
class InstructionsFile:
    """One file read into the block: where, which scope, its text, who imported it."""

    path: Path
    scope: Scope
    text: str
    imported_by: Path | None = None
    truncated: bool = False


@dataclass(frozen=True, slots=True)
class Instructions:
    """The files found (in order) and the notes about what was skipped or cut."""

    files: tuple[InstructionsFile, ...] = ()
    notes: tuple[str, ...] = field(default=())

    @property
    def chars(self) -> int:
        return sum(len(f.text) for f in self.files)

    def render(self) -> str | None:
        """The ``<system-reminder>`` block for the first user message (``None``: no files)."""
        if not self.files:
            return None
        parts = [_INTRO]
        for f in self.files:
            text = f.text.rstrip("\n")
            parts.append(f"From {f.path} ({_LABELS[f.scope]}):\n\n{text}")
        return "<system-reminder>\n" + "\n\n".join(parts) + "\n</system-reminder>"


# ---------------------------------------------------------------------------------- imports

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_IMPORT = re.compile(r"(?:^|(?<=\s))@((?:[^\s\\]|\\ )+)")
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")


def import_targets(text: str) -> list[str]:
    """The ``@path`` imports of ``text``, in order (escaped spaces unescaped)."""
    out: list[str] = []
    fence: str | None = None
    for line in text.splitlines():
        m = _FENCE.match(line)
        if fence is not None:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            continue
        if m:
            fence = m.group(1)
            continue
        plain = _CODE_SPAN.sub(lambda s: " " * len(s.group(0)), line)
        for hit in _IMPORT.finditer(plain):
            target = hit.group(1).replace("\\ ", " ")
            if target and (target[0].isalnum() or target[0] in "./~_"):
                out.append(target)
    return out


# ---------------------------------------------------------------------------------- reading


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _read_text(path: Path, limit: int) -> tuple[str, bool]:
    """(text, cut) of the regular file ``path``: never blocks, never reads past ``limit``.

    Raises ``OSError`` (with a readable ``strerror``) for what cannot be read."""
    try:
        data = read_head(path, limit)
    except NotRegular:
        raise OSError(0, "not a regular file (a device, FIFO or socket)") from None
    cut = len(data) > limit
    if b"\x00" in data[:limit]:
        raise OSError(0, "it holds NUL bytes (binary data, not text)")
    text = data[:limit].decode("utf-8", errors="replace")
    if cut:
        text = text.rstrip("\ufffd")  # a character split at the limit
    return text, cut


class _Walk:
    """One search: the files read so far (by real path), the budget, the notes."""

    def __init__(self, cwd: Path, home: Path, *, max_file_bytes: int, max_total_chars: int,
                 max_files: int) -> None:
        self.cwd = cwd
        self.real_cwd = Path(os.path.realpath(cwd))
        self.home = home
        self.max_file_bytes = max_file_bytes
        self.max_total_chars = max_total_chars
        self.max_files = max_files
        self.files: list[InstructionsFile] = []
        self.notes: list[str] = []
        self.seen: set[str] = set()
        self.total = 0
        self.full = False

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    def add(self, path: Path, scope: Scope, *, depth: int = 0, parent: Path | None = None,
            quiet_missing: bool = True) -> None:
        """Read ``path`` (and, depth first, what it imports) unless seen, skipped or over
        budget."""
        real = os.path.realpath(path)
        if real in self.seen:
            return
        try:
            st = os.stat(path)
        except OSError:
            return  # no such file: nothing to say (most `@words` are not imports)
        if stat.S_ISDIR(st.st_mode):
            return
        self.seen.add(real)
        if self.full:
            return
        if len(self.files) >= self.max_files:
            self.full = True
            self.note(f"{path}: not read: already {self.max_files} instruction files")
            return
        try:
            text, cut = _read_text(path, self.max_file_bytes)
        except OSError as exc:
            self.note(f"{path}: not read: {exc.strerror or exc}")
            return
        if self.total + len(text) > self.max_total_chars:
            self.full = True
            self.note(f"{path} and any later instruction files were left out: together they "
                      f"pass {self.max_total_chars:,} characters")
            return
        if cut:
            text = (f"{text.rstrip()}\n\n[cut here: the file is larger than "
                    f"{self.max_file_bytes:,} bytes]")
            self.note(f"{path}: only the first {self.max_file_bytes:,} bytes were read")
        self.total += len(text)
        self.files.append(InstructionsFile(path, scope, text, parent, cut))
        if depth >= MAX_IMPORT_DEPTH:
            return
        for target in import_targets(text):
            child = self._resolve(target, path)
            if child is None or child.suffix.lower() in BINARY_SUFFIXES:
                continue
            if scope != "user" and not self._in_project(child):
                if os.path.exists(child):
                    self.note(f"{path}: import @{target} not followed: it leads outside the "
                              f"working folder {self.cwd}")
                continue
            self.add(child, scope, depth=depth + 1, parent=path)

    def _resolve(self, target: str, importer: Path) -> Path | None:
        if target.startswith("~/"):
            return self.home / target[2:]
        if target.startswith("~"):
            return None
        candidate = Path(target)
        return candidate if candidate.is_absolute() else importer.parent / candidate

    def _in_project(self, path: Path) -> bool:
        return _inside(Path(os.path.realpath(path)), self.real_cwd)


def _rules(folder: Path, walk: _Walk, *, user: bool) -> Iterator[Path]:
    """The unconditional ``*.md`` rule files under ``folder`` (sorted, bounded, no symlinked
    folders; a symlinked file must stay inside the working folder unless ``user``)."""
    if not folder.is_dir():
        return
    found: list[Path] = []
    seen = 0
    for root, dirs, names in os.walk(folder, followlinks=False):
        depth = len(Path(root).relative_to(folder).parts)
        if depth >= _RULES_MAX_DEPTH:
            dirs[:] = []
        dirs.sort()
        for name in sorted(names):
            seen += 1
            if seen > _RULES_MAX_ENTRIES:
                walk.note(f"{folder}: only the first {_RULES_MAX_ENTRIES} entries were looked at")
                dirs[:] = []
                break
            if name.lower().endswith(".md"):
                found.append(Path(root) / name)
    for path in sorted(found, key=lambda p: p.relative_to(folder).as_posix()):
        if path.is_symlink() and not user and not walk._in_project(path):
            continue
        if _conditional(path):
            continue
        yield path


def _conditional(path: Path) -> bool:
    """Does the rule's frontmatter say ``paths:`` (it then applies to matching files only)?"""
    try:
        head, _ = _read_text(path, 4096)
    except OSError:
        return False
    if not head.startswith("---"):
        return False
    end = head.find("\n---", 3)
    block = head[3:end] if end != -1 else head[3:]
    return re.search(r"^paths\s*:", block, re.MULTILINE) is not None


def find_instructions(
    cwd: str | os.PathLike[str],
    *,
    home: str | os.PathLike[str] | None = None,
    stop_at: str | os.PathLike[str] | None = None,
    max_file_bytes: int = MAX_FILE_BYTES,
    max_total_chars: int = MAX_TOTAL_CHARS,
    max_files: int = MAX_FILES,
) -> Instructions:
    """The ``CLAUDE.md`` files for a run in ``cwd``, in Claude Code's order (see the module).

    ``home`` defaults to the home folder; ``stop_at`` (default: the filesystem root) is the
    highest folder looked at.  Never raises for what is found on disk."""
    folder = Path(os.path.abspath(cwd))
    home_dir = Path(home) if home is not None else Path(os.path.expanduser("~"))
    walk = _Walk(folder, home_dir, max_file_bytes=max_file_bytes,
                 max_total_chars=max_total_chars, max_files=max_files)
    user_dir = home_dir / ".claude"
    walk.add(user_dir / "CLAUDE.md", "user")
    for rule in _rules(user_dir / "rules", walk, user=True):
        walk.add(rule, "user")
    top = Path(os.path.abspath(stop_at)) if stop_at is not None else None
    chain = [folder, *folder.parents]
    if top is not None and _inside(folder, top):
        chain = [p for p in chain if _inside(p, top)]
    for here in reversed(chain):
        walk.add(here / "CLAUDE.md", "project")
        walk.add(here / ".claude" / "CLAUDE.md", "project")
        for rule in _rules(here / ".claude" / "rules", walk, user=False):
            walk.add(rule, "project")
        walk.add(here / "CLAUDE.local.md", "local")
    if walk.total > LARGE_CHARS:
        walk.note(f"the CLAUDE.md files hold {walk.total:,} characters (more than "
                  f"{LARGE_CHARS:,}); every request of every run carries them")
    return Instructions(tuple(walk.files), tuple(walk.notes))
