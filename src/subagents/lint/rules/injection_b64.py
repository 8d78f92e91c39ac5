"""Which base64 runs can decode to text: a pattern their first digits always match, so that a
prompt whose runs cannot is told in the hidden views' one set pass, with no run decoded.

Design notes
------------
* The hidden views (:mod:`.injection_views`) decode a base64 run only to keep it when it reads
  as text (:func:`.injection_views._printable`): valid UTF-8, mostly letters and blanks.  A
  run in an ordinary prompt is a long word, a path or a name, and finding each run and
  decoding it cost about half of the views' time on the corpus, where not one run decoded to
  text.
* The bytes a run decodes to begin with what its first digits decode to (four digits give
  three bytes, whatever follows), so a run that decodes to valid UTF-8 begins with digits
  whose bytes begin valid UTF-8.  :func:`prefix_pattern` writes the set of such beginnings of
  :data:`DIGITS` digits as a pattern: the automaton of well-formed UTF-8 (the Unicode
  standard's table, which Python's decoder keeps: no overlong form, no surrogate, nothing
  above U+10FFFF) read through base64's six bits a digit, minimised (equal futures are one
  state) and written out as nested alternatives of character classes.  Ten digits (seven
  bytes and a half) turn away every run of the 2,663 texts of the 2,000 distinct bench files
  but 24 runs of 18 texts (eight digits let through 254 runs of 170 texts: words such as
  ``expected_coverage`` and ``Environment-specific``, none of which decodes to text; twelve
  digits 18 runs of 12 texts, but the pattern is 15 KB and costs more to compile than the
  six texts save); the pattern is 7 KB, so it is used once a process has read about 250
  files' worth of text (:mod:`.injection_views`).
* Generating it takes about 40 ms, so the package ships it (``_injection_b64.py``, written by
  ``python -m subagents.lint.rules.injection_b64``; tests/test_injection_b64.py fails when it
  is stale, and checks the pattern against Python's own decoder).  ``-`` and ``_`` are read as
  ``+`` and ``/``, as the views decode them.
"""

from __future__ import annotations

import functools
from pathlib import Path

__all__ = ["DIGITS", "SHIPPED", "prefix_pattern", "render_shipped"]

#: how many first digits of a run the pattern reads (each four are three bytes)
DIGITS = 10
#: bump when :func:`prefix_pattern` writes differently (the shipped pattern is then stale)
_FORMAT = "2"
#: the generated module of the shipped pattern (written by :func:`main`)
SHIPPED = "_injection_b64.py"

# each digit's value; ``-`` and ``_`` stand for ``+`` and ``/`` (the URL-safe alphabet)
_VALUES = {ch: i for i, ch in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                        "abcdefghijklmnopqrstuvwxyz0123456789+/")}
_VALUES.update({"-": 62, "_": 63})

_CONT = (0x80, 0xBF)


def _utf8_step(need: tuple[tuple[int, int], ...], byte: int
               ) -> tuple[tuple[int, int], ...] | None:
    """Well-formed UTF-8 read one byte further: ``need`` is the ranges the continuation bytes
    still to come must fall in (empty between characters); ``None`` when ``byte`` cannot
    come next."""
    if need:
        lo, hi = need[0]
        return need[1:] if lo <= byte <= hi else None
    if byte < 0x80:
        return ()
    if 0xC2 <= byte <= 0xDF:
        return (_CONT,)
    if byte == 0xE0:
        return ((0xA0, 0xBF), _CONT)
    if byte == 0xED:  # not a surrogate
        return ((0x80, 0x9F), _CONT)
    if 0xE1 <= byte <= 0xEF:
        return (_CONT, _CONT)
    if byte == 0xF0:  # not overlong
        return ((0x90, 0xBF), _CONT, _CONT)
    if 0xF1 <= byte <= 0xF3:
        return (_CONT, _CONT, _CONT)
    if byte == 0xF4:  # not above U+10FFFF
        return ((0x80, 0x8F), _CONT, _CONT)
    return None  # a continuation byte, C0, C1, F5 and above: never where a character starts


_State = tuple[tuple[tuple[int, int], ...], int, int]  # UTF-8 need, pending bit count, bits


def _digit_step(state: _State, value: int) -> _State | None:
    """``state`` after one more digit of ``value``: its six bits appended, each whole byte
    read by :func:`_utf8_step`."""
    need, count, bits = state
    bits, count = (bits << 6) | value, count + 6
    while count >= 8:
        count -= 8
        byte, bits = bits >> count, bits & ((1 << count) - 1)
        next_need = _utf8_step(need, byte)
        if next_need is None:
            return None
        need = next_need
    return need, count, bits


