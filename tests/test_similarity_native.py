"""SA602's C loops (``subagents._speedups``) against the Python loops they stand in for.

``similarity._weigh`` and ``similarity._pairs`` hand a scope of ``NATIVE_AFTER`` agents or more
to the C extension: its unit vectors must be the Python ones to the bit and in the same order,
and its pairs (candidates then scored in Python) the same pairs with the same scores as the
Python pairing and as every pair compared.  Generated here: unit vectors of a small vocabulary
(most pairs share terms), empty vectors, names that repeat, thresholds near 0 and near 1, a
threshold equal to a pair's score, descriptions with repeated words; and hostile arguments,
which must raise, not crash.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corpus_helpers import CORPUS, needs_corpus
from subagents.definition import AgentDefinition
from subagents.lint import similarity
from test_similarity_index import _TEXT, _WORDS

_speedups = pytest.importorskip("subagents._speedups", reason="the C extension is not built")


@pytest.fixture(autouse=True)
def _restore_native() -> Iterator[None]:
    saved = list(similarity._NATIVE)
    yield
    similarity._NATIVE[:] = saved


def _with(native: bool) -> None:
    similarity._NATIVE[:] = [_speedups if native else None]


def _bits(vectors: list[dict[str, float]]) -> list[list[tuple[str, str]]]:
    """Keys in order and each weight's exact bits."""
    return [[(t, w.hex()) for t, w in v.items()] for v in vectors]


def _unit(raw: list[dict[str, float]]) -> list[dict[str, float]]:
    out = []
    for vec in raw:
        norm = sum(v * v for v in vec.values()) ** 0.5 or 1.0
        out.append({t: v / norm for t, v in vec.items()})
    return out


def _both(vectors: list[dict[str, float]], names: list[str],
          threshold: float) -> list[tuple[int, int, float]]:
    df: dict[str, int] = {}
    for vec in vectors:
        for t in vec:
            df[t] = df.get(t, 0) + 1
    _with(False)
    python = similarity._pairs(vectors, names, threshold, dict(df))
    _with(True)
    native = similarity._pairs(vectors, names, threshold, dict(df))
    assert native == python
    assert native == similarity.pairs_exhaustive(vectors, names, threshold)
    return native


# a few words held by many vectors (common), more held by a few (middling), so that scopes of
# 30 or more (where the two kinds both exist) have pairs met through either
_RARE = [f"w{k}" for k in range(40)]
_VECTORS = st.lists(
    st.dictionaries(st.one_of(st.sampled_from(_WORDS[:6]), st.sampled_from(_RARE)),
                    st.floats(0.001, 1.0), max_size=8), max_size=80)
_NAMES = st.sampled_from(["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"])
_THRESHOLDS = st.one_of(st.floats(1e-12, 1.0), st.sampled_from(
    [1e-12, 1e-9, 2e-9, 1e-6, 0.01, 0.5, 0.99, 0.999999, 1.0 - 1e-12, 1.0, 1.0000001]))


@settings(max_examples=300, deadline=None)
@given(_VECTORS, st.data(), _THRESHOLDS)
def test_native_pairs_equal_the_python_pairs_and_every_pair(
    raw: list[dict[str, float]], data: st.DataObject, threshold: float
) -> None:
    vectors = _unit(raw)
    names = data.draw(st.lists(_NAMES, min_size=len(vectors), max_size=len(vectors)))
    _both(vectors, names, threshold)


@settings(max_examples=200, deadline=None)
@given(_VECTORS.filter(lambda r: len(r) >= 2), st.data())
def test_native_pairs_at_a_threshold_equal_to_a_score(
    raw: list[dict[str, float]], data: st.DataObject
) -> None:
    """A pair scoring exactly the threshold is kept by both (``>=``), by neither if the
    threshold is the next float up."""
    vectors = _unit(raw)
    i = data.draw(st.integers(0, len(vectors) - 2))
    j = data.draw(st.integers(i + 1, len(vectors) - 1))
    score = similarity._cosine(vectors[i], vectors[j])
    names = [str(k) for k in range(len(vectors))]
    if score > 0.0:
        assert (i, j, round(score, 4)) in _both(vectors, names, score)
        import math

        _both(vectors, names, math.nextafter(score, 2.0))


