"""``Bash{command, timeout, description}``: run a shell command in the working folder.

Design notes
------------
* ``timeout`` is in milliseconds, as in Claude Code (default 120,000, at most 600,000).
* The command runs in its **own process group** (``start_new_session=True``).  On timeout, on
  cancellation (Ctrl-C, a parent's timeout) and after a normal exit, the whole group gets
  SIGKILL, so ``sleep 1000 &`` or a forked server never outlives the call.  Starting long-lived
  background processes is therefore not supported (Claude Code's ``run_in_background`` is
  refused with a clear message).
* stdout and stderr are merged in arrival order; the text sent back is capped at 30,000
  characters (head kept, the count of dropped characters said), while the pipe is still drained
  so a chatty command cannot block on a full pipe.
* A non-zero exit is an ``is_error`` result carrying the output and the exit code, so the model
  sees what went wrong.  stdin is ``/dev/null``: a command waiting for input ends at once.
* The group id is registered in ``ctx.processes`` while it runs; the runner kills whatever is
  left there when a run ends or is interrupted (belt and braces).
* Every call starts in the working folder: unlike Claude Code's persistent shell, a ``cd`` does
  not carry over to the next call (say ``cd sub && make`` in one command).
* The command gets this process's environment **minus the provider credentials**
  (:data:`SCRUBBED_ENV`: ``ANTHROPIC_API_KEY``, ``OPENAI_API_KEY``...): the agent's commands
  do not need the key the runner talks to the model with, and ``env`` or a prompt-injected
  ``curl`` must not be able to hand it to the model, the transcript or a server.  Pass
  ``scrub_env=()`` to keep them.  In the sandbox every credential-like variable goes
  (:func:`subagents.runtime.sandbox.scrubbed_environ`).
* ``sandbox`` (:class:`~subagents.runtime.sandbox.SandboxSettings`) runs the command inside
  bubblewrap: writes only in the working folder(s) and a private ``/tmp``, protected paths
  read-only, no network unless allowed, its own PID namespace (no ``/proc`` of the runner, no
  survivors).  ``None`` (the library default, kept for callers that manage their own
  isolation) runs it directly; ``subagents run`` always passes settings.  With ``mode="ask"``
  and no sandbox available the user is asked through the run's permission callback, with
  ``required`` the call is refused with the reason.  A protected path the sandboxed command
  created where none was (``.subagents.toml``, ``.claude/``, ``.git``...) is moved aside once
  the call is over, and the result says so (:func:`subagents.runtime.sandbox.guarded_paths`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from subagents.runtime.sandbox import (
    SandboxSettings,
    bwrap_argv,
    guarded_paths,
    move_aside_created,
    unavailable,
)
from subagents.runtime.tools.base import Tool, ToolContext, ToolOutput, kill_process_group

__all__ = ["BashTool"]

DEFAULT_TIMEOUT_MS = 120_000
MAX_TIMEOUT_MS = 600_000
MAX_OUTPUT_CHARS = 30_000
_CHUNK = 65536
#: Environment variables removed from the commands' environment (the providers' credentials).
SCRUBBED_ENV: tuple[str, ...] = (
    "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY",
)


class BashTool(Tool):
    name = "Bash"
    description = (
        "Run a shell command in the working directory and return its combined stdout/stderr "
        "and exit code. timeout is in milliseconds (default 120000, max 600000); the command "
        "and everything it started are killed when it ends or times out. Output is capped at "
        "30000 characters."
    )
    input_schema: Mapping[str, Any] = {
        "type": "object",
        "properties": {
            "command": {"type": "string", "minLength": 1, "description": "The command to run"},
            "timeout": {"type": "integer", "minimum": 1, "maximum": MAX_TIMEOUT_MS},
            "description": {"type": "string", "description": "What it does, in 5-10 words"},
            "run_in_background": {"type": "boolean"},
        },
        "required": ["command"],
        "additionalProperties": False,
    }

    def __init__(self, *, default_timeout_ms: int = DEFAULT_TIMEOUT_MS,
                 max_output_chars: int = MAX_OUTPUT_CHARS,
                 scrub_env: Iterable[str] = SCRUBBED_ENV,
                 sandbox: SandboxSettings | None = None) -> None:
        self.default_timeout_ms = default_timeout_ms
        self.max_output_chars = max_output_chars
        self.scrub_env = frozenset(scrub_env)
        self.sandbox = sandbox

    def environment(self) -> dict[str, str] | None:
        """The commands' environment (``None``: inherit it unchanged)."""
        if not self.scrub_env or not self.scrub_env & os.environ.keys():
            return None
        return {k: v for k, v in os.environ.items() if k not in self.scrub_env}

    async def _unsandboxed_ok(self, input: Mapping[str, Any], ctx: ToolContext,
                              reason: str) -> bool:
        """``mode="ask"``: the user decides, each time (a blanket ``--yes`` does not)."""
        if self.sandbox is None or self.sandbox.mode != "ask":
            return False
        policy = ctx.policy
        if policy is None or policy.ask is None:
            return False
        from subagents.runtime.permissions import PermissionRequest

        return await policy.ask(PermissionRequest(
            self.name, dict(input), ctx.agent_name, policy.effective_mode.value, ctx.cwd,
            protected=f"this command would run WITHOUT a sandbox ({reason})"))

    async def run(self, input: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        if input.get("run_in_background"):
            return ToolOutput.error("run_in_background is not supported here; run the command "
                                    "in the foreground with a timeout")
        timeout = int(input.get("timeout") or self.default_timeout_ms) / 1000
        shell = shutil.which("bash") or "/bin/sh"
        argv: list[str] = [shell, "-c", input["command"]]
        env = self.environment()
        guarded: list[Path] = []
        if self.sandbox is not None and self.sandbox.mode != "off":
            reason = unavailable()
            if reason is None:
                guarded = guarded_paths(ctx.cwd, self.sandbox)
                argv = bwrap_argv(input["command"], cwd=ctx.cwd, settings=self.sandbox,
                                  shell=shell)
                env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
            elif not await self._unsandboxed_ok(input, ctx, reason):
                return ToolOutput.error(
                    f"Bash was not run: commands must run in a sandbox and {reason}. "
                    "Install it, or let the user choose --sandbox ask (asks before each "
                    "command) or --sandbox off.")
        try:
            proc = await asyncio.create_subprocess_exec(
                *argv,
                cwd=ctx.cwd,
                env=env,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT,
                start_new_session=True,
            )
        except OSError as exc:
            return ToolOutput.error(f"cannot start the shell: {exc.strerror or exc}")
        pgid = proc.pid  # new session: the leader's pid is the group id
        ctx.processes.add(pgid)
        chunks: list[bytes] = []
        kept = 0
        dropped = 0
        limit_bytes = self.max_output_chars * 4  # UTF-8: at most 4 bytes a character

        async def drain() -> None:
            nonlocal kept, dropped
            assert proc.stdout is not None
            while True:
                data = await proc.stdout.read(_CHUNK)
                if not data:
                    return
                room = limit_bytes - kept
                if room > 0:
                    chunks.append(data[:room])
                    kept += min(room, len(data))
                dropped += max(0, len(data) - max(room, 0))

        timed_out = False
        try:
            try:
                await asyncio.wait_for(drain(), timeout)
                rc = await asyncio.wait_for(proc.wait(), max(timeout, 1.0))
            except TimeoutError:
                timed_out = True
                kill_process_group(pgid)
                rc = await proc.wait()
        finally:
            # Normal end, timeout or cancellation: nothing the command started survives it.
            kill_process_group(pgid)
            ctx.processes.discard(pgid)
            if proc.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
                # Reap it even when cancelled, so the transport is closed before the loop is
                # (otherwise asyncio complains from __del__ after Ctrl-C).
                with contextlib.suppress(BaseException):
                    await asyncio.wait_for(asyncio.shield(proc.wait()), 5)
            # The sandbox is gone with its every process: undo protected paths it created.
            moved = move_aside_created(guarded) if guarded else []
        text = b"".join(chunks).decode("utf-8", errors="replace")
        cut = 0
        if len(text) > self.max_output_chars:
            cut = len(text) - self.max_output_chars
            text = text[: self.max_output_chars]
        extra = cut + dropped
        if extra:
            text += f"\n[output truncated: {extra:,} more bytes/characters not shown]"
        if moved:
            text = (f"{text}\n" if text else "") + _moved_note(moved, ctx.cwd)
            if not timed_out and rc == 0:
                return ToolOutput.error(text)
        if timed_out:
            return ToolOutput.error(
                f"{text}\n[command timed out after {timeout:g}s; it and its child processes "
                "were killed]".lstrip()
            )
        if rc != 0:
            return ToolOutput.error(f"{text}\n[exit code {rc}]".lstrip())
        return ToolOutput(text if text else "(no output)")


def _moved_note(moved: list[tuple[Path, Path]], cwd: Path) -> str:
    from subagents.runtime.protected import protected_reason

    def shown(p: Path) -> str:
        try:
            return str(p.relative_to(cwd.resolve()))
        except ValueError:
            return str(p)

    lines = [f"[{shown(old)} was created by the command, but it is protected "
             f"({protected_reason(old) or 'it changes what runs later'}); it was moved aside "
             f"to {shown(new)}]" for old, new in moved]
    lines.append("[protected paths cannot be created from Bash; write them with the Write "
                 "tool, which asks the user]")
    return "\n".join(lines)
