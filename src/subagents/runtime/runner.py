"""The agentic loop: one agent definition becomes one isolated run.

``AgentRunner(model).run(agent, prompt)`` builds the system prompt (the agent's body plus its
``memory``), resolves the model, filters the tools, and loops model → tool calls → tool
results → model until the model ends its turn or ``maxTurns`` is reached.  It returns an
:class:`~subagents.runtime.result.AgentResult`; errors of tools and of the model come back as
data (``is_error`` tool results, ``stop_reason="error"``), never as a crash.

Design notes
------------
* **No files unless asked.**  JSONL transcripts are opt-in for library users
  (``transcripts=True`` or ``transcript_dir=...``); ``subagents run`` turns them on (see its
  ``--help``; ``--no-transcript`` turns them off).
* **Isolation.** Every run starts a fresh message history with the prompt as its only user
  message; nothing of a caller's conversation leaks in.
* **System prompt** = ``agent.system_prompt`` + memory (:mod:`subagents.runtime.prompt`),
  the hand-back rules for a subagent (``handback_rules``), skills, then the environment
  (``include_env``).  **Context** (``project_context``): the ``CLAUDE.md`` files and a git
  snapshot lead the first user message, as Claude Code does for the run's ``role`` (main
  thread, ``--agent``, subagent); read once per working folder by this runner and its
  derived runners (:mod:`subagents.runtime.context`, which explains every choice).
* **Generation** (:mod:`subagents.providers.generation`): ``max_tokens``, thinking and effort
  per model, with the config's overrides.  Effort as Claude Code sets it (measured): the
  config's ``effort`` (``--effort``) is the main thread's; a subagent uses its own ``effort``
  frontmatter, else the model's default; an agent run as the main thread ignores its own; a
  per-call ``effort`` wins.  A provider that refuses
  thinking/effort (HTTP 400/422 naming them) is asked again without them, and an output limit
  it refuses is lowered to 8,192 tokens; each once per runner and model, with a warning.
* **Skills, hooks, MCP servers**: an agent's ``skills`` are
  appended to the system prompt (:mod:`subagents.runtime.skills`; a missing one is a warning);
  its ``hooks`` become a :class:`~subagents.runtime.command_hooks.CommandHooks` active only for
  this run (``Stop`` is ``SubagentStop`` below the main thread); its ``mcpServers`` are started
  (:class:`~subagents.runtime.mcp_tools.McpServerPool`) before the first request, their tools
  offered through the same filter, and stopped after ``on_stop`` — also on error or Ctrl-C.
  Each is imported only when an agent uses it.  Hooks and MCP servers of an agent from an
  untrusted project, and of any agent in plan mode, do not run (``trust``,
  :mod:`subagents.lint.trust`); MCP tools are read-only only if ``mcp_read_only`` says so.
* **Prompt injection** (issue 12): an agent whose own prompt reads like one
  with high confidence (:func:`subagents.lint.rules.injection.assess_injection`, SA405) is
  not run (``RunError``) unless
  ``allow_flagged_prompts``; results of tools that fetch outside text (``WebFetch``,
  ``WebSearch``, MCP tools) reach the model wrapped as data
  (:mod:`subagents.runtime.untrusted`).
* **Model**: :func:`subagents.providers.models.choose_model` — ``CLAUDE_CODE_SUBAGENT_MODEL``
  (for subagents only, as in Claude Code), then the per-call ``model``, then frontmatter, then
  the parent's model (the parent run's, or the runner's ``parent_model``, or the provider's
  ``default_model``); ``inherit``/``None`` defer to the next level; aliases go through the
  config table.
* **Tools** offered = the runner's tools (built-ins by default) plus ``extra_tools`` (``Task``,
  MCP tools), filtered by the run's :class:`~subagents.runtime.permissions.ToolFilter`, then
  by Claude Code's rules per context (:mod:`subagents.runtime.tools.toolset`: no Grep/Glob
  beside Bash, deferred tools behind ``ToolSearch``, whose loads join the tool list of the
  following requests).  A call
  is checked in this order, and stops at the first refusal, which goes back to the model as an
  ``is_error`` result *without executing anything*: offered? → input matches the schema? →
  inside the tool rules' specifiers (``Bash(git diff:*)``)? → ``hooks.before_tool`` → the
  permission policy (mode, working folder, ask).  The record of a refused call says which
  check refused it (``ToolCallRecord.refusal``: ``unknown``, ``not_allowed``, ``arguments``,
  ``rule``, ``hook``, ``permission``, ``unasked``), and so does its transcript ``tool`` event
  (with the reason), so a transcript answers "why did my agent not write the file?".
* **Parallel tool calls** of one assistant message run concurrently (``asyncio.gather``;
  blocking tools in worker threads) and their results go back in the original order.  Calls
  that are not independent — touching a file that another call of the message writes — run
  one after another in the model's order (:func:`_write_locks`), so no edit is lost to a race
  and a ``Read`` sees the file as the model expects.
* **Turns**: one turn = one model request with tools.  ``max_turns`` (call > frontmatter >
  runner default 50) bounds them.  When the last turn still asked for tools, the run stops
  there, as Claude Code does: its tool calls are run, no further request is made, the result
  says ``stop_reason="max_turns"`` and has no final text (the caller says so: a parent gets
  a note, the CLI exits 1).  ``max_turns_summary=True`` (opt-in) instead makes one more
  request *without tools* asking for a summary, which becomes the final text; in that
  request the tool calls and results of the history are rewritten as text
  (:func:`flatten_tool_blocks`): APIs refuse tool blocks in a request that defines no tools.
  ``AgentResult.turns`` does not count that request.
* **Empty replies** (no text, no tool calls): the model is nudged once to continue; a second
  empty reply ends the run with empty text and a warning.
* **Interruption**: on cancellation (Ctrl-C under :meth:`run_sync`, a parent's timeout) the
  run kills the process groups its tools started, records the calls that were cut short
  (``refusal="interrupted"``) next to those that had finished, writes a ``stop`` event with
  ``stop_reason="interrupted"`` to the flushed transcript, calls ``on_stop`` and re-raises
  :class:`asyncio.CancelledError`; the interrupted result is in the call's ``result_slot``
  (:class:`~subagents.runtime.result.ResultSlot`).
  :meth:`run_sync` turns that into :class:`~subagents.runtime.result.RunInterrupted` (exit 130).
* **Conversations that go on** (agent teams): ``run(..., turns=control)`` hands the end of
  every turn to ``control.next_input(ctx, text)``; a string it returns (or a tuple of
  strings: one text block each) becomes the next user message of the *same* conversation
  (one transcript, one usage total), ``None`` ends the run.
  ``control.stop_now(ctx)``, checked after each round of tool calls, ends the run at once
  without another model call (an approved shutdown).  ``control.pending_input(ctx)``, also
  checked after each round of tool calls, may return text that joins the tool results of
  that round (a background agent's notification arriving mid-turn).  The run's control is
  in ``ctx.extra["turns"]``, so a tool can tell whether its run can be notified later.
  ``max_turns`` then bounds each turn (the requests since the last user message), not the
  whole conversation.  ``history``
  starts the conversation from earlier messages (a member resumed from its transcripts).
* **Delegation**: a tool that starts a child run asks ``ctx.delegate.spawn(child, prompt,
  parent=ctx)`` (the runner is the :class:`~subagents.runtime.tools.base.Delegate` of its
  tools); the result joins ``ctx.children``; the child inherits the parent's model as
  ``parent`` level, depth + 1, and can never be looser than the parent (see
  :mod:`subagents.runtime.permissions`).
* **Options** are one frozen :class:`~subagents.runtime.config.RunConfig`; the tool-call step
  (checks, execution, records) is :mod:`subagents.runtime.tool_step`.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import os
import re
import time
import uuid
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Generic, TypeVar, Unpack, overload

from subagents.definition import AgentDefinition, McpServerSpec
from subagents.errors import ProviderError, ProviderResponseError, RunError, UsageError
from subagents.lint.trust import TrustPolicy
from subagents.providers.base import (
    Message,
    Model,
    ModelRequest,
    ModelResponse,
    TextBlock,
    ThinkingBlock,
    ToolSpec,
    ToolUseBlock,
    Usage,
)
from subagents.providers.generation import EFFORT_EXPLICIT, Generation, generation_for
from subagents.runtime.config import DEFAULT_MAX_TURNS, EventSink, RunConfig, RunOptions
from subagents.runtime.context import ContextCache, RunRole
from subagents.runtime.hooks import CompositeHooks, RunHooks
from subagents.runtime.permissions import Decision, PermissionMode, PermissionPolicy
from subagents.runtime.prompt import build_system_prompt, memory_path
from subagents.runtime.result import (
    AgentResult,
    ResultSlot,
    RunInterrupted,
    RunStopReason,
    ToolCallRecord,
)
from subagents.runtime.tool_step import ToolStep
from subagents.runtime.tools import Tool, ToolContext, builtin_tools
from subagents.runtime.tools.formats import formats_for
from subagents.runtime.tools.toolset import LOADED_KEY, ToolSet, select_tools
from subagents.runtime.transcript import Transcript, default_transcript_dir

__all__ = [
    "DEFAULT_MAX_TURNS",
    "AgentRunner",
    "EventSink",
    "RunConfig",
    "RunEvent",
    "TurnControl",
    "TurnInput",
    "build_system_prompt",
    "memory_path",
]

_T = TypeVar("_T")

SUMMARY_PROMPT = (
    "You have reached the maximum number of turns ({n}) for this task and cannot call tools "
    "any more. Reply now with a concise summary: what you did, what you found, and what is "
    "left to do."
)
EMPTY_NUDGE = "Your last reply was empty. Continue the task, or give your final answer."
RELAXED_MAX_TOKENS = 8192  # the output limit tried when a provider refuses the model's own

# (kind, data): "start", "turn", "tool", "stop" — for progress displays.
RunEvent = tuple[str, Mapping[str, Any]]


#: What a turn control hands the run: one text, or several that stay separate text blocks
#: of the same user message (a notification that is more than one reminder).
TurnInput = str | tuple[str, ...]


def _text_blocks(follow: TurnInput) -> tuple[TextBlock, ...]:
    return (TextBlock(follow),) if isinstance(follow, str) else tuple(
        TextBlock(t) for t in follow)


class TurnControl:
    """Decides what happens when a run's turn ends (see "Conversations that go on")."""

    async def next_input(self, ctx: ToolContext, text: str) -> TurnInput | None:
        """The next user message after a turn that ended with ``text``; ``None`` ends the run."""
        return None

    def stop_now(self, ctx: ToolContext) -> bool:
        """True to end the run right after the current round of tool calls."""
        return False

    def pending_input(self, ctx: ToolContext) -> TurnInput | None:
        """Text to add to the tool results of the round that just ended, or ``None``."""
        return None


