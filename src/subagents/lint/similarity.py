"""Words of an agent's description: tokens, stems, and how alike two descriptions are.

The router (which agent fits a request) and the "descriptions too alike" rule (a model cannot
choose between two agents) must read descriptions the same way, so both use this module:
:func:`tokenize` lower-cases, keeps joined words (``node.js``, ``spring-boot``) and their parts,
drops stop words and the words every agent description has ("agent", "expert", "use"), and
stems with a small suffix table tuned on the corpus.  :func:`find_similar_agents` compares
TF-IDF vectors of the descriptions; an inverted index of the terms neither rare nor common,
with a bound for the common ones (:func:`pairs_indexed`), compares only the pairs that can
reach the threshold, so a scope of n agents costs far less than n*n/2 comparisons, with the
same pairs and scores as comparing every pair (:func:`pairs_exhaustive`, which the tests hold
it to).  The per-description work (tokens, counts, weights) runs as C loops (``map``,
``filter``, ``collections._count_elements``, bytes translated and split) over the same
operands in the same order as the plain formulas, so the floats are the same to the bit.
A scope of :data:`NATIVE_AFTER` agents or more hands the term counts of a description (its
parts, the memo of their tokens and the stemmer), the unit weights and the search for the
pairs to compare to the optional C extension (``subagents._speedups``, see
``_speedups_similar.c``): the same floats, the same pairs scored here by :func:`_cosine`
(tests/test_similarity_native.py holds the two ways equal); :func:`find_similar_agents`
then makes the unit vectors of the pairs found only.  The Python loops stay for a small
scope, an install without the extension and ``SUBAGENTS_NO_EXTENSION=1``.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Iterable, Sequence
from itertools import repeat
from operator import mul, truediv

from subagents.definition import AgentDefinition

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType


def _count_in_python(mapping: dict[str, int], iterable: Iterable[str]) -> None:
    """What ``collections._count_elements`` does, for a Python that lacks it."""
    for item in iterable:
        mapping[item] = mapping.get(item, 0) + 1


try:  # the loop ``Counter`` counts with (C, in the standard library since Python 3.2)
    from collections import _count_elements  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - depends on the Python
    _count_elements = _count_in_python

__all__ = [
    "SIMILAR_THRESHOLD",
    "SPLIT_RE",
    "STOPWORDS",
    "find_similar_agents",
    "pairs_exhaustive",
    "pairs_indexed",
    "stem",
    "tokenize",
    "words",
]

STOPWORDS: frozenset[str] = frozenset(
    """
    a about above after again against all also am an and any are as at be because been before
    being below between both but by can could did do does doing down during each etc few for
    from further had has have having he her here hers him his how i if in into is it its itself
    just let like me more most my myself no nor not now of off on once only or other our ours out
    over own same she should so some such than that the their theirs them then there these they
    this those through to too under until up very was we were what when where which while who
    whom why will with would you your yours yourself yourselves ll ve re
    agent agents subagent use used using uses expert experts specialist specialists proactively
    proactive help helps please want need needs task tasks assistant user example examples
    commentary context e g eg ie invoke invoked launch call must should whenever s t m ll d
    may might say says said get gets got getting keep keeps kept make makes made go goes going
    went gone take takes took taking show shows showing shown thing things someone something
    anything everything nobody anybody everybody anyone everyone really still even much many
    lot lots sure ok okay know think seem seems tell give gives put come comes
    """.split()  # noqa: SIM905 - a word list reads better as text
)

# Names that punctuation would otherwise destroy.
_SPECIAL = [
    (re.compile(r"c\+\+", re.I), " cpp "),
    (re.compile(r"(?<![a-z0-9])c#", re.I), " csharp "),
    (re.compile(r"f#", re.I), " fsharp "),
    (re.compile(r"(?<![a-z0-9])\.net\b", re.I), " dotnet "),
    (re.compile(r"asp\.net", re.I), " aspnet "),
]
# A word: letters/digits, possibly joined by '.', '-', '_' or '/' (node.js, spring-boot).
WORD_RE = re.compile(r"[a-z0-9]+(?:[._/-][a-z0-9]+)*")
SPLIT_RE = re.compile(r"[._/-]")

_SUFFIXES: tuple[tuple[str, str], ...] = (
    ("izations", "ize"),
    ("ization", "ize"),
    # -ation, -ate, -ating, -ator all fold to one root (compilation/compile/compiling ->
    # compil; automation/automate/automated -> autom), else "compiling takes 25 minutes" misses
    # an agent about "compilation times".
    ("ational", ""),
    ("ations", ""),
    ("ation", ""),
    ("ators", ""),
    ("ator", ""),
    ("ating", ""),
    ("ated", ""),
    ("ates", ""),
    ("ate", ""),
    ("ments", ""),
    ("ment", ""),
    ("ings", ""),
    ("ing", ""),
    ("ities", ""),
    ("ity", ""),
    ("ers", ""),
    ("er", ""),
    ("ies", "y"),
    ("ied", "y"),
    ("ed", ""),
    ("es", ""),
    ("s", ""),
)

_ANY_SUFFIX = tuple(suffix for suffix, _repl in _SUFFIXES)


def _by_tail(
) -> tuple[dict[str, tuple[tuple[str, str], ...]], dict[str, tuple[tuple[str, str], ...]]]:
    """The entries of the table (in its order) a word can end with, by its last two letters
    (every suffix of two letters or more ends with its own last two; a one-letter suffix
    with any two ending in it), and by its last letter for two letters listed under none."""
    tails: dict[str, list[int]] = {}
    lasts: dict[str, list[int]] = {}
    for place, (suffix, _repl) in enumerate(_SUFFIXES):
        if len(suffix) >= 2:
            tails.setdefault(suffix[-2:], []).append(place)
        else:
            lasts.setdefault(suffix, []).append(place)
    for tail, places in tails.items():
        places.extend(lasts.get(tail[-1], ()))
        places.sort()

    def entries(places: list[int]) -> tuple[tuple[str, str], ...]:
        return tuple(_SUFFIXES[place] for place in places)

    return ({tail: entries(places) for tail, places in tails.items()},
            {last: entries(places) for last, places in lasts.items()})


# :func:`_strip` tries those few entries (one to five) instead of every entry
_BY_TAIL, _BY_LAST = _by_tail()


def _strip(word: str) -> str | None:
    """The base left by the first suffix of the table (in its order) that ``word`` ends
    with and that leaves at least three letters and a change; None if there is none.  The
    same answer as trying every suffix in turn (tests hold the stemmer to that): the entries
    a word can end with are those listed for its last two letters, in the table's order."""
    found = _BY_TAIL.get(word[-2:])
    for suffix, repl in found if found is not None else _BY_LAST.get(word[-1:], ()):
        if word.endswith(suffix):
            base = word[:-len(suffix)] + repl
            if len(base) >= 3 and base != word:
                return base
    return None


