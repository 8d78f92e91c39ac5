"""Words of an agent's description: tokens, stems, and how alike two descriptions are.

The router (which agent fits a request) and the "descriptions too alike" rule (a model cannot
choose between two agents) must read descriptions the same way, so both use this module:
:func:`tokenize` lower-cases, keeps joined words (``node.js``, ``spring-boot``) and their parts,
drops stop words and the words every agent description has ("agent", "expert", "use"), and
stems with a small suffix table tuned on the corpus.  :func:`find_similar_agents` compares
TF-IDF vectors of the descriptions.
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from collections.abc import Sequence

from subagents.definition import AgentDefinition

__all__ = [
    "SIMILAR_THRESHOLD",
    "SPLIT_RE",
    "STOPWORDS",
    "find_similar_agents",
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


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light, consistent suffix stripper (``testing``/``tests``/``tester`` -> ``test``)."""
    if len(word) <= 3 or not word.isalpha():
        return word
    # Two passes, so derived forms meet their root: implementer -> implement -> impl, the same
    # stem as "implement" (else a request to "implement" misses the implementer agent's name).
    for _ in range(2):
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


def words(text: str) -> list[str]:
    low = text.lower()
    for pattern, repl in _SPECIAL:
        low = pattern.sub(repl, low)
    return WORD_RE.findall(low)


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
    docs = [Counter(tokenize(t, joined=False)) for t in texts]
    n = len(docs)
    df: Counter[str] = Counter()
    for d in docs:
        df.update(d.keys())
    vectors: list[dict[str, float]] = []
    for d in docs:
        vec = {t: (1 + math.log(c)) * math.log((1 + n) / (1 + df[t]) + 1) for t, c in d.items()}
        norm = math.sqrt(sum(v * v for v in vec.values())) or 1.0
        vectors.append({t: v / norm for t, v in vec.items()})
    return vectors


# Calibrated on real collections (bench/bench_route.py does not assert it; tests do): at 0.5
# the VoltAgent collection (158 agents) gives 7 pairs, all genuinely overlapping roles or
# copied descriptions (mobile-developer/mobile-app-developer, deployment-engineer/
# devops-engineer, csharp-developer/dotnet-core-expert, ai-engineer/license-engineer...),
# 0xfurai (137) one (postgres-expert/sql-expert), and the demo project none (its closest pair
# is 0.34).  The first value, 0.8, never fired on any collection of the corpus.
SIMILAR_THRESHOLD = 0.5


def find_similar_agents(
    definitions: Sequence[AgentDefinition], threshold: float = SIMILAR_THRESHOLD
) -> list[tuple[AgentDefinition, AgentDefinition, float]]:
    """Pairs of agents whose descriptions are too alike for a model to choose between.

    Cosine similarity of TF-IDF vectors over the descriptions (the dispatch
    signal), highest first.  Agents with an empty description are skipped (another rule reports
    them); two definitions of the same name are not compared (shadowing is reported elsewhere).
    """
    items = [d for d in definitions if d.description.strip()]
    vectors = _tfidf_vectors([d.description for d in items])
    pairs: list[tuple[AgentDefinition, AgentDefinition, float]] = []
    for i in range(len(items)):
        vi = vectors[i]
        if not vi:
            continue
        for j in range(i + 1, len(items)):
            if items[i].name == items[j].name:
                continue
            vj = vectors[j]
            small, big = (vi, vj) if len(vi) < len(vj) else (vj, vi)
            sim = sum(v * big.get(t, 0.0) for t, v in small.items())
            if sim >= threshold:
                pairs.append((items[i], items[j], round(sim, 4)))
    pairs.sort(key=lambda p: -p[2])
    return pairs
