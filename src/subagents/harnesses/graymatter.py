"""Frontmatter as OpenCode 1.18.33 reads it: gray-matter over js-yaml 3, then its sanitizer.

OpenCode's ``ConfigMarkdown.parse`` (read in the JavaScript embedded in its binary) is::

    try { return matter(text) } catch { return matter(sanitize(text)) }

and a file whose second attempt throws too is skipped without a word.  This module reproduces
the three pieces so the OpenCode reader can say what OpenCode makes of a file:

* **gray-matter 4**: the file must start with ``---`` (not ``----``); the rest of the first line
  names a language (``--- foo`` asks for an engine that does not exist, which throws); the block
  ends at the first ``\\n---`` anywhere (even mid-word), or runs to the end of the file; the
  content is what follows, minus one ``\\r`` and one ``\\n``.  gray-matter **caches every input
  before parsing it**, so when the first parse throws and the sanitizer leaves the text as it
  was, the second call returns the cached, never-parsed file: no data at all, and the whole
  file (frontmatter included) as its content.  OpenCode then loads the agent with defaults.
* **js-yaml 3** ``safeLoad``: duplicate keys are an error; ``yes``/``no``/``on``/``off`` are
  strings; ``true``/``True``/``TRUE``, ``null``/``~``, decimal, ``0x``, ``0b``, leading-zero
  octal and ``_``-separated numbers, ``1e3`` floats and ``.inf``/``.nan`` are typed; a
  timestamp becomes a date.  The text is scanned by libyaml (PyYAML), whose idea of a syntax
  error matches js-yaml's on the cases that matter here (unquoted ``: `` in a value, unclosed
  flow collections, bad indentation); rare corner cases may differ.
* **The sanitizer**: for each frontmatter line that is not blank, a comment or indented, and is
  ``key: value`` with a key of letters, digits and ``_`` only (no ``-``), whose trimmed value is
  not empty, ``>``, ``|`` or quoted and contains a ``:``, the line becomes ``key: |-`` followed
  by the value indented two spaces.

Safety: the nesting depth is bounded before libyaml sees the text and aliases expand against a
budget, as in :mod:`subagents.claude_code.bun_yaml`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

import yaml

from subagents.formats.nesting import nesting_scan

__all__ = [
    "JsYamlError",
    "Matter",
    "js_trim",
    "jsyaml_load",
    "opencode_parse",
    "sanitize",
]

_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
MAX_DEPTH = 64
MAX_NODES = 100_000

_JS_SPACE = "\t\n\v\f\r \u00a0\u1680\u2028\u2029\u202f\u205f\u3000\ufeff" + "".join(
    chr(c) for c in range(0x2000, 0x200B)
)


def js_trim(text: str) -> str:
    """``String.prototype.trim``."""
    return text.strip(_JS_SPACE)


class JsYamlError(ValueError):
    """The text is not YAML js-yaml 3 would load."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


# --------------------------------------------------------------------------- js-yaml 3 scalars

_NULL = frozenset({"", "~", "null", "Null", "NULL"})
_TRUE = frozenset({"true", "True", "TRUE"})
_FALSE = frozenset({"false", "False", "FALSE"})
_INT = re.compile(
    r"[-+]?(?:0b[01_]+|0x[0-9a-fA-F_]+|0[0-7_]+|(?:0|[1-9][0-9_]*)(?::[0-5]?[0-9])*)\Z"
)
_FLOAT = re.compile(
    r"(?:[-+]?(?:[0-9][0-9_]*)(?:\.[0-9_]*)?(?:[eE][-+]?[0-9]+)?"
    r"|\.[0-9_]+(?:[eE][-+]?[0-9]+)?"
    r"|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))\Z"
)
_TIMESTAMP = re.compile(
    r"[0-9]{4}-[0-9][0-9]?-[0-9][0-9]?"
    r"(?:(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?"
    r"(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9]{2})?))?)?\Z"
)
_TYPED_START = frozenset("0123456789+-.~nNtTfF")


