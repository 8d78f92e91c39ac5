"""The injection detector's literal prefilter: which signal pattern parts can match a text at
all, from the literals every match of a part holds (the generated table
``_injection_literals.py``, worked out by :mod:`.injection_prefilter`).

Design notes
------------
* Searching one signal part is a pass of a large automaton over the whole text (and the
  ``google-re2`` wrapper converts offsets on every call); most parts cannot match most
  prompts.  A part is searched only when the text holds one literal of each set of one of
  its clauses; a part the text cannot match is neither searched nor compiled (a small file
  compiles few or none of them).
* Which literals a text holds is found in one of two ways, with the same answer: in the
  first texts of a process (``validate one.md``: a description and a prompt), each literal
  is looked up when a clause asks for it (``in``, and a whole-word check with ``re``'s ASCII
  ``\\b``, which is RE2's); once the process has read :data:`_SET_AFTER` characters, a
  pass of each of two RE2 sets of the literals (every occurrence, overlapping ones too)
  gives them all, and the clauses are integer masks.  The literals of one or two
  characters that need not be whole words (``.``, ``@``, ``ed``...) are left out of the
  sets and looked up with ``in`` when a clause asks for one (after its other sets held):
  they match almost everywhere and slow the sets' automata down.  The look-ups cost a few
  thousand ``in`` tests a text, the sets a compilation and the building of their automata
  (once per process; two sets of neighbouring literals build fewer states on the first
  texts than one) and a pass each.
* It fails closed: a part without a known requirement (``None`` in the table) is always
  searched, and if an RE2 set cannot be built or cannot answer, the literals are looked up
  one by one.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from subagents.lint.rules._injection_literals import LITERALS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["Holds", "holds", "parts_or_holds"]

#: once the process has read this many characters, the RE2 set is compiled and read every
#: text from then on; until then each literal is looked up when a clause asks for it
_SET_AFTER = 12_000
#: literals (not whole words) of fewer UTF-8 bytes than this are left out of the RE2 sets and
#: looked up (``in``) when a clause asks for one: on 638 corpus texts one set without them
#: reads a text in about half the time of three sets of every literal; leaving out longer
#: ones too (``send``, ``.env``) makes the sets faster still but the look-ups cost more
_SHORT = 3
#: the literals are split into this many RE2 sets (see :meth:`_Table.compiled_sets`; callgrind,
#: 593 corpus prompts in a fresh process and 100 warm: one set 6,658 M and 630 M, two 5,963 M
#: and 638 M, three 5,884 M and 650 M)
_SETS = 2
#: ask Hyperscan first where it is installed (:mod:`.injection_scan`); ``False``: never (the
#: tests compare the tiers)
SCAN = True

#: a literal set as the bits of its literals in the set, and the literals looked up instead
_Need = tuple[int, tuple[str, ...]]


def _short(literal: str) -> bool:
    return literal[:1] != "\0" and len(literal.encode()) < _SHORT


class _Table:
    """The literal table as masks, and the RE2 set of its longer literals: built when the
    process has read enough text to pay for it (the look-ups read the generated table as it
    is)."""

    def __init__(self) -> None:
        literals = sorted({x for v in LITERALS.values() if v for c in v for s in c for x in s
                           if not _short(x)})
        self.literals = literals
        index = {x: i for i, x in enumerate(literals)}
        # each clause's sets longest literals first (rarer: a clause that fails mostly fails
        # at its first set), each as the bit mask of its literals in the set and the short
        # literals it also accepts; and before them the union of the first sets of all
        # clauses when none of those holds a short literal: a text without one of those fails
        # every clause (one test rejects most parts)
        self.masks: dict[str, tuple[int | None, tuple[tuple[_Need, ...], ...]] | None] = {}
        for name, v in LITERALS.items():
            if v is None:
                self.masks[name] = None
                continue
            ordered = tuple(tuple(
                (sum(1 << index[x] for x in s if not _short(x)),
                 tuple(x for x in s if _short(x)))
                for s in sorted(c, key=lambda s: (any(map(_short, s)),
                                                  -min(len(x.lstrip("\0")) for x in s))))
                for c in v)
            first: int | None = 0
            for c in ordered:
                if c[0][1] or first is None:
                    first = None
                else:
                    first |= c[0][0]
            self.masks[name] = (first, ordered)
        # (first index, count, the RE2 set's match on bytes)
        self.sets: list[tuple[int, int, Any]] | None = None
        self.sets_failed = False
        # each literal's bit, by its index in its set (the last index: the pattern every
        # text matches, no literal)
        self.bits = [1 << i for i in range(len(literals))]

    def compiled_sets(self) -> list[tuple[int, int, Any]] | None:
        """The literals in :data:`_SETS` RE2 sets of neighbours in sorted order (sharing
        prefixes): the automaton of one set of all of them has to build more states (a state
        is where the text stands in every literal at once) on the first texts."""
        if self.sets is None and not self.sets_failed:
            try:
                import re2  # type: ignore[import-untyped]

                options = re2.Options()
                options.case_sensitive = True
                options.log_errors = False
                options.max_mem = 64 << 20
                sets = []
                count = len(self.literals)
                for k in range(_SETS):
                    first, stop = k * count // _SETS, (k + 1) * count // _SETS
                    found = re2.Set.SearchSet(options)
                    for x in self.literals[first:stop]:
                        found.Add(r"\b" + re2.escape(x[1:]) + r"\b" if x[:1] == "\0"
                                  else re2.escape(x))
                    found.Add(r"\A")  # matches every text: says the set could answer
                    found.Compile()
                    # the wrapper's own ``Match`` takes only str and re-encodes it; its
                    # compiled set takes the bytes we already have.  A google-re2 without
                    # that attribute fails here, and the literals are looked up one by one
                    sets.append((first, stop - first, found._set.Match))
                self.sets = sets
            except Exception:  # fail closed: the literals are looked up one by one
                self.sets_failed = True
        return self.sets


_BUILT: list[_Table] = []  # the table, once built
#: :func:`.injection_scan.scanner`, once imported
_SCANNER: list[Callable[[int], Callable[[bytes], frozenset[str] | None] | None]] = []
_READ = [0]  # characters read so far (for when to build the table and compile the sets)


def _table() -> _Table:
    if not _BUILT:
        _BUILT.append(_Table())
    return _BUILT[0]


@functools.lru_cache(maxsize=512)
def _whole_word(word: str) -> Any:
    return re.compile(r"\b" + re.escape(word) + r"\b", re.A)


_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
#: occurrences checked by hand before the pattern is asked (a hostile text may hold a word
#: a million times, never whole)
_BY_HAND = 8


def has_whole_word(word: str, text: str) -> bool:
    """Does ``text`` hold ``word`` between word boundaries (``\\bword\\b`` with ASCII word
    characters)?  The first occurrences are checked by hand: a file's first texts ask about
    a few dozen words, and compiling a pattern for each cost more than the rest of the
    look-up (tests/test_injection_gate_loops.py compares with the pattern)."""
    if not word:
        return _whole_word(word).search(text) is not None
    size = len(word)
    starts_word = word[0] in _WORD_CHARS
    ends_word = word[-1] in _WORD_CHARS
    end = len(text)
    at = text.find(word)
    for _ in range(_BY_HAND):
        if at < 0:
            return False
        after = at + size
        if ((at > 0 and text[at - 1] in _WORD_CHARS) != starts_word
                and (after < end and text[after] in _WORD_CHARS) != ends_word):
            return True
        at = text.find(word, at + 1)
    return at >= 0 and _whole_word(word).search(text, at) is not None


class Holds:
    """Which signal parts can match one text (``allows(name)``)."""

    __slots__ = ("_known", "_mask", "_parts", "_table", "_text")

    def __init__(self, text: str, data: bytes | None = None, lazy: bool = False,
                 force_set: bool = False) -> None:
        self._table: _Table | None = None
        self._text = text
        self._mask: int | None = None
        self._parts: frozenset[str] | None = None
        self._known: dict[str, bool] = {}
        if lazy:
            return
        _READ[0] += len(text)
        if not force_set:
            # Hyperscan, where it is installed and its database at hand: which parts may
            # match, in one pass (:mod:`.injection_scan`)
            self._parts = _scanned(text if data is None else data)
            if self._parts is not None:
                return
        self._use_sets(data, force_set)

    @classmethod
    def scanned(cls, text: str, parts: frozenset[str]) -> Holds:
        """The gate of ``text`` when Hyperscan named ``parts`` (from :func:`parts_or_holds`;
        nothing counted again)."""
        gate = cls(text, lazy=True)
        gate._parts = parts
        return gate

    def _use_sets(self, data: bytes | None, force_set: bool) -> None:
        """The RE2 sets' answer, once the process has read enough to build them (else the
        literals are looked up one by one when asked)."""
        text = self._text
        if force_set or _BUILT or _READ[0] > _SET_AFTER:
            table = _table()
            sets = table.compiled_sets()
            if sets is not None:
                raw = text.encode() if data is None else data
                mask = 0
                bits = table.bits
                for first, count, match in sets:
                    found = match(raw)
                    # the last pattern matches every text: without it the set could not
                    # answer (out of memory), and the literals are looked up one by one
                    if not found or count not in found:
                        return
                    found.remove(count)
                    # distinct indices, distinct bits: their sum is their union (in C)
                    mask |= sum(map(bits.__getitem__, found)) << first
                self._mask = mask
                self._table = table

    @property
    def uses_set(self) -> bool:
        """Did the RE2 set answer (else the literals are looked up one by one)?"""
        return self._mask is not None

    def _has(self, literal: str) -> bool:
        known = self._known.get(literal)
        if known is None:
            if literal[:1] == "\0":
                word = literal[1:]
                known = has_whole_word(word, self._text)
            else:
                known = literal in self._text
            self._known[literal] = known
        return known

    def meets(self, clauses: tuple[tuple[tuple[str, ...], ...], ...] | None) -> bool:
        """Does the text hold what ``clauses`` (a requirement as in the literal table;
        ``None``: nothing known) need?  Each literal looked up (for :mod:`.injection_alts`)."""
        return clauses is None or self._meets(clauses)

    def _meets(self, clauses: tuple[tuple[tuple[str, ...], ...], ...]) -> bool:
        """``any(all(any(has(x) for x in s) for s in clause) for clause in clauses)`` as
        plain loops: the lazy gate asks this of every part for a file's first texts, and
        three generators per clause were most of its cost (tests/test_injection_gate_loops.py
        compares the two)."""
        known = self._known
        for clause in clauses:
            for options in clause:
                for x in options:
                    found = known.get(x)
                    if found is None:
                        found = self._has(x)
                    if found:
                        break
                else:
                    break  # none of these literals: this clause fails
            else:
                return True
        return False

    @property
    def uses_scan(self) -> bool:
        """Did Hyperscan answer?"""
        return self._parts is not None

    @property
    def parts(self) -> frozenset[str] | None:
        """The parts Hyperscan says may match (every part that does is among them), or
        ``None`` when it did not answer."""
        return self._parts

    def allows(self, name: str) -> bool:
        """Can part ``name`` (``kind.n``, or ``squeezed``) match the text?"""
        if self._parts is not None:
            return name in self._parts
        mask = self._mask
        if mask is not None and self._table is not None:
            entry = self._table.masks[name]
            if entry is None:
                return True
            first, masks = entry
            if first is not None and not first & mask:
                return False
            has = self._has
            for clause in masks:
                for m, short in clause:
                    if not (m & mask or (short and any(has(x) for x in short))):
                        break
                else:
                    return True
            return False
        clauses = LITERALS[name]
        return clauses is None or self._meets(clauses)


def _scanned(text: str | bytes) -> frozenset[str] | None:
    """Hyperscan's answer for ``text`` (its UTF-8, or the text itself to encode), once the
    process has read enough for its database (:data:`_READ` counts what was read before);
    ``None`` before that, without the wheel, or when the scan fails."""
    scan = _scanner()
    if scan is None:
        return None
    return scan(text.encode() if isinstance(text, str) else text)


def _scanner() -> Callable[[bytes], frozenset[str] | None] | None:
    """Hyperscan's scanner, once the process has read enough for its database; ``None``
    before that, or without the wheel."""
    if not (SCAN and _READ[0] > _SET_AFTER):
        return None
    if not _SCANNER:  # imported once, not per text
        from subagents.lint.rules.injection_scan import scanner

        _SCANNER.append(scanner)
    return _SCANNER[0](_READ[0])


def parts_or_holds(text: str, data: bytes) -> frozenset[str] | Holds:
    """``holds(text, data)``, but Hyperscan's answer as it is when it gives one: the parts
    that may match, without a :class:`Holds` around them (most texts need nothing more; the
    detector wraps them with :meth:`Holds.scanned` only when it asks further)."""
    _READ[0] += len(text)
    parts = _scanned(data)
    if parts is not None:
        return parts
    return _unscanned(text, data)


def _unscanned(text: str, data: bytes) -> Holds:
    gate = Holds(text, data, lazy=True)
    gate._use_sets(data, False)
    return gate


def all_parts_or_holds(texts: list[str], datas: list[bytes]) -> list[frozenset[str] | Holds]:
    """``parts_or_holds`` of each text and its UTF-8, but every text counted first: the
    texts are a chunk's, read together (:mod:`.injection_ahead`), so the tier that pays for
    all of them answers from the first (counted text by text, the first texts of a process
    were each gated by looking their literals up one by one, then judged in full: about
    25 ms for the first ten texts of a cold run on 2,000 files).  The counts say only when a
    tier's set-up pays, never what is found.  Once Hyperscan answers, its scanner is asked
    directly (the checks of :func:`_scanned` once, not per text)."""
    _READ[0] += sum(map(len, texts))
    out: list[frozenset[str] | Holds] = []
    scan = _scanner() if texts else None
    for text, data in zip(texts, datas, strict=True):
        parts = scan(data) if scan is not None else None
        out.append(parts if parts is not None else _unscanned(text, data))
    return out


def holds(text: str, data: bytes | None = None, lazy: bool = False) -> Holds:
    """The prefilter's answer for ``text`` (``data``: its UTF-8 bytes, when at hand;
    ``lazy``: look each literal up when asked, never the RE2 set: for a text few parts are
    asked about)."""
    return Holds(text, data, lazy)
