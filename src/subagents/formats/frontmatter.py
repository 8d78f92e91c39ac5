"""Bytes -> (frontmatter node tree with positions, body): the guarded front door of every reader.

The path of the data (DESIGN.md): size check before reading, UTF-8 check with the line of the
first bad byte, BOM stripped, CRLF accepted, the ``---`` split, then :mod:`yamltree` builds the
node tree.  Every problem becomes a :class:`~subagents.formats.yamltree.YamlIssue`-style
finding with a *file* line; nothing here raises for bad input.

Recovery (for diagnosis and repair only)
----------------------------------------
The most common broken frontmatter (REFERENCE.md: 49 of 50 strict-YAML failures) is a plain
``description:`` value holding ``: `` — often with ``<example>`` blocks on the following lines.
Claude Code cannot parse it and skips the agent.  When the YAML fails we re-read the frontmatter
line-wise: every column-0 ``key:`` starts a field, following lines that are not keys continue it.
Each field is re-parsed on its own; fields that still fail keep their raw text.  The result is
flagged ``recovered=True`` and reported as ``SA010`` (an error), naming the line — so
``validate`` can still judge the other fields and ``fix`` can quote the broken one.
"""

from __future__ import annotations

import re
from dataclasses import field

from subagents._dataclass import dataclass
from subagents._lazy_re import lazy_compile
from subagents.formats.yamltree import (
    YamlIssue,
    YMap,
    YNode,
    YScalar,
    parse_yaml_tree,
)

__all__ = [
    "DecodeResult",
    "FrontmatterDocument",
    "YField",
    "decode_bytes",
    "decode_parts",
    "split_frontmatter",
]

# Every character ``str.strip()`` removes but the newline (``str.isspace``; a test checks it),
# as a pattern: a category, not a list of characters, because a class listing characters
# past U+00FF costs milliseconds to compile in every run.
_SPACE_NOT_NL = r"[^\S\n]"
# What may stand around a `---` line: any whitespace but the newline, Python's (``str.strip``)
# and JavaScript's (``\s``, which adds U+FEFF).  Claude Code's block pattern lets JavaScript's
# whitespace follow both `---` lines (a form feed, a vertical tab, NBSP, U+2028: recorded
# cases ``block-*-after-*``); a splitter that ended the block elsewhere would lose every
# position in the file.  Before the opening `---` it makes Claude Code skip the file (the
# SA018 case, like indentation), but the block is still read here for the other findings.
_BLANK = rf"(?:{_SPACE_NOT_NL}|\ufeff)"
_DELIM_RE = lazy_compile(rf"^{_SPACE_NOT_NL}*---{_BLANK}*$")
_CLOSE_RE = lazy_compile(rf"^(?:---|\.\.\.){_BLANK}*$")
_TOP_KEY_RE = lazy_compile(r"^([A-Za-z_][A-Za-z0-9_.-]*)[ \t]*:(?:[ \t]|$)")
_TAB_INDENT_RE = lazy_compile(r"^ *\t")
_EXAMPLE_RE = lazy_compile(r"<example>|</example>|<commentary>", re.I)


@dataclass(slots=True)
class YField:
    """A top-level frontmatter key and its value node."""

    key: str
    key_line: int
    key_column: int
    node: YNode


@dataclass(slots=True)
class FrontmatterDocument:
    """A Markdown file read for its frontmatter: the text, where the frontmatter starts and
    ends, its parsed mapping and fields, and how the file was encoded."""

    text: str  # the whole file, BOM stripped, CRLF -> LF
    start_line: int  # line of the opening ---
    end_line: int  # line of the closing ---
    root: YMap | None
    fields: dict[str, YField] = field(default_factory=dict)
    recovered: bool = False
    crlf: bool = False
    bom: bool = False
    #: the YAML text that was parsed (the lines between the delimiters, each ending in "\n")
    yaml_text: str = ""
    #: where the body starts in ``text`` when the splitter knows it (-1: found from the lines)
    body_at: int = field(default=-1, repr=False, compare=False)

    @property
    def body_line(self) -> int:
        return self.end_line + 1

    @property
    def body(self) -> str:
        at = self.body_at if self.body_at >= 0 else _line_offset(self.text, self.end_line)
        return self.text[at:]

    def frontmatter_text(self) -> str:
        start = _line_offset(self.text, self.start_line)
        end = _line_offset(self.text, self.end_line - 1)
        return self.text[start : max(start, end - 1)]


