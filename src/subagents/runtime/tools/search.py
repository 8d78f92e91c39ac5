"""Search tools: ``Grep``, ``Glob`` (Claude Code's names, fields and result formats, measured
on 2.1.332: ``docs/runtime-tools.md``) and our ``LS``.

Design notes
------------
* Pure Python (``os.walk``) with RE2 (``google-re2``) as the regex engine, linear in the size
  of the text like ripgrep's: a catastrophic pattern cannot hang the run; lookaround and
  backreferences are refused with a message.  Only regular files are read (non-blocking open,
  ``fstat``): FIFOs and devices are skipped.
  Like ripgrep by default, the walk skips VCS and dependency folders (``.git``, ``node_modules``,
  ``.venv``, ``__pycache__``...), binary files (a NUL byte in the first 8 KiB) and files over
  5 MiB.  ``.gitignore`` is not read (a documented difference from Claude Code's ripgrep).
* ``Grep{pattern, path, glob, type, output_mode, -i, -n, -o, -A, -B, -C, context,
  head_limit, offset, multiline}``.  ``files_with_matches`` (the default) lists files newest
  first (equal times by path, ignoring case) under ``Found N files``; ``content`` and
  ``count`` go by path; ``count`` ends ``Found T total occurrences across F files.`` (totals
  of the whole search).  No match: ``No files found`` (files), ``No matches found``
  (content, count).  ``head_limit`` defaults to 250 entries or lines (0: all) and ``offset``
  skips; a page says so as Claude Code does (``Found 3 files limit: 3, offset: 2``,
  ``[Showing results with pagination = limit: 5, offset: 2]``, ``... with pagination =
  limit: 2``).  ``-o`` prints only the matches, ``context`` is ``-C``, groups of context
  lines are separated by ``--`` as ripgrep separates them.  A missing path is "Path does not
  exist: X. Note: your current working directory is Y."; an invalid regular expression is an
  ``is_error`` naming the problem.
* ``Glob{pattern, path}`` lists matching files **least recently modified first** (2.1.332's
  order), equal times in the order the file system lists them (a depth-first walk that keeps
  each folder's listing order, as Claude Code's does), at most 100 with a closing line
  saying how many more there are.  Braces expand (``*.{ts,tsx}``), ``**`` spans folders.
* ``LS{path, ignore}`` (ours; Claude Code 2.1.332 has none, so it is built only on request)
  lists one folder, folders first with a trailing ``/``, in the shape older Claude Code's LS
  had (``- /abs/folder/`` then ``  - entry`` lines).
* Paths are shown relative to the working folder, as Claude Code shows them.
* No link is followed out of what was judged (:mod:`subagents.fs_beneath`): the folder Glob
  and LS list is opened with no link on its path and listed through that descriptor, Glob
  descends into a subfolder through a descriptor opened from its parent's with
  ``O_NOFOLLOW``, and Grep reads each file beneath the search's roots with no link followed
  (a file link inside them is resolved once and its target read so).  A swap after the
  decision fails or skips, it never lists or reads another folder.
* Which contexts get Grep and Glob at all is :mod:`subagents.runtime.tools.toolset`'s job.
"""

from __future__ import annotations

import fnmatch
import os
import re
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from subagents.fs import read_regular
from subagents.fs_beneath import LinkOnPath, Root
from subagents.runtime.tools.base import BlockingTool, ToolContext, ToolOutput
from subagents.runtime.tools.formats import ToolFormats, formats_for

__all__ = ["GlobTool", "GrepTool", "LSTool"]

SKIP_DIRS = frozenset({".git", ".hg", ".svn", "node_modules", ".venv", "venv", "__pycache__",
                       ".mypy_cache", ".ruff_cache", ".pytest_cache", ".tox"})
MAX_FILE_BYTES = 5 * 1024 * 1024
MAX_ENTRIES = 1000
MAX_OUTPUT_CHARS = 60_000
MAX_LINE_CHARS = 2000
#: A search stops after this many seconds and says so: Ctrl-C cancels the run at once, but
#: a worker thread still walking a huge tree would keep the process from exiting.
SEARCH_TIME_LIMIT = 60.0
#: why a folder judged could not be opened: it became a link after the decision
_CHANGED = ("the path changed after it was approved (a symbolic link changed on the way); "
            "it was not listed")

