"""SA602's fast code against a plain reference written out term by term.

``find_similar_agents`` (tokens from the memo, weights by ``map``, unit weights written over
the counts in place, a description with no term twice weighed by its idf alone, the indexed
pairing with its bound) must give what the plain formulas give: the same vectors, to the bit
and in the same order (a score is summed in the shorter vector's order), and the same pairs
with the same scores.  The descriptions are generated to collide and almost collide: shared
words, repeated words (counts above 1), case, joined words, C++/C#/.NET, non-ASCII look-alikes,
blank and very long ones, names that repeat.
"""

from __future__ import annotations

import math
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from subagents.definition import AgentDefinition
from subagents.lint import similarity
from test_similarity_index import _plain_vectors  # TF-IDF as first written


def _plain_similar(defs: list[AgentDefinition], threshold: float) -> list[tuple[str, str, float]]:
    """Every pair compared with the plain vectors and a plain dot product."""
    items = [d for d in defs if d.description.strip()]
    vectors = _plain_vectors([d.description for d in items])
    found = []
    for i in range(len(items)):
        for j in range(i + 1, len(items)):
            if items[i].name == items[j].name or not vectors[i]:
                continue
            vi, vj = vectors[i], vectors[j]
            small, big = (vi, vj) if len(vi) < len(vj) else (vj, vi)
            sim = sum(v * big.get(t, 0.0) for t, v in small.items())
            if sim >= threshold:
                found.append((items[i].name, items[j].name, round(sim, 4)))
    found.sort(key=lambda p: -p[2])
    return found


_WORDS = ["review", "reviews", "reviewing", "code", "Code", "security", "audit", "audits",
          "deploy", "kubernetes", "test", "tests", "testing", "react", "database", "sql",
          "C++", "c#", ".NET", "asp.net", "node.js", "spring-boot", "the", "agent", "use",
          "\u212a8s", "\u017fql", "caf\u00e9", "na\u00efve", "\u0130stanbul", "x" * 300]

_DESCRIPTION = st.one_of(
    st.lists(st.sampled_from(_WORDS), max_size=14).map(" ".join),
    st.sampled_from(["", "   ", "\n", "review code", "Review code.", "review  code"]),
    st.text(max_size=60),
)


@st.composite
def _agents(draw: st.DrawFn) -> list[AgentDefinition]:
    base = draw(st.lists(_DESCRIPTION, min_size=1, max_size=6))
    out = []
    for _ in range(draw(st.integers(0, 40))):
        text = draw(st.sampled_from(base))
        # near duplicates: a copy with a word added, dropped or doubled
        edit = draw(st.sampled_from(["", "add", "drop", "double"]))
        words = text.split(" ")
        if edit == "add":
            words.append(draw(st.sampled_from(_WORDS)))
        elif edit == "drop" and words:
            words.pop(draw(st.integers(0, len(words) - 1)))
        elif edit == "double" and words:
            words.append(words[draw(st.integers(0, len(words) - 1))])
        name = draw(st.sampled_from(["a", "b", "c", "d", "e", "f", "g", "h", "\u00e9", ""]))
        out.append(AgentDefinition(name=name, description=" ".join(words)))
    return out


@settings(max_examples=150, deadline=None)
@given(_agents(), st.sampled_from([0.05, 0.3, 0.5, 0.5, 0.5, 0.7, 0.95, 1.0]))
def test_similar_agents_equal_the_plain_reference(defs: list[AgentDefinition],
                                                  threshold: float) -> None:
    found = [(a.name, b.name, s)
             for a, b, s in similarity.find_similar_agents(defs, threshold)]
    assert found == _plain_similar(defs, threshold)


@settings(max_examples=150, deadline=None)
@given(_agents())
def test_vectors_equal_the_plain_formula_bit_for_bit_and_in_order(
        defs: list[AgentDefinition]) -> None:
    texts = [d.description for d in defs]
    vectors, df = similarity._weigh(texts)
    plain = _plain_vectors(texts)
    assert [list(v.items()) for v in vectors] == [list(v.items()) for v in plain]
    assert [[math.copysign(1.0, w) for w in v.values()] for v in vectors] == \
        [[math.copysign(1.0, w) for w in v.values()] for v in plain]
    assert df == Counter(t for v in plain for t in v)


def test_a_description_with_a_term_twice_is_weighed_by_its_count() -> None:
    """Both kinds of description (every count 1, and a term twice) in one set."""
    vectors = similarity._tfidf_vectors(["review code review", "review code", "deploy code"])
    assert vectors == _plain_vectors(["review code review", "review code", "deploy code"])
    assert vectors[0]["review"] > vectors[1]["review"]