def _line_offset(text: str, line: int) -> int:
    """Offset of the start of 0-based line ``line`` (len(text) if there is no such line)."""
    pos = 0
    for _ in range(line):
        nl = text.find("\n", pos)
        if nl < 0:
            return len(text)
        pos = nl + 1
    return pos


@dataclass(slots=True)
class DecodeResult:
    """The decoded text of a file, or the problem that stopped decoding it."""

    text: str | None
    issue: YamlIssue | None = None
    bom: bool = False
    crlf: bool = False


def decode_bytes(data: bytes) -> DecodeResult:
    """UTF-8 decode with BOM stripping and CRLF normalisation; binary and non-UTF-8 refused."""
    return DecodeResult(*decode_parts(data))


def decode_parts(data: bytes) -> tuple[str | None, YamlIssue | None, bool, bool]:
    """:func:`decode_bytes` as the tuple of its result's fields, in their order (the loader
    reads every file through it, and needs no object to hold them)."""
    bom = data.startswith(b"\xef\xbb\xbf")
    if bom:
        data = data[3:]
    nul = data.find(b"\x00", 0, 8192)
    if nul >= 0:
        line = data[:nul].count(b"\n") + 1
        return (
            None,
            YamlIssue(
                "SA011",
                "binary content (NUL byte): this is not a text file",
                line,
                1,
                "agent definitions are UTF-8 Markdown or JSON text",
            ),
            False,
            False,
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = data[: exc.start]
        line = before.count(b"\n") + 1
        column = exc.start - (before.rfind(b"\n") + 1) + 1
        guess = ""
        try:
            data.decode("cp1252")
            guess = " (it looks like Latin-1/Windows-1252 text)"
        except UnicodeDecodeError:
            pass
        return (
            None,
            YamlIssue(
                "SA001",
                f"not valid UTF-8: byte 0x{data[exc.start]:02x}{guess}",
                line,
                column,
                "re-save the file as UTF-8, e.g. `iconv -f latin1 -t utf-8 in.md > out.md`",
            ),
            False,
            False,
        )
    crlf = False
    if "\r" in text:  # (no CR, no CRLF: one scan of the text, not two, for nearly every file)
        crlf = "\r\n" in text
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text, None, bom, crlf


def split_frontmatter(
    text: str, *, bom: bool = False, crlf: bool = False
) -> tuple[FrontmatterDocument | None, list[YamlIssue]]:
    """Find the frontmatter block and build its node tree.

    Returns ``(document, issues)``; ``document`` is None when there is no usable frontmatter
    (no opening or no closing delimiter), in which case ``issues`` says why.
    """
    if not text or text.isspace():  # (what `not text.strip()` says, without copying the text)
        return None, [YamlIssue("SA012", "the file is empty", 1, 1, _HINT_SKELETON)]
    if text.startswith("---"):
        # Nearly every agent file: the opening `---` is the first line.  One search finds the
        # closing line (the first line after it that `_is_close` accepts) in the text as it
        # stands, so the head is never split into lines.
        nl = text.find("\n")
        # (a first line of `---` alone is one the pattern takes: no need to match it)
        if nl == 3 or (nl > 0 and _DELIM_RE.match(text, 0, nl)):
            close = _close_line(text, nl + 1)
            if close is None:
                return None, [_never_closed(1)]
            close_at, close_end = close
            yaml_text = text[nl + 1 : close_at] or "\n"
            end_line = text.count("\n", nl + 1, close_at) + 2
            body_at = min(close_end + 1, len(text))
            return _parse_block(text, 1, end_line, yaml_text, body_at, bom, crlf, [])
    return _split_lines(text, bom, crlf)


def _split_lines(
    text: str, bom: bool, crlf: bool
) -> tuple[FrontmatterDocument | None, list[YamlIssue]]:
    """The general case of :func:`split_frontmatter`: blank lines or indentation before the
    opening ``---``, or no frontmatter at all."""
    issues: list[YamlIssue] = []
    # Split only the head of the file: the body can be long and is never needed as lines.
    head_end = _head_end(text)
    lines = text[:head_end].split("\n")
    first = 0
    while first < len(lines) and not lines[first].strip():
        first += 1
    if first >= len(lines) or not _DELIM_RE.match(lines[first]):
        return None, [
            YamlIssue(
                "SA003",
                "no YAML frontmatter: the file must start with a `---` line",
                first + 1 if first < len(lines) else 1,
                1,
                _HINT_SKELETON,
            )
        ]
    if first != 0 or lines[first] != lines[first].lstrip():
        issues.append(
            YamlIssue(
                "SA018",
                "the opening `---` is not at the very start of the file",
                first + 1,
                1,
                "remove the blank lines/indentation before `---` (`subagents fix` does it)",
            )
        )
    close = None
    for i in range(first + 1, len(lines)):
        if _is_close(lines[i]):
            close = i
            break
    if close is None:
        return None, [*issues, _never_closed(first + 1)]
    yaml_text = "\n".join(lines[first + 1 : close]) + "\n"
    return _parse_block(text, first + 1, close + 1, yaml_text, -1, bom, crlf, issues)


def _never_closed(line: int) -> YamlIssue:
    return YamlIssue(
        "SA004",
        "the frontmatter opened here is never closed",
        line,
        1,
        "add a `---` line after the last frontmatter field",
    )


def _parse_block(
    text: str,
    start_line: int,
    end_line: int,
    yaml_text: str,
    body_at: int,
    bom: bool,
    crlf: bool,
    issues: list[YamlIssue],
) -> tuple[FrontmatterDocument | None, list[YamlIssue]]:
    """The document of a frontmatter found between the 1-based lines ``start_line`` and
    ``end_line``: ``yaml_text`` (the lines between, each ending in a newline) parsed."""
    if yaml_text.lstrip("\n")[:1] in _JS_BLANK:  # (lstrip copies nothing when no line is empty)
        yaml_text = _blank_leading_lines(yaml_text)
    # (positional: a call with keywords costs more, and one is made for every file)
    doc = FrontmatterDocument(text, start_line, end_line, None, {}, False, crlf, bom, yaml_text,
                              body_at)
    if not yaml_text or yaml_text.isspace():  # (`not yaml_text.strip()`, without a copy)
        doc.root = YMap([], start_line + 1, 1)
        return doc, issues
    tree = parse_yaml_tree(yaml_text, line_offset=start_line)
    issues.extend(tree.issues)
    if tree.error is not None:
        if tree.error.code == "SA005":
            fm_lines = yaml_text[:-1].split("\n")  # the lines between the delimiters
            tab = _first_tab_indent(fm_lines, start_line + 1)
            if tab is None and _recover(doc, fm_lines, start_line, tree.error, issues):
                return doc, issues
            if tab is not None:
                issues.append(
                    YamlIssue(
                        "SA013",
                        "tab character used for indentation (YAML allows only spaces)",
                        tab,
                        1,
                        "replace the leading tabs with spaces",
                    )
                )
                return doc, issues
        issues.append(tree.error)
        return doc, issues
    root = tree.root
    if root is None or (isinstance(root, YScalar) and root.value == "" and not root.style):
        doc.root = YMap([], start_line + 1, 1)
        return doc, issues
    if not isinstance(root, YMap):
        kind = "a list" if not isinstance(root, YScalar) else "a single value"
        issues.append(
            YamlIssue(
                "SA006",
                f"the frontmatter is {kind}, not a mapping of `key: value` fields",
                root.line,
                root.column,
                _HINT_SKELETON,
            )
        )
        return doc, issues
    doc.root = root
    fields = doc.fields
    new = _new_object
    for key, node in root.pairs:
        name = key.value
        if name not in fields:
            # (what `YField(name, key.line, key.column, node)` makes, without the class call
            # and its `__init__`: a third of the cost, for every field of every file;
            # tests/test_markdown_reader_shortcuts.py checks YField's fields are these four)
            found = fields[name] = new(YField)
            found.key = name
            found.key_line = key.line
            found.key_column = key.column
            found.node = node
    return doc, issues


_new_object = object.__new__


_HINT_SKELETON = (
    "an agent file starts with `---`, then `name: my-agent` and `description: ...` lines, "
    "then `---`, then the system prompt"
)


def _is_close(line: str) -> bool:
    """``---`` or ``...`` at column 0 (then any whitespace), or an indented ``---`` (seen in
    real files)."""
    return bool(_CLOSE_RE.match(line)) or (line.strip() == "---" and line[:1] in " \t")


# A line `_is_close` accepts, found in the whole text: `---` or `...` at column 0 with trailing
# whitespace, or an indented `---` with any whitespace around it.
_IS_CLOSE_LINE_RE = lazy_compile(
    rf"^(?:(?:---|\.\.\.){_BLANK}*|[ \t]{_SPACE_NOT_NL}*---{_SPACE_NOT_NL}*)$", re.M
)


def _close_line(text: str, start: int) -> tuple[int, int] | None:
    """The span of ``_IS_CLOSE_LINE_RE.search(text, start)``, ``start`` being the start of a
    line.

    Every line the pattern takes holds ``---`` or ``...`` and is matched from its start, so
    the lines holding neither (nearly all of them) are passed over by ``str.find`` instead of
    the pattern being tried at every character; each line that holds one is matched from its
    start, as the search would (tests/test_frontmatter_close_line.py compares the two).  A
    line of ``---`` alone, the closing line of nearly every file, is taken without the
    pattern: it is one of the lines the pattern takes, from its start to its line feed."""
    pos = start
    while True:
        dash = text.find("---", pos)
        # ("..." cannot overlap a "---": an earlier one ends before it)
        dots = text.find("...", pos) if dash < 0 else text.find("...", pos, dash)
        hit = dots if dots >= 0 else dash
        if hit < 0:
            return None
        if (hit == dash and (hit == start or text[hit - 1] == "\n")
                and text[hit + 3 : hit + 4] in "\n"):  # (the line feed, or the text's end)
            return hit, hit + 3
        line_start = text.rfind("\n", start, hit) + 1 or start
        found = _IS_CLOSE_LINE_RE.match(text, line_start)
        if found is not None:
            return found.span()
        pos = text.find("\n", hit) + 1
        if not pos:
            return None


# JavaScript's whitespace but the newline (``\s`` in Claude Code's block pattern)
_JS_BLANK = frozenset(
    "\t\x0b\x0c\r \xa0\u1680\u2028\u2029\u202f\u205f\u3000\ufeff"
    + "".join(chr(c) for c in range(0x2000, 0x200B))
)


def _blank_leading_lines(yaml_text: str) -> str:
    """``yaml_text`` with the whitespace-only lines at its start made empty.

    Claude Code's block pattern swallows them with the opening ``---`` (``---\\s*\\n``), so
    its YAML parser never sees them; libyaml would refuse a line holding only a tab or a
    form feed and lose every field (and every position) of the file.  The lines stay, empty,
    so that line numbers do not move."""
    lines = yaml_text.split("\n")
    for i, line in enumerate(lines):
        if line and not _JS_BLANK.issuperset(line):
            break
        lines[i] = ""
    return "\n".join(lines)


def _head_end(text: str) -> int:
    """An offset past the closing delimiter (or the whole text if none is found)."""
    # past the blank lines `_split_lines` skips (any whitespace: a line holding only a form
    # feed too), so that the opening `---` is not taken for the closing one
    start = 0
    while start < len(text) and text[start].isspace():
        start += 1
    first_nl = text.find("\n", start)
    if first_nl < 0:
        return len(text)
    m = _close_line(text, first_nl + 1)
    return m[1] if m else len(text)


def _first_tab_indent(lines: list[str], first_line: int) -> int | None:
    """The file line of the first of ``lines`` (the first on file line ``first_line``) whose
    indentation holds a tab."""
    for i, line in enumerate(lines):
        if _TAB_INDENT_RE.match(line):
            return first_line + i
    return None


def _raw_value(chunk: list[str]) -> str:
    """The text a broken plain value was meant to hold: first line plus dedented continuation."""
    first = chunk[0].split(":", 1)[1].strip()
    rest = chunk[1:]
    while rest and not rest[-1].strip():
        rest = rest[:-1]
    if not rest:
        return first
    indents = [len(r) - len(r.lstrip(" ")) for r in rest if r.strip()]
    cut = min(indents) if indents else 0
    tail = [r[cut:].rstrip() if r.strip() else "" for r in rest]
    return "\n".join([first, *tail]) if first else "\n".join(tail)


def _recover(
    doc: FrontmatterDocument,
    fm_lines: list[str],
    start_line: int,
    error: YamlIssue,
    issues: list[YamlIssue],
) -> bool:
    """Line-wise recovery of a frontmatter whose YAML failed; True if it explains the failure."""
    chunks: list[tuple[str, int, list[str]]] = []  # key, 0-based index in fm_lines, lines
    for i, line in enumerate(fm_lines):
        m = _TOP_KEY_RE.match(line)
        if m:
            chunks.append((m.group(1), i, [line]))
        elif chunks:
            chunks[-1][2].append(line)
        elif line.strip() and not line.lstrip().startswith("#"):
            return False  # content before the first key: not the pattern we recover
    if not chunks:
        return False
    pairs: list[tuple[YScalar, YNode]] = []
    broken: list[tuple[str, int, str]] = []  # key, file line, why
    for key, index, chunk in chunks:
        key_line = start_line + 1 + index
        # (only whether the field reads is asked: not the error's exact message)
        tree = parse_yaml_tree("\n".join(chunk), line_offset=key_line - 1, exact_error=False)
        node: YNode | None = None
        if tree.error is None and isinstance(tree.root, YMap) and tree.root.pairs:
            node = tree.root.pairs[0][1]
        if node is None:
            inline = chunk[0].split(":", 1)[1].strip()
            if not inline or inline[0] in "\"'[{|>&*!#":
                return False  # not a plain one-line start: report the parser's own message
            value = _raw_value(chunk)
            if not (": " in value or value.endswith(":") or _EXAMPLE_RE.search(value)):
                return False  # some other YAML problem: report the parser's own message
            why = "contains `: `" if ": " in value or value.endswith(":") else "contains"
            if _EXAMPLE_RE.search(value):
                why += " and `<example>` blocks" if why != "contains" else " `<example>` blocks"
            broken.append((key, key_line, why))
            node = YScalar(value, key_line, len(key) + 3, None, None, key_line + len(chunk) - 1, 1)
        pairs.append((YScalar(key, key_line, 1), node))
    if not broken:
        return False
    doc.recovered = True
    doc.root = YMap(pairs, start_line + 1, 1)
    for k, v in pairs:
        doc.fields.setdefault(k.value, YField(k.value, k.line, k.column, v))
    for key, broken_line, why in broken:
        issues.append(
            YamlIssue(
                "SA010",
                f"the `{key}` value is an unquoted YAML string that {why}, so the frontmatter "
                f"is not valid YAML for strict parsers "
                f"({error.message.removeprefix('invalid YAML: ')} at line {error.line})",
                broken_line,
                1,
                f"quote the value or make it a block scalar (`{key}: |` with the text indented "
                "on the next lines); `subagents fix` does this",
            )
        )
    return True
