"""The forms of a text the injection detector searches, shaped at C speed: blanks collapsed
(:func:`_collapse`) and letters squeezed (:func:`_squeezed_bytes`, leet digits read as
letters), and the squeezed pattern spread over a text's own characters (:func:`_spread`).

Design notes
------------
* **Collapsing blanks** splits every line into words and joins them again, except where a
  text holds no blank but spaces and line breaks (and CRs before one): then each line is
  stripped, the empty ones are left out and only runs of spaces left inside a line are
  touched, so most words are never copied (three lines in four of a prompt need nothing).
  Which blanks to look for is decided from facts the tests check over every code point:
  what ``str.isspace`` calls a blank, and which blanks NFKC leaves as they are.
* **Squeezing** keeps the ASCII letters of the UTF-8 bytes, leet digits read as letters
  (``1gn0r3``, ``i g n o r e``), in one ``bytes.translate``.  Most prompts hold no squeezed
  phrase, and whether one does is asked of the text itself first: the squeezed pattern with
  every letter written as the characters that squeeze to it, followed by any run of
  characters squeezing deletes, matches a text exactly where the squeezed pattern matches
  its squeezed letters (tests compare the two answers).
* **Case-folding** a text beyond ASCII looks every character up (a third of what the
  detector spent normalising such a text); where none of its characters beyond ASCII is
  one case-folding changes (:func:`cased_class`: ranges checked by a test over every code
  point, for the Unicode version they were worked out for), lowering the ASCII letters of
  its UTF-8 gives the same text (:func:`_ascii_lower`).
* **The C extension** ``subagents._speedups`` (optional, built by ``pip install``; see
  setup.py) collapses blanks in one pass over the characters, lowering ASCII letters on the
  way where asked (:func:`_lower_collapse`, :func:`_lower_collapse_utf8`): the Python
  functions made an object of every line.  Its results are exactly those of the Python
  functions below (tests/test_injection_collapse_native.py compares them on hostile texts),
  which answer when it is not built, or when ``SUBAGENTS_NO_EXTENSION`` is set to anything
  but ``""`` or ``0`` (the tests run both ways), and until a process has collapsed
  :data:`NATIVE_AFTER` characters (importing it costs more than it saves on one file).
* **One pass** (``_speedups.normalise``, in ``_speedups_text.c``; :data:`_normalise` once the
  extension is taken): the detector's whole normalising of a text
  (:func:`.injection._fast_both_utf8`) reading each character once: ASCII letters lowered,
  invisible characters removed, look-alikes folded and characters beyond ASCII case-folded
  (CPython's own folding of each), blanks collapsed, and the text's UTF-8 and the normalised
  text's written side by side.  What a character beyond ASCII is comes from a table made
  once (:func:`.injection_native.native_table`).  A text holding a character NFKC may change
  is given to NFKC first, only over the stretches around such characters
  (:func:`.injection_native.nfkc_in_pieces`).  Tests compare with the Python steps
  (tests/test_injection_normalise_native.py).
"""

from __future__ import annotations

import functools
import re
import unicodedata

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _collapse_py(text: str, nfkc: bool = False) -> str:
    """Blanks to one space, a break with blanks around it to one newline, none at either
    end (``str.split`` runs in C: several times faster than two ``re.sub``).

    A text whose only blanks are spaces and line breaks (and CRs only before a line break)
    takes :func:`_collapse_plain`: three lines in four of a prompt need nothing done, and
    splitting each into words was most of the cost (tests/test_injection_collapse.py
    compares the two).  Which blanks to look for: an ASCII text can hold only the ASCII
    ones; ``nfkc``: the text is what NFKC returned, then changed only by removing
    characters, folding look-alikes and case-folding (none of which makes a blank), so it
    holds none of the blanks NFKC replaces (no-break and typographic spaces); any other
    text is split into words."""
    blanks: tuple[str, ...]
    if text.isascii():
        blanks = _OTHER_ASCII_BLANKS
    elif nfkc:
        blanks = _OTHER_NFKC_BLANKS
    else:
        return _collapse_words(text)
    for blank in blanks:
        if blank in text and (blank != "\r" or text.count("\r") != text.count("\r\n")):
            return _collapse_words(text)
    return _collapse_plain(text)


