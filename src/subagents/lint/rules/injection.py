"""Prompt-injection detection: normalise the text, look for signals in several views of it,
and say how sure we are.

Design notes
------------
* **Normalise first.**  :func:`normalise` applies NFKC, removes invisible characters
  (zero-width, bidi controls, variation selectors, soft hyphens, tag characters), folds
  letters that look like ASCII (Cyrillic ``а``, Greek ``ο``... from Unicode's confusables data,
  see :mod:`._confusables`) to ASCII, case-folds, and collapses whitespace, so that line breaks
  cannot split a phrase.  It is idempotent and total (a hypothesis test says so).
* **Several views.**  The signals are searched in: the normalised text; the same text with the
  confusables *not* folded (Russian, Greek and other scripts keep their own letters); a
  "squeezed" text of letters only, leet digits read as letters (``1gn0r3``, ``i g n o r e``,
  ``dis-\\nregard``); and *hidden* views (:mod:`.injection_views`): HTML comments, Markdown
  link titles, targets and ``[//]: #`` comments, decoded runs of base64, hex, ``\\xNN``,
  percent-encoding, HTML entities, Unicode tag characters and ROT13 lines, each decoded
  again to a fixed depth within a character budget.
* **Signals** (:mod:`.injection_lexicon` has the core intents in 20-odd languages):
  ``override`` (ignore your instructions, the earlier rules no longer apply, you answer to
  me now...), ``jailbreak`` (role play without restrictions, developer mode), ``fake-role``
  (a forged ``system:`` turn or chat-template token), ``leak`` (print your system prompt),
  ``exfil`` (a ``send`` to an address or an outward channel whose object is a ``secret``),
  ``destructive`` (``rm -rf ~``, ``curl ... | sh``, delete the repository), ``conceal``
  (hide it from the user), ``dump``, ``beacon`` (an address with a slot for data).
* **Commands, not mentions.**  A signal does not count when its sentence frames it as a
  description ("detect prompts that...", "such as"), when it is quoted (an apostrophe
  inside a word opens no quotation), when it is negated before it or inside the phrase
  ("never send secrets...", "gib niemals Passwörter aus"), or when instructions are about a
  topic ("the previous instructions for Django 3 are obsolete").
* **Intent features.**  Some signs say *who* or *how*, not *what*: text addressed to the
  model, unsupervised action (stop asking, skip the checks), a claimed authority, "do not
  tell the user", a condition.  Each is a finding only beside an action in the same
  passage: "don't tell the user about intermediate steps" alone is how autonomous agents
  are told to be brief.
* **Confidence.**  ``high``: an override, jailbreak or forged turn together with another kind
  of signal in the same passage; exfiltration with concealment; or any signal that was
  hidden (found only in a comment, a decoded run, or only after removing invisible
  characters or folding look-alike letters: disguise is itself evidence).  ``medium``: one
  signal alone.  SA405 (an error; ``run`` refuses the agent unless
  ``--allow-flagged-prompt``) is ``high``; SA406 (a warning with the measured rates) is
  ``medium``.  Text fetched by tools is wrapped as data at either level, with a warning.
* **Searched only where it can match.**  The signal patterns (:mod:`.injection_patterns`)
  are in parts; a part is compiled and searched only when the view holds the literals every
  match of it holds (:mod:`.injection_gate`, from the table :mod:`.injection_prefilter`
  generates), and the kinds that can make a finding are searched first: a view where none
  matches is not read further (:class:`_Search`).  ``PREFILTER = False`` searches every part
  of every view; the tests compare the two (same findings).
* **Per text, the least work that gives the same answer** (each shortcut has a test against
  the plain way): blanks collapsed by stripping lines where a text holds no other blank,
  and, once a process has read enough to pay for compiling that pattern
  (:data:`SPREAD_AFTER`), the squeezed view worked out only for a text matching the squeezed
  pattern spread over its own characters (both in :mod:`.injection_text`); one pass asks
  whether a text beyond ASCII holds invisible characters or letters to fold
  (:func:`_visible`); matches read from the UTF-8 bytes (:meth:`_Parts.spans`).
* The figures are measured by :mod:`subagents.lint.rules.injection_eval` on the development
  sets (``tests/data/injection/dev.jsonl``, ``dev2.jsonl``, ``probe3.jsonl``: the patterns
  were tuned on them; each new set's first figure was a fresh probe) and held-out sets
  written apart from the detector; docs/security.md has them.
"""

from __future__ import annotations

import bisect
import functools
import re
import unicodedata
from collections.abc import Callable, Iterator

from subagents._dataclass import dataclass
from subagents._lazy_re import lazy_compile
from subagents.lint.rules import injection_text as _text
from subagents.lint.rules.injection_alts import PARTS as ALT_PARTS
from subagents.lint.rules.injection_alts import reduced
from subagents.lint.rules.injection_gate import Holds, holds, parts_or_holds
from subagents.lint.rules.injection_lexicon import SUPPORT_KINDS
from subagents.lint.rules.injection_patterns import (
    _ALONE,
    _APOSTROPHE,
    _FRAMING,
    _NEGATION,
    _OBEY_QUOTED,
    _QUOTES,
    _SIGNALS,
    _SQUEEZED,
    _TAKEOVER,
    _WEAK,
)
from subagents.lint.rules.injection_text import (
    _ascii_lower,
    _spread,
    _squeezed_bytes,
    _unsqueeze,
    cased_class,
)
from subagents.lint.rules.injection_views import (
    characters_read,
    count_read,
    hidden_views,
    linear,
    marked_views,
    spans,
)
from subagents.lint.rules.injection_views import found as found_in

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal

    from subagents.lint.rules.injection_memo import Verdicts

    Confidence = Literal["high", "medium"]
    _Compiled = dict[str, Any]
else:  # the typing module is not imported at run time (see subagents/__init__.py)
    _Compiled = dict

__all__ = ["HELDOUT_RATES", "InjectionFinding", "assess_injection", "forget_verdicts",
           "normalise"]

