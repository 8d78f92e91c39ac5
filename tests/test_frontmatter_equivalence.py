"""The frontmatter splitter finds the closing line with one search over the text; it must give
exactly what the plain line-by-line definition gives (kept here as the reference), on every
text: odd line ends, BOMs, blank or indented openings, unclosed blocks, whitespace that only
``str.strip`` knows, huge lines."""

from __future__ import annotations

import re
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from hypothesis_helpers import examples
from subagents.formats import frontmatter
from subagents.formats.frontmatter import (
    FrontmatterDocument,
    _is_close,
    split_frontmatter,
)
from subagents.formats.yamltree import YamlIssue, YScalar

# the opening line: any whitespace before `---`, any whitespace (and U+FEFF, which JavaScript's
# \s holds) after it; a line here never holds a newline
_DELIM_RE = re.compile(r"^\s*---[\s\ufeff]*$")
_JS_BLANK_LINE = re.compile("[\t\v\f\r \xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]*\\Z")
_SKELETON = frontmatter._HINT_SKELETON


def reference_split(
    text: str, *, bom: bool = False, crlf: bool = False
) -> tuple[FrontmatterDocument | None, list[YamlIssue]]:
    """The splitter as it was written first: the head split into lines, each line tested."""
    issues: list[YamlIssue] = []
    if not text.strip():
        return None, [YamlIssue("SA012", "the file is empty", 1, 1, _SKELETON)]
    lines = text.split("\n")  # every line: the splitter only ever looks at the head
    first = 0
    while first < len(lines) and not lines[first].strip():
        first += 1
    if first >= len(lines) or not _DELIM_RE.match(lines[first]):
        return None, [YamlIssue("SA003", "no YAML frontmatter: the file must start with a `---` "
                                "line", first + 1 if first < len(lines) else 1, 1, _SKELETON)]
    if first != 0 or lines[first] != lines[first].lstrip():
        issues.append(YamlIssue("SA018", "the opening `---` is not at the very start of the "
                                "file", first + 1, 1, "remove the blank lines/indentation "
                                "before `---` (`subagents fix` does it)"))
    close = next((i for i in range(first + 1, len(lines)) if _is_close(lines[i])), None)
    if close is None:
        return None, [*issues, YamlIssue("SA004", "the frontmatter opened here is never closed",
                                         first + 1, 1, "add a `---` line after the last "
                                         "frontmatter field")]
    start_line, end_line = first + 1, close + 1
    # whitespace-only lines right after the opening --- are read as empty (Claude Code's
    # pattern takes them with the opening line)
    for i in range(first + 1, close):
        if not _JS_BLANK_LINE.match(lines[i]):
            break
        lines[i] = ""
    yaml_text = "\n".join(lines[first + 1 : close]) + "\n"
    # from here on (parsing the YAML between the lines found) the splitter's own code: what is
    # compared is where the block is found
    return frontmatter._parse_block(text, start_line, end_line, yaml_text, -1, bom, crlf,
                                    issues)


def _seen(result: tuple[FrontmatterDocument | None, list[YamlIssue]]) -> object:
    doc, issues = result
    if doc is None:
        return None, issues
    return (doc.text, doc.start_line, doc.end_line, doc.root, doc.fields, doc.recovered,
            doc.crlf, doc.bom, doc.yaml_text, doc.body, doc.body_line, doc.frontmatter_text(),
            issues)


def _same(text: str) -> None:
    assert _seen(split_frontmatter(text)) == _seen(reference_split(text)), repr(text)


# Lines that sit on the edges of the splitter's rules.
_LINES = [
    "---", "--- ", "---\t", " ---", "\t---", "  ---  ", "...", "... ", "----", "-- -", "---x",
    "---\x0c", " \x0c---\u2028", "\t---\x85", " ---\u3000", "\x0c", "\u2028", "\x85", "", " ",
    "\t", "name: x", "name: a-b", "description: d", "description: a: b", "<example>",
    "  indented: y", "\ttabbed: z", "- item", "key: [", "key: {a: 1}", "#c", "x: &a 1",
    "y: *a", "z: !!str q", "%YAML 1.2", "tools: Read, Grep", "description: |", "  block",
    "ü: 日本", "\ufeff---", "---\x0b", "--- \x0c", "---\xa0", "\x0c---", "---\ufeff",
    "...\x0c", "a" * 3000, "key: " + "b" * 5000,
]
_EOLS = st.sampled_from(["\n", "\n", "\n", "\r\n", "\r", "\x0c\n", " \n"])