def _class(values: tuple[int, ...]) -> str:
    """A character class of the digits of these values (a lone letter or figure as itself)."""
    chars = sorted(ch for ch, v in _VALUES.items() if v in values and ch != "-")
    if len(chars) == 1 and chars[0].isalnum():
        return chars[0]
    out: list[str] = []
    i = 0
    while i < len(chars):  # runs of consecutive code points as ranges
        j = i
        while j + 1 < len(chars) and ord(chars[j + 1]) == ord(chars[j]) + 1:
            j += 1
        first, last = chars[i], chars[j]
        out.append(first if i == j else first + last if j == i + 1 else f"{first}-{last}")
        i = j + 1
    # ``-`` last, where it is itself (no neighbour of it is a digit: it is in no range)
    return "[" + "".join(out) + ("-" if 62 in values else "") + "]"


def _written(start: _State, digits: int, end: tuple[tuple[int, int], ...] | None = None
             ) -> str | None:
    """The strings of ``digits`` digits read from ``start`` to a state whose UTF-8 need is
    ``end`` (any, when ``None``) as a pattern: the minimal automaton of that finite set
    (equal futures are one state) written out as nested alternatives; ``None`` when there is
    no such string."""
    nodes: dict[tuple[tuple[int, tuple[int, ...]], ...], int] = {}
    memo: dict[tuple[_State, int], int | None] = {}

    def node(state: _State, left: int) -> int | None:
        # the number of the minimal automaton's state for what may follow ``state`` with
        # ``left`` digits to go (``-1``: the end; ``None``: nothing may)
        key = (state, left)
        if key not in memo:
            if left == 0:
                memo[key] = -1 if end is None or state[0] == end else None
            else:
                edges: dict[int, list[int]] = {}
                for value in range(64):
                    after = _digit_step(state, value)
                    child = None if after is None else node(after, left - 1)
                    if child is not None:
                        edges.setdefault(child, []).append(value)
                shape = tuple(sorted((child, tuple(vs)) for child, vs in edges.items()))
                memo[key] = nodes.setdefault(shape, len(nodes)) if shape else None
        return memo[key]

    root = node(start, digits)
    shapes = {number: shape for shape, number in nodes.items()}

    @functools.cache
    def written(number: int) -> str:
        if number == -1:
            return ""
        alternatives = [_class(values) + written(child) for child, values in shapes[number]]
        if len(alternatives) == 1:
            return alternatives[0]
        return "(?:" + "|".join(alternatives) + ")"

    return None if root is None else written(root)


def _pattern(start: _State, digits: int) -> str | None:
    """:func:`prefix_pattern` from ``start``: each group of four digits ends between bytes, so
    past four digits the pattern is, for each UTF-8 need the first four can leave, their
    strings that leave it and then the rest's from it (a third of the size of the whole
    written as one automaton, whose suffixes repeat: RE2 compiles it faster)."""
    if digits <= 4:
        return _written(start, digits)
    needs = {start}
    for _ in range(4):
        needs = {after for state in needs for value in range(64)
                 for after in [_digit_step(state, value)] if after is not None}
    parts: list[str] = []
    for need, _count, _bits in sorted(needs):  # (four digits: no bit left over)
        head = _written(start, 4, need)
        rest = _pattern((need, 0, 0), digits - 4)
        if head is not None and rest is not None:
            parts.append(f"(?:{head})(?:{rest})")
    return "(?:" + "|".join(parts) + ")" if parts else None


def prefix_pattern(digits: int = DIGITS) -> str:
    """A pattern (RE2 and ``re`` syntax, case-sensitive) matching exactly the strings of
    ``digits`` base64 digits whose bytes begin well-formed UTF-8 (the bytes of whole groups
    of four: a lone digit or two over is no byte yet)."""
    pattern = _pattern(((), 0, 0), digits)
    if pattern is None:  # pragma: no cover - the letters alone always begin text
        raise ValueError("no beginning of text")
    return pattern


def key() -> str:
    """What the shipped pattern was generated from: its ``KEY``."""
    return f"{_FORMAT}-{DIGITS}"


def render_shipped() -> str:
    """The module of the shipped pattern, as :func:`main` writes it."""
    pattern = prefix_pattern()
    lines = [
        '"""Generated by ``python -m subagents.lint.rules.injection_b64``: do not edit.',
        "",
        "The first digits of every base64 run that can decode to text (see",
        ":mod:`.injection_b64`).  ``KEY`` says what it was generated from:",
        "tests/test_injection_b64.py fails when it is stale, and a stale one is never used.",
        '"""',
        "",
        f"KEY = {key()!r}",
        "PREFIX = (",
        *(f"    {pattern[i:i + 88]!r}" for i in range(0, len(pattern), 88)),
        ")",
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:  # pragma: no cover - a development command
    from subagents.lint.rules._generator import rewrite_tables

    rewrite_tables(
        "python -m subagents.lint.rules.injection_b64",
        f"Rewrite {SHIPPED}, the pattern of the first digits of every base64 run that can "
        "decode to text (the injection detector's hidden views use it to skip prompts whose "
        "runs cannot).",
        [(Path(__file__).with_name(SHIPPED), render_shipped)], argv)


if __name__ == "__main__":  # pragma: no cover
    main()