#: Precision and recall of the ``medium``-or-higher level on both held-out sets together,
#: quoted in the SA406 warning (measured by :mod:`subagents.lint.rules.injection_eval`;
#: ``tests/test_injection_detector.py`` checks the figures are still true).
HELDOUT_RATES: tuple[float, float] | None = (0.985, 0.622)


@dataclass(frozen=True, slots=True)
class InjectionFinding:
    """Where (an offset into the original text, approximate for hidden views), what was
    found, how sure, and in which view (``text``, ``squeezed``, ``comment``, ``base64``...)."""

    offset: int
    signals: tuple[str, ...]
    confidence: Confidence
    view: str


# ------------------------------------------------------------------------------ normalising

_INVISIBLE = lazy_compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\U000e0000-\U000e007f\U000e0100-\U000e01ef]"
)
# Runs of blanks become one space and a break with blanks around it one newline: patterns may
# cross a line break (``\s``) where a phrase allows it, and windows (``[^\n]``) stop at it.
_BLANKS = lazy_compile(r"[^\S\n]+")
_BREAKS = lazy_compile(r" ?\n[\s]*")
_SPACES = lazy_compile(r"\s+")
@functools.cache
def _fold_table() -> dict[int, str]:
    """The confusables and :data:`_EXTRA_FOLD`, one table (one ``translate`` pass)."""
    from subagents.lint.rules._confusables import FOLD

    return {ord(k): v for k, v in (FOLD | _EXTRA_FOLD).items()}


# Greek and other letters close enough to ASCII to read as it, that the confusables data
# leaves out (it lists only near-identical shapes).
_EXTRA_FOLD = {"τ": "t", "η": "n", "υ": "u", "ω": "w", "κ": "k", "ρ": "p", "ν": "v", "ε": "e",
               "ι": "i", "χ": "x", "β": "b", "μ": "u", "ѕ": "s", "ԁ": "d", "ɡ": "g", "ʀ": "r"}


def _once(text: str, fold: bool) -> str:
    text = unicodedata.normalize("NFKC", text)
    text = _INVISIBLE.sub("", text)
    if fold and not text.isascii():
        text = _folded_text(text)
    text = text.casefold()
    return _BREAKS.sub("\n", _BLANKS.sub(" ", text)).strip()


_WS_RUN = lazy_compile(r"\s+")


def _mapped(text: str, fold: bool) -> tuple[str, list[int]]:
    """:func:`normalise` character by character (so NFKC does not compose across characters),
    with the offset in ``text`` of every character of the result: findings are reported at
    the line the user wrote them on."""
    if text.isascii():
        low, index = text.lower(), None
    else:
        parts: list[str] = []
        positions: list[int] = []
        table = _fold_table()
        for i, ch in enumerate(text):
            if ch.isascii():
                piece = ch.lower()
            else:
                piece = _INVISIBLE.sub("", unicodedata.normalize("NFKC", ch))
                if fold:
                    piece = piece.translate(table)
                piece = piece.casefold()
            parts.append(piece)
            positions.extend([i] * len(piece))
        low, index = "".join(parts), positions
    out: list[str] = []
    where: list[int] = []
    last = 0
    for m in _WS_RUN.finditer(low):
        out.append(low[last:m.start()])
        where.extend(range(last, m.start()) if index is None else index[last:m.start()])
        last = m.end()
        if m.start() == 0 or m.end() == len(low):
            continue  # as in :func:`_collapse`: none at either end
        out.append("\n" if "\n" in m.group(0) else " ")
        where.append(m.start() if index is None else index[m.start()])
    out.append(low[last:])
    where.extend(range(last, len(low)) if index is None else index[last:])
    return "".join(out), where


def _foldable() -> str:
    """A class of every character of :func:`_fold_table`."""
    return "[" + "".join(re.escape(chr(c)) for c in _fold_table()) + "]"


def _folded_text(text: str, data: bytes | None = None) -> str:
    """``text.translate(_fold_table())``, or ``text`` itself when it holds no letter to fold.
    ``str.translate`` looks every character of a non-ASCII text up in the table (about 100 ns
    each: a millisecond for a 9 KB prompt); one RE2 pass over the UTF-8 finds the few
    characters to fold, and only those are replaced (tests compare with ``translate``).
    ``data``: ``text``'s UTF-8, when at hand."""
    if data is None:
        data = text.encode("utf-8", "surrogatepass")
    if len(data) == len(text):
        return text  # ASCII: nothing to fold
    found = list(spans(_Patterns.get()["foldable"], data))
    if not found:
        return text
    table = _fold_table()
    out: list[str] = []
    last = 0
    for start, stop in found:  # each a single character of the table
        out.append(data[last:start].decode("utf-8", "surrogatepass"))
        out.append(table[ord(data[start:stop].decode())])
        last = stop
    out.append(data[last:].decode("utf-8", "surrogatepass"))
    return "".join(out)


def _fast(text: str, fold: bool) -> str:
    """About what :func:`_mapped` returns as text (NFKC over the whole text, so composed
    where it composes), without the offsets: C-speed string methods; the offsets are worked
    out only for a finding."""
    if text.isascii():
        return _text._lower_collapse(text)
    text, unusual, data = _visible_utf8(text)
    if not unusual:
        return _text._collapse(_ascii_lower(text, data), nfkc=True)
    if fold:
        text = _folded_text(text, data)
    return _text._collapse(text.casefold(), nfkc=True)