#: what ``str.isspace`` says is a blank among ASCII characters, besides a space and a line
#: break, and those of all Unicode that NFKC leaves as they are (tests say so)
_OTHER_ASCII_BLANKS = ("\t", "\x0b", "\x0c", "\r", "\x1c", "\x1d", "\x1e", "\x1f")
_OTHER_NFKC_BLANKS = (*_OTHER_ASCII_BLANKS, "\x85", "\u1680", "\u2028", "\u2029")


def _collapse_words(text: str) -> str:
    """:func:`_collapse` for any text: each line split into words and joined again."""
    return "\n".join(filter(None, (" ".join(line.split()) for line in text.split("\n"))))


def _collapse_plain(text: str) -> str:
    """:func:`_collapse` of a text whose blanks are spaces and line breaks, and CRs each
    before a line break: each line stripped (``str.strip`` returns a line with nothing to
    strip as it is, and strips a CR at its end) and the empty ones left out; no word is
    copied.  Then the runs of spaces left inside lines (never beside a line break: the lines
    are stripped) become one space: the text split at every pair of spaces, left to right,
    leaves of a run only empty pieces and one space at the start of the next piece (a piece
    never ends with a space: the pair would have been found a character earlier).  A few
    pieces, however many lines (asking each line cost more than the rest)."""
    out = "\n".join(filter(None, map(str.strip, text.split("\n"))))
    if "  " in out:
        out = " ".join(filter(None, [piece.lstrip(" ") for piece in out.split("  ")]))
    return out


#: :data:`_OTHER_NFKC_BLANKS`: those in ASCII as bytes, and the others
_OTHER_BLANK_BYTES = tuple(b.encode() for b in _OTHER_NFKC_BLANKS if b.isascii())
_OTHER_BEYOND_ASCII_BLANKS = tuple(b for b in _OTHER_NFKC_BLANKS if not b.isascii())


def _collapse_utf8_py(data: bytes, text: str) -> bytes | None:
    """``_collapse(text, nfkc=True).encode()`` for a text as described there (what NFKC
    returned, changed only by removing characters, folding and case-folding), worked out on
    its UTF-8 ``data`` (the text's own, or that with its ASCII letters lowered): the
    detector searches the UTF-8 of the collapsed text, and encoding a text beyond ASCII
    costs about ten instructions a character.  A line break and a space are one byte each
    and no byte of a character beyond ASCII is one of them, so the bytes split, strip and
    join as the characters do; ``bytes.strip`` strips only ASCII blanks, the only ones such
    a text holds when it takes :func:`_collapse_plain`.  The blanks beyond ASCII are looked
    for in ``text`` (one character, ``memchr``: in the bytes each is a string of two or
    three, looked for at about four instructions a byte).  ``None`` when it holds another
    blank (then the caller collapses the text itself)."""
    for blank in _OTHER_BLANK_BYTES:
        if blank in data and (blank != b"\r" or data.count(b"\r") != data.count(b"\r\n")):
            return None
    for other in _OTHER_BEYOND_ASCII_BLANKS:
        if other in text:
            return None
    out = b"\n".join(filter(None, map(bytes.strip, data.split(b"\n"))))
    if b"  " in out:
        out = b" ".join(filter(None, [piece.lstrip(b" ") for piece in out.split(b"  ")]))
    return out


def _lower_collapse_py(text: str) -> str:
    """``_collapse(text.lower())``: in C, one pass for an ASCII text."""
    return _collapse_py(text.lower())


def _lower_collapse_utf8_py(data: bytes, text: str) -> bytes | None:
    """``_collapse_utf8(data.lower(), text)``: in C, one pass."""
    return _collapse_utf8_py(data.lower(), text)


#: the C extension is imported once the Python functions have collapsed this many
#: characters (about seven typical prompts): importing it costs about 0.2 M instructions,
#: which collapsing in C pays back over about 20,000 characters (``validate one.md`` never
#: imports it)
NATIVE_AFTER = 20_000
_COLLAPSED = [0]
#: whether the collapsing functions below are the C extension's
NATIVE = False


