"""The views the prompt-injection detector reads besides the text itself: what is hidden in
it (HTML comments, Markdown link targets and titles, ``[//]: #`` comments) and what is
encoded in it (base64, also wrapped over lines; hex, also as bytes written apart; ``\\xNN``
and ``\\uNNNN`` escapes; percent-encoding, HTML entities, Unicode tag characters, ROT13
lines), each decoded again in turn (base64 of base64, a comment inside a
decoded run) to a fixed depth and within a character budget, so that a hostile text cannot
make the work grow past a small multiple of its size.  Also :func:`linear`, the RE2
compilation the detector's patterns share.

Most prompts hide nothing, so what is skipped matters more than what is found.  One RE2 set
pass over the text's UTF-8 says which searches may find anything (:data:`_MARKS`: for each, a
pattern every match of the search holds a match of); on the bench tree's prompts it rules out
every search but the base64 runs', and, once a process has read a few hundred files, those too
but in about one prompt in a hundred and fifty: the set then holds the first digits of every
base64 run that can decode to text (:mod:`.injection_b64`).
Elsewhere a run that cannot decode to text is not decoded (most runs are long words and
paths), and a marker of several characters is looked for only when its rarer first character
is there (``memchr``).  Each shortcut is exact; tests/test_injection_views_gates.py compares
the views with the plain algorithm's.
"""

from __future__ import annotations

import base64
import binascii
import functools
import re
import urllib.parse
from collections.abc import Iterator

from subagents._dataclass import dataclass
from subagents._lazy_re import lazy_compile

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    _Compiled = dict[str, Any]
else:  # the typing module is not imported at run time (see subagents/__init__.py)
    _Compiled = dict

__all__ = ["View", "all_text_marks", "count_read", "found", "hidden_views", "linear",
           "marked_views", "spans", "text_marks", "views"]


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
def _unanchored() -> Any:
    """google-re2's anchor for an unanchored search, or ``None`` without the wheel."""
    try:
        import re2

        return re2._re2.RE2.Anchor.UNANCHORED
    except (ImportError, AttributeError):  # pragma: no cover - google-re2 is a dependency
        return None


def spans(rx: Any, data: bytes) -> Iterator[tuple[int, int]]:
    """Where each match of ``rx`` (from :func:`linear`; it matches no empty string) is in
    ``data``, as ``rx.finditer(data)`` finds them: google-re2's compiled pattern is asked
    directly (the wrapper builds a match object and its groups for each, which costs more
    than the search on the many short runs of a prompt); through ``finditer`` when it is not
    there (``re``, another release)."""
    inner = getattr(rx, "_regexp", None)
    anchor = _unanchored()
    if inner is None or anchor is None:
        for m in rx.finditer(data):
            yield m.span()
        return
    match = inner.Match
    pos, end = 0, len(data)
    while True:  # the wrapper's loop, without the match objects
        span = match(anchor, data, pos, end)[0]
        if span[0] < 0:
            return
        yield span
        if pos == end:
            return
        pos = pos + 1 if pos == span[1] else span[1]


def found(rx: Any, data: bytes) -> bool:
    """Does ``rx`` (from :func:`linear`) match anywhere in ``data``?  (As :func:`spans`: the
    compiled pattern asked directly when it is there.)"""
    inner = getattr(rx, "_regexp", None)
    anchor = _unanchored()
    if inner is None or anchor is None:
        return rx.search(data) is not None
    return bool(inner.Match(anchor, data, 0, len(data))[0][0] >= 0)


class _Runs(_Compiled):
    """The run patterns, each compiled when first asked for (each is searched only when
    :func:`_marks` says it may match)."""

    def __missing__(self, name: str) -> Any:
        value = self[name] = linear(_RUN_SOURCES[name], case_sensitive=name != "rot13")
        return value


@functools.cache
def _compiled() -> dict[str, Any]:
    """The run patterns, compiled on first use."""
    return _Runs()