# Grep's ``type`` filter: a few common ripgrep types.
FILE_TYPES: dict[str, tuple[str, ...]] = {
    "py": ("*.py", "*.pyi"), "js": ("*.js", "*.mjs", "*.cjs", "*.jsx"),
    "ts": ("*.ts", "*.tsx"), "md": ("*.md", "*.markdown"), "json": ("*.json",),
    "yaml": ("*.yaml", "*.yml"), "toml": ("*.toml",), "rust": ("*.rs",), "go": ("*.go",),
    "java": ("*.java",), "c": ("*.c", "*.h"), "cpp": ("*.cpp", "*.cc", "*.hpp", "*.hh"),
    "sh": ("*.sh", "*.bash"), "html": ("*.html", "*.htm"), "css": ("*.css",),
}


def _walk(root: Path) -> Iterator[Path]:
    if root.is_file():
        yield root
        return
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        for name in sorted(filenames):
            yield Path(dirpath, name)


def _links_out(path: Path, roots: tuple[Path, ...]) -> bool:
    """Is ``path`` (met in a walk) a symbolic link — or below one — whose target is outside
    every one of ``roots`` (resolved)?  Such a file is skipped: the walk must not read or
    list what Read would refuse (``notes -> ~/.ssh/id_rsa`` in plan mode)."""
    return _target(path, roots) is None


def _target(path: Path, roots: tuple[Path, ...]) -> Path | None:
    """The path to open for ``path`` met in a walk: itself (the walks never enter a linked
    folder, so only the file can be a link: one ``lstat`` per file), the file a link inside
    ``roots`` leads to (resolved once, here), or ``None`` for a link out of them."""
    try:
        if not path.is_symlink():
            return path
        real = path.resolve()
    except (OSError, RuntimeError):
        return None
    return real if any(real.is_relative_to(r) for r in roots) else None


class _Beneath:
    """The search's roots, each opened once (lazily) with no link on its own path; every
    file is read beneath the deepest one holding it with no link followed
    (:mod:`subagents.fs_beneath`): a file or folder swapped for a link between the walk's
    look and the read is skipped, never read through."""

    def __init__(self, roots: tuple[Path, ...]) -> None:
        self.roots = sorted(roots, key=lambda r: len(r.parts), reverse=True)
        self.opened: dict[Path, Root] = {}

    def read(self, path: Path) -> str | None:
        """:func:`_read_text` of ``path`` beneath its root (``None`` when none holds it)."""
        for top in self.roots:
            if path.is_relative_to(top):
                try:
                    root = self.opened.get(top) or self.opened.setdefault(top, Root(top))
                except OSError:
                    return None
                return _read_text(path, root)
        return None

    def close(self) -> None:
        for root in self.opened.values():
            root.close()
        self.opened.clear()


def _matches_glob(path: Path, root: Path, pattern: str) -> bool:
    rel = path.relative_to(root).as_posix() if path != root else path.name
    # "*.py" matches by name anywhere; "src/**/*.py" matches the relative path.
    patterns = _expand_braces(pattern)
    return any(
        fnmatch.fnmatch(path.name, p) if "/" not in p else fnmatch.fnmatch(rel, p)
        or fnmatch.fnmatch(rel, p.replace("**/", ""))
        for p in patterns
    )


def _expand_braces(pattern: str) -> list[str]:
    """``*.{ts,tsx}`` -> ``["*.ts", "*.tsx"]`` (one level, as ripgrep globs are used)."""
    m = re.search(r"\{([^{}]*)\}", pattern)
    if not m:
        return [pattern]
    head, tail = pattern[: m.start()], pattern[m.end():]
    out: list[str] = []
    for alt in m.group(1).split(","):
        out.extend(_expand_braces(head + alt + tail))
    return out


def _read_text(path: Path, root: Root) -> str | None:
    """A regular file's text (``None`` for anything else, too big, or binary).

    :func:`subagents.fs.read_regular` beneath ``root``: a FIFO or ``/dev/zero`` named in
    ``path`` or met in the walk is skipped, never read; so is a link met on the way."""
    try:
        data = read_regular(path, MAX_FILE_BYTES, beneath=root)
    except OSError:
        return None
    if b"\x00" in data[:8192]:
        return None
    return data.decode("utf-8", errors="replace")


