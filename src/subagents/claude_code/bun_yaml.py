"""YAML as Claude Code reads frontmatter: ``Bun.YAML.parse`` emulated on libyaml.

Claude Code 2.1.330 parses agent frontmatter with Bun's YAML parser, which differs from the
strict reader in :mod:`subagents.formats.yamltree` (and from PyYAML's ``safe_load``) in ways that
decide whether an agent loads and what it says:

* duplicate keys are accepted and the **last** one wins;
* anchors and aliases are resolved;
* a tag on a value is accepted and dropped (``!important reviewer`` reads ``reviewer``);
* plain scalars resolve with the YAML 1.2 core schema: ``yes``/``no``/``on``/``off`` stay
  strings and there are no timestamps (``created: 2024-01-01`` is a string), while ``true``,
  ``false``, ``null``, ``~``, integers and floats are typed.

Safety comes first, before any of that: the nesting depth is bounded by a plain scan of the
text before libyaml's C composer sees it (deeply nested input can crash a recursive C parser),
and aliases are expanded against a budget of constructed nodes, so an alias bomb or a recursive
alias is refused (:class:`AliasBombError`) instead of eating memory. Claude Code itself expands
such a document; we refuse it deliberately and report it as a security finding.
"""

from __future__ import annotations

import math

import yaml

from subagents._lazy_re import lazy_compile
from subagents.formats.nesting import nesting_depth, nesting_scan
from subagents.formats.yamltree import YMap, YScalar, YSeq

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "MAX_DEPTH",
    "MAX_NODES",
    "AliasBombError",
    "BunYamlError",
    "TooDeepError",
    "bun_value",
    "nesting_depth",
    "nesting_scan",
    "parse",
]

_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

MAX_DEPTH = 64  # agent frontmatter is a flat mapping with a few nested lists
MAX_NODES = 100_000  # constructed values, aliases counted each time they are expanded


