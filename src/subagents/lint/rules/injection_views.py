"""The views the prompt-injection detector reads besides the text itself: what is hidden in
it (HTML comments, Markdown link targets and titles, ``[//]: #`` comments) and what is
encoded in it (base64, also wrapped over lines; hex, also as bytes written apart; ``\\xNN``
and ``\\uNNNN`` escapes; percent-encoding, HTML entities, Unicode tag characters, ROT13
lines), each decoded again in turn (base64 of base64, a comment inside a
decoded run) to a fixed depth and within a character budget, so that a hostile text cannot
make the work grow past a small multiple of its size.  Also :func:`linear`, the RE2
compilation the detector's patterns share.
"""

from __future__ import annotations

import base64
import binascii
import functools
import re
import urllib.parse
from collections.abc import Iterator
from typing import Any

from subagents._dataclass import dataclass
from subagents._lazy_re import lazy_compile

__all__ = ["View", "linear", "views"]


def linear(pattern: str, case_sensitive: bool = False) -> Any:
    """``pattern`` (multi-line, case-insensitive) compiled with RE2: linear time, and far
    faster than ``re`` on these long word alternations (``re`` tries each at every position).
    RE2's ``\\b`` knows ASCII word characters only, so the patterns put none next to
    Cyrillic.  ``re`` without the wheel."""
    try:
        import re2  # type: ignore[import-untyped]
    except ImportError:  # pragma: no cover - google-re2 is a dependency
        return re.compile(pattern, re.M | (0 if case_sensitive else re.I))
    options = re2.Options()
    options.case_sensitive = case_sensitive
    options.log_errors = False
    options.max_mem = 64 << 20  # room for the DFA of the long alternations (else NFA: slower)
    return re2.compile("(?m)" + pattern, options)


@functools.cache
def _compiled() -> dict[str, Any]:
    """The run patterns, compiled on first use."""
    return {"base64": linear(_B64, case_sensitive=True),
            "hex": linear(_HEX, case_sensitive=True),
            "spaced-hex": linear(_SPACED_HEX, case_sensitive=True),
            "base64-block": linear(_B64_BLOCK, case_sensitive=True)}


_COMMENT_RE = lazy_compile(r"<!--(.*?)(?:-->|$)", re.S)
# a link's target and title, one level of parentheses inside allowed
_LINK_RE = lazy_compile(r"\]\(([^()]*(?:\([^()]*\)[^()]*)*)\)")
_REF_COMMENT_RE = lazy_compile(r"^\s*\[[^\]]*\]:\s*(\S*)\s*(?:[\"'(](.*?)[\"')])?\s*$", re.M)
# (scanned left to right, a match starts where its run starts: no lookbehind needed, so RE2)
_B64 = r"[A-Za-z0-9+/_-]{16,}={0,2}"
_HEX = r"(?:[0-9A-Fa-f]{2}){8,}"
_XESC_RE = lazy_compile(r"(?:\\x[0-9A-Fa-f]{2}){4,}")
_UESC_RE = lazy_compile(r"(?:\\u[0-9A-Fa-f]{4}){4,}")
# hex bytes written apart ("69 67 6e 6f 72 65", "69:67:6e")
_SPACED_HEX = r"(?:\b[0-9A-Fa-f]{2}[ :]){7,}[0-9A-Fa-f]{2}\b"
# base64 wrapped over several lines (as encoders wrap it at 64 or 76 characters): the lines
# are joined before decoding, else a phrase cut at a line end is read in two halves
_B64_BLOCK = r"(?:^[ \t]*[A-Za-z0-9+/]{16,}={0,2}[ \t]*(?:\n|$)){2,}"
_PCT_RE = lazy_compile(r"%[0-9A-Fa-f]{2}")
_ENTITY_RE = lazy_compile(r"&#?\w{1,8};")
_TAGS_RE = lazy_compile("[\U000e0020-\U000e007e]+")


@dataclass(frozen=True, slots=True)
class View:
    """One reading of a prompt that the detector searches: the text or a hidden part."""

    name: str
    text: str  # as found; normalised by the caller
    offset: int  # where it starts in the original text
    hidden: bool


def _printable(raw: bytes) -> str | None:
    try:
        s = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    letters = sum(ch.isalpha() or ch.isspace() for ch in s)
    return s if s and letters >= 0.7 * len(s) else None


# Decoded text is decoded again (base64 of base64, a comment inside a decoded run), this
# deep at most; and all views of one text together hold at most this many characters beyond
# the text itself: a hostile text cannot make the work grow past a small multiple of its size.
_DEPTH = 4
_BUDGET_FACTOR = 4
_BUDGET_FLOOR = 1 << 16
# and at most this many views: each is searched for every signal (a text of 40,000 short
# base64 runs would otherwise be read 40,000 times)
_MAX_VIEWS = 256

_ROT13 = str.maketrans("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
                       "nopqrstuvwxyzabcdefghijklmNOPQRSTUVWXYZABCDEFGHIJKLM")
# English words that run text is full of and ROT13 text has none of
_COMMON = frozenset({"the", "and", "you", "your", "to", "of", "all", "is", "in", "it", "this",
                     "that", "for", "with", "not", "any", "every", "send", "print", "ignore",
                     "instructions", "previous"})
_PUNCT = ".,;:!?'\"()[]`*"