def _use_native() -> None:
    """Make the collapsing functions the C extension's (the same results), unless it is not
    built or ``SUBAGENTS_NO_EXTENSION`` asks for the Python functions; either way this is
    not asked again."""
    # module globals, rebound once: the detector looks them up here at each call
    global _collapse, _collapse_utf8, _lower_collapse, _lower_collapse_utf8  # noqa: PLW0603
    global NATIVE, _normalise, _native  # noqa: PLW0603
    _lower_collapse = _lower_collapse_py  # (no more counting)
    _lower_collapse_utf8 = _lower_collapse_utf8_py
    from subagents._native import speedups

    _speedups = speedups()
    if _speedups is None:  # not built or switched off: the Python functions answer
        return
    _collapse = _speedups.collapse
    _collapse_utf8 = _speedups.collapse_utf8
    _lower_collapse = _speedups.lower_collapse
    _lower_collapse_utf8 = _speedups.lower_collapse_utf8
    NATIVE = True
    # (an extension built from older sources has no one pass: the Python steps answer)
    if hasattr(_speedups, "normalise"):
        from subagents.lint.rules import injection_native

        _normalise = _speedups.normalise
        _native = injection_native


def _lower_collapse_first(text: str) -> str:
    """:func:`_lower_collapse_py`, counting the characters collapsed in Python."""
    _COLLAPSED[0] += len(text)
    if _COLLAPSED[0] > NATIVE_AFTER:
        _use_native()
    return _lower_collapse_py(text)


def _lower_collapse_utf8_first(data: bytes, text: str) -> bytes | None:
    """:func:`_lower_collapse_utf8_py`, counting the characters collapsed in Python."""
    _COLLAPSED[0] += len(text)
    if _COLLAPSED[0] > NATIVE_AFTER:
        _use_native()
    return _lower_collapse_utf8_py(data, text)


#: the collapsing functions the detector calls (as attributes of this module: they become
#: the C extension's once :data:`NATIVE_AFTER` characters were collapsed)
_collapse = _collapse_py
_collapse_utf8 = _collapse_utf8_py
_lower_collapse = _lower_collapse_first
_lower_collapse_utf8 = _lower_collapse_utf8_first
#: the C extension's one pass over a text (``None`` until the functions above are the
#: extension's; :func:`.injection._fast_both_utf8` calls it)
_normalise: Any = None
#: :mod:`.injection_native` (the pass's table, NFKC in stretches), once the pass is taken
_native: Any = None

_LEET_BYTES = bytes.maketrans(b"013457@$", b"oieastas")
#: the ASCII bytes that are neither letters nor leet digits, written out (working them out
#: cost every ``validate one.md`` about 20 K instructions; a test works them out)
_NOT_LETTER_BYTES = (b"\x00\x01\x02\x03\x04\x05\x06\x07\x08\t\n\x0b\x0c\r\x0e\x0f"
                     b"\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f"
                     b" !\"#%&'()*+,-./2689:;<=>?[\\]^_`{|}~\x7f")


def _squeeze(text: str) -> str:
    """ASCII letters only (leet digits read as letters; look-alikes were folded before).
    ``bytes.translate`` is one C pass, several times faster than ``re.sub``."""
    return _squeezed_bytes(text).decode()


# ... and every byte of a character beyond ASCII: in UTF-8 each of them is 0x80 or above, so
# deleting those bytes leaves the ASCII characters, what ``encode("ascii", "ignore")`` keeps
_NOT_ASCII_LETTER_BYTES = _NOT_LETTER_BYTES + bytes(range(0x80, 0x100))


def _squeezed_bytes(text: str) -> bytes:
    """:func:`_squeeze` as bytes (what the squeezed pattern searches: ASCII, so the offsets
    are the same, and the RE2 wrapper converts none).  Encoded as UTF-8 (a copy, for ASCII
    text) with the bytes beyond ASCII deleted by the same ``translate``: encoding to ASCII
    with ``ignore`` calls the error handler for every run of other characters (three times
    the cost on a prompt with some)."""
    return text.encode("utf-8", "surrogatepass").translate(_LEET_BYTES,
                                                           _NOT_ASCII_LETTER_BYTES)


