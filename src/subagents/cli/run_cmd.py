"""``subagents run``: run one agent (or the main thread with the Task tool) against a model.

Design notes
------------
* stdout carries only the answer: the final text (``--format text``) or one JSON object, the
  :meth:`AgentResult.to_dict` shape (``--format json``).  Progress (turns, tool calls,
  delegations) goes to stderr, and only when stderr is a terminal, so pipes stay clean.
  Warnings (a missing skill, an MCP server that did not start) and a note on calls refused
  because nobody could be asked go to stderr always: a CI log must say why a write did not
  happen.
* Exit codes: 0 the run ended (``end_turn``); 1 the run failed (``stop_reason`` ``error``),
  stopped at its turn limit (``max_turns``: an error, as Claude Code's ``error_max_turns``,
  with no final text unless ``--max-turns-summary`` asked for one) or the provider could
  not start (a missing key says how to set one); 2 usage errors; 130 Ctrl-C (the transcript
  is flushed and child processes are killed first; ``--format json`` still prints the
  interrupted result); 3 a ``--pipeline`` stopped
  before its last stage (``--require-ready`` and a stage without a ``READY_FOR_*`` marker):
  the answer so far is printed, but the work is not done, so a script must not go on.
* A stage's ``READY_FOR_*`` hand-over is progress (``✓ stage 1 (pm-spec) handed over``, on
  a terminal), not a warning.
* Permissions (see :mod:`subagents.runtime.permissions`): mutating tools are asked about on a
  terminal (stdin and stderr both TTYs); otherwise refused unless ``--yes`` or an allow rule
  (``--allow RULE`` or ``allow = [...]`` in ``[tool.subagents]``).  ``bypassPermissions`` only
  takes effect with ``allow-bypass-permissions = true`` in config.  The agent's own
  ``permissionMode``/``tools``/``disallowedTools`` are always intersected with the run's
  ``--permission-mode``.
* The agent NAME is looked up in the agents the directory sees (``AgentRegistry``: managed,
  ``--agents``, project, user, plugin), the same set ``subagents list`` shows.
* ``--provider scripted --script FILE`` replays a JSON list of replies (see
  :mod:`subagents.providers.scripted`): demos and tests without a network or a key.
* Heavy imports (the runtime, SDKs) happen inside the command, never at import time.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from subagents.cli.options import (
    ScopeOptions,
    agents_option,
    cwd_option,
    format_option,
    option_group,
)
from subagents.cli.run_options import (
    ConnectionOptions,
    ModelOptions,
    PermissionOptions,
    TargetOptions,
    TeamOptions,
    ToolOptions,
    TranscriptOptions,
    TrustOptions,
)
from subagents.errors import RunError
from subagents.terminal import echo, safe

if TYPE_CHECKING:
    from subagents.definition import AgentDefinition
    from subagents.runtime.permissions import PermissionAsk, PermissionRequest
    from subagents.runtime.result import AgentResult

EXIT_PIPELINE_STOPPED = 3  # a --pipeline ended before its last stage


@click.command(
    "run",
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog="""\b
Examples:
  subagents run --agent code-reviewer "Review the last commit"
  subagents run --provider openai --model qwen2.5-coder "Fix the failing test"
  subagents run --agent reader --provider scripted --script replies.json "Summarise README"
  echo "What does main.py do?" | subagents run --agent reader -
  subagents run --teams "Review parser.py and write tests for it"
  subagents run --pipeline spec "Build the login page"   (hooks pick the next stages)

\b
Permissions: Write, Edit and Bash are asked about on a terminal; without one
they are refused (and stderr says so) unless --yes, --allow RULE, or
allow = ["Bash(git diff:*)", "Edit"] in .subagents.toml approves them.
Writes outside the working folder need writable-dirs in .subagents.toml.

