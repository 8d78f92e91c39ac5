"""The simple reading of ``key: value`` frontmatter gives the tree libyaml's nodes give.

:func:`subagents.formats.yamltree._simple_tree` reads a frontmatter made only of one-line
``key: value`` fields (plain values, or quoted ones without escapes), empty lines and comments
with one pattern instead of libyaml.  Wherever it answers, its tree -- every key and value,
line, column, end, style and resolved tag, and every duplicate-key finding -- must be the one
the libyaml path builds from the same text; where it cannot be sure, it must decline.  Compared
on every corpus frontmatter (whole, and line by line) and on generated lines full of the
characters and shapes that end, continue or break a YAML value."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hypothesis_helpers import examples
from subagents.formats import yamltree
from subagents.formats.frontmatter import decode_bytes, split_frontmatter
from subagents.formats.yamltree import YMap, parse_yaml_tree


def _same(text: str, offset: int = 3) -> bool:
    """Whether the simple reading answered; when it did, that it is libyaml's tree."""
    simple = yamltree._simple_tree(text, offset)
    if simple is None:
        return False
    reference = yamltree._parse_yaml_tree(text, offset)
    assert simple == reference, repr(text)
    assert parse_yaml_tree(text, line_offset=offset) == reference, repr(text)
    return True


_KEYS = ["name", "description", "tools", "model", "yes", "on", "null", "n", "x-y", "_k", "k9",
         "name", "a b", "1", "~", "'q'", "-k", "k" * 201, "k" * 1100, "tools ", "ké", "é",
         "k-", "_", "k.v", "k" * 200, "K_9-x", "", "-"]
_GAPS = [" ", " ", "  ", "\t", "", " \t"]
_VALUES = [
    "x", "Read, Grep", "yes", "No", "~", "null", "", "1", "-2", "0x1F", "1.5", ".inf", ".nan",
    "2024-01-01", "12:30:45", "a: b", "a:b", "a:", "a :", "a #b", "a#b", "#b", "C# and F#",
    "http://x.y/z", "'quoted'", '"double"', "'it''s'", '"esc\\n"', '"a\\"b"', "'a'b'", '"a"b"',
    "[a, b]", "{k: 1}", "[]", "|", ">-", "&a x", "*a", "!tag x", "!!str 1", "%p", "@a", "`b`",
    "-x", "- x", "?x", "? x", ":x", ",x", "x,y", "x]", "x}", "ü日本 ok", "x\u00a0y", "\u00a0x",
    "x\x85y", "x\u2028y", "x\u2029", "x\ufeff", "\ufeffx", "x\x07", "x\x7f", "x\x9f", "x\t",
    "x  ", "x \t", "'a' ", '"a"  ', "'a' #c", '"a" x', "\U0001f600 emoji", "a\ufffdb",
    "a ' b", 'a " b', "a\\b", "<example>user: x</example>", "---", "...", "a---b",
    "\u3000x", "x\u3000y", "\u200bx", "x\u00ady", "'a\\'", "'a\"b'", '"a\'b"', "x:y:z", "x::",
    "::", "x: ", "'a'  ", "é", "\U0010fffd", "\ue000", "x\u0378",
]
_OTHER_LINES = ["", "# comment", "#", " # indented comment", "  ", "\t", "---", "...",
                "  continued", "- item", "key", "%YAML 1.1", "\u00a0", "\ufeff# bom"]


@st.composite
def _texts(draw: st.DrawFn) -> str:
    lines: list[str] = []
    for _ in range(draw(st.integers(0, 8))):
        kind = draw(st.sampled_from(["field", "field", "field", "other", "any"]))
        if kind == "other":
            lines.append(draw(st.sampled_from(_OTHER_LINES)))
            continue
        key = draw(st.sampled_from(_KEYS))
        gap = draw(st.sampled_from(_GAPS))
        value = (draw(st.sampled_from(_VALUES)) if kind == "field"
                 else draw(st.text(max_size=12)))
        lines.append(f"{key}:{gap}{value}")
    return "\n".join(lines) + ("\n" if draw(st.integers(0, 9)) else "")


@settings(max_examples=examples(3000), deadline=None)
@given(_texts())
def test_generated_frontmatter(text: str) -> None:
    _same(text)


@settings(max_examples=examples(500), deadline=None)
@given(st.text(max_size=40))
def test_any_value_on_a_field_line(value: str) -> None:
    _same(f"name: x\ndescription: {value}\n")
    _same(f"k: '{value}'\n")
    _same(f'k: "{value}"\n')


def test_each_shape_on_its_own() -> None:
    answered = 0
    for value in _VALUES:
        for gap in _GAPS:
            answered += _same(f"key:{gap}{value}\n")
            answered += _same(f"# c\n\nkey:{gap}{value}\nother: 1\n", 0)
            _same(f"key:{gap}{value}")  # no final line feed: declined or the same
            _same(f"key:{gap}{value}\n  continued\n")
    assert answered > 100  # the simple reading did answer