#: what one RE2 set pass over a text's UTF-8 looks for, in the order of :func:`_marks`'s
#: answer: for each search of :func:`_decoded`, a pattern that every match of it holds a match
#: of (its own pattern, or one that matches more), so that a search whose mark is absent is
#: skipped with no view lost
_MARKS = ("base64", "hex", "base64-block", "spaced-hex", "rot13", "comment", "link", "ref",
          "percent", "entities", "unicode-escapes", "hex-escapes", "tags")
_B64_DIGIT = "[A-Za-z0-9+/_-]"


def _candidate_source(prefix: str) -> str:
    """A base64 run whose first digits match ``prefix`` (:data:`.injection_b64.DIGITS` of
    them; RE2 finds each run from its first digit, as its pattern's ``{16,}`` is greedy:
    where no digit is before it), with as many digits after them as make sixteen."""
    from subagents.lint.rules.injection_b64 import DIGITS

    return (f"(?:\\A|[^A-Za-z0-9+/_-])(?:{prefix}){_B64_DIGIT}"
            f"{{{max(_B64_LEAST - DIGITS, 0)}}}")


_B64_LEAST = 16  # the digits of the shortest base64 run decoded (:data:`_B64`)


def _mark_sources(prefix: str | None, markers: bool = True) -> list[str | None]:
    """The patterns of :data:`_MARKS`; ``prefix``: the first digits of a base64 run that can
    decode to text (:mod:`.injection_b64`), else no base64 mark is looked for (``None``);
    ``markers``: the marks of comments, links, percent-encoding, entities, escapes and tag
    characters are looked for too (else they are left to their first characters)."""
    marker_sources: list[str | None] = [
        "<!--", r"\]\(", _REF_MARK, _PCT,
        # ``\w`` of ``re`` (Unicode) is an ASCII word character or one outside ASCII
        r"&#?(?:\w|[^\x00-\x7f]){1,8};",
        _UESC, _XESC, "[\U000e0020-\U000e007e]"]
    return [None if prefix is None else _candidate_source(prefix),
            _HEX, _B64_BLOCK, _SPACED_HEX, "(?i)" + _ROT13_WORDS,
            *(marker_sources if markers else [None] * len(marker_sources))]


#: a process looks for the marks of markers once it has read this many characters (for one
#: file their patterns cost more to compile than they save: about 0.4 M instructions)
_MARKERS_AFTER = 12_000
#: a process looks for the base64 mark once it has read this many characters, about 200
#: files: its pattern (7 KB, ten digits; 3 KB when it read eight) costs a few ms of CPU once,
#: compiling it and RE2 building the states of its automaton as texts need them, and saves
#: about 4.7 ns a character on the bench tree (on one file it would cost four times what the
#: views then cost).  A process switches
#: when what it would have saved has reached about what switching costs, so that it never
#: pays much more than twice the best choice made knowing how much it will read.
_BASE64_AFTER = 1_000_000
#: characters given to :func:`views` in this process
_READ = [0]


def characters_read() -> int:
    """How many characters :func:`views` has been given in this process (what a shortcut
    that costs something once per process weighs itself against)."""
    return _READ[0]


def _base64_prefix() -> str | None:
    """The shipped pattern of the first digits of a base64 run that can decode to text, when
    it is that of the current generator (else ``None``: every run is decoded)."""
    try:
        from subagents.lint.rules import _injection_b64 as shipped
        from subagents.lint.rules.injection_b64 import key
    except ImportError:  # pragma: no cover - the package ships it
        return None
    return "".join(shipped.PREFIX) if key() == shipped.KEY else None


