"""NFKC with the invisible characters removed and the question "any letter to fold?" asked in
one RE2 pass (:func:`_visible`) give what the two separate passes gave: the detector's fast
normalising is the same on the development texts, the repository's files and made-up texts
holding invisible characters, look-alike letters and other non-ASCII text.  The UTF-8 that
pass reads is handed to the steps after it (folding, lowering, the hidden views' marks) only
where it is the bytes of the text they are given."""

from __future__ import annotations

import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from injection_helpers import development_texts
from subagents.lint.rules import injection
from subagents.lint.rules.injection import (
    _INVISIBLE,
    _fast,
    _fast_both_utf8,
    _fold_table,
    _folded_text,
    _visible,
    _visible_utf8,
)
from subagents.lint.rules.injection_text import (
    _CASED_BEYOND_ASCII,
    _CASED_UNICODE,
    _ascii_lower,
    cased_class,
)
from subagents.lint.rules.injection_text import _collapse_py as _collapse
from subagents.lint.rules.injection_views import views


def _plain_visible(text: str) -> str:
    text = unicodedata.normalize("NFKC", text)
    if injection._Patterns.get()["invisible"].search(text):
        text = _INVISIBLE.sub("", text)
    return text


def _plain_fast(text: str, fold: bool) -> str:
    """:func:`_fast` with its two passes, as it was."""
    if text.isascii():
        return _collapse(text.lower())
    text = _plain_visible(text)
    if fold:
        text = _folded_text(text)
    return _collapse(text.casefold(), nfkc=True)


def _plain_both(text: str) -> list[str]:
    """:func:`_fast_both_utf8` with its two passes, as it was."""
    if text.isascii():
        return [_collapse(text.lower())]
    text = _plain_visible(text)
    folded = _folded_text(text)
    if folded is text:
        return [_collapse(text.casefold(), nfkc=True)]
    norm = _collapse(folded.casefold(), nfkc=True)
    bare = _collapse(text.casefold(), nfkc=True)
    return [norm] if bare == norm else [norm, bare]


def _same(text: str) -> None:
    assert _fast_both_utf8(text)[0] == _plain_both(text), text[:200]
    assert _fast(text, True) == _plain_fast(text, True)
    assert _fast(text, False) == _plain_fast(text, False)
    visible, unusual = _visible(text)
    assert visible == _plain_visible(text)
    if not unusual:
        assert _folded_text(visible) is visible
        assert _ascii_lower(visible) == visible.casefold()
    # the UTF-8 handed on is the bytes of the text it stands for
    again, unusual_again, data = _visible_utf8(text)
    assert (again, unusual_again) == (visible, unusual)
    assert data is None or data == again.encode()
    if data is not None:
        assert _folded_text(again, data) == _folded_text(again)
        if not unusual:
            assert _ascii_lower(again, data) == again.casefold()
    utf8: list[bytes] = []
    assert _fast_both_utf8(text, utf8)[0] == _plain_both(text)
    assert utf8 in ([], [text.encode()])
    assert list(views(text, utf8)) == list(views(text))


def test_the_cased_ranges_hold_every_letter_case_folding_changes() -> None:
    if unicodedata.unidata_version != _CASED_UNICODE:
        assert cased_class() == "[^\\x00-\\x7f]"  # the shortcut is never taken
        return
    changed = [c for c in range(0x80, 0x110000) if chr(c).casefold() != chr(c)]
    assert len(changed) > 1000
    for c in changed:
        assert any(lo <= c <= hi for lo, hi in _CASED_BEYOND_ASCII), hex(c)
    rx = injection._Patterns.get()["unusual"]
    for c in changed:  # and the compiled class finds each
        assert injection.found_in(rx, chr(c).encode()), hex(c)
    assert not injection.found_in(rx, "àé ж 中文 😀 ÿ".encode())


def test_same_on_the_development_texts_and_the_repositorys_files() -> None:
    texts = development_texts()
    assert sum(not t.isascii() for t in texts) > 50
    for text in texts:
        _same(text)


_LOOK_ALIKES = sorted(chr(c) for c in _fold_table())[::7]
_ODD = ["\u200b", "\u00ad", "\u202e", "\ufe0f", "\U000e0041", "\u2060", "\ufeff", "é", "ß",
        "\u00a0", "\u2003", "😀", "中文", "\u0301", "ﬁ", "Σ", "\u3164",
        # letters case-folding changes (or leaves alone beside ones it changes)
        "É", "Ä", "µ", "\u212a", "İ", "ſ", "ς", "Ж", "ж", "\u13a0", "\uab70", "\u1e9e", "Ⅻ",
        "\U00010400", "ǅ", "ŉ", "à", "ÿ"]


@settings(max_examples=800, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(_LOOK_ALIKES), st.sampled_from(_ODD),
                          st.sampled_from(["ignore", " ", "\n", "Rules", "send"]),
                          st.text(max_size=3)), max_size=30))
def test_same_on_made_up_texts(pieces: list[str]) -> None:
    _same("".join(pieces))


_CLASS = r"(?:\(\?:)?\[(?:[^\[\]\\]|\\.)*\]\)?"


def test_the_passes_read_only_characters_beyond_ascii() -> None:
    """What lets the passes of "unusual" and "unusual_or_nfkc" skip the ASCII bytes: each is
    an alternation of character classes (so every match is one character), and no ASCII
    character is in any of them (so the ASCII bytes deleted never match, nor end a match)."""
    import re

    pats = injection._Patterns.get()
    for name in ("unusual", "unusual_or_nfkc"):
        rx = pats[name]
        if rx is None:  # (another Unicode: the pass is never made)
            continue
        source = rx.pattern.removeprefix("(?m)")
        parts = source.split("|")
        assert len(parts) >= 3
        for part in parts:
            assert re.fullmatch(_CLASS, part), (name, part[:80])
        for c in range(128):
            assert not injection.found_in(rx, bytes([c])), (name, c)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(_LOOK_ALIKES), st.sampled_from(_ODD),
                          st.sampled_from(["ignore", " ", "\n", "abc"]),
                          st.text(max_size=3)), max_size=20))
def test_the_passes_answer_alike_without_the_ascii_bytes(pieces: list[str]) -> None:
    data = "".join(pieces).encode("utf-8", "replace")
    rest = data.translate(None, injection._ASCII_BYTES)
    pats = injection._Patterns.get()
    for name in ("unusual", "unusual_or_nfkc"):
        if pats[name] is not None:
            assert injection.found_in(pats[name], data) == injection.found_in(pats[name], rest)