def _fast_both_utf8(text: str, utf8: list[bytes] | None = None
                    ) -> tuple[list[str], bytes | None]:
    """``[_fast(text, True)]``, and ``_fast(text, False)`` after it when that differs: the
    steps they share done once, and the second not worked out at all when the text holds no
    letter to fold (then the two are the same); and the UTF-8 of the first when it was worked
    out on the way (a text beyond ASCII with nothing unusual is collapsed as bytes,
    :func:`.injection_text._collapse_utf8`: the detector would encode it again).  The
    collapsing functions are looked up in :mod:`.injection_text` at each call: they become
    the C extension's there once a process has collapsed enough text.  ``utf8``:
    a list that is given ``text``'s own UTF-8 when it was worked out (a text beyond ASCII
    that NFKC leaves as it is: the hidden views' marks read the same bytes,
    :func:`.injection_views.hidden_views`).

    With the C extension (:data:`.injection_text._normalise`, once a process has collapsed
    enough text), one pass over the text does all of it: the steps below answer only for a
    text with a lone surrogate (they raise), or when the extension has no table of the
    characters beyond ASCII (another Unicode version).  Where NFKC may change the text, the
    pass reads what NFKC returned, worked out only for the stretches it may change
    (:func:`.injection_native.nfkc_in_pieces`; tests/test_injection_normalise_native.py
    compares both with the Python steps)."""
    native = _text._normalise
    if native is not None:
        helpers = _text._native
        table = None if text.isascii() else helpers.native_table(_fold_table())
        got = native(text, table, True)
        if got is False and table is not None:
            # a character NFKC may change: the pass over what NFKC returns
            again = helpers.nfkc_in_pieces(text, table)
            got = native(again, table, False)
            if got is not None and again is not text:
                got = (got[0], got[1], None)  # (not the text's own UTF-8)
        if got is not None:
            if utf8 is not None and got[2] is not None:
                utf8.append(got[2])
            return got[0], got[1]
    if text.isascii():
        return [_text._lower_collapse(text)], None
    visible, unusual, data = _visible_utf8(text)
    if utf8 is not None and visible is text and data is not None:
        utf8.append(data)
    text = visible
    if not unusual:
        if data is None:
            data = text.encode()
        raw = _text._lower_collapse_utf8(data, text)  # lowered and collapsed in one pass
        if raw is None:
            return [_text._collapse(data.lower().decode(), nfkc=True)], None
        return [raw.decode()], raw
    folded = _folded_text(text, data)
    if folded is text:
        return [_text._collapse(text.casefold(), nfkc=True)], None
    norm = _text._collapse(folded.casefold(), nfkc=True)
    bare = _text._collapse(text.casefold(), nfkc=True)
    return ([norm] if bare == norm else [norm, bare]), None


def _visible(text: str) -> tuple[str, bool]:
    """``text`` after NFKC with its invisible characters removed, and whether it may hold
    anything unusual: a letter to fold, or one beyond ASCII that case-folding changes
    (``False``: :func:`_folded_text` would return it as it is, and lowering its ASCII letters
    case-folds it).  One RE2 pass over its UTF-8 asks all three (most texts beyond ASCII
    hold none); the invisible characters' own pass, over the same bytes, only when that
    says yes (tests/test_injection_visible.py compares with the separate passes)."""
    text, unusual, _ = _visible_utf8(text)
    return text, unusual


#: NFKC is skipped for a text its characters say it leaves as it is only once a process has
#: read this many characters (about 250 files; the same threshold as :data:`SPREAD_AFTER`):
#: the pattern costs about 1.3 ms to compile, and spares about 15 us a text beyond ASCII
NFKC_AFTER = 1_000_000


def _unusual_or_nfkc() -> Any:
    from subagents.lint.rules.injection_nfkc import unstable_class

    nfkc = unstable_class()
    if nfkc is None:
        return None
    return linear(f"(?:{_INVISIBLE.pattern})|(?:{_foldable()})|(?:{cased_class()})|{nfkc}",
                  case_sensitive=True)


#: every ASCII byte.  The patterns "unusual" and "unusual_or_nfkc" match single characters
#: beyond ASCII only (classes of them, tests/test_injection_visible.py says so), so whether
#: they match a text's UTF-8 is whether they match it with its ASCII bytes deleted (the
#: characters beyond ASCII are left whole): ``bytes.translate`` deletes them at about a
#: third of what an RE2 pass costs a byte, and the pass then reads what is left (on the
#: texts of 2,000 files, about 1% of their bytes)
_ASCII_BYTES = bytes(range(128))


def _visible_utf8(text: str) -> tuple[str, bool, bytes | None]:
    """:func:`_visible`, and the UTF-8 of the text it returns, when that is the bytes it
    read (``None`` when it removed invisible characters): encoding a text beyond ASCII costs
    about eight instructions a character, and the steps after this one read the same bytes
    (:func:`_ascii_lower`, :func:`_folded_text`, the hidden views' marks)."""
    pats = _Patterns.get()
    if characters_read() > NFKC_AFTER and (before := pats["unusual_or_nfkc"]) is not None:
        # one pass over the text's own UTF-8: nothing unusual and no character NFKC may
        # change (:mod:`.injection_nfkc`), and the text is its own NFKC (most texts)
        data = text.encode()
        if not found_in(before, data.translate(None, _ASCII_BYTES)):
            return text, False, data
        again = unicodedata.normalize("NFKC", text)
        if again is not text:
            text, data = again, again.encode()
    else:
        text = unicodedata.normalize("NFKC", text)
        # strict: a lone surrogate fails here as it did in the RE2 wrapper's own encoding
        data = text.encode()
    if not found_in(pats["unusual"], data.translate(None, _ASCII_BYTES)):
        return text, False, data
    if found_in(pats["invisible"], data):
        return _INVISIBLE.sub("", text), True, None
    return text, True, data


def normalise(text: str, *, fold: bool = True) -> str:
    """NFKC, invisible characters removed, look-alike letters folded to ASCII (``fold``),
    case-folded, blanks collapsed to one space and line breaks to one newline.
    ``normalise(normalise(t)) == normalise(t)`` for every string: the steps repeat until
    nothing changes (case-folding can produce text that NFKC changes again)."""
    out = _once(text, fold)
    for _ in range(4):
        again = _once(out, fold)
        if again == out:
            return out
        out = again
    return out