@functools.cache
def _marks_set(level: int
               ) -> tuple[Any, tuple[int, ...], tuple[bool, ...], tuple[bool, ...] | None] | None:
    """One RE2 set of the :data:`_MARKS` patterns a process looks for at ``level`` (0: the
    runs' but base64's; 1: the markers' too; 2: all) after ``\\A``, which every text matches
    (an answer without it is no answer); which mark each of them is; and the marks of a text
    that matches none of them (a mark not looked for is always there), twice: the second
    ``None`` when that is none.  ``None`` when google-re2 cannot build it (then every search
    is made)."""
    sources = _mark_sources(_base64_prefix() if level >= 2 else None, level >= 1)
    try:
        import re2

        options = re2.Options()
        options.case_sensitive = True
        options.log_errors = False
        options.max_mem = 64 << 20
        marks = re2.Set.SearchSet(options)
        marks.Add(r"\A")
        for source in sources:
            if source is not None:
                marks.Add("(?m)" + source)
        marks.Compile()
    except Exception:  # fail closed: every search is made
        return None
    looked = tuple(i for i, source in enumerate(sources) if source is not None)
    nothing = tuple(source is None for source in sources)
    return marks._set.Match, looked, nothing, nothing if any(nothing) else None


_ALL = (True,) * len(_MARKS)


def _marks(data: bytes, level: int) -> tuple[bool, ...] | None:
    """For each of :data:`_MARKS`: may ``data`` hold it?  ``None`` when it holds none (most
    texts, from level 2: :func:`_marks_set`); all ``True`` when the set cannot answer (it
    fails closed)."""
    return _marked(data, _marks_set(level))


def _marked(data: bytes, made: tuple[Any, tuple[int, ...], tuple[bool, ...],
                                     tuple[bool, ...] | None] | None
            ) -> tuple[bool, ...] | None:
    """:func:`_marks` with the set of the process's level (``made``: :func:`_marks_set`)."""
    if made is None:
        return _ALL
    match, looked, nothing, none = made
    found = match(data)
    if not found or 0 not in found:
        return _ALL
    if len(found) == 1:
        return none
    marked = list(nothing)
    for i in found:
        if i:
            marked[looked[i - 1]] = True
    return tuple(marked)


#: the first character of a base64 run whose first byte cannot start UTF-8 (values 32 to 47,
#: ``g``..``v``, make a byte 0x80-0xBF, a continuation byte; 62 and 63, ``+ / - _``, one of
#: 0xF8 and above): such a run never decodes to text, whatever follows
_NO_TEXT_FIRST = frozenset(b"ghijklmnopqrstuv+/-_")


def _base64_text(run: bytes) -> str | None:
    """What a base64 run (``-`` and ``_`` read as ``+`` and ``/``) decodes to, when that is
    text (:func:`_printable`).  A run of a length that leaves one character over (never
    valid) or whose first byte cannot start UTF-8 is not decoded: most runs in a prompt are
    long words and paths that are one or the other."""
    run = run.rstrip(b"=")
    if len(run) % 4 == 1 or run[0] in _NO_TEXT_FIRST:
        return None
    padded = run + b"=" * (-len(run) % 4)
    try:
        raw = base64.b64decode(padded.replace(b"-", b"+").replace(b"_", b"/"), validate=True)
    except (binascii.Error, ValueError):
        return None
    return _printable(raw)