def flatten_tool_blocks(messages: Sequence[Message]) -> list[Message]:
    """The history with tool calls and results rewritten as text.

    The tool-less summary request must not carry ``tool_use``/``tool_result`` blocks: the
    Anthropic API refuses them when no tools are defined ("Requests which include tool_use or
    tool_result blocks must define tools", anthropic-sdk-python#494), and OpenAI-compatible
    servers refuse ``tool`` messages without tools.  As text, the model still sees everything.
    """
    out: list[Message] = []
    for m in messages:
        blocks: list[TextBlock] = []
        for b in m.content:
            if isinstance(b, ThinkingBlock):
                continue  # reasoning is not part of the record the summary request needs
            if isinstance(b, TextBlock):
                if b.text:
                    blocks.append(b)
            elif isinstance(b, ToolUseBlock):
                args = b.raw_arguments if b.raw_arguments is not None else json.dumps(
                    dict(b.input), ensure_ascii=False, default=str)
                blocks.append(TextBlock(f"[called tool {b.name} (id {b.id}) with {args}]"))
            else:
                kind = "error from" if b.is_error else "result of"
                blocks.append(TextBlock(f"[{kind} tool call {b.tool_use_id}]\n{b.content}"))
        out.append(Message(m.role, tuple(blocks) or (TextBlock("(empty)"),)))
    return out


