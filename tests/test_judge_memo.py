"""Checks that remember what they found quiet (``SA104``'s pairs of tool lists, ``SA105``'s
valid models) and ``SA304``'s length bound give the findings of the plain computation: every
definition judged with the memory emptied before it, and again with everything remembered."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from subagents.definition import AgentDefinition, Dialect
from subagents.lint.config import Config
from subagents.lint.rules import fields, spec
from subagents.lint.rules.base import RuleContext
from validate_helpers import checked_pairs

_TOOLS = ["Read", "Grep", "Glob", "Write", "Edit", "Bash", "WebFetch", "Serach", "my-server",
          "foo.bar", "ExitPlanMode", "mcp__x__y", "Bash(git diff:*)", "Agent(a, b)", "Mine",
          "Task", "TodoWrite", "Workflow", ""]
_MODELS = ["sonnet", "Opus[1m]", "claude-sonnet-4-20250514", "gpt-4", "inherit", " haiku",
           "mine", "claude-", "anthropic.claude-x:1", "HAIKU"]


def _texts(count: int, seed: int) -> Iterator[str]:
    rnd = random.Random(seed)
    for _ in range(count):
        lines = ["name: a", "description: Reviews diffs"]
        if rnd.random() < 0.8:  # a few lists, so that most recur
            tools = rnd.sample(_TOOLS[:7] if rnd.random() < 0.7 else _TOOLS, rnd.randint(0, 4))
            lines.append("tools: " + ", ".join(tools))
        if rnd.random() < 0.3:
            lines.append("disallowedTools: " + rnd.choice(_TOOLS))
        if rnd.random() < 0.8:
            lines.append("model: " + rnd.choice(_MODELS))
        yield "---\n" + "\n".join(lines) + "\n---\nYou review.\n"


def _pairs(texts: Iterator[str], config: Config, dialect: Dialect,
           monkeypatch: pytest.MonkeyPatch) -> list[tuple[AgentDefinition, RuleContext]]:
    return checked_pairs(texts, monkeypatch, dialect=dialect, config=config)


def _forget() -> None:
    fields._QUIET_TOOLS[0] = (None, None, set())
    fields._VALID_MODELS.clear()


_CONFIGS = [Config(), Config(extra_tools=frozenset({"Mine", "foo.bar"})),
            Config(model_aliases={"mine": "claude-x", "gpt-4": "y"})]


@pytest.mark.parametrize("dialect", [Dialect.CLAUDE, Dialect.JSON])
def test_remembered_answers_are_the_computed_ones(dialect: Dialect,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    pairs = [p for i, config in enumerate(_CONFIGS)
             for p in _pairs(_texts(120, seed=i), config, Dialect.CLAUDE, monkeypatch)]
    if dialect is not Dialect.CLAUDE:
        pairs = [(d.evolve(dialect=dialect), c) for d, c in pairs]
    checks = (fields.check_tools, fields.check_model)
    plain = []
    for defn, ctx in pairs:
        row = []
        for check in checks:
            _forget()
            row.append(list(check(defn, ctx)))
        plain.append(row)
    _forget()
    found = remembered = 0
    for _ in range(2):  # (the second round: every quiet answer remembered)
        for (defn, ctx), row in zip(pairs, plain, strict=True):
            quiet = fields._QUIET_TOOLS[0][2]
            remembered += (defn.tools, defn.disallowed_tools) in quiet
            assert [list(check(defn, ctx)) for check in checks] == row
            found += sum(map(len, row))
    assert found and remembered > len(pairs) // 2
    assert fields._VALID_MODELS


def test_lists_not_given_as_tuples_are_judged_and_not_remembered() -> None:
    _forget()
    defn = AgentDefinition(name="a", description="d", tools=["Read", "Nope"])  # type: ignore[arg-type]
    ctx = RuleContext(path="p", config=Config(), dialect=Dialect.CLAUDE)
    first = list(fields.check_tools(defn, ctx))
    assert [d.rule for d in first] == ["SA104"]
    assert list(fields.check_tools(defn, ctx)) == first
    assert not fields._QUIET_TOOLS[0][2]


def test_the_memory_follows_the_profile_and_the_extra_tools() -> None:
    _forget()
    defn = AgentDefinition(name="a", description="d", tools=("Read", "Mine"))
    plain = RuleContext(path="p", config=Config(), dialect=Dialect.CLAUDE)
    extra = RuleContext(path="p", config=Config(extra_tools=frozenset({"Mine"})),
                        dialect=Dialect.CLAUDE)
    assert list(fields.check_tools(defn, extra)) == []
    assert (defn.tools, None) in fields._QUIET_TOOLS[0][2]
    assert [d.rule for d in fields.check_tools(defn, plain)] == ["SA104"]
    assert list(fields.check_tools(defn, extra)) == []


def test_a_model_valid_only_by_an_alias_is_not_remembered() -> None:
    _forget()
    defn = AgentDefinition(name="a", description="d", model="mine")
    aliased = RuleContext(path="p", config=Config(model_aliases={"mine": "x"}),
                          dialect=Dialect.CLAUDE)
    plain = RuleContext(path="p", config=Config(), dialect=Dialect.CLAUDE)
    assert list(fields.check_model(defn, aliased)) == []
    assert [d.rule for d in fields.check_model(defn, plain)] == ["SA105"]
    assert "mine" not in fields._VALID_MODELS


def test_the_vague_width_is_the_patterns() -> None:
    from re import _parser  # type: ignore[attr-defined]

    source, flags = spec._VAGUE_RE._source  # type: ignore[attr-defined]
    assert _parser.parse(source, flags).getwidth()[1] == spec._VAGUE_WIDTH


_VAGUE_PIECES = ["use this agent ", "an agent ", "for ", "to help with ", "all ", "misc ",
                 "development", "coding", " tasks", " work", ".", "Stuff", "ſtuff", "K", " ",
                 "\t", "\n", "everything", "x", "TASKS", "é"]


@settings(max_examples=600, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(_VAGUE_PIECES), st.text(max_size=4)), max_size=14))
def test_vague_with_the_width_is_vague_without(parts: list[str]) -> None:
    defn = AgentDefinition(name="a", description="".join(parts))
    ctx = RuleContext(path="p", config=Config(), dialect=Dialect.CLAUDE)
    ours = list(spec.check_vague(defn, ctx))
    width = spec._VAGUE_WIDTH
    spec._VAGUE_WIDTH = 10**9
    try:
        assert list(spec.check_vague(defn, ctx)) == ours
    finally:
        spec._VAGUE_WIDTH = width


def test_a_vague_text_at_the_width_is_found() -> None:
    text = "use this agent that helps with miscellaneous development tasks."
    assert len(text) == spec._VAGUE_WIDTH
    defn = AgentDefinition(name="a", description=text)
    ctx = RuleContext(path="p", config=Config(), dialect=Dialect.CLAUDE)
    assert [d.rule for d in spec.check_vague(defn, ctx)] == ["SA304"]
