"""Agent teams: a lead and named teammates coordinating through mailboxes and a task list.

::

    from subagents.dispatch.teams import run_team
    outcome = run_team("Review parser.py and write tests for it", model=model,
                       registry=AgentRegistry("."), cwd=".")
    print(outcome.result.final_text, outcome.team["usage"])

Claude Code 2.1.330's feature (``CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS=1``), measured in
``claude-code/AGENT-TEAMS-2.1.330.md``, rebuilt to run headless: the same tool names and input
fields, message formats, file shapes and hooks, with the differences listed in
:mod:`subagents.dispatch.teams.team`.  Modules: ``files`` (locked, atomic team files),
``tasks`` (task semantics), ``tools`` (the tools), ``team`` (the runtime), ``turns`` (what
happens at the end of a member's turn), ``board`` (a live view on a terminal).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from subagents.definition import AgentDefinition, Scope
from subagents.dispatch.teams.files import TeamFileError, TeamFiles, TeamLayout
from subagents.dispatch.teams.team import LEAD, Member, Team, TeamLimits, history_from_transcripts
from subagents.errors import RunError
from subagents.providers.base import Usage
from subagents.runtime.result import AgentResult, RunInterrupted

if TYPE_CHECKING:
    from subagents.providers.base import Model
    from subagents.registry.core import AgentRegistry
    from subagents.runtime.permissions import PermissionPolicy
    from subagents.runtime.runner import AgentRunner
    from subagents.runtime.settings_hooks import SettingsHooks

__all__ = [
    "ENV_TEAMS",
    "TEAM_LEAD",
    "Team",
    "TeamFileError",
    "TeamFiles",
    "TeamLayout",
    "TeamLimits",
    "TeamOutcome",
    "run_team",
    "run_team_async",
    "teams_enabled",
]

ENV_TEAMS = "CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS"
RESUME_PROMPT = ("The team run was interrupted and has been resumed from its files. Check "
                 "TaskList and your teammates' state, then carry on with the user's request.")

TEAM_LEAD = AgentDefinition(
    name=LEAD,
    description="The team lead: answers the user, coordinating a team of agents.",
    system_prompt=(
        "You are the lead of a team of AI agents working for the user in their project. For "
        "work that several agents can share, start teammates with the Agent tool and a "
        "`name` (subagent_type picks a specialised agent), plan the work as tasks "
        "(TaskCreate, then TaskUpdate with owner to assign them) and talk to teammates with "
        "SendMessage. Their messages reach you automatically between your turns; you never "
        "need to poll. Small jobs you can do yourself, or give to a one-off subagent (Agent "
        "without a name). When the work is done, send each teammate a shutdown_request "
        "(SendMessage with message {type: \"shutdown_request\"}) and answer the user from "
        "their reports: the user does not see them."
    ),
    tools=None,
    source=Scope.BUILTIN,
)


def teams_enabled(flag: bool = False, *, environ: Mapping[str, str] | None = None,
                  settings_env: Mapping[str, str] | None = None,
                  config: bool | None = None) -> bool:
    """Teams are on with ``--teams``, a truthy ``CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS`` in the
    environment or in a settings file's ``env``, or ``teams = true`` in config."""
    env = os.environ if environ is None else environ
    for value in (env.get(ENV_TEAMS), (settings_env or {}).get(ENV_TEAMS)):
        if value is not None and value.strip().lower() not in ("", "0", "false", "no", "off"):
            return True
    return flag or bool(config)


@dataclass(frozen=True, slots=True)
class TeamOutcome:
    """A team run: the lead's result (teammates' results as its ``children``) and the team."""

    result: AgentResult
    team: dict[str, Any] = field(default_factory=dict)

    @property
    def usage(self) -> Usage:
        u = self.team.get("usage") or {}
        return Usage(int(u.get("input_tokens", 0)), int(u.get("output_tokens", 0)))

    def to_dict(self) -> dict[str, Any]:
        return {**self.result.to_dict(), "team": self.team}