def _common(line: str) -> int:
    return sum(1 for w in line.lower().split() if w.strip(_PUNCT) in _COMMON)


def _rot13_lines(text: str) -> Iterator[tuple[int, str]]:
    """(offset, decoded line) for each line that reads as English only after ROT13 (word
    lookups in a set: a regex per word costs more than the rest of the view together)."""
    low = text.lower()
    # "the", "and", "you", "your", "all" in ROT13: English text holds none of them as words
    if not any(w in low for w in (" gur ", " naq ", " lbh ", " lbhe ", " nyy ")):
        return
    offset = 0
    for line, rot in zip(text.split("\n"), text.translate(_ROT13).split("\n"), strict=True):
        if len(line) >= 16:
            found = _common(rot)
            if found >= 3 and found > 2 * _common(line):
                yield offset, rot
        offset += len(line) + 1


def views(text: str) -> Iterator[View]:
    yield View("text", text, 0, False)
    budget = [max(_BUDGET_FACTOR * len(text), _BUDGET_FLOOR), _MAX_VIEWS]
    yield from _hidden(text, 0, 0, budget)


def _hidden(text: str, at: int, depth: int, budget: list[int]) -> Iterator[View]:
    """The hidden views of ``text`` (itself found at ``at``), each followed by its own hidden
    views, until :data:`_DEPTH` or the character budget runs out."""
    for view in _decoded(text, at):
        if budget[1] <= 0:
            return
        if budget[0] < len(view.text) or view.text == text:
            continue
        budget[0] -= len(view.text)
        budget[1] -= 1
        yield view
        if depth + 1 < _DEPTH:
            yield from _hidden(view.text, view.offset, depth + 1, budget)


def _decoded(text: str, at: int) -> Iterator[View]:
    """The views one step below ``text``: comments, links, decoded runs (offsets are of the
    outer text: where the run that holds them starts)."""
    def off(i: int) -> int:
        return i + at if at == 0 else at

    pats = _compiled()
    for m in _COMMENT_RE.finditer(text) if "<!--" in text else ():
        yield View("comment", m.group(1), off(m.start(1)), True)
    for m in _LINK_RE.finditer(text) if "](" in text else ():
        yield View("link", urllib.parse.unquote(m.group(1)), off(m.start(1)), True)
    for m in _REF_COMMENT_RE.finditer(text) if "]:" in text else ():
        for g in (1, 2):
            if m.group(g):
                yield View("link", urllib.parse.unquote(m.group(g)), off(m.start(g)), True)
    # the run patterns search the UTF-8 bytes: their matches are ASCII, the wrapper converts
    # no offset, and a match's offset in characters is worked out only for a run that decodes
    data = text.encode()
    ascii_text = len(data) == len(text)

    def where(i: int) -> int:
        return off(i if ascii_text else len(data[:i].decode()))

    for m in pats["base64"].finditer(data):
        run = m.group(0).rstrip(b"=")
        padded = run + b"=" * (-len(run) % 4)
        try:
            raw = base64.b64decode(padded.replace(b"-", b"+").replace(b"_", b"/"),
                                   validate=True)
        except (binascii.Error, ValueError):
            continue
        decoded = _printable(raw)
        if decoded is not None:
            yield View("base64", decoded, where(m.start()), True)
    for m in pats["hex"].finditer(data):
        decoded = _printable(bytes.fromhex(m.group(0).decode()))
        if decoded is not None:
            yield View("hex", decoded, where(m.start()), True)
    for m in pats["base64-block"].finditer(data) if "\n" in text else ():
        joined = b"".join(m.group(0).split())
        try:
            raw = base64.b64decode(joined + b"=" * (-len(joined) % 4), validate=True)
        except (binascii.Error, ValueError):
            continue
        decoded = _printable(raw)
        if decoded is not None:
            yield View("base64", decoded, where(m.start()), True)
    for m in pats["spaced-hex"].finditer(data):
        decoded = _printable(bytes.fromhex(
            m.group(0).replace(b" ", b"").replace(b":", b"").decode()))
        if decoded is not None:
            yield View("hex", decoded, where(m.start()), True)
    for m in _UESC_RE.finditer(text) if "\\u" in text else ():
        decoded = "".join(chr(int(h, 16)) for h in m.group(0).split("\\u")[1:])
        if decoded.isprintable():
            yield View("unicode-escapes", decoded, off(m.start()), True)
    for m in _XESC_RE.finditer(text) if "\\x" in text else ():
        decoded = _printable(bytes.fromhex(m.group(0).replace("\\x", "")))
        if decoded is not None:
            yield View("hex", decoded, off(m.start()), True)
    if "%" in text and _PCT_RE.search(text):
        yield View("percent", urllib.parse.unquote(text), at, True)
    if "&" in text and _ENTITY_RE.search(text):
        import html  # (its entity table is large, and few prompts hold an entity)

        yield View("entities", html.unescape(text), at, True)
    for m in _TAGS_RE.finditer(text) if not text.isascii() else ():
        yield View("tags", "".join(chr(ord(c) - 0xE0000) for c in m.group(0)),
                    off(m.start()), True)
    lines = list(_rot13_lines(text)) if at == 0 else []
    if lines:  # one view of them all (joined by line breaks, which no phrase crosses)
        yield View("rot13", "\n".join(line for _, line in lines), off(lines[0][0]), True)
