"""Agent teams in the library, offline: the full flow and its files."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from subagents.definition import AgentDefinition, Scope
from subagents.dispatch.teams import TeamLayout, run_team
from subagents.providers.models import resolve_model
from team_helpers import BrainModel, first_text, lead_brain, teammate_brain

REVIEWER = AgentDefinition(name="code-reviewer", description="Reviews code.",
                           system_prompt="AGENT-BODY:code-reviewer", tools=("Read", "Grep",
                                                                            "Glob"),
                           model="haiku", source=Scope.PROJECT)
TESTER = AgentDefinition(name="tester", description="Writes tests.",
                         system_prompt="AGENT-BODY:tester", tools=("Read", "Bash"),
                         model="sonnet", source=Scope.PROJECT)


def _team_dir(root: Path) -> Path:
    (folder,) = (root / ".subagents" / "teams").iterdir()
    return folder


def test_a_lead_spawns_two_custom_teammates_and_shuts_them_down(tmp_path: Path) -> None:
    model = BrainModel({
        "team-lead": lead_brain({"reviewer": ("code-reviewer", "Review parser.py."),
                                 "tester": ("tester", "Write tests for parser.py.")}),
        "reviewer": teammate_brain("reviewer", "1", finding="one issue"),
        "tester": teammate_brain("tester", "2", finding="tests written"),
    })
    outcome = run_team("Review parser.py and test it", model=model, agents=[REVIEWER, TESTER],
                       cwd=tmp_path)
    result = outcome.result
    assert result.final_text == ("FINAL: REPORT-reviewer: one issue | "
                                 "REPORT-tester: tests written")
    assert result.stop_reason == "end_turn"
    assert sorted(c.agent for c in result.children) == ["reviewer", "tester"]
    # Each teammate ran on its own agent's model, with its tools plus the team tools.
    rev = model.requests["reviewer"][0]
    assert rev.model == resolve_model("haiku")
    assert model.requests["tester"][0].model == resolve_model("sonnet")
    assert [t.name for t in rev.tools] == ["Read", "Grep", "Glob", "SendMessage", "TaskCreate",
                                           "TaskGet", "TaskList", "TaskUpdate"]
    assert "# Agent Teammate Communication" in rev.system
    assert "# Custom Agent Instructions\n\nAGENT-BODY:code-reviewer" in rev.system
    first = first_text(rev)
    assert first.startswith('<teammate-message teammate_id="team-lead" summary="reviewer work">'
                            "\nYou are reviewer.")
    assert "addressable via SendMessage({to: name, message}): main.\n" in first
    # the second teammate is told about the first
    assert "message}): main, reviewer.\n" in first_text(model.requests["tester"][0])
    # The lead offered Agent (not Task) with name, and the task tools.
    lead_tools = {t.name: t for t in model.requests["team-lead"][0].tools}
    assert {"Agent", "SendMessage", "TaskCreate", "TaskGet", "TaskList",
            "TaskUpdate"} <= set(lead_tools)
    assert "Task" not in lead_tools
    assert "name" in lead_tools["Agent"].input_schema["properties"]
    # The lead saw the reports as <teammate-message> blocks with the preamble.
    seen = "\n".join(b.text for r in model.requests["team-lead"] for m in r.messages
                     for b in m.content if hasattr(b, "text"))
    assert "Another Claude session sent a message:" in seen
    assert '<teammate-message teammate_id="reviewer" color="blue" summary="Report">' in seen
    assert '{"type":"idle_notification","from":"reviewer"' in seen
    # Files, in Claude Code's shapes.
    team_dir = _team_dir(tmp_path)
    config = json.loads((team_dir / "config.json").read_text())
    assert config["name"] == team_dir.name and config["name"].startswith("session-")
    assert config["leadAgentId"] == f"team-lead@{config['name']}"
    assert [m["name"] for m in config["members"]] == ["team-lead"]  # both shut down
    # everything was delivered: delivered entries are removed, an empty inbox has no file
    assert not list((team_dir / "inboxes").glob("*.json"))
    tasks_dir = tmp_path / ".subagents" / "tasks" / team_dir.name
    t1 = json.loads((tasks_dir / "1.json").read_text())
    assert t1 == {"id": "1", "subject": "Task for reviewer", "description": "Review parser.py.",
                  "status": "completed", "blocks": [], "blockedBy": [], "owner": "reviewer"}
    # One JSONL transcript per member, and a team-wide usage total.
    names = sorted(p.name for p in (team_dir / "transcripts").iterdir())
    assert names == ["reviewer-1.jsonl", "team-lead-1.jsonl", "tester-1.jsonl"]
    total = sum(len(v) for v in model.requests.values())
    assert outcome.usage.input_tokens == 10 * total
    members = {m["name"]: m for m in outcome.team["members"]}
    assert members["reviewer"]["state"] == "shut down" and members["reviewer"]["color"] == "blue"


def test_claude_layout_puts_files_under_dot_claude(tmp_path: Path, home: Path) -> None:
    model = BrainModel({
        "team-lead": lead_brain({"solo": ("tester", "Do it.")}),
        "solo": teammate_brain("solo", "1"),
    })
    outcome = run_team("go", model=model, agents=[TESTER], cwd=tmp_path,
                       layout=TeamLayout.claude())
    name = outcome.team["team"]
    assert (home / ".claude" / "teams" / name / "config.json").is_file()
    assert (home / ".claude" / "tasks" / name / "1.json").is_file()
    assert not (tmp_path / ".subagents").exists()


@pytest.mark.parametrize("bad", ["main", "Team-Lead", "user", "has space", "-dash"])
def test_reserved_and_invalid_names_are_refused(tmp_path: Path, bad: str) -> None:
    from subagents.testing import text, tool_call

    replies = iter([tool_call("Agent", {"name": bad, "description": "d", "prompt": "p"}),
                    text("gave up")])
    model = BrainModel({"team-lead": lambda _m: next(replies)})
    outcome = run_team("go", model=model, agents=[], cwd=tmp_path)
    (call,) = outcome.result.tool_calls
    assert call.is_error and "InputValidationError" in call.output
    if bad.lower() in ("main", "team-lead", "user"):
        assert f'"{bad.lower()}" is reserved' in call.output
    else:
        assert "must start with a letter or digit" in call.output
    assert not outcome.result.children


def test_the_live_board_shows_members_and_tasks_by_status(tmp_path: Path) -> None:
    from rich.console import Console

    from subagents.dispatch.teams.board import TeamBoard

    board = TeamBoard()
    model = BrainModel({
        "team-lead": lead_brain({"solo": ("tester", "Do it.")}),
        "solo": teammate_brain("solo", "1"),
    })
    run_team("go", model=model, agents=[TESTER], cwd=tmp_path, on_event=board)
    console = Console(record=True, width=120)
    console.print(board.render())
    shown = console.export_text()
    assert "team session-" in shown
    assert "solo" in shown and "shut down" in shown
    assert re.search(r"team-lead\s*│\s*│\s*done", shown)
    assert "tasks: 0 pending · 0 in progress · 1 completed · 1 messages" in shown
    assert "Task for solo" in shown