class BunYamlError(ValueError):
    """The text is not YAML that Bun's parser would accept (as far as libyaml can tell)."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None) -> None:
        super().__init__(message)
        self.line = line
        self.column = column


class TooDeepError(BunYamlError):
    """Nested deeper than :data:`MAX_DEPTH`: refused before parsing (a hostile file)."""


class AliasBombError(BunYamlError):
    """Aliases that expand beyond :data:`MAX_NODES` values, or refer to themselves."""


# --------------------------------------------------------------------------- YAML 1.2 core

_NULL = frozenset({"", "~", "null", "Null", "NULL"})
_TRUE = frozenset({"true", "True", "TRUE"})
_FALSE = frozenset({"false", "False", "FALSE"})
_INT10 = lazy_compile(r"[-+]?[0-9]+\Z")
_INT8 = lazy_compile(r"0o[0-7]+\Z")
_INT16 = lazy_compile(r"0x[0-9a-fA-F]+\Z")
_FLOAT = lazy_compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?\Z")
_INF = lazy_compile(r"[-+]?\.(?:inf|Inf|INF)\Z")
_NAN = lazy_compile(r"\.(?:nan|NaN|NAN)\Z")


# Every non-string plain scalar of the 1.2 core schema starts with one of these (or is empty).
_TYPED_START = frozenset("0123456789+-.~nNtTfF")
_LETTER_START = frozenset("nNtTfF")  # null, true, false: the only typed words


# the typed words of the 1.2 core schema (and the empty text): their values
_WORDS: dict[str, Any] = {
    **dict.fromkeys(_NULL), **dict.fromkeys(_TRUE, True), **dict.fromkeys(_FALSE, False)}
_NOT_A_WORD = object()


def resolve_plain(value: str) -> Any:
    """A plain (unquoted) scalar resolved with the YAML 1.2 core schema."""
    if value and value[0] not in _TYPED_START:
        return value  # the common case: text
    word = _WORDS.get(value, _NOT_A_WORD)
    if word is not _NOT_A_WORD:
        return word  # null, true, false (and their spellings), ~, the empty text
    if value[0] in _LETTER_START:
        return value  # (`name`, `tools`: no number starts with a letter)
    if _INT10.match(value):
        # JavaScript reads every number as a double: past ~308 digits that is Infinity (and
        # Python refuses int() of more than 4,300 digits, which a hostile file can write)
        return int(value) if len(value) <= 300 else float(value)
    if _INT8.match(value):
        return int(value[2:], 8)
    if _INT16.match(value):
        return int(value[2:], 16)
    if _FLOAT.match(value):
        return float(value)
    if _INF.match(value):
        return -math.inf if value.startswith("-") else math.inf
    if _NAN.match(value):
        return math.nan
    return value


_STANDARD = "tag:yaml.org,2002:"


class _Builder:
    __slots__ = ("active", "budget")

    def __init__(self) -> None:
        self.budget = MAX_NODES
        self.active: set[int] = set()

    def build(self, node: yaml.Node) -> Any:
        self.budget -= 1
        if self.budget < 0:
            raise AliasBombError(
                f"the YAML expands to more than {MAX_NODES:,} values (an alias bomb?)",
                node.start_mark.line + 1,
                node.start_mark.column + 1,
            )
        if isinstance(node, yaml.ScalarNode):
            return self._scalar(node)
        key = id(node)
        if key in self.active:
            raise AliasBombError(
                "a YAML alias refers to the value that contains it",
                node.start_mark.line + 1,
                node.start_mark.column + 1,
            )
        self.active.add(key)
        try:
            if isinstance(node, yaml.SequenceNode):
                return [self.build(item) for item in node.value]
            out: dict[Any, Any] = {}
            for key_node, value_node in node.value:
                if key_node.tag == _STANDARD + "merge":
                    merged = self.build(value_node)
                    for part in merged if isinstance(merged, list) else [merged]:
                        if isinstance(part, dict):
                            for k, v in part.items():
                                out.setdefault(k, v)
                    continue
                k = self.build(key_node)
                if isinstance(k, (list, dict)):
                    k = str(k)
                out.pop(k, None)  # last wins, and in the position of the last
                out[k] = self.build(value_node)
            return out
        finally:
            self.active.discard(key)

    @staticmethod
    def _scalar(node: yaml.ScalarNode) -> Any:
        if node.style:
            return node.value  # quoted or block: always a string
        # Plain: re-resolved with the 1.2 core schema whatever libyaml's 1.1 resolver or a tag
        # said (Bun drops tags; an explicit `!!str 12` reading as 12 is the one known miss).
        return resolve_plain(node.value)


def parse(text: str, composed: Exception | None = None) -> Any:
    """Parse one YAML document as Bun would; raise :class:`BunYamlError` if it is not YAML.

    ``composed``: what libyaml's composer raised on this very text when another reader
    composed it (the strict reader, :func:`~subagents.formats.yamltree.composer_refusal`);
    the composer here is the same, so it raises the same: that answer is given without a
    second parse (after the depth check, as always)."""
    depth, line = nesting_scan(text)
    if depth > MAX_DEPTH:
        raise TooDeepError(f"the YAML is nested more than {MAX_DEPTH} levels deep", line, 1)
    if composed is not None:
        raise _refusal(composed)
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
    except yaml.YAMLError as exc:
        raise _refusal(exc) from None
    finally:
        loader.dispose()
    if node is None:
        return None
    return _Builder().build(node)


def _refusal(exc: Exception) -> BunYamlError:
    """libyaml's error ``exc`` as :func:`parse` reports it."""
    if not isinstance(exc, yaml.MarkedYAMLError):
        return BunYamlError(str(exc))
    # "could not find expected ':'" is marked where the scanner gave up (the next line);
    # the line at fault is where the would-be key started.
    simple_key = (exc.context or "").startswith("while scanning a simple key")
    mark = (exc.context_mark if simple_key else None) or exc.problem_mark or exc.context_mark
    problem = exc.problem or str(exc)
    return BunYamlError(
        problem, mark.line + 1 if mark else None, mark.column + 1 if mark else None)


#: plain keys whose 1.2 core value is text, by their text (see bun_value)
_TEXT_KEYS: dict[str, str] = {}


def bun_value(node: Any) -> Any:
    """A strict-reader tree (:mod:`subagents.formats.yamltree`) as Bun's value: plain scalars
    resolved with the 1.2 core schema, the last of duplicate keys kept.  The tree has no
    aliases (the strict reader refuses them), so this is a plain walk."""
    kind = type(node)
    if kind is YScalar:
        value: str = node.value
        if node.style or (value and value[0] not in _TYPED_START):
            return value
        return resolve_plain(value)
    if kind is YMap:
        out: dict[Any, Any] = {}
        for key, item in node.pairs:  # (keys are scalars: the strict reader refuses others)
            k: Any = key.value
            if not key.style:
                # a plain key that resolves to text is remembered (`name`, `tools`: every
                # file's keys); another (a number, null, a NaN that equals nothing) is not
                resolved = _TEXT_KEYS.get(k)
                if resolved is None:
                    resolved = resolve_plain(k)
                    if type(resolved) is str and len(_TEXT_KEYS) < 4096:
                        _TEXT_KEYS[k] = resolved
                k = resolved
            out.pop(k, None)  # last wins, in the position of the last
            if type(item) is YScalar:  # (a field's scalar value: the case above, in place)
                v: Any = item.value
                if not item.style and (not v or v[0] in _TYPED_START):
                    # resolve_plain's steps in place: a typed word, text that starts with a
                    # letter (`test-runner`), else a number or text
                    if v in _WORDS:
                        v = _WORDS[v]
                    elif v[0] not in _LETTER_START:
                        v = resolve_plain(v)
                out[k] = v
            else:
                out[k] = bun_value(item)
        return out
    if kind is YSeq:
        return [bun_value(item) for item in node.items]
    return None