@st.composite
def _texts(draw: st.DrawFn) -> str:
    lines = draw(st.lists(st.one_of(st.sampled_from(_LINES), st.text(max_size=12)),
                          max_size=14))
    if draw(st.booleans()):
        lines.insert(0, draw(st.sampled_from(["---", " ---", "", "\x0c", "\ufeff---"])))
    eols = [draw(_EOLS) for _ in lines]
    text = "".join(line + eol for line, eol in zip(lines, eols, strict=True))
    if lines and draw(st.booleans()):
        text = text[: -len(eols[-1])]  # no newline at the end
    return text


@settings(max_examples=examples(1500), deadline=None)
@given(_texts())
def test_the_splitter_is_the_line_by_line_definition(text: str) -> None:
    _same(text)
    # as a reader gives it: CRLF and CR made LF
    _same(text.replace("\r\n", "\n").replace("\r", "\n"))


@settings(max_examples=examples(300), deadline=None)
@given(st.text())
def test_the_splitter_on_any_text(text: str) -> None:
    _same(text)
    _same("---\n" + text)
    _same("---\n" + text + "\n---\n" + text)


def test_the_splitter_on_chosen_texts() -> None:
    for text in [
        "", " ", "\n\n", "---", "---\n", "---\n---", "---\n---\n", "---\n...\nb", "--- \n---",
        "---\nname: x\n---\nbody\n", "---\nname: x\n---", "---\nname: x\n--- \n\nbody",
        "\n---\nname: x\n---\nb", "\x0c\n---\nname: x\n---\nb\n", " ---\nname: x\n---\n",
        "---\nname: x\n \x0c---\u2028\nb", "---\nname: x\ndescription: a: b\n---\nb",
        "---\nname: x\n\tdescription: y\n---\n", "---\n- a\n---\n", "---\njust\n---\n",
        "---\nname: x\nname: y\n---\n", "---\n\n---\nb", "---\n  \n---\nb",
        "---\nname: x\n----\n---\nb", "---\r\nname: x\r\n---\r\nb", "---x\nname: y\n---\n",
        "---\nname: " + "x" * 100_000 + "\n---\n" + "y" * 100_000,
    ]:
        _same(text)


def test_the_whitespace_class_is_what_strip_removes() -> None:
    spaces = {chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace()} - {"\n"}
    pattern = re.compile(frontmatter._SPACE_NOT_NL)
    matched = {chr(c) for c in range(sys.maxunicode + 1) if pattern.fullmatch(chr(c))}
    assert matched == spaces


def _reference_markdown(text: str) -> object:
    """The Markdown reader's definition the plain way: a RawField per field (with the value's
    position as a SourceLocation), then build_definition."""
    from subagents.definition import Dialect, SourceLocation
    from subagents.formats.fields import RawField, build_definition

    doc, issues = split_frontmatter(text)
    if doc is None or doc.root is None:
        return None, issues
    raw = [RawField(f.key, f.node.to_python(), SourceLocation(f.key_line, f.key_column),
                    f.node.value if isinstance(f.node, YScalar) else None,
                    SourceLocation(f.node.line, f.node.column)) for f in doc.fields.values()]
    definition, more = build_definition(raw, dialect=Dialect.CLAUDE, path=None,
                                        system_prompt=doc.body, body_line=doc.body_line,
                                        default_location=SourceLocation(doc.start_line, 1))
    return definition, definition.locations, [*issues, *more]


def _markdown(text: str) -> object:
    from subagents.definition import Dialect
    from subagents.formats.markdown import read_markdown_text

    definition, _, issues = read_markdown_text(text, dialect=Dialect.CLAUDE, path=None)
    return (None, issues) if definition is None else (definition, definition.locations, issues)


_FIELD_LINES = [
    "name: a", "name: [x]", "description: d", "description: {k: v}", "tools: Read, Grep",
    "tools: 7", "tools: [Read, 3]", "maxTurns: 3", "maxTurns: ten", "max_turns: 4",
    "model: 5", "hooks: [x]", "hooks: {PreToolUse: 3}", "background: maybe", "tags: [a]",
    "tags: 3", "version: 1.0", "created: 2024-01-01", "skills: 4", "mcpServers: 3",
    "keywords: [k, 1]", "color: 3", "permissionMode: [x]", "unknown: 1", "prompt: p",
    "effort: [1]", "isolation: {a: b}", "memory: 2", "author: [a]", "modified: true",
]


@settings(max_examples=examples(500), deadline=None)
@given(st.lists(st.sampled_from(_FIELD_LINES), max_size=10), st.booleans())
def test_the_markdown_reader_builds_what_raw_fields_build(lines: list[str], gap: bool) -> None:
    text = "---\n" + ("\n" if gap else "") + "\n".join(lines) + "\n---\nbody\n"
    assert _markdown(text) == _reference_markdown(text)