def test_it_declines_what_it_cannot_read() -> None:
    for text in ["k: a: b\n", "k: [a]\n", "k: x\n  y\n", "k: 'a''b'\n", 'k: "a\\nb"\n',
                 "k: &a x\n", "k: x #c\n", "k:\tx\n", "k: x\r\n", "k: a\x85b\n", "k:\n",
                 "\n\n", "# only\n", "# only", "k" * 201 + ": x\n", "- a\n", "k: x\n---\n",
                 "k: a\u2028b\n", "k: 'a\u2029'\n", "k: a\ufeff\n", "k: \ufffe\n", "k: \uffff\n",
                 "k: a\ud800b\n", "# \udfff\nk: x\n"]:
        assert yamltree._simple_tree(text, 0) is None, repr(text)


def test_a_text_without_its_last_line_feed_is_read_the_same() -> None:
    # what the frontmatter's recovery reads: each field's lines on their own, joined
    for text in ["k: x", "name: a\ndescription: 'b c'  ", "k: x\n# c", "k: x\n", "k: \"q\""]:
        assert _same(text, 4), repr(text)


def test_duplicate_keys_are_found_as_libyaml_s_path_finds_them() -> None:
    text = "name: a\ndescription: b\nname: 'c'\nname: d\n"
    tree = yamltree._simple_tree(text, 1)
    assert tree is not None and [i.code for i in tree.issues] == ["SA007", "SA007"]
    assert _same(text, 1)


def test_every_corpus_frontmatter_whole_and_line_by_line(corpus: Path) -> None:
    whole = lines = 0
    for path in sorted(corpus.rglob("*.md")):
        text = decode_bytes(path.read_bytes()).text
        doc = split_frontmatter(text)[0] if text is not None else None
        if doc is None or not doc.yaml_text.strip():
            continue
        whole += _same(doc.yaml_text, doc.start_line)
        for line in doc.yaml_text.splitlines(keepends=True):
            lines += _same(line)
    assert whole > 200 and lines > 1000  # (592 frontmatters: most are simple)


def test_the_simple_reading_is_what_split_frontmatter_gives() -> None:
    text = "---\nname: a\ndescription: \"b: c\"\ntools: Read, Grep\n---\nbody\n"
    doc = split_frontmatter(text)[0]
    assert doc is not None and isinstance(doc.root, YMap)
    assert [k.value for k, _ in doc.root.pairs] == ["name", "description", "tools"]
    assert doc.root == yamltree._parse_yaml_tree(doc.yaml_text, 1).root


def test_a_process_reads_its_first_texts_with_libyaml_then_the_simple_way(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked: list[str] = []
    real = yamltree._simple_tree

    def spy(text: str, offset: int) -> object:
        asked.append(text)
        return real(text, offset)

    monkeypatch.setattr(yamltree, "_simple_tree", spy)
    monkeypatch.setattr(yamltree, "_PARSED", [0])
    text = "name: a\ndescription: b\n"
    first = [parse_yaml_tree(text, line_offset=1) for _ in range(yamltree._SIMPLE_AFTER)]
    assert asked == [] and yamltree._PARSED == [yamltree._SIMPLE_AFTER]
    later = parse_yaml_tree(text, line_offset=1)
    assert asked == [text] and later == first[0] == yamltree._parse_yaml_tree(text, 1)


def test_a_key_on_the_same_line_is_one_scalar_shared_by_the_trees() -> None:
    first = yamltree._simple_tree("name: a\ndescription: b\n", 1)
    second = yamltree._simple_tree("name: 'c'\ndescription: d\n# e\nname: f\n", 1)
    assert first is not None and isinstance(first.root, YMap)
    assert second is not None and isinstance(second.root, YMap)
    assert first.root.pairs[0][0] is second.root.pairs[0][0]
    assert first.root.pairs[1][0] is second.root.pairs[1][0]
    assert second.root.pairs[2][0] is not first.root.pairs[0][0]  # (line 5, not 2)
    # a text holding `!`, `&` or `*`: keys without a resolved tag (libyaml's event path),
    # built for that tree
    bang = yamltree._simple_tree("name: a!\n", 1)
    assert bang is not None and isinstance(bang.root, YMap)
    assert bang.root.pairs[0][0] is not first.root.pairs[0][0]
    assert bang.root.pairs[0][0].resolved_tag is None
    for text in ["name: a\ndescription: b\n", "name: 'c'\ndescription: d\n# e\nname: f\n",
                 "name: a!\n", "description: b\nname: a\n"]:
        for offset in (0, 1, 2, 7):
            assert _same(text, offset)


def test_the_shared_keys_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(yamltree, "_KEYS", {})
    for offset in range(yamltree._KEYS_MAX + 10):
        yamltree._simple_tree("name: a\n", offset)
        assert len(yamltree._KEYS) <= yamltree._KEYS_MAX
    assert _same("name: a\n", yamltree._KEYS_MAX + 9)
