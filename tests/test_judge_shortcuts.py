"""Shortcuts of the definition checks give the answer of the computation they replaced.

Each test holds a check's faster test to the plain one, on texts built from the pieces that
tell them apart (and any text hypothesis makes up).
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from subagents.lint.rules import security, spec

_NAME_PIECES = ["/", "\\", "\x00", ".", "..", "~", "a", "-", " ", "é", "\n", "~/"]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(_NAME_PIECES), st.text(max_size=6)), max_size=8))
def test_a_name_traverses_where_the_pattern_finds_it(parts: list[str]) -> None:
    name = "".join(parts)
    assert security._traverses(name) is bool(security._TRAVERSAL_RE.search(name))


def test_each_traversal_form_is_found() -> None:
    for name in ("a/b", "a\\b", "a\x00", "a..b", "~x", "..", "/"):
        assert security._traverses(name), name
    for name in ("a~", "a.b", "name", "", " ~x"):
        assert not security._traverses(name), name


_WORD_PIECES = ["a", "Z9", " ", "  ", "-", "_", "é", "ß", ".", "\t", "\n", "agent", "ǅ", "٣"]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(_WORD_PIECES), st.text(max_size=5)), max_size=12))
def test_four_words_are_counted_as_the_word_list_counts_them(parts: list[str]) -> None:
    text = "".join(parts)
    counted = len(re.findall(r"[A-Za-z0-9]+", text)) >= 4
    assert spec._four_words(text) is counted


def test_word_counts_at_the_edge() -> None:
    assert spec._four_words("one two three four")
    assert spec._four_words("a-b_c.d")
    assert not spec._four_words("one two three")
    assert not spec._four_words("één twee drie")  # two words and a half, in ASCII
