"""Words of an agent's description: tokens, stems, and how alike two descriptions are.

The router (which agent fits a request) and the "descriptions too alike" rule (a model cannot
choose between two agents) must read descriptions the same way, so both use this module:
:func:`tokenize` lower-cases, keeps joined words (``node.js``, ``spring-boot``) and their parts,
drops stop words and the words every agent description has ("agent", "expert", "use"), and
stems with a small suffix table tuned on the corpus.  :func:`find_similar_agents` compares
TF-IDF vectors of the descriptions; an inverted index with a prefix filter
(:func:`pairs_indexed`) compares only the pairs that can reach the threshold, so a scope of
n agents costs far less than n*n/2 comparisons, with the same pairs and scores as comparing
every pair (:func:`pairs_exhaustive`, which the tests hold it to).
"""

from __future__ import annotations

import bisect
import functools
import itertools
import math
import re
from collections.abc import Iterable, Sequence

from subagents.definition import AgentDefinition


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


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light, consistent suffix stripper (``testing``/``tests``/``tester`` -> ``test``)."""
    if len(word) <= 3 or not word.isalpha():
        return word
    # Two passes, so derived forms meet their root: implementer -> implement -> impl, the same
    # stem as "implement" (else a request to "implement" misses the implementer agent's name).
    for _ in range(2):
        if not word.endswith(_ANY_SUFFIX):  # (what the loop below finds out slowly)
            break
        for suffix, repl in _SUFFIXES:
            if word.endswith(suffix):
                base = word[: -len(suffix)] + repl
                if len(base) >= 3 and base != word:
                    word = base
                    break
        else:
            break
    # Fold a final silent 'e' (secure/securing -> secur) and doubled consonants (running).
    if len(word) > 4 and word.endswith("e"):
        word = word[:-1]
    if len(word) > 4 and word[-1] == word[-2] and word[-1] not in "lsz":
        word = word[:-1]
    return word


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
# part -> its token (None: a stop word), for :func:`_description_tokens`; bounded
_TOKENS: dict[str, str | None] = {}
_TOKENS_MAX = 65536


def _description_tokens(text: str) -> list[str]:
    """``tokenize(text, joined=False)`` without building the joined words it then drops: the
    stemmed parts that are not stop words (tests hold the two equal)."""
    known = _TOKENS
    out: list[str] = []
    for part in _PART_RE.findall(_special(text.lower())):
        if part in known:
            token = known[part]
        else:
            token = None if part in STOPWORDS else stem(part)
            if len(known) >= _TOKENS_MAX:
                known.clear()
            known[part] = token
        if token is not None:
            out.append(token)
    return out


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


def _tfidf_vectors(texts: Sequence[str]) -> list[dict[str, float]]:
    # counted as a Counter counts (its own counting loop, in C: the same counts in the same
    # order), without a Counter's set-up and type checks per description
    docs: list[dict[str, int]] = []
    df: dict[str, int] = {}
    for text in texts:
        d: dict[str, int] = {}
        _count_elements(d, _description_tokens(text))
        docs.append(d)
        _count_elements(df, d)
    n = len(docs)
    # the same expressions as term by term, each worked out once per term and per count
    idf = {t: math.log((1 + n) / (1 + c) + 1) for t, c in df.items()}
    tf = [0.0, *(1 + math.log(c) for c in range(1, 1 + max((max(d.values(), default=0)
                                                            for d in docs), default=0)))]
    vectors: list[dict[str, float]] = []
    for d in docs:
        vec = {t: tf[c] * idf[t] for t, c in d.items()}
        norm = math.sqrt(sum([v * v for v in vec.values()])) or 1.0
        vectors.append({t: v / norm for t, v in vec.items()})
    return vectors


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

    A prefix filter for cosine similarity (as in the all-pairs algorithms of Bayardo et al.):
    order the terms from the most common to the rarest and split each unit vector ``y`` into
    a prefix whose norm stays below ``threshold`` (not indexed) and the rest (indexed).  If
    ``x`` shares no indexed term of ``y``, then ``x . y = x . y_prefix <= |y_prefix| <
    threshold`` (Cauchy-Schwarz, ``|x| = 1``): the pair cannot be reported, so only pairs met
    through the index are compared, with the same arithmetic as the exhaustive loop.  Common
    words (``develop``, ``code``) carry little weight, fall in the prefixes and are never
    walked: the cost follows the pairs that share a rare word, not the square of the scope.

    A pair met through the index is compared only if a bound on its score can reach
    ``threshold``: the probe adds up ``x . y_indexed`` on the way, and the prefix of ``y``
    holds only terms commoner than its first indexed one, so ``x . y_prefix <= |x over those
    terms| * |y_prefix|``.  The bound is rounded differently from the score; the slack is far
    above that, so a pair it drops is one the exact score drops too.
    """
    if threshold <= _BOUND_SLACK:  # every pair can reach it: nothing to filter
        return pairs_exhaustive(vectors, names, threshold)
    df: dict[str, int] = {}
    for vec in vectors:
        _count_elements(df, vec)
    # most common first, ties by term (one order for every run): sorted by term, then by
    # count with a stable sort (reversed, it keeps the order of equal counts)
    rank = {t: r for r, t in enumerate(sorted(sorted(df), key=df.__getitem__, reverse=True))}
    reach = threshold - _BOUND_SLACK
    limit = reach ** 2
    # term -> (vector, its weight there) of the vectors that index it
    index: dict[str, list[tuple[int, float]]] = {}
    # per indexed vector: the rank of its first indexed term and the norm of its prefix
    first_indexed: dict[int, int] = {}
    prefix_norm: dict[int, float] = {}
    candidates: list[tuple[int, int]] = []
    for j, vec in enumerate(vectors):
        if not vec:
            continue
        terms = sorted(vec, key=rank.__getitem__)
        # the running sums of the squares, in rank order: the same additions, in the same
        # order, as adding them one by one (and never decreasing)
        upto = list(itertools.accumulate([vec[t] * vec[t] for t in terms]))
        # probe with every term of the new vector: the pair is met through an indexed term of
        # the earlier one, if it can reach the threshold at all (the sums are only bounds:
        # any order does)
        partial: dict[int, float] = {}
        for t, w in vec.items():
            found = index.get(t)
            if found:
                for i, yw in found:
                    partial[i] = partial.get(i, 0.0) + w * yw
        if partial:
            ranks = [rank[t] for t in terms]
            for i, dot in partial.items():
                k = bisect.bisect_left(ranks, first_indexed[i])
                if dot + (math.sqrt(upto[k - 1]) if k else 0.0) * prefix_norm[i] >= reach:
                    candidates.append((i, j))
        # the prefix: the terms before the first running sum that reaches the limit
        k = bisect.bisect_left(upto, limit)
        if k < len(terms):
            first_indexed[j] = rank[terms[k]]
            prefix_norm[j] = math.sqrt(upto[k - 1]) if k else 0.0
            for u in terms[k:]:
                index.setdefault(u, []).append((j, vec[u]))
    out: list[tuple[int, int, float]] = []
    for i, j in sorted(candidates):
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
    vectors = _tfidf_vectors([d.description for d in items])
    found = pairs_indexed(vectors, [d.name for d in items], threshold)
    pairs = [(items[i], items[j], score) for i, j, score in found]
    pairs.sort(key=lambda p: -p[2])
    return pairs