def _folded(pattern: str) -> str:
    """``pattern`` with its letters case-folded as :func:`normalise` folds the text (Greek
    final sigma to sigma...); ASCII is left alone (escapes such as ``\\S`` keep their case:
    the patterns hold no capital letter).  Only the runs of non-ASCII characters are read
    character by character (a part is kilobytes of mostly ASCII, folded each time it is
    compiled; tests/test_injection_fold.py compares with every character folded)."""
    if pattern.isascii():
        return pattern
    return _NON_ASCII.sub(_fold_run, pattern)


_NON_ASCII = lazy_compile(r"[^\x00-\x7f]+")


def _fold_run(m: Any) -> str:
    return "".join(c if len(c.casefold()) != 1 else c.casefold() for c in m.group())


def part_sources() -> tuple[tuple[str, str], ...]:
    """Every signal pattern part as compiled (``kind.n``: the ``n``-th part of ``kind``), then
    ``squeezed``: what the literal table of :mod:`.injection_prefilter` is worked out from."""
    return (*((name, _part_source(name)) for _, names in _PART_NAMES for name in names),
            ("squeezed", _SQUEEZED))


class _Parts:
    """Several compiled patterns searched as one: ``finditer`` yields the matches of each."""

    __slots__ = ("parts",)

    def __init__(self, parts: list[Any]) -> None:
        self.parts = parts

    def finditer(self, text: str) -> Iterator[Any]:
        for rx in self.parts:
            yield from rx.finditer(text)

    def spans(self, text: str, raw: bytes) -> Iterator[tuple[int, int]]:
        """The span of each match ``finditer(text)`` yields, in characters of ``text``,
        searched in ``raw`` (its UTF-8; no part matches an empty string, so the matches are
        the same).  The wrapper converts each match's byte offsets into characters by
        counting from the start of the text (on a long text beyond ASCII, a millisecond a
        judged view); here each gap is counted once, from the previous match."""
        ascii = len(raw) == len(text)
        for rx in self.parts:
            if ascii:
                yield from spans(rx, raw)
                continue
            byte = char = 0
            for start, end in spans(rx, raw):
                char += len(raw[byte:start].decode())
                first = char
                char += len(raw[start:end].decode())
                byte = end
                yield first, char

    def search(self, text: str) -> Any:
        for rx in self.parts:
            m = rx.search(text)
            if m is not None:
                return m
        return None


class _Patterns:
    """The regexes, each compiled on first use (``import subagents`` stays light)."""

    compiled: dict[str, Any] | None = None

    @classmethod
    def get(cls) -> dict[str, Any]:
        if cls.compiled is None:
            # the views are case-folded before they are searched: case-sensitive automata
            # (half the compile time of case-insensitive ones) over case-folded patterns
            makers: dict[str, Callable[[], Any]] = {
                "squeezed": lambda: linear(_SQUEEZED),
                "spread": lambda: linear(_spread(_SQUEEZED), case_sensitive=True),
                "obey": lambda: linear(_OBEY_QUOTED),
                "invisible": lambda: linear(_INVISIBLE.pattern, case_sensitive=True),
                "foldable": lambda: linear(_foldable(), case_sensitive=True),
                # either of the two above, or a letter case-folding changes (:func:`_visible`)
                "unusual": lambda: linear(f"(?:{_INVISIBLE.pattern})|(?:{_foldable()})"
                                          f"|(?:{cased_class()})", case_sensitive=True),
                # the above, or a character NFKC may change (None: another Unicode)
                "unusual_or_nfkc": _unusual_or_nfkc,
                "framing": lambda: re.compile(_FRAMING, re.I),
                "negation": lambda: re.compile(_NEGATION, re.I),
            }
            # each part of a signal (``kind.n``) alone, and each signal as all its parts
            for kind, names in _PART_NAMES:
                for name, source in zip(names, dict(_SIGNALS)[kind], strict=True):
                    makers[name] = functools.partial(_compile_part, source)
                makers[kind] = functools.partial(_all_parts, names)
            cls.compiled = _OnFirstUse(makers)
        return cls.compiled


@functools.cache
def _part_source(name: str) -> str:
    """Part ``name``'s source as compiled (what :func:`part_sources` lists)."""
    kind, _, n = name.rpartition(".")
    return _folded(dict(_SIGNALS)[kind][int(n)])


def _compile_part(source: str) -> Any:
    return linear(_folded(source), case_sensitive=True)


def _all_parts(names: tuple[str, ...]) -> _Parts:
    pats = _Patterns.get()
    return _Parts([pats[name] for name in names])


#: each signal kind and the names of its parts (``kind.n``), in the order they are searched
_PART_NAMES: tuple[tuple[str, tuple[str, ...]], ...] = tuple(
    (kind, tuple(f"{kind}.{n}" for n in range(len(parts)))) for kind, parts in _SIGNALS)


#: the literal prefilter and the early exit of :class:`_Search`; ``False`` searches every
#: part of every view (what the tests compare the shortcuts with: the same findings)
PREFILTER = True


class _Everything:
    """The prefilter switched off: every part may match."""

    parts = None

    def allows(self, name: str) -> bool:
        return True