def _int(text: str) -> int:
    value = text.replace("_", "")
    sign = -1 if value.startswith("-") else 1
    value = value.lstrip("+-")
    if value.startswith("0b"):
        return sign * int(value[2:], 2)
    if value.startswith("0x"):
        return sign * int(value[2:], 16)
    if ":" in value:
        total = 0
        for part in value.split(":"):
            total = total * 60 + int(part)
        return sign * total
    if len(value) > 1 and value.startswith("0"):
        return sign * int(value[1:], 8)
    return sign * int(value)


def _float(text: str) -> float:
    value = text.replace("_", "").lower()
    if value.endswith(".inf"):
        return -math.inf if value.startswith("-") else math.inf
    if value == ".nan":
        return math.nan
    if ":" in value:
        sign = -1.0 if value.startswith("-") else 1.0
        total = 0.0
        for part in value.lstrip("+-").split(":"):
            total = total * 60 + float(part)
        return sign * total
    return float(value)


def resolve_plain(value: str) -> Any:
    """A plain scalar as js-yaml 3's default safe schema resolves it."""
    if value and value[0] not in _TYPED_START:
        return value
    if value in _NULL:
        return None
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    has_digit = any(c.isdigit() for c in value)
    if has_digit and _INT.match(value) and not value.endswith("_"):
        try:
            return _int(value)
        except ValueError:
            return value
    if _FLOAT.match(value) and not value.endswith("_") and (has_digit or "." in value):
        try:
            return _float(value)
        except ValueError:
            return value
    if _TIMESTAMP.match(value):
        return JsDate(value)
    return value


@dataclass(frozen=True, slots=True)
class JsDate:
    """A js-yaml timestamp (a JavaScript ``Date``): not a string to OpenCode's schema."""

    text: str


class _Builder:
    def __init__(self) -> None:
        self.budget = MAX_NODES

    def build(self, node: yaml.Node, depth: int = 0) -> Any:
        self.budget -= 1
        if self.budget < 0 or depth > MAX_DEPTH:
            raise JsYamlError("the YAML expands too far (an alias bomb?)", node.start_mark.line + 1)
        if isinstance(node, yaml.ScalarNode):
            if node.style:
                return node.value
            return resolve_plain(node.value)
        if isinstance(node, yaml.SequenceNode):
            return [self.build(item, depth + 1) for item in node.value]
        out: dict[str, Any] = {}
        merged: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                value = self.build(value_node, depth + 1)
                for part in value if isinstance(value, list) else [value]:
                    if isinstance(part, dict):
                        for k, v in part.items():
                            merged.setdefault(k, v)
                continue
            key = js_string(self.build(key_node, depth + 1))
            if key in out:
                raise JsYamlError("duplicated mapping key", key_node.start_mark.line + 1)
            out[key] = self.build(value_node, depth + 1)
        for k, v in merged.items():
            out.setdefault(k, v)
        return out


