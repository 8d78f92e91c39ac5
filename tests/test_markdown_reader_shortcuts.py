"""Two shortcuts of the strict Markdown reader: a field's key position is one shared
``SourceLocation`` per position (it is frozen), and an empty frontmatter is recognised with
``str.isspace`` instead of stripping a copy.  Each gives what the plain step gives."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from hypothesis_helpers import examples
from subagents.definition import Dialect, SourceLocation
from subagents.formats import markdown
from subagents.formats.markdown import read_markdown_text


@settings(max_examples=examples(300))
@given(st.integers(1, 10_000), st.integers(1, 300))
def test_a_shared_location_is_the_location(line: int, column: int) -> None:
    got = markdown._location(line, column)
    assert got == SourceLocation(line, column) and type(got) is SourceLocation
    assert markdown._location(line, column) is got


@settings(max_examples=examples(500))
@given(st.text(alphabet=" \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x85\xa0\u2028\u3000\ufeff\u200ba",
               max_size=8))
def test_an_empty_frontmatter_is_what_strip_says(inner: str) -> None:
    # the test `_parse_block` asks, against the one it replaced
    assert (not inner or inner.isspace()) == (not inner.strip())
    _definition, doc, _issues = read_markdown_text(f"---\n{inner}\n---\nbody\n",
                                                   dialect=Dialect.CLAUDE, path=None)
    if doc is not None and not doc.yaml_text.strip():
        assert doc.root is not None and doc.root.pairs == []


def test_key_positions_in_a_definition() -> None:
    text = "---\nname: a\ndescription: b\ntools: Read\n---\nbody\n"
    definition, _doc, _issues = read_markdown_text(text, dialect=Dialect.CLAUDE, path=None)
    assert definition is not None
    assert definition.locations["name"] == SourceLocation(2, 1)
    assert definition.locations["tools"] == SourceLocation(4, 1)