_COMMENT_RE = lazy_compile(r"<!--(.*?)(?:-->|$)", re.S)
# a link's target and title, one level of parentheses inside allowed
_LINK_RE = lazy_compile(r"\]\(([^()]*(?:\([^()]*\)[^()]*)*)\)")
# a line that begins a reference (``[label]:``) after any blanks: what every match of the
# pattern below begins with (``\s`` of ``re`` is one of these ASCII blanks or a character
# outside ASCII); ``]:`` alone is in code (``map[key]:``) and YAML, and ``re`` trying the
# pattern at every line of a long prompt cost more than the rest of its views together
_REF_MARK = r"^(?:[\t-\r\x1c-\x20]|[^\x00-\x7f])*\[[^\]]*\]:"
_REF_COMMENT_RE = lazy_compile(r"^\s*\[[^\]]*\]:\s*(\S*)\s*(?:[\"'(](.*?)[\"')])?\s*$", re.M)
# (scanned left to right, a match starts where its run starts: no lookbehind needed, so RE2)
_B64 = r"[A-Za-z0-9+/_-]{16,}={0,2}"
_HEX = r"(?:[0-9A-Fa-f]{2}){8,}"
_XESC = r"(?:\\x[0-9A-Fa-f]{2}){4,}"
_XESC_RE = lazy_compile(_XESC)
_UESC = r"(?:\\u[0-9A-Fa-f]{4}){4,}"
_UESC_RE = lazy_compile(_UESC)
# hex bytes written apart ("69 67 6e 6f 72 65", "69:67:6e")
_SPACED_HEX = r"(?:\b[0-9A-Fa-f]{2}[ :]){7,}[0-9A-Fa-f]{2}\b"
# base64 wrapped over several lines (as encoders wrap it at 64 or 76 characters): the lines
# are joined before decoding, else a phrase cut at a line end is read in two halves
_B64_BLOCK = r"(?:^[ \t]*[A-Za-z0-9+/]{16,}={0,2}[ \t]*(?:\n|$)){2,}"
_PCT = r"%[0-9A-Fa-f]{2}"
_PCT_RE = lazy_compile(_PCT)
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


# "the", "and", "you", "your", "all" in ROT13: English text holds none of them as words
_ROT13_WORDS = " (?:gur|naq|lbh|lbhe|nyy) "
_RUN_SOURCES = {"base64": _B64, "hex": _HEX, "spaced-hex": _SPACED_HEX,
                "base64-block": _B64_BLOCK, "rot13": _ROT13_WORDS}


def _rot13_lines(text: str, data: bytes | None = None) -> Iterator[tuple[int, str]]:
    """(offset, decoded line) for each line that reads as English only after ROT13 (word
    lookups in a set: a regex per word costs more than the rest of the view together).
    ``data``: the text's UTF-8 bytes, when at hand."""
    # one case-insensitive RE2 pass over the bytes instead of lowering the text (slow for
    # non-ASCII text) and five searches: the same answer, as no character but A-Z lowers to
    # a letter of these words or a space, and RE2 folds none but A-Z to them (a test checks
    # both over every code point)
    if not found(_compiled()["rot13"], text.encode() if data is None else data):
        return
    offset = 0
    for line, rot in zip(text.split("\n"), text.translate(_ROT13).split("\n"), strict=True):
        if len(line) >= 16:
            words = _common(rot)
            if words >= 3 and words > 2 * _common(line):
                yield offset, rot
        offset += len(line) + 1


def views(text: str, utf8: list[bytes] | None = None) -> Iterator[View]:
    """The text itself, then what is hidden in it (:func:`_hidden`).  The marks of the text
    are asked here, and a text the set finds none in (most) ends its views at once: no
    generator of the hidden views is made for it (on the bench tree about a third of what
    the views cost once the text's UTF-8 and the set's pass are paid for).  ``utf8``: a list
    the caller may give the text's UTF-8 (``text.encode()``) before asking for the second
    view, when it has worked that out (encoding a text beyond ASCII is not free)."""
    _READ[0] += len(text)
    yield View("text", text, 0, False)
    rest = hidden_views(text, utf8)
    if rest is not None:
        yield from rest


def count_read(text: str) -> None:
    """Count ``text`` as given to the views (what :func:`views` does first: the detector's
    own way through the text view, which makes no :class:`View` of it)."""
    _READ[0] += len(text)


def text_marks(text: str, utf8: list[bytes] | None = None
               ) -> tuple[bytes, tuple[bool, ...] | None] | None:
    """``text``'s UTF-8 and its marks (:func:`_marks`, at the process's level now), or
    ``None`` for a text that cannot be written in UTF-8 (a lone surrogate: left to
    :func:`_decoded`'s own way).  ``utf8`` as in :func:`views`."""
    try:
        data = utf8[0] if utf8 else text.encode()
    except UnicodeEncodeError:
        return None
    return data, _marks(data, _level())


