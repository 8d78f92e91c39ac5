"""`subagents fix` on the command line: --diff, --check, exit codes, reports, discovery."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from fix_helpers import load_frontmatter
from subagents.cli.main import cli

BROKEN = b"---\nname: rev\ndescription: Use when: the user asks\ntools: Read\n---\nBody\n"
GOOD = b"---\nname: good\ndescription: Reviews code\n---\nBody\n"
TABS = b"---\nname: tabs\ndescription: Use when: x\n\tmodel: haiku\n---\nB\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    agents = tmp_path / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "rev.md").write_bytes(BROKEN)
    (agents / "good.md").write_bytes(GOOD)
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["fix", *args])
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def test_fix_without_paths_repairs_the_project_agents(project: Path) -> None:
    code, out, _ = run()
    assert code == 0, out
    assert "fixed: .claude/agents/rev.md" in out
    assert "re-wrote `description` as a block scalar" in out
    assert "1 fixed, 0 cannot be repaired, 1 already fine" in out
    fixed = (project / ".claude/agents/rev.md").read_text()
    assert load_frontmatter(fixed)["description"] == "Use when: the user asks"
    assert (project / ".claude/agents/good.md").read_bytes() == GOOD
    # a second run has nothing to do
    code, out, _ = run()
    assert code == 0 and "0 fixed" in out


def test_diff_prints_a_patch_and_writes_nothing(project: Path) -> None:
    code, out, err = run("--diff", ".claude/agents")
    assert code == 0
    assert out.startswith("--- a/.claude/agents/rev.md\n+++ b/.claude/agents/rev.md\n")
    assert "-description: Use when: the user asks\n" in out
    assert "+description: |-\n+  Use when: the user asks\n" in out
    assert "would fix: .claude/agents/rev.md" in err  # the report goes to stderr
    assert (project / ".claude/agents/rev.md").read_bytes() == BROKEN


def test_diff_applies_with_git_apply(project: Path) -> None:
    _, out, _ = run("--diff")
    (project / "fix.patch").write_text(out)
    applied = subprocess.run(
        ["git", "apply", "fix.patch"], cwd=project, capture_output=True, text=True, check=False
    )
    assert applied.returncode == 0, applied.stderr
    code, _, _ = run("--check")
    assert code == 0


def test_check_exits_1_when_something_would_change(project: Path) -> None:
    code, out, _ = run("--check")
    assert code == 1
    assert "would fix: .claude/agents/rev.md" in out
    assert (project / ".claude/agents/rev.md").read_bytes() == BROKEN
    code, _, _ = run("--check", ".claude/agents/good.md")
    assert code == 0


def test_unrepairable_file_is_reported_untouched_exit_1(project: Path) -> None:
    bad = project / ".claude/agents/tabs.md"
    bad.write_bytes(TABS)
    code, out, _ = run()
    assert code == 1
    assert "cannot repair (left untouched): .claude/agents/tabs.md" in out
    assert "SA013" in out
    assert bad.read_bytes() == TABS
    # the repairable one was still repaired: one bad file never stops the others
    assert (project / ".claude/agents/rev.md").read_bytes() != BROKEN


def test_json_report(project: Path) -> None:
    code, out, _ = run("--format", "json", "--check")
    assert code == 1
    data = json.loads(out)
    assert data["summary"] == {
        "files": 2,
        "fixed": 1,
        "unfixable": 0,
        "unchanged": 1,
        "unchanged_with_errors": 0,
        "skipped": 0,
        "written": False,
    }
    by_path = {f["path"]: f for f in data["files"]}
    rev = by_path[".claude/agents/rev.md"]
    assert rev["status"] == "fixed"
    assert rev["changes"][0]["line"] == 3 and rev["changes"][0]["code"] == "SA010"


def test_readme_in_a_folder_is_skipped_but_named_file_is_reported(project: Path) -> None:
    """Claude Code reads every *.md of .claude/agents, a README too (and skips it): fix walks
    the folder as Claude Code does and says why it leaves the README alone."""
    (project / ".claude/agents/README.md").write_text("# Our agents\n")
    code, out, _ = run(".claude/agents")
    assert code == 0 and "skipped: .claude/agents/README.md: no frontmatter" in out
    code, out, _ = run(".claude/agents/README.md")
    assert code == 1 and "SA003" in out


def test_tools_style_flag(project: Path) -> None:
    code, out, _ = run("--tools-style", "list", ".claude/agents/rev.md")
    assert code == 0
    text = (project / ".claude/agents/rev.md").read_text()
    assert "tools:\n  - Read\n" in text
    assert "wrote `tools` as a YAML list" in out


def test_missing_path_is_a_usage_error(project: Path) -> None:
    code, _, err = run("no/such/file.md")
    assert code == 2
    assert "no such file or folder: no/such/file.md" in err  # the words validate uses
    code, _, err = run("no/such/**/*.md")
    assert code == 2 and "no file matches" in err


def test_quoted_globs_are_expanded(project: Path) -> None:
    code, out, _ = run("--check", ".claude/**/*.md")
    assert code == 1 and "would fix: .claude/agents/rev.md" in out


def test_help_explains_the_repairs() -> None:
    result = CliRunner().invoke(cli, ["fix", "--help"])
    assert result.exit_code == 0
    for word in ("--diff", "--check", "--tools-style", "block scalar", "atomic"):
        assert word in result.output


def test_the_reason_a_repair_was_refused_is_shown(project: Path) -> None:
    bad = project / ".claude/agents/mangled.md"
    data = b"---\nname: c\ndescription: Use when: x\n  tools: Read\n---\nB\n"
    bad.write_bytes(data)
    code, out, _ = run(".claude/agents/mangled.md")
    assert code == 1
    assert "cannot repair (left untouched): .claude/agents/mangled.md" in out
    assert "why: line 4 looks like the `tools` field, indented" in out
    assert "SA010" in out
    assert bad.read_bytes() == data


def test_fix_counts_the_files_validate_counts_and_says_why_it_skips(tmp_path: Path) -> None:
    """A file without frontmatter, an empty file and a non-Markdown agent file found in a
    folder are counted and reported as skipped with the reason (they were left out silently,
    so fix counted fewer files than validate)."""
    folder = tmp_path / ".claude" / "agents"
    folder.mkdir(parents=True)
    (folder / "a.md").write_text("---\nname: a\ndescription: Does a.\n---\nDo a.\n")
    (folder / "notes.md").write_text("just notes\n")
    (folder / "empty.md").write_text("")
    (folder / "agents.json").write_text('{"b": {"description": "Does b.", "prompt": "Do b."}}')
    runner = CliRunner()
    checked = runner.invoke(cli, ["validate", str(folder), "--format", "json"])
    validated = json.loads(checked.stdout)["summary"]["files"]
    out = runner.invoke(cli, ["fix", "--check", "--format", "json", str(folder)])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["summary"]["files"] == validated == 4
    assert data["summary"]["skipped"] == 3
    text = runner.invoke(cli, ["fix", "--check", str(folder)])
    assert text.exit_code == 0
    assert "skipped: " in text.output and "notes.md: no frontmatter" in text.output
    assert "empty.md: the file is empty" in text.output
    assert "agents.json" in text.output
    assert "4 file(s)" in text.output
