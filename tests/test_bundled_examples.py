"""The bundled examples: good agents are clean, broken ones say exactly what they should,
`fix` repairs the fixable one, and examples/README.md shows the real output."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from fix_helpers import load_frontmatter
from subagents.cli.main import cli
from subagents.definition import Dialect
from subagents.diagnostics import Severity
from subagents.harnesses.loader import read_agent_file
from subagents.lint.validate import validate_paths

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
DEMO = EXAMPLES / "demo-project"
AGENTS = DEMO / ".claude" / "agents"
NANOCLAW = EXAMPLES / "nanoclaw" / "groups"

GOOD = (
    "code-reviewer",
    "security-auditor",
    "implementer-tester",
    "researcher",
    "architect-review",
    "docs-writer",
    "test-runner",
    "db-migration",
)
BROKEN = {
    # file -> the exact (rule, line) diagnostics it is there to show
    # Claude Code 2.1.330 skips it: `<example>` lines at column 0 continue the description
    "release-notes": {("SA005", 3)},
    # Claude Code 2.1.330 loads it but drops the tool `Serach` and ignores `readonly`
    "deploy-checker": {("SA104", 7), ("SA106", 8)},
}


def test_the_demo_holds_exactly_these_agents() -> None:
    assert sorted(p.stem for p in AGENTS.glob("*.md")) == sorted([*GOOD, *BROKEN])


@pytest.mark.parametrize("name", GOOD)
def test_good_agents_load_cleanly_even_under_strict(name: str) -> None:
    path = AGENTS / f"{name}.md"
    result = read_agent_file(path)
    assert result.ok and not result.diagnostics, result.diagnostics
    defn = result.definition
    assert defn is not None and defn.name == name
    assert defn.max_turns is not None and defn.max_turns > 0
    for strict in (False, True):
        report = validate_paths([path], strict=strict)
        assert report.diagnostics == [], [d.format_text() for d in report.diagnostics]


@pytest.mark.parametrize("name", GOOD)
def test_good_agents_have_two_or_three_usage_examples(name: str) -> None:
    defn = read_agent_file(AGENTS / f"{name}.md").definition
    assert defn is not None
    body = defn.system_prompt
    assert "\n## Usage Examples\n" in body
    section = body.split("\n## Usage Examples\n", 1)[1]
    users = re.findall(r"^User: (.+)$", section, re.M)
    assert 2 <= len(users) <= 3


def test_good_agents_are_distinct_enough_to_route() -> None:
    report = validate_paths([AGENTS / f"{n}.md" for n in GOOD])
    assert report.diagnostics == []  # includes SA602 (similar descriptions) and SA601
    descriptions = [read_agent_file(AGENTS / f"{n}.md").definition for n in GOOD]
    assert len({d.description for d in descriptions if d is not None}) == len(GOOD)


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_broken_agents_produce_exactly_the_intended_diagnostics(name: str) -> None:
    report = validate_paths([AGENTS / f"{name}.md"])
    found = {(d.rule, d.line) for d in report.diagnostics}
    assert found == BROKEN[name], [d.format_text() for d in report.diagnostics]
    assert all(d.severity is Severity.ERROR for d in report.diagnostics)


def test_claude_code_really_skips_or_misreads_the_broken_ones() -> None:
    skipped = read_agent_file(AGENTS / "release-notes.md").claude_code
    assert skipped is not None and not skipped.loaded
    misread = read_agent_file(AGENTS / "deploy-checker.md").claude_code
    assert misread is not None and misread.loaded
    assert [n.key for n in misread.notes] == ["permissionMode"]
    assert misread.tools is not None and "Serach" in misread.tools
    for name in GOOD:
        view = read_agent_file(AGENTS / f"{name}.md").claude_code
        assert view is not None and view.loaded and view.notes == ()


def test_fix_repairs_the_fixable_one_in_a_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy = tmp_path / "demo"
    shutil.copytree(DEMO, copy)
    (copy / ".git").mkdir()
    monkeypatch.chdir(copy)
    before = {p.name: p.read_bytes() for p in (copy / ".claude/agents").glob("*.md")}
    lines = before["release-notes.md"].decode().splitlines()
    # the whole text the author wrote, up to the next real key (`model:`)
    intended = "\n".join([lines[2].removeprefix("description: "), *lines[3:7]])

    result = CliRunner().invoke(cli, ["fix"])
    assert result.exit_code == 0, result.output
    assert "fixed: .claude/agents/release-notes.md" in result.output

    after = {p.name: p.read_bytes() for p in (copy / ".claude/agents").glob("*.md")}
    changed = {n for n in before if before[n] != after[n]}
    assert changed == {"release-notes.md"}  # deploy-checker needs a human: untouched
    assert load_frontmatter(after["release-notes.md"].decode())["description"] == intended

    report = validate_paths([copy / ".claude/agents"])
    assert {(d.rule, Path(d.path).stem) for d in report.diagnostics} == {
        ("SA104", "deploy-checker"),
        ("SA106", "deploy-checker"),
    }
    # the original examples were not touched
    assert (AGENTS / "release-notes.md").read_bytes() == before["release-notes.md"]


def _console_block(after_command: str) -> str:
    """The output lines following ``$ <command>`` in examples/README.md, up to the next ``$``."""
    text = (EXAMPLES / "README.md").read_text()
    start = text.index(f"$ {after_command}\n") + len(f"$ {after_command}\n")
    lines = []
    for line in text[start:].splitlines():
        if line.startswith(("$ ", "```")):
            break
        lines.append(line)
    return "\n".join(lines) + "\n"


def test_readme_shows_the_real_validate_and_fix_output(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(DEMO)  # HOME is redirected per test, so no user agents join in
    validate = CliRunner().invoke(cli, ["validate"])
    assert validate.exit_code == 1
    assert validate.stdout == _console_block("subagents validate")
    fix = CliRunner().invoke(cli, ["fix", "--diff"])
    assert fix.exit_code == 0
    assert fix.stdout + fix.stderr == _console_block("subagents fix --diff")


@pytest.mark.parametrize("group", ["global", "family-chat"])
def test_nanoclaw_stores_are_valid(group: str) -> None:
    path = NANOCLAW / group / "agents.json"
    result = read_agent_file(path)
    assert result.dialect is Dialect.JSON
    assert result.ok and len(result.definitions) == 2
    report = validate_paths([path])
    assert report.diagnostics == []
    readme = (EXAMPLES / "README.md").read_text()
    assert f"$ subagents validate examples/nanoclaw/groups/{group}/agents.json\n" in readme


def test_nanoclaw_group_overrides_global_researcher() -> None:
    global_ = json.loads((NANOCLAW / "global" / "agents.json").read_text())
    group = json.loads((NANOCLAW / "family-chat" / "agents.json").read_text())
    merged = {**global_, **group}  # seed 003: same name, the group wins
    assert set(merged) == {"researcher", "coder", "fact-checker"}
    assert merged["researcher"]["model"] == "haiku"
