"""Pipelines: agents chained stage by stage (seed 000 §4.3 and §8.2).

``PM-Spec → Architect-Review → Implementer-Tester → QA``: each stage is a full, isolated agent
run (its own prompt, model, tools, hooks, skills and MCP servers, through the same
:class:`~subagents.runtime.runner.AgentRunner`), and what a stage hands to the next is only its
final text — the same contract as a Task result.  The pipeline result is an
:class:`~subagents.runtime.result.AgentResult` named ``pipeline`` whose ``children`` are the
stage results, so the CLI's JSON output, the delegation tree and usage totals work unchanged.

Design decisions
----------------
* **Hand-off text.** Stage *n* gets the original task plus the previous stage's final answer
  under a heading naming that stage; it never sees earlier conversations (isolation).
* **Hand-off files** (optional ``handoff_dir``, seed 000 §8.2 ".claude/pipeline/"): each stage's
  answer is also written atomically to ``NN-<agent>.md`` there, for people and for hooks.
* **Status markers.** A stage signals readiness with a ``READY_FOR_<NEXT>`` token (the seed's
  SubagentStop convention).  With ``require_ready=True`` every stage but the last must emit one,
  or the pipeline stops after it (``stop_reason="end_turn"``, with a warning saying which stage
  did not hand over, and fewer ``children`` than stages: the CLI exits 3 then).  A marker is
  progress, not a problem: it is reported as a ``handover`` event (``on_event``), never as a
  warning.
* **Failure.** A stage that errors stops the pipeline (``stop_reason="error"``, the error names
  the stage); a stage that hits its ``maxTurns`` hands over its summary and a warning is kept.
* **Models.** Each stage is a subagent of the session: ``CLAUDE_CODE_SUBAGENT_MODEL``, then the
  stage's own ``model``, then the session's ``model`` (``run --model``) — the same rule as a
  Task call (``AgentRunner.resolve_model``).
* **Permissions.** Every stage runs as a child of one pipeline context, so the caller's policy
  (denylist, mode) bounds every stage exactly as it bounds a delegated subagent.
"""

from __future__ import annotations

import os
import re
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from subagents.definition import AgentDefinition
from subagents.errors import UsageError
from subagents.providers.base import Usage
from subagents.runtime.result import AgentResult
from subagents.runtime.tools.base import ToolContext
from subagents.runtime.tools.files import atomic_write_text

if TYPE_CHECKING:
    from subagents.runtime.runner import AgentRunner

__all__ = ["READY_MARKER", "run_pipeline", "stage_prompt"]

_SESSION = AgentDefinition(name="pipeline", description="the session")

READY_MARKER = re.compile(r"\bREADY_FOR_[A-Z][A-Z0-9_]*\b")

EventSink = Callable[[str, Mapping[str, Any]], None]


def stage_prompt(task: str, index: int, total: int, previous: AgentResult | None) -> str:
    """The prompt of stage ``index`` (1-based) of ``total``."""
    head = f"You are stage {index} of {total} of a pipeline.\n\n# Task\n\n{task.strip()}\n"
    if previous is None:
        return head
    return (
        f"{head}\n# Output of the previous stage ({previous.agent})\n\n"
        f"{previous.final_text.strip() or '(the previous stage gave no answer)'}\n"
    )


async def run_pipeline(
    stages: Sequence[AgentDefinition],
    task: str,
    *,
    runner: AgentRunner,
    handoff_dir: str | os.PathLike[str] | None = None,
    require_ready: bool = False,
    model: str | None = None,
    on_event: EventSink | None = None,
) -> AgentResult:
    """Run ``stages`` in order on ``task``; see the module docstring."""
    if not stages:
        raise UsageError("a pipeline needs at least one stage")
    started = time.perf_counter()
    run_id = f"pipeline-{uuid.uuid4().hex[:8]}"
    # ``model`` is the session's model: a stage's own ``model`` (and CLAUDE_CODE_SUBAGENT_MODEL)
    # beats it, as for any subagent (AgentRunner.resolve_model).
    parent = ToolContext(
        cwd=runner.cwd, agent_name="pipeline", run_id=run_id, depth=0, policy=runner.policy,
        runner=runner, model=runner.resolve_model(_SESSION, model) if model else "",
    )
    folder = Path(handoff_dir) if handoff_dir is not None else None
    results: list[AgentResult] = []
    warnings: list[str] = []
    stop_reason: Any = "end_turn"
    error: str | None = None
    previous: AgentResult | None = None
    for index, agent in enumerate(stages, 1):
        if on_event is not None:
            on_event("stage", {"index": index, "total": len(stages), "agent": agent.name})
        result = await runner.run(
            agent, stage_prompt(task, index, len(stages), previous), parent=parent
        )
        results.append(result)
        if folder is not None:
            # temp + fsync + rename; a new file gets the umask's mode, an old one keeps its own
            atomic_write_text(folder / f"{index:02d}-{agent.name}.md", result.final_text)
        markers = READY_MARKER.findall(result.final_text)
        if markers and on_event is not None:  # a hand-over is progress, not a warning
            on_event("handover", {"index": index, "total": len(stages), "agent": agent.name,
                                  "markers": list(markers)})
        if result.stop_reason in ("error", "interrupted"):
            stop_reason = result.stop_reason
            error = f"stage {index} ({agent.name}) stopped: {result.error or result.stop_reason}"
            break
        if result.stop_reason == "max_turns":
            warnings.append(f"stage {index} ({agent.name}) hit its turn limit; its summary "
                            "was handed on")
        if require_ready and index < len(stages) and not markers:
            warnings.append(f"stage {index} ({agent.name}) did not signal READY_FOR_*; "
                            "the pipeline stops here")
            break
        previous = result
    usage = Usage()
    for r in results:
        usage = usage + r.usage
    last = results[-1]
    return AgentResult(
        agent="pipeline",
        model=last.model,
        final_text=last.final_text,
        stop_reason=stop_reason,
        turns=sum(r.turns for r in results),
        usage=usage,
        duration=time.perf_counter() - started,
        run_id=run_id,
        error=error,
        warnings=tuple(warnings),
        children=tuple(results),
    )