def _compile(pattern: str, *, ignore_case: bool, multiline: bool) -> Any:
    """A linear-time regex (RE2, as ripgrep's default engine): no catastrophic backtracking.

    RE2 has no lookaround or backreferences; such a pattern is an error that says so, never
    a fallback to the backtracking ``re`` (a pattern like ``(a+)+$`` on a long line would hang
    the run).  Without the ``google-re2`` wheel, ``re`` is used (the dependency is declared)."""
    try:
        import re2  # type: ignore[import-untyped]
    except ImportError:  # pragma: no cover - google-re2 is a dependency
        flags = (re.IGNORECASE if ignore_case else 0) | (
            re.MULTILINE | re.DOTALL if multiline else 0)
        try:
            return re.compile(pattern, flags)
        except re.error as exc:
            return ToolOutput.error(f"invalid regular expression {pattern!r}: {exc}")
    options = re2.Options()
    options.log_errors = False
    options.case_sensitive = not ignore_case
    try:
        return re2.compile(f"(?ms){pattern}" if multiline else pattern, options)
    except re2.error as exc:
        why = exc.args[0].decode() if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        return ToolOutput.error(
            f"invalid regular expression {pattern!r}: {why} (Grep uses a linear-time engine: "
            "no lookaround or backreferences)")


def _display(path: Path, ctx: ToolContext) -> str:
    try:
        return path.relative_to(ctx.cwd.resolve()).as_posix()
    except ValueError:
        return str(path)


def _pagination(shown: int, total: int, limit: int, offset: int) -> str:
    """``limit: 250, offset: 2``: Claude Code's note of a page (empty for a whole result)."""
    parts = []
    if limit and offset + shown < total:
        parts.append(f"limit: {limit}")
    if offset:
        parts.append(f"offset: {offset}")
    return ", ".join(parts)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' if n != 1 else ''}"


