"""File tools: ``Read``, ``Write``, ``Edit``, ``MultiEdit`` (Claude Code names and fields).

Design notes
------------
* ``Read{file_path, offset, limit}`` prints lines ``cat -n`` style (number, tab, text) like
  Claude Code, so prompts written for it keep working.  ``offset`` is the 1-based first line,
  ``limit`` the number of lines (default 2000); lines longer than 2000 characters are cut.
* A binary file (a NUL byte in the first 8 KiB, or not UTF-8) is refused with an ``is_error``
  that says so; a file over 256 KiB read without ``offset``/``limit`` is refused with a hint to
  page through it; the text returned is capped at 100,000 characters in every case.  Reading
  streams line by line, so paging through a huge file never loads it whole.
* Writes are atomic: a temporary file in the same folder, ``fsync``, ``os.replace``; an existing
  file keeps its mode.  Parent folders are created.
* ``Edit`` needs ``old_string`` to occur exactly once unless ``replace_all``; an empty
  ``old_string`` on a missing file creates it (Claude Code does the same; so does a first
  ``MultiEdit`` edit with an empty ``old_string``).  ``MultiEdit`` applies its edits in order to
  an in-memory copy and writes once: all or nothing.
* Where a write may land (inside the working folder) is the permission policy's job; these tools
  report their targets through ``write_paths``.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from subagents.fs import atomic_write
from subagents.runtime.tools.base import BlockingTool, ToolContext, ToolOutput

__all__ = ["EditTool", "MultiEditTool", "ReadTool", "WriteTool", "atomic_write_text"]

MAX_READ_BYTES = 256 * 1024
MAX_OUTPUT_CHARS = 100_000
DEFAULT_LIMIT = 2000
MAX_LINE_CHARS = 2000
_SNIFF = 8192


def atomic_write_text(path: Path, text: str, *, fsync: bool = True) -> None:
    """The Write and Edit tools' write: :func:`subagents.fs.atomic_write`, parents created."""
    atomic_write(path, text, fsync=fsync, make_parents=True)


def _read_text(path: Path) -> str | ToolOutput:
    """The file's text, or an ``is_error`` output saying why it cannot be edited."""
    if path.is_dir():
        return ToolOutput.error(f"{path} is a directory, not a file")
    try:
        if path.exists() and not path.is_file():
            return ToolOutput.error(f"{path} is not a regular file; it cannot be edited")
        data = path.read_bytes()
    except FileNotFoundError:
        return ToolOutput.error(f"file not found: {path}")
    except OSError as exc:
        return ToolOutput.error(f"cannot read {path}: {exc.strerror or exc}")
    if b"\x00" in data[:_SNIFF]:
        return ToolOutput.error(f"{path} is a binary file; it cannot be edited as text")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return ToolOutput.error(f"{path} is not UTF-8 text; it cannot be edited as text")


