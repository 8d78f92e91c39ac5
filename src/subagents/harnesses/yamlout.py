"""Frontmatter text that every YAML parser the harnesses use reads back as the same values.

The writers of OpenCode and Copilot emit frontmatter with this module rather than a YAML
library's dumper.  A dumper quotes what *its* resolver would misread (PyYAML: YAML 1.1), but
OpenCode reads with js-yaml 3 (``1e3`` is a number there and not in PyYAML) and Copilot with yet
another parser.  So the rule here is blunt: a string is written plain only when it is a word
that no parser could take for anything else; every other string is double-quoted, with JSON
escapes plus ``\\uXXXX`` for every character a YAML reader may refuse or treat as a line break.
A quoted value never spans lines, so the gray-matter ``\\n---`` close can never appear inside
the frontmatter.  Lists and maps of scalars are written in flow style (``["read", "search"]``);
a one-level map of scalars may be written as a block (``permission:``).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["block_map", "flow", "line", "quote"]

_PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9_]*(?:-[A-Za-z0-9_]+)*\Z")
# words some YAML reader types: 1.1 booleans and nulls, 1.2 special floats
_RESERVED = frozenset(
    w
    for base in ("y", "yes", "n", "no", "true", "false", "on", "off", "null", "nan", "inf")
    for w in (base, base.capitalize(), base.upper())
)
_ESCAPE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]"
)


def _escape(match: re.Match[str]) -> str:
    char = match.group(0)
    return {"\n": "\\n", "\t": "\\t", "\r": "\\r"}.get(char, f"\\u{ord(char):04x}")


def quote(text: str) -> str:
    """``text`` as a YAML scalar every parser reads back as that string."""
    if _PLAIN.match(text) and text not in _RESERVED and len(text) < 200:
        return text
    body = json.dumps(text, ensure_ascii=False)[1:-1]
    # json.dumps escaped \\ and \" and the C0 controls; the rest is done here
    return '"' + _ESCAPE.sub(_escape, body) + '"'


def flow(value: Any) -> str:
    """A JSON-like value in YAML flow style (strings quoted as :func:`quote`)."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            return ".nan" if math.isnan(value) else (".inf" if value > 0 else "-.inf")
        return repr(value)
    if isinstance(value, str):
        return quote(value)
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{_key(str(k))}: {flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, Sequence):
        return "[" + ", ".join(flow(v) for v in value) + "]"
    return quote(str(value))


def _key(key: str) -> str:
    return key if _PLAIN.match(key) and key not in _RESERVED else quote_always(key)


def quote_always(text: str) -> str:
    body = json.dumps(text, ensure_ascii=False)[1:-1]
    return '"' + _ESCAPE.sub(_escape, body) + '"'


def line(key: str, value: Any) -> str:
    """``key: value`` (one line)."""
    return f"{_key(key)}: {flow(value)}"


def block_map(key: str, value: Mapping[str, Any]) -> list[str]:
    """``key:`` then one ``  sub: value`` line per entry."""
    return [f"{_key(key)}:"] + [f"  {_key(str(k))}: {flow(v)}" for k, v in value.items()]
