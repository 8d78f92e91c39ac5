"""The C extension's ``simple_rows`` (``subagents._speedups``) gives exactly the rows of
:func:`subagents.formats.yamltree._simple_rows_py` (the simple reading's pattern), on hostile
texts: every code point in every place of a line, lone surrogates, characters of each width,
texts without their last line feed, huge ones, and the generated frontmatter of
test_yamltree_simple.py.  The trees the simple reading builds on either are libyaml's.  A
process switches to it only once it reads the simple way (never for one file), and
``SUBAGENTS_NO_EXTENSION`` keeps the Python function."""

from __future__ import annotations

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
print(first, yamltree._simple_rows is yamltree._simple_rows_py)
"""


@pytest.mark.parametrize(("switch", "expected"), [("", "False False"), ("1", "False True")])
def test_the_extension_is_taken_only_once_a_process_reads_the_simple_way(
    switch: str, expected: str,
) -> None:
    env = {**os.environ, "SUBAGENTS_NO_EXTENSION": switch}
    out = subprocess.run([sys.executable, "-c", _CHOSEN], capture_output=True, text=True,
                         env=env, check=True)
    assert out.stdout.split() == expected.split()
