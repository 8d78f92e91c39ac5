"""Runtime benchmarks: loop overhead per turn, and parallel tool calls in one message.

Run: ``.venv/bin/python bench/bench_runtime.py``.  Prints figures and ratios against a
baseline measured in the same run; it asserts nothing (timings are not tests).

1. *Loop overhead per turn* (target <= 1 ms median): an agent makes N tool calls, one per turn,
   to a no-op tool, driven by ``ScriptedModel`` (no network).  The baseline is the same number
   of bare ``model.complete()`` calls, so the difference is everything but the model: request
   building, tool filtering, schema validation, permission checks, hooks, the tool call, result
   assembly and the JSONL transcript (measured with it on and off).  The built-in ``Read``
   (worker thread, real file) is measured too.
2. *Parallel tool calls* (target <= 1.5x): one assistant message with 10 independent calls of a
   tool that blocks for 100 ms (``time.sleep`` in a worker thread), against one such call.
   An asyncio-sleeping tool is shown as well.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from subagents.definition import AgentDefinition
from subagents.providers.base import Message, ModelRequest
from subagents.runtime.runner import AgentRunner
from subagents.runtime.tools import BlockingTool, Tool, ToolContext, ToolOutput, builtin_tools
from subagents.testing import ScriptedModel, text, tool_call, tool_calls

TURNS = 200
REPEATS = 7
NAP = 0.1


class Noop(Tool):
    name = "Noop"
    description = "does nothing"
    input_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"],
        "additionalProperties": False}
    read_only = True

    async def run(self, input: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        return ToolOutput("ok")


class BlockingNap(BlockingTool):
    name = "Nap"
    description = "blocks for 100 ms"
    read_only = True

    def call(self, input: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        time.sleep(NAP)
        return ToolOutput("rested")


class AsyncNap(Tool):
    name = "AsyncNap"
    description = "sleeps 100 ms without blocking"
    read_only = True

    async def run(self, input: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        await asyncio.sleep(NAP)
        return ToolOutput("rested")


def _script(name: str, args: dict[str, Any], turns: int) -> ScriptedModel:
    return ScriptedModel([tool_call(name, args) for _ in range(turns)] + [text("done")])


async def _baseline(turns: int) -> float:
    model = _script("Noop", {"n": 1}, turns)
    request = ModelRequest(model="m", system="s", messages=(Message.user("go"),))
    start = time.perf_counter()
    for _ in range(turns + 1):
        await model.complete(request)
    return time.perf_counter() - start


async def _loop(runner_kw: dict[str, Any], name: str, args: dict[str, Any], turns: int,
                tools: list[Tool], agent_tools: tuple[str, ...]) -> float:
    model = _script(name, args, turns)
    runner = AgentRunner(model, tools=tools, parent_model="m", default_max_turns=turns + 5,
                         **runner_kw)
    agent = AgentDefinition(name="bench", system_prompt="You benchmark.", tools=agent_tools)
    start = time.perf_counter()
    result = await runner.run(agent, "go")
    elapsed = time.perf_counter() - start
    assert result.turns == turns + 1 and result.stop_reason == "end_turn", result
    return elapsed


async def overhead(tmp: Path) -> dict[str, float]:
    (tmp / "f.txt").write_text("hello\n" * 50)
    cases: dict[str, tuple[dict[str, Any], str, dict[str, Any], list[Tool], tuple[str, ...]]] = {
        "noop tool, no transcript": ({"transcripts": False, "cwd": tmp}, "Noop", {"n": 1},
                                     [Noop()], ("Noop",)),
        "noop tool, JSONL transcript": ({"transcript_dir": tmp / "t", "cwd": tmp}, "Noop",
                                        {"n": 1}, [Noop()], ("Noop",)),
        "built-in Read, transcript": ({"transcript_dir": tmp / "t", "cwd": tmp}, "Read",
                                      {"file_path": "f.txt"}, list(builtin_tools().values()),
                                      ("Read", "Grep", "Glob")),
    }
    figures: dict[str, float] = {}
    base = statistics.median([await _baseline(TURNS) for _ in range(REPEATS)]) / (TURNS + 1)
    print(f"baseline: bare ScriptedModel.complete      {base * 1e6:8.1f} us / request")
    for label, (kw, name, args, tools, allowed) in cases.items():
        runs = [await _loop(kw, name, args, TURNS, tools, allowed) for _ in range(REPEATS)]
        per_turn = statistics.median(runs) / (TURNS + 1) - base
        figures[label] = per_turn
        verdict = "ok" if per_turn <= 1e-3 else "OVER TARGET"
        print(f"loop overhead: {label:28s} {per_turn * 1e6:8.1f} us / turn (median of "
              f"{REPEATS}; target <= 1000 us: {verdict})")
    return figures


async def _parallel(tool: Tool, calls: int) -> float:
    model = ScriptedModel([tool_calls([(tool.name, {}) for _ in range(calls)]), text("done")])
    runner = AgentRunner(model, tools=[tool], parent_model="m", transcripts=False)
    agent = AgentDefinition(name="bench", system_prompt="x", tools=(tool.name,))
    start = time.perf_counter()
    result = await runner.run(agent, "go")
    elapsed = time.perf_counter() - start
    assert [c.output for c in result.tool_calls] == ["rested"] * calls
    return elapsed


async def parallel() -> dict[str, float]:
    figures: dict[str, float] = {}
    for tool in (BlockingNap(), AsyncNap()):
        one = statistics.median([await _parallel(tool, 1) for _ in range(3)])
        ten = statistics.median([await _parallel(tool, 10) for _ in range(3)])
        ratio = ten / one
        figures[tool.name] = ratio
        verdict = "ok" if ratio <= 1.5 else "OVER TARGET"
        print(f"parallel: {tool.name:9s} 1 call {one * 1e3:7.1f} ms, 10 calls {ten * 1e3:7.1f} ms"
              f" -> ratio {ratio:.2f}x (sequential would be ~10x; target <= 1.5x: {verdict})")
    return figures


async def main() -> int:
    print(f"python {sys.version.split()[0]}, {TURNS} turns x {REPEATS} repeats")
    with tempfile.TemporaryDirectory() as tmp:
        over = await overhead(Path(tmp))
    par = await parallel()
    ok = all(v <= 1e-3 for v in over.values()) and all(v <= 1.5 for v in par.values())
    print("all targets met" if ok else "some target missed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
