"""The C extension's ``simple_rows`` (``subagents._speedups``) gives exactly the rows of
:func:`subagents.formats.yamltree._simple_rows_py` (the simple reading's pattern), on hostile
texts: every code point in every place of a line, lone surrogates, characters of each width,
texts without their last line feed, huge ones, and the generated frontmatter of
test_yamltree_simple.py.  The trees the simple reading builds on either are libyaml's.  A
process switches to it only once it reads the simple way (never for one file), and
``SUBAGENTS_NO_EXTENSION`` keeps the Python function."""

from __future__ import annotations

import gc
import os
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hypothesis_helpers import examples
from subagents.formats import yamltree
from subagents.formats.yamltree import _simple_rows_py
from test_yamltree_simple import _block_texts, _same, _texts

native = pytest.importorskip("subagents._speedups", reason="the C extension is not built")


def _rows_alike(text: str, offset: int = 0) -> None:
    assert native.simple_rows(text, offset) == _simple_rows_py(text, offset), repr(text)


#: the characters that decide a simple line: every one the pattern names, blanks, the ends
#: of the ranges libyaml does not read, each width, lone surrogates
_SPECIAL = [*"#-?:,[]{}&*!|>'\"%@`\\ _-aZ09.\t\n\r\x00\x1f\x7f\x9f\xa0\x85",
    "\u2028", "\u2029", "\ufeff", "\ufffe", "\uffff", "\u3000", "\u1680", "\u200b", "é",
    "日", "\U0001f600", "\U0010ffff", "\ud800", "\udfff", "\x1c", "\x0b", "\x0c"]

_pieces = st.one_of(st.sampled_from(_SPECIAL), st.text(max_size=4),
                    st.sampled_from(["name", "description: ", "k: ", ": ", " #", "\n", "\n#",
                                     "'", '"', "| ", "|-", "k" * 200, "k" * 201]))


@settings(max_examples=examples(1500), deadline=None)
@given(st.lists(_pieces, max_size=30).map("".join), st.integers(-5, 10**6))
def test_any_text(text: str, offset: int) -> None:
    _rows_alike(text, offset)
    _rows_alike(text + "\n", offset)


@settings(max_examples=examples(1000), deadline=None)
@given(_texts())
def test_generated_frontmatter(text: str) -> None:
    _rows_alike(text, 3)
    _rows_alike(text + "\n", 3)


def test_every_code_point_in_every_place_of_a_line() -> None:
    # one text per place and block of code points: a line per code point, each alone a
    # simple one (so that a text answers with rows) or not (so that it answers None)
    places = ["k: {}\n", "k: x{}\n", "k: x{}y\n", "k: x:{}\n", "k:{}x\n", "k: '{}'\n",
              'k: "{}"\n', "k: |{}\n", "k{}: x\n", "{}: x\n", "#{}\n", "{}\n", "k: x {}\n",
              "k: 'a'{}\n"]
    points = [chr(c) for c in range(0x110000)]
    for place in places:
        for start in range(0, len(points), 8192):
            block = points[start:start + 8192]
            for c in block[:: 127]:
                _rows_alike(place.format(c), 1)
            # code points each on its own line among simple ones (in the first blocks, all)
            step = 1 if start < 0x3000 else 11
            _rows_alike("".join("name: a\n" + place.format(c) for c in block[::step]), 1)
        for c in _SPECIAL:
            _rows_alike(place.format(c), 1)


def test_lines_of_every_kind_and_width() -> None:
    lines = ["", "# c", "#", "name: x", "description: 'a b'  ", 'd: "q: #"', "t: |", "t: |-  ",
             "k: a:b:c", "k: C# no", "k: x\u00a0y", "k: \U0001f600 é", "k" * 200 + ": v",
             "k" * 201 + ": v", "k:  x  ", "k: |+", "k: | -", "k: a\ttab", "k: ''", 'k: ""']
    for a in lines:
        for b in lines:
            for end in ("", "\n"):
                _rows_alike(f"{a}\n{b}{end}", 7)
    huge = "description: " + "word " * 200_000 + "\n"
    _rows_alike(huge * 3)
    _rows_alike("name: x\n" * 50_000)
    _rows_alike("")
    _rows_alike("\n" * 1000)


@settings(max_examples=examples(500), deadline=None)
@given(st.one_of(_texts(), _block_texts()))
def test_the_trees_on_either_are_libyaml_s(text: str) -> None:
    for rows in (native.simple_rows, _simple_rows_py):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(yamltree, "_simple_rows", rows)
            _same(text)


