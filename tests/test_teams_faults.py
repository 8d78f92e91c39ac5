"""Agent teams: bad input, faults, hooks, limits, resume — offline, through ScriptedModel brains."""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import sys
from pathlib import Path

import pytest

from subagents.definition import AgentDefinition, Scope
from subagents.dispatch.teams import (
    Team,
    TeamFiles,
    TeamLayout,
    TeamLimits,
    run_team,
    run_team_async,
)
from subagents.dispatch.teams.tasks import TaskBoard
from subagents.errors import ProviderError
from subagents.runtime.settings_hooks import SettingsHooks
from subagents.testing import text, tool_call, tool_calls
from team_helpers import BrainModel, all_text, lead_text, script

WORKER = AgentDefinition(name="worker", description="Does work.", system_prompt="WORKER-BODY",
                         tools=("Read",), source=Scope.PROJECT)


def spawn(name: str, kind: str | None = "worker", prompt: str = "Work.") -> tuple[str, dict]:
    args: dict[str, object] = {"name": name, "description": f"{name} work", "prompt": prompt}
    if kind:
        args["subagent_type"] = kind
    return ("Agent", args)


def results_of(model: BrainModel, agent: str, index: int = -1) -> list[str]:
    last = model.requests[agent][index].messages[-1]
    return [getattr(b, "content", "") for b in last.content]


def test_idle_notification_after_a_turn_with_no_mail_waiting(tmp_path: Path) -> None:
    model = BrainModel({
        "team-lead": script(tool_calls([spawn("w1")]), text("waiting"), text("all done")),
        "w1": script(text("W1-RESULT")),
    })
    outcome = run_team("go", model=model, agents=[WORKER], cwd=tmp_path)
    seen = lead_text(model)
    assert '{"type":"idle_notification","from":"w1"' in seen
    assert '"idleReason":"available","result":"W1-RESULT"' in seen
    assert outcome.result.final_text == "all done"
    (member,) = [m for m in outcome.team["members"] if m["name"] == "w1"]
    assert member["state"] == "stopped"  # idle at the end: stopped with the team


def test_send_to_a_missing_teammate_and_unknown_agent_type(tmp_path: Path) -> None:
    model = BrainModel({
        "team-lead": script(
            tool_calls([("SendMessage", {"to": "ghost", "message": "hello"}),
                        spawn("gp", kind="no-such-agent")]),
            text("done")),
        "gp": script(text("gp here")),
    })
    outcome = run_team("go", model=model, agents=[WORKER], cwd=tmp_path)
    missing, spawned = (c.output for c in outcome.result.tool_calls)
    data = json.loads(missing)
    assert data["success"] is False
    assert data["message"].startswith("No agent named 'ghost' is reachable.")
    assert "no agent type 'no-such-agent'" in spawned and "general-purpose" in spawned
    config = json.loads((Path(outcome.team["team_dir"]) / "config.json").read_text())
    gp = next(m for m in config["members"] if m["name"] == "gp")
    assert gp["agentType"] == "no-such-agent"


