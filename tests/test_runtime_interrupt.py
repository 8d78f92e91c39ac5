"""Ctrl-C / cancellation during a run: transcript flushed, child processes ended, 'interrupted'."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path

import pytest

from runtime_helpers import alive, wait_dead, wait_file
from subagents.definition import AgentDefinition
from subagents.runtime.permissions import PermissionPolicy, PermissionRequest
from subagents.runtime.result import ResultSlot, RunInterrupted
from subagents.runtime.runner import AgentRunner
from subagents.testing import ScriptedModel, text, tool_call, tool_calls

AGENT = AgentDefinition(name="sleeper", system_prompt="x", tools=("Bash",))


async def _yes(req: PermissionRequest) -> bool:
    return True


def _runner(model: ScriptedModel, tmp_path: Path) -> AgentRunner:
    return AgentRunner(model, cwd=tmp_path, transcript_dir=tmp_path / "t",
                       parent_model="m", policy=PermissionPolicy(ask=_yes))


def _events(path: Path | None) -> list[dict[str, object]]:
    assert path is not None
    return [json.loads(ln) for ln in path.read_text().splitlines()]


async def test_cancelled_run_kills_bash_and_flushes_transcript(tmp_path: Path) -> None:
    model = ScriptedModel([tool_call("Bash", {"command": "echo $$ > sh.pid; sleep 300"}),
                           text("never")])
    r = _runner(model, tmp_path)
    slot = ResultSlot()
    task = asyncio.create_task(r.run(AGENT, "sleep", result_slot=slot))
    pid = int(await asyncio.to_thread(wait_file, tmp_path / "sh.pid"))
    assert alive(pid)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    result = slot.interrupted
    assert result is not None and result.stop_reason == "interrupted"
    assert result.turns == 1
    assert wait_dead(pid), "the Bash child outlived the interrupted run"
    events = _events(result.transcript_path)
    assert events[-1]["type"] == "stop" and events[-1]["stop_reason"] == "interrupted"
    # the assistant's tool call was written before the interruption
    assert any(e["type"] == "message" and e.get("role") == "assistant" for e in events)


def test_ctrl_c_under_run_sync_raises_run_interrupted(tmp_path: Path) -> None:
    if threading.current_thread() is not threading.main_thread():  # pragma: no cover
        pytest.skip("SIGINT handling needs the main thread")
    # The Bash child sends SIGINT to this process (its parent), as a terminal's Ctrl-C would.
    cmd = "echo $$ > sh.pid; kill -INT $PPID; sleep 300"
    model = ScriptedModel([tool_call("Bash", {"command": cmd}), text("never")])
    r = _runner(model, tmp_path)
    with pytest.raises(RunInterrupted) as info:
        r.run_sync(AGENT, "sleep")
    assert info.value.exit_code == 130
    result = info.value.result
    assert result.stop_reason == "interrupted"
    pid = int((tmp_path / "sh.pid").read_text())
    assert wait_dead(pid)
    assert _events(result.transcript_path)[-1]["stop_reason"] == "interrupted"


async def test_a_call_cut_by_the_interruption_is_recorded(tmp_path: Path) -> None:
    model = ScriptedModel([
        tool_calls([("Bash", {"command": "echo $$ > sh.pid; sleep 300"}),
                    ("Bash", {"command": "echo quick"})]),
        text("never"),
    ])
    r = _runner(model, tmp_path)
    slot = ResultSlot()
    task = asyncio.create_task(r.run(AGENT, "sleep", result_slot=slot))
    pid = int(await asyncio.to_thread(wait_file, tmp_path / "sh.pid"))
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    result = slot.interrupted
    assert result is not None and wait_dead(pid)
    # the in-flight call is in the result and the transcript, marked as cut, not as done
    # (the quick call may have finished or been cut too: both are kept either way)
    assert len(result.tool_calls) == 2, result.tool_calls
    (cut,) = [c for c in result.tool_calls if "sleep 300" in c.input["command"]]
    assert cut.refusal == "interrupted" and not cut.executed and cut.is_error
    tool_events = [e for e in _events(result.transcript_path) if e["type"] == "tool"]
    assert any(e["id"] == cut.id and e.get("refusal") == "interrupted" for e in tool_events)


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
async def test_cancel_during_a_model_request_through_the_real_sdk(
    tmp_path: Path, stream: bool
) -> None:
    """Ctrl-C while the model is thinking (a request hanging on the wire): the run stops at
    once, says "interrupted", keeps the finished turn and flushes the transcript."""
    pytest.importorskip("anthropic")
    from subagents.providers.anthropic import AnthropicModel
    from subagents.testing.server import FakeLLMServer, Fault

    with FakeLLMServer() as server:
        server.add(tool_call("Glob", {"pattern": "*"}), Fault.hang(60))
        model = AnthropicModel(api_key="sk-test", base_url=server.anthropic_base_url,
                               stream=stream)
        r = AgentRunner(model, cwd=tmp_path, transcript_dir=tmp_path / "t", parent_model="m")
        agent = AgentDefinition(name="lister", system_prompt="x", tools=("Glob",))
        slot = ResultSlot()
        task = asyncio.create_task(r.run(agent, "list", result_slot=slot))
        while len(server.requests) < 2:  # the second request is on the wire, unanswered
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.1)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, 10)  # not the 60 s the server would hang
    result = slot.interrupted
    assert result is not None and result.stop_reason == "interrupted" and result.turns == 2
    assert [c.name for c in result.tool_calls] == ["Glob"] and result.tool_calls[0].executed
    events = _events(result.transcript_path)
    assert events[-1]["type"] == "stop" and events[-1]["stop_reason"] == "interrupted"
