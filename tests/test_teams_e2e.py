"""``subagents run --teams`` end to end through the real anthropic and openai SDKs.

A lead spawns two custom-agent teammates, assigns them tasks, collects their reports and shuts
them down; every member talks to the loopback server, which tells them apart by their system
prompts and answers from the same brains as the offline tests.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from subagents.cli.main import cli
from subagents.providers.base import (
    Message,
    ModelResponse,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from subagents.providers.models import resolve_model
from subagents.testing.server import FakeLLMServer, RecordedRequest
from team_helpers import Brain, lead_brain, teammate_brain

REVIEWER = """---
name: code-reviewer
description: Reviews code for bugs.
tools: Read, Grep, Glob
model: haiku
color: blue
---
AGENT-BODY:code-reviewer
"""

TESTER = """---
name: tester
description: Writes and runs tests.
tools: Read, Bash
model: sonnet
---
AGENT-BODY:tester
"""


def _messages(body: dict[str, Any]) -> tuple[str, list[Message]]:
    """(system prompt, conversation) of an Anthropic or OpenAI request body."""
    system = body.get("system") or ""
    if isinstance(system, list):
        system = "".join(b.get("text", "") for b in system)
    out: list[Message] = []
    for m in body.get("messages", []):
        role = m.get("role")
        content = m.get("content")
        blocks: list[Any] = []
        if role == "system":
            system += content if isinstance(content, str) else ""
            continue
        if role == "tool":
            out.append(Message("user", (ToolResultBlock(m.get("tool_call_id", ""),
                                                        str(content)),)))
            continue
        if isinstance(content, str):
            blocks.append(TextBlock(content))
        for b in content if isinstance(content, list) else []:
            if b.get("type") == "text":
                blocks.append(TextBlock(b["text"]))
            elif b.get("type") == "tool_use":
                blocks.append(ToolUseBlock(b["id"], b["name"], b.get("input") or {}))
            elif b.get("type") == "tool_result":
                c = b.get("content")
                text = c if isinstance(c, str) else "".join(x.get("text", "") for x in c or [])
                blocks.append(ToolResultBlock(b["tool_use_id"], text))
        for call in m.get("tool_calls") or []:
            fn = call["function"]
            blocks.append(ToolUseBlock(call["id"], fn["name"], json.loads(fn["arguments"])))
        out.append(Message(role, tuple(blocks)))
    return system, out


MARKERS = {"You are the lead of a team": "lead", "AGENT-BODY:code-reviewer": "reviewer",
           "AGENT-BODY:tester": "tester", "AGENT-BODY:writer": "writer"}


def router(brains: dict[str, Brain]) -> Any:
    """A server reply telling members apart by their system prompts."""

    def reply(request: RecordedRequest) -> ModelResponse:
        system, messages = _messages(request.json)
        who = next((v for k, v in MARKERS.items() if k in system), None)
        if who is None:
            raise AssertionError(f"unknown member: {system[:80]!r}")
        return brains[who](messages)

    return reply


def _who(body: dict[str, Any]) -> str:
    system, _ = _messages(body)
    if "You are the lead" in system:
        return "lead"
    return "reviewer" if "code-reviewer" in system else "tester"


def _tool_names(body: dict[str, Any]) -> list[str]:
    return [t.get("name") or t["function"]["name"] for t in body.get("tools", [])]


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_a_team_run_through_the_real_sdk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         provider: str) -> None:
    project = tmp_path / "proj"
    agents = project / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "code-reviewer.md").write_text(REVIEWER)
    (agents / "tester.md").write_text(TESTER)
    monkeypatch.chdir(project)
    monkeypatch.setenv("SUBAGENTS_TRANSCRIPT_DIR", str(tmp_path / "transcripts"))
    brains = {
        "lead": lead_brain({"reviewer": ("code-reviewer", "Review parser.py."),
                            "tester": ("tester", "Write tests for parser.py.")}, final="DONE"),
        "reviewer": teammate_brain("reviewer", "1", finding="one missing input check"),
        "tester": teammate_brain("tester", "2", finding="3 tests written"),
    }
    with FakeLLMServer() as server:
        server.add(*[router(brains)] * 200)
        if provider == "anthropic":
            monkeypatch.setenv("ANTHROPIC_BASE_URL", server.anthropic_base_url)
            monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
        else:
            monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
            monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        result = CliRunner().invoke(cli, [
            "run", "--teams", "--provider", provider, "--model", "opus", "--format", "json",
            "Review parser.py and write tests for it"])
        bodies = [r.json for r in server.requests]
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["final_text"] == ("DONE: REPORT-reviewer: one missing input check | "
                                  "REPORT-tester: 3 tests written")
    assert sorted(c["agent"] for c in data["children"]) == ["reviewer", "tester"]
    team = data["team"]
    assert team["team"].startswith("session-") and team["messages"] == 2  # the reports
    assert {m["name"]: m["state"] for m in team["members"]} == {
        "team-lead": "idle", "reviewer": "shut down", "tester": "shut down"}
    assert [t["status"] for t in team["tasks"]] == ["completed", "completed"]
    assert team["usage"]["input_tokens"] > 0 and "team session-" in result.stderr
    # Who ran on which model: the lead on --model, each teammate on its agent's own.
    models = {(_who(b), b["model"]) for b in bodies}
    assert models == {("lead", resolve_model("opus")), ("reviewer", resolve_model("haiku")),
                      ("tester", resolve_model("sonnet"))}
    lead_first = next(b for b in bodies if _who(b) == "lead")
    assert {"Agent", "SendMessage", "TaskCreate", "TaskGet", "TaskList",
            "TaskUpdate"} <= set(_tool_names(lead_first))
    rev = next(b for b in bodies if _who(b) == "reviewer")
    assert _tool_names(rev) == ["Read", "Grep", "Glob", "SendMessage", "TaskCreate", "TaskGet",
                                "TaskList", "TaskUpdate"]
    # The files are Claude Code's shapes, under the project.
    team_dir = project / ".subagents" / "teams" / team["team"]
    config = json.loads((team_dir / "config.json").read_text())
    assert [m["name"] for m in config["members"]] == ["team-lead"]
    task = json.loads((project / ".subagents" / "tasks" / team["team"] / "2.json").read_text())
    assert task["owner"] == "tester" and task["status"] == "completed"
    assert sorted(p.name for p in (team_dir / "transcripts").iterdir()) == [
        "reviewer-1.jsonl", "team-lead-1.jsonl", "tester-1.jsonl"]


def test_teams_can_be_enabled_by_settings_env_and_are_off_otherwise(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SUBAGENTS_TRANSCRIPT_DIR", str(tmp_path / "transcripts"))
    reply = tmp_path / "r.json"
    reply.write_text(json.dumps(["hello"]))
    off = CliRunner().invoke(cli, ["run", "--provider", "scripted", "--script", str(reply),
                                   "--format", "json", "hi"])
    assert off.exit_code == 0, off.output
    assert "team" not in json.loads(off.stdout)
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text(
        json.dumps({"env": {"CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS": "1"}}))
    # the project's settings apply once it is trusted (an untrusted one's do not)
    untrusted = CliRunner().invoke(cli, ["run", "--provider", "scripted", "--script",
                                         str(reply), "--format", "json", "hi"])
    assert "team" not in json.loads(untrusted.stdout)
    on = CliRunner().invoke(cli, ["run", "--provider", "scripted", "--script", str(reply),
                                  "--trust", "--format", "json", "hi"])
    assert on.exit_code == 0, on.output
    data = json.loads(on.stdout)
    assert data["final_text"] == "hello" and data["team"]["team"].startswith("session-")


WRITER = """---
name: writer
description: Writes things with the shell.
tools: Bash
---
AGENT-BODY:writer
"""


def _gone(marker: bytes, timeout: float = 10.0) -> bool:
    """No process on this machine has ``marker`` in its command line (within ``timeout``)."""
    import time
    from pathlib import Path as _P

    deadline = time.monotonic() + timeout
    while True:
        alive = False
        for cmdline in _P("/proc").glob("[0-9]*/cmdline"):
            try:
                if marker in cmdline.read_bytes():
                    alive = True
                    break
            except OSError:
                continue
        if not alive:
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)


@pytest.mark.slow
def test_ctrl_c_during_a_team_run_exits_130_with_files_whole(tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import sys
    import time

    from subagents.testing import text, tool_call
    from team_helpers import script

    project = tmp_path / "proj"
    (project / ".claude" / "agents").mkdir(parents=True)
    (project / ".claude" / "agents" / "writer.md").write_text(WRITER)
    brains = {
        "lead": script(tool_call("Agent", {"name": "w", "subagent_type": "writer",
                                           "description": "sleep", "prompt": "Sleep."}),
                       text("waiting")),
        # a marked sleep: inside the Bash sandbox's own PID namespace `$$` is not a host pid,
        # so the test finds the process by its command line instead
        "writer": script(tool_call("Bash", {"command": "echo go > sh.pid; sleep 300.4242"}),
                         text("never")),
    }
    with FakeLLMServer() as server:
        server.add(*[router(brains)] * 20)
        env = {**os.environ, "ANTHROPIC_BASE_URL": server.anthropic_base_url,
               "ANTHROPIC_API_KEY": "sk-ant-test",
               "SUBAGENTS_TRANSCRIPT_DIR": str(tmp_path / "t")}
        proc = subprocess.Popen(
            [sys.executable, "-m", "subagents.cli.main", "run", "--teams", "--yes",
             "--format", "json", "go"],
            cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        pid_file = project / "sh.pid"
        deadline = time.monotonic() + 60
        while not (pid_file.exists() and pid_file.read_text().strip()):
            assert time.monotonic() < deadline and proc.poll() is None, proc.stderr
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "interrupted" in err
    assert json.loads(out)["stop_reason"] == "interrupted"
    assert _gone(b"300.4242")  # the teammate's shell and its children were stopped
    (team_dir,) = (project / ".subagents" / "teams").iterdir()
    files = [team_dir / "config.json", *team_dir.glob("inboxes/*.json"),
             *(project / ".subagents" / "tasks" / team_dir.name).glob("*.json")]
    for path in files:
        json.loads(path.read_text())  # nothing half-written
    config = json.loads((team_dir / "config.json").read_text())
    assert [m["name"] for m in config["members"]] == ["team-lead", "w"]
    w_transcript = team_dir / "transcripts" / "w-1.jsonl"
    last = json.loads(w_transcript.read_text().splitlines()[-1])
    assert last["type"] == "stop" and last["stop_reason"] == "interrupted"


def test_resuming_a_team_that_does_not_exist_says_where_it_looked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    reply = tmp_path / "r.json"
    reply.write_text(json.dumps(["hello"]))
    r = CliRunner().invoke(cli, ["run", "--resume-team", "session-nope", "--provider",
                                 "scripted", "--script", str(reply), "go"])
    from subagents.errors import RunError

    # the CLI's entry point turns it into "error: ..." and exit 1 (main.py)
    assert isinstance(r.exception, RunError)
    assert "there is no team 'session-nope' to resume" in str(r.exception)
