"""Pipelines: agents chained stage by stage (dispatch/pipeline.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dispatch_helpers import PerAgentModel, agent, runner
from subagents.dispatch.pipeline import run_pipeline
from subagents.errors import ProviderConnectionError
from subagents.providers.base import TextBlock, ToolResultBlock
from subagents.runtime.permissions import PermissionPolicy
from subagents.testing import text, tool_call

SPEC = agent("pm-spec")
ARCH = agent("architect-review", tools=("Read",))
IMPL = agent("implementer-tester")


async def test_each_stage_gets_the_task_and_only_the_previous_answer(tmp_path: Path) -> None:
    model = PerAgentModel({
        "pm-spec": [text("Spec: refunds within 30 days. READY_FOR_ARCH")],
        "architect-review": [text("ADR-7: use the ledger service. READY_FOR_BUILD")],
        "implementer-tester": [text("Built and tested.")],
    })
    result = await run_pipeline([SPEC, ARCH, IMPL], "Add refunds", runner=runner(model, tmp_path),
                                handoff_dir=tmp_path / ".claude" / "pipeline")
    assert result.agent == "pipeline" and result.stop_reason == "end_turn"
    assert result.final_text == "Built and tested."
    assert [c.agent for c in result.children] == ["pm-spec", "architect-review", "implementer-tester"]
    assert result.turns == 3 and result.usage.total_tokens == 45
    arch_prompt = model.requests["architect-review"][0].messages[0].text
    assert "Add refunds" in arch_prompt and "Output of the previous stage (pm-spec)" in arch_prompt
    assert "refunds within 30 days" in arch_prompt
    impl_prompt = model.requests["implementer-tester"][0].messages[0].text
    assert "ADR-7" in impl_prompt and "refunds within 30 days" not in impl_prompt  # isolation
    files = sorted(p.name for p in (tmp_path / ".claude" / "pipeline").iterdir())
    assert files == ["01-pm-spec.md", "02-architect-review.md", "03-implementer-tester.md"]
    assert (tmp_path / ".claude" / "pipeline" / "03-implementer-tester.md").read_text() == "Built and tested."
    assert result.warnings == ()  # a READY hand-over is progress (a "handover" event)


async def test_handoff_files_get_the_usual_mode_and_keep_an_existing_one(tmp_path: Path) -> None:
    import os
    import stat

    folder = tmp_path / "handoff"
    folder.mkdir()
    kept = folder / "02-architect-review.md"
    kept.write_text("old")
    kept.chmod(0o640)
    model = PerAgentModel({"pm-spec": [text("a")], "architect-review": [text("b")]})
    old_umask = os.umask(0o022)
    try:
        await run_pipeline([SPEC, ARCH], "t", runner=runner(model, tmp_path), handoff_dir=folder)
    finally:
        os.umask(old_umask)
    assert stat.S_IMODE((folder / "01-pm-spec.md").stat().st_mode) == 0o644  # not mkstemp's 0600
    assert stat.S_IMODE(kept.stat().st_mode) == 0o640 and kept.read_text() == "b"


async def test_a_failing_stage_stops_the_pipeline(tmp_path: Path) -> None:
    model = PerAgentModel({
        "pm-spec": [text("spec")],
        "architect-review": [ProviderConnectionError("down")],
    })
    result = await run_pipeline([SPEC, ARCH, IMPL], "t", runner=runner(model, tmp_path))
    assert result.stop_reason == "error"
    assert "stage 2 (architect-review)" in (result.error or "")
    assert [c.agent for c in result.children] == ["pm-spec", "architect-review"]
    assert "implementer-tester" not in model.requests


async def test_require_ready_stops_when_a_stage_does_not_hand_over(tmp_path: Path) -> None:
    model = PerAgentModel({"pm-spec": [text("I need more information first.")]})
    result = await run_pipeline([SPEC, ARCH], "t", runner=runner(model, tmp_path),
                                require_ready=True)
    assert [c.agent for c in result.children] == ["pm-spec"]
    assert any("did not signal READY_FOR_" in w for w in result.warnings)


async def test_the_callers_policy_bounds_every_stage(tmp_path: Path) -> None:
    model = PerAgentModel({
        "pm-spec": [tool_call("Write", {"file_path": "spec.md", "content": "x"}), text("done")],
    })
    r = runner(model, tmp_path, policy=PermissionPolicy(mode="plan"))
    result = await run_pipeline([SPEC], "t", runner=r)
    (call,) = result.children[0].tool_calls
    assert call.name == "Write" and call.is_error and not call.executed
    assert not (tmp_path / "spec.md").exists()
    second = model.requests["pm-spec"][1].messages[-1].content[0]
    assert isinstance(second, ToolResultBlock) and second.is_error
    assert not isinstance(second, TextBlock)


async def test_an_interrupted_stage_leaves_its_result_in_the_slot(tmp_path: Path) -> None:
    import asyncio

    from subagents.runtime.result import ResultSlot

    model = PerAgentModel({"pm-spec": [text("Spec. READY_FOR_ARCH")],
                           "architect-review": [text("never")]},
                          delays={"architect-review": 60})
    slot = ResultSlot()
    task = asyncio.create_task(run_pipeline([SPEC, ARCH], "t", runner=runner(model, tmp_path),
                                            result_slot=slot))
    while not model.requests["architect-review"]:
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    interrupted = slot.interrupted
    assert interrupted is not None and interrupted.agent == "architect-review"
