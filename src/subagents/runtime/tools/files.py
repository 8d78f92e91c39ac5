"""File tools: ``Read``, ``Write``, ``Edit``, ``MultiEdit``, with Claude Code 2.1.332's
fields and result formats (measured against the real CLI: ``docs/runtime-tools.md``).

Design notes
------------
* ``Read{file_path, offset, limit, pages, allow_large}`` numbers lines ``N<TAB>text`` without
  padding, as Claude Code 2.1.332 does; the text is split on newlines, so a file ending in one
  shows one more, empty, numbered line, and CRLF endings lose their ``\r``.  A whole file
  comes back whole (no line count or line length cut) up to 256 KB (the version table,
  :mod:`~subagents.runtime.tools.formats`); a bigger one is refused with its size unless
  ``offset``/``limit`` page through it (streamed line by line: a huge file is never loaded) or
  ``allow_large`` is set (bounded all the same, by characters).  ``offset`` 0 and 1 both mean
  the first line.  An empty file, or an offset past the end, is a ``<system-reminder>``
  warning, not an error; a missing file says so with the working directory; a directory is
  an ``EISDIR`` error; text that is not UTF-8 is shown with U+FFFD and a note.
* Refused before anything happens: a binary file (a NUL byte in the first 8 KiB), images and
  PDFs (Claude Code sends images as image blocks; our tool results are text, so we say so),
  device files and FIFOs (never opened blocking).  Those refusals are ``<tool_use_error>``
  results, as Claude Code marks them.
* ``Write`` says "File created successfully at: X" or "The file X has been updated
  successfully."; ``Edit`` the latter (or "All occurrences were successfully replaced" with
  ``replace_all``).  Their refusals follow Claude Code's first line ("String to replace not
  found in file.", "Found N matches of the string to replace, but replace_all is false.", "No
  changes to make: ...") with ``String: <old_string>`` where it gives it; the rest is in our
  words.  Neither requires a ``Read`` first (Claude Code 2.1.332 did not either).
* Writes are atomic: a temporary file in the same folder, ``fsync``, ``os.replace``; an existing
  file keeps its mode.  Parent folders are created.
* ``Edit`` needs ``old_string`` to occur exactly once unless ``replace_all``; an empty
  ``old_string`` creates a missing (or empty) file.  ``MultiEdit`` (ours; Claude Code 2.1.332
  has none, so it is built only on request) applies its edits in order to an in-memory copy
  and writes once: all or nothing.
* Where a write may land (inside the working folder) is the permission policy's job; these tools
  report their targets through ``write_paths`` (and Read its file through ``read_paths``:
  a symlink out of the project is judged by where it points).
* The path judged is the path opened: ``ctx.resolve`` gives the call's one resolution (pinned
  by the tool step), and every open — Read's, Edit's read, the writes — is made beneath the
  root folder holding it (``ctx.root_of``) with no link followed at any component
  (:mod:`subagents.fs_beneath`: ``openat2``, or an ``O_NOFOLLOW`` walk).  A folder swapped for
  a link after the decision fails the call with a message saying so; it never lands elsewhere.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from subagents.fs import NotRegular, open_regular, write_nofollow
from subagents.fs_beneath import LinkOnPath, Root
from subagents.runtime.tools.base import BlockingTool, ToolContext, ToolOutput
from subagents.runtime.tools.formats import ToolFormats, formats_for

__all__ = ["EditTool", "MultiEditTool", "ReadTool", "WriteTool", "atomic_write_text", "human_size"]

_SNIFF = 8192
IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp"})
#: what Read returns for an empty file: a warning for the model, not an error
EMPTY_FILE = ("<system-reminder>Warning: the file exists but the contents are empty."
              "</system-reminder>")


def atomic_write_text(path: Path, text: str, *, fsync: bool = True,
                      root: Path | None = None) -> None:
    """The Write and Edit tools' write: atomic, parents created, opened beneath ``root`` (the
    folder ``ctx.root_of`` gives; ``/`` when not given) with no component of the approved
    (resolved) path followed (:func:`subagents.fs.write_nofollow`: a folder swapped for a
    link after the approval fails the write instead of redirecting it)."""
    write_nofollow(path, text, fsync=fsync, make_parents=True, root=root or "/")


def _open_read(path: Path, ctx: ToolContext) -> tuple[int, os.stat_result]:
    """``path`` (the call's resolved path) opened for reading beneath its root, no link
    followed, never blocking; :class:`~subagents.fs.NotRegular` for a FIFO, a device..."""
    with Root(ctx.root_of(path)) as root:
        return open_regular(path, beneath=root)


def _failed(verb: str, path: Path, exc: OSError) -> ToolOutput:
    """``cannot read|write PATH: why`` (a link met on the way said as what it means)."""
    if isinstance(exc, LinkOnPath):
        done = "nothing was written" if verb == "write" else "it was not read"
        return ToolOutput.error(f"cannot {verb} {path}: the path changed after it was approved "
                                f"(a symbolic link changed on the way); {done}")
    return ToolOutput.error(f"cannot {verb} {path}: {exc.strerror or exc}")


def _read_text(path: Path, ctx: ToolContext) -> str | ToolOutput:
    """The file's text, or an ``is_error`` output saying why it cannot be edited."""
    if path.is_dir():
        return ToolOutput.tool_use_error(
            "Error calling tool (Edit): EISDIR: illegal operation on a directory, read")
    try:
        fd, _ = _open_read(path, ctx)
    except NotRegular:
        return ToolOutput.tool_use_error(f"{path} is not a regular file; it cannot be edited")
    except FileNotFoundError:
        return ToolOutput.tool_use_error(f"File does not exist: {path}")
    except OSError as exc:
        return _failed("read", path, exc)
    try:
        with os.fdopen(fd, "rb") as fh:  # owns the descriptor from here
            os.set_blocking(fh.fileno(), True)
            data = fh.read()
    except OSError as exc:
        return _failed("read", path, exc)
    if b"\x00" in data[:_SNIFF]:
        return ToolOutput.tool_use_error(f"{path} is a binary file; it cannot be edited as text")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return ToolOutput.tool_use_error(
            f"{path} is not valid UTF-8; it cannot be edited as text (change it with a shell "
            "command that keeps its encoding)")


class ReadTool(BlockingTool):
    name = "Read"
    description = (
        "Read a file from the local filesystem and return its lines numbered from 1 "
        "(number, tab, text). file_path should be absolute; a relative one is taken from the "
        "working directory. A whole file is returned up to a size limit; for a bigger one give "
        "offset (first line) and limit (number of lines), or allow_large when you really need "
        "all of it."
    )
    input_schema: Mapping[str, Any] = {
        "type": "object",
        "properties": {
            "file_path": {"type": "string", "description": "Path of the file to read"},
            "offset": {"type": "integer", "minimum": 0,
                       "description": "Line to start at (1-based; 0 is the first line too)"},
            "limit": {"type": "integer", "exclusiveMinimum": 0,
                      "description": "How many lines to read (0: to the end)"},
            "pages": {"type": "string",
                      "description": "Page range of a PDF (PDFs are not read by this runtime)"},
            "allow_large": {"type": "boolean",
                            "description": "Read a file above the usual size limit"},
        },
        "required": ["file_path"],
        "additionalProperties": False,
    }
    read_only = True

    def __init__(self, formats: ToolFormats | None = None) -> None:
        self.formats = formats or formats_for()

    def read_paths(self, input: Mapping[str, Any]) -> Sequence[str]:
        return [input["file_path"]] if isinstance(input.get("file_path"), str) else []

    def call(self, input: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        path = ctx.resolve(input["file_path"])
        if path.is_dir():
            return ToolOutput.error(f"EISDIR: illegal operation on a directory, read '{path}'")
        suffix = path.suffix.lower()
        if suffix in IMAGE_SUFFIXES and path.is_file():
            return ToolOutput.tool_use_error(
                f"{path} is an image; this runtime's Read returns text only. Describe what you "
                "need from it, or inspect it with a shell command.")
        if suffix == ".pdf" and path.is_file():
            return ToolOutput.tool_use_error(
                f"{path} is a PDF; this runtime's Read returns text only. Extract its text with "
                "a shell command (e.g. pdftotext) and read that.")
        # Regular files only, opened without blocking: a FIFO, /dev/zero or a terminal must
        # not hang the run (issue 12).  fstat on the open descriptor: no swap in between.
        # Opened beneath its root with no link followed: the path judged is the one read.
        try:
            fd, st = _open_read(path, ctx)
        except NotRegular:
            return ToolOutput.error(f"{path} is not a regular file (a device, FIFO or "
                                    "socket); Read only returns the text of files")
        except FileNotFoundError:
            return ToolOutput.error(_missing(ctx))
        except OSError as exc:
            return _failed("read", path, exc)
        try:
            size = st.st_size
            os.set_blocking(fd, True)
            fh_raw = os.fdopen(fd, "rb")
            fd = -1  # owned by fh_raw now
        finally:
            if fd >= 0:
                os.close(fd)
        offset = max(int(input.get("offset") or 1), 1)
        limit = max(int(input.get("limit") or 0), 0)  # 0 (or less): to the end
        paged = bool(input.get("offset")) or bool(limit)
        large = bool(input.get("allow_large"))
        cap = self.formats.read_max_bytes
        if size > cap and not paged and not large:
            return ToolOutput.error(
                f"File content ({human_size(size)}) exceeds maximum allowed size "
                f"({human_size(cap)}). Read a part of it with offset and limit, or search it; "
                "set allow_large: true only if you really need the whole file.")
        try:
            with fh_raw as fh:
                if b"\x00" in fh.read(_SNIFF):
                    kind = f"a binary {suffix} file" if suffix else "a binary file"
                    return ToolOutput.tool_use_error(
                        f"This tool cannot read binary files. The file appears to be {kind}. "
                        "Read it with a shell command or a script that understands its format.")
                fh.seek(0)
                out = self._lines(fh, offset, limit, size)
        except OSError as exc:
            return _failed("read", path, exc)
        if not out.is_error:
            _known(ctx).add(str(path))
        return out

    def _lines(self, fh: Any, offset: int, limit: int, size: int) -> ToolOutput:
        """Claude Code's numbering: ``N<TAB>line``, unpadded; the text is split on newlines,
        so a file that ends with one shows one more, empty, numbered line."""
        if size == 0:
            return ToolOutput(EMPTY_FILE)
        out: list[str] = []
        chars = 0
        number = 0
        ended = True  # the last line read ended with a newline
        bad = False
        cut = False
        max_chars = self.formats.read_large_max_chars
        end = offset + limit if limit else None
        for number, (raw, ended) in enumerate(_bounded_lines(fh, max_chars + 1), start=1):
            if number < offset:
                continue
            if end is not None and number >= end:
                break
            data = raw[:-1] if ended else raw
            if data.endswith(b"\r"):
                data = data[:-1]
            try:
                line = data.decode("utf-8")
            except UnicodeDecodeError:
                line, bad = data.decode("utf-8", errors="replace"), True
            entry = f"{number}\t{line}"
            chars += len(entry) + 1
            if chars > max_chars:
                cut = True
                break
            out.append(entry)
        else:
            if ended:  # the empty line after the last newline
                number += 1
                if number >= offset and (end is None or number < end):
                    out.append(f"{number}\t")
        if cut and not out:  # one line longer than everything Read may return
            return ToolOutput.error(
                f"Line {number} alone is longer than {max_chars:,} characters; read it in "
                "pieces with a shell command (e.g. cut -c or head -c).")
        if not out:
            return ToolOutput(
                "<system-reminder>Warning: the file exists but is shorter than the provided "
                f"offset ({offset}). The file has {number} lines.</system-reminder>")
        text = "\n".join(out)
        if cut:
            last = int(out[-1].split("\t", 1)[0])
            text += (f"\n\n[Read stopped at line {last}: the text reached {max_chars:,} "
                     f"characters. Continue with offset: {last + 1}.]")
        if bad:
            text += ("\n\n[This file is not valid UTF-8 (a legacy encoding, or binary data); the "
                     "bytes that could not be decoded show as U+FFFD. Edit and Write would "
                     "change them: change the file with a shell command that keeps its "
                     "encoding, or ask the user before converting it.]")
        return ToolOutput(text)


def _bounded_lines(fh: Any, cap: int) -> Iterator[tuple[bytes, bool]]:
    """(line, ended with a newline), each line read ``cap`` bytes at most: a file that is one
    huge line is never loaded whole (the rest of such a line is skipped)."""
    while True:
        raw = fh.readline(cap)
        if not raw:
            return
        if raw.endswith(b"\n") or len(raw) < cap:
            yield raw, raw.endswith(b"\n")
            continue
        ended = False
        while True:  # too long: skip to the end of this line
            more = fh.readline(cap)
            if not more:
                break
            if more.endswith(b"\n"):
                ended = True
                break
        yield raw, ended


def _missing(ctx: ToolContext) -> str:
    return f"File does not exist. Note: your current working directory is {ctx.cwd}."


def human_size(n: int) -> str:
    """``256KB``, ``4.4MB``: sizes as Claude Code writes them in tool results."""
    if n >= 1024 * 1024:
        return f"{n / (1024 * 1024):.1f}MB"
    if n >= 1024:
        kb = n / 1024
        return f"{kb:.0f}KB" if kb.is_integer() else f"{kb:.1f}KB"
    return f"{n}B"


_STATE_NOTE = "(the file now holds exactly what you sent; no need to Read it again)"
#: ``ctx.extra`` key: files this run has read or written (their content is known to the model)
KNOWN_KEY = "known_files"


def _known(ctx: ToolContext) -> set[str]:
    known: set[str] = ctx.extra.setdefault(KNOWN_KEY, set())
    return known


def _updated(path: Path, ctx: ToolContext, *, note: bool = True) -> ToolOutput:
    """Claude Code's success line; the note that the file need not be read again comes when
    the model knew the file (it read or wrote it in this run), as Claude Code's does."""
    _known(ctx).add(str(path))
    tail = f" {_STATE_NOTE}" if note else ""
    return ToolOutput(f"The file {path} has been updated successfully.{tail}")


class WriteTool(BlockingTool):
    name = "Write"
    description = (
        "Create or overwrite a file with the given content. file_path should be absolute (a "
        "relative one is taken from the working directory); missing parent folders are "
        "created."
    )
    input_schema: Mapping[str, Any] = {
        "type": "object",
        "properties": {
            "file_path": {"type": "string", "description": "Path of the file to write"},
            "content": {"type": "string", "description": "The whole new content"},
        },
        "required": ["file_path", "content"],
        "additionalProperties": False,
    }
    edits_files = True

    def write_paths(self, input: Mapping[str, Any]) -> Sequence[str]:
        return [input["file_path"]]

    def call(self, input: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        path = ctx.resolve(input["file_path"])
        if path.is_dir():
            return ToolOutput.tool_use_error(
                f"{path} is a directory, not a file. Put the new file's name at the end of "
                "file_path to create it there.")
        existed = path.exists()
        try:
            atomic_write_text(path, input["content"], root=ctx.root_of(path))
        except OSError as exc:
            return _failed("write", path, exc)
        if existed:
            return _updated(path, ctx)
        _known(ctx).add(str(path))
        return ToolOutput(f"File created successfully at: {path} {_STATE_NOTE}")


_EDIT_PROPS: dict[str, Any] = {
    "old_string": {"type": "string", "description": "The exact text to replace"},
    "new_string": {"type": "string", "description": "The text to put in its place"},
    "replace_all": {"type": "boolean", "description": "Replace every occurrence"},
}


def _apply_edit(text: str, old: str, new: str, replace_all: bool, label: str) -> str | ToolOutput:
    """The edited text, or the refusal (Claude Code's first line, ``String:`` the text)."""
    if old == new:
        return ToolOutput.tool_use_error(
            f"{label}No changes to make: old_string and new_string are exactly the same.")
    count = text.count(old)
    if count == 0:
        return ToolOutput.tool_use_error(
            f"{label}String to replace not found in file.\nString: {old}")
    if count > 1 and not replace_all:
        return ToolOutput.tool_use_error(
            f"{label}Found {count} matches of the string to replace, but replace_all is false. "
            "Set replace_all to true to change every one, or include more of the surrounding "
            f"text so that it matches once.\nString: {old}")
    return text.replace(old, new) if replace_all else text.replace(old, new, 1)


class EditTool(BlockingTool):
    name = "Edit"
    description = (
        "Replace old_string with new_string in a file. old_string must match the file exactly "
        "(whitespace included) and only once, unless replace_all is true. An empty old_string "
        "creates a file that does not exist yet."
    )
    input_schema: Mapping[str, Any] = {
        "type": "object",
        "properties": {"file_path": {"type": "string", "description": "Path of the file"},
                       **_EDIT_PROPS},
        "required": ["file_path", "old_string", "new_string"],
        "additionalProperties": False,
    }
    edits_files = True

    def write_paths(self, input: Mapping[str, Any]) -> Sequence[str]:
        return [input["file_path"]]

    def call(self, input: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        path = ctx.resolve(input["file_path"])
        old, new = input["old_string"], input["new_string"]
        if old == new:
            return ToolOutput.tool_use_error(
                "No changes to make: old_string and new_string are exactly the same.")
        if path.is_dir():
            return ToolOutput.tool_use_error(
                "Error calling tool (Edit): EISDIR: illegal operation on a directory, read")
        if old == "":
            if path.exists() and path.stat().st_size > 0:
                return ToolOutput.tool_use_error("Cannot create new file - file already exists.")
            created = not path.exists()
            try:
                atomic_write_text(path, new, root=ctx.root_of(path))
            except OSError as exc:
                return _failed("write", path, exc)
            return _updated(path, ctx, note=created or str(path) in _known(ctx))
        if not path.exists():
            return ToolOutput.tool_use_error(_missing(ctx))
        text = _read_text(path, ctx)
        if isinstance(text, ToolOutput):
            return text
        replace_all = bool(input.get("replace_all"))
        result = _apply_edit(text, old, new, replace_all, "")
        if isinstance(result, ToolOutput):
            return result
        try:
            atomic_write_text(path, result, root=ctx.root_of(path))
        except OSError as exc:
            return _failed("write", path, exc)
        knew = str(path) in _known(ctx)
        if replace_all:
            _known(ctx).add(str(path))
            tail = f" {_STATE_NOTE}" if knew else ""
            return ToolOutput(f"The file {path} has been updated. All occurrences were "
                              f"successfully replaced.{tail}")
        return _updated(path, ctx, note=knew)


class MultiEditTool(BlockingTool):
    name = "MultiEdit"
    description = (
        "Apply several edits to one file, in order, all or nothing. Each edit has old_string, "
        "new_string and optional replace_all, with the same rules as Edit."
    )
    input_schema: Mapping[str, Any] = {
        "type": "object",
        "properties": {
            "file_path": {"type": "string", "minLength": 1},
            "edits": {
                "type": "array",
                "minItems": 1,
                "items": {
                    "type": "object",
                    "properties": _EDIT_PROPS,
                    "required": ["old_string", "new_string"],
                    "additionalProperties": False,
                },
            },
        },
        "required": ["file_path", "edits"],
        "additionalProperties": False,
    }
    edits_files = True

    def write_paths(self, input: Mapping[str, Any]) -> Sequence[str]:
        return [input["file_path"]]

    def call(self, input: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        path = ctx.resolve(input["file_path"])
        edits = list(input["edits"])
        if not path.exists() and edits[0]["old_string"] == "":
            # Claude Code: a first edit with an empty old_string creates the file.
            text: str | ToolOutput = edits.pop(0)["new_string"]
            first = 2
        else:
            text = _read_text(path, ctx)
            first = 1
        if isinstance(text, ToolOutput):
            return text
        for i, edit in enumerate(edits, start=first):
            result = _apply_edit(
                text, edit["old_string"], edit["new_string"], bool(edit.get("replace_all")),
                f"Edit {i}: ",
            )
            if isinstance(result, ToolOutput):
                return ToolOutput.tool_use_error(
                    result.content.removeprefix("<tool_use_error>")
                    .removesuffix("</tool_use_error>") + "\n(no edit was applied)")
            text = result
        try:
            atomic_write_text(path, text, root=ctx.root_of(path))
        except OSError as exc:
            return _failed("write", path, exc)
        return ToolOutput(f"Applied {len(input['edits'])} edit(s) to {path}")