def all_text_marks(texts: list[str], utf8s: list[list[bytes]]
                   ) -> list[tuple[bytes, tuple[bool, ...] | None] | None]:
    """:func:`text_marks` of each text (``utf8s``: each one's ``utf8`` list), the process's
    level and set looked up once."""
    made = _marks_set(_level())
    out: list[tuple[bytes, tuple[bool, ...] | None] | None] = []
    for text, utf8 in zip(texts, utf8s, strict=True):
        try:
            data = utf8[0] if utf8 else text.encode()
        except UnicodeEncodeError:
            out.append(None)
            continue
        out.append((data, _marked(data, made)))
    return out


def hidden_views(text: str, utf8: list[bytes] | None = None) -> Iterator[View] | None:
    """The views of :func:`views` after the text itself, or ``None`` when the text's marks
    say it hides nothing (most texts: then no generator is made).  ``utf8`` as there."""
    return marked_views(text, text_marks(text, utf8))


def marked_views(text: str, known: tuple[bytes, tuple[bool, ...] | None] | None
                 ) -> Iterator[View] | None:
    """:func:`hidden_views` with the text's marks already asked (``known``: what
    :func:`text_marks` answered for ``text``)."""
    if known is not None and known[1] is None:
        return None
    budget = [max(_BUDGET_FACTOR * len(text), _BUDGET_FLOOR), _MAX_VIEWS]
    return _hidden(text, 0, 0, budget, known)


def _level() -> int:
    """Which marks the process looks for (:func:`_marks_set`): the markers' once it has read
    a file's worth of text, the base64 mark once it has read a few hundred."""
    read = _READ[0]
    return 2 if read > _BASE64_AFTER else 1 if read > _MARKERS_AFTER else 0


def _hidden(text: str, at: int, depth: int, budget: list[int],
            known: tuple[bytes, tuple[bool, ...] | None] | None = None) -> Iterator[View]:
    """The hidden views of ``text`` (itself found at ``at``), each followed by its own hidden
    views, until :data:`_DEPTH` or the character budget runs out (``known``: the text's
    UTF-8 and marks, when :func:`views` asked them)."""
    for view in _decoded(text, at, known):
        if budget[1] <= 0:
            return
        if budget[0] < len(view.text) or view.text == text:
            continue
        budget[0] -= len(view.text)
        budget[1] -= 1
        yield view
        if depth + 1 < _DEPTH:
            yield from _hidden(view.text, view.offset, depth + 1, budget)