def test_native_pairs_of_identical_empty_and_same_named_vectors() -> None:
    vec = _unit([{"rust": 0.3, "code": 0.7, "audit": 0.1}])[0]
    vectors = [dict(vec) for _ in range(30)] + [{} for _ in range(5)] + [dict(vec)]
    names = [str(k % 7) for k in range(len(vectors))]
    found = _both(vectors, names, 0.5)
    assert found  # not vacuous: copies of one vector under different names are reported
    assert all(names[i] != names[j] for i, j, _ in found)
    _both([{} for _ in range(20)], [str(k) for k in range(20)], 0.5)
    _both([], [], 0.5)


def test_native_pairs_found_through_a_middling_term_and_the_common_terms_bound() -> None:
    """A pair whose shared middling term alone falls short and whose common terms make up
    the rest (neither vector heavy): found only through the bound ``hj * h[i]``."""
    rest = (1 - 0.36 - 0.2025) ** 0.5
    vectors = [{"m": 0.6, "c": 0.45, "x": rest}, {"m": 0.6, "c": 0.45, "y": rest},
               {"c": 1.0}, {"c": 1.0}]
    vectors += [{f"u{k}": 1.0} for k in range(30)]
    names = [str(k) for k in range(len(vectors))]
    found = _both(vectors, names, 0.5)
    assert (0, 1, 0.5625) in found


_DESCRIPTIONS = st.lists(
    st.one_of(_TEXT, st.lists(st.sampled_from([*_WORDS, "testing", "tests", "the"]),
                              max_size=30).map(" ".join)),
    max_size=50)


@settings(max_examples=200, deadline=None)
@given(_DESCRIPTIONS)
def test_native_unit_vectors_equal_the_python_ones_to_the_bit(texts: list[str]) -> None:
    similarity._COUNTS.clear()
    _with(False)
    python = similarity._weigh(texts)
    python_counts = {t: similarity._COUNTS[t] for t in texts}
    similarity._COUNTS.clear()  # (the counts found again, in C)
    similarity._TOKENS.clear()
    _with(True)
    native = similarity._weigh(texts)
    for text in texts:
        d, once = similarity._COUNTS[text]
        assert list(d.items()) == list(python_counts[text][0].items())
        assert once is python_counts[text][1]
    assert _bits(native[0]) == _bits(python[0])
    assert list(native[1].items()) == list(python[1].items())
    # the memo's counts are left as they were (the weights are a new dictionary)
    for text in texts:
        assert all(isinstance(c, int) for c in similarity._COUNTS[text][0].values())


def test_native_functions_refuse_bad_arguments() -> None:
    unit, candidates = _speedups.similar_unit, _speedups.similar_candidates
    tf = similarity._TF
    with pytest.raises(TypeError):
        unit([{"a": 1}], [True], {"a": 1}, [0.0, 1.0])
    with pytest.raises(TypeError):
        unit([{"a": 1}], [True, False], {"a": 1}, [0.0, 1.0], tf)
    with pytest.raises(TypeError):
        unit(["not a dict"], [True], {}, [0.0], tf)
    with pytest.raises(KeyError):
        unit([{"a": 1}], [True], {}, [0.0, 1.0], tf)
    with pytest.raises(IndexError):
        unit([{"a": 1}], [True], {"a": 5}, [0.0, 1.0], tf)
    with pytest.raises(TypeError):
        unit([{"a": 1}], [True], {"a": 1}, [0.0, "x"], tf)
    with pytest.raises(TypeError):
        candidates([{"a": 1.0}, "x"], {"a": 2}, 0.5, 2)
    with pytest.raises(TypeError):
        candidates([{"a": "x"}, {"a": 1.0}], {"a": 2}, 0.5, 2)
    with pytest.raises(TypeError):
        candidates([{"a": 1.0}], {"a": "2"}, 0.5, 2)
    assert candidates([{"a": 1.0}, {"a": 1.0}], {"a": 2}, 0.5, 2) == [(0, 1)]
    assert unit([{}], [True], {}, [0.0], tf) == [{}]


