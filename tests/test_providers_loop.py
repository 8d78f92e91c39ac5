"""Providers inside the real agent loop: a multi-turn tool run through each SDK over HTTP."""

from __future__ import annotations

from pathlib import Path

import pytest

from providers_helpers import SECRET, clean_env_fixture, server_fixture  # noqa: F401
from subagents.definition import AgentDefinition
from subagents.providers import RetryPolicy, get_provider
from subagents.testing import text, tool_call
from subagents.testing.server import FakeLLMServer, Fault, raw_tool_call

runner_module = pytest.importorskip("subagents.runtime.runner")

READER = AgentDefinition(
    name="reader", description="Reads files.", system_prompt="You read files and report.",
    tools=("Read",), model="claude-test-model",
)


def provider(name: str, server: FakeLLMServer, stream: bool):  # type: ignore[no-untyped-def]
    base = server.anthropic_base_url if name == "anthropic" else server.openai_base_url
    return get_provider(name, api_key=SECRET, base_url=base, stream=stream,
                        retry=RetryPolicy.instant())


@pytest.mark.parametrize("name", ["anthropic", "openai"])
@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
async def test_multi_turn_tool_loop(
    server: FakeLLMServer, tmp_path: Path, name: str, stream: bool
) -> None:
    (tmp_path / "notes.txt").write_text("the answer is 42\n", encoding="utf-8")
    server.add(
        Fault.status(500),  # retried inside the provider, invisible to the loop
        tool_call("Read", {"file_path": str(tmp_path / "notes.txt")}, id="call_1"),
        text("The notes say the answer is 42."),
    )
    runner = runner_module.AgentRunner(
        provider(name, server, stream), cwd=tmp_path, transcripts=False
    )
    result = await runner.run(READER, "What do the notes say?")
    assert result.final_text == "The notes say the answer is 42."
    assert result.stop_reason == "end_turn"
    server.assert_complete()
    last = server.requests[-1].json
    assert last["model"] == "claude-test-model"
    if name == "anthropic":
        assert "You read files and report." in last["system"]
        (block,) = last["messages"][-1]["content"]
        assert block["type"] == "tool_result" and block["tool_use_id"] == "call_1"
        assert "the answer is 42" in str(block["content"]) and not block["is_error"]
        assert [t["name"] for t in last["tools"]] == ["Read"]
    else:
        assert last["messages"][0]["role"] == "system"
        assert "You read files and report." in last["messages"][0]["content"]
        tool_msg = last["messages"][-1]
        assert tool_msg["role"] == "tool" and tool_msg["tool_call_id"] == "call_1"
        assert "the answer is 42" in tool_msg["content"]
        assert [t["function"]["name"] for t in last["tools"]] == ["Read"]


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
async def test_broken_tool_arguments_come_back_as_an_error_result(
    server: FakeLLMServer, tmp_path: Path, stream: bool
) -> None:
    server.add(raw_tool_call("Read", '{"file_path": "no', id="call_bad"), text("Sorry."))
    runner = runner_module.AgentRunner(
        provider("openai", server, stream), cwd=tmp_path, transcripts=False
    )
    result = await runner.run(READER, "read it")
    assert result.final_text == "Sorry."
    tool_msg = server.requests[-1].json["messages"][-1]
    assert tool_msg["role"] == "tool" and tool_msg["tool_call_id"] == "call_bad"
    assert tool_msg["content"].startswith("Error")