def _stem(word: str) -> str:
    """A light, consistent suffix stripper (``testing``/``tests``/``tester`` -> ``test``)."""
    if len(word) <= 3 or not word.isalpha():
        return word
    # Two passes, so derived forms meet their root: implementer -> implement -> impl, the same
    # stem as "implement" (else a request to "implement" misses the implementer agent's name).
    for _ in range(2):
        if not word.endswith(_ANY_SUFFIX):  # (no suffix at all: the usual case, in C)
            break
        base = _strip(word)
        if base is None:
            break
        word = base
    # Fold a final silent 'e' (secure/securing -> secur) and doubled consonants (running).
    if len(word) > 4 and word.endswith("e"):
        word = word[:-1]
    if len(word) > 4 and word[-1] == word[-2] and word[-1] not in "lsz":
        word = word[:-1]
    return word


stem = functools.lru_cache(maxsize=65536)(_stem)


def _special(low: str) -> str:
    """``low`` with the names of :data:`_SPECIAL` replaced.  A pattern is tried only when the
    text holds the literal every match of it contains (the lower-cased text never matches
    otherwise), in the table's order: most descriptions hold none of them."""
    if "++" in low:
        low = _SPECIAL[0][0].sub(_SPECIAL[0][1], low)
    if "#" in low:
        for pattern, repl in _SPECIAL[1:3]:
            low = pattern.sub(repl, low)
    if ".net" in low:
        for pattern, repl in _SPECIAL[3:]:
            low = pattern.sub(repl, low)
    return low