class GrepTool(BlockingTool):
    name = "Grep"
    description = (
        "Search file contents with a regular expression (RE2 syntax: no lookaround or "
        "backreferences). path is a file or folder (default: the working directory); glob "
        "(e.g. '*.py') or type (e.g. 'py') filter files. output_mode: 'files_with_matches' "
        "(default; newest first), 'content' (matching lines with -n line numbers, context "
        "with -A/-B/-C or context, only the match with -o) or 'count'. head_limit (default "
        "250, 0 for all) and offset page through the results."
    )
    input_schema: Mapping[str, Any] = {
        "type": "object",
        "properties": {
            "pattern": {"type": "string", "minLength": 1,
                        "description": "The regular expression"},
            "path": {"type": "string", "description": "File or folder to search"},
            "glob": {"type": "string", "description": "Only files matching this glob"},
            "output_mode": {"type": "string",
                            "enum": ["content", "files_with_matches", "count"]},
            "-B": {"type": "number", "minimum": 0, "description": "Lines before a match"},
            "-A": {"type": "number", "minimum": 0, "description": "Lines after a match"},
            "-C": {"type": "number", "minimum": 0, "description": "Lines around a match"},
            "context": {"type": "number", "minimum": 0, "description": "Same as -C"},
            "-n": {"type": "boolean", "description": "Line numbers (content mode; default on)"},
            "-i": {"type": "boolean", "description": "Ignore case"},
            "-o": {"type": "boolean", "description": "Only the matched text (content mode)"},
            "type": {"type": "string", "description": "File type, e.g. py, js, rust"},
            "head_limit": {"type": "number", "minimum": 0,
                           "description": "At most this many results (0: all)"},
            "offset": {"type": "number", "minimum": 0,
                       "description": "Skip this many results first"},
            "multiline": {"type": "boolean", "description": "Let . and patterns span lines"},
        },
        "required": ["pattern"],
        "additionalProperties": False,
    }
    read_only = True

    def __init__(self, formats: ToolFormats | None = None) -> None:
        self.formats = formats or formats_for()

    def read_paths(self, input: Mapping[str, Any]) -> list[str]:
        path = input.get("path") or "."
        return [path] if isinstance(path, str) else []

    def call(self, input: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        regex = _compile(input["pattern"], ignore_case=bool(input.get("-i")),
                         multiline=bool(input.get("multiline")))
        if isinstance(regex, ToolOutput):
            return regex
        root = ctx.resolve(input.get("path") or ".")
        if not root.exists():
            return ToolOutput.error(f"Path does not exist: {root}. Note: your current working "
                                    f"directory is {ctx.cwd}.")
        type_globs: tuple[str, ...] = ()
        if input.get("type"):
            type_globs = FILE_TYPES.get(input["type"], (f"*.{input['type']}",))
        mode = input.get("output_mode") or "files_with_matches"
        limit = int(input["head_limit"]) if input.get("head_limit") is not None \
            else self.formats.grep_head_limit
        offset = int(input.get("offset") or 0)
        around = input.get("context", input.get("-C", 0)) or 0
        before = int(input.get("-B", around) or 0)
        after = int(input.get("-A", around) or 0)
        numbers = input.get("-n", True) if mode == "content" else False
        only = bool(input.get("-o")) and mode == "content"
        deadline = time.monotonic() + SEARCH_TIME_LIMIT
        stopped = False
        # (shown path, mtime, lines of content output or hit count)
        found: list[tuple[str, float, list[str], int]] = []
        inside = tuple({ctx.cwd.resolve(), root.resolve()})
        beneath = _Beneath((ctx.cwd.resolve(), root if root.is_dir() else root.parent))
        try:
            for path in _walk(root):
                if time.monotonic() > deadline:
                    stopped = True
                    break
                target = path if path == root else _target(path, inside)
                if target is None:
                    continue
                if input.get("glob") and not _matches_glob(path, root, input["glob"]):
                    continue
                if type_globs and not any(fnmatch.fnmatch(path.name, g) for g in type_globs):
                    continue
                text = beneath.read(target)
                if text is None:
                    continue
                shown = _display(path, ctx)
                if input.get("multiline"):
                    matches = list(regex.finditer(text))
                    hits = sorted({text.count("\n", 0, m.start()) for m in matches})
                    count = len(matches)
                else:
                    lines_all = text.splitlines()
                    hits = [i for i, line in enumerate(lines_all) if regex.search(line)]
                    count = len(hits)
                if not hits:
                    continue
                out: list[str] = []
                if mode == "content":
                    out = _content_lines(text, hits, regex, shown, before, after, numbers, only)
                try:
                    mtime = path.stat().st_mtime
                except OSError:
                    mtime = 0.0
                found.append((shown, mtime, out, count))
        finally:
            beneath.close()
        late = (f"\n[search stopped after {SEARCH_TIME_LIMIT:g} s; narrow path or glob]"
                if stopped else "")
        if mode == "files_with_matches":
            if not found:
                return ToolOutput("No files found" + late)
            # newest first; a tie by path, ignoring case (as Claude Code's list comes)
            found.sort(key=lambda f: (-f[1], f[0].lower(), f[0]))
            names = [f[0] for f in found]
            page = names[offset:offset + limit] if limit else names[offset:]
            note = _pagination(len(page), len(names), limit, offset)
            head = f"Found {_plural(len(page), 'file')}" + (f" {note}" if note else "")
            return ToolOutput("\n".join([head, *page]) + late)
        found.sort(key=lambda f: f[0])
        if mode == "count":
            rows = [f"{f[0]}:{f[3]}" for f in found]
            page = rows[offset:offset + limit] if limit else rows[offset:]
            total = sum(f[3] for f in found)
            note = _pagination(len(page), len(rows), limit, offset)
            body = "\n".join(page) if page else "No matches found"
            return ToolOutput(
                f"{body}\n\nFound {_plural(total, 'total occurrence')} across "
                f"{_plural(len(rows), 'file')}." + (f" with pagination = {note}" if note else "")
                + late)
        if not found:
            return ToolOutput("No matches found" + late)
        lines: list[str] = []
        for f in found:
            if lines and (before or after):
                lines.append("--")
            lines.extend(f[2])
        page = lines[offset:offset + limit] if limit else lines[offset:]
        note = _pagination(len(page), len(lines), limit, offset)
        text = "\n".join(page)
        if len(text) > MAX_OUTPUT_CHARS:
            text = text[:MAX_OUTPUT_CHARS] + ("\n[results cut at "
                                              f"{MAX_OUTPUT_CHARS:,} characters; narrow the "
                                              "search or page with head_limit and offset]")
        if note:
            text += f"\n\n[Showing results with pagination = {note}]"
        return ToolOutput(text + late)


def _content_lines(text: str, hits: list[int], regex: Any, shown: str, before: int,
                   after: int, numbers: bool, only: bool) -> list[str]:
    """One file's lines in content mode, ripgrep style: ``path:N:text`` for a match,
    ``path-N-text`` for context, ``--`` between groups that do not touch."""
    lines = text.splitlines()
    hit_set = set(hits)
    out: list[str] = []
    if only:
        for i in hits:
            for m in regex.finditer(lines[i]) if i < len(lines) else ():
                prefix = f"{shown}:{i + 1}:" if numbers else f"{shown}:"
                out.append(prefix + m.group(0)[:MAX_LINE_CHARS])
        return out
    wanted: set[int] = set()
    for h in hits:
        wanted.update(range(max(0, h - before), min(len(lines), h + after + 1)))
    previous = None
    for i in sorted(wanted):
        if previous is not None and i > previous + 1:
            out.append("--")
        sep = ":" if i in hit_set else "-"
        prefix = f"{shown}{sep}{i + 1}{sep}" if numbers else f"{shown}{sep}"
        out.append(prefix + lines[i][:MAX_LINE_CHARS])
        previous = i
    return out


def _glob_regex(pattern: str) -> re.Pattern[str]:
    """A glob over relative paths: ``**`` spans folders, ``*`` and ``?`` stay in one."""
    out = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            j = pattern.find("]", i + 1)
            if j < 0:
                out.append(re.escape(c))
            else:
                body = pattern[i + 1:j].replace("\\", "\\\\")
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append(f"[{body}]")
                i = j
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile("".join(out) + r"\Z", re.DOTALL)


_LIST_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)


