"""Pipelines driven by SubagentStop hooks: a hook names the next stage (seed 000 §4.3)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from subagents.cli.main import cli

SPEC = """---
name: spec
description: Writes the specification.
tools: Read
hooks:
  Stop:
    - hooks:
        - type: command
          command: "cat > /dev/null; echo 'spec done, READY_FOR_ARCH'"
---
You write specifications.
"""

STAGE = """---
name: {name}
description: The {name} stage.
tools: Read
---
You are the {name} stage.
"""

# Settings: the architecture stage hands over to build with JSON; build ends the chain.
ROUTER = """import json, sys
event = json.load(sys.stdin)
with open("hook-events.jsonl", "a") as log:
    log.write(json.dumps(event) + "\\n")
if event["agent_type"] == "architect-review":
    print(json.dumps({"next": "build"}))
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    agents = tmp_path / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "spec.md").write_text(SPEC)
    for name in ("architect-review", "build", "qa"):
        (agents / f"{name}.md").write_text(STAGE.format(name=name))
    (tmp_path / "router.py").write_text(ROUTER)
    import sys

    (tmp_path / ".claude" / "settings.json").write_text(json.dumps({"hooks": {
        "SubagentStop": [{"matcher": "architect-review|build",
                          "hooks": [{"type": "command",
                                     "command": f"{sys.executable} router.py"}]}]}}))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SUBAGENTS_TRANSCRIPT_DIR", str(tmp_path / "transcripts"))
    return tmp_path


def _run(project: Path, *args: str, replies: list[str]) -> dict:  # type: ignore[type-arg]
    script = project / "replies.json"
    script.write_text(json.dumps(replies))
    # --trust: the project's .claude/settings.json hooks apply only to a trusted project
    r = CliRunner().invoke(cli, ["run", "--provider", "scripted", "--script", str(script),
                                 "--trust", "--format", "json", *args, "Build the login page"])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)  # type: ignore[no-any-return]


def test_a_three_stage_pipeline_declared_in_hooks(project: Path) -> None:
    data = _run(project, "--pipeline", "spec", "--handoff-dir", "handoff",
                replies=["SPEC: a form", "ARCH: one endpoint", "BUILD: done"])
    # spec's own SubagentStop hook said READY_FOR_ARCH; the settings hook sent arch to build;
    # build's hook named nothing and no stage was declared after it: the pipeline ended.
    assert [c["agent"] for c in data["children"]] == ["spec", "architect-review", "build"]
    assert data["final_text"] == "BUILD: done"
    assert "stage 1 (spec) handed over to architect-review (its SubagentStop hook, " \
           "READY_FOR_ARCH)" in data["warnings"]
    assert any("handed over to build (a SubagentStop hook in settings, JSON next)" in w
               for w in data["warnings"])
    assert sorted(p.name for p in (project / "handoff").iterdir()) == [
        "01-spec.md", "02-architect-review.md", "03-build.md"]
    events = [json.loads(line) for line in
              (project / "hook-events.jsonl").read_text().splitlines()]
    assert [e["agent_type"] for e in events] == ["architect-review", "build"]
    assert events[0]["hook_event_name"] == "SubagentStop"
    assert events[0]["tool_response"] == "ARCH: one endpoint"


def test_the_declared_list_is_the_shorthand_and_hooks_override_it(project: Path) -> None:
    # Declared: spec,qa.  spec's hook asks for arch (READY_FOR_ARCH), arch's for build; build
    # names nothing and is not in the declared list, so the pipeline ends there.
    data = _run(project, "--pipeline", "spec,qa",
                replies=["SPEC", "ARCH", "BUILD", "QA"])
    assert [c["agent"] for c in data["children"]] == ["spec", "architect-review", "build"]
    # Without hooks naming anything, the declared list runs in order.
    (project / ".claude" / "settings.json").unlink()
    data = _run(project, "--pipeline", "build,qa", replies=["BUILD", "QA"])
    assert [c["agent"] for c in data["children"]] == ["build", "qa"]


def test_a_hook_naming_a_missing_stage_stops_with_an_error(project: Path) -> None:
    (project / "router.py").write_text(ROUTER.replace('{"next": "build"}', '{"next": "nope"}'))
    script = project / "replies.json"
    script.write_text(json.dumps(["SPEC", "ARCH"]))
    r = CliRunner().invoke(cli, ["run", "--provider", "scripted", "--script", str(script),
                                 "--trust", "--pipeline", "spec", "go"])
    assert r.exit_code == 1
    assert "named the next stage 'nope', which is not an agent" in r.stderr


def test_teams_switched_on_by_the_environment_leave_pipelines_alone(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS", "1")
    (project / ".claude" / "settings.json").unlink()
    data = _run(project, "--pipeline", "build,qa", replies=["BUILD", "QA"])
    assert [c["agent"] for c in data["children"]] == ["build", "qa"] and "team" not in data
    r = CliRunner().invoke(cli, ["run", "--teams", "--pipeline", "build", "x"])
    assert r.exit_code == 2 and "--teams and --pipeline do not go together" in r.output


def test_plan_mode_runs_no_hook_of_a_pipeline(project: Path) -> None:
    script = project / "replies.json"
    script.write_text(json.dumps(["SPEC: a plan", "ARCH: a plan"]))
    r = CliRunner().invoke(cli, ["run", "--provider", "scripted", "--script", str(script),
                                 "--trust", "--format", "json", "--permission-mode", "plan",
                                 "--pipeline", "spec,architect-review", "Plan the login page"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    # the declared list only: neither spec's own hook (READY_FOR_ARCH) nor the settings
    # router ran, so nobody handed over and nothing was logged
    assert [c["agent"] for c in data["children"]] == ["spec", "architect-review"]
    assert not any("handed over" in w for w in data["warnings"])
    assert not (project / "hook-events.jsonl").exists()
    assert "settings hooks (SubagentStop) do not run: plan mode runs no command" in r.stderr