async def run_team_async(
    prompt: str | None,
    *,
    model: Model | None = None,
    runner: AgentRunner | None = None,
    registry: AgentRegistry | None = None,
    agents: Sequence[AgentDefinition] | None = None,
    model_id: str | None = None,
    max_turns: int | None = None,
    cwd: str | os.PathLike[str] | None = None,
    layout: TeamLayout | None = None,
    team_name: str | None = None,
    resume: str | None = None,
    hooks: SettingsHooks | None = None,
    settings: bool = True,
    limits: TeamLimits | None = None,
    policy: PermissionPolicy | None = None,
    lead_agent: AgentDefinition | None = None,
    on_event: Callable[[str, Mapping[str, Any]], None] | None = None,
    durable: bool = False,
    transcripts: bool = True,
    team_out: list[Team] | None = None,
    trusted: bool | None = None,
) -> TeamOutcome:
    """Run a team on ``prompt``; see the module docstring.

    ``resume`` names a team whose files exist: its roster, tasks, mail and conversations are
    picked up (``prompt`` may then be ``None``).  ``hooks`` default to the settings files'
    (``settings=False`` to ignore them).  ``team_out`` receives the :class:`Team` as soon as
    it exists (tests and displays use it to look inside while it runs).

    Trust is applied as by ``subagents run``: unless ``trusted`` says otherwise, the project
    of ``cwd`` is trusted only if the user trusted it (``subagents run --trust`` or yes when
    asked, remembered in ``~/.subagents/trusted-folders.json``).  Until then its settings
    files' hooks and env do not apply and its agents' own hooks and MCP servers do not run;
    the result's warnings say so.  Each member's JSONL
    transcript is written under the team folder (``transcripts=False``: none; a team without
    them cannot be resumed with its conversations).
    """
    from subagents.dispatch.dispatcher import AgentDispatcher
    from subagents.dispatch.main_thread import AliasingModel
    from subagents.lint.trust import project_trust

    if runner is None:
        if model is None:
            raise RunError("run_team needs a model or a runner")
        from subagents.runtime.runner import AgentRunner

        runner = AgentRunner(model, cwd=cwd, policy=policy)
    workdir = Path(cwd).resolve() if cwd is not None else runner.cwd
    trust = project_trust(workdir, trusted=trusted)
    notes: list[str] = []
    if hooks is None and settings:
        from subagents.runtime.settings_hooks import SettingsHooks

        hooks = SettingsHooks.for_project(workdir, trusted=trust.trusted)
        notes.extend(hooks.warnings)  # a caller that passes hooks reports their warnings
    # the project's agents lose their own hooks and MCP servers until it is trusted
    runner = runner.derive(trust=trust.restrict(runner.trust))
    if registry is not None:
        reg = registry

        def current() -> list[AgentDefinition]:
            with contextlib.suppress(Exception):  # one that cannot reload keeps what it had
                reg.reload()
            out: list[AgentDefinition] = []
            for entry in reg.list():
                try:
                    out.append(entry.definition)
                except Exception:  # a file that broke since listing
                    continue
            return out
    else:
        fixed = list(agents or [])

        def current() -> list[AgentDefinition]:
            return fixed

    session = str(uuid.uuid4())
    name = resume or team_name or f"session-{session.replace('-', '')[:8]}"
    files = TeamFiles(layout or TeamLayout.project(workdir), name, durable=durable)
    if resume is not None and not files.config_path.is_file():
        raise RunError(f"there is no team {resume!r} to resume: {files.config_path} does not "
                       "exist", hint="the team folders are listed under "
                       f"{files.team_dir.parent}")
    # The team's own runner (the caller's is left as it is): Task calls read as Agent.
    runner = runner.derive(model=AliasingModel(runner.model, {"Task": "Agent"}), cwd=workdir)
    dispatcher = AgentDispatcher(current, runner=runner, policy=policy)
    team = Team(runner=runner, files=files, agents=current, dispatcher=dispatcher, hooks=hooks,
                limits=limits or TeamLimits(), on_event=on_event, session_id=session,
                transcripts=transcripts)
    if team_out is not None:
        team_out.append(team)
    lead_def = lead_agent or TEAM_LEAD
    history: list[Any] = []
    if resume is not None:
        history = _restore(team, lead_def, current)
        prompt = prompt or RESUME_PROMPT
    if not prompt or not prompt.strip():
        raise RunError("the team run needs a prompt")
    result = await team.run_lead(lead_def, prompt, model=model_id, max_turns=max_turns,
                                 history=history)
    children = [r for m in team.teammates() for r in m.results]
    result = _with_team(result, team, children, notes)
    return TeamOutcome(result, team.snapshot())