def _tree_both_ways(text: str, offset: int) -> tuple[object, object]:
    """``_simple_tree`` of ``text`` with the C extension's rows and pairs, and with the
    Python function and loop."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(yamltree, "_simple_rows", native.simple_rows)
        patch.setattr(yamltree, "_simple_pairs", native.simple_pairs)
        ours = yamltree._simple_tree(text, offset)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(yamltree, "_simple_rows", _simple_rows_py)
        patch.setattr(yamltree, "_simple_pairs", None)
        plain = yamltree._simple_tree(text, offset)
    return ours, plain


def _pairs_answer(text: str, offset: int) -> bool:
    """Whether ``simple_pairs`` answers for ``text`` (not the loop)."""
    rows = _simple_rows_py(text if text.endswith("\n") else text + "\n", offset)
    return rows is not None and native.simple_pairs(
        rows, yamltree._KEYS, yamltree._PLAIN_TAGS, yamltree._TYPED_FIRST, yamltree._STR_TAG,
        yamltree.YScalar) is not None


@settings(max_examples=examples(1000), deadline=None)
@given(st.one_of(_texts(), _block_texts()), st.integers(0, 30))
def test_the_pairs_in_c_are_the_loop_s(text: str, offset: int) -> None:
    # twice: the first reading may remember keys and tags (the loop's), the second is then
    # the C pairs' wherever the text is one they take
    for _ in range(2):
        ours, plain = _tree_both_ways(text, offset)
        assert ours == plain, repr(text)
        if ours is not None:
            _same(text, offset)


def test_the_pairs_in_c_answer_the_usual_text_and_leave_the_rest() -> None:
    usual = "name: a-b\ndescription: 'Use it: now'\nmodel: sonnet\ntools: Read, Grep\n"
    _tree_both_ways(usual, 1)  # (keys and tags remembered)
    assert _pairs_answer(usual, 1)
    ours, plain = _tree_both_ways(usual, 1)
    assert ours == plain and ours is not None
    # every node is a YScalar made as the class makes one: the same fields, tracked alike
    for key, value in ours.root.pairs:  # type: ignore[attr-defined]
        made = yamltree.YScalar(value.value, value.line, value.column, value.style, value.tag,
                                value.end_line, value.end_column, value.resolved_tag)
        assert type(value) is yamltree.YScalar and value == made
        assert gc.is_tracked(value) == gc.is_tracked(made)
        assert key is yamltree._KEYS[key.value, key.line]
    # the loop's cases: a key twice, a key or a tag not remembered, a literal block, nothing
    for text in ["name: a\nname: b\n", "never-seen-key: x\n", "name: 1.2.3.4.5.6\n",
                 "name: |\n  x\n", "# c\n\n"]:
        assert not _pairs_answer(text, 1), text
        ours, plain = _tree_both_ways(text, 1)
        assert ours == plain, text


def test_the_pairs_refuse_a_class_that_is_not_a_plain_slots_one() -> None:
    rows = _simple_rows_py("name: a\n", 1)

    class Plain:
        pass

    class OneSlot:
        __slots__ = ("value",)

    for cls in (Plain, OneSlot, int, "YScalar"):
        with pytest.raises(TypeError):
            native.simple_pairs(rows, {}, {}, frozenset(), "t", cls)
    with pytest.raises(TypeError):
        native.simple_pairs([("k", 1, 4)], {}, {}, frozenset(), "t", yamltree.YScalar)


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(TypeError):
        native.simple_rows(b"k: x\n", 0)
    with pytest.raises(TypeError):
        native.simple_rows("k: x\n")
    with pytest.raises(TypeError):
        native.simple_rows("k: x\n", "0")


_CHOSEN = """
import sys
from subagents.formats import yamltree
from subagents.formats.yamltree import parse_yaml_tree
parse_yaml_tree("name: a\\n", line_offset=1)
first = "subagents._speedups" in sys.modules
for n in range(yamltree._SIMPLE_AFTER):
    parse_yaml_tree("name: a\\n", line_offset=1)
print(first, yamltree._simple_rows is yamltree._simple_rows_py,
      yamltree._simple_pairs is None)
"""


@pytest.mark.parametrize(("switch", "expected"), [("", "False False False"),
                                                  ("1", "False True True")])
def test_the_extension_is_taken_only_once_a_process_reads_the_simple_way(
    switch: str, expected: str,
) -> None:
    env = {**os.environ, "SUBAGENTS_NO_EXTENSION": switch}
    out = subprocess.run([sys.executable, "-c", _CHOSEN], capture_output=True, text=True,
                         env=env, check=True)
    assert out.stdout.split() == expected.split()
