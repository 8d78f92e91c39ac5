"""Every harness answers the reading questions (what loads, a plugin's file, the declared name,
a refusal) through the one :class:`Harness` interface; Claude Code is one harness among them.

The commands never test for Claude Code: the registry and ``convert`` ask the harness of a
source, and the facts that are data (one name in two files, dot-files) are table cells.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from subagents.definition import Dialect
from subagents.harnesses import HARNESS_NAMES, get_harness
from subagents.harnesses.base import Harness
from subagents.harnesses.loader import parse_agent_text, read_agent_file
from subagents.harnesses.table import get_spec, same_name_rule

SRC = Path(__file__).resolve().parents[1] / "src" / "subagents"
# grep 1 of docs/architecture.md: a test for Claude Code outside its own modules
_CLAUDE_BRANCH = re.compile(
    r'in HARNESS_DIALECTS|(is|is not|==|!=) Dialect\.CLAUDE|\.claude_code is (not )?None'
    r'|dialect (==|!=) "claude"')


@pytest.mark.parametrize("name", HARNESS_NAMES)
def test_every_harness_answers_the_reading_questions(name: str) -> None:
    harness = get_harness(name)
    assert isinstance(harness, Harness)
    for method in ("loaded", "for_plugin", "declared_name", "refuses"):
        assert callable(getattr(harness, method))


def test_claude_code_answers_with_its_emulation() -> None:
    text = "---\nname: reviewer\ndescription: Reviews diffs\nmaxTurns: 3\n---\nReview.\n"
    result = parse_agent_text(text, dialect=Dialect.CLAUDE)
    harness = get_harness("claude")
    (defn,) = harness.loaded(result)
    assert defn.name == "reviewer" and defn.max_turns == 3
    assert result.loaded == (defn,)  # LoadResult.loaded asks the same harness
    skipped = parse_agent_text("---\nname: reviewer\n---\nReview.\n", dialect=Dialect.CLAUDE)
    assert harness.loaded(skipped) == () and harness.declared_name(skipped) == "reviewer"


def test_a_plugin_file_loads_on_its_own_terms(tmp_path: Path) -> None:
    """No description: skipped in a project folder, loaded from a plugin (named after the
    file, described after the plugin) -- through ClaudeHarness.for_plugin, not a registry branch."""
    path = tmp_path / "agents" / "helper.md"
    path.parent.mkdir()
    path.write_text("---\nname: helper\n---\nHelp.\n", encoding="utf-8")
    harness = get_harness("claude")
    result = read_agent_file(path, dialect=Dialect.CLAUDE)
    assert harness.loaded(result) == ()
    (defn,) = harness.loaded(harness.for_plugin(result, "tools:sub"))
    assert defn.name == "helper" and "tools" in defn.description


def test_codex_markdown_refuses_what_its_reader_rejects() -> None:
    harness = get_harness("codex-md")
    bad = parse_agent_text("---\nname: [x]\n---\nBody\n", dialect=Dialect.CODEX_MD)
    assert harness.loaded(bad) == ()
    good = parse_agent_text("---\nname: x y\ndescription: d\n---\nBody\n",
                            dialect=Dialect.CODEX_MD)
    (defn,) = harness.loaded(good)
    problem = harness.refuses(defn, "x.md")  # codex-subagents' own name rule
    assert problem is not None and problem.path == "x.md"
    assert get_harness("claude").refuses(defn, "x.md") is None


def test_same_name_and_hidden_files_are_table_cells() -> None:
    assert same_name_rule("claude") == "last" and get_spec("claude").hidden
    assert same_name_rule("codex-md") == "neither" and not get_spec("codex-md").hidden
    assert same_name_rule("gemini") == "first"
    assert same_name_rule("json") == "neither"  # a format without a harness row


@pytest.mark.parametrize("module", [
    *sorted((SRC / "registry").glob("*.py")), SRC / "harnesses" / "loader.py",
    SRC / "repair" / "sync.py", SRC / "lint" / "rules"
    / "scope.py", SRC / "registry" / "harness_view.py"])
def test_commands_do_not_test_for_claude_code(module: Path) -> None:
    lines = [f"{module.name}:{n}: {line.strip()}"
             for n, line in enumerate(module.read_text(encoding="utf-8").splitlines(), 1)
             if _CLAUDE_BRANCH.search(line)]
    assert lines == []


def test_a_harness_with_its_own_reader_refuses_agents_json_text(tmp_path: Path) -> None:
    """configured_registry: a usage problem is the library's UsageError (the CLI prints it)."""
    from subagents.errors import UsageError
    from subagents.registry.configured import configured_registry

    with pytest.raises(UsageError, match="--dialect gemini"):
        configured_registry(agents="{}", dialect=Dialect.GEMINI, cwd=tmp_path)