def words(text: str) -> list[str]:
    return WORD_RE.findall(_special(text.lower()))


# The parts of the words (what WORD_RE matches, split at SPLIT_RE) are exactly the runs of
# letters and digits: a match never ends inside a run and separators are not in a run.
_PART_RE = re.compile(r"[a-z0-9]+")
# The same runs found without the regular expression (:func:`_parts`): every byte that is
# not an ASCII letter or digit made a space.  Lower-case text has no A-Z, and a code point
# beyond ASCII is never in [a-z0-9] (it is encoded as "?", a separator, like the rest).
_SEPARATORS = bytes(c if 48 <= c <= 57 or 97 <= c <= 122 else 32 for c in range(256))
# part -> its token ("" for a stop word), for :func:`_description_tokens`; bounded
_TOKENS: dict[str, str] = {}
_TOKENS_MAX = 65536


def _parts(low: str) -> list[str]:
    """``_PART_RE.findall(low)`` for lower-cased ``low``, by C loops over bytes (about twice
    as fast; tests hold the two equal on any text)."""
    return low.encode("ascii", "replace").translate(_SEPARATORS).decode("ascii").split()


def _description_tokens(text: str) -> list[str]:
    """``tokenize(text, joined=False)`` without building the joined words it then drops: the
    stemmed parts that are not stop words (tests hold the two equal), listed by loops in C:
    each part mapped to its token through the memo, stop words (``""``) dropped.  A token
    is never empty (a part is not, and :func:`stem` keeps at least three letters), so
    ``filter(None, ...)`` drops exactly the stop words.  The memo is asked first as if it
    knew every part (a description's words are mostly known after the first few); when it
    does not, the parts it lacks are added (a set difference) and the lookup starts again."""
    parts = _parts(_special(text.lower()))
    known = _TOKENS
    try:
        return list(filter(None, map(known.__getitem__, parts)))
    except KeyError:
        pass
    new = set(parts).difference(known)
    if len(known) + len(new) > _TOKENS_MAX:
        known.clear()
        new = set(parts)
    # (the stemmer itself, not its cache: a part new to this memo is mostly new to it too)
    stem_of = _stem
    for part in new:
        known[part] = "" if part in STOPWORDS else stem_of(part)
    return list(filter(None, map(known.__getitem__, parts)))


def tokenize(text: str, *, joined: bool = True) -> list[str]:
    """Stemmed tokens of ``text`` (stop words dropped), with joined forms of compound words."""
    out: list[str] = []
    for word in words(text):
        parts = [p for p in SPLIT_RE.split(word) if p]
        for part in parts:
            # Single letters stay: ``c-expert`` and "my C program" must meet (R, C, D too).
            if part not in STOPWORDS:
                out.append(stem(part))
        if joined and len(parts) > 1:
            whole = "".join(parts)
            if whole not in STOPWORDS:
                out.append(whole)
    return out


# --------------------------------------------------------------------------- similarity

#: a scope of this many vectors or more is weighed and paired by the C extension (when built):
#: loading it costs more than it saves on a few agents
NATIVE_AFTER = 16
#: the C extension's module once asked for (None: not built, or switched off by
#: ``SUBAGENTS_NO_EXTENSION``); empty until a scope first needs it
_NATIVE: list[ModuleType | None] = []


def _native(size: int) -> ModuleType | None:
    """The C extension, for a scope of ``size`` vectors: None (the Python loops) for a
    small scope, when it is not built or when ``SUBAGENTS_NO_EXTENSION`` asks for Python."""
    if _NATIVE:
        return _NATIVE[0]
    if size < NATIVE_AFTER:
        return None
    from subagents._native import speedups

    native = speedups()  # (None: the Python loops answer)
    _NATIVE.append(native)
    return native


class _TfTable(dict[int, float]):
    """count -> ``1 + log count``, each worked out when first asked for."""

    def __missing__(self, count: int) -> float:
        value = self[count] = 1 + math.log(count)
        return value


_TF = _TfTable()

# description -> its term counts (in the order the terms first come) and whether no term is
# counted twice, for :func:`_weigh`: a description met again (the same agent in several scopes,
# a folder copied) is not tokenised again; bounded, emptied when full like the token memo
_COUNTS: dict[str, tuple[dict[str, int], bool]] = {}
_COUNTS_MAX = 4096


