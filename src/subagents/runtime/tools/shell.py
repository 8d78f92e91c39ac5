"""``Bash{command, timeout, description, run_in_background, dangerouslyDisableSandbox}``: run a
shell command, returning what Claude Code 2.1.332 returns (``docs/runtime-tools.md``).

Design notes
------------
* **Result format.**  stdout and stderr merged in arrival order, trailing newlines stripped;
  a non-zero exit is an ``is_error`` result that starts ``Exit code N`` (a death by signal N
  is 128 + N); no output at all is ``(Bash completed with no output)``.  A timeout ends
  ``Command timed out after Ns`` (Claude Code may move such a command to the background; we
  stop it: SIGTERM, then SIGKILL to its whole group).
* **Long output** (over 30,000 characters, the version table of
  :mod:`~subagents.runtime.tools.formats`) is saved to a file and the model gets a
  ``<persisted-output>`` block: the size, the file's path and a 2 KB preview cut back to a
  line end.  The file lives in the run's own folder (``$SUBAGENTS_TOOL_RESULTS_DIR`` or
  ``~/.subagents/tool-results/<run id>/``, made 0700), never in the project; ``Read`` may
  open it without asking (``ctx.extra["tool_results_dir"]``).  A flood stops being saved at
  :data:`MAX_SAVED_BYTES` (counted, said), so no command can fill the disk through us.
* **Working directory.**  In the main thread (``ctx.depth == 0``) a ``cd`` carries over to
  the next call, as in Claude Code: an ``EXIT`` trap writes ``$PWD`` to a pipe of ours (also
  after ``exit N``).  A directory outside the working folder(s) is not kept ("Shell cwd was
  reset to ..."); one deleted since is reported and the command is not run.  A subagent's
  calls each start in the working folder (measured: Claude Code's subagents do too).
* ``timeout`` is in milliseconds, a number (Claude Code's type), at most 600,000.
* ``dangerouslyDisableSandbox`` is accepted (Claude Code's schema has it) and **ignored**: the
  sandbox is the user's choice (``--sandbox``), never the model's; the result says so.
  ``run_in_background`` is refused (nothing outlives a call here).
* The command runs in its **own process group** (``start_new_session=True``).  On timeout, on
  cancellation (Ctrl-C, a parent's timeout; also while it is still starting) and after a
  normal exit, the whole group gets SIGKILL, so ``sleep 1000 &`` or a forked server never
  outlives the call.  stdin is ``/dev/null``: a command waiting for input ends at once.
* The group id is registered in ``ctx.processes`` while it runs; the runner kills whatever is
  left there when a run ends or is interrupted (belt and braces).
* The command gets this process's environment **minus the provider credentials**
  (:data:`SCRUBBED_ENV`: ``ANTHROPIC_API_KEY``, ``OPENAI_API_KEY``...): the agent's commands
  do not need the key the runner talks to the model with, and ``env`` or a prompt-injected
  ``curl`` must not be able to hand it to the model, the transcript or a server.  Pass
  ``scrub_env=()`` to keep them.  In the sandbox every credential-like variable goes
  (:func:`subagents.runtime.sandbox.scrubbed_environ`).
* ``sandbox`` (:class:`~subagents.runtime.sandbox.SandboxSettings`) runs the command inside
  bubblewrap: writes only in the working folder(s) and a private ``/tmp``, protected paths
  read-only, no network unless allowed, its own PID namespace (no ``/proc`` of the runner, no
  survivors); the main thread's shell directory is where it starts, the bound folders stay
  the working folder(s).  ``None`` (the library default, kept for callers that manage their
  own isolation) runs it directly; ``subagents run`` always passes settings.  With
  ``mode="ask"`` and no sandbox available the user is asked through the run's permission
  callback, with ``required`` the call is refused with the reason.  A protected path the
  sandboxed command created where none was (``.subagents.toml``, ``.claude/``, ``.git``...)
  is moved aside once the call is over, and the result says so
  (:func:`subagents.runtime.sandbox.guard`, :func:`subagents.runtime.sandbox.undo`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from subagents.runtime.sandbox import (
    Guard,
    SandboxSettings,
    bwrap_argv,
    guard,
    seccomp_fd,
    unavailable,
    undo,
)
from subagents.runtime.tools.base import Tool, ToolContext, ToolOutput, kill_process_group
from subagents.runtime.tools.files import human_size
from subagents.runtime.tools.formats import ToolFormats, formats_for

__all__ = ["RESULTS_KEY", "BashTool", "tool_results_dir"]

DEFAULT_TIMEOUT_MS = 120_000
MAX_TIMEOUT_MS = 600_000
#: a saved output stops growing here (a flood fills no disk); the rest is counted
MAX_SAVED_BYTES = 64 * 1024 * 1024
#: ``ctx.extra`` keys: the main thread's shell directory, the run's saved-output folder
CWD_KEY = "bash_cwd"
RESULTS_KEY = "tool_results_dir"
_CHUNK = 65536
#: Environment variables removed from the commands' environment (the providers' credentials).
SCRUBBED_ENV: tuple[str, ...] = (
    "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY",
)


class BashTool(Tool):
    name = "Bash"
    description = (
        "Run a shell command and return what it printed (stdout and stderr). In the main "
        "thread the shell's working directory carries over between calls (a `cd` stays); a "
        "subagent's calls each start in the working directory. timeout is in milliseconds "
        "(default 120000, at most 600000); the command and everything it started are stopped "
        "when it ends or times out. Long output is saved to a file and a preview is returned."
    )
    input_schema: Mapping[str, Any] = {
        "type": "object",
        "properties": {
            "command": {"type": "string", "description": "The command to run"},
            "timeout": {"type": "number", "description": "Milliseconds (at most 600000)"},
            "description": {"type": "string", "description": "What it does, in a few words"},
            "run_in_background": {"type": "boolean",
                                  "description": "Not supported by this runtime"},
            "dangerouslyDisableSandbox": {
                "type": "boolean",
                "description": "Accepted and ignored: commands always run under this run's "
                               "sandbox settings"},
        },
        "required": ["command"],
        "additionalProperties": False,
    }

    def __init__(self, *, default_timeout_ms: int = DEFAULT_TIMEOUT_MS,
                 max_output_chars: int | None = None,
                 scrub_env: Iterable[str] = SCRUBBED_ENV,
                 sandbox: SandboxSettings | None = None,
                 formats: ToolFormats | None = None,
                 results_dir: Path | None = None) -> None:
        self.formats = formats or formats_for()
        self.default_timeout_ms = default_timeout_ms
        self.max_output_chars = max_output_chars or self.formats.bash_inline_chars
        self.scrub_env = frozenset(scrub_env)
        self.sandbox = sandbox
        self.results_dir = results_dir

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

    def _persists(self, ctx: ToolContext) -> bool:
        """Does ``cd`` carry over?  In the main thread only, as in Claude Code."""
        return self.formats.bash_persistent_cwd and ctx.depth == 0

    def _roots(self, ctx: ToolContext) -> list[Path]:
        """Where the shell may stay between calls: the working folder(s)."""
        extra = ctx.policy.writable_dirs if ctx.policy is not None else ()
        return [ctx.cwd.resolve(), *(Path(p).resolve() for p in extra)]

    async def run(self, input: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        if input.get("run_in_background"):
            return ToolOutput.tool_use_error(
                "run_in_background is not supported here; run the command in the foreground "
                "with a timeout")
        timeout = min(float(input.get("timeout") or self.default_timeout_ms),
                      MAX_TIMEOUT_MS) / 1000
        persists = self._persists(ctx)
        shell_cwd = ctx.cwd
        if persists and ctx.extra.get(CWD_KEY):
            saved = Path(ctx.extra[CWD_KEY])
            if not saved.is_dir():
                ctx.extra.pop(CWD_KEY, None)
                return ToolOutput.error(
                    f'Working directory "{saved}" no longer exists; the command was not run. '
                    f'The shell is back in "{ctx.cwd}": run it again if it still makes sense '
                    "there.")
            shell_cwd = saved
        command = input["command"]
        # /bin/bash first: its name starts bash's own messages, as in Claude Code's results
        shell = "/bin/bash" if os.access("/bin/bash", os.X_OK) else (
            shutil.which("bash") or "/bin/sh")
        cwd_r, cwd_w = os.pipe() if persists else (-1, -1)
        ended_in = ""
        if persists:
            # Where the shell ended up, written to a pipe of ours on exit (even after `exit N`).
            # On the command's first line, so that its error messages keep their line numbers.
            command = (f"trap '__sa_rc=$?; printf %s \"$PWD\" >&{cwd_w} 2>/dev/null; "
                       f"exit $__sa_rc' EXIT; {command}")
        argv: list[str] = [shell, "-c", command]
        env = self.environment()
        guarded: Guard | None = None
        filter_fd: int | None = None
        try:
            if self.sandbox is not None and self.sandbox.mode != "off":
                reason = unavailable()
                if reason is None:
                    guarded = guard(ctx.cwd, self.sandbox)
                    filter_fd = seccomp_fd()
                    argv = bwrap_argv(command, cwd=ctx.cwd, settings=self.sandbox,
                                      shell=shell, chdir=shell_cwd, seccomp=filter_fd,
                                      guarded=guarded)
                    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
                elif not await self._unsandboxed_ok(input, ctx, reason):
                    return ToolOutput.error(
                        f"Bash was not run: commands must run in a sandbox and {reason}. "
                        "Install it, or let the user choose --sandbox ask (asks before each "
                        "command) or --sandbox off.")
            fds = ((cwd_w,) if persists else ()) + ((filter_fd,) if filter_fd is not None else ())
            output = await self._execute(argv, shell_cwd, env, timeout, ctx, fds)
        finally:
            if filter_fd is not None:
                os.close(filter_fd)
            if persists:
                os.close(cwd_w)
                with contextlib.suppress(OSError):
                    os.set_blocking(cwd_r, False)
                    ended_in = os.read(cwd_r, 65536).decode("utf-8", "replace")
                os.close(cwd_r)
        if isinstance(output, ToolOutput):
            return output
        rc, timed_out, body = output
        # The sandbox is gone with its every process: undo protected paths it created.
        moved = undo(guarded) if guarded is not None else []
        notes: list[str] = []
        if persists:
            note = self._follow_cwd(ctx, ended_in)
            if note:
                notes.append(note)
        if input.get("dangerouslyDisableSandbox") and self.sandbox is not None \
                and self.sandbox.mode != "off":
            notes.append("(dangerouslyDisableSandbox is ignored here: the command ran under "
                         "this run's sandbox settings)")
        text = body
        if moved:
            text = (f"{text}\n" if text else "") + _moved_note(moved, ctx.cwd)
        if notes:
            text = "\n".join([text, *notes]) if text else "\n".join(notes)
        if timed_out:
            secs = f"{int(timeout)}" if timeout >= 1 else f"{timeout:g}"
            parts = [f"Exit code {_exit_code(rc)}", text, f"Command timed out after {secs}s"]
            return ToolOutput.error("\n".join(p for p in parts if p))
        if rc != 0:
            return ToolOutput.error(f"Exit code {_exit_code(rc)}" + (f"\n{text}" if text else ""))
        if moved:
            return ToolOutput.error(text)
        return ToolOutput(text if text else "(Bash completed with no output)")

    def _follow_cwd(self, ctx: ToolContext, ended_in: str) -> str | None:
        """Keep where the shell ended up for the next call; a folder outside the working
        folder(s) is not kept (the note says so, as Claude Code's does)."""
        if not ended_in:
            return None
        where = Path(ended_in)
        with contextlib.suppress(OSError):
            where = where.resolve()
        if any(where == r or where.is_relative_to(r) for r in self._roots(ctx)):
            if where == ctx.cwd.resolve():
                ctx.extra.pop(CWD_KEY, None)
            else:
                ctx.extra[CWD_KEY] = str(where)
            return None
        ctx.extra.pop(CWD_KEY, None)
        return f"Shell cwd was reset to {ctx.cwd}"

    async def _execute(self, argv: list[str], cwd: Path, env: dict[str, str] | None,
                       timeout: float, ctx: ToolContext, pass_fds: tuple[int, ...],
                       ) -> ToolOutput | tuple[int, bool, str]:
        """Run ``argv``: (exit code, timed out, the text for the model)."""
        spawn = asyncio.ensure_future(asyncio.create_subprocess_exec(
            *argv,
            cwd=cwd,
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,
            pass_fds=pass_fds,
        ))
        try:
            # Shielded: a cancellation (Ctrl-C) while the process starts must still find its
            # group and kill it, or a child it started would hold the pipes open for ever.
            proc = await asyncio.shield(spawn)
        except asyncio.CancelledError:
            with contextlib.suppress(BaseException):
                started = await asyncio.wait_for(spawn, 5)
                kill_process_group(started.pid)
                await asyncio.wait_for(started.wait(), 5)
            raise
        except OSError as exc:
            return ToolOutput.error(f"cannot start the shell: {exc.strerror or exc}")
        pgid = proc.pid  # new session: the leader's pid is the group id
        ctx.processes.add(pgid)
        sink = _OutputSink(self.max_output_chars, self._results_dir(ctx))

        async def drain() -> None:
            assert proc.stdout is not None
            while True:
                data = await proc.stdout.read(_CHUNK)
                if not data:
                    return
                sink.add(data)

        timed_out = False
        try:
            try:
                await asyncio.wait_for(drain(), timeout)
                rc = await asyncio.wait_for(proc.wait(), max(timeout, 1.0))
            except TimeoutError:
                timed_out = True
                # SIGTERM first (the exit code says so, as in Claude Code), then SIGKILL.
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(pgid, signal.SIGTERM)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(proc.wait(), 0.5)
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
            sink.close()
        return rc, timed_out, sink.result(self.formats.bash_preview_chars)

    def _results_dir(self, ctx: ToolContext) -> Path:
        """Where this run's long outputs go (made on first use; Read may read it)."""
        return tool_results_dir(ctx, self.results_dir)


def tool_results_dir(ctx: ToolContext, base: Path | None = None) -> Path:
    """The run's folder for saved tool output: ``$SUBAGENTS_TOOL_RESULTS_DIR`` or
    ``~/.subagents/tool-results``, then the run id.  It is recorded in ``ctx.extra`` so the
    permission policy lets ``Read`` open it (it is the run's own output)."""
    known = ctx.extra.get(RESULTS_KEY)
    if known:
        return Path(known)
    root = base or Path(os.environ.get("SUBAGENTS_TOOL_RESULTS_DIR")
                        or Path.home() / ".subagents" / "tool-results")
    where = root / (ctx.run_id or "run")
    ctx.extra[RESULTS_KEY] = str(where)
    return where


def _exit_code(rc: int) -> int:
    """A shell's exit status: a death by signal N is 128 + N."""
    return 128 - rc if rc < 0 else rc


class _OutputSink:
    """A command's output: kept in memory while short; past the inline limit it goes to a
    file (up to :data:`MAX_SAVED_BYTES`, the rest counted), and the model gets a preview."""

    def __init__(self, inline_chars: int, folder: Path) -> None:
        self.inline_chars = inline_chars
        self.inline_bytes = inline_chars * 4  # UTF-8: at most 4 bytes a character
        self.folder = folder
        self.chunks: list[bytes] = []
        self.size = 0
        self.head = b""
        self.file: Any = None
        self.path: Path | None = None
        self.dropped = 0
        self.tail = b""

    def add(self, data: bytes) -> None:
        self.tail = (self.tail + data)[-256:]
        if self.file is None:
            self.chunks.append(data)
            self.size += len(data)
            if self.size > self.inline_bytes:
                self._spill()
            return
        room = MAX_SAVED_BYTES - self.size
        if room <= 0:
            self.dropped += len(data)
            return
        self.file.write(data[:room])
        self.size += min(room, len(data))
        self.dropped += max(0, len(data) - room)

    def _spill(self) -> None:
        """Move what is kept into the file (it will be too long to send)."""
        data = b"".join(self.chunks)
        self.chunks = []
        self.head = data[: self.inline_bytes]
        try:
            self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd, name = tempfile.mkstemp(prefix="bash-", suffix=".txt", dir=self.folder)
        except OSError:
            # No room for the file: keep the head, count the rest (no crash, no flood).
            self.chunks = [self.head]
            self.dropped += len(data) - len(self.head)
            self.size = len(self.head)
            self.file = _Discard(self)
            return
        self.path = Path(name)
        self.file = os.fdopen(fd, "wb")
        self.file.write(data[:MAX_SAVED_BYTES])
        self.dropped += max(0, len(data) - MAX_SAVED_BYTES)
        self.size = min(len(data), MAX_SAVED_BYTES)

    def close(self) -> None:
        if self.file is not None and self.path is not None:
            with contextlib.suppress(OSError):
                self.file.close()
                # the trailing newlines go, as from the text sent inline
                if not self.dropped:
                    trailing = len(self.tail) - len(self.tail.rstrip(b"\n"))
                    if trailing:
                        os.truncate(self.path, max(0, self.size - trailing))
                        self.size = max(0, self.size - trailing)

    def result(self, preview_chars: int) -> str:
        if self.file is None:
            text = b"".join(self.chunks).decode("utf-8", errors="replace").rstrip("\n")
            if len(text) <= self.inline_chars:
                return text
            self.chunks, self.tail = [text.encode()], b""  # already without the newlines
            self._spill()
            self.close()
        if self.path is None:  # the file could not be made: the head, and a count
            text = self.head.decode("utf-8", errors="replace")[: self.inline_chars]
            return (f"{text}\n[output truncated: the rest ({self.dropped:,} bytes) could not "
                    "be saved]")
        head = self.head.decode("utf-8", errors="replace")
        preview = head[:preview_chars]
        cut = preview.rfind("\n")
        if len(head) > preview_chars and cut >= preview_chars // 2:
            preview = preview[:cut]
        total = self.size + self.dropped
        lost = (f" (the first {human_size(self.size)} were kept; {self.dropped:,} bytes more "
                "were not saved)") if self.dropped else ""
        return (f"<persisted-output>\nOutput too large ({human_size(total)}). Full output "
                f"saved to: {self.path}{lost}\n\nPreview (first "
                f"{max(1, preview_chars // 1000)}KB):\n{preview}\n...\n</persisted-output>")


class _Discard:
    """Stands in for the file when none could be made: counts what would have gone there."""

    def __init__(self, sink: _OutputSink) -> None:
        self.sink = sink

    def write(self, data: bytes) -> None:
        self.sink.dropped += len(data)

    def close(self) -> None:
        pass


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
