"""Folding look-alike letters by the few characters found (one RE2 pass) gives what
``str.translate`` over the whole text gives."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from subagents.lint.rules import injection


def _table_letters() -> list[str]:
    return sorted(chr(c) for c in injection._fold_table())


def test_every_letter_of_the_table_folds_as_translate_folds_it() -> None:
    table = injection._fold_table()
    letters = _table_letters()
    text = "a" + "b".join(letters) + "\U0001f600"
    assert injection._folded_text(text) == text.translate(table)
    assert injection._folded_text("plain ascii") == "plain ascii"
    assert injection._folded_text("naïve ×") == "naïve ×".translate(table)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(_table_letters()), st.text(max_size=4),
                          st.sampled_from(["\ud800", "\udfff", "é", "×", "\U000e0041"])),
                max_size=30).map("".join))
def test_folding_is_translate(text: str) -> None:
    assert injection._folded_text(text) == text.translate(injection._fold_table())