def _counted_in_c(text: str) -> tuple[dict[str, int], bool]:
    """What :func:`_weigh` keeps in :data:`_COUNTS` for ``text`` (its counts and whether no
    term is counted twice), found by the C extension (the same counts, in the same order);
    :func:`_weigh`'s loop in C calls it for a text the memo lacks."""
    native = _NATIVE[0]
    assert native is not None
    found: tuple[dict[str, int], bool] = native.similar_counts(
        _special(text.lower()), _TOKENS, STOPWORDS, _TOKENS_MAX)
    if len(_COUNTS) >= _COUNTS_MAX:
        _COUNTS.clear()
    _COUNTS[text] = found
    return found


def _idf_table(n: int, df: dict[str, int]) -> list[float]:
    """document frequency -> its idf ``log((1 + n) / (1 + df) + 1)``, for ``n`` texts."""
    return [math.log((1 + n) / (1 + c) + 1) for c in range(max(df.values(), default=0) + 1)]


def _weigh(texts: Sequence[str]) -> tuple[list[dict[str, float]], dict[str, int]]:
    """The unit TF-IDF vectors of ``texts`` and each term's document frequency.

    A weight is ``(1 + log count) * log((1 + n) / (1 + df) + 1)``, divided by the norm of
    its vector (the square root of the sum of the squares, in the vector's order): the same
    operations on the same operands in the same order as the formula written out term by
    term (tests hold the floats equal), but looped over in C (``map`` over ``operator.mul``,
    ``operator.truediv`` and the tables' ``__getitem__``) rather than in Python
    comprehensions, with each logarithm worked out once per count (the idf once per document
    frequency, looked up through the frequency).  A description's counts are kept for the
    process (:data:`_COUNTS`): one met again is not tokenised or counted again.
    """
    # counted as a Counter counts (its own counting loop, in C: the same counts in the same
    # order), without a Counter's set-up and type checks per description
    docs: list[dict[str, int]] = []
    # per description: is every count 1 (no term twice)?
    once: list[bool] = []
    df: dict[str, int] = {}
    memo = _COUNTS
    native = _native(len(texts))
    if native is not None:  # the same loop in C, the same counts from _counted_in_c
        docs, once, df = native.similar_docs(
            texts if type(texts) is list else list(texts), memo, _counted_in_c)
    else:
        for text in texts:
            found = memo.get(text)
            if found is None:
                d: dict[str, int] = {}
                tokens = _description_tokens(text)
                _count_elements(d, tokens)
                found = (d, len(d) == len(tokens))
                if len(memo) >= _COUNTS_MAX:
                    memo.clear()
                memo[text] = found
            d = found[0]
            docs.append(d)
            once.append(found[1])
            _count_elements(df, d)
    idf_of = _idf_table(len(docs), df)
    if native is not None:  # the same floats, the loop below in C
        return native.similar_unit(docs, once, df, idf_of, _TF), df
    tf_of, idf_at, df_get = _TF.__getitem__, idf_of.__getitem__, df.__getitem__
    vectors: list[dict[str, float]] = []
    for d, single in zip(docs, once, strict=True):
        # a count of 1 weighs 1 + log 1 = 1.0 exactly, and 1.0 * x is x to the bit: a
        # description with no term twice (two in five) has its idf as its weights
        weights = (list(map(idf_at, map(df_get, d))) if single else
                   list(map(mul, map(tf_of, d.values()), map(idf_at, map(df_get, d)))))
        norm = math.sqrt(sum(map(mul, weights, weights))) or 1.0
        # a new dictionary of the unit weights, the counts' keys in their order (the counts
        # stay in the memo as they are)
        vectors.append(dict(zip(d, map(truediv, weights, repeat(norm)), strict=True)))
    return vectors, df


def _tfidf_vectors(texts: Sequence[str]) -> list[dict[str, float]]:
    """The unit TF-IDF vectors of ``texts`` (see :func:`_weigh`)."""
    return _weigh(texts)[0]