def _with_team(result: AgentResult, team: Team, children: list[AgentResult],
               first: Sequence[str] = ()) -> AgentResult:
    import dataclasses

    snap = team.snapshot()
    notes = [*first, *(f"team {team.name}: {problem}" for problem in snap["problems"])]
    notes.extend(f"teammate {m.name} stopped: {m.failure}" for m in team.teammates()
                 if m.failure)
    return dataclasses.replace(result, children=(*result.children, *children),
                               warnings=(*result.warnings, *notes))


def _restore(team: Team, lead_def: AgentDefinition,
             current: Callable[[], list[AgentDefinition]]) -> list[Any]:
    """Rebuild the roster from ``config.json``; the lead's history from its transcripts."""
    from subagents.dispatch.task_tool import GENERAL_PURPOSE, resolve_agent, with_builtins

    config = team.files.read_config() or {}
    for entry in config.get("members", []):
        if not isinstance(entry, dict) or entry.get("name") in (LEAD, None):
            continue
        name = str(entry["name"])
        kind = entry.get("agentType") if isinstance(entry.get("agentType"), str) else None
        found = resolve_agent(kind, with_builtins(current())) if kind else None
        base = found or GENERAL_PURPOSE
        member = Member(name=name, agent_id=f"a{name.lower()}-{uuid.uuid4().hex[:16]}",
                        definition=team._teammate_definition(
                            base, name, custom=found is not None
                            and found.source is not Scope.BUILTIN,
                            plan=bool(entry.get("planModeRequired"))),
                        agent_type=kind, color=entry.get("color"),
                        model=None, prompt=str(entry.get("prompt", "")), state="stopped",
                        plan_mode_required=bool(entry.get("planModeRequired")))
        member.runs = len(list(team.files.transcripts_dir.glob(f"{name}-*.jsonl")))
        team.members[name.lower()] = member
    return history_from_transcripts(team.files.transcripts_dir, LEAD)


def run_team(prompt: str | None, **kwargs: Any) -> TeamOutcome:
    """:func:`run_team_async` in a fresh event loop; Ctrl-C raises
    :class:`~subagents.runtime.result.RunInterrupted` with the lead's result so far."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass
    else:
        raise RunError("run_team() was called inside a running event loop",
                       hint="use `await run_team_async(...)` there")
    teams: list[Team] = kwargs.setdefault("team_out", [])
    try:
        return asyncio.run(run_team_async(prompt, **kwargs))
    except (KeyboardInterrupt, asyncio.CancelledError):
        lead = teams[0].lead if teams else None
        last = lead.results[-1] if lead is not None and lead.results else None
        if last is None and teams:
            last = _interrupted(teams[0])
        if last is not None:
            raise RunInterrupted(last) from None
        raise


def _interrupted(team: Team) -> AgentResult:
    return AgentResult(agent=LEAD, model="", final_text="", stop_reason="interrupted", turns=0,
                       children=tuple(r for m in team.teammates() for r in m.results))
