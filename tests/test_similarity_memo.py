"""SA602's memo of each description's counts and its stemmer's table by word ending, held to
the plain formulas.

``_weigh`` keeps each description's term counts for the process (keyed by its text, bounded)
and writes the unit weights into a new dictionary; the stemmer tries only the suffixes listed
for a word's last two letters.  Neither may change a vector, a float or a stem: the vectors
must equal the plain TF-IDF formula bit for bit and in order, whether a description is met for
the first time, again in the same set, again in another set, or after the memo was emptied.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from subagents.lint import similarity
from test_similarity_index import _TEXT, _plain_stem, _plain_vectors


def _bits(vectors: list[dict[str, float]]) -> list[list[tuple[str, str]]]:
    """Each vector's terms in order with their weights' exact bits (``float.hex``)."""
    return [[(t, w.hex()) for t, w in v.items()] for v in vectors]


@settings(max_examples=200, deadline=None)
@given(st.lists(_TEXT, min_size=1, max_size=6), st.lists(st.integers(0, 5), max_size=14))
def test_repeated_descriptions_weigh_as_the_plain_formula(base: list[str],
                                                          picks: list[int]) -> None:
    """A description repeated in one set and met again in the next set (answered from the
    memo) weighs as the plain formula says, and weighing does not alter what the memo keeps."""
    texts = [base[i % len(base)] for i in picks] + base
    for _round in range(2):
        vectors, _df = similarity._weigh(texts)
        assert _bits(vectors) == _bits(_plain_vectors(texts))
        assert all(vectors[i] is not vectors[j]
                   for i in range(len(vectors)) for j in range(i + 1, len(vectors)))
    for text in base:
        counts, once = similarity._COUNTS[text]
        assert all(isinstance(c, int) and c >= 1 for c in counts.values())
        assert once == all(c == 1 for c in counts.values())


def test_the_counts_memo_is_bounded_and_answers_alike_after_emptying(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(similarity, "_COUNTS", {})
    monkeypatch.setattr(similarity, "_COUNTS_MAX", 3)
    texts = ["review code review", "deploy code", "review the code", "audit code", "deploy",
             "review code review", "deploy code"]
    for _round in range(3):
        vectors, _df = similarity._weigh(texts)
        assert _bits(vectors) == _bits(_plain_vectors(texts))
        assert len(similarity._COUNTS) <= 3


_LETTERS = st.sampled_from(["a", "e", "i", "s", "t", "r", "n", "g", "d", "y", "z", "l",
                            "ation", "ing", "ers", "ies", "ment", "ity", "ize", "ed", "ational",
                            "izations", "ates", "ators", "\u00e9", "\u00df", "\u017f", "\u0131",
                            "\u03c3", "\u212a"])


@settings(max_examples=600, deadline=None)
@given(st.lists(_LETTERS, max_size=8).map("".join))
def test_stem_by_ending_equals_trying_every_suffix_on_any_letters(word: str) -> None:
    """Letters beyond ASCII too (a word ending in "\u00e9s" has no two-letter entry: the
    one-letter suffix is found by its last letter), cached and uncached."""
    assert similarity._stem(word) == _plain_stem(word)
    assert similarity.stem(word) == _plain_stem(word)
