"""Pipelines: agents chained stage by stage.

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
* **Hand-off files** (optional ``handoff_dir``, e.g. ``.claude/pipeline/``): each stage's
  answer is also written atomically to ``NN-<agent>.md`` there, for people and for hooks.
* **Status markers.** A stage signals readiness with a ``READY_FOR_<NEXT>`` token (the
  SubagentStop convention of the format specification).  With ``require_ready=True`` every
  stage but the last must emit one, or the pipeline stops after it
  (``stop_reason="end_turn"``, with a warning saying which stage did not hand over, and
  fewer ``children`` than stages: the CLI exits 3 then).  A marker is
  progress, not a problem: it is reported as a ``handover`` event (``on_event``), never as a
  warning.
* **Failure.** A stage that errors stops the pipeline (``stop_reason="error"``, the error names
  the stage); a stage that hits its ``maxTurns`` has no report, so the pipeline stops there
  (``stop_reason="max_turns"``, the error names the stage; the CLI exits 1); with the opt-in
  summary (``max_turns_summary``) it hands over its summary and a warning is kept.
* **Hooks drive the chain**: after each stage its ``SubagentStop`` hooks — its
  own (frontmatter) and those in settings (``.claude/settings.json``, matcher = the stage's
  agent name) — may name the next stage: JSON ``{"next": "architect-review"}`` on stdout, or a
  ``READY_FOR_<NEXT>`` marker it passes on (``READY_FOR_ARCH`` → the agent called ``arch``, or
  the declared stage whose name starts with it); ``{"continue": false}`` ends the pipeline.
  So a pipeline can be declared entirely in hooks: ``run --pipeline spec`` starts it.  When no
  hook names a stage, the declared list goes on (``run --pipeline a,b,c`` is the shorthand);
  ``max_stages`` (20) bounds a chain of hooks that loops.
* **Models.** Each stage is a subagent of the session: ``CLAUDE_CODE_SUBAGENT_MODEL``, then the
  stage's own ``model``, then the session's ``model`` (``run --model``) — the same rule as a
  Task call (``AgentRunner.resolve_model``).
* **Permissions.** Every stage runs as a child of one pipeline context, so the caller's policy
  (denylist, mode) bounds every stage exactly as it bounds a delegated subagent.
"""

from __future__ import annotations

import json
import os
import re
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from subagents.definition import AgentDefinition
from subagents.errors import UsageError
from subagents.providers.base import Usage
from subagents.runtime.permissions import PermissionMode
from subagents.runtime.result import AgentResult, ResultSlot
from subagents.runtime.tools.base import ToolContext
from subagents.runtime.tools.files import atomic_write_text

if TYPE_CHECKING:
    from subagents.runtime.command_hooks import CommandHooks
    from subagents.runtime.runner import AgentRunner
    from subagents.runtime.settings_hooks import SettingsHooks

__all__ = ["DEFAULT_MAX_STAGES", "READY_MARKER", "run_pipeline", "stage_prompt"]

DEFAULT_MAX_STAGES = 20

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
    hooks: SettingsHooks | None = None,
    resolve: Callable[[str], AgentDefinition | None] | None = None,
    max_stages: int = DEFAULT_MAX_STAGES,
    result_slot: ResultSlot | None = None,
) -> AgentResult:
    """Run ``stages`` on ``task``; see the module docstring.

    ``result_slot`` receives each stage's result as it finishes, also when the stage is
    interrupted (cancelled): after a Ctrl-C it holds the interrupted stage's result.

    ``hooks`` (settings ``SubagentStop`` hooks) and the stages' own ``SubagentStop`` hooks may
    name the next stage; ``resolve`` turns a name into an agent (the registry's ``get``).
    """
    if not stages:
        raise UsageError("a pipeline needs at least one stage")
    started = time.perf_counter()
    run_id = f"pipeline-{uuid.uuid4().hex[:8]}"
    # ``model`` is the session's model: a stage's own ``model`` (and CLAUDE_CODE_SUBAGENT_MODEL)
    # beats it, as for any subagent (AgentRunner.resolve_model).
    parent = ToolContext(
        cwd=runner.cwd, agent_name="pipeline", run_id=run_id, depth=0, policy=runner.policy,
        delegate=runner, model=runner.resolve_model(_SESSION, model) if model else "",
    )
    folder = Path(handoff_dir) if handoff_dir is not None else None
    results: list[AgentResult] = []
    warnings: list[str] = []
    stop_reason: Any = "end_turn"
    error: str | None = None
    previous: AgentResult | None = None
    declared = list(stages)
    agent: AgentDefinition | None = declared[0]
    index = 0
    while agent is not None:
        index += 1
        total = max(len(declared), index)
        if on_event is not None:
            on_event("stage", {"index": index, "total": total, "agent": agent.name})
        # The stage's own hooks go to the runner as extra hooks, so the runner's trust and
        # plan-mode check (which strips them from the agent) must be applied here too.
        own = _own_stop_hooks(runner.trust.restrict(agent, plan=_plan(parent, agent))[0])
        result = await runner.run(
            agent, stage_prompt(task, index, total, previous), parent=parent, hooks=own,
            result_slot=result_slot)
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
            if not result.final_text.strip():
                # No report to hand on (the summary request is opt-in): the pipeline stops.
                stop_reason = "max_turns"
                error = (f"stage {index} ({agent.name}) reached its turn limit ({result.turns} "
                         "turns) without a report")
                break
            warnings.append(f"stage {index} ({agent.name}) hit its turn limit; its summary "
                            "was handed on")
        verdict = await _next_from_hooks(agent, result, parent, hooks, own, warnings)
        previous = result
        if verdict.stop:
            warnings.append(f"a SubagentStop hook of stage {index} ({agent.name}) stopped the "
                            f"pipeline{': ' + verdict.reason if verdict.reason else ''}")
            break
        if verdict.next is not None:
            found = _resolve_stage(verdict.next, declared, resolve)
            if found is None:
                stop_reason, error = "error", (
                    f"the SubagentStop hook of stage {index} ({agent.name}) named the next "
                    f"stage {verdict.next!r}, which is not an agent")
                break
            if index >= max_stages:
                warnings.append(f"the pipeline stopped after {max_stages} stages (a hook "
                                f"asked for {found.name!r} next); raise max_stages if meant")
                break
            warnings.append(f"stage {index} ({agent.name}) handed over to {found.name} "
                            f"({verdict.source})")
            agent = found
            continue
        # No hook chose: the declared list goes on after this stage (a stage a hook chose
        # that is not in the list ends the pipeline).
        position = next((i for i, d in enumerate(declared) if d is agent), None)
        if position is None or position + 1 >= len(declared):
            break
        if require_ready and not markers:
            warnings.append(f"stage {index} ({agent.name}) did not signal READY_FOR_*; "
                            "the pipeline stops here")
            break
        agent = declared[position + 1]
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


