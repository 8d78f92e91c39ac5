"""A small TOML emitter for the handful of shapes harness writers produce.

Why not a library?  Writers need exactly: top-level ``key = value`` lines, one level of
``[table]`` / ``[table.sub]`` sections, arrays of scalars, inline tables inside arrays, and one
long prompt as a multi-line string.  That is a page of code, and it lets the prompt use the
readable literal form ``'''…'''`` (what Codex's own docs show) instead of one escaped line.

Design notes
------------
* Every value this module writes reads back with :mod:`tomllib` as the same Python value; the
  tests check it with hostile text (``'''``, ``\"\"\"``, backslashes, control characters, CRLF,
  lone surrogates are refused by the caller's encoder).
* :func:`multiline` picks the literal form only when it is exact: no ``'''``, no control
  character other than tab and newline, no carriage return, not ending in ``'``.  Otherwise it
  writes a basic ``\"\"\"…\"\"\"`` string in which every ``\\`` and ``\"`` is escaped and control
  characters become ``\\uXXXX`` (newlines stay real newlines, so the text stays readable).
* The newline right after an opening delimiter is dropped by TOML, so the emitter always writes
  one; the closing delimiter follows the text directly so the value keeps no extra newline.
* Keys are bare when they can be (``A-Za-z0-9_-``), else basic-quoted.
* Nested mappings at the top level become ``[a.b]`` sections; mappings inside arrays become
  inline tables.  Values that TOML cannot hold (``None``, other objects) are skipped by
  :func:`clean`, which callers run first.
"""

from __future__ import annotations

import datetime as _dt
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["basic_string", "clean", "dump_document", "key", "multiline", "value"]

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_ESCAPES = {"\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r", '"': '\\"',
            "\\": "\\\\"}


def key(name: str) -> str:
    """A TOML key: bare when possible, else a basic string."""
    return name if _BARE_KEY.match(name) else basic_string(name)


def _escape_char(ch: str, *, keep_newline: bool) -> str:
    if ch == "\n" and keep_newline:
        return ch
    if ch in _ESCAPES:
        return _ESCAPES[ch]
    if ord(ch) < 0x20 or ord(ch) == 0x7F:
        return f"\\u{ord(ch):04X}"
    return ch


def basic_string(text: str) -> str:
    """A one-line basic string ``"…"`` holding ``text`` exactly."""
    return '"' + "".join(_escape_char(c, keep_newline=False) for c in text) + '"'


def multiline(text: str) -> str:
    """A multi-line string holding ``text`` exactly, literal ``'''`` when that is exact."""
    literal_ok = (
        "'''" not in text
        and "\r" not in text
        and not text.endswith("'")
        and not _CONTROL.search(text)
    )
    if literal_ok:
        return "'''\n" + text + "'''"
    body = "".join(_escape_char(c, keep_newline=True) for c in text)
    return '"""\n' + body + '"""'


def value(item: Any) -> str:
    """One inline TOML value (strings single-line, mappings as inline tables)."""
    if isinstance(item, bool):
        return "true" if item else "false"
    if isinstance(item, int):
        return str(item)
    if isinstance(item, float):
        if math.isnan(item):
            return "nan"
        if math.isinf(item):
            return "inf" if item > 0 else "-inf"
        text = repr(item)
        return text if any(c in text for c in ".eE") else text + ".0"
    if isinstance(item, str):
        return basic_string(item)
    if isinstance(item, _dt.datetime | _dt.date | _dt.time):
        return item.isoformat()
    if isinstance(item, Mapping):
        inner = ", ".join(f"{key(str(k))} = {value(v)}" for k, v in item.items())
        return "{ " + inner + " }" if inner else "{}"
    if isinstance(item, Sequence):
        return "[" + ", ".join(value(v) for v in item) + "]"
    raise TypeError(f"TOML cannot hold a {type(item).__name__}")


def clean(item: Any) -> Any:
    """``item`` with everything TOML cannot hold removed (None, objects, non-string keys)."""
    if isinstance(item, bool | int | float | str | _dt.datetime | _dt.date | _dt.time):
        return item
    if isinstance(item, Mapping):
        out = {}
        for k, v in item.items():
            if not isinstance(k, str):
                continue
            cleaned = clean(v)
            if cleaned is not None:
                out[k] = cleaned
        return out
    if isinstance(item, list | tuple):
        return [c for c in (clean(v) for v in item) if c is not None]
    return None


def _is_table(item: Any) -> bool:
    return isinstance(item, Mapping)


def _section(path: tuple[str, ...], table: Mapping[str, Any], out: list[str]) -> None:
    scalars = [(k, v) for k, v in table.items() if not _is_table(v)]
    tables = [(k, v) for k, v in table.items() if _is_table(v)]
    if path and (scalars or not tables):
        out.append("")
        out.append("[" + ".".join(key(p) for p in path) + "]")
    for k, v in scalars:
        out.append(f"{key(k)} = {value(v)}")
    for k, v in tables:
        _section((*path, k), v, out)


def dump_document(
    head: Sequence[tuple[str, str]], rest: Mapping[str, Any]
) -> str:
    """A TOML document: ``head`` lines written as given (``key``, already-rendered value),
    then the ``rest`` mapping (scalars first, then sections)."""
    out = [f"{key(k)} = {rendered}" for k, rendered in head]
    _section((), rest, out)
    return "\n".join(out) + "\n"