# Calibrated on real collections (bench/bench_route.py does not assert it; tests do): at 0.5
# the VoltAgent collection (158 agents) gives 7 pairs, all genuinely overlapping roles or
# copied descriptions (mobile-developer/mobile-app-developer, deployment-engineer/
# devops-engineer, csharp-developer/dotnet-core-expert, ai-engineer/license-engineer...),
# 0xfurai (137) one (postgres-expert/sql-expert), and the demo project none (its closest pair
# is 0.34).  The first value, 0.8, never fired on any collection of the corpus.
SIMILAR_THRESHOLD = 0.5


def _cosine(vi: dict[str, float], vj: dict[str, float]) -> float:
    """The dot product of two unit vectors, summed over the shorter one (in its order: the
    exhaustive and the indexed pairing add the same numbers in the same order)."""
    small, big = (vi, vj) if len(vi) < len(vj) else (vj, vi)
    # a term missing from ``big`` adds +0.0, which leaves a sum of non-negative terms as it
    # is: skipping it gives the same number
    return sum([v * big[t] for t, v in small.items() if t in big], 0.0)


def pairs_exhaustive(
    vectors: Sequence[dict[str, float]], names: Sequence[str], threshold: float
) -> list[tuple[int, int, float]]:
    """Every pair ``i < j`` compared: the reference the indexed pairing must equal."""
    out: list[tuple[int, int, float]] = []
    for i, vi in enumerate(vectors):
        if not vi:
            continue
        for j in range(i + 1, len(vectors)):
            if names[i] == names[j]:
                continue
            sim = _cosine(vi, vectors[j])
            if sim >= threshold:
                out.append((i, j, round(sim, 4)))
    return out


# Slack on the prefix bound, far above the rounding of a sum of a few hundred products.
_BOUND_SLACK = 1e-9


def pairs_indexed(
    vectors: Sequence[dict[str, float]], names: Sequence[str], threshold: float
) -> list[tuple[int, int, float]]:
    """:func:`pairs_exhaustive`, comparing only the pairs that can reach ``threshold``.

    The terms held by many vectors (at least a tenth of them) are *common*; those held by
    one are never shared; the others are *middling*.  ``h(x)``, the norm of ``x`` over its
    common terms, bounds what they add to any score: ``x . y <= (x . y over the middling
    terms) + h(x) h(y)`` (Cauchy-Schwarz), and ``h(x) h(y) <= h(x) |y| < threshold`` when
    ``h(x) < threshold`` (the vectors are of norm 1, to the last bit or so).  So a pair that
    can reach ``threshold`` shares a middling term, unless both vectors are *heavy*
    (``h >= threshold``): every vector is indexed by its middling terms and probes that
    index with them; heavy vectors are also indexed by their common terms, and probe that
    second index, which holds only heavy vectors.  A pair that is never met cannot be
    reported.  Common words (``develop``, ``code``) carry little weight, stay out of the
    first index and are rarely walked: the cost follows the pairs that share a less common
    word, not the square of the scope.  Finding each vector's middling and common terms is
    a set intersection (in C), not a sort.

    A pair met is compared only if a bound on its score can reach ``threshold``: the probe
    adds up the score over the middling terms on the way (and over the common ones, for
    two heavy vectors: then nothing is left out), the rest is at most ``h(x) h(y)``.  The
    bound is rounded differently from the score; the slack is far above that, so a pair it
    drops is one the exact score drops too.  The pairs kept are scored by :func:`_cosine`,
    as the exhaustive loop scores them.
    """
    df: dict[str, int] = {}
    for vec in vectors:
        _count_elements(df, vec)
    return _pairs(vectors, names, threshold, df)