@dataclass(frozen=True, slots=True)
class _Verdict:
    next: str | None = None
    stop: bool = False
    reason: str = ""
    source: str = ""


def _plan(parent: ToolContext, agent: AgentDefinition) -> bool:
    """Does ``agent`` run in plan mode under the pipeline's policy?"""
    return (parent.policy is not None
            and parent.policy.restrict(agent).effective_mode is PermissionMode.PLAN)


def _own_stop_hooks(agent: AgentDefinition) -> CommandHooks | None:
    """The stage's own hooks, run by the runner as usual; kept so their output can be read."""
    if not agent.hooks:
        return None
    from subagents.runtime.command_hooks import CommandHooks

    return CommandHooks.for_agent(agent, as_subagent=True)


async def _next_from_hooks(agent: AgentDefinition, result: AgentResult, parent: ToolContext,
                           hooks: SettingsHooks | None, own: CommandHooks | None,
                           warnings: list[str]) -> _Verdict:
    """What the stage's ``SubagentStop`` hooks say: a next stage, a stop, or nothing."""
    outputs: list[tuple[str, str]] = []  # (source, stdout) of hooks that exited 0
    if own is not None:
        outputs.extend(("its SubagentStop hook", run.stdout) for run in own.runs
                       if run.event == "SubagentStop" and run.exit_code == 0)
    if hooks is not None and hooks.has("SubagentStop"):
        # A stage that ran in plan mode gets no settings hook command (plan runs nothing).
        plan = _plan(parent, agent)
        if plan:
            warnings.append(f"the SubagentStop hooks in settings did not run after stage "
                            f"{agent.name!r}: plan mode runs no command")
        outcome = await hooks.fire("SubagentStop", {
            "session_id": parent.run_id, "agent_id": result.run_id, "agent_type": agent.name,
            "permission_mode": parent.policy.effective_mode.value if parent.policy else
            "default", "stop_hook_active": False, "tool_response": result.final_text,
            "last_assistant_message": result.final_text,
            "agent_transcript_path": str(result.transcript_path or "")},
            parent.cwd, target=agent.name, plan=plan)
        outputs.extend(("a SubagentStop hook in settings", run.stdout)
                       for run in outcome.runs if run.exit_code == 0)
    for source, stdout in outputs:
        data = _json_object(stdout)
        if data is not None:
            if data.get("continue") is False:
                return _Verdict(stop=True, reason=str(data.get("stopReason") or ""))
            for key in ("next", "nextStage", "next_stage"):
                if isinstance(data.get(key), str) and data[key].strip():
                    return _Verdict(next=data[key].strip(), source=f"{source}, JSON {key}")
        marker = READY_MARKER.findall(stdout)
        if marker:
            return _Verdict(next=marker[-1], source=f"{source}, {marker[-1]}")
    return _Verdict()


def _json_object(text: str) -> dict[str, Any] | None:
    if not text.lstrip().startswith("{"):
        return None
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return None
    return data if isinstance(data, dict) else None


def _resolve_stage(name: str, declared: Sequence[AgentDefinition],
                   resolve: Callable[[str], AgentDefinition | None] | None,
                   ) -> AgentDefinition | None:
    """An agent named by a hook: its name, or a ``READY_FOR_<NEXT>`` marker whose ``NEXT`` is
    the agent's name or the start of it (``READY_FOR_ARCH`` → ``architect-review``)."""
    from subagents.dispatch.task_tool import normalize_agent_name

    wanted = name[len("READY_FOR_"):] if name.startswith("READY_FOR_") else name
    key = normalize_agent_name(wanted)
    if not key:
        return None
    for d in declared:
        if normalize_agent_name(d.name) == key:
            return d
    if resolve is not None:
        try:
            found = resolve(wanted)
        except Exception:  # a registry lookup that fails means "no such agent"
            found = None
        if found is not None:
            return found
    for d in declared:  # READY_FOR_ARCH → architect-review, among the declared stages
        if normalize_agent_name(d.name).startswith(key):
            return d
    return None
