"""The nesting scan's indentation bound: the most spaces a line starts with.

:func:`subagents.formats.nesting._max_indent` finds each line's indentation after its line
feed (a pattern with a literal first character is searched quickly); the plain way matches
``(?m)^ +`` at every line start.  Both must give the same number on generated texts (spaces,
tabs, CR, NEL and U+2028, which are not line feeds) and on every corpus file's frontmatter,
and the scan's answer must follow from it."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from hypothesis_helpers import examples
from subagents.formats.frontmatter import split_frontmatter
from subagents.formats.nesting import MAX_DEPTH, _max_indent, nesting_scan

_PLAIN = re.compile(r"(?m)^ +")


def _plain(text: str) -> int:
    return max((len(m) for m in _PLAIN.findall(text)), default=0)


@settings(max_examples=examples(1000), deadline=None)
@given(st.text(alphabet=" \n\t\r\x85\u2028ab-[{:", max_size=200))
def test_the_indent_is_the_plain_one(text: str) -> None:
    assert _max_indent(text) == _plain(text)


def test_edges() -> None:
    for text in ["", "\n", " ", "   x", "x\n      ", "a\n  b\n    c\n", "\n\n   \n",
                 " " * 70 + "x", "a:\n" + " " * 63 + "- b\n"]:
        assert _max_indent(text) == _plain(text), text


def test_the_scan_counts_the_indent() -> None:
    # under the limit the scan answers from the counts and the indent alone
    text = "a:\n" + " " * 40 + "b: 1\n"
    assert nesting_scan(text) == (40 + 1, 0)
    deep = "a:\n" + " " * (MAX_DEPTH + 5) + "b: 1\n"
    assert nesting_scan(deep)[0] <= MAX_DEPTH + 1  # the line-by-line scan is exact here


def test_every_corpus_frontmatter(corpus: Path) -> None:
    count = 0
    for path in sorted(corpus.rglob("*.md")):
        text = path.read_bytes().decode("utf-8", "replace").replace("\r\n", "\n")
        doc, _ = split_frontmatter(text)
        for part in (text[:4000], doc.yaml_text if doc is not None else ""):
            assert _max_indent(part) == _plain(part), path
        count += 1
    assert count > 300