def _open_listing(folder: Path) -> int:
    """A descriptor to list ``folder`` (the call's resolved path), opened with no link on
    its path (:mod:`subagents.fs_beneath`): a folder swapped for a link after the decision
    is :class:`~subagents.fs_beneath.LinkOnPath`, never listed."""
    with Root(folder) as root:
        return root.open(".", _LIST_FLAGS)


def _walk_in_order(root: Path, fd: int, depth: int | None = None
                   ) -> Iterator[tuple[Path, str]]:
    """Files under ``root`` (listed through ``fd``, see :func:`_open_listing`) depth first,
    each folder in the order the file system lists it (Glob's tie order, as in Claude Code),
    with their path relative to ``root``; ``depth`` folders down at most (``None``: all).
    Each subfolder is listed through a descriptor opened from its parent's with
    ``O_NOFOLLOW``: one swapped for a link between the listing and the descent is skipped,
    not followed."""
    return _walk_in_order_sub(root, fd, "", depth)


def _walk_in_order_sub(folder: Path, fd: int, rel: str,
                       depth: int | None) -> Iterator[tuple[Path, str]]:
    # a subfolder is visited where it is listed: the listing's order is kept
    try:
        entries = list(os.scandir(fd))
    except OSError:
        return
    for e in entries:
        name = f"{rel}{e.name}"
        try:
            if e.is_dir(follow_symlinks=False):
                if e.name not in SKIP_DIRS and (depth is None or depth > 0):
                    sub = os.open(e.name, _LIST_FLAGS | getattr(os, "O_NOFOLLOW", 0),
                                  dir_fd=fd)
                    try:
                        yield from _walk_in_order_sub(folder / e.name, sub, name + "/",
                                                      None if depth is None else depth - 1)
                    finally:
                        os.close(sub)
            elif e.is_file():
                yield folder / e.name, name
        except OSError:
            continue


