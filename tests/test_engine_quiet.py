"""A definition check declared quiet for some field values (``@quiet_when``) says nothing
about any definition given those values, whatever its other fields and context: the engine
answers it without calling it.  Also the checks' own shortcuts (``SA109``/``SA110`` on a file
with no hooks, ``SA114``'s test of an empty prompt)."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from subagents.definition import AgentDefinition, Dialect
from subagents.diagnostics import Diagnostic
from subagents.lint.config import Config
from subagents.lint.rules import base, engine, fields
from subagents.lint.rules.base import QUIET, RuleContext
from subagents.lint.validate import validate_text
from validate_helpers import checked_pairs

_FIELDS = {
    "name": ["a-reviewer", "Code Reviewer", "../up", "", "security_auditor"],
    "description": ["Reviews Python diffs for style problems", "general tasks", ""],
    "model": ["sonnet", "", "gpt-4", "Opus[1m]"],
    "tools": ["Read, Grep", "", "[]", "Read, Serach, foo.bar", "Read, Workflow", "[Read, Write]"],
    "disallowedTools": ["Write", "[]", "Bash(rm:*)"],
    "color": ["red", "teal", "''"],
    "maxTurns": ["0", "3", "x", "-1"],
    "skills": ["[a, b, c, d]", "[a]", "[]", "[../x]"],
    "hooks": ["{}", "x", "{Stop: []}", "{Foo: [{hooks: [{type: bad}]}]}", "[]", "{Stop: x}",
              "{PreToolUse: [{matcher: Bash, hooks: [{type: command, command: ls}]}]}"],
    "version": ["1.0.0", "x", "''"],
    "tags": ["[]", "['']", "[a]"],
    "effort": ["high", "x", "''"],
    "isolation": ["remote", "y", "''"],
    "permissionMode": ["plan", "x", "''"],
    "keywords": ["[a, a, '']", "[k]"],
    "mcpServers": ["{}", "{a: {}}", "{b: {command: x}}", "x"],
    "foo": ["1"],
}
_BODIES = ["## Role\nYou review.\n", "", "   \n", "\u2028\u3000\n", "Plain text body " * 20]


def _texts(count: int, seed: int) -> Iterator[str]:
    rnd = random.Random(seed)
    for _ in range(count):
        lines = [f"{k}: {rnd.choice(v)}" for k, v in _FIELDS.items() if rnd.random() < 0.4]
        yield "---\n" + "\n".join(lines) + "\n---\n" + rnd.choice(_BODIES)


def _pairs(dialect: Dialect, monkeypatch: pytest.MonkeyPatch,
           count: int = 120) -> list[tuple[AgentDefinition, RuleContext]]:
    return checked_pairs(_texts(count, seed=len(dialect.value)), monkeypatch, dialect=dialect,
                         strict=True, config=Config(extra_tools=frozenset({"Mine"})))


def test_the_common_checks_declare_their_quiet_values() -> None:
    names = {c.__name__ for c in QUIET}
    assert {"check_tools", "check_model", "check_enums", "check_max_turns", "check_color",
            "check_skills", "check_mcp_servers", "check_unknown_keys"} <= names


@pytest.mark.parametrize("dialect", [Dialect.CLAUDE, Dialect.CODEX_MD])
def test_a_check_says_nothing_for_its_quiet_values(dialect: Dialect,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    pairs = _pairs(dialect, monkeypatch)
    assert pairs
    spoke = 0
    for check, (names, values) in QUIET.items():
        for defn, ctx in pairs:
            spoke += bool(list(check(defn, ctx)))  # type: ignore[operator]
            quiet = defn.evolve(**dict(zip(names, values, strict=True)))
            for other in (Dialect.CLAUDE, Dialect.CODEX_MD, Dialect.JSON):
                for claude_code in (False, True):
                    octx = RuleContext(ctx.path, ctx.config, other, ctx.document, ctx.text,
                                       ctx.reader_findings, claude_code)
                    assert list(check(quiet.evolve(dialect=other), octx)) == [], (  # type: ignore[operator]
                        check, names, other)
    assert spoke  # the same definitions, not given the quiet values, do find things


@pytest.mark.parametrize("dialect", [Dialect.CLAUDE, Dialect.CODEX_MD])
def test_the_engine_finds_what_every_check_finds(dialect: Dialect,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    found = 0
    for defn, ctx in _pairs(dialect, monkeypatch):
        plain: list[Diagnostic] = []
        for check, _codes in engine.checks_for(ctx.checks or engine._plan(
                engine.DEFINITION_RULES), defn.dialect, ctx.claude_code):
            plain.extend(check(defn, ctx))
        assert list(engine.check_definition(defn, ctx)) == plain
        found += len(plain)
    assert found


def test_a_check_whose_values_cannot_be_compared_is_an_internal_error(
        monkeypatch: pytest.MonkeyPatch) -> None:
    class Odd:
        def __eq__(self, other: object) -> bool:
            raise ValueError("no")

        __hash__ = object.__hash__

    defn = AgentDefinition(name="a", description="Reviews diffs for style problems",
                           color=Odd())  # type: ignore[arg-type]
    ctx = RuleContext(path="p", config=Config(), dialect=Dialect.CLAUDE)
    out = [d for d in engine.check_definition(defn, ctx) if d.rule == "SA000"]
    assert out and "check_color" in out[0].message


def test_hooks_has_one_spelling() -> None:
    # (check_hooks answers a file with no hooks by looking for this one key)
    assert set(base._NODE_KEYS.get("hooks") or ("hooks",)) == {"hooks"}


def test_a_dropped_hooks_key_is_still_judged() -> None:
    # the reader keeps no hook of these (the definition has none): the key is judged
    for value, codes in (("{Foo: [{hooks: [{type: bad}]}]}", ["SA109", "SA110"]),
                         ("{Stop: x}", ["SA110"]), ("{Stop: [{matcher: 1, hooks: []}]}",
                                                    ["SA110"])):
        text = f"---\nname: a\ndescription: Reviews diffs for style\nhooks: {value}\n---\nhi\n"
        assert [d.rule for d in validate_text(text)] == codes, value


_SPACES = [chr(c) for c in range(0x3001) if chr(c).isspace()] + ["", "a", "\u200b", "x y"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(_SPACES), st.text(max_size=3)), max_size=6))
def test_an_empty_prompt_is_what_strip_finds(parts: list[str]) -> None:
    prompt = "".join(parts)
    defn = AgentDefinition(name="a", system_prompt=prompt)
    ctx = RuleContext(path="p", config=Config(), dialect=Dialect.CLAUDE)
    assert bool(list(fields.check_prompt(defn, ctx))) is not bool(prompt.strip())
