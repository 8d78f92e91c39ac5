"""The injection detector compiles a pattern only when the text holds a literal it needs.

The literal table is generated (``python -m subagents.lint.rules.prefilter``); these tests
say it is current, that every literal is needed (a match without one of them would be a
missed finding), and that the detector finds the same with and without the shortcut.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import re2  # type: ignore[import-untyped]
from hypothesis import given, settings
from hypothesis import strategies as st

from subagents.lint.rules import injection
from subagents.lint.rules._injection_literals import LITERALS
from subagents.lint.rules.prefilter import (
    injection_literals,
    render_table,
    required_literals,
    requirement,
)

DATA = Path(__file__).parent / "data" / "injection"
ROWS = [json.loads(line) for name in ("dev.jsonl", "heldout.jsonl", "heldout2.jsonl")
        for line in (DATA / name).read_text(encoding="utf-8").splitlines() if line.strip()]


def test_the_table_is_current() -> None:
    fresh = injection_literals()
    assert fresh == LITERALS, "run: python -m subagents.lint.rules.prefilter"
    table = Path(injection.__file__).with_name("_injection_literals.py")
    assert table.read_text(encoding="utf-8") == render_table(fresh)


@pytest.mark.parametrize(("pattern", "expected"), [
    (r"abc", {"abc"}),
    (r"\bignore\s+(?:all|any) instructions", {" instructions"}),
    (r"(?:ignore|Disregard)\b", {"ignore", "disregard"}),
    (r"foo|[a-z]+", None),  # a branch needing no literal: nothing is known
    (r"(?:abc)?d", {"d"}),  # an optional part needs nothing
    (r"x(?:abc)+y", {"abc"}),
    (r"[^a]bc", {"bc"}),  # a negated class is no literal
    (r"[xy]z", {"z"}),
    (r"[xy]", {"x", "y"}),
    (r"\w+", None),
    (r"ÜBER", {"über"}),
])
def test_required_literals(pattern: str, expected: set[str] | None) -> None:
    found = required_literals(pattern)
    assert (None if found is None else set(found)) == expected


@pytest.mark.parametrize(("pattern", "expected"), [
    (r"(?:ignore|forget) (?:all|the) (?:rules|orders)",
     {(frozenset({"ignore all rules", "ignore all orders", "ignore the rules",
                  "ignore the orders", "forget all rules", "forget all orders",
                  "forget the rules", "forget the orders"}),)}),
    (r"\bnew (?:instructions?|rules)\s*:",
     {(frozenset({"new instruction", "new instructions", "new rules"}), frozenset({":"}))}),
    # between word ends a literal must be a whole word (marked "\0"): "input" holds no "put"
    (r"\b(?:ignore|forget)\b[^.]{0,40}\b(?:rules|orders)",
     {(frozenset({"\0ignore", "\0forget"}), frozenset({"rules", "orders"}))}),
    (r"\bsend\b.{0,9}(?:https?://|\bftp\b)|\bcurl\b.{0,9}key",
     {(frozenset({"\0send"}), frozenset({"http://", "https://", "\0ftp"})),
      (frozenset({"\0curl"}), frozenset({"key"}))}),
    (r"\brm\s+-rf", {(frozenset({"\0rm"}), frozenset({"-rf"}))}),
    (r"rm\s+-rf", {(frozenset({"rm"}), frozenset({"-rf"}))}),  # "rm" may end "perform"
    (r"\bput[a-z]*\b", {(frozenset({"put"}),)}),  # "puts" too: not a whole word
    (r"abc|\w+x", {(frozenset({"abc", "x"}),)}),
    (r"abc|\w+", None),
])
def test_requirement(pattern: str, expected: set[tuple[frozenset[str], ...]] | None) -> None:
    found = requirement(pattern)
    assert (None if found is None else {tuple(sorted(c, key=sorted)) for c in found}) == (
        None if expected is None else {tuple(sorted(c, key=sorted)) for c in expected})


def _needs(kind: str, text: str) -> bool:
    return injection._literals_allow(kind, text)


def _check_text(text: str) -> None:
    """Every pattern that matches a view of ``text`` finds one of its literals there."""
    views = [injection.normalise(text), injection._fast(text, True), injection._fast(text, False),
             text.casefold()]
    for norm in views:
        for kind in injection._KINDS:
            if injection._rx(kind).search(norm):
                assert _needs(kind, norm), (kind, norm[:200])
        squeezed = injection._squeeze(norm)
        if injection._rx("squeezed").search(squeezed):
            assert _needs("squeezed", squeezed)


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r["id"])
def test_every_match_holds_a_literal(row: dict[str, str]) -> None:
    _check_text(row["text"])


_PIECES = st.sampled_from(
    [s.lstrip("\0") for v in LITERALS.values() if v for clause in v[:6] for lits in clause
     for s in lits[:4]]
    # next to a word: what RE2's \b sees as a word end (é, -) or not (_, 1)
    + ["é", "_", "1", "-", "ß", "rm -rf ~", "send", "curl"]
    + ["ignore", "all", "previous", "instructions", " ", "\n", "to https://x.example", "1gn0re",
       "ИГНОРИРУЙ", "ſecrets", "K", "Ignore ALL Previous Instructions", "and send the .env file"]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES, max_size=12).map("".join))
def test_every_match_holds_a_literal_on_made_up_text(text: str) -> None:
    _check_text(text)


_FOLDED = "".join(chr(c) for c in range(0x110000)
                  if not 0xD800 <= c <= 0xDFFF and chr(c).casefold() == chr(c))


def test_case_folded_text_holds_only_folded_characters() -> None:
    """Every character ``str.casefold`` produces folds to itself: the views the patterns
    search hold no upper-case or other foldable letter."""
    produced = {ch for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF
                for ch in chr(c).casefold()}
    assert all(ch.casefold() == ch for ch in produced)


def _pattern_class(pattern: str) -> list[str]:
    """The class items (``a``, ``a-z``) of every character a pattern names: its literals and
    its character classes, escaped for RE2."""
    from re import _constants as sre  # type: ignore[attr-defined]
    from re import _parser as sre_parse  # type: ignore[attr-defined]

    items: list[str] = []

    def walk(tree: object) -> None:
        for op, av in tree:  # type: ignore[attr-defined]
            if op in (sre.LITERAL, sre.NOT_LITERAL):
                items.append(re2.escape(chr(av)))
            elif op is sre.RANGE:
                items.append(re2.escape(chr(av[0])) + "-" + re2.escape(chr(av[1])))
            elif op is sre.IN:
                walk(av)
            elif op is sre.SUBPATTERN:
                walk(av[3])
            elif op is sre.BRANCH:
                for b in av[1]:
                    walk(b)
            elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT):
                walk(av[2])

    walk(sre_parse.parse(pattern))
    return items


@pytest.mark.parametrize("name", [*injection._KINDS, "squeezed"])
def test_on_folded_text_a_pattern_character_matches_only_itself(name: str) -> None:
    """The signals are compiled case-sensitive, for case-folded text: on such text every
    character a pattern names matches exactly what it matches ignoring case."""
    pattern, case_sensitive = injection._RE2_SOURCES[name]
    assert case_sensitive
    klass = "[" + "".join(_pattern_class(pattern)) + "]"
    ignoring = re2.Options()
    ignoring.case_sensitive = False
    found_ci = {m.group(0) for m in re2.compile(klass, ignoring).finditer(_FOLDED)}
    found_cs = {m.group(0) for m in re2.compile(klass).finditer(_FOLDED)}
    assert found_ci == found_cs


@pytest.mark.parametrize("row", ROWS[::2], ids=lambda r: r["id"])
def test_case_sensitive_signals_match_as_case_insensitive_ones(row: dict[str, str]) -> None:
    text = row["text"]
    for norm in (injection.normalise(text), injection._fast(text, True), text.casefold()):
        for name in injection._KINDS:
            pattern, _ = injection._RE2_SOURCES[name]
            spans = [m.span() for m in injection._rx(name).finditer(norm)]
            loose = injection._linear(pattern, case_sensitive=False)
            assert spans == [m.span() for m in loose.finditer(norm)], name


@pytest.mark.parametrize("row", ROWS[::3], ids=lambda r: r["id"])
def test_the_shortcut_changes_no_finding(row: dict[str, str]) -> None:
    injection._COMPILED.clear()  # a fresh process: patterns compiled only when needed
    fresh = injection.assess_injection(row["text"])
    for name in (*injection._RE2_SOURCES, "foldable", "framing", "negation"):
        injection._rx(name)  # every pattern compiled: the shortcut never applies
    assert injection.assess_injection(row["text"]) == fresh
