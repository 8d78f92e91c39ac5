"""The pattern of the first digits of every base64 run that can decode to text
(:mod:`subagents.lint.rules.injection_b64`): it is what Python's own decoder says, and the
shipped copy is the generator's."""

from __future__ import annotations

import base64
import random
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from subagents.lint.rules import injection_b64 as b64
from subagents.lint.rules import injection_views as iv

_DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_"
# what may follow a valid beginning of UTF-8 to make it whole: nothing, or the continuation
# bytes a character may still need (after E0 A0-BF, after F0 90-BF, else 80-BF)
#: the bytes the pattern's digits stand for
_BYTES = b64.DIGITS * 3 // 4
_ENDS = (b"", b"\x80", b"\x80\x80", b"\x80\x80\x80", b"\xa0\x80", b"\x90\x80", b"\x90\x80\x80")


def _begins_text(digits: str) -> bool:
    """Python's decoder: do the bytes of ``digits`` begin well-formed UTF-8?"""
    padded = digits + "=" * (-len(digits) % 4)  # (a lone digit or two over: no byte yet)
    raw = base64.b64decode(padded.replace("-", "+").replace("_", "/"))
    for end in _ENDS:
        try:
            (raw + end).decode("utf-8")
        except UnicodeDecodeError:
            continue
        return True
    return False


def _compiled() -> tuple[object, object]:
    import re

    import re2

    options = re2.Options()
    options.case_sensitive = True
    pattern = b64.prefix_pattern()
    return re.compile(pattern), re2.compile(pattern, options)


_PY, _RE2 = _compiled()


def _matches(digits: str) -> bool:
    py = _PY.fullmatch(digits) is not None  # type: ignore[attr-defined]
    assert (_RE2.fullmatch(digits) is not None) == py  # type: ignore[attr-defined]
    return py


def test_the_shipped_pattern_is_the_generators() -> None:
    shipped = Path(b64.__file__).with_name(b64.SHIPPED)
    assert shipped.read_text(encoding="utf-8") == b64.render_shipped(), (
        "run: python -m subagents.lint.rules.injection_b64")


def test_the_views_use_the_shipped_pattern() -> None:
    from subagents.lint.rules import _injection_b64

    assert b64.key() == _injection_b64.KEY
    assert iv._base64_prefix() == b64.prefix_pattern()


def test_the_pattern_is_what_the_decoder_says_on_random_digits() -> None:
    rng = random.Random(22)
    found = 0
    for _ in range(60_000):
        digits = "".join(rng.choice(_DIGITS) for _ in range(b64.DIGITS))
        expected = _begins_text(digits)
        assert _matches(digits) == expected, digits
        found += expected
    assert found > 1000  # (both answers were seen often)


def test_every_first_byte_is_judged_as_the_decoder_does() -> None:
    """Each possible first byte and a second and third byte of each kind after it, written in
    base64: the bytes a lead byte allows next are where a table is easiest to get wrong."""
    for lead in range(256):
        for second in (0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xFF):
            for third in (0x20, 0x80, 0x8F, 0xBF, 0xF4):
                for rest in (b"abc", b"\xc3\xa9a", b"\x80ab", b"\xf0\x9f\x98"):
                    tail = (rest * 4)[: _BYTES - 3]  # (as many bytes as the pattern reads)
                    digits = base64.b64encode(bytes([lead, second, third]) + tail).decode()
                    digits = digits[: b64.DIGITS]
                    assert _matches(digits) == _begins_text(digits), (lead, second, third, rest)


@settings(max_examples=500, deadline=None)
@given(st.text(min_size=1), st.booleans())
def test_every_run_of_text_begins_with_a_match(text: str, url_safe: bool) -> None:
    """Whatever the text (letters of any script, emoji, controls), its base64 begins with
    digits the pattern matches: no run that decodes to text is ever turned away."""
    digits = base64.b64encode(text.encode() * _BYTES).decode()  # (enough bytes)
    if url_safe:
        digits = digits.replace("+", "-").replace("/", "_")
    assert _matches(digits[: b64.DIGITS])


def test_a_shorter_prefix_is_the_automaton_too() -> None:
    """(The generator for any length: four digits, one group, checked over every choice of
    its first two digits and of the top four bits of the third, which with them make the
    first two bytes.)"""
    import re

    four = re.compile(b64.prefix_pattern(4))
    rng = random.Random(4)
    for a in _DIGITS:
        for b in _DIGITS:
            for c in _DIGITS[::4]:
                digits = a + b + c + rng.choice(_DIGITS)
                assert (four.fullmatch(digits) is not None) == _begins_text(digits), digits