class _Search:
    """The signal parts over one normalised view: which can match (the literal prefilter of
    :mod:`.injection_gate`), and which do (searched at most once, and only when asked).  The
    view is searched as UTF-8 bytes: the same automaton, without the wrapper's conversion of
    every offset between characters and bytes (:meth:`_Parts.spans` converts the few it
    needs)."""

    __slots__ = ("gate", "matched", "norm", "raw")

    def __init__(self, norm: str, raw: bytes | None = None,
                 gate: Holds | None = None) -> None:
        self.norm = norm
        # UTF-8 once: the prefilter, the searches that only ask whether a part matches and
        # those of the hits of a view that can make a finding read these bytes
        raw = self.raw = norm.encode() if raw is None else raw
        self.gate: Holds | _Everything = (gate if gate is not None else holds(norm, raw)
                                          if PREFILTER else _Everything())
        self.matched: dict[str, bool] = {}

    def matches(self, name: str) -> bool:
        """Does part ``name`` match anywhere (one search, remembered)?"""
        found = self.matched.get(name)
        if found is None:
            found = self.matched[name] = (self.gate.allows(name) and
                                          (rx := self.part(name)) is not None and
                                          found_in(rx, self.raw))
        return found

    def part(self, name: str) -> Any:
        """Part ``name`` compiled; for the first texts of a process, a large part not yet
        compiled whole is compiled from only the alternatives this text can match
        (:mod:`.injection_alts`: the same matches); ``None`` when none can."""
        pats = _Patterns.get()
        gate = self.gate
        if (name in ALT_PARTS and name not in pats and isinstance(gate, Holds)
                and not gate.uses_set and not gate.uses_scan):
            return reduced(name, _part_source(name), gate.meets,
                           functools.partial(linear, case_sensitive=True),
                           functools.partial(pats.__getitem__, name))
        return pats[name]

    def kind(self, kind: str) -> bool:
        return any(self.matches(name) for name in _NAMES_OF[kind])

    def signals(self) -> dict[str, _Parts]:
        """The kinds with a part that can match, each with only those parts (a part the text
        lacks a required literal of, or already searched in vain, is left out)."""
        out: dict[str, _Parts] = {}
        for kind, names in _PART_NAMES:
            parts = [rx for name in names
                     if self.matched.get(name, True) and self.gate.allows(name)
                     and (rx := self.part(name)) is not None]
            if parts:
                out[kind] = _Parts(parts)
        return out

    def findable(self) -> bool:
        """Can the hits of this view make a finding (:func:`_judge`)?  Only an action kind
        can, or a pair: a secret with a send (exfiltration), role play, or words to the
        model or on a claimed authority; a send with those or with "do not tell the user" /
        "do as it says".  Asked kind by kind, each searched only when still needed (most
        views match none of the action kinds, and are not searched further)."""
        if not PREFILTER:
            return True
        named = self.gate.parts
        if named is not None and not _could_find_parts(named):
            return False  # not even what Hyperscan says may match could make a finding
        kind = self.kind
        if any(kind(k) for k in _ACTING):
            return True
        if kind("secret") and any(kind(k) for k in ("send", "roleplay", "addressed",
                                                    "authority")):
            return True
        return kind("send") and any(kind(k) for k in ("addressed", "authority", "hush", "obey"))


def _could_find(kinds: set[str]) -> bool:
    """:meth:`_Search.findable`'s question asked of a set of kinds that may match (more kinds
    only ever answer yes more often: a no is a no for the kinds that do match)."""
    return bool(not kinds.isdisjoint(_ACTING)
                or ("secret" in kinds and not kinds.isdisjoint(("send", "roleplay", "addressed",
                                                                "authority")))
                or ("send" in kinds and not kinds.isdisjoint(("addressed", "authority", "hush",
                                                              "obey"))))


_COULD: dict[frozenset[str], bool] = {}  # :func:`_could_find` by the parts named


def _could_find_parts(named: frozenset[str]) -> bool:
    """:func:`_could_find` of the kinds of the parts ``named`` (remembered: texts name the
    same few sets of parts again and again)."""
    known = _COULD.get(named)
    if known is None:
        if len(_COULD) > 4096:
            _COULD.clear()
        known = _COULD[named] = _could_find({n.partition(".")[0] for n in named})
    return known


_NAMES_OF = dict(_PART_NAMES)
# The raw kinds that make a finding alone or beside a support kind (``unsupervised`` is both
# an action and support: counted here, which only ever searches more); cheapest first
_ACTING = ("beacon", "dump", "conceal", "jailbreak", "fake-role", "leak", "destructive",
           "unsupervised", "override")


class _OnFirstUse(_Compiled):
    """The signals are searched in every text; the other patterns serve only some texts
    (non-ASCII letters, a finding to excuse, a quotation): each is compiled when first asked
    for, once per process (compiling costs more than judging one small file)."""

    def __init__(self, makers: dict[str, Callable[[], Any]]) -> None:
        super().__init__()
        self._makers = makers

    def __missing__(self, key: str) -> Any:
        value = self[key] = self._makers[key]()
        return value


# -------------------------------------------------------------------------------- matching

_URL_RE = lazy_compile(r"\S*://\S*")
_SENTENCE_ENDS = (". ", ".\n", "\n", "; ", "! ", "? ", "。", "！", "？")


def _sentence_start(text: str, pos: int) -> int:
    floor = max(0, pos - 300)
    # a full stop ends a sentence only before a blank: not the dot of ".env" or "~/.ssh"
    cut = max(text.rfind(sep, floor, pos) for sep in _SENTENCE_ENDS)
    return max(cut + 1, floor)


def _excused(text: str, pos: int, kind: str, hidden: bool = False) -> bool:
    """A mention, not an instruction: quoted, framed as a description, or negated.  In a
    hidden view (a comment, a decoded run) quotes excuse nothing: nobody quotes there."""
    pats = _Patterns.get()
    before = text[pos - 1] if pos else " "
    start = _sentence_start(text, pos)
    lead = text[start:pos]
    # an apostrophe inside a word ("don't", "team's") opens no quotation
    lead_q = _APOSTROPHE.sub("", lead) if "'" in lead else lead
    # a quotation that began earlier in the sentence; not for commands, whose quotes are the
    # shell's (``echo 'key' >> ~/.ssh/authorized_keys``)
    quoted = kind != "destructive" and sum(lead_q.count(q) for q in _QUOTES) % 2 == 1
    if not hidden and (before in _QUOTES or quoted):
        return True  # quoted, or inside a quotation that began earlier in the sentence
    # "example.com" frames nothing (an address holds "://": a lead without one has none, and
    # the pattern, ``\S*`` first, costs about 70 us on 300 characters)
    if pats["framing"].search(_URL_RE.sub(" ", lead) if "://" in lead else lead):
        return True
    if kind in ("conceal", "fake-role"):
        return False  # "do not tell" is itself a negation
    if kind == "secret" and re.search(
            r"\b(?:no|without|any|excluding|except|not|never)\s+(?:the\s+|your\s+|for\s+)?$",
            text[max(0, pos - 20):pos]):
        return True  # "no secrets", "without credentials", "excluding .env"
    return pats["negation"].search(text, max(0, pos - 30), pos) is not None




