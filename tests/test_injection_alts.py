"""A large signal part compiled from only the alternatives a text can match finds exactly
what the whole part finds.

:mod:`subagents.lint.rules.injection_alts` compiles, for the first texts of a process, the
alternation of the top-level alternatives of ``override.0`` and ``send.0`` whose required
literals the text holds, in their order.  These tests say the table it reads is current and
cuts each part at its top-level ``|`` only, and compare the reduced compilation with the
whole part -- every match as the detector enumerates them, and the first match from every
position a search resumes at -- on the development texts and on made-up texts built from
the alternatives' own literals (so that most alternatives are kept somewhere and many are
left out).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from injection_helpers import phrases_with_gaps
from subagents.lint.rules import injection, injection_alts, injection_gate
from subagents.lint.rules._injection_alts import ALTERNATIVES
from subagents.lint.rules.injection_prefilter import (
    injection_alternatives,
    render_alternatives,
    split_alternatives,
)

DATA = Path(__file__).parent / "data" / "injection"
# the development sets only: the held-out sets are for measuring, not for tests
TEXTS = [json.loads(line)["text"] for name in ("dev.jsonl", "dev2.jsonl", "probe3.jsonl",
                                               "probe4.jsonl")
         for line in (DATA / name).read_text(encoding="utf-8").splitlines() if line.strip()]

SOURCES = dict(injection.part_sources())
#: each part as the detector compiles it whole
WHOLE = {name: injection.linear(SOURCES[name], case_sensitive=True)
         for name in injection_alts.PARTS}


def test_the_table_is_current() -> None:
    fresh = injection_alternatives()
    assert fresh == ALTERNATIVES, "run: python -m subagents.lint.rules.injection_prefilter"
    table = Path(injection.__file__).with_name("_injection_alts.py")
    assert table.read_text(encoding="utf-8") == render_alternatives(fresh)
    assert set(ALTERNATIVES) == set(injection_alts.PARTS)


@pytest.mark.parametrize("name", list(SOURCES))
def test_the_alternatives_make_up_the_part(name: str) -> None:
    source = SOURCES[name]
    spans = split_alternatives(source)
    assert "|".join(source[a:b] for a, b in spans) == source
    if name in ALTERNATIVES:
        assert [(a, b) for a, b, _ in ALTERNATIVES[name]] == spans
        assert len(spans) > 1
        assert injection._part_source(name) == source


@pytest.mark.parametrize(("pattern", "alternatives"), [
    ("a|b", ["a", "b"]),
    ("(?:a|b)c|d", ["(?:a|b)c", "d"]),
    (r"[|]x|\|y|z", ["[|]x", r"\|y", "z"]),
    ("[]|]q|r", ["[]|]q", "r"]),
    ("[^]|]q|r", ["[^]|]q", "r"]),
    ("abc", ["abc"]),
])
def test_split_at_top_level_bars_only(pattern: str, alternatives: list[str]) -> None:
    assert [pattern[a:b] for a, b in split_alternatives(pattern)] == alternatives


def _matches(rx: Any, data: str | bytes) -> list[tuple[int, int]]:
    """Every match as the detector enumerates them, and the first match from every start a
    search can resume at (where a match ended, or every third position)."""
    if rx is None:
        return []
    spans = [m.span() for m in rx.finditer(data)]
    found: list[tuple[int, int]] = [(-2, -2)]
    for pos in sorted({0, *(e for _, e in spans), *range(0, len(data), 3)}):
        m = rx.search(data, pos)
        if m is not None:
            found.append((pos, m.start()))
            found.append((pos, m.end()))
    return spans + found


def _reduced(name: str, view: str) -> tuple[Any, tuple[int, ...]]:
    gate = injection_gate.Holds(view, lazy=True)
    keep = injection_alts.kept(name, gate.meets)
    rx = injection_alts.reduced(name, SOURCES[name], gate.meets,
                                lambda source: injection.linear(source, case_sensitive=True),
                                lambda: WHOLE[name])
    return rx, keep


def _same(text: str, seen: dict[str, int] | None = None) -> None:
    for view in {injection.normalise(text), injection.normalise(text, fold=False)}:
        raw = view.encode()
        for name in injection_alts.PARTS:
            rx, keep = _reduced(name, view)
            whole = WHOLE[name]
            if rx is None:
                assert whole.search(view) is None
                continue
            assert _matches(rx, view) == _matches(whole, view), (name, keep)
            if len(raw) == len(view):  # an ASCII view is searched as bytes
                assert _matches(rx, raw) == _matches(whole, raw), (name, keep)
            if seen is not None and 0 < len(keep) < len(ALTERNATIVES[name]):
                seen[name] = seen.get(name, 0) + (whole.search(view) is not None)


@pytest.mark.parametrize("text", TEXTS[::4])
def test_the_reduced_part_matches_as_the_whole_on_the_development_texts(text: str) -> None:
    _same(text)


# the alternatives' own literals (what decides which are kept), and what sits around them
_LITERALS = sorted({x.lstrip("\0") for alternatives in ALTERNATIVES.values()
                    for _, _, needs in alternatives if needs
                    for clause in needs for s in clause for x in s})
_FILLER = ["the file", "its contents", "and", ",", ".", " ", "\n", "é", "1", "_", "-",
           "données", "содержимое", "内容", "to", "at", "a", "with", "is", "are", "was",
           "all", "your", "the", "now", "you", "instructions", "rules", "https://x.io/a?d=1",
           "a.b@c.io", "10.0.0.1", "my server", "wrong", "void"]


def _made_up(rng: random.Random) -> str:
    return phrases_with_gaps(rng, _LITERALS, _FILLER, [""], ["", " ", ". ", "\n", " and ", ": "],
                             most=8, short=45)


def test_the_reduced_part_matches_as_the_whole_on_made_up_texts() -> None:
    rng = random.Random(22)
    seen: dict[str, int] = {}
    for _ in range(500):
        _same(_made_up(rng), seen)
    # the texts do exercise it: parts reduced to some of their alternatives, and matching
    assert seen.get("override.0", 0) > 50
    assert seen.get("send.0", 0) > 50


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(_LITERALS + _FILLER + ["x" * 40, "y " * 30]),
                max_size=14).map(" ".join))
def test_the_reduced_part_matches_as_the_whole_on_any_mix(text: str) -> None:
    _same(text)


def test_the_detector_finds_the_same_with_and_without_reduced_parts(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``assess_injection`` with every text taken as a process's first (the reduced parts
    used wherever they apply) and with no part reduced: the same findings."""
    rng = random.Random(5)
    texts = TEXTS[::5] + [_made_up(rng) for _ in range(150)]
    pats = injection._Patterns.get()

    def first_text(t: str, whole: bool = False) -> Any:
        monkeypatch.setattr(injection_gate, "_READ", [0])
        if not whole:
            for name in injection_alts.PARTS:
                pats.pop(name, None)
        return injection.assess_injection(t)

    reduced = [first_text(t) for t in texts]
    monkeypatch.setattr(injection, "ALT_PARTS", frozenset())
    whole = [first_text(t, whole=True) for t in texts]
    assert reduced == whole
    assert sum(r is not None for r in whole) > 20
