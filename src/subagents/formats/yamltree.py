"""A safe YAML reader that keeps the position of every key and value.

Why not ``yaml.safe_load``?  It silently keeps the last of two duplicate keys, expands aliases
(an alias bomb expands when the loaded value is walked — and validation walks it), and forgets
where things were.  We run libyaml's *parser* (``CSafeLoader`` when compiled in) and build our
own small node tree from the event stream, so:

* every node carries its 1-based line and column (offset by where the frontmatter starts);
* anchors and aliases are refused at the first one (``SA008``) — nothing is ever expanded;
* tags other than YAML's standard ones are refused (``SA009``);
* duplicate keys are refused (``SA007``), naming the line of the first one.

Scalars keep their source text and style; :meth:`YScalar.to_python` resolves plain scalars with
YAML 1.1's implicit rules (as PyYAML does, so ``yes`` is ``True``), because that is what every
harness reading these files does.

Most frontmatter is only one-line ``key: value`` fields.  Such a text is read with one pattern
instead of libyaml (see "the simple frontmatter" below): the subset is chosen so that the tree
is the one libyaml's nodes give, and a test compares the two; anything outside it, and every
text of a process's first few, goes to libyaml.  Once a process reads the simple way, the
optional C extension reads the lines when it is built (``_speedups.simple_rows``: the
pattern's rows, in one pass; a test compares the two).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import field, replace

import yaml

from subagents._dataclass import dataclass
from subagents._lazy_re import lazy_compile
from subagents.formats.nesting import nesting_scan

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "YMap",
    "YNode",
    "YScalar",
    "YSeq",
    "YamlIssue",
    "YamlTree",
    "parse_yaml_tree",
]

# libyaml's C parser is ~10x faster; fall back to the pure-Python one.
_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_CParser: Any
try:  # libyaml's parser: its own set-up is all a loader that only composes needs (below)
    from yaml._yaml import CParser as _CParser
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    _CParser = None

_STANDARD_TAG_PREFIX = "tag:yaml.org,2002:"
_STR_TAG = _STANDARD_TAG_PREFIX + "str"
_ALLOWED_TAGS = frozenset(
    _STANDARD_TAG_PREFIX + t
    for t in ("str", "int", "float", "bool", "null", "seq", "map", "timestamp")
)
_resolver = yaml.resolver.Resolver()
_constructor = yaml.constructor.SafeConstructor()


class _TreeLoader(_Loader):  # type: ignore[misc]
    """The safe loader, answering the composer's per-node questions without a detour.

    The composer asks, for every node, ``descend_resolver``/``ascend_resolver`` (path
    resolvers: the safe loader has none, so they do nothing) and ``resolve`` (the implicit tag
    of a scalar: a regular expression per candidate type, looked up by the first character).
    A quoted scalar, or a plain one whose first character no implicit type starts with, is a
    string whatever the rest says, so that answer is given at once; every other scalar is
    resolved as the safe loader resolves it (a test compares the tags node for node).
    """

    if _CParser is not None and issubclass(_Loader, _CParser):
        def __init__(self, stream: str) -> None:
            # libyaml's parser only: the constructor's and resolver's set-up (the tables of
            # objects built, the path resolvers' stacks) is for loading and path resolvers,
            # and this loader only composes, answering the resolver's questions below
            _CParser.__init__(self, stream)

    def descend_resolver(self, current_node: Any, current_index: Any) -> None:
        return None

    def ascend_resolver(self) -> None:
        return None

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        if kind is _ScalarNode:
            if not implicit[0] or (value and value[0] not in _TYPED_FIRST):
                return _STR_TAG
            return _PLAIN_TAGS.get(value) or _plain_tag(value)
        return _resolve(self, kind, value, implicit)


#: plain scalar text -> its implicit tag (what the safe loader's resolver answers); bounded
_PLAIN_TAGS: dict[str, str] = {}
_PLAIN_TAGS_MAX = 4096


def _plain_tag(value: str) -> str:
    """The implicit tag of a plain scalar, as the safe loader's resolver gives it.

    A plain scalar's tag is a function of its text alone (no path resolvers: the rest of the
    composer's ``implicit`` is read only by those), and the same keys and words come back in
    every file (``name``, ``tools``, ``true``): each text is resolved once (``_PLAIN_TAGS``).
    The resolver reads only class attributes (its implicit resolvers, its default tag), so it
    is asked as the loader class."""
    tag: str = _resolve(_TreeLoader, _ScalarNode, value, (True, False))
    if len(_PLAIN_TAGS) >= _PLAIN_TAGS_MAX:
        _PLAIN_TAGS.clear()
    _PLAIN_TAGS[value] = tag
    return tag


_ScalarNode = yaml.ScalarNode
_resolve = _Loader.resolve
# The first characters some implicit (non-string) type of the safe loader starts with.
_TYPED_FIRST = frozenset(k for k in _Loader.yaml_implicit_resolvers if k)
if None in _Loader.yaml_implicit_resolvers or _Loader.yaml_path_resolvers:  # pragma: no cover
    # someone taught the safe loader a type any character may start, or a path resolver:
    # the shortcut above would miss it (and so would the simple reading below)
    _TreeLoader = _Loader  # type: ignore[misc]
    _SIMPLE = False
else:
    _SIMPLE = _CParser is not None

# The simple reading's pattern costs more to compile (about 1.5 M instructions) than libyaml
# costs to read a dozen frontmatters (about 0.1 M each): a process reads its first texts with
# libyaml, and only one that reads more (a folder, a tree) compiles it.  The tree is the same
# either way (tests/test_yamltree_simple.py).
_SIMPLE_AFTER = 16
_PARSED = [0]  # frontmatters read with libyaml so far (counted up to _SIMPLE_AFTER)


@dataclass(slots=True)
class YScalar:
    """A scalar with its source text, style and position."""

    value: str
    line: int
    column: int
    style: str | None = None  # None/'' plain, "'" / '"' quoted, '|' / '>' block
    tag: str | None = None
    end_line: int = 0
    end_column: int = 0
    resolved_tag: str | None = None  # the implicit tag, when the composer already resolved it

    @property
    def is_plain(self) -> bool:
        return not self.style

    def to_python(self) -> Any:
        given = self.tag
        # (quoted or block; tagged a string; or plain and resolved as one: the text itself)
        if self.style or (given or self.resolved_tag) == _STR_TAG or given == "!":
            return self.value
        tag = (
            given
            or self.resolved_tag
            or _resolver.resolve(  # type: ignore[no-untyped-call]
                yaml.ScalarNode, self.value, (True, False)
            )
        )
        if tag == _STR_TAG:
            return self.value
        node = yaml.ScalarNode(tag, self.value)
        try:
            return _constructor.construct_object(node, deep=True)
        except (yaml.YAMLError, ValueError, TypeError, OverflowError):
            return self.value


@dataclass(slots=True)
class YSeq:
    """A sequence and where it starts."""

    items: list[YNode]
    line: int
    column: int
    flow: bool = False

    def to_python(self) -> list[Any]:
        return [item.to_python() for item in self.items]


@dataclass(slots=True)
class YMap:
    """A mapping as its key/value pairs in file order, and where it starts."""

    pairs: list[tuple[YScalar, YNode]]
    line: int
    column: int
    flow: bool = False

    def to_python(self) -> dict[str, Any]:
        return {k.value: v.to_python() for k, v in self.pairs}

    def get(self, key: str) -> YNode | None:
        for k, v in self.pairs:
            if k.value == key:
                return v
        return None

    def keys(self) -> Iterator[YScalar]:
        return (k for k, _ in self.pairs)


YNode = YScalar | YSeq | YMap


@dataclass(frozen=True, slots=True)
class YamlIssue:
    """A problem found while building the tree: ``code`` is a rule code from the catalogue.

    ``key`` is the frontmatter key the problem is about (a duplicate key, a field of the wrong
    type) and ``subject`` the construct it names (``YAML anchor `&a` ``): typed, so that code
    re-wording or re-coding a finding never parses ``message``."""

    code: str
    message: str
    line: int
    column: int
    hint: str | None = None
    key: str | None = None
    subject: str | None = None


@dataclass(slots=True)
class YamlTree:
    """The root node, the problems found while building it, and a syntax error if any."""

    root: YNode | None
    issues: list[YamlIssue] = field(default_factory=list)
    error: YamlIssue | None = None  # a syntax error: the tree is unusable


# Agent frontmatter is at most a few levels deep (hooks: event -> matcher list -> hook list ->
# hook).  Anything deeper is refused before our recursive conversion could hit Python's limit.
MAX_DEPTH = 64


def _too_deep(line: int, column: int) -> YamlIssue:
    return YamlIssue(
        "SA005",
        f"invalid YAML: nested more than {MAX_DEPTH} levels deep",
        line,
        column,
        "agent frontmatter is a flat mapping with a few nested lists; remove the nesting",
    )


def _scalar(node: Any, offset: int) -> YScalar:
    start, end = node.start_mark, node.end_mark
    return YScalar(node.value, start.line + 1 + offset, start.column + 1, node.style or None,
                   None, end.line + 1 + offset, end.column + 1, node.tag)


def _from_node(node: Any, offset: int, issues: list[YamlIssue], depth: int = 0) -> YNode:
    """Convert a composed PyYAML node (from the C composer) into our tree."""
    if depth > MAX_DEPTH:
        start = node.start_mark
        raise _Refused(_too_deep(start.line + 1 + offset, start.column + 1))
    kind = type(node)
    if kind is _ScalarNode:
        return _scalar(node, offset)
    start = node.start_mark
    line, column = start.line + 1 + offset, start.column + 1
    deeper = depth + 1
    if kind is _SequenceNode:
        return YSeq(
            [_scalar(item, offset) if type(item) is _ScalarNode and deeper <= MAX_DEPTH
             else _from_node(item, offset, issues, deeper) for item in node.value],
            line,
            column,
            bool(node.flow_style),
        )
    pairs: list[tuple[YScalar, YNode]] = []
    seen: dict[str, int] = {}
    shallow = deeper <= MAX_DEPTH  # (its scalars are converted here, not by a call each)
    for key_node, value_node in node.value:
        key = (_scalar(key_node, offset) if shallow and type(key_node) is _ScalarNode
               else _from_node(key_node, offset, issues, deeper))
        if not isinstance(key, YScalar):
            issues.append(
                YamlIssue(
                    "SA005",
                    "a mapping key must be a plain value, not a list or mapping",
                    key.line,
                    key.column,
                )
            )
            continue
        if key.value in seen:
            issues.append(_duplicate(key, seen[key.value]))
        else:
            seen[key.value] = key.line
        pairs.append((key, _scalar(value_node, offset)
                      if shallow and type(value_node) is _ScalarNode
                      else _from_node(value_node, offset, issues, deeper)))
    return YMap(pairs, line, column, bool(getattr(node, "flow_style", False)))


_SequenceNode = yaml.SequenceNode


def _duplicate(key: YScalar, first_line: int) -> YamlIssue:
    return YamlIssue(
        "SA007",
        f"duplicate key `{key.value}` (first defined on line {first_line})",
        key.line,
        key.column,
        "YAML parsers keep only one of the two values, silently; delete one of them",
        key=key.value,
    )


def _no_alias(subject: str, line: int, column: int, hint: str) -> YamlIssue:
    return YamlIssue("SA008", f"{subject} is not allowed in agent frontmatter", line, column,
                     hint, subject=subject)


class _Refused(Exception):
    def __init__(self, issue: YamlIssue) -> None:
        self.issue = issue


def parse_yaml_tree(text: str, *, line_offset: int = 0, exact_error: bool = True) -> YamlTree:
    """Parse one YAML document into a position-carrying tree.

    ``line_offset`` is added to every 1-based line so positions are file positions.
    Never raises for bad input: syntax errors come back in ``YamlTree.error``.
    ``exact_error=False``: a caller that only asks *whether* the text reads (the frontmatter's
    recovery, field by field) may get :data:`UNREAD` as the error of a text that does not,
    without the second, event-by-event parse that finds the error's own message and place.
    """
    if _PARSED[0] >= _SIMPLE_AFTER:
        simple = _simple_tree(text, line_offset)
        if simple is not None:
            return simple
    elif _SIMPLE:
        _PARSED[0] += 1
        if _PARSED[0] == _SIMPLE_AFTER:
            _choose_rows()
    tree = _parse_yaml_tree(text, line_offset, exact_error)
    if "\x85" in text or "\u2028" in text or "\u2029" in text:
        _to_file_lines(tree, text, line_offset)
    return tree


# ---------------------------------------------------------------- the simple frontmatter
#
# Most frontmatter is nothing but `key: value` lines: a key of letters, digits, `_` and `-` at
# column 0, spaces, then one value on the rest of the line, plain or quoted without escapes.
# Such a text is read with one pattern instead of libyaml (its composer builds a node, two
# marks and three resolver calls per scalar, and the tree is then converted); the tree is the
# one libyaml's nodes give, by construction of the subset:
#
# * every character is one libyaml reads (no control character, lone surrogate, U+FFFE or
#   U+FFFF), and none it takes for a line break or a byte order mark (CR, NEL, U+2028,
#   U+2029, U+FEFF): lines and columns count as in the text (whose last line feed may be
#   missing: a field read on its own);
# * a plain value starts with no indicator or space, holds no `#`, no tab, and no `:` followed
#   by a space or the line's end, so it ends where the line ends (trailing spaces dropped) and
#   the next line, at column 0, cannot continue it; a quoted value holds no backslash, no
#   quote of its own kind and no line break, so its text is what stands between the quotes;
# * a key is at most 200 characters (libyaml gives up on a simple key past 1,024);
# * lines between hold nothing, or a comment from column 0.
#
# * a literal block (`key: |` or `key: |-` and its indented lines, see `_literal_blocks`) is
#   read line by line, and the pattern reads the text with the block's lines made empty.
#
# Anything else (lists, nested maps, folded or kept blocks, escapes, anchors, tags, errors) is
# left to libyaml.  tests/test_yamltree_simple.py compares the two on the corpus and generated text.

# (the characters past U+00FF among them are looked for by `_reads_alike`: a class holding
# them compiles into a 64K-entry table, a measurable part of checking one file)
_NOT_READ = r"\x00-\x1f\x7f-\x9f"
_NOT_READ_WIDE = "\u2028\u2029\ufeff\ufffe\uffff"
_SIMPLE_LINE = lazy_compile(
    # (possessive: a line that fails is given up at once, never tried another way)
    r"^(?:([A-Za-z_][A-Za-z0-9_-]{0,199}):( +)("
    rf"[^\s{_NOT_READ}#\-?:,\[\]{{}}&*!|>'\"%@`](?:[^{_NOT_READ}#:]++|:(?=[^ {_NOT_READ}#]))*+"
    rf"|\"[^\"\\{_NOT_READ}]*+\" *+|'[^'{_NOT_READ}]*+' *+|\|-? *+)|#[^{_NOT_READ}]*+)?\n",
    re.M,
)
# what libyaml refuses in a literal block's lines (and a tab, which the simple reading leaves
# to it), but the line feed
_NOT_IN_BLOCK = lazy_compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]")


def _simple_tree(text: str, offset: int) -> YamlTree | None:
    """The tree of a frontmatter of simple ``key: value`` lines (see above), or None."""
    if not (text.isascii() or _reads_alike(text)):
        return None
    ended = text.endswith("\n")
    if not ended:
        # (a field read on its own by the frontmatter's recovery: libyaml gives the lines the
        # same tree with or without the last one's line feed, and every mark is on a line)
        text += "\n"
    # a text holding `&`, `*` or `!` goes libyaml's event path, whose scalars carry no
    # resolved tag (``to_python`` resolves them when asked): the same tree here
    resolved = "&" not in text and "*" not in text and "!" not in text
    blocks: dict[int, tuple[str, int]] | None = None
    if ": |" in text:  # (a literal block may start here: its lines are read first)
        found = _literal_blocks(text, offset, ended)
        if found is None:
            return None
        text, blocks = found
    rows = _simple_rows(text, offset)
    if rows is None:
        return None
    if resolved and blocks is None and _simple_pairs is not None:
        # (the loop below, in C, for the usual text: every key and tag already remembered,
        # no key twice; else None, and the loop does it)
        done = _simple_pairs(rows, _KEYS, _PLAIN_TAGS, _TYPED_FIRST, _STR_TAG, YScalar)
        if done is not None:
            return YamlTree(YMap(done, done[0][0].line, 1), [])
    issues: list[YamlIssue] = []
    pairs: list[tuple[YScalar, YNode]] = []
    seen: dict[str, int] = {}
    tags = _PLAIN_TAGS
    keys = _KEYS
    for key, line, column, token in rows:
        if resolved:
            # (a key's scalar is a function of its text and line: one object for each, see
            # _KEYS)
            node = keys.get((key, line))
            if node is None:
                if len(keys) >= _KEYS_MAX:
                    keys.clear()
                node = keys[key, line] = YScalar(key, line, 1, None, None, line, len(key) + 1,
                                                 tags.get(key) or _plain_tag(key))
        else:
            node = YScalar(key, line, 1, None, None, line, len(key) + 1)
        if key in seen:
            issues.append(_duplicate(node, seen[key]))
        else:
            seen[key] = line
        first = token[0]
        if first in "\"'":  # (one character: a quote)
            value = YScalar(token[1:-1], line, column, first, None, line,
                            column + len(token), _STR_TAG if resolved else None)
        elif first == "|":  # a literal block's first line (its text read before)
            block = blocks.pop(line, None) if blocks else None
            if block is None:
                return None
            value = YScalar(block[0], line, column, "|", None, block[1], 1,
                            _STR_TAG if resolved else None)
        else:
            tag = (None if not resolved else _STR_TAG if first not in _TYPED_FIRST
                   else tags.get(token) or _plain_tag(token))
            value = YScalar(token, line, column, None, None, line, column + len(token), tag)
        pairs.append((node, value))
    if not pairs or blocks:  # (a line taken for a block's first is not a field's: libyaml's)
        return None
    return YamlTree(YMap(pairs, pairs[0][0].line, 1), issues)


def _simple_rows_py(text: str, offset: int) -> list[tuple[str, int, int, str]] | None:
    # The field lines of a simple frontmatter: for each, its key, its file line (`offset` +
    # its 1-based line), the 1-based column where its value starts and the value as written
    # (the spaces after it dropped); or None when a line is not one of the simple ones.  The
    # C extension's `simple_rows` gives the same in one pass (taken once a process reads
    # the simple way, _choose_rows; tests/test_yamltree_simple_native.py).
    rows = _SIMPLE_LINE.findall(text)
    # each match is one whole line (it starts at a line's start, ends at its line feed and
    # holds no other): as many matches as lines, and every line is one
    if len(rows) != text.count("\n"):
        return None
    out = []
    line = offset
    for key, gap, taken in rows:
        line += 1
        if key:  # (not an empty line or a comment)
            # (the pattern took the spaces after the value)
            out.append((key, line, len(key) + len(gap) + 2, taken.rstrip(" ")))
    return out


_simple_rows = _simple_rows_py
#: the C extension's ``simple_pairs`` once chosen: :func:`_simple_tree`'s loop for a text
#: without `&`, `*`, `!` or literal blocks whose keys and tags are all remembered and no key
#: is given twice (None for any other: the loop answers)
_simple_pairs: Callable[..., list[tuple[YScalar, YNode]] | None] | None = None


def _choose_rows() -> None:
    # Read the simple lines with the C extension's `simple_rows` and `simple_pairs` (the
    # same rows and pairs), unless it is not built or SUBAGENTS_NO_EXTENSION asks for
    # Python; asked once, when a process starts reading the simple way (one file never
    # does: it never loads the extension).
    global _simple_rows, _simple_pairs  # noqa: PLW0603
    from subagents._native import speedups

    native = speedups()
    # (not built, switched off, or built from older sources: the Python function answers)
    if native is None or not hasattr(native, "simple_pairs"):
        return
    _simple_rows = native.simple_rows
    _simple_pairs = native.simple_pairs


def _literal_blocks(
    text: str, offset: int, ended: bool
) -> tuple[str, dict[int, tuple[str, int]]] | None:
    """The literal blocks (``key: |`` or ``key: |-``, then indented lines) of a text ending in
    a line feed: the text with their indented lines made empty, for the simple pattern to
    read the rest, and each block's text and end line by the file line of its first line; or
    None if a block is one the simple reading leaves to libyaml.

    A block taken here is libyaml's: its lines are those after the first line that are empty
    or start with a space; the first one holding more than spaces sets the indentation (the
    ones before it must be empty), every later one holding more than spaces starts with that
    indentation, and it is not the text's last line unless the text had its line feed.  Its
    text is each line past the indentation (a line of fewer spaces: empty), the empty lines at
    its end dropped, one line feed after the last (``|``) or none (``|-``); it ends at the
    start of the line after its lines.  No control character or tab (libyaml refuses the one,
    and reads a tab in the indentation otherwise)."""
    if not (text.replace("\n", " ").isprintable() if text.isascii()  # (the same, in C)
            else _NOT_IN_BLOCK.search(text) is None):
        return None
    lines = text.split("\n")  # (the last is the empty text after the last line feed)
    last = len(lines) - 1
    blocks: dict[int, tuple[str, int]] = {}
    i = 0
    while i < last:
        head = lines[i].rstrip(" ")
        i += 1
        strip = head.endswith(" |-")
        if not (strip or head.endswith(" |")) or head[:1] in " #":
            continue  # (whether it is a field's line is the pattern's to say)
        start = i
        while i < last and (not lines[i] or lines[i][0] == " "):
            i += 1
        if i == last and not ended:
            return None
        body = lines[start:i]
        indent = 0
        for line in body:
            if line:
                indent = len(line) - len(line.lstrip(" "))
                if indent == len(line):
                    return None  # spaces before the first line of text
                break
        if not indent:
            return None  # an empty block
        pad = " " * indent
        for line in body:
            if line and not line.startswith(pad) and not line.isspace():
                return None  # less indented: not the block's
        parts = [line[indent:] for line in body]
        while not parts[-1]:
            parts.pop()
        blocks[offset + start] = ("\n".join(parts) + ("" if strip else "\n"), offset + i + 1)
        lines[start:i] = [""] * len(body)
    if not blocks:
        return None
    return "\n".join(lines), blocks


#: (key text, line) -> the key's scalar in a simple tree of a text without `&`, `*` or `!`.
#: The same keys come back on the same lines in every file (`name` on line 2): one object
#: for each, never built again.  Shared between trees, so no tree's node may be changed
#: after it is read: only `_to_file_lines` changes nodes, and only those of libyaml's trees.
_KEYS: dict[tuple[str, int], YScalar] = {}
_KEYS_MAX = 4096


def _reads_alike(text: str) -> bool:
    """Whether ``text`` holds none of the characters past U+00FF that libyaml reads as a line
    break or a byte order mark, or refuses (U+FFFE, U+FFFF, a lone surrogate)."""
    for wide in _NOT_READ_WIDE:
        if wide in text:
            return False
    try:
        text.encode()
    except UnicodeEncodeError:  # a lone surrogate (a text given as a string, not read)
        return False
    return True


def _to_file_lines(tree: YamlTree, text: str, offset: int) -> None:
    """Positions counted as the file counts lines (only ``\\n`` ends one).

    libyaml follows YAML 1.1, where NEL, U+2028 and U+2029 end a line too, so every mark after
    one is a line too far down (and its column counted from the odd break)."""
    # for each of libyaml's lines: the file line it is on and the column it starts at
    starts: list[tuple[int, int]] = [(0, 0)]
    line, line_start = 0, 0
    # (the pattern is compiled on this rare path only, through re's own cache)
    for m in re.finditer("[\n\x85\u2028\u2029]", text):
        at = m.end()
        if m.group() == "\n":
            line, line_start = line + 1, at
        starts.append((line, at - line_start))

    def pos(at_line: int, column: int) -> tuple[int, int]:
        k = at_line - 1 - offset
        if k >= len(starts):
            # past the last break: libyaml's mark for what ends the stream (the empty value
            # of a last `?` key), on the file's last line, after its last character
            return line + 1 + offset, len(text) - line_start + column
        if k < 0:
            return at_line, column
        real, base = starts[k]
        return real + 1 + offset, base + column

    def walk(node: YNode) -> None:
        node.line, node.column = pos(node.line, node.column)
        if isinstance(node, YScalar):
            if node.end_line:
                node.end_line, node.end_column = pos(node.end_line, node.end_column)
        elif isinstance(node, YMap):
            for key, value in node.pairs:
                walk(key)
                walk(value)
        else:
            for item in node.items:
                walk(item)

    if tree.root is not None:
        walk(tree.root)

    def moved(issue: YamlIssue) -> YamlIssue:
        line, column = pos(issue.line, issue.column)
        return replace(issue, line=line, column=column)

    tree.issues[:] = [moved(i) for i in tree.issues]
    if tree.error is not None:
        tree.error = moved(tree.error)


def composer_refusal(text: str) -> Exception | None:
    """What libyaml's composer raised on ``text``, if it was the last text it refused here
    (a recovered frontmatter: Claude Code's reading composes the same text with the same
    composer, which raises the same)."""
    refused_text, refused = _REFUSED[0]
    return refused if refused_text == text else None


#: the last text libyaml's composer refused and what it raised (one: the file being read)
_REFUSED: list[tuple[str, Exception | None]] = [("", None)]


#: The error of a text that does not read, when its exact message was not asked for.
UNREAD = YamlIssue("SA005", "invalid YAML", 1, 1)


def _parse_yaml_tree(text: str, line_offset: int, exact_error: bool = True) -> YamlTree:
    issues: list[YamlIssue] = []
    depth, deep_line = nesting_scan(text, MAX_DEPTH)
    if depth > MAX_DEPTH:
        # before libyaml sees it: its C parser recurses per level and crashes on deep input
        return YamlTree(None, issues, _too_deep(line_offset + deep_line, 1))
    if "&" not in text and "*" not in text and "!" not in text:
        # Fast path: libyaml composes the node graph in C; we only convert and check it.
        # Without `&`, `*` or `!` in the text there can be no anchor, alias or tag, so the
        # event path's refusals cannot apply.
        try:
            loader = _TreeLoader(text)
            try:
                node = loader.get_single_node()
            finally:
                loader.dispose()
        except yaml.YAMLError as exc:
            # fall through to the event path, which reports the error precisely; a caller
            # that only asks whether the text reads is answered now: an error of the token
            # stream (not the composer's own: more than one document) comes again in the
            # event path, at the same event, unless a refusal comes first (an error too)
            if not exact_error and not isinstance(exc, yaml.composer.ComposerError):
                return YamlTree(None, issues, UNREAD)
            # (remembered for another reader composing the same text, composer_refusal: one
            # store of a pair, so that a thread never reads one text's error for another's;
            # without its traceback, whose frames would be kept)
            _REFUSED[0] = (text, exc.with_traceback(None))
        else:
            try:
                root = _from_node(node, line_offset, issues) if node is not None else None
            except _Refused as refused:
                return YamlTree(None, issues, refused.issue)
            return YamlTree(root, issues)
    builder = _Builder(line_offset, issues)
    try:
        # (the tree loader: libyaml's parser without the constructor's and resolver's set-up,
        # which events never use)
        for event in yaml.parse(text, Loader=_TreeLoader):
            builder.feed(event)
    except _Refused as refused:
        return YamlTree(None, issues, refused.issue)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = (mark.line + 1 + line_offset) if mark else line_offset + 1
        column = (mark.column + 1) if mark else 1
        problem = exc.problem or str(exc)
        if exc.context:
            problem = f"{problem} ({exc.context})"
        return YamlTree(None, issues, YamlIssue("SA005", f"invalid YAML: {problem}", line, column))
    except yaml.YAMLError as exc:  # reader errors (control characters and the like)
        return YamlTree(
            None, issues, YamlIssue("SA005", f"invalid YAML: {exc}", line_offset + 1, 1)
        )
    if builder.documents > 1:
        issues.append(
            YamlIssue(
                "SA005",
                "the frontmatter holds more than one YAML document",
                line_offset + 1,
                1,
                "remove the extra `---` or `...` lines inside the frontmatter",
            )
        )
    return YamlTree(builder.root, issues)


class _Builder:
    """Turns the libyaml event stream into YNodes, refusing what we never accept."""

    __slots__ = ("documents", "issues", "offset", "root", "stack")

    def __init__(self, offset: int, issues: list[YamlIssue]) -> None:
        self.offset = offset
        self.issues = issues
        self.root: YNode | None = None
        # each frame: [container, pending_key or None, {key: line} seen]
        self.stack: list[list[Any]] = []
        self.documents = 0

    def _pos(self, event: yaml.Event) -> tuple[int, int]:
        mark = event.start_mark
        if mark is None:  # pragma: no cover - libyaml always sets marks
            return self.offset + 1, 1
        return mark.line + 1 + self.offset, mark.column + 1

    def _check_props(self, event: yaml.NodeEvent) -> None:
        if event.anchor is not None:
            raise _Refused(_no_alias(
                f"YAML anchor `&{event.anchor}`", *self._pos(event),
                "write the value out in full; anchors and aliases can expand into huge "
                "documents (alias bombs) and no harness needs them"))
        tag = getattr(event, "tag", None)
        if tag and tag != "!" and tag not in _ALLOWED_TAGS:
            line, col = self._pos(event)
            subject = f"YAML tag `{_short_tag(tag)}`"
            raise _Refused(
                YamlIssue(
                    "SA009",
                    f"custom {subject} is not allowed",
                    line,
                    col,
                    "remove the tag; agent frontmatter holds plain strings, numbers, "
                    "lists and mappings",
                    subject=subject,
                )
            )

    def _add(self, node: YNode) -> None:
        if not self.stack:
            self.root = node
            return
        frame = self.stack[-1]
        container = frame[0]
        if isinstance(container, YSeq):
            container.items.append(node)
            return
        assert isinstance(container, YMap)
        if frame[1] is None:
            if not isinstance(node, YScalar):
                raise _Refused(
                    YamlIssue(
                        "SA005",
                        "a mapping key must be a plain value, not a list or mapping",
                        node.line,
                        node.column,
                    )
                )
            seen: dict[str, int] = frame[2]
            if node.value in seen:
                self.issues.append(_duplicate(node, seen[node.value]))
            else:
                seen[node.value] = node.line
            frame[1] = node
        else:
            container.pairs.append((frame[1], node))
            frame[1] = None

    def feed(self, event: yaml.Event) -> None:
        if isinstance(event, yaml.ScalarEvent):
            self._check_props(event)
            line, col = self._pos(event)
            end = event.end_mark
            end_line, end_col = (end.line + 1 + self.offset, end.column + 1) if end else (line, col)
            self._add(
                YScalar(
                    event.value,
                    line,
                    col,
                    event.style or None,
                    None if event.implicit[0] else event.tag,
                    end_line,
                    end_col,
                )
            )
        elif isinstance(event, yaml.MappingStartEvent):
            self._check_props(event)
            line, col = self._pos(event)
            if len(self.stack) >= MAX_DEPTH:
                raise _Refused(_too_deep(line, col))
            self.stack.append([YMap([], line, col, bool(event.flow_style)), None, {}])
        elif isinstance(event, yaml.SequenceStartEvent):
            self._check_props(event)
            line, col = self._pos(event)
            if len(self.stack) >= MAX_DEPTH:
                raise _Refused(_too_deep(line, col))
            self.stack.append([YSeq([], line, col, bool(event.flow_style)), None, {}])
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            node = self.stack.pop()[0]
            self._add(node)
        elif isinstance(event, yaml.AliasEvent):
            raise _Refused(_no_alias(
                f"YAML alias `*{event.anchor}`", *self._pos(event),
                "write the value out in full; aliases can expand into huge documents"))
        elif isinstance(event, yaml.DocumentStartEvent):
            self.documents += 1


def _short_tag(tag: str) -> str:
    return "!!" + tag[len(_STANDARD_TAG_PREFIX) :] if tag.startswith(_STANDARD_TAG_PREFIX) else tag
