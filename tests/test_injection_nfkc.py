"""A text holding none of the characters NFKC may change is given to NFKC no more
(:mod:`subagents.lint.rules.injection_nfkc`): the shipped table is what this Python's
``unicodedata`` says, and the detector's first step (:func:`.injection._visible_utf8`) gives
the same text, answer and bytes with the shortcut as without it, on the development texts,
on texts made of the characters at stake (compatibility forms, combining marks in any order,
Hangul jamo, look-alikes, invisible characters) and on any text."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hypothesis_helpers import examples
from injection_helpers import development_texts
from subagents.lint.rules import _injection_nfkc, injection, injection_views
from subagents.lint.rules.injection_nfkc import unstable_class, unstable_ranges


def test_the_shipped_table_is_what_unicodedata_says() -> None:
    if unicodedata.unidata_version != _injection_nfkc.UNICODE:
        assert unstable_class() is None  # another Unicode: the shortcut is never taken
        return
    assert tuple(unstable_ranges()) == _injection_nfkc.RANGES
    assert unstable_class() is not None


def _both(text: str) -> None:
    saved = injection_views._READ[0]
    try:
        injection_views._READ[0] = 0  # before the threshold: NFKC every time
        try:
            plain: object = injection._visible_utf8(text)
        except UnicodeEncodeError:
            plain = UnicodeEncodeError
        injection_views._READ[0] = injection.NFKC_AFTER + 1
        try:
            fast: object = injection._visible_utf8(text)
        except UnicodeEncodeError:
            fast = UnicodeEncodeError
    finally:
        injection_views._READ[0] = saved
    assert fast == plain, text[:200]
    if isinstance(plain, tuple) and isinstance(fast, tuple):
        # the same object when NFKC left it so (the detector reuses the text's bytes then)
        assert (plain[0] is text) == (fast[0] is text), text[:200]


def test_the_same_on_the_development_texts() -> None:
    texts = development_texts()
    beyond = [text for text in texts if not text.isascii()]
    assert len(beyond) > 50
    for text in beyond:
        _both(text)


def test_most_texts_beyond_ascii_skip_nfkc(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    real = unicodedata.normalize
    monkeypatch.setattr(injection.unicodedata, "normalize",
                        lambda form, text: (calls.append(text), real(form, text))[1])
    saved = injection_views._READ[0]
    injection_views._READ[0] = injection.NFKC_AFTER + 1
    try:
        texts = ["Réponds en français, s'il te plaît.", "Antworte auf Deutsch — kurz.",
                 "日本語で答えて"]
        for text in texts:
            assert injection._visible_utf8(text) == (text, False, text.encode())
        if unicodedata.unidata_version == _injection_nfkc.UNICODE:
            assert calls == []
        injection._visible_utf8("ﬁle ①")  # compatibility forms: NFKC is asked
        assert calls[-1] == "ﬁle ①"
    finally:
        injection_views._READ[0] = saved


def _samples() -> list[str]:
    chars = [chr(a) for a, _ in _injection_nfkc.RANGES if not 0xD800 <= a <= 0xDFFF]
    chars += [chr(b) for _, b in _injection_nfkc.RANGES if not 0xD800 <= b <= 0xDFFF]
    # stable neighbours of the ranges, letters that compose, Hangul jamo, look-alikes
    chars += [chr(b + 1) for _, b in _injection_nfkc.RANGES if b + 1 < 0x110000
              and not 0xD800 <= b + 1 <= 0xDFFF]
    chars += list("eEaAoOuUnNcC\u0301\u0300\u0308\u0327\u0323\u1100\u1161\u11a8\uac00"
                  "\u0915\u093c\u0928\u094d\u200b\u00ad\u0430\u043e\u03bf\u00e9\u212b\u1e9b")
    return chars


@settings(max_examples=examples(400), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.sampled_from(_samples()), max_size=12).map("".join))
def test_the_same_on_texts_of_the_characters_at_stake(text: str) -> None:
    _both(text)


@settings(max_examples=examples(200), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.text(max_size=80))
def test_the_same_on_any_text(text: str) -> None:
    _both(text)
