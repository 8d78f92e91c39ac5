"""Claude Code versions are data: a made-up version copied from a recording is followed by every
command; an unrecorded version warns and uses the nearest; diff/track fail cleanly."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from subagents.claude_code.profile import (
    DATA_ENV,
    data_dir,
    get_profile,
    nearest_version,
    recorded_versions,
    resolve_version,
)
from subagents.conformance.__main__ import main as conformance_main
from subagents.errors import UsageError

AGENT = """---
name: helper
description: Helps with things
tools: Read, ToolSearch, Workflow
---
Body.
"""


@pytest.fixture
def made_up(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A data folder holding the real versions plus 9.9.9, a copy of the newest one whose
    profile drops the Workflow tool and allows names of 3 characters at most (so `helper` is
    skipped by 9.9.9 and loaded by every real version)."""
    folder = tmp_path / "data"
    folder.mkdir()
    newest = recorded_versions()[-1]
    for p in data_dir().glob("claude-code-*"):
        shutil.copy(p, folder / p.name)
    profile = json.loads((folder / f"claude-code-{newest}-profile.json").read_text())
    profile["version"] = "9.9.9"
    profile["max_name_length"] = 3
    profile["tools"]["main-thread"] = []
    profile["typings"]["tools"] = [t for t in profile["typings"]["tools"] if t != "Workflow"]
    (folder / "claude-code-9.9.9-profile.json").write_text(json.dumps(profile))
    recording = json.loads((folder / f"claude-code-{newest}.json").read_text())
    recording["version"] = "9.9.9"
    (folder / "claude-code-9.9.9.json").write_text(json.dumps(recording))
    monkeypatch.setenv(DATA_ENV, str(folder))
    monkeypatch.setenv("SUBAGENTS_CLAUDE_CODE_VERSION", "")  # empty: no choice; restored afterwards
    project = tmp_path / "project"
    (project / ".claude" / "agents").mkdir(parents=True)
    (project / ".git").mkdir()
    (project / ".claude" / "agents" / "helper.md").write_text(AGENT)
    monkeypatch.chdir(project)
    return project


def test_the_newest_recorded_version_is_the_default(made_up: Path) -> None:
    assert recorded_versions()[-1] == "9.9.9"
    assert get_profile().version == "9.9.9"


def test_an_unrecorded_version_uses_the_nearest_with_a_warning(made_up: Path) -> None:
    version, warning = resolve_version("2.1.331")
    assert version == "2.1.330"
    assert warning is not None and "2.1.330" in warning and "2.1.331" in warning
    assert nearest_version("1.0.0") == recorded_versions()[0]
    with pytest.raises(UsageError, match="not a Claude Code version"):
        resolve_version("two")


@pytest.mark.parametrize("args", [
    ["validate", ".claude/agents/helper.md"],
    ["list"],
    ["show", "helper"],
    ["doctor"],
])
def test_every_command_follows_the_chosen_version(made_up: Path, args: list[str]) -> None:
    from subagents.cli.group import cli

    runner = CliRunner()
    for version in ("9.9.9", recorded_versions()[0]):
        out = runner.invoke(cli, ["--claude-code", version, *args], catch_exceptions=False)
        assert out.exit_code in (0, 1), out.output
        if args[0] == "validate":
            # 9.9.9 does not know Workflow; the newest real version names it a main-thread tool
            text = out.output
            if version == "9.9.9":
                assert "unknown tool 'Workflow'; Claude Code 9.9.9" in text
            else:
                assert "Workflow" in text and f"Claude Code {version}" in text


def test_config_key_chooses_the_version_and_an_unknown_one_warns(made_up: Path) -> None:
    from subagents.cli.group import cli

    (made_up / ".subagents.toml").write_text('claude-code = "9.9.9"\n')
    out = CliRunner().invoke(cli, ["validate", ".claude/agents/helper.md"])
    assert "Claude Code 9.9.9" in out.output
    (made_up / ".subagents.toml").write_text('claude-code = "9.9.10"\n')
    out = CliRunner().invoke(cli, ["validate", ".claude/agents/helper.md"])
    assert out.exit_code in (0, 1)
    assert "nearest recorded version, 9.9.9" in out.output


