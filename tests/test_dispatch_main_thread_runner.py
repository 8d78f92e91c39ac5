"""The main thread and teams leave the caller's runner alone; interrupted results come back
through a per-call slot, not a shared runner attribute."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from dispatch_helpers import PerAgentModel, agent, runner
from subagents.dispatch.dispatcher import AgentDispatcher, current_node
from subagents.dispatch.main_thread import run_main_thread_async
from subagents.providers.base import ModelRequest, ModelResponse
from subagents.runtime.result import ResultSlot
from subagents.testing import text, tool_call

REVIEWER = agent("code-reviewer", "Reviews code.", tools=("Read",))


def _task(name: str) -> dict[str, object]:
    return {"description": "d", "prompt": "review it", "subagent_type": name,
            "run_in_background": False}


async def test_a_given_runner_is_not_changed_during_or_after_the_run(tmp_path: Path) -> None:
    seen: list[tuple[Any, Any]] = []
    model = PerAgentModel({"main": [tool_call("Task", _task("code-reviewer")), text("done")],
                           "code-reviewer": [text("fine")]})
    r = runner(model, tmp_path)
    original_sink = r.on_event

    def watch(request: ModelRequest) -> ModelResponse:
        seen.append((r.model, r.on_event))  # what the caller's runner looks like mid-run
        return text("fine")

    model.scripts["code-reviewer"].clear()
    model.scripts["code-reviewer"].append(watch)
    events: list[str] = []
    result = await run_main_thread_async(
        "@agent-code-reviewer on src", agents=[REVIEWER], runner=r, cwd=tmp_path,
        on_event=lambda kind, data: events.append(kind))
    assert result.final_text == "done"
    assert seen == [(model, original_sink)]
    assert r.model is model and r.on_event is original_sink
    assert "delegate" in events


async def test_two_main_threads_on_one_runner_do_not_cross_their_sinks(tmp_path: Path) -> None:
    model = PerAgentModel({"main": [text("a"), text("b")]}, delay=0.05)
    r = runner(model, tmp_path)
    got: dict[str, list[str]] = {"one": [], "two": []}

    async def one(name: str) -> None:
        await run_main_thread_async("hi", agents=[], runner=r, cwd=tmp_path,
                                    on_event=lambda kind, data: got[name].append(kind))

    await asyncio.gather(one("one"), one("two"))
    assert got["one"].count("start") == 1 and got["two"].count("start") == 1


async def test_interrupted_main_thread_result_is_in_the_slot(tmp_path: Path) -> None:
    gate = asyncio.Event()

    async def hang(request: ModelRequest) -> ModelResponse:
        gate.set()
        await asyncio.sleep(60)
        raise AssertionError("not reached")

    class Hanging(PerAgentModel):
        async def complete(self, request: ModelRequest) -> ModelResponse:
            if request.metadata.get("agent") == "code-reviewer":
                return await hang(request)
            return await super().complete(request)

    model = Hanging({"main": [tool_call("Task", _task("code-reviewer")), text("never")]})
    slot = ResultSlot()
    task = asyncio.create_task(run_main_thread_async(
        "go", agents=[REVIEWER], model=model, cwd=tmp_path, result_slot=slot))
    await asyncio.wait_for(gate.wait(), 10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert slot.interrupted is not None
    assert slot.interrupted.agent == "main"  # the main thread's, not the child's
    assert slot.interrupted.tool_calls[0].refusal == "interrupted"


async def test_rooted_at_roots_the_delegation_tree(tmp_path: Path) -> None:
    model = PerAgentModel({"*": [text("x")]})
    d = AgentDispatcher([REVIEWER], runner=runner(model, tmp_path))
    with d.rooted_at("code-reviewer"):
        assert current_node() == "main"
        # the root agent may start its own type (as in Claude Code), one level deeper
        again = await d.dispatch("code-reviewer", "again")
    assert again.stop_reason == "end_turn"
    with d.rooted_at(None):
        ok = await d.dispatch("code-reviewer", "once")
    assert ok.stop_reason == "end_turn"