def _run_id(agent: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9_-]+", "-", agent).strip("-")[:40] or "agent"
    return f"{time.strftime('%Y%m%dT%H%M%S')}-{slug}-{uuid.uuid4().hex[:8]}"


class _ConfigField(Generic[_T]):
    """An option of the runner's :class:`RunConfig` as an attribute; setting it replaces the
    runner's config (never a config shared with another runner: configs are frozen)."""

    def __init__(self, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> _ConfigField[_T]: ...
    @overload
    def __get__(self, obj: AgentRunner, owner: type | None = None) -> _T: ...
    def __get__(self, obj: AgentRunner | None, owner: type | None = None) -> Any:
        if obj is None:
            return self
        return getattr(obj.config, self.name)

    def __set__(self, obj: AgentRunner, value: _T) -> None:
        obj.config = obj.config.with_options(**{self.name: value})


class AgentRunner:
    """Runs agent definitions against a :class:`~subagents.providers.base.Model`.

    One runner may serve many runs, also concurrently (a parent and its children): per-run
    state lives in the run, not in the runner; a run leaves its result in its ``result_slot``.
    """

    def __init__(
        self,
        model: Model,
        config: RunConfig | None = None,
        *,
        tools: Mapping[str, Tool] | Sequence[Tool] | None = None,
        extra_tools: Iterable[Tool] = (),
        **options: Unpack[RunOptions],
    ) -> None:
        self.model = model
        if tools is None:
            self.tools: dict[str, Tool] = builtin_tools()
        elif isinstance(tools, Mapping):
            self.tools = dict(tools)
        else:
            self.tools = {t.name: t for t in tools}
        for t in extra_tools:
            self.tools[t.name] = t
        cfg = (config or RunConfig()).with_options(**options).resolved()
        self.config = dataclasses.replace(
            cfg, policy=cfg.policy or PermissionPolicy(), trust=cfg.trust or TrustPolicy())
        # shared with derived runners: the project is read once, a refusal learnt once
        self._contexts = ContextCache()
        self._relaxed: dict[str, str] = {}

    def derive(
        self,
        *,
        model: Model | None = None,
        tools: Mapping[str, Tool] | None = None,
        **options: Unpack[RunOptions],
    ) -> AgentRunner:
        """A new runner with this one's tools and config, ``model`` and ``options`` changed.

        For callers that need another model or event sink for one run: the runner they were
        given (maybe shared with others) is left as it is."""
        derived = type(self)(model if model is not None else self.model,
                             self.config.with_options(**options),
                             tools=self.tools if tools is None else tools)
        if derived.config.cwd == self.config.cwd:
            derived._contexts = self._contexts
        derived._relaxed = self._relaxed
        return derived

    # The options as attributes, as before RunConfig (read and, on one's own runner, set).
    cwd = _ConfigField[Path]("cwd")
    policy = _ConfigField[PermissionPolicy]("policy")
    hooks = _ConfigField[RunHooks | None]("hooks")
    transcript_dir = _ConfigField[Path | None]("transcript_dir")
    default_max_turns = _ConfigField[int]("default_max_turns")
    max_tokens = _ConfigField[int | None]("max_tokens")
    model_table = _ConfigField[Mapping[str, str] | None]("model_table")
    parent_model = _ConfigField[str | None]("parent_model")
    include_env = _ConfigField[bool]("include_env")
    on_event = _ConfigField[EventSink | None]("on_event")
    environ = _ConfigField[Mapping[str, str] | None]("environ")
    mcp_servers = _ConfigField[Mapping[str, McpServerSpec]]("mcp_servers")
    trust = _ConfigField[TrustPolicy]("trust")
    mcp_read_only = _ConfigField[tuple[str, ...]]("mcp_read_only")
    allow_flagged_prompts = _ConfigField[bool]("allow_flagged_prompts")

    @property
    def transcripts(self) -> bool:
        """Whether runs keep a JSONL transcript."""
        return self.config.keeps_transcripts

    @transcripts.setter
    def transcripts(self, value: bool | None) -> None:
        self.config = self.config.with_options(transcripts=value)

    # ------------------------------------------------------------------ public API

    def resolve_model(
        self, agent: AgentDefinition, model: str | None = None, parent: ToolContext | None = None
    ) -> str:
        from subagents.providers.models import choose_model

        parent_model = (parent.model if parent is not None else None) or self.parent_model or (
            getattr(self.model, "default_model", None)
        )
        # CLAUDE_CODE_SUBAGENT_MODEL applies to subagents only, as in Claude Code: the main
        # thread (no parent) keeps the model the user chose.
        return choose_model(
            call=model, frontmatter=agent.model, parent=parent_model, table=self.model_table,
            environ=self.environ if parent is not None else {},
        ).model

    def offered_tools(
        self, policy: PermissionPolicy, extra_tools: Iterable[Tool] = ()
    ) -> dict[str, Tool]:
        available = dict(self.tools)
        for t in extra_tools:
            available[t.name] = t
        return policy.tools.apply(available)

    async def run(
        self,
        agent: AgentDefinition,
        prompt: str,
        *,
        model: str | None = None,
        max_turns: int | None = None,
        policy: PermissionPolicy | None = None,
        hooks: RunHooks | None = None,
        extra_tools: Iterable[Tool] = (),
        parent: ToolContext | None = None,
        cwd: str | os.PathLike[str] | None = None,
        turns: TurnControl | None = None,
        run_id: str | None = None,
        history: Sequence[Message] = (),
        result_slot: ResultSlot | None = None,
        role: RunRole | None = None,
        effort: str | None = None,
        reminders: Sequence[str] = (),
    ) -> AgentResult:
        """Run ``agent`` on ``prompt`` to the end; see the module docstring.

        ``reminders`` are text blocks that follow the prompt in its user message (the agent
        listing of a run that may delegate).

        ``result_slot`` receives the result also when the run is interrupted (cancelled).
        ``role`` says which context the run gets (default: ``subagent`` with a ``parent``,
        else ``agent``; the main thread passes ``main``).  ``effort`` is a per-call effort
        level (the delegation tool's ``effort``); it wins over the agent's and the config's."""
        limit = max_turns or agent.max_turns or self.default_max_turns
        if limit < 1:
            raise UsageError(f"max_turns must be at least 1, got {limit}")
        outer = policy or (parent.policy if parent is not None else None) or self.policy
        run_policy = outer.restrict(agent)
        # Untrusted project agents and plan mode run no command of their own (runtime/trust.py).
        agent, trust_notes = self.trust.restrict(
            agent, plan=run_policy.effective_mode is PermissionMode.PLAN)
        trust_notes.extend(self._prompt_check(agent))
        workdir = Path(cwd).resolve() if cwd else (parent.cwd if parent else self.cwd)
        model_id = self.resolve_model(agent, model, parent)
        extra = list(extra_tools)
        run_id = run_id or _run_id(agent.name)
        path = None
        if self.transcripts:
            path = (self.transcript_dir or default_transcript_dir()) / f"{run_id}.jsonl"
        transcript = Transcript(path, run_id)
        ctx = ToolContext(
            cwd=workdir, agent_name=agent.name, model=model_id, run_id=run_id,
            depth=(parent.depth + 1) if parent else 0, policy=run_policy, transcript=transcript,
            delegate=self,
        )
        if turns is not None:
            ctx.extra["turns"] = turns
        state = _RunState(agent=agent, model=model_id, transcript=transcript, slot=result_slot,
                          warnings=[*run_policy.warnings, *outer.warnings_for(agent),
                                    *trust_notes],
                          started=time.perf_counter())
        # Memory + body, hand-back rules, skills, environment; agent-scoped hooks.
        run_role: RunRole = role or ("subagent" if parent is not None else "agent")
        system = build_system_prompt(agent, workdir)
        if self.config.handback_rules and run_role == "subagent":
            from subagents.runtime.context import with_handback_rules

            system = with_handback_rules(system)
        if agent.skills:
            from subagents.runtime.skills import load_skills

            skills = load_skills(agent.skills, workdir)
            state.warnings.extend(skills.warnings)
            system = "\n\n".join(p for p in (system, skills.prompt_section()) if p)
        lead: list[TextBlock] = []
        project = None
        if self.config.project_context and not history:
            project, fresh = await asyncio.to_thread(self._contexts.get, workdir)
            lead = [TextBlock(b) for b in project.blocks(run_role)]
            if fresh:
                state.warnings.extend(project.notes)
        if self.include_env:
            from subagents.runtime.context import environment_block

            git = (project.git is not None) if project is not None else None
            system = "\n\n".join(p for p in (system, environment_block(workdir, model_id,
                                                                         git=git)) if p)
        state.generation = self._generation(agent, model_id, run_role, effort)
        state.effort_explicit = bool(effort or (
            agent.effort if run_role == "subagent" else self.config.effort))
        all_hooks = [h for h in (self.hooks, hooks) if h is not None]
        if agent.hooks:
            from subagents.runtime.command_hooks import CommandHooks

            agent_hooks = CommandHooks.for_agent(agent, as_subagent=ctx.depth > 0)
            if not _has_same_hooks(all_hooks, agent_hooks):  # a caller may have added them
                state.late_warnings.append(agent_hooks.warnings)
                all_hooks.append(agent_hooks)
        run_hooks: RunHooks = CompositeHooks(all_hooks) if len(all_hooks) != 1 else all_hooks[0]
        # Step 4 and 10: agent-scoped MCP servers live exactly as long as the run.
        stack = contextlib.AsyncExitStack()
        try:
            try:
                if agent.mcp_servers:
                    from subagents.runtime.mcp_tools import McpServerPool

                    pool = await stack.enter_async_context(McpServerPool(
                        agent.mcp_servers, cwd=workdir, configured=self.mcp_servers,
                        read_only=self.mcp_read_only))
                    extra.extend(pool.tools)
                    state.warnings.extend(pool.warnings)
                # Claude Code's tool set for this context (tools/toolset.py)
                toolset = select_tools(self.offered_tools(run_policy, extra), agent,
                                       formats_for(self.config.claude_code))
                offered = toolset.offered
                state.warnings.extend(toolset.warnings)
                everything = {**self.tools, **{t.name: t for t in extra}}
                state.warnings.extend(_unavailable_tools(agent, everything))
                transcript.event("start", {
                    "agent": agent.name, "model": model_id, "cwd": str(workdir),
                    "prompt": prompt, "system": system, "tools": list(offered),
                    "max_turns": limit, "permission_mode": run_policy.effective_mode.value,
                    "depth": ctx.depth, "parent_run_id": parent.run_id if parent else None,
                    "role": run_role, "max_tokens": state.generation.max_tokens,
                    "thinking": state.generation.thinking, "effort": state.generation.effort,
                    "context": [str(f.path) for f in project.instructions.files]
                    + (["git"] if project.git is not None else []) if project else [],
                })
                self._emit("start", {"agent": agent.name, "model": model_id, "run_id": run_id})
                await self._safe(run_hooks.on_start(ctx, agent, prompt), state, "on_start")
                await self._loop(ctx, state, run_hooks, system, prompt, offered, everything,
                                 limit, turns, history, lead, toolset, reminders)
            except (asyncio.CancelledError, KeyboardInterrupt):
                state.stop = "interrupted"
                ctx.processes.kill_all()
                state.result = self._finish(ctx, state)
                with contextlib.suppress(BaseException):
                    await asyncio.wait_for(run_hooks.on_stop(ctx, state.result), 5)
                raise
            except Exception as exc:  # a bug (ours or a model's); record it, then surface it
                state.stop = "error"
                state.error = f"{type(exc).__name__}: {exc}"
                raise
            finally:
                ctx.processes.kill_all()
                if state.result is None:
                    state.result = self._finish(ctx, state)
            result = state.result
            await self._safe(run_hooks.on_stop(ctx, result), state, "on_stop")
            return result
        finally:
            with contextlib.suppress(Exception):
                await stack.aclose()

    def run_sync(self, agent: AgentDefinition, prompt: str, **kwargs: Any) -> AgentResult:
        """:meth:`run` in a fresh event loop; Ctrl-C raises :class:`RunInterrupted`."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            pass
        else:
            raise RunError("run_sync() was called inside a running event loop",
                           hint="use `await runner.run(agent, prompt)` there")
        slot = kwargs.pop("result_slot", None) or ResultSlot()
        try:
            return asyncio.run(self.run(agent, prompt, result_slot=slot, **kwargs))
        except (KeyboardInterrupt, asyncio.CancelledError):
            if slot.interrupted is not None:
                raise RunInterrupted(slot.interrupted) from None
            raise

    # ------------------------------------------------------------------ the loop

    async def _loop(
        self,
        ctx: ToolContext,
        state: _RunState,
        hooks: RunHooks,
        system: str,
        prompt: str,
        offered: dict[str, Tool],
        everything: dict[str, Tool],
        limit: int,
        control: TurnControl | None = None,
        history: Sequence[Message] = (),
        lead: Sequence[TextBlock] = (),
        toolset: ToolSet | None = None,
        reminders: Sequence[str] = (),
    ) -> None:
        toolset = toolset or ToolSet(offered)
        loaded: set[str] = ctx.extra.setdefault(LOADED_KEY, set())
        specs = [t.spec() for t in toolset.visible(loaded)]
        shown = len(loaded)
        step = ToolStep(ctx=ctx, hooks=hooks, offered=offered, everything=everything,
                        policy=self.policy, transcript=state.transcript, calls=state.calls,
                        warnings=state.warnings, emit=self._emit, notes=toolset.notes)
        # ``history``: an earlier conversation resumed (a teammate's transcripts)
        messages: list[Message] = [*history, Message("user", (
            *lead, TextBlock(prompt), *(TextBlock(r) for r in reminders)))]
        state.messages = messages
        if history and history[-1].role == "user":
            messages[-2:] = [Message("user", (*history[-1].content, TextBlock(prompt),
                                              *(TextBlock(r) for r in reminders)))]
        state.transcript.message(messages[-1])
        nudged = False
        turn = 0
        base = 0  # the turn of the last user message (a continued conversation)
        while turn - base < limit:
            turn += 1
            state.turns = turn
            self._emit("turn", {"agent": ctx.agent_name, "turn": turn, "max_turns": limit})
            if len(loaded) != shown:  # ToolSearch loaded deferred tools: list them from now
                specs, shown = [t.spec() for t in toolset.visible(loaded)], len(loaded)
            response = await self._request(ctx, state, system, messages, specs, turn)
            if response is None:
                return
            if not response.tool_uses and not response.text.strip():
                if not nudged and turn < limit:
                    nudged = True
                    state.warnings.append(f"turn {turn}: the model sent an empty reply; nudged")
                    messages[-1] = Message("user", (*messages[-1].content, TextBlock(EMPTY_NUDGE)))
                    state.transcript.message(messages[-1], turn=turn, nudge=True)
                    continue
                state.warnings.append(f"turn {turn}: the model sent an empty reply; stopping")
                state.final_text = ""
                state.stop = "end_turn"
                follow = await control.next_input(ctx, "") if control else None
                if follow is None:
                    return
                # no assistant message was kept: the new text joins the last user message
                messages[-1] = Message("user", (*messages[-1].content, *_text_blocks(follow)))
                state.transcript.message(messages[-1], turn=turn)
                base = turn
                nudged = False
                continue
            if response.stop_reason == "max_tokens":
                state.warnings.append(
                    f"turn {turn}: the reply was cut at the output limit "
                    f"({state.generation.max_tokens} "
                    "tokens); the answer may be incomplete")
            assistant = response.as_message()
            messages.append(assistant)
            state.transcript.message(assistant, turn=turn, stop_reason=response.stop_reason,
                                     usage=_usage_json(response.usage))
            uses = response.tool_uses
            if not uses:
                state.final_text = response.text
                state.stop = "end_turn"
                follow = await control.next_input(ctx, response.text) if control else None
                if follow is None:
                    return
                messages.append(Message("user", _text_blocks(follow)))
                state.transcript.message(messages[-1], turn=turn)
                base = turn
                nudged = False
                continue
            results = await step.run(uses, turn)
            extra = control.pending_input(ctx) if control is not None else None
            if extra:
                results = Message("user", (*results.content, *_text_blocks(extra)))
            messages.append(results)
            state.transcript.message(results, turn=turn)
            if control is not None and control.stop_now(ctx):
                state.final_text = response.text
                state.stop = "end_turn"
                return
        # The limit is reached and the model still wanted tools: stop here, as Claude Code
        # does, unless a summary was asked for (one more request, no tools).
        state.stop = "max_turns"
        state.final_text = ""
        if not self.config.max_turns_summary:
            return
        note = TextBlock(SUMMARY_PROMPT.format(n=limit))
        messages[-1] = Message("user", (*messages[-1].content, note))
        state.transcript.event("summary_request", {"text": note.text})
        response = await self._request(ctx, state, system, flatten_tool_blocks(messages), [],
                                       turn, final=True)
        if response is not None:
            state.transcript.message(response.as_message(), summary=True)
            state.final_text = response.text
            if response.tool_uses:
                state.warnings.append("the summary reply asked for tools; they were not run")
        else:  # the limit was reached all the same; say why there is no summary
            state.warnings.append(f"the summary request at the turn limit failed: {state.error}")

    async def _request(
        self,
        ctx: ToolContext,
        state: _RunState,
        system: str,
        messages: list[Message],
        specs: Sequence[ToolSpec],
        turn: int,
        *,
        final: bool = False,
    ) -> ModelResponse | None:
        gen = state.generation
        relaxed = self._relaxed.get(ctx.model, "")
        thinking = None if "thinking" in relaxed else gen.thinking
        request = ModelRequest(
            model=ctx.model, system=system, messages=tuple(messages), tools=tuple(specs),
            max_tokens=min(gen.max_tokens, RELAXED_MAX_TOKENS) if "tokens" in relaxed
            else gen.max_tokens,
            thinking=thinking, thinking_budget=gen.thinking_budget if thinking else None,
            effort=gen.effort if thinking else None, thinking_hidden=ctx.depth > 0,
            metadata={"agent": ctx.agent_name, "run_id": ctx.run_id, "turn": turn,
                      **({EFFORT_EXPLICIT: True} if state.effort_explicit else {}),
                      **({"final_summary": True, "tool_choice": "none"} if final else {})},
        )
        try:
            response = await self._complete_relaxing(request, state)
        except ProviderError as exc:
            state.error = str(exc)
            if state.stop != "max_turns":
                state.stop = "error"
            state.transcript.event("error", {"turn": turn, "error": str(exc),
                                             "kind": type(exc).__name__})
            return None
        state.usage = state.usage + response.usage
        state.last_usage = response.usage
        return response

    async def _complete_relaxing(self, request: ModelRequest, state: _RunState
                                 ) -> ModelResponse:
        """``model.complete``, asked again without what the provider refused (see the module:
        thinking/effort, then a large output limit), each once per runner and model."""
        while True:
            try:
                return await self.model.complete(request)
            except ProviderResponseError as exc:
                change = _refused_parameter(exc, request)
                if change is None:
                    raise
                seen = self._relaxed.get(request.model, "")
                self._relaxed[request.model] = f"{seen} {change}".strip()
                if change == "thinking":
                    request = dataclasses.replace(request, thinking=None, thinking_budget=None,
                                                  effort=None)
                    state.warnings.append(
                        f"the provider refused thinking/effort for {request.model} "
                        f"({_short(exc)}); asked again without them")
                else:
                    request = dataclasses.replace(request, max_tokens=RELAXED_MAX_TOKENS)
                    state.warnings.append(
                        f"the provider refused an output limit of {state.generation.max_tokens} "
                        f"tokens for {request.model} ({_short(exc)}); asked again with "
                        f"{RELAXED_MAX_TOKENS} (set max-tokens in config to choose)")

    def _generation(self, agent: AgentDefinition, model_id: str, role: RunRole,
                    call_effort: str | None = None) -> Generation:
        """This run's generation parameters (see the module docstring)."""
        # Measured: the session's effort (--effort) is the main thread's; a subagent has its
        # own effort, else the model's default, whatever the session says.
        effort = (agent.effort or None) if role == "subagent" else self.config.effort
        if call_effort:
            effort = call_effort
        return generation_for(model_id, max_tokens=self.config.max_tokens, effort=effort,
                              thinking=self.config.thinking)

    # ------------------------------------------------------------------ helpers

    def _prompt_check(self, agent: AgentDefinition) -> list[str]:
        """An agent whose own prompt reads like a prompt injection with high confidence (SA405)
        does not run unless the user said so (``allow_flagged_prompts``; ``subagents run
        --allow-flagged-prompt``); a suspicion (SA406) runs with a warning."""
        from subagents.lint.rules.injection import assess_injection

        found = assess_injection(agent.system_prompt or "")
        if found is None:
            return []
        what = ", ".join(found.signals)
        if found.confidence != "high":
            return [f"agent {agent.name!r}: its prompt may hold a prompt injection ({what}); "
                    f"check {agent.path or 'its definition'}"]
        if not self.allow_flagged_prompts:
            raise RunError(
                f"agent {agent.name!r} was not run: its prompt reads like a prompt injection "
                f"({what}); check {agent.path or 'its definition'}, and run it anyway only if "
                "you trust it (--allow-flagged-prompt)")
        return [f"agent {agent.name!r}: its prompt reads like a prompt injection ({what}); "
                "run anyway as asked"]

    def _finish(self, ctx: ToolContext, state: _RunState) -> AgentResult:
        result = AgentResult(
            agent=state.agent.name, model=state.model, final_text=state.final_text,
            stop_reason=state.stop, turns=state.turns, tool_calls=tuple(state.calls),
            usage=state.usage, duration=time.perf_counter() - state.started,
            transcript_path=state.transcript.path, run_id=ctx.run_id, error=state.error,
            # once each: a hook type that is skipped would otherwise warn on every call
            warnings=tuple(dict.fromkeys(
                (*state.warnings, *(w for ws in state.late_warnings for w in ws)))),
            children=tuple(ctx.children),
            messages=tuple(state.messages),
            context_tokens=state.last_usage.total_tokens,
        )
        state.transcript.event("stop", {
            "stop_reason": result.stop_reason, "turns": result.turns,
            "usage": _usage_json(result.usage), "tool_calls": len(result.tool_calls),
            "duration": round(result.duration, 6), "error": result.error,
            "final_text": result.final_text, "warnings": list(result.warnings),
        })
        state.transcript.close()
        if state.slot is not None:
            state.slot.result = result
        self._emit("stop", {"agent": result.agent, "stop_reason": result.stop_reason,
                            "turns": result.turns})
        return result

    async def _safe(self, awaitable: Any, state: _RunState, what: str) -> None:
        try:
            await awaitable
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            state.warnings.append(f"hook {what} failed: {type(exc).__name__}: {exc}")

    # ------------------------------------------------------------------ Delegate (for tools)

    async def spawn(
        self,
        agent: AgentDefinition,
        prompt: str,
        *,
        parent: ToolContext,
        model: str | None = None,
        extra_tools: Sequence[Tool] = (),
    ) -> AgentResult:
        """A child run of ``parent`` (:class:`~subagents.runtime.tools.base.Delegate`): one
        level deeper, under the parent's policy restricted to the child; its result joins
        ``parent.children``."""
        result = await self.run(agent, prompt, parent=parent, model=model,
                                extra_tools=extra_tools)
        parent.children.append(result)
        return result

    def emit(self, kind: str, data: Mapping[str, Any]) -> None:
        """Send a progress event to ``on_event`` (a failing sink is ignored)."""
        self._emit(kind, data)

    async def check_permission(
        self, tool: Tool, input: Mapping[str, Any], ctx: ToolContext
    ) -> Decision:
        """The run's permission decision for ``tool`` with ``input`` (fails closed: a check
        that raises is a refusal)."""
        policy = ctx.policy or self.policy
        try:
            return await policy.decide(tool, input, ctx)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            return Decision(False, f"the permission check failed ({type(exc).__name__}: {exc})")

    def _emit(self, kind: str, data: Mapping[str, Any]) -> None:
        if self.on_event is not None:
            with contextlib.suppress(Exception):
                self.on_event(kind, data)


_TOOL_HINTS = {
    "WebFetch": "off unless configured (subagents run --web)",
    "WebSearch": "needs a search backend (builtin_tools(search_backend=...))",
    "Agent": "delegation is not offered to this run",
}


def _unavailable_tools(agent: AgentDefinition, available: Mapping[str, Tool]) -> list[str]:
    """A warning per tool the agent's ``tools`` names that this run does not provide.

    Claude Code tools we do not implement (``NotebookEdit``, ``KillShell``...) and tools that
    are off (``WebFetch``) are simply not offered; without a word, an agent written for them
    fails in ways that are hard to trace back.  MCP entries are the MCP pool's business.
    """
    from subagents.known_tools import AGENT_TOOL_NAMES, canonical_tool_name, parse_tool_entry

    have = set(available)
    if have & AGENT_TOOL_NAMES:
        have |= AGENT_TOOL_NAMES
    missing: list[str] = []
    for raw in agent.tools or ():
        entry = parse_tool_entry(raw)
        if entry is None or entry.is_mcp or raw.strip() == "*" or entry.name in have:
            continue
        if entry.name not in missing:
            missing.append(entry.name)
    out = []
    for name in missing:
        hint = _TOOL_HINTS.get(canonical_tool_name(name))
        out.append(f"tool {name} is in the tools of {agent.name!r} but this run does not "
                   f"provide it{f' ({hint})' if hint else ''}; it is not offered")
    return out


_THINKING_WORDS = ("thinking", "effort", "output_config", "reasoning")
_TOKEN_WORDS = ("max_tokens", "max_completion_tokens", "context length", "context_length",
                "maximum context", "too large", "max_new_tokens")


def _refused_parameter(exc: ProviderResponseError, request: ModelRequest) -> str | None:
    """``"thinking"`` or ``"tokens"`` when a 400/422 refusal names what this request can do
    without (thinking/effort first, then a large output limit); else ``None``."""
    if exc.status not in (400, 422):
        return None
    # the server's own words (the URL before them may hold anything)
    text = str(exc).lower().split(f"answered {exc.status}:", 1)[-1]
    if request.thinking is not None and any(w in text for w in _THINKING_WORDS):
        return "thinking"
    if request.max_tokens > RELAXED_MAX_TOKENS and any(w in text for w in _TOKEN_WORDS):
        return "tokens"
    return None


def _short(exc: Exception) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= 160 else text[:159] + "…"


def _usage_json(usage: Usage) -> dict[str, int]:
    return {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens}


def _has_same_hooks(hooks: Iterable[RunHooks], wanted: RunHooks) -> bool:
    """Is a CommandHooks with the same commands already among ``hooks``?"""
    for h in hooks:
        if isinstance(h, CompositeHooks) and _has_same_hooks(h.hooks, wanted):
            return True
        if type(h) is type(wanted) and getattr(h, "hooks", None) == getattr(wanted, "hooks", 0):
            return True
    return False


class _RunState:
    """Mutable bookkeeping of one run (kept off the runner so runs can overlap)."""

    __slots__ = ("agent", "calls", "effort_explicit", "error", "final_text", "generation",
                 "last_usage", "late_warnings", "messages", "model", "result", "slot", "started",
                 "stop", "transcript",
                 "turns", "usage", "warnings")

    def __init__(self, *, agent: AgentDefinition, model: str, transcript: Transcript,
                 warnings: list[str], started: float, slot: ResultSlot | None = None) -> None:
        self.slot = slot
        self.agent = agent
        self.model = model
        self.transcript = transcript
        self.warnings = warnings
        self.started = started
        self.turns = 0
        self.calls: list[ToolCallRecord] = []
        self.usage = Usage()
        self.last_usage = Usage()  # of the last request: the context the run ended with
        self.messages: list[Message] = []  # the conversation, for continuing it later
        self.final_text = ""
        self.stop: RunStopReason = "end_turn"
        self.error: str | None = None
        self.result: AgentResult | None = None
        self.late_warnings: list[list[str]] = []  # lists filled while the run goes on
        self.generation = Generation(RELAXED_MAX_TOKENS)  # the run sets its own
        self.effort_explicit = False