def test_task_errors_not_found_cycle_and_atomic_claim(tmp_path: Path) -> None:
    model = BrainModel({
        "team-lead": script(
            tool_calls([("TaskCreate", {"subject": "A", "description": "a"}),
                        ("TaskCreate", {"subject": "B", "description": "b"})]),
            tool_calls([("TaskUpdate", {"taskId": "2", "addBlockedBy": ["1"]}),
                        ("TaskGet", {"taskId": "99"}),
                        ("TaskUpdate", {"taskId": "99", "status": "completed"})]),
            tool_calls([("TaskUpdate", {"taskId": "1", "addBlockedBy": ["2"]}),
                        ("TaskUpdate", {"taskId": "1", "addBlocks": ["7"]}),
                        ("TaskUpdate", {"taskId": "1", "owner": "nobody"})]),
            tool_calls([spawn("alpha"), spawn("beta")]),
            text("waiting"), text("waiting"), text("waiting"), text("done")),
        "alpha": script(tool_call("TaskUpdate", {"taskId": "1", "owner": "alpha"}),
                        text("alpha has #1")),
        "beta": script(tool_call("TaskUpdate", {"taskId": "1", "owner": "beta"}),
                       text("beta tried")),
    }, delays={"beta": 0.05})
    outcome = run_team("go", model=model, agents=[WORKER], cwd=tmp_path)
    calls = [c.output for c in outcome.result.tool_calls]
    assert calls[2] == "Updated task #2 blockedBy"
    assert calls[3] == "Task not found" and calls[4] == "Task not found"
    assert "dependency cycle (#1 → #2 → #1)" in calls[5]
    assert calls[6] == "Task #7 not found; nothing was changed"
    assert "no team member named 'nobody'" in calls[7]
    tasks_dir = Path(outcome.team["tasks_dir"])
    one = json.loads((tasks_dir / "1.json").read_text())
    assert one["blocks"] == ["2"] and one["blockedBy"] == []  # two-way, and no cycle written
    assert one["owner"] == "alpha"  # the second claim did not overwrite it
    beta = next(c for c in outcome.result.children if c.agent == "beta")
    (claim,) = beta.tool_calls
    assert claim.is_error and "already owned by alpha" in claim.output


def test_corrupt_inbox_and_task_files_are_kept_aside_and_reported(tmp_path: Path) -> None:
    files = TeamFiles(TeamLayout.project(tmp_path), "t1")
    problems: list[str] = []
    files.on_problem = problems.append
    files.inbox_dir.mkdir(parents=True)
    files.inbox_path("bob").write_text("[{not json")
    assert files.take_messages("bob") == []
    assert problems and "bob.json" in problems[0] and "moved to bob.json.corrupt-" in problems[0]
    assert next(iter(files.inbox_dir.glob("bob.json.corrupt-*"))).read_text() == "[{not json"
    files.append_message("bob", {"from": "x", "text": "after"})
    assert [e["text"] for e in files.take_messages("bob")] == ["after"]
    board = TaskBoard(files)
    board.create("ok", "fine")
    files.task_path("2").write_text("{half")
    listing = board.list_text()
    assert listing.startswith("#1 [pending] ok") and "(skipped:" in listing and "2.json" in listing
    assert "cannot be read" in board.get_text("2")
    out = board.update("2", {"status": "completed"}, actor="x", is_lead=True)
    assert out.is_error and files.task_path("2").read_text() == "{half"  # not overwritten
    assert board.create("next", "n")["id"] == "3"  # the corrupt file's id is not reused


def _writer(root: str, who: int, count: int) -> None:
    files = TeamFiles(TeamLayout.project(root), "shared")
    for i in range(count):
        files.append_message("lead", {"from": f"p{who}", "text": f"{who}-{i}"})