def test_sa104_says_how_the_chosen_version_gives_each_tool(made_up: Path) -> None:
    from subagents.cli.group import cli

    newest_real = [v for v in recorded_versions() if v != "9.9.9"][-1]
    out = CliRunner().invoke(cli, ["--claude-code", newest_real, "validate",
                                   ".claude/agents/helper.md"])
    assert f"'Workflow' is a main-thread tool in Claude Code {newest_real}" in out.output
    assert "unknown tool 'ToolSearch'" not in out.output  # given directly: nothing to say


def test_diff_against_compares_two_recordings(made_up: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    rc = conformance_main(["diff", "--claude-code", "9.9.9", "--against",
                           recorded_versions()[-2]])
    out = capsys.readouterr().out
    assert rc == 1  # the profiles differ (Workflow)
    assert "changed: 0; new: 0; gone: 0" in out
    assert "dropped: Workflow" in out


def test_bad_version_and_corrupt_recording_are_one_line_errors(
        made_up: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert conformance_main(["diff", "--claude-code", "2.x", "--against", "2.1.330"]) == 2
    assert conformance_main(["track", "--claude-code", "latest!"]) == 2
    err = capsys.readouterr().err
    assert "not a Claude Code version" in err and "Traceback" not in err
    (made_up.parent / "data" / "claude-code-9.9.9.json").write_text("{nope")
    assert conformance_main(["diff", "--claude-code", "9.9.9", "--against", "2.1.330"]) == 2
    err = capsys.readouterr().err
    assert "claude-code-9.9.9.json" in err and "Traceback" not in err


def test_track_without_npm_says_so(made_up: Path, monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("PATH", str(made_up))  # no npm here
    assert conformance_main(["track"]) == 2
    err = capsys.readouterr().err
    assert "npm is not installed" in err and "Traceback" not in err


def _run(args: list[str]) -> tuple[int, str]:
    from subagents.cli.group import cli

    out = CliRunner().invoke(cli, args)
    # an error the console entry point would print is the exception here
    return out.exit_code, out.output + (str(out.exception) if out.exception else "")


def test_list_show_route_run_fix_doctor_follow_the_chosen_version(
        made_up: Path, tmp_path: Path) -> None:
    real = [v for v in recorded_versions() if v != "9.9.9"]
    replies = tmp_path / "script.json"
    replies.write_text(json.dumps(["done"]))
    run = ["run", "--agent", "helper", "--provider", "scripted", "--script", str(replies), "hi"]
    for version in real:
        flag = ["--claude-code", version]
        assert "helper" in _run([*flag, "list"])[1]
        assert _run([*flag, "show", "helper"])[0] == 0
        assert "1. helper" in _run([*flag, "route", "helper things"])[1]
        assert _run([*flag, *run])[0] == 0
        assert "SA101" not in _run([*flag, "fix", "--check", ".claude/agents/helper.md"])[1]
        assert f"Claude Code {version} loads 1 agent" in _run([*flag, "doctor"])[1]
    flag = ["--claude-code", "9.9.9"]
    listed = _run([*flag, "list"])[1]
    assert "no agents found" in listed and "Claude Code 9.9.9 skips this file" in listed
    code, shown = _run([*flag, "show", "helper"])
    assert code != 0 and "Claude Code 9.9.9 skips" in shown
    assert "no agents found" in _run([*flag, "route", "helper things"])[1]
    code, ran = _run([*flag, *run])
    assert code != 0 and "Claude Code 9.9.9 skips this file" in ran
    assert "SA101" in _run([*flag, "fix", "--check", ".claude/agents/helper.md"])[1]
    assert "Claude Code 9.9.9 loads 0 agents" in _run([*flag, "doctor"])[1]
    # the flag also works after the command, through the console entry point
    from subagents.cli.main import _take_claude_code

    assert _take_claude_code(["list", "--claude-code", "9.9.9", "--", "--claude-code"]) == [
        "list", "--", "--claude-code"]


def test_convert_reads_with_the_chosen_version(made_up: Path) -> None:
    _, out = _run(["--claude-code", "9.9.10", "convert", ".claude/agents/helper.md",
                      "--to", "codex"])
    assert "nearest recorded version, 9.9.9" in out


TWELVE = """---
name: toolful
description: Names the new tools
tools: Read, Monitor, ToolSearch, CronCreate, EnterWorktree, ScheduleWakeup, Skill, SendMessage, ListAgents, ReportFindings, Workflow, TaskStop
hooks:
  PreModelSwitch:
    - hooks: [{type: command, command: "true"}]
  ModelResponse:
    - hooks: [{type: command, command: "true"}]
---
Body.
"""


def test_2_1_332_tools_and_hook_events(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from subagents.cli.group import cli

    monkeypatch.setenv("SUBAGENTS_CLAUDE_CODE_VERSION", "")
    (tmp_path / "toolful.md").write_text(TWELVE)
    monkeypatch.chdir(tmp_path)
    out = CliRunner().invoke(cli, ["--claude-code", "2.1.332", "validate", "toolful.md"]).output
    sa104 = [line for line in out.splitlines() if "SA104" in line]
    assert len(sa104) == 2, out  # only the main-thread tools
    assert "'ScheduleWakeup' is a main-thread tool in Claude Code 2.1.332" in out
    assert "'Workflow' is a main-thread tool" in out
    sa109 = [line for line in out.splitlines() if "SA109" in line]
    assert len(sa109) == 1 and "'ModelResponse'" in sa109[0]  # not published by 2.1.332
    old = CliRunner().invoke(cli, ["--claude-code", "2.1.330", "validate", "toolful.md"]).output
    assert "'PreModelSwitch' is not a hook event" in old and "ModelResponse" not in old.split(
        "SA109")[-1].splitlines()[0]


def test_explain_says_how_the_chosen_version_gives_each_tool(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from subagents.cli.group import cli

    monkeypatch.setenv("SUBAGENTS_CLAUDE_CODE_VERSION", "")
    monkeypatch.chdir(tmp_path)
    out = CliRunner().invoke(cli, ["--claude-code", "2.1.332", "explain", "SA104",
                                   "--format", "json"]).output
    tools = json.loads(out)["claude_code"]
    assert tools["version"] == "2.1.332"
    assert {"ToolSearch", "ListAgents", "ReportFindings"} <= set(tools["tools"]["direct"])
    assert {"CronCreate", "EnterWorktree", "Monitor"} <= set(tools["tools"]["deferred"])
    assert tools["tools"]["main-thread"] == ["ScheduleWakeup", "Workflow"]
    text = CliRunner().invoke(cli, ["--claude-code", "2.1.332", "explain", "SA109"]).output
    assert "In Claude Code 2.1.332" in text and "PreSkillShellCommand" in text


@pytest.mark.parametrize(("front", "loads", "message"), [
    ('hooks: "echo hi"\n', False, "skips this file"),
    ("hooks:\n  - type: command\n    command: echo hi\n", False, "skips this file"),
    ("hooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: teleport\n"
     "          command: x\n", False, "unknown hook type 'teleport'"),
    ("hooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n",
     False, "a command hook without a command"),
    ('tools: Read, Grep\ndisallowedTools: "*"\n', True, "ignores `disallowedTools: *`"),
    ("tools: Read, Bash\ndisallowedTools: Bash(rm:*)\n", True,
     "launches the agent without Bash at all"),
    ("tools: Read\nmemory: user\n", True, "adds Write and Edit"),
])
def test_judged_as_2_1_332_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                front: str, loads: bool, message: str) -> None:
    """Each row is a recorded case of 2.1.332 (cases_fields.py); an error either way."""
    from subagents.cli.group import cli

    monkeypatch.setenv("SUBAGENTS_CLAUDE_CODE_VERSION", "")
    agents = tmp_path / ".claude" / "agents"
    agents.mkdir(parents=True)
    (tmp_path / ".git").mkdir()
    (agents / "judged.md").write_text(f"---\nname: judged\ndescription: A judged agent.\n"
                                      f"{front}---\nBody.\n")
    monkeypatch.chdir(tmp_path)
    out = CliRunner().invoke(cli, ["--claude-code", "2.1.332", "validate",
                                   ".claude/agents/judged.md"])
    assert out.exit_code == 1 and message in out.output, out.output
    listed = CliRunner().invoke(cli, ["--claude-code", "2.1.332", "list", "--format", "json"])
    names = [a["name"] for a in json.loads(listed.stdout)["agents"]]
    assert ("judged" in names) is loads
    if "memory" in front:
        shown = CliRunner().invoke(cli, ["--claude-code", "2.1.332", "show", "judged",
                                         "--format", "json"]).stdout
        assert json.loads(shown)["tools"] == ["Read", "Write", "Edit"]


def test_doctor_says_when_claude_code_does_not_trust_the_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from subagents.cli.group import cli

    home = tmp_path / "home"
    home.mkdir()
    project = tmp_path / "p"
    (project / ".git").mkdir(parents=True)
    (project / ".claude" / "agents").mkdir(parents=True)
    (project / ".claude" / "agents" / "guarded.md").write_text(
        "---\nname: guarded\ndescription: Guarded agent.\nhooks:\n  Stop:\n"
        "    - hooks: [{type: command, command: \"true\"}]\n---\nBody.\n")
    (project / ".claude" / "agents" / "plain.md").write_text(
        "---\nname: plain\ndescription: Plain agent.\n---\nBody.\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(project)
    out = CliRunner().invoke(cli, ["doctor"]).output
    assert "does not trust" in out and "MCP servers: guarded" in " ".join(out.split())
    (home / ".claude.json").write_text(json.dumps(
        {"projects": {str(project.resolve()): {"hasTrustDialogAccepted": True}}}))
    assert "does not trust" not in CliRunner().invoke(cli, ["doctor"]).output
    (home / ".claude.json").write_text("{broken")
    assert "does not trust" in CliRunner().invoke(cli, ["doctor"]).output


def test_a_missing_skill_is_an_error_and_a_present_one_is_not(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Recorded case field-skills-missing (2.1.332): the agent loads and runs without it."""
    from subagents.cli.group import cli

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / ".git").mkdir()
    skill = tmp_path / ".claude" / "skills" / "present-skill"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: present-skill\ndescription: x\n---\nS\n")
    agents = tmp_path / ".claude" / "agents"
    agents.mkdir()
    (agents / "sk.md").write_text("---\nname: sk\ndescription: Uses skills well.\n"
                                  "skills: present-skill, no-such-skill, plug:thing\n---\nB\n")
    monkeypatch.chdir(tmp_path)
    out = CliRunner().invoke(cli, ["validate", ".claude/agents/sk.md"]).output
    assert "no skill 'no-such-skill'" in out
    assert "no skill 'present-skill'" not in out and "no skill 'plug:thing'" not in out
    assert out.count("SA021") == 1


def test_re_recording_keeps_the_measured_profile(made_up: Path, tmp_path: Path) -> None:
    """Without the Agent SDK beside the binary, a re-recording keeps the version's typings and
    tool kinds; a new version starts from the nearest recorded profile."""
    from subagents.claude_code.profile import profile_from_json
    from subagents.conformance import load_expectations
    from subagents.conformance.release import write_profile

    newest = [v for v in recorded_versions() if v != "9.9.9"][-1]
    out = write_profile(newest, load_expectations(newest), None, None, tmp_path / "p.json")
    again = profile_from_json(json.loads(out.read_text()), str(out))
    assert again == get_profile(newest)
    fresh = write_profile("9.10.0", None, None, None, tmp_path / "n.json")
    assert profile_from_json(json.loads(fresh.read_text()), "n").hook_events == \
        get_profile("9.9.9").hook_events


def test_a_run_reads_the_profile_once_and_sees_one_set_of_recordings(
        made_up: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """validate asks for the profile several times per file: inside ``pinned`` the folder is
    listed once per version asked; outside, a new recording is seen at once."""
    from subagents.claude_code import profile as prof
    from subagents.lint.validate import validate_paths

    listed: list[int] = []
    real = prof.recorded_versions

    def counting(folder: Path | None = None) -> list[str]:
        listed.append(1)
        return real(folder)

    monkeypatch.setattr(prof, "recorded_versions", counting)
    agents = made_up / ".claude" / "agents"
    for i in range(20):
        (agents / f"a{i}.md").write_text(AGENT.replace("helper", f"a{i}"))
    report = validate_paths([agents])
    assert report.files == 21
    assert 0 < len(listed) <= 2
    with prof.pinned():
        assert get_profile().version == "9.9.9"
        newer = json.loads((made_up.parent / "data" / "claude-code-9.9.9-profile.json")
                           .read_text())
        newer["version"] = "9.9.10"
        (made_up.parent / "data" / "claude-code-9.9.10-profile.json").write_text(
            json.dumps(newer))
        assert get_profile().version == "9.9.9"  # one run, one set of recordings
        with prof.pinned():  # nested: the outer answers stand
            assert get_profile().version == "9.9.9"
    assert get_profile().version == "9.9.10"  # outside a run: seen at once