_Hit = tuple[int, str, int]  # start, kind, end


# "the previous instructions for Django 3 ... are obsolete": instructions about a topic, not
# the model's own
# a negation inside the phrase, between its verb and its object ("gib niemals Passwörter aus")
_INNER_NOT = lazy_compile(r"\b(?:never|not|niemals|nie|nunca|jamás|jamais|mai|nooit|nigdy)\b")
_INNER_KINDS = frozenset({"dump", "leak", "send"})
_SCOPED = lazy_compile(r"\b(?:instructions|rules|guidelines|guidance|directions)\s+(?:for|about|"
                     r"regarding|on)\s+(?!you\b|the (?:model|assistant|ai)\b)\w")


def _hits(norm: str, kinds: dict[str, _Parts], hidden: bool = False,
          every: bool = False, raw: bytes | None = None) -> list[_Hit]:
    """The signs in ``norm`` that are not excused; the support kinds only where there is
    something for them to qualify (or, with ``every``, always: the model's weak signs).
    ``raw``: ``norm``'s UTF-8, what the patterns search (:meth:`_Parts.spans`)."""
    raw = norm.encode() if raw is None else raw
    found: list[_Hit] = []
    support: list[tuple[str, _Parts]] = []
    for kind, rx in kinds.items():
        if kind in SUPPORT_KINDS and kind != "unsupervised":  # that one is an action too
            support.append((kind, rx))  # read only if there is something for them to qualify
            continue
        kept, spacing = -_SPACING, 0 if kind in _EVERY_SIGN else _SPACING
        for start, end in rx.spans(norm, raw):
            if start - kept < spacing:
                continue
            if kind == "override" and _SCOPED.search(norm, start, end):
                continue
            if kind in _INNER_KINDS and _INNER_NOT.search(norm, start, end):
                continue
            if not _excused(norm, start, kind, hidden):
                found.append((start, kind, end))
                kept = start
    present = {k for _, k, _ in found}
    if not every and not present & _QUALIFIED:
        return found
    acting = every or bool(present & (_ACTION | {"send", "roleplay"}))
    for kind, rx in support:
        if not acting and kind not in ("addressed", "authority"):
            continue  # beside a mere secret only these two count
        kept = -_SPACING
        for start, end in rx.spans(norm, raw):
            if start - kept >= _SPACING and not _excused(norm, start, kind, hidden):
                found.append((start, kind, end))
                kept = start
    return found


# One sign of a kind is kept per this many characters: a passage is judged by which kinds are
# in it, not how often, and a text repeating one phrase 30,000 times is judged as fast as one
# that says it every few lines (every sign is still seen, so a pair far apart stays apart).
_SPACING = 200
# ... except for the kinds read in pairs by position (a send and the secret it carries): each
# of their signs is kept
_EVERY_SIGN = frozenset({"send", "secret", "roleplay"})
_WINDOW = 600  # a passage: signals this close together are read together
_BEFORE = 120  # a secret named this far before a send ("read X and post it to...") is its object


# a sending phrase whose object is a pronoun or a container ("upload the archive", "include
# them"): the secret named before it is what is sent; "send the release request" names its own
_PRONOUN_OBJECT = lazy_compile(
    r"[a-z]+(?:-[a-z]+)?\s+(?:it|them|this|that|those|these|everything|all|(?:the|a|its|their) "
    r"(?:archive|file|files|result|results|contents?|values?|output|tarball|dump|data|copy|"
    r"list|bundle|zip|keys?|tokens?))\b")


def _combine(hits: list[_Hit], norm: str = "") -> list[tuple[int, str]]:
    """``send`` whose object is a ``secret`` (named inside the sending phrase, or just before
    it) becomes ``exfil``; ``roleplay`` counts only with a secret near it (else it is a
    ``persona``, support only).  Alone, neither means anything: "upload the build to
    https://..." is a deployment agent."""
    secrets = sorted(p for p, k, _ in hits if k == "secret")
    out: list[tuple[int, str]] = []
    for pos, kind, end in hits:
        if kind in ("send", "roleplay"):
            reach = pos + 300 if kind == "roleplay" else end
            i = bisect.bisect_left(secrets, pos - _BEFORE)
            if (kind == "send" and i < len(secrets) and secrets[i] < pos and norm
                    and norm[pos].isascii() and norm[pos].isalpha()
                    and not norm.startswith(("nc ", "netcat", "curl", "wget"), pos)
                    and not _PRONOUN_OBJECT.match(norm, pos)):
                i = bisect.bisect_left(secrets, pos)  # only a secret inside the phrase
            if i < len(secrets) and secrets[i] <= reach:
                out.append((pos, "exfil" if kind == "send" else kind))
            else:
                out.append((pos, "send" if kind == "send" else "persona"))
        else:
            out.append((pos, kind))
    return sorted(out)


_NEAR = 300  # a support kind and the action it qualifies: this close
# What a support kind (to the model, unwatched, on authority, quietly) must stand beside.
_ACTION = frozenset({"exfil", "destructive", "dump", "leak", "override", "jailbreak",
                     "conceal", "fake-role", "roleplay", "beacon", "unsupervised"})
_SUPPORT = SUPPORT_KINDS | {"persona"}
# what a support kind may qualify, as raw kinds (before ``send`` + ``secret`` is ``exfil``)
_QUALIFIED = _ACTION | {"send", "secret", "roleplay"}


