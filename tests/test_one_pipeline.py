"""One pipeline for every harness: the bugs found where the Claude path and the harness path
used to differ, each pinned by a test (small fixtures in tmp folders)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import subagents
from subagents.cli.main import cli
from subagents.definition import Dialect
from subagents.lint.validate import validate_paths, validate_text

GOOD_TOML = ('name = "good"\ndescription = "Reviews code for bugs"\n'
             'developer_instructions = "Review the code you are given."\n')
BAD_TOML = 'name = "bad\ndescription = 3\n'
GEMINI = ("---\nname: rev\ndescription: Reviews code for bugs\n---\n"
          "Review the code you are given carefully.\n")


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.output


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(root)
    return root


def _codex(project: Path) -> Path:
    folder = project / ".codex" / "agents"
    folder.mkdir(parents=True)
    (folder / "good.toml").write_text(GOOD_TOML)
    (folder / "bad.toml").write_text(BAD_TOML)
    return folder


def test_validate_a_relative_codex_folder_reads_its_toml(project: Path) -> None:
    _codex(project)
    code, out = run("validate", ".codex/agents")
    assert code == 1, out
    assert "2 files, 1 agent" in out and "CX001 error" in out


def test_bare_validate_reads_every_harness_folder_of_the_project(project: Path) -> None:
    _codex(project)
    gemini = project / ".gemini" / "agents"
    gemini.mkdir(parents=True)
    (gemini / "rev.md").write_text(GEMINI)
    code, out = run("validate")
    assert code == 1, out
    assert "CX001 error" in out and "3 files, 2 agents" in out


def test_convert_a_relative_codex_folder(project: Path, tmp_path: Path) -> None:
    folder = project / ".codex" / "agents"
    folder.mkdir(parents=True)
    (folder / "good.toml").write_text(GOOD_TOML)
    code, out = run("convert", ".codex/agents", "--to", "claude", "--out", str(tmp_path / "o"))
    assert code == 0, out
    assert (tmp_path / "o" / "good.md").is_file()


@pytest.mark.parametrize("dialect", ["gemini", "qwen", "cursor", "factory", "copilot"])
def test_from_reads_a_file_anywhere_as_that_dialect(dialect: str, tmp_path: Path) -> None:
    (tmp_path / "foo").mkdir()
    (tmp_path / "foo" / "rev.md").write_text(GEMINI)
    code, out = run("convert", str(tmp_path / "foo"), "--from", dialect, "--to", "claude")
    assert code == 0, out
    assert "1 agent(s) converted" in out


def test_load_agent_reads_gemini_and_codex_files(tmp_path: Path) -> None:
    gemini = tmp_path / ".gemini" / "agents" / "rev.md"
    gemini.parent.mkdir(parents=True)
    gemini.write_text(GEMINI)
    codex = tmp_path / ".codex" / "agents" / "good.toml"
    codex.parent.mkdir(parents=True)
    codex.write_text(GOOD_TOML)
    g = subagents.load_agent(gemini)
    c = subagents.load_agent(codex)
    assert (g.name, g.dialect) == ("rev", Dialect.GEMINI)
    assert (c.name, c.dialect, c.system_prompt) == (
        "good", Dialect.CODEX, "Review the code you are given.")
    codex.write_text(BAD_TOML)
    with pytest.raises(subagents.DefinitionError, match="CX001"):
        subagents.load_agent(codex)


def test_validate_text_and_validate_say_the_same(tmp_path: Path) -> None:
    text = ("---\nname: x\ndescription: Reviews code\ntools: [read]\n---\n"
            "Review the code you are given.\n")
    path = tmp_path / ".opencode" / "agents" / "x.md"
    path.parent.mkdir(parents=True)
    path.write_text(text)
    on_disk = [(d.rule, d.severity) for d in validate_paths([path]).diagnostics]
    in_memory = [(d.rule, d.severity) for d in validate_text(text, dialect=Dialect.OPENCODE)]
    assert on_disk == in_memory and on_disk and on_disk[0][0].startswith("OC")
    assert "SA017" not in {rule for rule, _ in in_memory}


def test_doctor_for_codex_reports_a_broken_file(project: Path) -> None:
    _codex(project)
    code, out = run("doctor", "--dialect", "codex")
    assert "No problems" not in out, out
    assert "bad.toml" in out and "CX001" in out
    assert code == 1


def test_validate_finds_one_name_twice_in_nested_agents_folders(project: Path) -> None:
    for sub in ("x", "y"):
        folder = project / ".claude" / "agents" / sub / "agents"
        folder.mkdir(parents=True)
        (folder / "same.md").write_text(
            "---\nname: same\ndescription: The same agent twice\n---\nDo the thing.\n")
    code, out = run("validate")
    assert code == 1, out
    assert "SA601" in out
    code, out = run("validate", ".claude/agents")
    assert "SA601" in out


def test_to_json_writes_a_file_the_reader_loads(tmp_path: Path) -> None:
    folder = tmp_path / ".claude" / "agents"
    folder.mkdir(parents=True)
    body = "Review the code you are given. " * 2000  # 62 kB each: 30 of them pass 1 MiB
    for i in range(30):
        (folder / f"a{i}.md").write_text(
            f"---\nname: a{i}\ndescription: Agent number {i}\n---\n{body}\n")
    out = tmp_path / "out"
    code, text = run("convert", str(folder), "--to", "json", "--out", str(out))
    assert code == 0, text
    written = out / "agents.json"
    assert written.stat().st_size > 1 << 20
    result = subagents.read_agent_file(written)
    assert not result.has_errors, result.diagnostics
    assert len(result.definitions) == 30
    assert len(json.loads(written.read_text())) == 30


def test_convert_keeps_the_duplicate_claude_code_keeps(project: Path) -> None:
    folder = project / ".claude" / "agents"
    folder.mkdir(parents=True)
    for stem, prompt in (("a", "First prompt."), ("b", "Second prompt.")):
        (folder / f"{stem}.md").write_text(
            f"---\nname: same\ndescription: One name twice\n---\n{prompt}\n")
    listed = json.loads(CliRunner().invoke(cli, ["list", "--format", "json"]).stdout)
    (used,) = [a for a in listed["agents"] if a["name"] == "same"]
    assert used["path"].endswith("b.md")  # Claude Code keeps the last path
    result = CliRunner().invoke(cli, ["convert", ".claude/agents", "--to", "json"])
    converted = json.loads(result.stdout)
    assert converted["same"]["prompt"] == "Second prompt."
    assert "CV004" in result.output


def test_convert_and_the_registry_read_the_same_prompt(project: Path) -> None:
    from subagents.registry.core import AgentRegistry

    folder = project / ".claude" / "agents"
    folder.mkdir(parents=True)
    (folder / "x.md").write_text(
        "---\nname: x\ndescription: Reviews code\n---\n\n\n  Review the code.  \n\n")
    registry = AgentRegistry(project, home=project.parent / "home")
    result = CliRunner().invoke(cli, ["convert", ".claude/agents", "--to", "json"])
    assert json.loads(result.stdout)["x"]["prompt"] == registry.get("x").system_prompt
