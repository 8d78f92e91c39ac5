"""The C extension's one pass over a text (``subagents._speedups.normalise``): the table of
characters beyond ASCII it reads, and NFKC worked out only over the stretches it may change.

Imported once the detector takes the extension (:func:`.injection_text._use_native`): a
process that never does (``validate one.md``) loads none of it.  What the pass does is in
:mod:`.injection_text`'s design notes and ``src/subagents/_speedups_text.c``.
"""

from __future__ import annotations

import unicodedata

#: the characters :data:`.injection._INVISIBLE` removes, as ranges (a test compares them
#: over every code point)
INVISIBLE_RANGES = (
    (0xAD, 0xAD), (0x34F, 0x34F), (0x61C, 0x61C), (0x115F, 0x1160), (0x17B4, 0x17B5),
    (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164),
    (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xE0000, 0xE007F),
    (0xE0100, 0xE01EF),
)
#: the flags of an entry of the C pass's table (its low byte: the ASCII letter a look-alike
#: folds to); as in _speedups_text.c
_T_INVISIBLE = 0x100
_T_NFKC = 0x200
#: the table, once made (:func:`native_table`)
_TABLE: list[bytes | None] = []


def nfkc_in_pieces(text: str, table: bytes) -> str:
    """``unicodedata.normalize("NFKC", text)`` (C extension only: ``table`` is
    :func:`native_table`'s): NFKC of each stretch the C extension says it may change, the
    rest left as it is.  NFKC reads a whole text beyond ASCII at about 60 instructions a
    character once one character fails its quick check; the stretches are a few characters
    (an ellipsis, a full-width comma).  ``text`` itself when nothing changed."""
    from subagents import _speedups

    out: list[str] = []
    last = 0
    for start, end in _speedups.nfkc_spans(text, table):
        out.append(text[last:start])
        out.append(unicodedata.normalize("NFKC", text[start:end]))
        last = end
    out.append(text[last:])
    again = "".join(out)
    return text if again == text else again


def native_table(fold: dict[int, str]) -> bytes | None:
    """The C pass's table of the characters beyond ASCII it must know: those removed as
    invisible, the look-alike letters of ``fold`` (:func:`.injection._fold_table`) with the
    ASCII letter each folds to, and those NFKC may change (:mod:`.injection_nfkc`).  ``None``
    (then the Python steps answer for every text beyond ASCII) under another Unicode version
    than that table's, or when a look-alike folds to anything but one ASCII letter or digit
    (the C pass writes one)."""
    if _TABLE:
        return _TABLE[0]
    from subagents import _speedups
    from subagents.lint.rules._injection_nfkc import RANGES, UNICODE

    table: bytes | None = None
    if (unicodedata.unidata_version == UNICODE
            and all(len(v) == 1 and v.isascii() and v.isalnum() and k > 0x7F
                    and not chr(k).isspace() for k, v in fold.items())):
        ranges = [(a, b, _T_INVISIBLE) for a, b in INVISIBLE_RANGES]
        ranges += [(a, b, _T_NFKC) for a, b in RANGES]
        ranges += [(k, k, ord(v)) for k, v in fold.items()]
        table = _speedups.text_table(ranges)
    _TABLE.append(table)
    return table