\b
Keys: ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL) for --provider anthropic;
OPENAI_API_KEY (and OPENAI_BASE_URL) for --provider openai.
Exit codes: 0 done, 1 the run failed or reached its turn limit, 2 usage error,
3 a --pipeline stopped before its last stage (--require-ready and no READY_FOR_*
marker), 130 interrupted.""",
)
@click.argument("prompt", nargs=-1, required=True)
@option_group(TargetOptions)
@option_group(TeamOptions)
@option_group(ModelOptions)
@cwd_option
@format_option(
    "text", "json",
    help="text: the final answer; json: the whole result object.",
)
@option_group(PermissionOptions)
@agents_option
@option_group(ScopeOptions)
@option_group(TranscriptOptions)
@option_group(ConnectionOptions)
@option_group(ToolOptions)
@option_group(TrustOptions)
def run(
    prompt: tuple[str, ...],
    target: TargetOptions,
    team: TeamOptions,
    model: ModelOptions,
    cwd: Path | None,
    output_format: str,
    permissions: PermissionOptions,
    agents: str | None,
    scope: ScopeOptions,
    transcripts: TranscriptOptions,
    connection: ConnectionOptions,
    tools: ToolOptions,
    trust: TrustOptions,
) -> None:
    """Run an agent (or the main thread) on PROMPT and print its final answer.

    PROMPT is the task (several words are joined; `-` reads it from stdin).  The agent gets
    its own system prompt, model and tools, and works on the current folder (or --cwd).
    """
    from subagents.lint.trust import TrustPolicy, run_config
    from subagents.providers import get_provider
    from subagents.runtime.permissions import PermissionPolicy
    from subagents.runtime.result import RunInterrupted
    from subagents.runtime.runner import AgentRunner
    from subagents.runtime.sandbox import SandboxSettings
    from subagents.runtime.tools import builtin_tools

    text = " ".join(prompt)
    if text == "-":
        text = sys.stdin.read()
    if not text.strip():
        raise click.UsageError('the prompt is empty; give the task, e.g. subagents run "..."')
    workdir = (cwd or Path.cwd()).resolve()
    trusted, root = _trusted(workdir, trust.trust_project)
    config, notes = run_config(workdir, trusted=trusted)
    for note in notes:
        echo(f"note: {note}", err=True)
    provider = model.provider or "anthropic"
    if provider == "scripted" and connection.script is None:
        raise click.UsageError("--provider scripted needs --script FILE (a JSON list of replies)")
    if connection.script is not None and provider != "scripted":
        raise click.UsageError("--script only works with --provider scripted")

    if target.pipeline is not None and target.agent_name:
        raise click.UsageError("give either --agent or --pipeline, not both")
    if target.pipeline is not None and (team.teams or team.resume_team is not None):
        raise click.UsageError("--teams and --pipeline do not go together")
    if (target.handoff_dir is not None or target.require_ready) and target.pipeline is None:
        raise click.UsageError("--handoff-dir and --require-ready go with --pipeline")
    registry = _registry(scope, agents, workdir, config.gemini_acknowledged)
    agent = _find_agent(target.agent_name, registry, workdir) if target.agent_name else None
    stage_names = [n.strip() for n in (target.pipeline or "").split(",") if n.strip()]
    if target.pipeline is not None and not stage_names:
        raise click.UsageError("--pipeline needs agent names, e.g. --pipeline spec,build")
    stages = [_find_agent(n, registry, workdir) for n in stage_names]

    options: dict[str, Any] = {"script": str(connection.script) if connection.script else None}
    if provider != "scripted":
        options = {"base_url": connection.base_url, "stream": connection.stream}
    llm = get_provider(provider, **options)

    ask = _ask_callback(permissions.assume_yes)
    policy = PermissionPolicy(
        mode=permissions.permission_mode,
        allow_rules=(*config.allow_rules, *permissions.allow_rules),
        writable_dirs=config.writable_dirs,
        allow_bypass=config.allow_bypass_permissions or trust.allow_bypass,
        ask=ask,
    )
    for warning in policy.warnings:
        echo(f"warning: {warning}", err=True)
    progress = _progress if _stderr_tty() else None
    runner = AgentRunner(
        llm,
        cwd=workdir,
        tools=builtin_tools(web=tools.web, extras=tools.extra_tools, sandbox=SandboxSettings(
            mode=(tools.sandbox_mode or config.sandbox or "required"),  # type: ignore[arg-type]
            network=tools.sandbox_network or config.sandbox_network,
            writable=config.writable_dirs)),
        policy=policy,
        transcript_dir=transcripts.transcript_dir or config.transcript_dir,
        transcripts=not transcripts.no_transcript,
        model_table=config.model_aliases or None,
        include_env=True,
        project_context=True,
        handback_rules=True,
        max_tokens=model.max_tokens or _env_max_tokens() or config.max_tokens,
        effort=model.effort or config.effort,
        thinking=config.thinking,
        on_event=progress,
        trust=TrustPolicy(untrusted=() if trusted else (root,),
                          cli_agents_file=getattr(agents, "source", None)),
        mcp_read_only=config.mcp_read_only,
        allow_flagged_prompts=trust.allow_flagged,
        max_turns_summary=model.max_turns_summary,
    )
    # Teams switched on by the environment, settings or config leave pipelines alone.
    team_mode = team.resume_team is not None or (
        not stages and _teams_on(team.teams, workdir, config, trusted))
    try:
        if team_mode:
            # the agents of a team run are those at its start (dispatch/snapshot.py)
            from subagents.dispatch.snapshot import RegistrySnapshot

            _team_run(text, runner, RegistrySnapshot(registry) if registry is not None
                      else None, model.model_id, model.max_turns, workdir, config, agent,
                      team.team_layout, team.resume_team, team.max_teammates, output_format,
                      live=not _asks(ask, permissions.assume_yes) and _stderr_tty(),
                      progress=progress,
                      trusted=trusted, plan=policy.effective_mode.value == "plan")
            return
        if stages:
            result = _pipeline(text, stages, runner, model.model_id, target.handoff_dir,
                               target.require_ready, progress, registry=registry,
                               workdir=workdir, trusted=trusted,
                               plan=policy.effective_mode.value == "plan")
        elif agent is not None and registry is None:  # pragma: no cover - no registry build
            result = runner.run_sync(agent, text, model=model.model_id, max_turns=model.max_turns)
        else:
            # With --agent, that agent *is* the main thread and may still delegate to the
            # others through the Task tool (Claude Code's `claude --agent`),
            # within its own `tools` allowlist.
            result = _main_thread(
                text, runner, registry, model.model_id, model.max_turns, workdir, progress, agent,
                live=not _asks(ask, permissions.assume_yes), max_depth=model.max_depth,
            )
    except RunInterrupted as exc:
        _print(exc.result, output_format)
        echo(
            f"interrupted: {exc.result.agent} after {exc.result.turns} turn(s)"
            + (f"; transcript: {_shown(exc.result.transcript_path)}"
               if exc.result.transcript_path else ""),
            err=True,
        )
        sys.exit(130)
    _print(result, output_format)
    # Warnings are diagnostics, not progress: always on stderr (a clean run prints none);
    # those of pipeline stages and delegated agents too (hooks or MCP servers left out).
    for warning in result.all_warnings():
        echo(f"warning: {warning}", err=True)
    refused = _permission_refusals(result)
    if refused:
        echo(
            f"note: {len(refused)} tool call(s) needed permission and were refused "
            f"({', '.join(sorted(set(refused)))}): nobody could be asked (not a terminal); "
            "re-run with --yes, or pre-approve them with --allow RULE or `allow = [...]` in "
            ".subagents.toml",
            err=True,
        )
    if result.stop_reason == "error":
        echo(f"error: {result.error}", err=True)
        sys.exit(1)
    if result.stop_reason == "max_turns":
        what = result.error or (f"{result.agent} reached its turn limit ({result.turns} turns) "
                                "before it finished")
        echo(f"error: {what}; raise --max-turns (or the agent's maxTurns) to let it go "
                   "on", err=True)
        sys.exit(1)
    if stages and len(result.children) < len(stages):
        done = len(result.children)
        echo(
            f"error: the pipeline stopped after stage {done} of {len(stages)} "
            f"({result.children[-1].agent if result.children else 'none'}); "
            "its answer is printed above",
            err=True,
        )
        sys.exit(EXIT_PIPELINE_STOPPED)


def _env_max_tokens() -> int | None:
    """``CLAUDE_CODE_MAX_OUTPUT_TOKENS``, which Claude Code honours for every request
    (measured); a value that is not a positive whole number is ignored with a note."""
    import os

    raw = os.environ.get("CLAUDE_CODE_MAX_OUTPUT_TOKENS", "").strip()
    if not raw:
        return None
    if raw.isdigit() and int(raw) > 0:
        return int(raw)
    echo(f"note: CLAUDE_CODE_MAX_OUTPUT_TOKENS={raw!r} is not a positive whole number; "
               "ignored", err=True)
    return None


def _teams_on(flag: bool, workdir: Path, config: Any, trusted: bool = True) -> bool:
    from subagents.dispatch.teams import teams_enabled

    return teams_enabled(flag, settings_env=_settings_hooks(workdir, trusted).env,
                         config=config.teams)


def _settings_hooks(workdir: Path, trusted: bool, plan: bool = False) -> Any:
    """Hooks from Claude Code settings files, as the library applies them
    (:meth:`SettingsHooks.for_project`: the project's only once it is trusted)."""
    from subagents.runtime.settings_hooks import SettingsHooks

    return SettingsHooks.for_project(workdir, trusted=trusted, plan=plan)


def _team_run(
    text: str,
    runner: Any,
    registry: Any,
    model_id: str | None,
    max_turns: int | None,
    workdir: Path,
    config: Any,
    lead: AgentDefinition | None,
    layout_name: str | None,
    resume: str | None,
    max_teammates: int | None,
    output_format: str,
    *,
    live: bool,
    progress: Any,
    trusted: bool = True,
    plan: bool = False,
) -> None:
    """``run --teams``: the main thread leads a team (see :mod:`subagents.dispatch.teams`)."""
    from subagents.dispatch.teams import TeamLayout, TeamLimits, run_team
    from subagents.dispatch.teams.board import live_board

    layout = (TeamLayout.claude() if (layout_name or config.team_layout) == "claude"
              else TeamLayout.project(workdir))
    limits = TeamLimits(max_teammates=max_teammates or config.max_teammates or 10,
                        max_messages=config.max_team_messages or 1000)
    hooks = _settings_hooks(workdir, trusted, plan)
    for warning in hooks.warnings:
        echo(f"warning: {warning}", err=True)
    display = live_board() if live else contextlib.nullcontext(None)
    prompt: str | None = text
    if resume is not None and text.strip() == "-":
        prompt = None
    with display as board:
        sink = board or (_team_progress if progress is not None else None)
        outcome = run_team(prompt, runner=runner, registry=registry, model_id=model_id,
                           max_turns=max_turns, cwd=workdir, layout=layout, hooks=hooks,
                           limits=limits, lead_agent=lead, resume=resume, on_event=sink,
                           transcripts=runner.transcripts, trusted=trusted)
    result = outcome.result
    if output_format == "json":
        click.echo(json.dumps(outcome.to_dict(), indent=2, ensure_ascii=False))
    elif result.final_text:
        echo(result.final_text)
    team = outcome.team
    mates = [m for m in team["members"] if m["name"] != "team-lead"]
    echo(f"team {team['team']}: {len(mates)} teammate(s), {team['messages']} message(s), "
               f"{team['usage']['input_tokens']} input + {team['usage']['output_tokens']} "
               f"output tokens; files in {team['team_dir']}", err=True)
    for warning in result.all_warnings():
        echo(f"warning: {warning}", err=True)
    if result.stop_reason == "error":
        echo(f"error: {result.error}", err=True)
        sys.exit(1)


def _team_progress(kind: str, data: Mapping[str, Any]) -> None:
    if kind == "member":
        reason = f" ({data['reason']})" if data.get("reason") else ""
        echo(f"· {data.get('name')}: {data.get('state')}{reason}", err=True)
    elif kind == "task":
        owner = f" ({data['owner']})" if data.get("owner") else ""
        echo(f"· task #{data.get('id')} {data.get('status')}{owner}", err=True)


def _permission_refusals(result: AgentResult) -> list[str]:
    """Names of the calls refused for want of permission, in this run and its children."""
    names = [c.name for c in result.tool_calls if c.refusal == "unasked"]
    for child in result.children:
        names.extend(_permission_refusals(child))
    return names


def _print(result: AgentResult, output_format: str) -> None:
    if output_format == "json":
        data = _shown_paths(result.to_dict())
        click.echo(json.dumps(data, indent=2, ensure_ascii=False))
    elif result.final_text:
        echo(result.final_text)


def _shown(path: Path) -> str:
    from subagents.fs import display_path

    return display_path(path)


def _shown_paths(data: dict[str, Any]) -> dict[str, Any]:
    """Transcript paths spelled as every command spells paths (relative, ``~``, absolute)."""
    from subagents.fs import display_path

    if data.get("transcript_path"):
        data["transcript_path"] = display_path(data["transcript_path"])
    for child in data.get("children") or ():
        if isinstance(child, dict):
            _shown_paths(child)
    return data


def _registry(scope: ScopeOptions, agents: str | None, workdir: Path,
              gemini_acknowledged: bool = False) -> Any:
    from subagents.cli.options import report_broken_scopes

    # the configuration's gemini-acknowledged applies like the rest of it: the project's
    # own file only once the project is trusted (run_config)
    registry = scope.build_registry(agents=agents, cwd=workdir,
                                    gemini_acknowledged=gemini_acknowledged).load_all()
    report_broken_scopes(registry)
    return registry


def _find_agent(name: str, registry: Any, workdir: Path) -> AgentDefinition:
    if registry is not None:
        definition: AgentDefinition = registry.get(name)  # AgentNotFoundError with suggestions
        return definition
    return _scan_for_agent(name, workdir)  # pragma: no cover - fallback without a registry


def _scan_for_agent(name: str, workdir: Path) -> AgentDefinition:  # pragma: no cover
    from subagents.errors import AgentNotFoundError
    from subagents.harnesses.loader import read_agent_file

    names: list[str] = []
    folder = workdir / ".claude" / "agents"
    for path in sorted(folder.rglob("*.md")) if folder.is_dir() else []:
        loaded = read_agent_file(path)
        for d in loaded.definitions:
            names.append(d.name)
            if d.name == name:
                return d
    raise AgentNotFoundError(name, [n for n in names if n.lower() == name.lower()])


def _main_thread(
    text: str,
    runner: Any,
    registry: Any,
    model_id: str | None,
    max_turns: int | None,
    workdir: Path,
    progress: Any,
    main_agent: AgentDefinition | None = None,
    *,
    live: bool = True,
    max_depth: int | None = None,
) -> AgentResult:
    try:
        from subagents.dispatch.main_thread import run_main_thread
    except ImportError as exc:  # pragma: no cover - depends on the build
        raise RunError(
            "running without --agent needs the main-thread orchestrator, which this build lacks",
            hint="pass --agent NAME to run one agent",
        ) from exc
    from subagents.dispatch.display import live_tree

    # The delegation tree is drawn live on stderr when it is a terminal (else tree_sink is
    # None and the plain progress sink, if any, is used).  Not when permission questions may
    # be asked: the live redraw would overwrite the "Allow? [y/N]" prompt (rich buffers a
    # line without its newline), so plain progress lines are used then.
    root = main_agent.name if main_agent is not None else "main"
    display = live_tree(root_agent=root) if live else contextlib.nullcontext(None)
    with display as tree_sink:
        result: AgentResult = run_main_thread(
            text,
            registry=registry,
            runner=runner,
            main_agent=main_agent,
            explicit=main_agent is None,
            **({"max_depth": max_depth} if max_depth is not None else {}),
            model_aliases=tuple(runner.model_table or ()),
            model_id=model_id,
            max_turns=max_turns,
            cwd=workdir,
            on_event=tree_sink or progress,
        )
    return result


def _pipeline(
    text: str,
    stages: list[AgentDefinition],
    runner: Any,
    model_id: str | None,
    handoff_dir: Path | None,
    require_ready: bool,
    progress: Any = None,
    *,
    registry: Any = None,
    workdir: Path | None = None,
    trusted: bool = True,
    plan: bool = False,
) -> AgentResult:
    import asyncio

    from subagents.dispatch.pipeline import run_pipeline
    from subagents.runtime.result import ResultSlot, RunInterrupted

    hooks = _settings_hooks(workdir or Path.cwd(), trusted, plan)
    for warning in hooks.warnings:
        echo(f"warning: {warning}", err=True)

    def resolve(name: str) -> AgentDefinition | None:
        """An agent by name, else the one agent whose name starts with ``name`` (a
        ``READY_FOR_ARCH`` marker names ``architect-review``)."""
        if registry is None:
            return None
        from subagents.dispatch.task_tool import normalize_agent_name

        try:
            found: AgentDefinition = registry.get(name)
            return found
        except Exception:  # not a name: try it as the start of one
            pass
        key = normalize_agent_name(name)
        hits = [e for e in registry.list() if normalize_agent_name(e.name).startswith(key)]
        if len(hits) != 1:
            return None
        try:
            chosen: AgentDefinition = hits[0].definition
        except Exception:  # the file broke since listing
            return None
        return chosen

    slot = ResultSlot()  # the stage a Ctrl-C interrupts leaves its result here
    try:
        return asyncio.run(
            run_pipeline(
                stages, text, runner=runner, model=model_id, handoff_dir=handoff_dir,
                require_ready=require_ready, on_event=progress, hooks=hooks,
                resolve=resolve, result_slot=slot,
            )
        )
    except (KeyboardInterrupt, asyncio.CancelledError):
        if slot.interrupted is not None:
            raise RunInterrupted(slot.interrupted) from None
        raise


def _trusted(workdir: Path, trust_flag: bool) -> tuple[bool, Path]:
    """(is the project trusted, its root): remembered, ``--trust``, or asked on a terminal
    when the project has something that trust changes (config, agents with commands)."""
    from subagents.lint.trust import TrustStore, project_trust

    store = TrustStore()
    remembered = project_trust(workdir, store=store)  # the library's own decision
    root = remembered.root
    if remembered.trusted:
        return True, root
    if trust_flag:
        store.trust(root)
        return True, root
    has_something = any((root / n).exists() for n in (".subagents.toml", ".claude", ".codex",
                                                        "pyproject.toml", ".mcp.json"))
    try:
        interactive = sys.stdin.isatty() and _stderr_tty()
    except (AttributeError, ValueError):
        interactive = False
    if has_something and interactive:
        echo(f"\n{root} is not trusted yet. Trusting it lets its agents' hooks and MCP "
                   "servers run commands and its .subagents.toml apply.", err=True)
        if click.confirm("Trust this folder?", default=False, err=True):
            store.trust(root)
            return True, root
    return False, root


def _asks(ask: PermissionAsk | None, assume_yes: bool) -> bool:
    """Will the run ask questions on the terminal?"""
    return ask is not None and not assume_yes


def _stderr_tty() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def _ask_callback(assume_yes: bool) -> PermissionAsk | None:
    if assume_yes:

        async def yes(request: PermissionRequest) -> bool:
            # --yes is not explicit permission for a protected path (.claude/, .git/...).
            return request.protected is None

        return yes
    try:
        interactive = sys.stdin.isatty() and _stderr_tty()
    except (AttributeError, ValueError):
        interactive = False
    if not interactive:
        return None
    lock = asyncio.Lock()

    async def ask(request: PermissionRequest) -> bool:
        # Parallel tool calls must not interleave their questions.
        async with lock:
            return await _in_daemon_thread(request)

    return ask


async def _in_daemon_thread(request: PermissionRequest) -> bool:
    """Ask in a daemon thread: after Ctrl-C a pending ``input()`` must not keep the process
    alive (the loop's executor threads are joined at exit; a daemon thread is not)."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[bool] = loop.create_future()

    def work() -> None:
        answer = False
        try:
            answer = _confirm(request)
        except (EOFError, click.exceptions.Abort, KeyboardInterrupt):
            answer = False  # no answer is a refusal
        finally:
            with contextlib.suppress(RuntimeError):  # the loop may be gone after Ctrl-C
                loop.call_soon_threadsafe(_settle, future, answer)

    threading.Thread(target=work, name="subagents-ask", daemon=True).start()
    return await future


def _settle(future: asyncio.Future[bool], answer: bool) -> None:
    if not future.done():
        future.set_result(answer)


def _confirm(request: PermissionRequest) -> bool:
    # the exact command, every control character spelled out: a "\r" and an erase-line
    # escape must not make it look like another one
    shown = safe(_describe(request.tool, request.input), one_line=True)
    echo(f"\n[{request.agent}] wants to run {request.tool}: {shown}", err=True)
    if request.protected:  # a protected path, or a command without a sandbox
        echo(f"  note: {request.protected}", err=True)
    return click.confirm("Allow?", default=False, err=True)


def _describe(tool: str, input: Mapping[str, Any]) -> str:
    if tool == "Bash":
        return str(input.get("command", ""))
    for key in ("file_path", "path", "url"):
        if key in input:
            return str(input[key])
    return json.dumps(dict(input), ensure_ascii=False)[:200]


def _progress(kind: str, data: Mapping[str, Any]) -> None:
    who = data.get("agent") or ""
    indent = "  " * int(data.get("depth", 0) or 0)
    if kind == "turn":
        echo(f"{indent}· {who} turn {data.get('turn')}/{data.get('max_turns')}", err=True)
    elif kind == "tool":
        args = _describe(str(data.get("name")), data.get("input") or {})
        echo(f"{indent}  → {data.get('name')} {args[:120]}", err=True)
    elif kind == "delegate":
        echo(f"{indent}⇢ delegating to {data.get('agent')}", err=True)
    elif kind == "stop":
        echo(
            f"{indent}■ {who} {data.get('stop_reason')} after {data.get('turns')} turns", err=True
        )
    elif kind == "stage":
        echo(f"▶ stage {data.get('index')}/{data.get('total')}: {who}", err=True)
    elif kind == "handover":
        markers = ", ".join(str(m) for m in data.get("markers") or ())
        echo(f"  ✓ stage {data.get('index')} ({who}) handed over: {markers}", err=True)
    elif kind == "notice":
        echo(f"note: {data.get('message')}", err=True)
