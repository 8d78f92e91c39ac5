"""SA2xx format-specification rules and SA3xx anti-patterns.

The default profile reports what a user should act on: portability (unknown keys, colours,
names other harnesses refuse) as warnings; the specification's style rules (lengths, sections,
metadata formats) and `maxTurns` advice only under --strict or when selected.
"""

from __future__ import annotations

import pytest

from subagents.diagnostics import Severity
from subagents.lint.config import Config
from subagents.lint.rules.catalog import RULES, Category, Profile
from validate_helpers import BODY, GOOD_FRONT, agent, diags, only

SPEC_ONLY = ("SA112", "SA113", "SA201", "SA202", "SA203")
PORTABILITY = ("SA204", "SA205", "SA206")


def test_spec_rules_are_off_by_default_and_errors_when_strict() -> None:
    for code in SPEC_ONLY:
        assert RULES[code].severity(Profile.DEFAULT) is None, code
        assert RULES[code].severity(Profile.STRICT) is Severity.ERROR, code
    for code in PORTABILITY:
        assert RULES[code].severity(Profile.DEFAULT) is Severity.WARNING, code
        assert RULES[code].severity(Profile.STRICT) is Severity.ERROR, code
    assert RULES["SA207"].default is None and RULES["SA207"].strict is Severity.INFO
    for rule in RULES.values():
        if rule.category is Category.SECURITY and rule.code != "SA406":
            assert rule.default is rule.strict is Severity.ERROR
            assert not rule.silenceable
    # a suspicion of injection warns by default, errs when strict (issue 20)
    sa406 = RULES["SA406"]
    assert sa406.default is Severity.WARNING and sa406.strict is Severity.ERROR
    assert not sa406.silenceable


@pytest.mark.parametrize(("desc", "n"), [("Too short", 9), ("x" * 201, 201)])
def test_description_length(desc: str, n: int) -> None:
    text = agent(f"name: x-agent\ndescription: {desc}\nmaxTurns: 5")
    assert only(diags(text), "SA201") == []
    (d,) = only(diags(text, strict=True), "SA201")
    assert (d.line, d.column, d.severity) == (3, 14, Severity.ERROR)
    assert str(n) in d.message
    (s,) = only(diags(text, config=Config(select=("SA201",))), "SA201")
    assert s.severity is Severity.WARNING  # selected in the default profile: advice


@pytest.mark.parametrize("body", ["## Role\nShort.\n", "## Role\n" + "word " * 2100])
def test_prompt_length(body: str) -> None:
    (d,) = only(diags(agent(GOOD_FRONT, body=body), strict=True), "SA202")
    assert d.line == 7


def test_missing_sections_listed() -> None:
    body = "## Role\nYou are a reviewer.\n\n### Core Capabilities\n- diffs\n" + "More. " * 20
    (d,) = only(diags(agent(GOOD_FRONT, body=body), strict=True), "SA203")
    assert d.line == 7
    assert "Methodology" in d.message and "Constraints" in d.message
    assert "Role" not in d.message.split("no")[1].split("Methodology")[0]
    assert only(diags(agent(GOOD_FRONT), strict=True), "SA203") == []


def test_unknown_key_and_color() -> None:
    ds = diags(agent(GOOD_FRONT + "colour: red\ncolor: teal\n"))
    (u,) = only(ds, "SA204")
    (c,) = only(ds, "SA205")
    assert (u.line, u.column) == (6, 1) and "colour" in u.message
    assert (c.line, c.column) == (7, 8) and c.severity is Severity.WARNING
    assert only(diags(agent(GOOD_FRONT + "color: cyan\n")), "SA205") == []
    (m,) = only(diags(agent(GOOD_FRONT + "color: magenta\n")), "SA205")
    assert "Claude Code 2.1.332 ignores" in m.message  # its 8 colours have no magenta
    (k,) = only(diags(agent(GOOD_FRONT + "disallowed-tools: Write\n")), "SA204")
    assert k.hint == "did you mean `disallowedTools`?"
    (k,) = only(diags(agent(GOOD_FRONT + "colr: red\n")), "SA204")
    assert k.hint == "did you mean `color`?"
    # the closest spelling is not the meaning: an allowlist is `tools`, not `disallowedTools`
    (k,) = only(diags(agent(GOOD_FRONT + "allowedTools: Read\n")), "SA204")
    assert k.hint == "did you mean `tools`?"


@pytest.mark.parametrize(("name", "bad"), [("code-reviewer", False), ("Code Reviewer", True),
                                           ("snake_case", True), ("a" * 51, True)])
def test_name_kebab_case(name: str, bad: bool) -> None:
    ds = diags(agent(f"name: {name}\ndescription: Reviews diffs for problems\nmaxTurns: 3"))
    assert len(only(ds, "SA206")) == int(bad)


def test_reviewer_with_write_tools() -> None:
    ds = diags(agent("name: code-reviewer\ndescription: Reviews diffs for problems\n"
                     "tools: Read, Edit, Bash\nmaxTurns: 4"))
    (d,) = only(ds, "SA301")
    assert d.line == 4 and "Edit" in d.message
    # inheriting every tool is write access too, unless the denylist removes it
    assert only(diags(agent("name: security-auditor\ndescription: Audits the code\n"
                            "maxTurns: 4")), "SA301")
    assert not only(diags(agent("name: security-auditor\ndescription: Audits the code base\n"
                                "disallowedTools: Write, Edit, MultiEdit, NotebookEdit\n"
                                "maxTurns: 4")), "SA301")
    # plan mode cannot mutate, whatever the tools
    assert not only(diags(agent("name: researcher\ndescription: Researches the codebase\n"
                                "permissionMode: plan\nmaxTurns: 4")), "SA301")
    # an implementer may write
    assert not only(diags(agent("name: implementer\ndescription: Implements features\n"
                                "maxTurns: 4")), "SA301")


def test_missing_max_turns_and_too_many_skills() -> None:
    ds = diags(agent("name: x-agent\ndescription: Reviews diffs for problems\n"
                     "skills: a, b, c, d"))
    assert only(ds, "SA302") == []  # maxTurns advice: --strict or select only
    text = agent("name: x-agent\ndescription: Reviews diffs for problems\nskills: a, b, c, d")
    assert [d.line for d in only(diags(text, strict=True), "SA302")] == [1]
    assert [d.line for d in only(ds, "SA303")] == [4]
    assert only(diags(agent(GOOD_FRONT + "skills: a, b, c\n")), "SA303") == []


@pytest.mark.parametrize(("desc", "vague"), [
    ("Use this agent for development tasks", True),
    ("Helps with coding", True),
    ("general purpose", True),
    ("Use when implementing TypeScript features with Prisma in src/features", False),
    ("Reviews recent diffs for security and style problems", False),
])
def test_vague_description(desc: str, vague: bool) -> None:
    ds = diags(agent(f"name: x-agent\ndescription: {desc}\nmaxTurns: 3"))
    assert len(only(ds, "SA304")) == int(vague)


def test_strict_turns_spec_warnings_into_errors_only() -> None:
    text = agent("name: Bad_Name\ndescription: short\nfoo: 1", body="tiny")
    default = {d.rule: d.severity for d in diags(text)}
    strict = {d.rule: d.severity for d in diags(text, strict=True)}
    for code in ("SA204", "SA206"):
        assert default[code] is Severity.WARNING and strict[code] is Severity.ERROR
    for code in ("SA201", "SA202", "SA203", "SA302"):
        assert code not in default
    assert strict["SA201"] is Severity.ERROR
    assert strict["SA302"] is Severity.WARNING  # anti-patterns stay advice
    assert BODY
