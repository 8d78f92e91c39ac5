"""Each dialect's name grammar is written once (subagents.names) and every user agrees with it."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from subagents.cli.main import cli
from subagents.definition import AgentDefinition, Dialect
from subagents.lint.rules.catalog import RULES
from subagents.lint.validate import validate_text
from subagents.names import CODEX_NAME, JSON_NAME, PORTABLE_NAME
from subagents.repair.convert import convert_definitions

NAMES = ["ab", "abc", "a" * 64, "a" * 65, "Abc", "9abc", "ab_c", "ab-c", "ab.c", "abc\n",
         "a" * 50, "a" * 51, "ab c", "_abc", "-abc"]


def test_the_grammars() -> None:
    assert CODEX_NAME.matches("abc") and CODEX_NAME.matches("a" * 64)
    assert not CODEX_NAME.matches("ab") and not CODEX_NAME.matches("a" * 65)
    assert not CODEX_NAME.matches("abc\n")  # the whole name, not up to a newline
    assert PORTABLE_NAME.matches("a") and PORTABLE_NAME.matches("a" * 50)
    assert not PORTABLE_NAME.matches("a_b") and not PORTABLE_NAME.matches("a" * 51)
    assert JSON_NAME.matches("9_a-b") and not JSON_NAME.matches("A")


@pytest.mark.parametrize("name", NAMES)
def test_codex_lint_and_converter_agree_with_the_grammar(name: str) -> None:
    text = f"---\nname: {name!r}\ndescription: Reviews code.\n---\nYou review code.\n"
    lint = [d.rule for d in validate_text(text.replace("'", '"'), dialect=Dialect.CODEX_MD)]
    converted = convert_definitions(
        [AgentDefinition(name=name, description="d", system_prompt="p")], "codex-md")
    problems = [d.rule for d in converted.diagnostics if d.rule == "CV003"]
    valid = CODEX_NAME.matches(name)
    assert ("SA501" not in lint) == valid or not name.strip()
    assert (not problems) == valid


@pytest.mark.parametrize("name", ["abc", "ab", "a_b", "A-b", "a" * 50, "a" * 51])
@pytest.mark.parametrize("dialect", ["claude", "codex-md", "codex"])
def test_new_accepts_exactly_the_grammar(name: str, dialect: str, tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["new", name, "--dialect", dialect, "--cwd", str(tmp_path)])
    grammar = CODEX_NAME if dialect.startswith("codex") else PORTABLE_NAME
    assert (result.exit_code == 0) == grammar.matches(name), result.output


def test_the_rule_catalogue_quotes_the_grammars() -> None:
    assert CODEX_NAME.pattern in RULES["SA501"].doc
    assert JSON_NAME.pattern in RULES["SA504"].doc
    assert PORTABLE_NAME.pattern in RULES["SA206"].doc


def test_one_rewrite_suggests_a_valid_spelling_for_every_grammar() -> None:
    from subagents.names import CODEX_NAME, JSON_NAME, PORTABLE_NAME

    assert PORTABLE_NAME.suggest("Code Reviewer!") == "code-reviewer"
    assert PORTABLE_NAME.suggest("snake_case") == "snake-case"  # `_` is not portable
    assert JSON_NAME.suggest("Snake_Case x") == "snake_case-x"
    assert CODEX_NAME.suggest("1st Pass") == "agent-1st-pass"  # a letter must come first
    assert CODEX_NAME.suggest("ab") is None  # too short for Codex: no suggestion
    assert PORTABLE_NAME.suggest("!!!") is None
    long = PORTABLE_NAME.suggest("word " * 30)
    assert long is not None and len(long) <= 50 and not long.endswith("-")
    for grammar in (CODEX_NAME, JSON_NAME, PORTABLE_NAME):
        for name in ("Code Reviewer", "x.y.z", "UPPER_case-1", "émoji ✓ name"):
            got = grammar.suggest(name)
            assert got is None or grammar.matches(got), (grammar.pattern, name, got)
