"""Done-when of the delegation issue: the whole Task round trip through the real `anthropic`
SDK against a scripted HTTP server on 127.0.0.1 (no network)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from subagents.cli.main import cli
from subagents.dispatch.main_thread import run_main_thread
from subagents.providers import get_provider
from subagents.providers.models import resolve_model
from subagents.registry.core import AgentRegistry
from subagents.testing import text, tool_call
from subagents.testing.server import FakeLLMServer

REVIEWER = """\
---
name: code-reviewer
description: Reviews code for quality and bugs. Use after writing code.
tools: Read, Grep
model: haiku
---
You are a meticulous code reviewer.
"""

LIMITED = """\
---
name: quick-look
description: Takes one quick look at a file.
tools: Read
maxTurns: 1
---
You take one quick look.
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / ".claude" / "agents"
    folder.mkdir(parents=True)
    (tmp_path / ".git").mkdir()
    (folder / "code-reviewer.md").write_text(REVIEWER)
    (folder / "quick-look.md").write_text(LIMITED)
    (tmp_path / "app.py").write_text("print('hi')\n")
    return tmp_path


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as srv:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", srv.anthropic_base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-not-a-real-key")
        yield srv


def _tool_names(body: dict[str, Any]) -> list[str]:
    return [str(t["name"]) for t in body.get("tools", [])]


def test_task_round_trip_through_the_anthropic_sdk(project: Path, server: FakeLLMServer) -> None:
    server.add(
        tool_call("Task", {"description": "Review app.py", "prompt": "Review app.py for bugs.",
                           "subagent_type": "code-reviewer", "run_in_background": False},
                  say="Delegating to the reviewer."),
        text("app.py prints hi; no bugs."),
        text("The reviewer says app.py is fine."),
    )
    result = run_main_thread("Is app.py OK?", registry=AgentRegistry(project, home=project / "h"),
                             model=get_provider("anthropic"), cwd=project)
    server.assert_complete()
    main1, child, main2 = (r.json for r in server.requests)
    # 1. The main thread's first request carries the Agent tool, and the agents are listed in
    #    a system reminder after the prompt.
    task = next(t for t in main1["tools"] if t["name"] == "Agent")
    assert set(task["input_schema"]["required"]) == {"description", "prompt"}
    assert len(main1["messages"]) == 1 and main1["messages"][0]["role"] == "user"
    prompt, reminder = (b["text"] for b in main1["messages"][0]["content"])
    assert "- code-reviewer: Reviews code for quality and bugs. Use after writing code. " \
           "(Tools: Read, Grep)" in reminder
    assert "- quick-look: Takes one quick look at a file. (Tools: Read)" in reminder
    assert prompt == "Is app.py OK?"
    # 2. The child: only its prompt, its system prompt, its model and its tools.
    assert child["system"].startswith("You are a meticulous code reviewer.")
    assert child["model"] == resolve_model("haiku")
    assert sorted(_tool_names(child)) == ["Grep", "Read"]
    assert len(child["messages"]) == 1
    assert json.dumps(child["messages"]).count("Review app.py for bugs.") == 1
    assert "Is app.py OK?" not in json.dumps(child)
    # 3. Its final text returns as the tool result, framed, with its id and usage.
    results = [b for b in main2["messages"][-1]["content"] if b["type"] == "tool_result"]
    assert len(results) == 1
    content = results[0]["content"]
    flat = content if isinstance(content, str) else "".join(c["text"] for c in content)
    assert "[Subagent hand-back]" in flat and not results[0].get("is_error", False)
    assert "\n  app.py prints hi; no bugs.\nagentId: a" in flat
    assert "<usage>subagent_tokens: " in flat
    # 4. The main thread's final answer.
    assert result.final_text == "The reviewer says app.py is fine."
    assert [c.agent for c in result.children] == ["code-reviewer"]


def test_child_with_max_turns_stops(project: Path, server: FakeLLMServer) -> None:
    server.add(
        tool_call("Task", {"description": "look", "prompt": "Look at app.py",
                           "subagent_type": "quick-look", "run_in_background": False}),
        tool_call("Read", {"file_path": "app.py"}),     # the child's only turn; then it stops
        text("Done: it stopped at its limit."),
    )
    result = run_main_thread("look at app.py", registry=AgentRegistry(project, home=project / "h"),
                             model=get_provider("anthropic"), cwd=project)
    server.assert_complete()
    assert len(server.requests) == 3  # no summary request
    child = result.children[0]
    assert child.stop_reason == "max_turns" and child.turns == 1 and child.final_text == ""
    tool_result = server.requests[2].json["messages"][-1]["content"][0]
    flat = tool_result["content"] if isinstance(tool_result["content"], str) else \
        "".join(c["text"] for c in tool_result["content"])
    assert "stopped at its 1-turn limit" in flat and "SendMessage" in flat
    assert result.final_text == "Done: it stopped at its limit."


def test_cli_run_prints_the_main_threads_answer(project: Path, server: FakeLLMServer) -> None:
    server.add(
        tool_call("Task", {"description": "Review", "prompt": "Review app.py",
                           "subagent_type": "code-reviewer", "run_in_background": False}),
        text("fine"),
        text("Final answer: app.py is fine."),
    )
    res = CliRunner().invoke(cli, ["run", "--provider", "anthropic", "--cwd", str(project),
                                   "--no-transcript", "Is app.py OK?"])
    assert res.exit_code == 0, res.output
    assert res.stdout.strip() == "Final answer: app.py is fine."
    server.assert_complete()

    server.add(
        tool_call("Task", {"description": "Review", "prompt": "Review app.py",
                           "subagent_type": "code-reviewer", "run_in_background": False}),
        text("fine"),
        text("ok"),
    )
    res = CliRunner().invoke(cli, ["run", "--provider", "anthropic", "--cwd", str(project),
                                   "--no-transcript", "--format", "json", "Is app.py OK?"])
    data = json.loads(res.stdout)
    assert data["final_text"] == "ok"
    assert data["children"][0]["agent"] == "code-reviewer"
    assert data["children"][0]["final_text"] == "fine"


def test_task_round_trip_through_the_openai_sdk(
    project: Path, server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    server.add(
        tool_call("Agent", {"description": "Review", "prompt": "Review app.py please.",
                            "subagent_type": "Code Reviewer", "run_in_background": False}),
        text("looks fine"),
        text("Reviewed: fine."),
    )
    result = run_main_thread("review app.py", registry=AgentRegistry(project, home=project / "h"),
                             model=get_provider("openai"), cwd=project)
    server.assert_complete()
    main1, child, main2 = (r.json for r in server.requests)
    names = [t["function"]["name"] for t in main1["tools"]]
    assert "Agent" in names and "Task" not in names
    assert child["messages"][0]["role"] == "system"
    assert child["messages"][0]["content"].startswith("You are a meticulous code reviewer.")
    assert [m["role"] for m in child["messages"]] == ["system", "user"]
    tool_msgs = [m for m in main2["messages"] if m["role"] == "tool"]
    assert "\n  looks fine\nagentId: a" in tool_msgs[-1]["content"]
    assert result.final_text == "Reviewed: fine."
