"""SA602's indexed pairing reports exactly the pairs (and scores) of comparing every pair.

The similar-description rule compares only the pairs an inverted index with a prefix filter
proposes (``similarity.pairs_indexed``); these tests hold it to the exhaustive loop it replaced
(``similarity.pairs_exhaustive``) on the corpus's descriptions at several thresholds and on
generated sets built from a small vocabulary (so that most pairs share words), and hold the
rule's findings on a folder to those of the exhaustive loop.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corpus_helpers import CATLOG, CORPUS, FURAI, VOLT, needs_corpus
from subagents.definition import AgentDefinition
from subagents.lint import similarity
from subagents.lint.similarity import (
    _tfidf_vectors,
    find_similar_agents,
    pairs_exhaustive,
    pairs_indexed,
)


def _reference(defs: list[AgentDefinition], threshold: float) -> list[tuple[str, str, float]]:
    """The rule as it was: every pair compared, highest score first (a stable sort)."""
    items = [d for d in defs if d.description.strip()]
    vectors = _tfidf_vectors([d.description for d in items])
    found = pairs_exhaustive(vectors, [d.name for d in items], threshold)
    found.sort(key=lambda p: -p[2])
    return [(items[i].name, items[j].name, s) for i, j, s in found]


def _names(pairs: list[tuple[AgentDefinition, AgentDefinition, float]]) -> list[tuple[str, str, float]]:
    return [(a.name, b.name, s) for a, b, s in pairs]


@needs_corpus
@pytest.mark.parametrize("threshold", [0.2, 0.35, 0.5, 0.65, 0.8, 0.95])
def test_indexed_pairs_equal_exhaustive_on_the_corpus(threshold: float) -> None:
    from subagents.harnesses.loader import read_agent_file

    files = [p for root in (FURAI, VOLT, CATLOG) for p in sorted(root.rglob("*.md"))]
    defs = [d for p in files for d in read_agent_file(p).definitions]
    assert len(defs) > 300
    items = [d for d in defs if d.description.strip()]
    vectors = _tfidf_vectors([d.description for d in items])
    names = [d.name for d in items]
    exhaustive = pairs_exhaustive(vectors, names, threshold)
    assert pairs_indexed(vectors, names, threshold) == exhaustive
    assert _names(find_similar_agents(defs, threshold)) == _reference(defs, threshold)
    if threshold <= 0.5:
        assert exhaustive  # the comparison is not vacuous: the corpus has similar pairs


_WORDS = ["rust", "python", "review", "code", "security", "audit", "deploy", "kubernetes",
          "test", "mobile", "react", "database", "sql", "postgres", "docs", "api", "design",
          "performance", "cloud", "aws"]


@st.composite
def _agents(draw: st.DrawFn) -> list[AgentDefinition]:
    n = draw(st.integers(0, 30))
    out = []
    for _ in range(n):
        words = draw(st.lists(st.sampled_from(_WORDS), min_size=0, max_size=8))
        name = draw(st.sampled_from(["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"]))
        # repeated words weigh more (1 + log count): scores spread over the whole range
        out.append(AgentDefinition(name=name, description=" ".join(words)))
    return out


@settings(max_examples=300, deadline=None)
@given(_agents(), st.floats(0.0, 1.05, allow_nan=False))
def test_indexed_pairs_equal_exhaustive_on_generated_sets(
    defs: list[AgentDefinition], threshold: float
) -> None:
    items = [d for d in defs if d.description.strip()]
    vectors = _tfidf_vectors([d.description for d in items])
    names = [d.name for d in items]
    assert pairs_indexed(vectors, names, threshold) == pairs_exhaustive(vectors, names, threshold)
    assert _names(find_similar_agents(defs, threshold)) == _reference(defs, threshold)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.dictionaries(st.sampled_from(_WORDS), st.floats(0.001, 1.0), max_size=8),
                max_size=25),
       st.floats(0.01, 1.0))
def test_indexed_pairs_equal_exhaustive_on_any_unit_vectors(
    raw: list[dict[str, float]], threshold: float
) -> None:
    """Not only TF-IDF weights: any unit vectors (the bound needs nothing else)."""
    vectors = []
    for vec in raw:
        norm = sum(v * v for v in vec.values()) ** 0.5 or 1.0
        vectors.append({t: v / norm for t, v in vec.items()})
    names = [str(i) for i in range(len(vectors))]
    assert pairs_indexed(vectors, names, threshold) == pairs_exhaustive(vectors, names, threshold)


def test_the_index_compares_fewer_pairs_than_every_pair(monkeypatch: pytest.MonkeyPatch) -> None:
    """The point of the index: agents that share only common words are never compared."""
    compared: list[int] = []
    real = similarity._cosine

    def counting(vi: dict[str, float], vj: dict[str, float]) -> float:
        compared.append(1)
        return real(vi, vj)

    monkeypatch.setattr(similarity, "_cosine", counting)
    topics = ["rust", "python", "kubernetes", "postgres", "react", "swift", "terraform",
              "graphql", "kafka", "django"]
    defs = [AgentDefinition(name=f"a{i}", description=f"code review developer {t}{i}")
            for i, t in enumerate(topics * 4)]
    items = [d for d in defs if d.description.strip()]
    vectors = _tfidf_vectors([d.description for d in items])
    names = [d.name for d in items]
    found = pairs_indexed(vectors, names, 0.5)
    assert len(compared) < len(defs) * (len(defs) - 1) // 2 // 4
    compared.clear()
    assert found == pairs_exhaustive(vectors, names, 0.5)


def test_the_rule_on_a_folder_reports_what_every_pair_would(tmp_path: Path) -> None:
    from subagents.lint.validate import validate_paths

    folder = tmp_path / ".claude" / "agents"
    folder.mkdir(parents=True)
    descriptions = ["Reviews Rust code for safety and performance",
                    "Reviews Rust code for performance and safety issues",
                    "Deploys services to Kubernetes clusters",
                    "Deploys services onto Kubernetes clusters with Helm",
                    "Writes SQL migrations for Postgres"]
    defs = []
    for i, text in enumerate(descriptions):
        (folder / f"a{i}.md").write_text(f"---\nname: a{i}\ndescription: {text}\n---\nBody.\n")
        defs.append(AgentDefinition(name=f"a{i}", description=text))
    report = validate_paths([folder], select=["SA602"])
    reported = {(d.path.rsplit("/", 1)[-1], d.message.split("'")[1], d.message.split("'")[3])
                for d in report.diagnostics if d.rule == "SA602"}
    expected = set()
    for a, b, _score in _reference(defs, similarity.SIMILAR_THRESHOLD):
        expected |= {(f"{a}.md", a, b), (f"{b}.md", b, a)}
    assert expected and reported == expected


# -- the pieces of the vectors, held to their plain definitions ----------------------------------

def _plain_vectors(texts: list[str]) -> list[dict[str, float]]:
    """TF-IDF as first written: ``tokenize`` and the formula term by term."""
    import math
    from collections import Counter

    docs = [Counter(similarity.tokenize(t, joined=False)) for t in texts]
    n = len(docs)
    df: Counter[str] = Counter()
    for d in docs:
        df.update(d.keys())
    out = []
    for d in docs:
        vec = {t: (1 + math.log(c)) * math.log((1 + n) / (1 + df[t]) + 1) for t, c in d.items()}
        norm = math.sqrt(sum(v * v for v in vec.values())) or 1.0
        out.append({t: v / norm for t, v in vec.items()})
    return out


def _plain_cosine(vi: dict[str, float], vj: dict[str, float]) -> float:
    small, big = (vi, vj) if len(vi) < len(vj) else (vj, vi)
    return sum(v * big.get(t, 0.0) for t, v in small.items())


# text rich in what the tokenizer treats specially: joined words, C++, C#, F#, .NET, ASP.NET,
# stop words, case, digits, non-ASCII letters whose lower case is odd (the long s, Kelvin sign)
_TEXT = st.lists(
    st.sampled_from(
        [*"abcdefkst019 .-_/+#,;:'\n", "C++", "c#", "F#", ".NET", "asp.net", "ASP.NET",
         "node.js", "the", "agent", "Testing", "\u017f", "\u212a", "\u0130", "\u00df", "review",
         "deployments"]),
    max_size=40).map("".join)


@settings(max_examples=400, deadline=None)
@given(_TEXT)
def test_description_tokens_equal_tokenize_without_joined_words(text: str) -> None:
    similarity._TOKENS.clear()
    assert similarity._description_tokens(text) == similarity.tokenize(text, joined=False)
    # and again from the memo of parts already met
    assert similarity._description_tokens(text) == similarity.tokenize(text, joined=False)


@settings(max_examples=400, deadline=None)
@given(st.one_of(_TEXT, st.text(), st.text(alphabet=st.one_of(
    st.characters(max_codepoint=0x2FF),
    st.sampled_from(["\ud800", "\udc80", "\u212a", "\u0130", "\u017f", "A", "Z", "9", "-"])))))
def test_parts_equal_the_runs_of_letters_and_digits(text: str) -> None:
    """``_parts`` (bytes made spaces, then split) finds what the pattern finds on any
    lower-cased text: ASCII, other scripts, look-alikes whose lower case is ASCII, lone
    surrogates."""
    low = similarity._special(text.lower())
    assert similarity._parts(low) == similarity._PART_RE.findall(low)


@settings(max_examples=300, deadline=None)
@given(_TEXT)
def test_words_equal_every_special_pattern_applied(text: str) -> None:
    low = text.lower()
    for pattern, repl in similarity._SPECIAL:
        low = pattern.sub(repl, low)
    assert similarity.words(text) == similarity.WORD_RE.findall(low)


@settings(max_examples=200, deadline=None)
@given(st.lists(_TEXT, max_size=12))
def test_vectors_and_scores_equal_the_plain_formula(texts: list[str]) -> None:
    vectors = _tfidf_vectors(texts)
    plain = _plain_vectors(texts)
    assert vectors == plain  # the same floats, not merely close ones
    for i, vi in enumerate(vectors):
        for vj in vectors[i:]:
            assert similarity._cosine(vi, vj) == _plain_cosine(vi, vj)


@needs_corpus
def test_vectors_equal_the_plain_formula_on_the_corpus() -> None:
    from subagents.harnesses.loader import read_agent_file

    files = [p for root in (FURAI, VOLT, CATLOG) for p in sorted(root.rglob("*.md"))]
    texts = [d.description for p in files for d in read_agent_file(p).definitions
             if d.description.strip()]
    assert len(texts) > 300
    vectors = _tfidf_vectors(texts)
    assert vectors == _plain_vectors(texts)
    assert any("cpp" in v or "csharp" in v or "dotnet" in v for v in vectors)


def _plain_stem(word: str) -> str:
    """The stemmer as first written (every suffix tried in turn)."""
    if len(word) <= 3 or not word.isalpha():
        return word
    for _ in range(2):
        for suffix, repl in similarity._SUFFIXES:
            if word.endswith(suffix):
                base = word[: -len(suffix)] + repl
                if len(base) >= 3 and base != word:
                    word = base
                    break
        else:
            break
    if len(word) > 4 and word.endswith("e"):
        word = word[:-1]
    if len(word) > 4 and word[-1] == word[-2] and word[-1] not in "lsz":
        word = word[:-1]
    return word


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(["a", "e", "i", "s", "t", "r", "n", "g", "d", "y", "z", "l",
                                 "ation", "ing", "ers", "ies", "ment", "ity", "ize", "ed"]),
                max_size=8).map("".join))
def test_stem_equals_trying_every_suffix(word: str) -> None:
    assert similarity.stem(word) == _plain_stem(word)


def test_stem_equals_trying_every_suffix_on_the_words_of_descriptions() -> None:
    text = " ".join(_WORDS) + " implementations implementer tested testing deployments " \
        "securing running compilation automated utilities copied happiness"
    for word in similarity.words(text):
        assert similarity.stem(word) == _plain_stem(word), word


@needs_corpus
def test_stem_equals_trying_every_suffix_on_every_word_of_the_corpus() -> None:
    """Every word of every corpus file (bodies too: thousands of distinct English words)."""
    seen: set[str] = set()
    for path in sorted(CORPUS.rglob("*.md"))[:3000]:
        for word in similarity._PART_RE.findall(path.read_text("utf-8", "replace").lower()):
            seen.add(word)
    assert len(seen) > 5000
    assert [w for w in sorted(seen) if similarity.stem(w) != _plain_stem(w)] == []


def test_the_fallback_counter_counts_as_the_standard_librarys_loop() -> None:
    """``similarity`` counts terms with ``collections._count_elements`` (private, in C); the
    plain loop it falls back to on a Python without it gives the same counts in the same
    order."""
    from collections import Counter

    from subagents.lint import similarity

    words = ["deploy", "kubernetes", "deploy", "helm", "", "Helm", "deploy"]
    ours: dict[str, int] = {"helm": 2}
    similarity._count_in_python(ours, words)
    theirs: dict[str, int] = {"helm": 2}
    similarity._count_elements(theirs, words)
    assert list(ours.items()) == list(theirs.items())
    assert ours == Counter(words) + Counter({"helm": 2})