@pytest.mark.slow
def test_two_processes_writing_one_inbox_lose_nothing(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("spawn" if sys.platform == "darwin" else "fork")
    procs = [ctx.Process(target=_writer, args=(str(tmp_path), w, 60)) for w in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    files = TeamFiles(TeamLayout.project(tmp_path), "shared")
    texts = sorted(e["text"] for e in files.take_messages("lead"))
    assert texts == sorted(f"{w}-{i}" for w in range(3) for i in range(60))
    assert files.take_messages("lead") == []


def test_a_teammate_whose_provider_keeps_failing_is_reported(tmp_path: Path) -> None:
    def failing(_messages: object) -> object:
        raise ProviderError("API Error: 400 FAKE-CRASH")

    model = BrainModel({
        "team-lead": script(
            tool_calls([("TaskCreate", {"subject": "A", "description": "a"}), spawn("w")]),
            tool_call("TaskUpdate", {"taskId": "1", "owner": "w"}),
            text("noted")),
        "w": failing,  # type: ignore[dict-item]
    }, delays={"w": 0.05})
    outcome = run_team("go", model=model, agents=[WORKER], cwd=tmp_path)
    seen = lead_text(model)
    assert '"idleReason":"failed","failureReason":"API Error: 400 FAKE-CRASH"' in seen
    assert "w has stopped: API Error: 400 FAKE-CRASH." in seen
    assert outcome.result.final_text == "noted"
    assert any("teammate w stopped" in w for w in outcome.result.warnings)
    task = json.loads((Path(outcome.team["tasks_dir"]) / "1.json").read_text())
    assert "owner" not in task and task["status"] == "pending"  # free to reassign


def test_a_teammate_over_its_max_turns_is_reported(tmp_path: Path) -> None:
    looping = AgentDefinition(name="looper", description="Loops.", system_prompt="L",
                              tools=("Read",), max_turns=2, source=Scope.PROJECT)
    model = BrainModel({
        "team-lead": script(tool_calls([spawn("lp", kind="looper")]), text("waiting"),
                            text("noted"), text("noted")),
        "lp": script(tool_call("TaskList"), tool_call("TaskList"), text("summary")),
    })
    outcome = run_team("go", model=model, agents=[looping], cwd=tmp_path)
    assert "lp has stopped: it exceeded its maxTurns (2)." in all_text(
        [m for r in model.requests["team-lead"] for m in r.messages])
    assert outcome.result.final_text == "noted"


async def test_a_teammate_killed_mid_turn_is_reported(tmp_path: Path) -> None:
    model = BrainModel({
        "team-lead": script(tool_calls([spawn("slow")]), text("waiting"), text("noted")),
        "slow": script(text("never")),
    }, delays={"slow": 30})
    teams: list[Team] = []
    run = asyncio.ensure_future(run_team_async("go", model=model, agents=[WORKER],
                                               cwd=tmp_path, team_out=teams))
    while not model.requests.get("slow"):
        await asyncio.sleep(0.01)
    assert teams[0].kill("slow")
    outcome = await asyncio.wait_for(run, 10)
    assert "slow has stopped: it was killed." in lead_text(model)
    slow = next(c for c in outcome.result.children if c.agent == "slow")
    assert slow.stop_reason == "interrupted"


def test_teammates_cannot_spawn_teammates_and_limits_hold(tmp_path: Path) -> None:
    model = BrainModel({
        "team-lead": script(tool_calls([spawn("a"), spawn("b")]),
                            tool_calls([("SendMessage", {"to": "a", "message": "1"}),
                                        ("SendMessage", {"to": "a", "message": "2"})]),
                            text("waiting"), text("waiting"), text("done"), text("done")),
        "a": script(tool_call("Agent", {"name": "sub", "description": "d", "prompt": "p"}),
                    text("a ok"), text("a ok"), text("a ok")),
    })
    general = AgentDefinition(name="worker", description="w", system_prompt="W", tools=None,
                              source=Scope.PROJECT)
    outcome = run_team("go", model=model, agents=[general], cwd=tmp_path,
                       limits=TeamLimits(max_teammates=1, max_messages=1))
    spawned, refused, sent, over = (c.output for c in outcome.result.tool_calls)
    assert "Spawned successfully" in spawned
    assert refused.startswith("The team already has 1 teammates, its limit (1)")
    assert json.loads(sent)["success"] is True
    assert "message limit (1) is reached" in json.loads(over)["message"]
    a = next(c for c in outcome.result.children if c.agent == "a")
    assert "the team roster is flat" in a.tool_calls[0].output


def _hook_settings(tmp_path: Path, events: dict[str, str]) -> SettingsHooks:
    hooks = SettingsHooks()
    script_dir = tmp_path / "hooks"
    script_dir.mkdir()
    data: dict[str, list[dict[str, object]]] = {}
    for event, body in events.items():
        path = script_dir / f"{event}.sh"
        path.write_text(body)
        data[event] = [{"hooks": [{"type": "command", "command": f"sh {path}"}]}]
    hooks.add(data)
    return hooks


def test_hooks_exit_2_roll_back_block_and_keep_working(tmp_path: Path) -> None:
    once = tmp_path / "idle-once"
    hooks = _hook_settings(tmp_path, {
        "TaskCreated": 'grep -q BAD && { echo "no BAD tasks" >&2; exit 2; }; exit 0\n',
        "TaskCompleted": 'cat > /dev/null; echo "run the tests first" >&2; exit 2\n',
        "TeammateIdle": f'cat > {tmp_path}/idle.json; [ -e {once} ] && exit 0; touch {once}; '
                        'echo "keep going" >&2; exit 2\n',
        "SubagentStart": f"cat >> {tmp_path}/start.jsonl; echo >> {tmp_path}/start.jsonl\n",
    })
    model = BrainModel({
        "team-lead": script(
            tool_calls([("TaskCreate", {"subject": "BAD", "description": "x"}),
                        ("TaskCreate", {"subject": "good", "description": "y"})]),
            tool_calls([("TaskUpdate", {"taskId": "2", "status": "completed"}), spawn("w")]),
            text("waiting"), text("waiting"), text("done"), text("done")),
        "w": script(text("first idle"), text("second idle")),
    })
    outcome = run_team("go", model=model, agents=[WORKER], cwd=tmp_path, hooks=hooks)
    bad, good, completed, _ = outcome.result.tool_calls
    assert bad.is_error and bad.output.startswith("TaskCreated hook feedback:\n[sh ")
    assert bad.output.endswith("]: no BAD tasks")
    assert good.output == "Task #2 created successfully: good"  # id 1 is not reused
    assert not completed.is_error and "run the tests first" in completed.output
    tasks_dir = Path(outcome.team["tasks_dir"])
    assert json.loads((tasks_dir / "2.json").read_text())["status"] == "pending"
    assert not (tasks_dir / "1.json").exists()
    assert (tasks_dir / ".highwatermark").read_text() == "1"
    w = model.requests["w"]
    assert len(w) == 2 and "TeammateIdle hook feedback:" in all_text(w[1].messages)
    idle = json.loads((tmp_path / "idle.json").read_text())
    assert idle["hook_event_name"] == "TeammateIdle" and idle["teammate_name"] == "w"
    assert idle["agent_type"] == "w" and idle["team_name"] == outcome.team["team"]
    starts = [json.loads(line) for line in (tmp_path / "start.jsonl").read_text().splitlines()
              if line.strip()]
    assert [s["agent_type"] for s in starts] == ["w"]  # one turn: the idle hook's feedback
    assert starts[0]["hook_event_name"] == "SubagentStart"  # continues that same turn


async def test_resume_a_team_from_its_files_after_an_interruption(tmp_path: Path) -> None:
    model = BrainModel({
        "team-lead": script(
            tool_calls([("TaskCreate", {"subject": "A", "description": "a"}), spawn("w")]),
            text("waiting")),
        "w": script(text("never")),
    }, delays={"w": 30})
    teams: list[Team] = []
    run = asyncio.ensure_future(run_team_async("first prompt", model=model, agents=[WORKER],
                                               cwd=tmp_path, team_out=teams))
    while not model.requests.get("w") or len(model.requests["team-lead"]) < 2:
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.05)  # the lead is waiting for mail, w is mid-turn
    run.cancel()  # Ctrl-C
    with pytest.raises(asyncio.CancelledError):
        await run
    name = teams[0].name
    team_dir = tmp_path / ".subagents" / "teams" / name
    for path in [team_dir / "config.json", *team_dir.glob("inboxes/*.json"),
                 *(tmp_path / ".subagents" / "tasks" / name).glob("*.json")]:
        json.loads(path.read_text())  # every file is whole
    # Resume: the lead picks up its conversation, the roster and the tasks.
    model2 = BrainModel({
        "team-lead": script(tool_call("SendMessage", {"to": "w", "message": "carry on"}),
                            text("waiting"), text("resumed and done")),
        "w": script(text("w back")),
    })
    outcome = await run_team_async(None, model=model2, agents=[WORKER], cwd=tmp_path,
                                   resume=name)
    first = model2.requests["team-lead"][0]
    assert all_text(first.messages).startswith("first prompt")  # its earlier conversation
    assert "resumed from its files" in all_text(first.messages[-1:])
    sent = json.loads(outcome.result.tool_calls[0].output)
    assert sent["success"] and "was not running; resumed it" in sent["message"]
    assert "carry on" in all_text(model2.requests["w"][0].messages)
    assert outcome.result.final_text == "resumed and done"
    assert outcome.team["team"] == name


@pytest.mark.parametrize("session", ["plan", "default"])
def test_plan_approval_protocol_for_a_lead_in_plan_mode(tmp_path: Path, session: str) -> None:
    """The plan approval protocol; when the user put the session in plan mode (``plan
    --yes``) the model-lead's approval does not lift it: only the user can."""
    import re

    from subagents.runtime.permissions import PermissionPolicy

    writer = AgentDefinition(name="writer", description="Writes.", system_prompt="W",
                             tools=("Write",), source=Scope.PROJECT,
                             permission_mode="plan" if session == "default" else None)

    def lead(messages: list) -> object:  # type: ignore[type-arg]
        seen = all_text(messages)
        if len(messages) == 1:
            return tool_calls([spawn("planner", kind="writer", prompt="Plan, then write x.txt")])
        found = re.findall(r'"requestId":"(plan_approval-[^"]+)"', seen)
        if found and "Plan approved for planner" not in seen:
            return tool_call("SendMessage", {"to": "planner", "message": {
                "type": "plan_approval_response", "request_id": found[-1], "approve": True}})
        return text("lead waiting")

    model = BrainModel({
        "team-lead": lead,  # type: ignore[dict-item]
        "planner": script(tool_call("Write", {"file_path": "x.txt", "content": "early"}),
                          tool_call("ExitPlanMode", {"plan": "# Plan\nwrite x.txt"}),
                          text("waiting for approval"),
                          tool_call("Write", {"file_path": "x.txt", "content": "approved"}),
                          text("written")),
    })
    outcome = run_team("go", model=model, agents=[writer], cwd=tmp_path,
                       policy=PermissionPolicy(mode=session, allow_rules=("Write",)))
    planner = next(c for c in outcome.result.children if c.agent == "planner")
    early, exit_plan, late = planner.tool_calls
    assert early.is_error and "plan" in early.output  # plan mode before approval
    assert "sent to the team lead for approval" in exit_plan.output
    approval = all_text(model.requests["planner"][3].messages)
    if session == "plan":  # the user's plan mode stays: the approved Write is still refused
        assert late.is_error and not (tmp_path / "x.txt").exists()
        assert "only the user can lift" in approval
    else:  # the agent's own plan mode: the lead's approval lifts it, as in Claude Code
        assert not late.is_error and (tmp_path / "x.txt").read_text() == "approved"
        assert "[Plan Approved] You can now proceed with implementation" in approval
    seen = all_text(model.requests["team-lead"][-1].messages)
    assert '"type":"plan_approval_request","from":"planner"' in seen
    assert '"planContent":"# Plan\\nwrite x.txt"' in seen
    assert "ExitPlanMode" in [t.name for t in model.requests["planner"][0].tools]


def test_an_agent_as_lead_keeps_its_allowlist_plus_the_team_tools(tmp_path: Path) -> None:
    boss = AgentDefinition(name="boss", description="Leads.", system_prompt="BOSS",
                           tools=("Read",), source=Scope.PROJECT)
    model = BrainModel({"boss": script(text("nothing to do"))})
    outcome = run_team("go", model=model, agents=[boss], cwd=tmp_path, lead_agent=boss)
    offered = [t.name for t in model.requests["boss"][0].tools]
    assert offered[0] == "Read" and "Bash" not in offered
    assert {"Agent", "SendMessage", "TaskCreate", "TaskGet", "TaskList",
            "TaskUpdate"} <= set(offered)
    assert outcome.result.final_text == "nothing to do"


def test_a_task_file_changed_by_another_process_is_read_again(tmp_path: Path) -> None:
    import os

    files = TeamFiles(TeamLayout.project(tmp_path), "cache")
    board = TaskBoard(files)
    board.create("first", "d")
    assert "first" in board.list_text()
    listed = board.all()[0][0]
    listed["subject"] = "mutated by a caller"  # callers get copies
    assert "mutated" not in board.list_text()
    other = files.task_path("1").with_suffix(".tmp")  # another writer: temp file + rename
    other.write_text(json.dumps({"id": "1", "subject": "renamed over", "description": "d",
                                 "status": "pending", "blocks": [], "blockedBy": []}))
    os.replace(other, files.task_path("1"))
    assert "renamed over" in board.list_text()
    files.task_path("1").unlink()
    assert board.list_text() == "No tasks found"


def test_a_hook_that_always_blocks_does_not_keep_a_teammate_going_forever(
    tmp_path: Path,
) -> None:
    hooks = _hook_settings(tmp_path, {"TeammateIdle": 'echo "never good enough" >&2; exit 2\n'})
    model = BrainModel({
        "team-lead": script(tool_calls([spawn("w")]), text("ok")),
        "w": script(text("try")),
    })
    outcome = run_team("go", model=model, agents=[WORKER], cwd=tmp_path, hooks=hooks)
    assert len(model.requests["w"]) == 6  # the turn, then 5 rounds of hook feedback
    assert "a turn-end hook blocked 5 turns in a row" in lead_text(model)
    assert any("blocked 5 turns in a row" in w for w in outcome.result.warnings)


def test_a_message_to_main_reaches_the_lead_as_an_agent_message(tmp_path: Path) -> None:
    model = BrainModel({
        "team-lead": script(tool_calls([spawn("w")]), text("ok")),
        "w": script(tool_call("SendMessage", {"to": "main", "message": "DIRECT-NOTE"}),
                    text("sent")),
    })
    outcome = run_team("go", model=model, agents=[WORKER], cwd=tmp_path)
    w = next(c for c in outcome.result.children if c.agent == "w")
    assert json.loads(w.tool_calls[0].output) == {
        "success": True, "message": "Message queued for the main conversation's next turn."}
    seen = all_text([m for r in model.requests["team-lead"] for m in r.messages])
    assert '<agent-message from="w">\nDIRECT-NOTE\n</agent-message>' in seen
    inbox = Path(outcome.team["team_dir"]) / "inboxes" / "team-lead.json"
    assert "DIRECT-NOTE" not in (inbox.read_text() if inbox.exists() else "")


def _marking_hooks(marker: Path) -> SettingsHooks:
    hooks = SettingsHooks()
    for event in ("SubagentStart", "SubagentStop", "TaskCreated", "TaskCompleted",
                  "TeammateIdle"):
        hooks.add({event: [{"hooks": [{"type": "command",
                                       "command": f"echo {event} >> {marker}"}]}]})
    return hooks


@pytest.mark.parametrize("mode", ["plan", "default"])
def test_plan_mode_runs_no_settings_hook_in_a_team(tmp_path: Path, mode: str) -> None:
    from subagents.runtime.permissions import PermissionPolicy

    marker = tmp_path / "hooks-ran"
    model = BrainModel({
        "team-lead": script(tool_calls([("TaskCreate", {"subject": "A", "description": "a"}),
                                        spawn("w1")]),
                            text("waiting"), text("done")),
        "w1": script(text("W1-PLAN")),
    })
    outcome = run_team("go", model=model, agents=[WORKER], cwd=tmp_path,
                       hooks=_marking_hooks(marker), policy=PermissionPolicy(mode=mode))
    assert outcome.result.final_text == "done"
    ran = set(marker.read_text().split()) if marker.exists() else set()
    if mode == "plan":
        assert ran == set()
    else:  # the same team outside plan mode runs them: the hooks are live
        assert {"TaskCreated", "SubagentStart", "TeammateIdle"} <= ran
