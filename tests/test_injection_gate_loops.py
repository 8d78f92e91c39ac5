"""The lazy literal gate answers with plain loops what the nested ``any``/``all`` of its
requirement says (``Holds._meets``): the same answer for every part of the table and every
alternative of the alternatives' table, on the development texts and on made-up ones."""

from __future__ import annotations

import json
import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from subagents.lint.rules._injection_alts import ALTERNATIVES
from subagents.lint.rules._injection_literals import LITERALS
from subagents.lint.rules.injection import normalise
from subagents.lint.rules.injection_gate import Holds, has_whole_word

DATA = Path(__file__).parent / "data" / "injection"
Clauses = tuple[tuple[tuple[str, ...], ...], ...]


def _plainly(gate: Holds, clauses: Clauses | None) -> bool:
    if clauses is None:
        return True
    has = gate._has
    return any(all(any(has(x) for x in s) for s in clause) for clause in clauses)


def _requirements() -> list[Clauses | None]:
    out: list[Clauses | None] = list(LITERALS.values())
    out += [needs for alternatives in ALTERNATIVES.values() for _, _, needs in alternatives]
    return out


def _texts() -> list[str]:
    texts: list[str] = []
    for name in ("dev.jsonl", "dev2.jsonl", "probe3.jsonl"):  # development sets only
        for line in (DATA / name).read_text(encoding="utf-8").splitlines():
            if line.strip():
                texts.append(normalise(json.loads(line)["text"]))
    return texts


def test_every_requirement_gets_the_plain_answer_on_the_development_texts() -> None:
    requirements = _requirements()
    texts = _texts()
    assert len(texts) > 100 and len(requirements) > 50
    yes = 0
    for text in texts:
        gate = Holds(text, lazy=True)
        for clauses in requirements:
            answer = gate.meets(clauses)
            assert answer == _plainly(Holds(text, lazy=True), clauses)
            yes += answer
        for name in LITERALS:
            assert gate.allows(name) == _plainly(gate, LITERALS[name])
    assert 0 < yes < len(texts) * len(requirements)  # both answers were given


_WORDS = ["ignore", "rules", "send", "https://", "is", "wrong", "all", "", "\0send", "key"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.lists(st.sampled_from(_WORDS), max_size=3).map(tuple),
                         max_size=3).map(tuple), max_size=3).map(tuple),
       st.lists(st.sampled_from([*_WORDS, " ", "x"]), max_size=12).map(" ".join))
def test_made_up_requirements_get_the_plain_answer(clauses: Clauses, text: str) -> None:
    assert Holds(text, lazy=True).meets(clauses) == _plainly(Holds(text, lazy=True), clauses)


def _whole_word_plainly(word: str, text: str) -> bool:
    return re.search(r"\b" + re.escape(word) + r"\b", text, re.A) is not None


_PIECES = ["a", "b", "ab", "_", "1", " ", "-", "é", ".", "\n"]


@settings(max_examples=1000, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=4).map("".join),
       st.lists(st.sampled_from(_PIECES), max_size=60).map("".join))
def test_a_whole_word_is_found_as_the_pattern_finds_it(word: str, text: str) -> None:
    assert has_whole_word(word, text) == _whole_word_plainly(word, text)


def test_a_word_held_many_times_but_never_whole_is_asked_of_the_pattern() -> None:
    """Past the occurrences checked by hand the pattern answers, from where they stopped."""
    for text in ("xab" * 50, "xab" * 50 + " ab", "ab" + "xab" * 50, "xab" * 50 + " abx"):
        assert has_whole_word("ab", text) == _whole_word_plainly("ab", text)