def js_string(value: Any) -> str:
    """``String(value)`` for the values YAML and JSON produce."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        if value.is_integer() and abs(value) < 1e21:
            return str(int(value))
        return repr(value)
    if isinstance(value, dict):
        return "[object Object]"
    if isinstance(value, list):
        return ",".join("" if v is None else js_string(v) for v in value)
    return str(value)


def jsyaml_load(text: str) -> Any:
    """js-yaml 3 ``safeLoad``; raises :class:`JsYamlError`."""
    depth, line = nesting_scan(text)
    if depth > MAX_DEPTH:
        raise JsYamlError(f"the YAML is nested more than {MAX_DEPTH} levels deep", line)
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        raise JsYamlError(exc.problem or str(exc), mark.line + 1 if mark else None) from None
    except (yaml.YAMLError, ValueError) as exc:  # the reader's "unacceptable character"
        raise JsYamlError(str(exc)) from None
    finally:
        loader.dispose()
    if node is None:
        return None
    return _Builder().build(node)


# --------------------------------------------------------------------------- gray-matter


@dataclass(frozen=True, slots=True)
class Matter:
    """What ``ConfigMarkdown.parse`` returned."""

    data: Any  # the YAML value (usually a dict; a string, list or None are possible)
    content: str  # the text after the block (not trimmed)
    has_block: bool  # a frontmatter block was found
    sanitized: bool  # the first parse failed and the sanitizer's text parsed
    cached_unparsed: bool  # the first parse failed, the sanitizer changed nothing: no data


class _MatterError(Exception):
    def __init__(self, message: str, line: int | None) -> None:
        super().__init__(message)
        self.line = line


def _gray_matter(text: str) -> Matter:
    if text == "" or not text.startswith("---"):
        return Matter({}, text, False, False, False)
    if text[3:4] == "-":
        return Matter({}, text, False, False, False)
    rest = text[3:]
    newline = re.search(r"\r?\n", rest)
    raw = rest[: newline.start()] if newline else rest[:-1]
    language = raw.strip()
    if language:
        rest = rest[len(raw):]
        if language.lower() not in ("yaml", "yml"):
            raise _MatterError(f'gray-matter engine "{language}" is not registered', 1)
    close = rest.find("\n---")
    close = len(rest) if close == -1 else close
    matter = rest[:close]
    data: Any
    if re.sub(r"^\s*#[^\n]+", "", matter, flags=re.M).strip(_JS_SPACE) == "":
        data = {}
    else:
        try:
            data = jsyaml_load(matter)
        except JsYamlError as exc:
            # the block's first line is line 1 of the file (the `---` line), so YAML line n is
            # file line n when the language line is empty
            raise _MatterError(str(exc), exc.line) from None
    content = "" if close == len(rest) else rest[close + 4:]
    if content.startswith("\r"):
        content = content[1:]
    if content.startswith("\n"):
        content = content[1:]
    return Matter({} if data is None else data, content, True, False, False)


_SANITIZE_BLOCK = re.compile(r"^---\r?\n([\s\S]*?)\r?\n---")
_SANITIZE_KEY = re.compile(r"^([a-zA-Z_][a-zA-Z0-9_]*)[ \t]*:[ \t]*(.*)$")


def sanitize(text: str) -> str:
    """OpenCode's fallback: quote ``key: value`` lines whose value holds a colon."""
    found = _SANITIZE_BLOCK.match(text)
    if not found:
        return text
    block = found.group(1)
    out: list[str] = []
    for line in re.split(r"\r?\n", block):
        stripped = js_trim(line)
        if stripped.startswith("#") or stripped == "" or line[:1] in _JS_SPACE:
            out.append(line)
            continue
        pair = _SANITIZE_KEY.match(line)
        if not pair:
            out.append(line)
            continue
        value = js_trim(pair.group(2))
        if value in ("", ">", "|") or value.startswith(("'", '"')) or ":" not in value:
            out.append(line)
            continue
        out.extend((f"{pair.group(1)}: |-", f"  {value}"))
    return text.replace(block, "\n".join(out), 1)


@dataclass(frozen=True, slots=True)
class ParseFailure:
    message: str  # OpenCode's own words
    line: int | None


def opencode_parse(text: str) -> Matter | ParseFailure:
    """``ConfigMarkdown.parse``: gray-matter, then the sanitizer; a failure means "skipped"."""
    try:
        return _gray_matter(text)
    except _MatterError as first:
        cleaned = sanitize(text)
        if cleaned == text:
            # gray-matter cached the input before the first parse threw: the second call
            # returns that never-parsed file
            return Matter({}, text, False, False, True)
        try:
            again = _gray_matter(cleaned)
        except _MatterError as second:
            line = second.line if second.line is not None else first.line
            return ParseFailure(f"Failed to parse YAML frontmatter: {second}", line)
        return Matter(again.data, again.content, True, True, False)