def _decoded(text: str, at: int,
             known: tuple[bytes, tuple[bool, ...] | None] | None = None) -> Iterator[View]:
    """The views one step below ``text``: comments, links, decoded runs (offsets are of the
    outer text: where the run that holds them starts).  ``known``: ``text``'s UTF-8 and
    marks, already asked."""
    # one RE2 set pass says which searches may find something (most texts: none); a text that
    # cannot be written in UTF-8 (a lone surrogate) is searched as before, up to the point
    # where the runs' search fails on it
    data: bytes | None
    if known is not None:
        data, marks = known
    else:
        try:
            data = text.encode()
        except UnicodeEncodeError:
            data = None
        marks = _ALL if data is None else _marks(data, _level())
    if marks is None:
        return
    (base64_runs, hex_runs, blocks, spaced, rot13, comment, link, ref, percent, entities,
     uescapes, xescapes, tags) = marks

    def off(i: int) -> int:
        return i + at if at == 0 else at

    pats = _compiled()
    # (behind a mark that the set cannot rule out, as when there is none, a marker is looked
    # for first: one character with ``memchr``, a longer string one position at a time, on a
    # 7 KB prompt about 0.1 us against 5 us, so the rarer character is asked first)
    bracket = "]" in text if link or ref else False
    for m in _COMMENT_RE.finditer(text) if comment and "<" in text and "<!--" in text else ():
        yield View("comment", m.group(1), off(m.start(1)), True)
    for m in _LINK_RE.finditer(text) if link and bracket and "](" in text else ():
        yield View("link", urllib.parse.unquote(m.group(1)), off(m.start(1)), True)
    for m in _REF_COMMENT_RE.finditer(text) if ref and bracket and "]:" in text else ():
        for g in (1, 2):
            if m.group(g):
                yield View("link", urllib.parse.unquote(m.group(g)), off(m.start(g)), True)
    # the run patterns search the UTF-8 bytes: their matches are ASCII, the wrapper converts
    # no offset, and a match's offset in characters is worked out only for a run that decodes
    if data is None:
        data = text.encode()
    ascii_text = len(data) == len(text)

    def where(i: int) -> int:
        return off(i if ascii_text else len(data[:i].decode()))

    # (past the base64 mark's threshold, only in a text with a run whose first digits can
    # decode to text, about one in a hundred and fifty: every run is found by the plain
    # pattern and the few that cannot decode to text turned away by :func:`_base64_text`; a
    # pattern of only the runs that can, as the mark's, costs more to compile than it saves)
    for start, stop in spans(pats["base64"], data) if base64_runs else ():
        decoded = _base64_text(data[start:stop])
        if decoded is not None:
            yield View("base64", decoded, where(start), True)
    for start, stop in spans(pats["hex"], data) if hex_runs else ():
        decoded = _printable(bytes.fromhex(data[start:stop].decode()))
        if decoded is not None:
            yield View("hex", decoded, where(start), True)
    for start, stop in spans(pats["base64-block"], data) if blocks and "\n" in text else ():
        joined = b"".join(data[start:stop].split())
        try:
            raw = base64.b64decode(joined + b"=" * (-len(joined) % 4), validate=True)
        except (binascii.Error, ValueError):
            continue
        decoded = _printable(raw)
        if decoded is not None:
            yield View("base64", decoded, where(start), True)
    for start, stop in spans(pats["spaced-hex"], data) if spaced else ():
        decoded = _printable(bytes.fromhex(
            data[start:stop].replace(b" ", b"").replace(b":", b"").decode()))
        if decoded is not None:
            yield View("hex", decoded, where(start), True)
    backslash = "\\" in text if uescapes or xescapes else False
    for m in _UESC_RE.finditer(text) if uescapes and backslash and "\\u" in text else ():
        decoded = "".join(chr(int(h, 16)) for h in m.group(0).split("\\u")[1:])
        if decoded.isprintable():
            yield View("unicode-escapes", decoded, off(m.start()), True)
    for m in _XESC_RE.finditer(text) if xescapes and backslash and "\\x" in text else ():
        decoded = _printable(bytes.fromhex(m.group(0).replace("\\x", "")))
        if decoded is not None:
            yield View("hex", decoded, off(m.start()), True)
    if percent and "%" in text and _PCT_RE.search(text):
        yield View("percent", urllib.parse.unquote(text), at, True)
    if entities and "&" in text and _ENTITY_RE.search(text):
        import html  # (its entity table is large, and few prompts hold an entity)

        yield View("entities", html.unescape(text), at, True)
    # a tag character's UTF-8 starts F3 A0, and F3 (code points from U+C0000) is rare: a
    # byte found with ``memchr``, where the pattern would be tried at every character
    for m in (_TAGS_RE.finditer(text) if tags and b"\xf3" in data and b"\xf3\xa0" in data
              else ()):
        yield View("tags", "".join(chr(ord(c) - 0xE0000) for c in m.group(0)),
                    off(m.start()), True)
    lines = list(_rot13_lines(text, data)) if at == 0 and rot13 else []
    if lines:  # one view of them all (joined by line breaks, which no phrase crosses)
        yield View("rot13", "\n".join(line for _, line in lines), off(lines[0][0]), True)