def test_a_small_scope_does_not_load_the_extension(monkeypatch: pytest.MonkeyPatch) -> None:
    similarity._NATIVE.clear()
    vectors = _unit([{"rust": 1.0}, {"rust": 0.5, "code": 0.5}])
    similarity.pairs_indexed(vectors, ["a", "b"], 0.5)
    assert similarity._NATIVE == []  # not asked: fewer than NATIVE_AFTER vectors
    monkeypatch.setenv("SUBAGENTS_NO_EXTENSION", "1")
    many = vectors * similarity.NATIVE_AFTER
    similarity.pairs_indexed(many, [str(k) for k in range(len(many))], 0.5)
    assert similarity._NATIVE == [None]  # switched off: the Python loops
    similarity._NATIVE.clear()
    monkeypatch.delenv("SUBAGENTS_NO_EXTENSION")
    similarity.pairs_indexed(many, [str(k) for k in range(len(many))], 0.5)
    assert similarity._NATIVE[0] is _speedups


_PART = st.text(alphabet="aeistrngdyzlmoc019", max_size=14)


@settings(max_examples=1000, deadline=None)
@given(_PART)
def test_native_stem_equals_the_python_stem(part: str) -> None:
    assert _speedups.similar_stem(part) == similarity._stem(part)


@pytest.mark.parametrize("part", [
    "jazzz", "buzzing", "fizzes", "running", "calling", "classes", "class", "dresses", "skiing",
    "izations", "xizations", "organizations", "ies", "studies", "copied", "ated", "agents",
    "implementer", "compilation", "securing", "abcde", "stop", "s", "", "1st", "v8engine"])
def test_native_stem_equals_the_python_stem_on_chosen_words(part: str) -> None:
    assert _speedups.similar_stem(part) == similarity._stem(part)


@needs_corpus
def test_native_stem_equals_the_python_stem_on_every_part_of_the_corpus() -> None:
    parts: set[str] = set()
    for path in sorted(CORPUS.rglob("*.md"))[:3000]:
        text = path.read_text(encoding="utf-8", errors="replace")
        parts.update(similarity._parts(text.lower()))
    assert len(parts) > 5000
    assert [p for p in parts if _speedups.similar_stem(p) != similarity._stem(p)] == []


def test_native_stem_refuses_what_is_not_a_part() -> None:
    for bad in ("Testing", "node.js", "a b", "-"):
        with pytest.raises(ValueError):
            _speedups.similar_stem(bad)
    for bad_type in (b"tests", "\u00e9t\u00e9"):
        with pytest.raises(TypeError):
            _speedups.similar_stem(bad_type)
    assert _speedups.similar_stem("") == ""


_ANY_TEXT = st.one_of(_TEXT, st.text(), st.lists(st.one_of(
    st.characters(max_codepoint=0x2FF),
    st.sampled_from(["\ud800", "\udc80", "\u212a", "\u0130", "\u017f", "A", "Z", "9", "-",
                     "\U0001f600", " tests ", " the ", "ing", "ies"]))).map("".join))


@settings(max_examples=400, deadline=None)
@given(_ANY_TEXT, st.booleans())
def test_native_counts_equal_the_python_tokens_counted(text: str, warm: bool) -> None:
    """Any text (other scripts, look-alikes whose lower case is ASCII, lone surrogates,
    characters beyond the BMP), with the memo of parts empty or already knowing them."""
    tokens = similarity._description_tokens(text)
    expected: dict[str, int] = {}
    similarity._count_elements(expected, tokens)
    memo: dict[str, str] = dict(similarity._TOKENS) if warm else {}
    low = similarity._special(text.lower())
    counts, once = _speedups.similar_counts(low, memo, similarity.STOPWORDS, 65536)
    assert list(counts.items()) == list(expected.items())
    assert once is (len(expected) == len(tokens))
    # the memo learnt each part's token, as the Python memo has it
    assert all(memo[p] == similarity._TOKENS[p] for p in similarity._parts(low))


