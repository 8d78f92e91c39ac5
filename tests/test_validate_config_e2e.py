"""`[tool.subagents]` / `.subagents.toml` and the in-file silencer, end to end through the CLI.

Each key is shown to change what `subagents validate` prints and its exit code, run from the
project folder (paths relative to it) with HOME redirected.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from subagents.cli.main import cli
from validate_helpers import BODY, agent, write

FRONT = ("name: svc-agent\ndescription: Runs the team's deploy checks before a release\n"
         "tools: Read, computer-use, Deploy\nmodel: fast\nmaxTurns: 5\n")


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    write(tmp_path, ".claude/agents/svc.md", agent(FRONT, body="Short prompt.\n"))
    return tmp_path


def run(*args: str) -> tuple[int, dict[str, Any]]:
    result = CliRunner().invoke(cli, ["validate", "--format", "json", *args])
    assert result.exit_code in (0, 1), result.output
    return result.exit_code, json.loads(result.output)


def rules(data: dict[str, Any]) -> list[str]:
    return sorted(d["rule"] for d in data["diagnostics"])


def test_without_config(project: Path) -> None:
    code, data = run()
    assert code == 1
    # (prompt length and sections are specification style: --strict or select only)
    assert rules(data) == ["SA104", "SA104", "SA105"]
    assert {d["path"] for d in data["diagnostics"]} == {".claude/agents/svc.md"}


def test_extra_tools_model_aliases_and_ignore(project: Path) -> None:
    write(project, "pyproject.toml", '[tool.subagents]\nextra-tools = ["Deploy", "computer-use"]\n'
          'ignore = ["prompt-length"]\n\n[tool.subagents.model-aliases]\nfast = "claude-haiku-4-5"\n')
    code, data = run()
    # a configured name counts as written, even when it is not shaped like an identifier
    assert (code, rules(data)) == (0, [])


def test_select_and_subagents_toml_wins(project: Path) -> None:
    write(project, "pyproject.toml", '[tool.subagents]\nselect = ["SA1"]\n')
    assert rules(run()[1]) == ["SA104", "SA104", "SA105"]
    write(project, ".subagents.toml", 'select = ["SA2"]\n')
    code, data = run()
    # selecting a family turns on its rules that are off by default, as warnings
    assert (code, rules(data)) == (0, ["SA202", "SA203"])
    assert {d["severity"] for d in data["diagnostics"]} == {"warning"}
    # the command line replaces the configured selection
    assert rules(run("--select", "SA105")[1]) == ["SA105"]


def test_limits_and_strict(project: Path) -> None:
    write(project, ".subagents.toml", "max-file-size = 64\n")
    assert rules(run()[1]) == ["SA002"]
    write(project, ".subagents.toml", 'strict = true\nselect = ["SA2"]\n')
    code, data = run()
    assert code == 1 and {d["severity"] for d in data["diagnostics"]} == {"error"}


def test_per_file_ignores(project: Path) -> None:
    write(project, ".subagents.toml", 'strict = true\n[per-file-ignores]\n'
          '".claude/agents/svc.md" = ["SA1"]\n')
    assert rules(run()[1]) == ["SA202", "SA203"]


def test_in_file_silencer_in_frontmatter_and_body(project: Path) -> None:
    write(project, ".claude/agents/svc.md",
          agent(FRONT + "# subagents: ignore[SA104, unknown-model]\n", body="Short.\n"))
    assert rules(run("--strict")[1]) == ["SA202", "SA203"]
    write(project, ".claude/agents/svc.md",
          agent(FRONT, body="Short.\n<!-- subagents: ignore[SA104,SA105,SA2] -->\n"))
    assert run() == (0, {"summary": {"files": 1, "agents": 1, "errors": 0, "warnings": 0},
                         "diagnostics": []})


def test_in_file_silencer_cannot_silence_security(project: Path) -> None:
    token = "gh" + "p_" + "Q7x9Zk2LmP4nR8tV1wY3bC5dE6gH0jK2lM4n"
    write(project, ".claude/agents/svc.md",
          agent("name: svc-agent\ndescription: Runs the deploy checks before a release\n"
                "maxTurns: 5\n# subagents: ignore\n", body=BODY + f"token {token}\n"))
    code, data = run()
    assert (code, rules(data)) == (1, ["SA404"])
    assert token not in json.dumps(data)


def test_a_config_others_can_write_is_ignored_with_a_warning(project: Path) -> None:
    (project / ".git").mkdir()
    write(project, ".subagents.toml", 'ignore = ["ALL"]\n').chmod(0o666)
    result = CliRunner().invoke(cli, ["validate", "--format", "json"])
    assert result.exit_code == 1  # the findings the file would have hidden are reported
    assert rules(json.loads(result.stdout)) == ["SA104", "SA104", "SA105"]
    assert ("warning: " + str(project / ".subagents.toml") + " is ignored because other users "
            "can write it") in result.stderr


def test_an_ancestors_config_does_not_apply(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "proj"
    write(project, ".claude/agents/svc.md", agent(FRONT, body="Short prompt.\n"))
    (project / ".git").mkdir()
    write(tmp_path, ".subagents.toml", 'ignore = ["ALL"]\n')
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(project)
    assert rules(run()[1]) == ["SA104", "SA104", "SA105"]
    assert rules(run(str(project / ".claude" / "agents" / "svc.md"))[1]) == [
        "SA104", "SA104", "SA105"]