def _supported(kind: str, near: set[str]) -> bool:
    if near & (_ACTION - {kind}):
        return True
    # speaking to the model, or on a claimed authority, about a secret or a send
    if kind in ("hush", "obey"):  # "do not tell the user" / "do as it says", and a send
        return "send" in near
    return kind in ("addressed", "authority") and bool(near & {"secret", "send"})


def _judge(raw_hits: list[_Hit], norm: str = "") -> tuple[int, tuple[str, ...], bool] | None:
    """The strongest passage in ``hits``: (position, kinds, high?).  Each passage is the
    slice of hits within :data:`_WINDOW` of one of them (found by bisection)."""
    hits = _combine(raw_hits, norm)
    positions = [p for p, _ in hits]
    best: tuple[int, tuple[str, ...], bool] | None = None
    for pos, kind in hits:
        if kind in _SUPPORT:
            lo = bisect.bisect_left(positions, pos - _NEAR)
            hi = bisect.bisect_right(positions, pos + _NEAR)
            # not the same phrase read twice ("skip the checks" is two kinds at one place)
            if not _supported(kind, {k for p, k in hits[lo:hi] if p != pos}):
                continue
        elif kind not in _ALONE:
            continue
        lo = bisect.bisect_left(positions, pos - _WINDOW)
        hi = bisect.bisect_right(positions, pos + _WINDOW)
        kinds = {k for _, k in hits[lo:hi]}
        takeover = kinds & _TAKEOVER
        strong = kinds - _WEAK
        high = bool((takeover and (len(strong) >= 2 or "exfil" in kinds))
                    or ("exfil" in kinds and kinds & {"conceal", "hush", "destructive", "leak"})
                    or ("leak" in kinds and kinds & {"conceal", "hush"}))
        named = tuple(sorted(kinds - {"send", "persona"}))
        if best is None or (high and not best[2]):
            best = (pos, named, high)
            if high:
                break
    return best


def assess_injection(text: str) -> InjectionFinding | None:
    """The strongest sign of a prompt injection in ``text``, or ``None``.  A text already
    judged in this process is given the same verdict again (:mod:`.injection_memo`: the
    detector is a function of the text alone; bounded memory)."""
    if not (PREFILTER and REMEMBER):  # the plain search the tests compare with: every time
        return _assess(text)
    memo = _VERDICTS
    if not memo:
        from subagents.lint.rules.injection_memo import Verdicts

        memo.append(Verdicts())
    return memo[0].get(text, _assess)


#: the verdicts remembered (:func:`forget_verdicts` empties it); ``REMEMBER = False`` judges
#: every text afresh (what a benchmark of the detector on distinct texts measures)
_VERDICTS: list[Verdicts[InjectionFinding | None]] = []
REMEMBER = True


def remembered(text: str) -> bool:
    """Is a verdict on ``text`` remembered now (:func:`assess_injection` would not judge it)?"""
    return bool(_VERDICTS) and text in _VERDICTS[0]


def forget_verdicts() -> None:
    """Forget the verdicts remembered in this process (a benchmark's cold run; a test that
    changes the detector's insides and judges a text again)."""
    if _VERDICTS:
        _VERDICTS[0].clear()


#: texts whose first steps were done ahead, together with the other texts of a chunk
#: (:mod:`.injection_ahead` fills it and empties it after the chunk): by the text, its
#: normalised variants, the first one's UTF-8 when known, what the prefilter said of the
#: first variants (of the first, or of both; ``None``: not asked), whether the spread
#: pattern matches it (``None``: not asked, :func:`_squeezed_finding`) and the text's
#: UTF-8 and hidden views' marks (:func:`.injection_views.text_marks`); ``None``: the steps
#: found that nothing can make a finding (the verdict is ``None``)
AHEAD: dict[str, tuple[list[str], bytes | None, list[frozenset[str] | Holds] | None,
                       bool | None,
                       tuple[bytes, tuple[bool, ...] | None] | None] | None] = {}


#: the spread pattern is asked only once a process has given the views this many characters
#: (about 250 files): compiling it and building its first states costs about 60 M
#: instructions (10 ms), and it spares about 13 a character (the squeezed view it avoids).
#: Measured against asking it from the first text: one file 60 M fewer, a fresh process on
#: 254 files 12.8 M more, on 2,000 files 43 M more (0.9%)
SPREAD_AFTER = 1_000_000


