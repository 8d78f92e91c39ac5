"""JSON with comments and trailing commas (``opencode.jsonc``, and ``opencode.json`` too).

OpenCode reads both config files with a JSONC parser: ``//`` and ``/* */`` comments and a comma
before ``}`` or ``]`` are accepted.  This module blanks comments and those commas out (keeping
every other character where it was, so the line and column of a syntax error stay true) and
hands the rest to :func:`json.loads`.  Nesting deeper than :data:`MAX_DEPTH` is refused before
parsing.  Duplicate keys: the last wins, as in JavaScript.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

__all__ = ["MAX_DEPTH", "JsoncError", "loads", "strip_jsonc"]

MAX_DEPTH = 200


@dataclass(frozen=True, slots=True)
class JsoncError(Exception):
    message: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.message} at line {self.line}, column {self.column}"


def strip_jsonc(text: str) -> tuple[str, int]:
    """``text`` with comments and trailing commas blanked; and the deepest nesting seen."""
    out = list(text)
    i, n = 0, len(text)
    depth = deepest = 0
    last_comma: int | None = None  # position of a comma not yet followed by a value
    previous = ""  # the last significant character before the current one
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            last_comma = None
            previous = '"'
            continue
        if c == "/" and text[i + 1: i + 2] == "/":
            j = text.find("\n", i)
            j = n if j == -1 else j
            for k in range(i, j):
                out[k] = " "
            i = j
            continue
        if c == "/" and text[i + 1: i + 2] == "*":
            j = text.find("*/", i + 2)
            j = n if j == -1 else j + 2
            for k in range(i, j):
                if out[k] != "\n":
                    out[k] = " "
            i = j
            continue
        if c in "{[":
            depth += 1
            deepest = max(deepest, depth)
        elif c in "}]":
            depth -= 1
            if last_comma is not None:
                out[last_comma] = " "
        if c == "," and previous not in ("{", "[", ","):
            last_comma = i
        elif not c.isspace():
            last_comma = None
        if not c.isspace():
            previous = c
        i += 1
    return "".join(out), deepest


def loads(text: str) -> Any:
    """Parse JSONC; raise :class:`JsoncError` with the line and column of the problem."""
    if text.startswith("\ufeff"):
        text = text[1:]
    cleaned, deepest = strip_jsonc(text)
    if deepest > MAX_DEPTH:
        raise JsoncError(f"nested more than {MAX_DEPTH} levels deep", 1, 1)
    if not cleaned.strip():
        return None
    try:
        return json.loads(cleaned)
    except json.JSONDecodeError as exc:
        raise JsoncError(exc.msg, exc.lineno, exc.colno) from None
    except RecursionError:
        raise JsoncError("nested too deeply", 1, 1) from None
