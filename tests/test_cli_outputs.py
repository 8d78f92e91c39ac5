"""Consistent outputs: --format json everywhere (errors included), the files' own field names
and types, one spelling of paths, -V/--version, did-you-mean, bare `subagents`."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from subagents.cli.main import cli, main
from subagents.fs import display_path, open_path

AGENT = """---
name: {name}
description: Reviews code changes for {name}.
tools: Read, Grep
disallowedTools: Write, Edit
permissionMode: plan
maxTurns: 7
background: true
---
Body.
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "proj"
    agents = root / ".claude" / "agents"
    agents.mkdir(parents=True)
    (root / ".git").mkdir()
    (agents / "rev.md").write_text(AGENT.format(name="rev"))
    monkeypatch.chdir(root)
    return root


def run_main(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """The console-script entry point, as a user runs it (errors handled by main())."""
    try:
        main(args)
    except SystemExit as exc:
        code = int(exc.code or 0)
    else:
        code = 0
    out = capsys.readouterr()
    return code, out.out, out.err


# --------------------------------------------------------------------------- the group


@pytest.mark.parametrize("flag", ["-V", "--version"])
def test_version(flag: str) -> None:
    r = CliRunner().invoke(cli, [flag])
    assert r.exit_code == 0 and "subagents, version" in r.stdout


def test_bare_subagents_prints_help_and_succeeds(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main([], capsys)
    assert code == 0 and out.startswith("Usage: subagents") and "validate" in out


@pytest.mark.parametrize(("typed", "meant"), [("valdate", "validate"), ("lst", "list"),
                                              ("doctr", "doctor")])
def test_did_you_mean(typed: str, meant: str) -> None:
    r = CliRunner().invoke(cli, [typed])
    assert r.exit_code == 2
    assert f"No such command '{typed}'. Did you mean '{meant}'" in r.stderr


def test_no_suggestion_when_nothing_is_close() -> None:
    r = CliRunner().invoke(cli, ["zzzz"])
    assert r.exit_code == 2 and "No such command 'zzzz'." in r.stderr
    assert "Did you mean" not in r.stderr


# --------------------------------------------------------------------------- JSON errors


@pytest.mark.parametrize(
    ("args", "exit_code", "words"),
    [
        (["validate", "missing.md", "--format", "json"], 2, "no such file or folder"),
        (["show", "nobdy", "--format", "json"], 1, "no agent named 'nobdy'"),
        (["list", "--agents", "not json", "--format", "json"], 2, "not valid JSON"),
        (["new", "Bad_Name", "--format", "json"], 2, "not a valid agent name"),
        (["run", "--agent", "nobody", "--provider", "scripted", "--script", "x.json",
          "--format", "json", "hi"], 1, "nobody"),
        (["convert", "missing.md", "--to", "codex", "--format=json"], 2, "missing.md"),
        (["fix", "missing.md", "--format", "json"], 2, "missing.md"),
    ],
)
def test_an_error_under_format_json_is_json_on_stdout(
    project: Path, capsys: pytest.CaptureFixture[str], args: list[str], exit_code: int,
    words: str,
) -> None:
    (project / "x.json").write_text('["hello"]')
    code, out, _ = run_main(args, capsys)
    assert code == exit_code, out
    error = json.loads(out)["error"]
    assert words in error["message"] and error["exit_code"] == exit_code
    assert set(error) >= {"message", "hint", "exit_code"}


def test_show_unknown_name_json_has_suggestions(project: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(["show", "revv", "--format", "json"], capsys)
    assert code == 1 and json.loads(out)["error"]["suggestions"] == ["rev"]


def test_new_refusing_to_overwrite_is_json_too(project: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(["new", "helper", "--format", "json"], capsys)
    assert code == 0
    assert json.loads(out) == {"path": ".claude/agents/helper.md", "name": "helper",
                               "template": "code-reviewer", "dialect": "claude",
                               "scope": "project"}
    assert (project / ".claude/agents/helper.md").is_file()
    code, out, _ = run_main(["new", "helper", "--format", "json"], capsys)
    assert code == 1 and "already exists" in json.loads(out)["error"]["message"]


# --------------------------------------------------------------------------- data


def test_show_json_uses_the_files_names_and_types(project: Path) -> None:
    r = CliRunner().invoke(cli, ["show", "rev", "--format", "json"])
    data = json.loads(r.stdout)
    assert data["maxTurns"] == 7
    assert data["permissionMode"] == "plan"
    assert data["disallowedTools"] == ["Write", "Edit"]
    assert data["tools"] == ["Read", "Grep"]
    assert data["background"] is True
    assert data["prompt"].strip() == "Body."
    snake = [k for k in data if "_" in k and k != "shadowed_by"]
    assert snake == [], snake


def test_convert_json(project: Path) -> None:
    r = CliRunner().invoke(cli, ["convert", ".claude/agents", "--to", "json", "--format",
                                 "json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["summary"]["converted"] == 1 and data["summary"]["to"] == "json"
    (item,) = data["files"]
    assert item["filename"] == "agents.json" and item["agents"] == ["rev"]
    assert json.loads(item["text"])["rev"]["description"].startswith("Reviews code")
    out = project / "out"
    r = CliRunner().invoke(cli, ["convert", ".claude/agents", "--to", "codex", "--out",
                                 str(out), "--format", "json"])
    data = json.loads(r.stdout)
    (item,) = data["files"]
    assert item["path"] == os.path.join("out", "rev.toml") and item["written"] is True
    assert "text" not in item
    assert any(d["rule"] == "CV001" for d in data["diagnostics"])  # what codex cannot carry


# --------------------------------------------------------------------------- paths


def test_display_path_rules(tmp_path: Path) -> None:
    home = tmp_path / "home"
    cwd = home / "work" / "proj"
    assert display_path(cwd / "a" / "b.md", cwd, home) == os.path.join("a", "b.md")
    assert display_path(cwd, cwd, home) == "."
    assert display_path(home / ".claude" / "x.md", cwd, home) == os.path.join(
        "~", ".claude", "x.md")
    assert display_path(home / "work" / "x.md", cwd, home) == os.path.join("~", "work", "x.md")
    elsewhere = tmp_path / "other" / "x.md"
    assert display_path(elsewhere, cwd, home) == str(elsewhere)
    # a sibling folder whose name starts like the cwd is not inside it
    assert display_path(tmp_path / "home" / "work" / "proj2" / "x.md", cwd, home) == \
        os.path.join("~", "work", "proj2", "x.md")
    assert open_path(os.path.join("~", "x.md")) == os.path.expanduser(os.path.join("~", "x.md"))


def test_every_command_spells_a_home_agent_the_same(project: Path, home: Path) -> None:
    user = home / ".claude" / "agents"
    user.mkdir(parents=True)
    (user / "mine.md").write_text(AGENT.format(name="mine").replace("Read, Grep", "Serach"))
    shown = "~/.claude/agents/mine.md"
    validated = json.loads(CliRunner().invoke(cli, ["validate", "--format", "json"]).stdout)
    assert shown in {d["path"] for d in validated["diagnostics"]}
    listed = json.loads(CliRunner().invoke(cli, ["list", "--format", "json"]).stdout)
    assert shown in {a["path"] for a in listed["agents"]}
    shown_one = json.loads(CliRunner().invoke(cli, ["show", "mine", "--format", "json"]).stdout)
    assert shown_one["path"] == shown
    fixed = json.loads(CliRunner().invoke(cli, ["fix", "--check", "--format", "json"]).stdout)
    assert shown in {f["path"] for f in fixed["files"]}
    routed = json.loads(CliRunner().invoke(cli, ["route", "mine", "--format", "json"]).stdout)
    assert shown in {a["path"] for a in routed["agents"]}
    # the text output can still show the line: `~` is expanded when the file is read
    text = CliRunner().invoke(cli, ["validate"]).stdout
    assert "tools: Serach" in text


def test_run_json_spells_the_transcript_path_like_every_other_path(
    project: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SUBAGENTS_TRANSCRIPT_DIR", str(home / "transcripts"))
    (project / "r.json").write_text('["done"]')
    r = CliRunner().invoke(cli, ["run", "--agent", "rev", "--provider", "scripted", "--script",
                                 "r.json", "--format", "json", "go"])
    assert r.exit_code == 0, r.output
    shown = json.loads(r.stdout)["transcript_path"]
    assert shown.startswith("~/transcripts/") and Path(open_path(shown)).is_file()