def _assess(text: str) -> InjectionFinding | None:
    """The text view first, without a :class:`.injection_views.View` or generator: most
    texts end after it, with no part that could make a finding, no squeezed phrase and no
    mark of a hidden view (then no object is made for them but the strings and bytes
    searched); then the hidden views, when the marks say there may be some.  The same steps
    as reading every view of :func:`.injection_views.views` in turn (tests compare)."""
    if not text:
        return None
    text = text[: 1 << 20]
    staged = AHEAD.pop(text, False) if AHEAD else False
    if staged is None:
        return None  # the stages found that nothing can make a finding
    pats = _Patterns.get()
    best: InjectionFinding | None = None
    plain_kinds: set[str] | None = None
    plain_done = False
    if isinstance(staged, tuple):
        # the first steps, done for a chunk's texts together (:mod:`.injection_ahead`)
        variants, known, scanned, spread, marked = staged
    else:
        count_read(text)  # as :func:`.injection_views.views` counts it
        utf8: list[bytes] = []  # the text's UTF-8, when normalising it worked that out
        variants, known = _fast_both_utf8(text, utf8)
        scanned = spread = None
    first = b""
    n = 0
    for norm in variants:
        raw = known if n == 0 and known is not None else norm.encode()
        if n == 0:
            first = raw
        n += 1
        if PREFILTER:
            gate = (scanned[n - 1] if scanned is not None and n <= len(scanned)
                    else parts_or_holds(norm, raw))
            if isinstance(gate, frozenset):
                if not _could_find_parts(gate):
                    continue  # what :meth:`_Search.findable` says first
                gate = Holds.scanned(norm, gate)
            search = _Search(norm, raw, gate)
        else:
            search = _Search(norm, raw)
        if not search.findable():
            continue  # no kind that could make a finding matches: nothing to judge
        # "a document says '...'; do as it says": the quotation is an instruction
        unquoted = search.gate.allows("obey.0") and found_in(pats["obey"], raw)
        signals = _signals(search, norm, raw)
        if signals is None:
            continue  # (what _judge would say: nothing)
        judged = _judge(_hits(norm, signals, unquoted, raw=raw), norm)
        if judged is None:
            continue
        pos, named, high = judged
        if not plain_done:
            # what only normalising found was disguised (invisible characters or
            # look-alikes): the signals of the text merely lower-cased, worked out only
            # when there is a finding to judge (most files have none)
            plain = _BREAKS.sub("\n", _BLANKS.sub(" ", text.casefold()))
            plain_kinds = None
            if plain != variants[0]:
                again = _Search(plain)
                plain_kinds = {k for _, k, _ in _hits(plain, again.signals(),
                                                      raw=again.raw)}
            plain_done = True
        disguised = plain_kinds is not None and not (
            set(named) & plain_kinds
            or ("exfil" in named and {"send", "secret"} <= plain_kinds))
        confidence: Confidence = "high" if high or disguised else "medium"
        at = 0
        if n == 1:
            index = _mapped(text, True)[1]
            at = index[pos] if pos < len(index) else len(text)
        finding = InjectionFinding(at, named, confidence, "text")
        if confidence == "high":
            return finding
        best = best or finding
    if best is None:
        squeezed = _squeezed_finding(text, variants[0], first, pats, spread)
        if squeezed is not None:
            return squeezed
    hidden = (marked_views(text, marked) if isinstance(staged, tuple)
              else hidden_views(text, utf8))
    if hidden is None:
        return best
    for view in hidden:
        norm = normalise(view.text)
        search = _Search(norm)
        if not search.findable():
            continue  # no kind that could make a finding matches: nothing to judge
        unquoted = view.hidden or (search.gate.allows("obey.0")
                                   and found_in(pats["obey"], search.raw))
        signals = _signals(search, norm, search.raw)
        if signals is None:
            continue  # (what _judge would say: nothing)
        judged = _judge(_hits(norm, signals, unquoted, raw=search.raw), norm)
        if judged is None:
            continue
        pos, named, high = judged
        confidence = "high" if high or view.hidden else "medium"
        finding = InjectionFinding(view.offset, named, confidence, view.name)
        if confidence == "high":
            return finding
        best = best or finding
    return best


class _Found:
    """A kind's matches found once (:func:`_signals`), handed to :func:`_hits` as
    :meth:`_Parts.spans` would give them."""

    __slots__ = ("found",)

    def __init__(self, found: list[tuple[int, int]]) -> None:
        self.found = found

    def spans(self, text: str, raw: bytes) -> list[tuple[int, int]]:
        return self.found


#: ``False``: :func:`_signals` never answers early (what the tests compare with)
JUDGE_FIRST = True


def _signals(search: _Search, norm: str, raw: bytes) -> dict[str, Any] | None:
    """``search.signals()``, or ``None`` when they cannot make a finding: :func:`_judge` of
    every match of every kind, none excused and none left out for being near another of its
    kind, finds nothing.  :func:`_hits` keeps a subset of those matches (it only drops
    some), and a finding of a subset is one of the whole (a kind beside more kinds is
    supported at least as well, and a send beside more secrets carries one at least as
    often, :func:`_combine`), so the view has no finding; the excuses (a sentence read
    back, two patterns, about 25 us a match) are never asked.  Most views it answers are
    long prompts naming tokens and keys here and there and saying "send" far from them.
    Otherwise each kind's matches found here are handed on, not searched again."""
    signals = search.signals()
    if not (JUDGE_FIRST and PREFILTER):
        return signals
    found: dict[str, Any] = {}
    every: list[_Hit] = []
    for kind, rx in signals.items():
        spans = list(rx.spans(norm, raw))
        found[kind] = _Found(spans)
        every.extend((start, kind, end) for start, end in spans)
    if len(every) > _JUDGE_FIRST_MOST:
        return found  # (a text repeating a phrase: _judge reads a window around each match)
    return found if _judge(every, norm) is not None else None


#: the matches :func:`_signals` judges at most (past it, :func:`_hits` keeps one sign of a
#: kind per :data:`_SPACING` characters first, which bounds what :func:`_judge` reads)
_JUDGE_FIRST_MOST = 1000


def _squeezed_finding(text: str, norm: str, first: bytes, pats: dict[str, Any],
                      spread: bool | None = None) -> InjectionFinding | None:
    """Spelled out letter by letter, split inside words or written with leet digits: found
    only with the letters of the text view ``norm`` (``first``: its UTF-8) squeezed
    together, so disguised.  ``spread``: whether the spread pattern matches ``first``, when
    that was asked ahead (``None``: not asked)."""
    if spread is False:
        return None  # (asked ahead, as below)
    # asked first of the text's own bytes (:func:`_spread`: the same answer) once the
    # process has read enough to pay for that pattern (:data:`SPREAD_AFTER`), then without
    # a match object: most texts have none
    if (PREFILTER and characters_read() > SPREAD_AFTER
            and not found_in(pats["spread"], first)):
        return None
    squeezed = _squeezed_bytes(norm)
    if not found_in(pats["squeezed"], squeezed):
        return None
    m = pats["squeezed"].search(squeezed)
    if m is None:
        return None
    at = _unsqueeze(norm, m.start())
    # letters spread over more than three times their number are words that happen to
    # meet (a file tree), not one phrase taken apart
    width = _unsqueeze(norm, m.end() - 1) - at
    if width <= 3 * (m.end() - m.start()) and not _excused(norm, at, "override"):
        index = _mapped(text, True)[1]
        return InjectionFinding(index[at] if at < len(index) else 0,
                                ("override",), "high", "squeezed")
    return None