class ReadTool(BlockingTool):
    name = "Read"
    description = (
        "Read a text file from the local filesystem. file_path may be absolute or relative to "
        "the working directory. Returns lines numbered like `cat -n`. Use offset (1-based line) "
        "and limit (number of lines) to read part of a long file."
    )
    input_schema: Mapping[str, Any] = {
        "type": "object",
        "properties": {
            "file_path": {"type": "string", "minLength": 1, "description": "Path of the file"},
            "offset": {"type": "integer", "minimum": 1, "description": "First line (1-based)"},
            "limit": {"type": "integer", "minimum": 1, "description": "Number of lines"},
        },
        "required": ["file_path"],
        "additionalProperties": False,
    }
    read_only = True

    def read_paths(self, input: Mapping[str, Any]) -> Sequence[str]:
        return [input["file_path"]] if isinstance(input.get("file_path"), str) else []

    def call(self, input: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        path = ctx.resolve(input["file_path"])
        if path.is_dir():
            return ToolOutput.error(f"{path} is a directory; use LS to list it")
        # Regular files only, opened without blocking: a FIFO, /dev/zero or a terminal must
        # not hang the run (issue 12).  fstat on the open descriptor: no swap in between.
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        except FileNotFoundError:
            return ToolOutput.error(f"file not found: {path}")
        except OSError as exc:
            return ToolOutput.error(f"cannot read {path}: {exc.strerror or exc}")
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                return ToolOutput.error(f"{path} is not a regular file (a device, FIFO or "
                                        "socket); Read only returns the text of files")
            size = st.st_size
            os.set_blocking(fd, True)
            fh_raw = os.fdopen(fd, "rb")
            fd = -1  # owned by fh_raw now
        finally:
            if fd >= 0:
                os.close(fd)
        offset = int(input.get("offset") or 1)
        paged = "offset" in input or "limit" in input
        if size > MAX_READ_BYTES and not paged:
            return ToolOutput.error(
                f"{path} is {size:,} bytes, more than the {MAX_READ_BYTES // 1024} KiB Read "
                "returns at once; read part of it with offset and limit (e.g. limit: 500), "
                "or search it with Grep"
            )
        limit = int(input.get("limit") or DEFAULT_LIMIT)
        try:
            with fh_raw as fh:
                head = fh.read(_SNIFF)
                if b"\x00" in head:
                    return ToolOutput.error(
                        f"{path} is a binary file ({size:,} bytes); Read only returns text"
                    )
                fh.seek(0)
                return self._lines(path, fh, offset, limit, size)
        except OSError as exc:
            return ToolOutput.error(f"cannot read {path}: {exc.strerror or exc}")

    def _lines(self, path: Path, fh: Any, offset: int, limit: int, size: int) -> ToolOutput:
        if size == 0:
            return ToolOutput(f"(the file {path} is empty)")
        out: list[str] = []
        chars = 0
        last = offset - 1
        truncated = False
        for number, raw in enumerate(fh, start=1):
            if number < offset:
                continue
            if number >= offset + limit:
                truncated = True
                break
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                return ToolOutput.error(f"{path} is not UTF-8 text (line {number}); Read only "
                                        "returns text")
            line = line.rstrip("\r\n")
            if len(line) > MAX_LINE_CHARS:
                line = line[:MAX_LINE_CHARS] + " [line truncated]"
            entry = f"{number:6}\t{line}"
            chars += len(entry) + 1
            if chars > MAX_OUTPUT_CHARS:
                truncated = True
                break
            out.append(entry)
            last = number
        if not out:
            return ToolOutput.error(f"{path} has fewer than {offset} lines")
        text = "\n".join(out)
        if truncated:
            text += f"\n[output stops at line {last}; continue with offset: {last + 1}]"
        return ToolOutput(text)


class WriteTool(BlockingTool):
    name = "Write"
    description = (
        "Write a file (create or overwrite) with the given content. file_path may be absolute "
        "or relative to the working directory; parent folders are created."
    )
    input_schema: Mapping[str, Any] = {
        "type": "object",
        "properties": {
            "file_path": {"type": "string", "minLength": 1},
            "content": {"type": "string"},
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
            return ToolOutput.error(f"{path} is a directory")
        existed = path.exists()
        try:
            atomic_write_text(path, input["content"])
        except OSError as exc:
            return ToolOutput.error(f"cannot write {path}: {exc.strerror or exc}")
        verb = "Updated" if existed else "Created"
        return ToolOutput(f"{verb} {path} ({len(input['content'])} characters)")


_EDIT_PROPS: dict[str, Any] = {
    "old_string": {"type": "string"},
    "new_string": {"type": "string"},
    "replace_all": {"type": "boolean"},
}


def _apply_edit(text: str, old: str, new: str, replace_all: bool, label: str) -> str | ToolOutput:
    if old == new:
        return ToolOutput.error(f"{label}: old_string and new_string are the same; nothing to do")
    count = text.count(old)
    if count == 0:
        return ToolOutput.error(f"{label}: old_string not found in the file (it must match "
                                "exactly, whitespace included)")
    if count > 1 and not replace_all:
        return ToolOutput.error(
            f"{label}: old_string occurs {count} times; give more surrounding context to make "
            "it unique, or set replace_all: true"
        )
    return text.replace(old, new) if replace_all else text.replace(old, new, 1)


class EditTool(BlockingTool):
    name = "Edit"
    description = (
        "Replace old_string with new_string in a file. old_string must occur exactly once "
        "unless replace_all is true. An empty old_string on a missing file creates it."
    )
    input_schema: Mapping[str, Any] = {
        "type": "object",
        "properties": {"file_path": {"type": "string", "minLength": 1}, **_EDIT_PROPS},
        "required": ["file_path", "old_string", "new_string"],
        "additionalProperties": False,
    }
    edits_files = True

    def write_paths(self, input: Mapping[str, Any]) -> Sequence[str]:
        return [input["file_path"]]

    def call(self, input: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        path = ctx.resolve(input["file_path"])
        old, new = input["old_string"], input["new_string"]
        if old == "" and not path.exists():
            try:
                atomic_write_text(path, new)
            except OSError as exc:
                return ToolOutput.error(f"cannot write {path}: {exc.strerror or exc}")
            return ToolOutput(f"Created {path}")
        if old == "":
            return ToolOutput.error("old_string is empty but the file exists; give the text "
                                    "to replace")
        text = _read_text(path)
        if isinstance(text, ToolOutput):
            return text
        result = _apply_edit(text, old, new, bool(input.get("replace_all")), "Edit")
        if isinstance(result, ToolOutput):
            return result
        try:
            atomic_write_text(path, result)
        except OSError as exc:
            return ToolOutput.error(f"cannot write {path}: {exc.strerror or exc}")
        n = text.count(old) if input.get("replace_all") else 1
        return ToolOutput(f"Edited {path} ({n} replacement{'s' if n != 1 else ''})")


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
            text = _read_text(path)
            first = 1
        if isinstance(text, ToolOutput):
            return text
        for i, edit in enumerate(edits, start=first):
            result = _apply_edit(
                text, edit["old_string"], edit["new_string"], bool(edit.get("replace_all")),
                f"edit {i}",
            )
            if isinstance(result, ToolOutput):
                return ToolOutput.error(result.content + " (no edit was applied)")
            text = result
        try:
            atomic_write_text(path, text)
        except OSError as exc:
            return ToolOutput.error(f"cannot write {path}: {exc.strerror or exc}")
        return ToolOutput(f"Applied {len(input['edits'])} edit(s) to {path}")
