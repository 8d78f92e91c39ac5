"""Truthful exit codes and summaries: a pipeline stopped by --require-ready fails (exit 3); a
READY hand-over is progress, never a warning."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from subagents.cli.main import cli
from subagents.cli.run_cmd import EXIT_PIPELINE_STOPPED

AGENT = "---\nname: {name}\ndescription: The {name} stage of a pipeline.\ntools: Read\n---\nGo.\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "proj"
    agents = root / ".claude" / "agents"
    agents.mkdir(parents=True)
    for name in ("spec", "build"):
        (agents / f"{name}.md").write_text(AGENT.format(name=name))
    monkeypatch.chdir(root)
    monkeypatch.setenv("SUBAGENTS_TRANSCRIPT_DIR", str(tmp_path / "transcripts"))
    return root


def run(tmp_path: Path, replies: list[Any], *args: str) -> Result:
    path = tmp_path / f"script-{time.monotonic_ns()}.json"
    path.write_text(json.dumps(replies))
    return CliRunner().invoke(cli, ["run", "--pipeline", "spec,build", "--provider", "scripted",
                                    "--script", str(path), *args, "Build it"])


def test_a_pipeline_stopped_by_require_ready_exits_3(project: Path, tmp_path: Path) -> None:
    r = run(tmp_path, ["I need more information first."], "--require-ready", "--format", "json")
    assert r.exit_code == EXIT_PIPELINE_STOPPED == 3, r.output
    data = json.loads(r.stdout)  # the answer so far is still printed
    assert [c["agent"] for c in data["children"]] == ["spec"]
    assert "did not signal READY_FOR_" in r.stderr
    assert "error: the pipeline stopped after stage 1 of 2 (spec)" in r.stderr
    assert "target." not in r.stderr


def test_a_finished_pipeline_exits_0_and_a_hand_over_is_not_a_warning(
    project: Path, tmp_path: Path
) -> None:
    r = run(tmp_path, ["Spec written. READY_FOR_BUILD", "Built."], "--require-ready")
    assert r.exit_code == 0, r.output
    assert r.stdout.strip() == "Built."
    assert "warning" not in r.stderr and "READY_FOR_BUILD" not in r.stderr


def test_the_exit_code_is_documented() -> None:
    out = CliRunner().invoke(cli, ["run", "--help"]).stdout
    assert "3 a --pipeline stopped" in out
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    assert "--require-ready`\nexits 3" in readme


async def test_a_hand_over_is_a_progress_event(tmp_path: Path) -> None:
    from subagents.definition import AgentDefinition
    from subagents.dispatch.pipeline import run_pipeline
    from subagents.runtime.runner import AgentRunner
    from subagents.testing import ScriptedModel, text

    events: list[tuple[str, dict[str, Any]]] = []
    stages = [AgentDefinition(name=n, description=f"{n} stage", system_prompt="Go.")
              for n in ("spec", "build")]
    model = ScriptedModel([text("Done. READY_FOR_BUILD"), text("Built.")])
    runner = AgentRunner(model, cwd=tmp_path, transcripts=False)
    result = await run_pipeline(stages, "t", runner=runner, require_ready=True,
                                on_event=lambda kind, data: events.append((kind, dict(data))))
    assert result.warnings == ()
    handovers = [data for kind, data in events if kind == "handover"]
    assert handovers == [{"index": 1, "total": 2, "agent": "spec",
                          "markers": ["READY_FOR_BUILD"]}]


HOOKED = ("---\nname: {name}\ndescription: The {name} stage of a pipeline.\ntools: Read\n"
          "hooks:\n  Stop:\n    - hooks:\n        - type: command\n"
          "          command: touch {marker}\n---\nGo.\n")


def test_a_stages_warnings_are_printed(project: Path, tmp_path: Path) -> None:
    """A stage whose hooks did not run (the project is not trusted) says so; the stages'
    warnings used to be dropped and only the pipeline's own were printed."""
    marker = tmp_path / "hook-ran"
    (project / ".git").mkdir()
    (project / ".claude" / "agents" / "build.md").write_text(
        HOOKED.format(name="build", marker=marker))
    r = run(tmp_path, ["Spec written.", "Built."])
    assert r.exit_code == 0, r.output
    assert not marker.exists()
    assert "warning: agent 'build': its hooks did not run: its project is not trusted" \
        in r.stderr


def test_a_delegated_agents_warnings_are_printed(project: Path, tmp_path: Path) -> None:
    marker = tmp_path / "hook-ran"
    (project / ".git").mkdir()
    (project / ".claude" / "agents" / "build.md").write_text(
        HOOKED.format(name="build", marker=marker))
    path = tmp_path / "delegate.json"
    path.write_text(json.dumps([
        {"tool": "Task", "input": {"description": "b", "prompt": "Build it",
                                   "subagent_type": "build", "run_in_background": False}},
        "Built.", "All done."]))
    r = CliRunner().invoke(cli, ["run", "--provider", "scripted", "--script", str(path),
                                 "Build it"])
    assert r.exit_code == 0, r.output
    assert not marker.exists()
    assert "warning: agent 'build': its hooks did not run" in r.stderr
