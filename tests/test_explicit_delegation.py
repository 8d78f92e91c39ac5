"""Explicit invocation through the main thread, and child model precedence, through real SDKs.

"Use the reader agent …" / "@reader" / "@agent-reader": the model decides to delegate (no
request forces a tool, as in Claude Code 2.1.332; only ``@agent-reader`` adds a line to the
context), then the main thread carries on with the reader's report; the reader runs on its
*own* model, not the run's ``--model``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from subagents.cli.main import cli
from subagents.providers.models import resolve_model
from subagents.testing import text, tool_call
from subagents.testing.server import FakeLLMServer

READER = """---
name: reader
description: Reads files and answers questions about them.
tools: Read, Grep
model: haiku
---
You read files and answer briefly. READER-BODY
"""

STAGE = """---
name: {name}
description: Stage {name}.
tools: Read
{model}---
You are stage {name}.
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "proj"
    agents = root / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "reader.md").write_text(READER)
    (root / "notes.txt").write_text("The launch code is 4711.\n")
    monkeypatch.chdir(root)
    monkeypatch.setenv("SUBAGENTS_TRANSCRIPT_DIR", str(tmp_path / "transcripts"))
    return root


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli, ["run", *args])


def _script(server: FakeLLMServer) -> None:
    server.add(
        # 1. main thread: delegates (in the foreground), by its old name Task
        tool_call("Task", {"description": "Find the launch code", "subagent_type": "reader",
                           "prompt": "Find the launch code in notes.txt and report it.",
                           "run_in_background": False}),
        # 2-3. the reader, on its own model
        tool_call("Read", {"file_path": "notes.txt"}),
        text("The launch code is 4711."),
        # 4-5. the main thread again: writes what the reader found, then answers
        tool_call("Write", {"file_path": "out.txt", "content": "4711\n"}),
        text("The reader found launch code 4711; I wrote it to out.txt."),
    )


def _tool_choice(body: dict[str, Any], api: str) -> Any:
    choice = body.get("tool_choice")
    if api == "openai" and isinstance(choice, dict):
        return choice.get("function", {}).get("name")
    return choice.get("name") if isinstance(choice, dict) else choice


def _model_env(provider: str, server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch) -> None:
    if provider == "anthropic":
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.anthropic_base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    else:
        monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
@pytest.mark.parametrize("form", [
    "Use the reader agent to find the launch code, then write what it found to out.txt",
    "@reader find the launch code, then write what it found to out.txt",
    "@agent-reader find the launch code, then write what it found to out.txt",
])
def test_main_thread_delegates_first_then_writes_the_answer(
    project: Path, monkeypatch: pytest.MonkeyPatch, provider: str, form: str
) -> None:
    with FakeLLMServer() as server:
        _script(server)
        _model_env(provider, server, monkeypatch)
        result = invoke("--provider", provider, "--model", "opus", "--allow", "Write",
                        "--format", "json", form)
        assert result.exit_code == 0, result.output
        server.assert_complete()
        main1, child1, child2, main2, main3 = (r.json for r in server.requests)
    data = json.loads(result.stdout)
    # The main thread made the request, delegated, and wrote the final answer itself.
    assert data["agent"] == "main"
    assert data["final_text"] == "The reader found launch code 4711; I wrote it to out.txt."
    assert (project / "out.txt").read_text() == "4711\n"
    assert [c["agent"] for c in data["children"]] == ["reader"]
    # Nothing is forced; only the @agent- form adds the line saying the user wants the agent.
    assert all(_tool_choice(r, provider) in (None, "auto") for r in (main1, main2, main3))
    said = 'asked for the \\"reader\\" agent' in json.dumps(main1["messages"])
    assert said == form.startswith("@agent-reader")
    assert data["children"][0]["stop_reason"] == "end_turn"
    assert "[Subagent hand-back]" in json.dumps(main2["messages"])
    # The main thread runs on --model; the child on its own model (haiku), not the run's.
    assert main1["model"] == main2["model"] == resolve_model("opus")
    assert child1["model"] == child2["model"] == resolve_model("haiku")
    assert "tool_choice" not in child1
    assert "READER-BODY" in json.dumps(child1.get("system") or child1["messages"][0])
    # The reader had no Write: the main thread did the writing.
    tools = child1["tools"]
    names = {t.get("name") or t["function"]["name"] for t in tools}
    assert names == {"Read", "Grep"}


def test_subagent_model_env_beats_the_agents_own_model(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAUDE_CODE_SUBAGENT_MODEL", "sonnet")
    with FakeLLMServer() as server:
        _script(server)
        _model_env("anthropic", server, monkeypatch)
        result = invoke("--model", "opus", "--allow", "Write", "Use the reader agent to find "
                        "the launch code, then write what it found to out.txt")
        assert result.exit_code == 0, result.output
        models = [r.json["model"] for r in server.requests]
    # The main thread keeps its model; every subagent runs on CLAUDE_CODE_SUBAGENT_MODEL.
    assert models == [resolve_model("opus"), resolve_model("sonnet"), resolve_model("sonnet"),
                      resolve_model("opus"), resolve_model("opus")]


def test_a_task_calls_model_beats_the_agents_field_and_inherit_means_the_parents(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / ".claude" / "agents" / "heir.md").write_text(
        STAGE.format(name="heir", model="model: inherit\n"))
    with FakeLLMServer() as server:
        server.add(
            tool_call("Task", {"description": "d", "subagent_type": "reader", "prompt": "p",
                               "model": "fable", "run_in_background": False}),
            text("reader on fable"),
            tool_call("Task", {"description": "d", "subagent_type": "heir", "prompt": "p",
                               "run_in_background": False}),
            text("heir on the parent's model"),
            text("done"),
        )
        _model_env("anthropic", server, monkeypatch)
        result = invoke("--model", "opus", "do it")
        assert result.exit_code == 0, result.output
        models = [r.json["model"] for r in server.requests]
    assert models == [resolve_model("opus"), resolve_model("fable"), resolve_model("opus"),
                      resolve_model("opus"), resolve_model("opus")]


def test_pipeline_stages_run_on_their_own_models(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    agents = project / ".claude" / "agents"
    (agents / "spec.md").write_text(STAGE.format(name="spec", model="model: haiku\n"))
    (agents / "build.md").write_text(STAGE.format(name="build", model=""))
    with FakeLLMServer() as server:
        server.add(text("spec done READY_FOR_BUILD"), text("built"))
        _model_env("anthropic", server, monkeypatch)
        result = invoke("--model", "opus", "--pipeline", "spec,build", "ship it")
        assert result.exit_code == 0, result.output
        models = [r.json["model"] for r in server.requests]
    # spec keeps its own haiku; build has no model and inherits the session's --model.
    assert models == [resolve_model("haiku"), resolve_model("opus")]