#: the syntax :func:`_spread` knows: lower-case letters, groups, alternatives and repeats
_SPREADABLE = frozenset("abcdefghijklmnopqrstuvwxyz(?:|)*+")


@functools.cache
def _spread(pattern: str) -> str:
    """The squeezed ``pattern`` written to match where it matches the squeezed letters of a
    text, but in the text itself (its UTF-8, RE2's own code points): each letter as the
    characters :func:`_squeezed_bytes` turns into it (itself in either case, a leet digit),
    followed by any run of characters it deletes.  A squeezed text is the text with those
    runs deleted and the rest translated, so a part of it matches ``pattern`` exactly when
    the stretch of the text it came from matches this; a text without a match needs no
    squeezing (most prompts).  ``pattern`` must hold only :data:`_SPREADABLE`:
    anything else is refused (a ``?`` makes a letter or group optional, or a repeat lazy,
    which the spread letters follow as they are)."""
    if not set(pattern) <= _SPREADABLE:
        raise ValueError("the squeezed pattern holds syntax _spread does not know")
    kept = [b for b in range(0x80) if b not in _NOT_ASCII_LETTER_BYTES]
    gap = "[^" + "".join(_class_char(chr(b)) for b in kept) + "]*"

    def letter(m: Any) -> str:
        same = [chr(b) for b in kept if chr(_LEET_BYTES[b]).lower() == m.group()]
        return "(?:[" + "".join(map(_class_char, same)) + "]" + gap + ")"

    return re.sub(r"[a-z]", letter, pattern)


def _class_char(ch: str) -> str:
    return ch if ch.isalnum() else "\\" + ch


def _unsqueeze(text: str, n: int) -> int:
    """Where the ``n``-th letter of :func:`_squeeze`'s result is in ``text``."""
    for m in re.finditer(r"[A-Za-z013457@$]", text):
        if n == 0:
            return m.start()
        n -= 1
    return len(text)


#: every character beyond ASCII that ``str.casefold`` changes lies in one of these ranges
#: (with some neighbours it leaves alone: ranges less than 17 apart are one), worked out for
#: :data:`_CASED_UNICODE` (tests/test_injection_visible.py checks every code point)
_CASED_BEYOND_ASCII = (
    (0xB5, 0xDF), (0x100, 0x24E), (0x345, 0x345), (0x370, 0x3B0), (0x3C2, 0x42F),
    (0x460, 0x556), (0x587, 0x587), (0x10A0, 0x10CD), (0x13F8, 0x13FD), (0x1C80, 0x1CBF),
    (0x1E00, 0x1F6F), (0x1F80, 0x1FFC), (0x2126, 0x2132), (0x2160, 0x216F), (0x2183, 0x2183),
    (0x24B6, 0x24CF), (0x2C00, 0x2C2F), (0x2C60, 0x2CF2), (0xA640, 0xA66C), (0xA680, 0xA69A),
    (0xA722, 0xA7D8), (0xA7F5, 0xA7F5), (0xAB70, 0xABBF), (0xFB00, 0xFB17), (0xFF21, 0xFF3A),
    (0x10400, 0x10427), (0x104B0, 0x104D3), (0x10570, 0x10595), (0x10C80, 0x10CB2),
    (0x118A0, 0x118BF), (0x16E40, 0x16E5F), (0x1E900, 0x1E921),
)
_CASED_UNICODE = "14.0.0"


def cased_class() -> str:
    """A class of every character beyond ASCII ``str.casefold`` may change: the ranges above,
    or, under another Unicode version than theirs, every character beyond ASCII (the
    shortcut is then never taken)."""
    if unicodedata.unidata_version != _CASED_UNICODE:
        return "[^\\x00-\\x7f]"
    return "[" + "".join(f"{re.escape(chr(a))}-{re.escape(chr(b))}"
                         for a, b in _CASED_BEYOND_ASCII) + "]"


def _ascii_lower(text: str, data: bytes | None = None) -> str:
    """``text.casefold()`` for a text holding none of :func:`cased_class`'s characters: only
    its ASCII letters change, lowered in its UTF-8 (a lone surrogate fails the encoding;
    ``data``: that UTF-8, when at hand)."""
    return (text.encode() if data is None else data).lower().decode()
