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
from subagents.formats.yamltree import YScalar


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


_VALUES = ["x", "yes", "No", "~", "null", "", "1", "-2", "0x1F", "1.5", ".inf", "2024-01-01",
           "12:30:45", "'quoted'", '"1"', "'yes'", "!!str 1", "!!int '3'", "! 5", "!!bool yes",
           "!!null ''", "!!float 1", "|\n  block\n", ">-\n  folded\n  text\n", "[a, 1]",
           "{k: 1}", "\n  - a\n  - 2\n", "&a 1", "a & b", "Read, Grep", "!!timestamp 2024-01-01"]


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.sampled_from(_VALUES), min_size=1, max_size=5))
def test_field_values_are_what_to_python_gives(values: list[str]) -> None:
    # the reader answers a scalar's text without calling `to_python` when that is what it
    # returns: every field item is the one the plain step makes
    text = "---\n" + "".join(f"k{i}: {v}\n" for i, v in enumerate(values)) + "---\nbody\n"
    given_items: list[object] = []
    real = markdown.build_from_items

    def spy(raw: list[object], **kwargs: object) -> object:
        given_items.extend(raw)
        return real(raw, **kwargs)  # type: ignore[arg-type]

    markdown.build_from_items = spy  # type: ignore[assignment]
    try:
        _definition, doc, _issues = read_markdown_text(text, dialect=Dialect.CLAUDE, path=None)
    finally:
        markdown.build_from_items = real
    if doc is None or doc.root is None:
        assert given_items == []
        return
    plain = [(f.key, f.node.to_python(), SourceLocation(f.key_line, f.key_column),
              f.node.value if isinstance(f.node, YScalar) else None,
              (f.node.line, f.node.column)) for f in doc.fields.values()]
    assert given_items == plain
    for got, want in zip(given_items, plain, strict=True):  # (1 == True: the types too)
        assert type(got[1]) is type(want[1])  # type: ignore[index]


def test_a_document_s_fields_are_what_yfield_makes() -> None:
    # `_parse_block` makes each YField without calling the class: that is the same object
    # only while YField is these four fields, set by its `__init__` and nothing more
    import dataclasses

    from subagents.formats.frontmatter import YField, split_frontmatter
    from subagents.formats.yamltree import YMap

    assert [f.name for f in dataclasses.fields(YField)] == ["key", "key_line", "key_column",
                                                            "node"]
    assert not hasattr(YField, "__post_init__") and YField.__slots__ == (
        "key", "key_line", "key_column", "node")
    for text in ["---\nname: a\ndescription: b\nname: c\ntools: [x]\n---\nbody\n",
                 "\n---\nk: |\n  v\nj: 'w'\n---\n", "---\nname: a: b\ncolor: red\n---\n"]:
        doc = split_frontmatter(text)[0]
        assert doc is not None and isinstance(doc.root, YMap)
        expected: dict[str, YField] = {}
        for key, node in doc.root.pairs:
            expected.setdefault(key.value, YField(key.value, key.line, key.column, node))
        assert doc.fields == expected and list(doc.fields) == list(expected)
        for name, found in doc.fields.items():
            assert type(found) is YField and found.node is expected[name].node
