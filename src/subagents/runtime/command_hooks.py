"""Claude Code command hooks, scoped to the agent that declares them.

An agent's ``hooks:`` frontmatter becomes a
:class:`CommandHooks` object plugged into the runner's :class:`~subagents.runtime.hooks.RunHooks`
seam, so the hooks are *active only while that agent runs* and are dropped with it — the very
thing users report Claude Code getting wrong (agent-scoped hooks that never fire, #18392,
#30260; PreToolUse hooks skipped for subagent tool calls, #69260).

Semantics kept from Claude Code:

* events: ``PreToolUse`` (before a tool runs; may block), ``PostToolUse`` /
  ``PostToolUseFailure`` (after), ``SubagentStart`` (start), ``SubagentStop`` (end).  A ``Stop``
  hook declared by an agent is converted to ``SubagentStop`` when the agent runs as a subagent
  and stays ``Stop`` when it runs as the main thread;
* ``matcher`` is a regular expression matched against the whole tool name (``Write|Edit``);
  empty, missing or ``*`` matches every tool;
* the command runs through the shell in the working folder with the event as JSON on stdin
  (``session_id``, ``transcript_path``, ``cwd``, ``permission_mode``, ``hook_event_name``,
  ``tool_name``, ``tool_input``, ``tool_response``, ``agent_id``, ``agent_type``), plus
  ``CLAUDE_PROJECT_DIR`` and ``CLAUDE_TOOL_INPUT_FILE_PATH`` in its environment;
* exit 0: success, stdout parsed as JSON when it starts with ``{``; exit 2: *block*, stderr is
  the reason; any other exit: a non-blocking error (a warning);
* JSON output may say ``{"decision": "block", "reason": ...}``, ``{"continue": false,
  "stopReason": ...}`` or ``hookSpecificOutput.permissionDecision`` ``allow``/``deny``/``ask``
  (deny wins over everything; ``ask`` is treated as deny when nobody can be asked);
* default timeout 60 s; a hook that times out is killed and counts as a non-blocking error.

Only ``type: command`` hooks run; other types (``prompt``, ``agent``) are reported as skipped.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from subagents.runtime.hooks import HookDecision, RunHooks, ToolCall

if TYPE_CHECKING:
    from subagents.definition import AgentDefinition, HookMatcher
    from subagents.runtime.result import AgentResult
    from subagents.runtime.tools.base import ToolContext, ToolOutput

__all__ = ["CommandHooks", "HookRun"]

DEFAULT_TIMEOUT = 60.0


@dataclass(frozen=True, slots=True)
class HookRun:
    """What one hook command did (kept for transcripts and tests)."""

    event: str
    command: str
    exit_code: int | None
    stdout: str
    stderr: str
    blocked: bool = False
    timed_out: bool = False


@dataclass(slots=True)
class CommandHooks(RunHooks):
    """The command hooks of one agent, for one run."""

    hooks: Mapping[str, Sequence[HookMatcher]]
    as_subagent: bool = True
    timeout: float = DEFAULT_TIMEOUT
    runs: list[HookRun] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @classmethod
    def for_agent(cls, agent: AgentDefinition, *, as_subagent: bool = True) -> CommandHooks:
        events: dict[str, list[HookMatcher]] = {}
        for event, matchers in agent.hooks.items():
            name = "SubagentStop" if event == "Stop" and as_subagent else event
            events.setdefault(name, []).extend(matchers)
        return cls(hooks=events, as_subagent=as_subagent)

    # --- RunHooks ---------------------------------------------------------------------------

    async def on_start(self, ctx: ToolContext, agent: AgentDefinition, prompt: str) -> None:
        if self.as_subagent:
            await self._fire("SubagentStart", ctx, None, {"prompt": prompt})

    async def before_tool(self, ctx: ToolContext, call: ToolCall) -> HookDecision | None:
        return await self._fire("PreToolUse", ctx, call, {})

    async def after_tool(self, ctx: ToolContext, call: ToolCall, output: ToolOutput) -> None:
        event = "PostToolUseFailure" if output.is_error else "PostToolUse"
        await self._fire(event, ctx, call, {"tool_response": output.content})

    async def on_stop(self, ctx: ToolContext, result: AgentResult) -> None:
        event = "SubagentStop" if self.as_subagent else "Stop"
        await self._fire(
            event,
            ctx,
            None,
            {"tool_response": result.final_text, "stop_hook_active": False},
        )

    # --- machinery --------------------------------------------------------------------------

    def _matching(self, event: str, tool: str | None) -> list[tuple[str, float]]:
        commands: list[tuple[str, float]] = []
        for matcher in self.hooks.get(event, ()):
            if tool is not None and not _matches(matcher.matcher, tool):
                continue
            for hook in matcher.hooks:
                if hook.type != "command" or not hook.command:
                    self.warnings.append(f"{event} hook of type {hook.type!r} skipped")
                    continue
                commands.append((hook.command, hook.timeout or self.timeout))
        return commands

    async def _fire(
        self, event: str, ctx: ToolContext, call: ToolCall | None, extra: Mapping[str, Any]
    ) -> HookDecision | None:
        commands = self._matching(event, call.name if call else None)
        if not commands:
            return None
        payload = _payload(event, ctx, call, extra)
        decision: HookDecision | None = None
        for command, timeout in commands:
            run = await _run_command(command, payload, ctx, call, timeout, event)
            self.runs.append(run)
            verdict = _verdict(run)
            if run.timed_out:
                self.warnings.append(f"{event} hook timed out after {timeout:g}s: {command}")
            elif run.exit_code not in (0, 2):
                self.warnings.append(
                    f"{event} hook failed (exit {run.exit_code}): {run.stderr.strip()[:200]}"
                )
            if verdict is not None and not verdict.allow:
                decision = verdict  # deny wins; later hooks still run, as in Claude Code
        return decision if event == "PreToolUse" else None


def _matches(matcher: str | None, tool: str) -> bool:
    if not matcher or matcher == "*":
        return True
    try:
        return re.fullmatch(matcher, tool) is not None
    except re.error:
        return matcher == tool


def _payload(
    event: str, ctx: ToolContext, call: ToolCall | None, extra: Mapping[str, Any]
) -> dict[str, Any]:
    policy = getattr(ctx, "policy", None)
    transcript = getattr(ctx, "transcript", None)
    data: dict[str, Any] = {
        "session_id": ctx.run_id,
        "transcript_path": str(getattr(transcript, "path", "") or ""),
        "cwd": str(ctx.cwd),
        "permission_mode": str(getattr(policy, "mode", "default") or "default"),
        "hook_event_name": event,
        "agent_id": ctx.run_id,
        "agent_type": ctx.agent_name,
    }
    if call is not None:
        data["tool_name"] = call.name
        data["tool_input"] = dict(call.input)
        data["tool_use_id"] = call.id
    data.update(extra)
    return data


async def _run_command(
    command: str,
    payload: Mapping[str, Any],
    ctx: ToolContext,
    call: ToolCall | None,
    timeout: float,
    event: str,
) -> HookRun:
    # No credentials for hooks (issue 12): an agent file's hook must not see the API key.
    from subagents.runtime.sandbox import scrubbed_environ

    env = scrubbed_environ()
    env["CLAUDE_PROJECT_DIR"] = str(ctx.cwd)
    if call is not None and isinstance(call.input.get("file_path"), str):
        env["CLAUDE_TOOL_INPUT_FILE_PATH"] = str(call.input["file_path"])
    proc = await asyncio.create_subprocess_shell(
        command,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        cwd=str(ctx.cwd),
        env=env,
        start_new_session=True,  # its own process group, so a timeout kills its children too
    )
    data = json.dumps(payload, default=str).encode()
    try:
        out, err = await asyncio.wait_for(proc.communicate(data), timeout)
    except TimeoutError:
        _kill_group(proc.pid)
        await proc.wait()
        return HookRun(event, command, None, "", "", timed_out=True)
    except asyncio.CancelledError:
        _kill_group(proc.pid)
        raise
    return HookRun(
        event,
        command,
        proc.returncode,
        out.decode("utf-8", "replace"),
        err.decode("utf-8", "replace"),
        blocked=proc.returncode == 2,
    )


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def _verdict(run: HookRun) -> HookDecision | None:
    if run.exit_code == 2:
        reason = run.stderr.strip() or "blocked by a hook (exit 2)"
        return HookDecision(False, reason)
    if run.exit_code != 0 or not run.stdout.lstrip().startswith("{"):
        return None
    try:
        data = json.loads(run.stdout)
    except json.JSONDecodeError:
        return None
    if not isinstance(data, dict):
        return None
    specific = data.get("hookSpecificOutput")
    if isinstance(specific, dict):
        permission = specific.get("permissionDecision")
        reason = str(specific.get("permissionDecisionReason") or "")
        if permission in ("deny", "ask"):
            return HookDecision(False, reason or f"a hook answered {permission!r}")
    if data.get("decision") == "block":
        return HookDecision(False, str(data.get("reason") or "blocked by a hook"))
    if data.get("continue") is False:
        return HookDecision(False, str(data.get("stopReason") or "a hook stopped the run"))
    return None
