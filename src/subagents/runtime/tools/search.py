"""Search tools: ``Grep``, ``Glob``, ``LS`` (read-only, Claude Code names and fields).

Design notes
------------
* Pure Python (``os.walk``) with RE2 (``google-re2``) as the regex engine, linear in the size
  of the text like ripgrep's: a catastrophic pattern cannot hang the run; lookaround and
  backreferences are refused with a message.  Only regular files are read (non-blocking open,
  ``fstat``): FIFOs and devices are skipped.
  Like ripgrep by default, the walk skips VCS and dependency folders (``.git``, ``node_modules``,
  ``.venv``, ``__pycache__``...), binary files (a NUL byte in the first 8 KiB) and files over
  5 MiB.  ``.gitignore`` is not read (a documented difference from Claude Code's ripgrep).
* ``Grep{pattern, path, glob, type, output_mode, -i, -n, -A, -B, -C, head_limit, multiline}``:
  ``output_mode`` is ``files_with_matches`` (default, as in Claude Code), ``content`` or
  ``count``.  An invalid regular expression is an ``is_error`` naming the problem.
* ``Glob{pattern, path}`` returns matching files, newest first (Claude Code's order).
* ``LS{path, ignore}`` lists one folder, folders first with a trailing ``/``, in Claude Code's
  shape (``- /abs/folder/`` then ``  - entry`` lines).  Grep's ``files_with_matches`` starts
  with ``Found N files`` and ``count`` ends with ``Found N total occurrences across M files.``
  as Claude Code's do, so prompts that parse them keep working.
* Every listing is capped (``head_limit`` or 1,000 entries) and says when it was cut.
* Paths are shown relative to the working folder (Claude Code shows absolute ones): shorter,
  and every file tool accepts them as ``file_path`` all the same.
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
from subagents.runtime.tools.base import BlockingTool, ToolContext, ToolOutput

__all__ = ["GlobTool", "GrepTool", "LSTool"]

SKIP_DIRS = frozenset({".git", ".hg", ".svn", "node_modules", ".venv", "venv", "__pycache__",
                       ".mypy_cache", ".ruff_cache", ".pytest_cache", ".tox"})
MAX_FILE_BYTES = 5 * 1024 * 1024
MAX_ENTRIES = 1000
MAX_OUTPUT_CHARS = 60_000
#: A search stops after this many seconds and says so: Ctrl-C cancels the run at once, but
#: a worker thread still walking a huge tree would keep the process from exiting.
SEARCH_TIME_LIMIT = 60.0

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


def _read_text(path: Path) -> str | None:
    """A regular file's text (``None`` for anything else, too big, or binary).

    :func:`subagents.fs.read_regular`: a FIFO or ``/dev/zero`` named in ``path`` or met
    in the walk is skipped, never read."""
    try:
        data = read_regular(path, MAX_FILE_BYTES)
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


class GrepTool(BlockingTool):
    name = "Grep"
    description = (
        "Search file contents with a regular expression (RE2 syntax: no lookaround or "
        "backreferences). path is a file or "
        "folder (default: the working directory); glob (e.g. '*.py') or type (e.g. 'py') filter "
        "files. output_mode: 'files_with_matches' (default), 'content' (matching lines, with "
        "-n line numbers and -A/-B/-C context), or 'count'."
    )
    input_schema: Mapping[str, Any] = {
        "type": "object",
        "properties": {
            "pattern": {"type": "string", "minLength": 1},
            "path": {"type": "string"},
            "glob": {"type": "string"},
            "type": {"type": "string"},
            "output_mode": {"type": "string",
                            "enum": ["content", "files_with_matches", "count"]},
            "-i": {"type": "boolean"},
            "-n": {"type": "boolean"},
            "-A": {"type": "integer", "minimum": 0},
            "-B": {"type": "integer", "minimum": 0},
            "-C": {"type": "integer", "minimum": 0},
            "head_limit": {"type": "integer", "minimum": 1},
            "multiline": {"type": "boolean"},
        },
        "required": ["pattern"],
        "additionalProperties": False,
    }
    read_only = True

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
            return ToolOutput.error(f"path not found: {root}")
        type_globs: tuple[str, ...] = ()
        if input.get("type"):
            type_globs = FILE_TYPES.get(input["type"], (f"*.{input['type']}",))
        mode = input.get("output_mode") or "files_with_matches"
        limit = int(input.get("head_limit") or MAX_ENTRIES)
        before = int(input.get("-B", input.get("-C", 0)) or 0)
        after = int(input.get("-A", input.get("-C", 0)) or 0)
        numbers = input.get("-n", True) if mode == "content" else False
        out: list[str] = []
        cut = False
        deadline = time.monotonic() + SEARCH_TIME_LIMIT
        stopped = False
        for path in _walk(root):
            if time.monotonic() > deadline:
                stopped = True
                break
            if input.get("glob") and not _matches_glob(path, root, input["glob"]):
                continue
            if type_globs and not any(fnmatch.fnmatch(path.name, g) for g in type_globs):
                continue
            text = _read_text(path)
            if text is None:
                continue
            shown = _display(path, ctx)
            if input.get("multiline"):
                hits = [text.count("\n", 0, m.start()) for m in regex.finditer(text)]
            else:
                hits = [i for i, line in enumerate(text.splitlines()) if regex.search(line)]
            if not hits:
                continue
            if mode == "files_with_matches":
                out.append(shown)
            elif mode == "count":
                out.append(f"{shown}:{len(hits)}")
            else:
                lines = text.splitlines()
                wanted: set[int] = set()
                for h in hits:
                    wanted.update(range(max(0, h - before), min(len(lines), h + after + 1)))
                for i in sorted(wanted):
                    sep = ":" if i in hits else "-"
                    prefix = f"{shown}{sep}{i + 1}{sep}" if numbers else f"{shown}{sep}"
                    out.append(prefix + lines[i][:2000])
            if len(out) >= limit:
                cut = True
                out = out[:limit]
                break
        late = (f"\n[search stopped after {SEARCH_TIME_LIMIT:g} s; narrow path or glob]"
                if stopped else "")
        if not out:
            return ToolOutput("No matches found" + late)
        text = "\n".join(out)
        # Claude Code's shapes: a "Found N files" head for file lists, a total after counts.
        if mode == "files_with_matches":
            text = f"Found {len(out)} file{'s' if len(out) != 1 else ''}\n{text}"
        elif mode == "count":
            total = sum(int(line.rsplit(":", 1)[1]) for line in out)
            text += (f"\n\nFound {total} total occurrence{'s' if total != 1 else ''} across "
                     f"{len(out)} file{'s' if len(out) != 1 else ''}.")
        if len(text) > MAX_OUTPUT_CHARS:
            text, cut = text[:MAX_OUTPUT_CHARS], True
        if cut:
            text += "\n[results truncated; narrow the search or raise head_limit]"
        return ToolOutput(text + late)


class GlobTool(BlockingTool):
    name = "Glob"
    description = (
        "Find files by glob pattern (e.g. '**/*.py', 'src/**/*.{ts,tsx}') under path (default: "
        "the working directory). Returns paths, most recently modified first."
    )
    input_schema: Mapping[str, Any] = {
        "type": "object",
        "properties": {
            "pattern": {"type": "string", "minLength": 1},
            "path": {"type": "string"},
        },
        "required": ["pattern"],
        "additionalProperties": False,
    }
    read_only = True

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
            return ToolOutput.error(f"not a directory: {root}")
        found: dict[Path, float] = {}
        deadline = time.monotonic() + SEARCH_TIME_LIMIT
        for pattern in _expand_braces(input["pattern"]):
            if pattern.startswith("/"):
                return ToolOutput.error("pattern must be relative; put the folder in path")
            try:
                for p in root.glob(pattern):
                    if time.monotonic() > deadline:
                        return ToolOutput.error(
                            f"Glob stopped after {SEARCH_TIME_LIMIT:g} s; narrow path or "
                            "pattern")
                    if p.is_file() and not (set(p.relative_to(root).parts) & SKIP_DIRS):
                        try:
                            found[p] = p.stat().st_mtime
                        except OSError:
                            continue
            except (ValueError, NotImplementedError) as exc:
                return ToolOutput.error(f"invalid glob pattern {pattern!r}: {exc}")
        if not found:
            return ToolOutput("No files found")
        ordered = sorted(found, key=lambda p: (-found[p], str(p)))
        lines = [_display(p, ctx) for p in ordered[:MAX_ENTRIES]]
        if len(ordered) > MAX_ENTRIES:
            lines.append(f"[{len(ordered) - MAX_ENTRIES} more files not shown; narrow the "
                         "pattern]")
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
        try:
            entries = list(os.scandir(root))
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