def test_native_counts_keep_the_memo_bounded() -> None:
    memo: dict[str, str] = {}
    text = " ".join(f"word{k} tests" for k in range(100))
    counts, once = _speedups.similar_counts(text, memo, similarity.STOPWORDS, 10)
    assert len(memo) <= 10
    assert counts["test"] == 100 and once is False
    assert list(counts)[:3] == ["word0", "test", "word1"]
    with pytest.raises(TypeError):
        _speedups.similar_counts(b"tests", memo, similarity.STOPWORDS, 10)
    with pytest.raises(TypeError):
        _speedups.similar_counts("tests", memo, ["the"], 10)


@st.composite
def _scope(draw: st.DrawFn) -> list[AgentDefinition]:
    n = draw(st.integers(0, 70))
    out = []
    for _ in range(n):
        words = draw(st.lists(st.one_of(st.sampled_from(_WORDS), st.sampled_from(_RARE)),
                              max_size=10))
        out.append(AgentDefinition(name=draw(_NAMES), description=" ".join(words)))
    return out


@settings(max_examples=200, deadline=None)
@given(_scope(), _THRESHOLDS)
def test_native_find_similar_agents_equals_the_python_one(
    defs: list[AgentDefinition], threshold: float
) -> None:
    """The rule's entry point: the counts, unit weights and pairs in one pass in C (vectors
    made for the pairs found only) against the Python loops."""
    where = {id(d): k for k, d in enumerate(defs)}

    def run(native: bool) -> list[tuple[int, int, float]]:
        similarity._COUNTS.clear()
        similarity._TOKENS.clear()
        _with(native)
        return [(where[id(a)], where[id(b)], s)
                for a, b, s in similarity.find_similar_agents(defs, threshold)]

    assert run(True) == run(False)


@settings(max_examples=200, deadline=None)
@given(_DESCRIPTIONS, _THRESHOLDS)
def test_native_find_equals_the_unit_vectors_and_candidates(
    texts: list[str], threshold: float
) -> None:
    """``similar_find``: the pairs of ``similar_candidates`` over ``similar_unit``'s vectors,
    and those vectors to the bit for every index of a pair."""
    _with(True)
    vectors, df = similarity._weigh(texts)
    docs = [similarity._COUNTS[t][0] for t in texts]
    once = [similarity._COUNTS[t][1] for t in texts]
    idf_of = similarity._idf_table(len(texts), df)
    reach, cut = threshold - similarity._BOUND_SLACK, max(2, len(texts) // 10)
    pairs, some = _speedups.similar_find(docs, once, df, idf_of, similarity._TF, reach, cut)
    assert pairs == _speedups.similar_candidates(vectors, df, reach, cut)
    assert sorted(some) == sorted({k for pair in pairs for k in pair})
    for k, vec in some.items():
        assert _bits([vec]) == _bits([vectors[k]])


def test_native_find_refuses_bad_arguments() -> None:
    find, tf = _speedups.similar_find, similarity._TF
    with pytest.raises(TypeError):
        find([{"a": 1}], [True], {"a": 1}, [0.0, 1.0], tf, 0.5)
    with pytest.raises(TypeError):
        find(["x"], [True], {}, [0.0], tf, 0.5, 2)
    with pytest.raises(KeyError):
        find([{"a": 1}], [True], {}, [0.0, 1.0], tf, 0.5, 2)
    with pytest.raises(IndexError):
        find([{"a": 1}], [True], {"a": 5}, [0.0, 1.0], tf, 0.5, 2)
    with pytest.raises(TypeError):
        find([{"a": 1}], [True], {"a": 1}, [0.0, "x"], tf, 0.5, 2)
    with pytest.raises(ValueError):
        find([{"a": 1}], [True], {"a": -1}, [0.0, 1.0], tf, 0.5, 2)
    assert find([{}, {}], [True, True], {}, [0.0], tf, 0.5, 2) == ([], {})
    pairs, some = find([{"a": 1}, {"a": 2}], [True, False], {"a": 2}, [0.0, 1.0, 0.5], tf,
                       0.5, 2)
    assert pairs == [(0, 1)] and some == {0: {"a": 1.0}, 1: {"a": 1.0}}