class GlobTool(BlockingTool):
    name = "Glob"
    description = (
        "Find files by glob pattern (e.g. '**/*.py', 'src/**/*.{ts,tsx}') under path (default: "
        "the working directory). Returns paths, least recently modified first, at most 100."
    )
    input_schema: Mapping[str, Any] = {
        "type": "object",
        "properties": {
            "pattern": {"type": "string", "minLength": 1, "description": "The glob pattern"},
            "path": {"type": "string", "description": "Folder to search in"},
        },
        "required": ["pattern"],
        "additionalProperties": False,
    }
    read_only = True

    def __init__(self, formats: ToolFormats | None = None) -> None:
        self.formats = formats or formats_for()

    def read_paths(self, input: Mapping[str, Any]) -> list[str]:
        """The folder searched, and the fixed start of a pattern that leaves it."""
        paths = [input.get("path") or "."]
        pattern = input.get("pattern")
        if isinstance(pattern, str) and (
                pattern.startswith(("/", "~")) or ".." in pattern.split("/")):
            paths.append(pattern.split("*", 1)[0] or "/")
        return [p for p in paths if isinstance(p, str)]

    def call(self, input: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        root = ctx.resolve(input.get("path") or ".")
        if not root.is_dir():
            return ToolOutput.error(f"Directory does not exist: {root}. Note: your current "
                                    f"working directory is {ctx.cwd}.")
        patterns = _expand_braces(input["pattern"])
        if any(p.startswith("/") for p in patterns):
            return ToolOutput.error("pattern must be relative; put the folder in path")
        try:
            regexes = [_glob_regex(p.removeprefix("./")) for p in patterns]
        except re.error as exc:
            return ToolOutput.error(f"invalid glob pattern {input['pattern']!r}: {exc}")
        found: list[tuple[float, Path]] = []
        deadline = time.monotonic() + SEARCH_TIME_LIMIT
        # a pattern without ** never looks deeper than its own slashes
        depth = None if any("**" in p for p in patterns) else max(
            p.removeprefix("./").count("/") for p in patterns)
        inside = tuple({ctx.cwd.resolve(), root.resolve()})
        try:  # the folder judged is the folder listed: no link followed on its path
            top = _open_listing(root)
        except LinkOnPath:
            return ToolOutput.error(f"cannot list {root}: {_CHANGED}")
        except OSError:
            return ToolOutput("No files found")  # as before: an unreadable folder lists nothing
        try:
            for path, rel in _walk_in_order(root, top, depth):
                if time.monotonic() > deadline:
                    return ToolOutput.error(
                        f"Glob stopped after {SEARCH_TIME_LIMIT:g} s; narrow path or pattern")
                if _links_out(path, inside):
                    continue
                if any(r.match(rel) for r in regexes):
                    try:
                        found.append((path.stat().st_mtime, path))
                    except OSError:
                        continue
        finally:
            os.close(top)
        if not found:
            return ToolOutput("No files found")
        # oldest first; a stable sort keeps the listing order for equal times
        found.sort(key=lambda f: f[0])
        limit = self.formats.glob_limit
        lines = [_display(p, ctx) for _, p in found[:limit]]
        if len(found) > limit:
            lines.append(f"(Showing {limit} of {len(found)} matching files; {len(found) - limit} "
                         "more are not listed. Narrow the pattern or path to see them.)")
        return ToolOutput("\n".join(lines))


class LSTool(BlockingTool):
    name = "LS"
    description = (
        "List the entries of one directory (folders first, with a trailing '/'). path defaults "
        "to the working directory; ignore is a list of glob patterns to leave out."
    )
    input_schema: Mapping[str, Any] = {
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "ignore": {"type": "array", "items": {"type": "string"}},
        },
        "additionalProperties": False,
    }
    read_only = True

    def read_paths(self, input: Mapping[str, Any]) -> list[str]:
        path = input.get("path") or "."
        return [path] if isinstance(path, str) else []

    def call(self, input: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        root = ctx.resolve(input.get("path") or ".")
        if not root.exists():
            return ToolOutput.error(f"path not found: {root}")
        if not root.is_dir():
            return ToolOutput.error(f"not a directory: {root}; use Read for files")
        ignore = list(input.get("ignore") or ())
        try:  # the folder judged is the folder listed: no link followed on its path
            fd = _open_listing(root)
            try:
                entries = list(os.scandir(fd))
            finally:
                os.close(fd)
        except LinkOnPath:
            return ToolOutput.error(f"cannot list {root}: {_CHANGED}")
        except OSError as exc:
            return ToolOutput.error(f"cannot list {root}: {exc.strerror or exc}")
        dirs: list[str] = []
        files: list[str] = []
        for e in entries:
            if any(fnmatch.fnmatch(e.name, g) for g in ignore):
                continue
            (dirs if e.is_dir() else files).append(e.name)
        lines = [f"{d}/" for d in sorted(dirs)] + sorted(files)
        if not lines:
            return ToolOutput(f"{root} is empty")
        shown = lines[:MAX_ENTRIES]
        # Claude Code's LS shape: "- /abs/folder/" then "  - entry" lines.
        text = f"- {root}/\n" + "\n".join(f"  - {n}" for n in shown)
        if len(lines) > MAX_ENTRIES:
            text += f"\n[{len(lines) - MAX_ENTRIES} more entries not shown]"
        return ToolOutput(text)