def _pairs(vectors: Sequence[dict[str, float]], names: Sequence[str], threshold: float,
           df: dict[str, int]) -> list[tuple[int, int, float]]:
    """:func:`pairs_indexed`, given the number of ``vectors`` holding each term."""
    if threshold <= _BOUND_SLACK:  # every pair can reach it: nothing to filter
        return pairs_exhaustive(vectors, names, threshold)
    # (any split of the terms is exact; a tenth of the scope walked least on the corpus and
    # on the bench trees)
    cut = max(2, len(vectors) // 10)
    native = _native(len(vectors))
    if native is not None:  # the same pairs met and bounded, in C
        return _scored(vectors, names, threshold, native.similar_candidates(
            list(vectors), df, threshold - _BOUND_SLACK, cut))
    common = {t for t, c in df.items() if c >= cut}
    middling = {t for t, c in df.items() if 2 <= c < cut}
    reach = threshold - _BOUND_SLACK
    # middling term -> (vector, its weight there) of every vector holding it; common term ->
    # the same of the heavy vectors
    index: dict[str, list[tuple[int, float]]] = {}
    heavy_index: dict[str, list[tuple[int, float]]] = {}
    # per vector: its norm over its common terms
    h: list[float] = [0.0] * len(vectors)
    candidates: list[tuple[int, int]] = []
    for j, vec in enumerate(vectors):
        if not vec:
            continue
        terms = vec.keys()
        mine = terms & common
        ws = list(map(vec.__getitem__, mine))
        h[j] = hj = math.sqrt(sum(map(mul, ws, ws)))
        # partial[i]: the dot product of vectors i and j over the terms walked, in the order
        # they come (a bound's sum: its rounding is covered by the slack).  The probes of
        # the two indexes are written out here, not called (a call per vector and index).
        partial: dict[int, float] = {}
        get = partial.get
        for t in terms & middling:
            x = vec[t]
            found = index.get(t)
            if found is None:
                index[t] = [(j, x)]
                continue
            for i, y in found:
                partial[i] = get(i, 0.0) + x * y
            found.append((j, x))
        if hj < reach:  # not heavy: what the common terms add is at most hj * h[i]
            for i, dot in partial.items():
                if dot + hj * h[i] >= reach:
                    candidates.append((i, j))
            continue
        for t, x in zip(mine, ws, strict=True):
            found = heavy_index.get(t)
            if found is None:
                heavy_index[t] = [(j, x)]
                continue
            for i, y in found:
                partial[i] = get(i, 0.0) + x * y
            found.append((j, x))
        for i, dot in partial.items():
            hi = h[i]
            # two heavy vectors: every shared term was walked, nothing is left to bound
            if dot + (0.0 if hi >= reach else hj * hi) >= reach:
                candidates.append((i, j))
    return _scored(vectors, names, threshold, sorted(candidates))


def _scored(vectors: Sequence[dict[str, float]] | dict[int, dict[str, float]],
            names: Sequence[str], threshold: float,
            candidates: Iterable[tuple[int, int]]) -> list[tuple[int, int, float]]:
    """The ``candidates`` (sorted pairs ``i < j``) of different names that reach
    ``threshold``, scored by :func:`_cosine` as the exhaustive loop scores them."""
    out: list[tuple[int, int, float]] = []
    for i, j in candidates:
        if names[i] == names[j]:
            continue
        sim = _cosine(vectors[i], vectors[j])
        if sim >= threshold:
            out.append((i, j, round(sim, 4)))
    return out


def find_similar_agents(
    definitions: Sequence[AgentDefinition], threshold: float = SIMILAR_THRESHOLD
) -> list[tuple[AgentDefinition, AgentDefinition, float]]:
    """Pairs of agents whose descriptions are too alike for a model to choose between.

    Cosine similarity of TF-IDF vectors over the descriptions (the dispatch
    signal), highest first.  Agents with an empty description are skipped (another rule reports
    them); two definitions of the same name are not compared (shadowing is reported elsewhere).
    Only the pairs that can reach ``threshold`` are compared (:func:`pairs_indexed`).
    """
    items = [d for d in definitions if d.description.strip()]
    texts = [d.description for d in items]
    names = [d.name for d in items]
    native = _native(len(items))
    if native is not None and threshold > _BOUND_SLACK:
        # _weigh's counts, then its unit weights and _pairs's search in one pass in C, which
        # makes the unit vectors of the pairs found only (the same floats, the same pairs)
        docs, once, df = native.similar_docs(texts, _COUNTS, _counted_in_c)
        candidates, vectors = native.similar_find(
            docs, once, df, _idf_table(len(docs), df), _TF, threshold - _BOUND_SLACK,
            max(2, len(docs) // 10))
        found = _scored(vectors, names, threshold, candidates)
    else:
        vectors, df = _weigh(texts)
        found = _pairs(vectors, names, threshold, df)
    pairs = [(items[i], items[j], score) for i, j, score in found]
    pairs.sort(key=lambda p: -p[2])
    return pairs
