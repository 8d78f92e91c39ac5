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


def _folded_plainly(pattern: str) -> str:
    """Every character read, as the patterns were folded before only non-ASCII runs were."""
    return "".join(c if c.isascii() or len(c.casefold()) != 1 else c.casefold()
                   for c in pattern)


def test_every_signal_part_is_folded_as_character_by_character() -> None:
    from subagents.lint.rules.injection_patterns import _SIGNALS

    sources = [p for _, parts in _SIGNALS for p in parts]
    assert any(not p.isascii() for p in sources)  # the other languages' lexicons
    for source in sources:
        assert injection._folded(source) == _folded_plainly(source)


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("aZ\\S(|)é ΣςÅåİıßſ\u212a\ufb01\ud800ǅ"))
               | st.characters(), max_size=40))
def test_folding_a_pattern_reads_only_its_non_ascii_runs(pattern: str) -> None:
    assert injection._folded(pattern) == _folded_plainly(pattern)
