"""The engine runs a definition check only for the dialects it declared (``@applies``): each
check is silent outside its declaration, and every definition gets the same findings, in the
same order, as from running every check.  Also ``SA301``'s role words against its pattern."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from subagents.definition import AgentDefinition, Dialect
from subagents.diagnostics import Diagnostic
from subagents.lint.rules import engine, spec
from subagents.lint.rules.base import APPLIES, RuleContext
from validate_helpers import checked_pairs

_FIELDS = {
    "name": ["a-reviewer", "Code Reviewer", "-x", "a:b", "../up", "~root", "", "ok", "security_auditor"],
    "description": ["Reviews Python diffs for style problems", "general tasks", "", "a b c",
                    "Use this agent for all development tasks.", "x" * 230, "-- ++"],
    "model": ["sonnet", "", "gpt-4", "claude-sonnet-4-5", "Opus[1m]"],
    "tools": ["Read, Grep", "", "[]", "Read, Serach, my-server, foo.bar", "[Read, Write]",
              "Read, ExitPlanMode"],
    "disallowedTools": ["Write", "[]", "Bash(rm:*)"],
    "color": ["red", "teal", ""],
    "maxTurns": ["0", "3", "x", "-1"],
    "skills": ["[a, b, c, d]", "[a]", "[]", "[../x]"],
    "hooks": ["{}", "x", "{Stop: []}", "{Foo: [{hooks: [{type: bad}]}]}",
              "{PreToolUse: [{matcher: Bash, hooks: [{type: command, command: ls}]}]}"],
    "version": ["1.0.0", "x", "''"],
    "tags": ["[]", "['']", "[a]"],
    "effort": ["high", "x", "''"],
    "isolation": ["remote", "y"],
    "permissionMode": ["plan", "x"],
    "keywords": ["[a, a, '']", "[k]"],
    "mcpServers": ["{}", "{a: {}}", "{b: {command: x}}"],
    "foo": ["1"],
    "prompt": ["hi"],
}
_BODIES = ["## Role\nYou review.\n", "", "   \n", "x" * 10_001, "Plain text body " * 20]


def _texts(count: int, seed: int) -> Iterator[str]:
    rnd = random.Random(seed)
    for _ in range(count):
        lines = [f"{k}: {rnd.choice(v)}" for k, v in _FIELDS.items() if rnd.random() < 0.35]
        yield "---\n" + "\n".join(lines) + "\n---\n" + rnd.choice(_BODIES)


def _pairs(texts: Iterator[str], dialect: Dialect, strict: bool,
           monkeypatch: pytest.MonkeyPatch) -> list[tuple[AgentDefinition, RuleContext]]:
    """Every (definition, context) ``validate`` gives the checks for these texts."""
    return checked_pairs(texts, monkeypatch, dialect=dialect, strict=strict)


def _every_check(defn: AgentDefinition, ctx: RuleContext) -> list[Diagnostic]:
    """The plain engine: every check of the context, whatever the dialect."""
    out: list[Diagnostic] = []
    checks = ctx.checks if ctx.checks is not None else engine._plan(engine.DEFINITION_RULES)
    for check, _codes in checks:
        try:
            out.extend(check(defn, ctx))
        except Exception as exc:
            out.append(engine._internal(ctx.path, check, exc))
    return out


_DIALECTS = (Dialect.CLAUDE, Dialect.CODEX_MD, Dialect.JSON)


@pytest.mark.parametrize("dialect", _DIALECTS)
@pytest.mark.parametrize("strict", [False, True])
def test_findings_are_those_of_every_check(dialect: Dialect, strict: bool,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    texts = _texts(80, seed=len(dialect.value) + strict)
    if dialect is Dialect.JSON:
        texts = iter(['{"a": {"description": "d", "prompt": "p", "model": "gpt"}}',
                      '{"B/x": {"description": "", "prompt": "", "tools": ["Read", "Foo"]}}',
                      '{"rev-iewer": {"description": "Reviews code", "prompt": "x",'
                      ' "tools": ["Write"], "skills": ["a", "b", "c", "../d"]}}'])
    pairs = _pairs(texts, dialect, strict, monkeypatch)
    assert pairs
    found = 0
    for defn, ctx in pairs:
        ours = list(engine.check_definition(defn, ctx))
        assert ours == _every_check(defn, ctx)
        found += len(ours)
    assert found  # the texts do trigger checks


def _declared_silent(dialect: Dialect, claude_code: bool) -> list[object]:
    """The checks whose declaration excludes this dialect (and reading)."""
    out = []
    for check, declared in APPLIES.items():
        if ((declared.only is not None and dialect not in declared.only)
                or dialect in declared.never
                or (not declared.on_claude_code and claude_code
                    and dialect is Dialect.CLAUDE)):
            out.append(check)
    return out


def test_every_declaration_excludes_something() -> None:
    assert len(APPLIES) >= 10
    for declared in APPLIES.values():
        assert declared.only is not None or declared.never or not declared.on_claude_code


@pytest.mark.parametrize("dialect", list(Dialect))
def test_a_check_is_silent_outside_its_declaration(dialect: Dialect,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    # definitions of every kind read as Claude files, then given each dialect (and each
    # reading): a check declared not to judge that dialect finds nothing in any of them
    pairs = _pairs(_texts(40, seed=7), Dialect.CLAUDE, True, monkeypatch)
    pairs += _pairs(_texts(20, seed=8), Dialect.CODEX_MD, True, monkeypatch)
    for claude_code in (False, True):
        silent = _declared_silent(dialect, claude_code)
        for defn, ctx in pairs:
            other = defn.evolve(dialect=dialect)
            octx = RuleContext(path=ctx.path, config=ctx.config, dialect=dialect,
                               document=ctx.document, text=ctx.text,
                               reader_findings=ctx.reader_findings, claude_code=claude_code)
            for check in silent:
                assert list(check(other, octx)) == [], (check, dialect, claude_code)  # type: ignore[operator]


def test_checks_for_keeps_the_order_and_drops_only_declared() -> None:
    plan = engine._plan(engine.DEFINITION_RULES)
    for dialect in Dialect:
        for claude_code in (False, True):
            run = engine.checks_for(plan, dialect, claude_code)
            dropped = {c for c, _ in plan} - {c for c, _ in run}
            assert dropped == set(_declared_silent(dialect, claude_code))
            assert [c for c, _ in plan if c not in dropped] == [c for c, _ in run]


# -- the cheaper form of SA301 ------------------------------------------------------------

@given(st.text(alphabet=st.sampled_from("reviwadtschRAV-_ x"), max_size=24))
def test_role_words_gate_the_role_pattern(name: str) -> None:
    low = name.lower()
    if spec._READ_ONLY_ROLE_RE.search(low):
        assert "review" in low or "audit" in low or "research" in low
