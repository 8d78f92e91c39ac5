"""The part of a recording run that lives inside the network namespace.

``python -m subagents.conformance.inner SPEC.json`` (started by
:func:`subagents.conformance.harness.run_project`): brings loopback up when it runs in a new
network namespace, serves :class:`~subagents.testing.server.FakeLLMServer` in spawn mode on
127.0.0.1, runs Claude Code in stream-json mode, sends the SDK ``initialize`` control request and
one user message, waits for the result, and writes ``stdout.jsonl``, ``requests.jsonl``,
``debug.log`` and ``rc`` into the spec's output folder.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO, Any

from subagents.conformance.harness import claude_env
from subagents.testing.server import SPAWN_MAIN_MARKER, FakeLLMServer, spawn_responder

__all__ = ["main"]


def _loopback_up() -> None:
    for command in (["ip", "link", "set", "lo", "up"], ["ifconfig", "lo", "up"]):
        try:
            if subprocess.run(command, capture_output=True, check=False).returncode == 0:
                return
        except FileNotFoundError:
            continue


def _send(stdin: IO[bytes], message: dict[str, Any]) -> None:
    stdin.write((json.dumps(message) + "\n").encode())
    stdin.flush()


def run(spec: dict[str, Any]) -> int:
    out = Path(spec["out"])
    if spec.get("netns"):
        _loopback_up()
    server = FakeLLMServer(default=spawn_responder(list(spec.get("spawn") or [])),
                           record_to=str(out / "requests.jsonl"))
    timeout = float(spec.get("timeout", 120))
    with server:
        command = [spec["claude"], "-p", "--input-format", "stream-json", "--output-format",
                   "stream-json", "--verbose", "--debug-file", str(out / "debug.log"),
                   *[str(a) for a in spec.get("extra_args") or []]]
        with open(out / "stderr.txt", "wb") as err:
            proc = subprocess.Popen(
                command, cwd=spec["cwd"], env=claude_env(spec["home"], server.url),
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err,
            )
            assert proc.stdin is not None and proc.stdout is not None
            lines: list[str] = []
            got_init, got_result = threading.Event(), threading.Event()
            stdout = proc.stdout

            def read() -> None:
                for raw in stdout:
                    line = raw.decode("utf-8", "replace")
                    lines.append(line)
                    try:
                        event = json.loads(line)
                    except ValueError:
                        continue
                    kind = event.get("type") if isinstance(event, dict) else None
                    if kind == "control_response":
                        got_init.set()
                    elif kind == "result":
                        got_result.set()
                got_init.set()
                got_result.set()

            reader = threading.Thread(target=read, daemon=True)
            reader.start()
            deadline = time.monotonic() + timeout
            try:
                _send(proc.stdin, {"type": "control_request", "request_id": "conformance-init",
                                   "request": {"subtype": "initialize"}})
                got_init.wait(max(1.0, deadline - time.monotonic()))
                _send(proc.stdin, {"type": "user", "parent_tool_use_id": None, "session_id": "",
                                   "message": {"role": "user",
                                               "content": f"{SPAWN_MAIN_MARKER} hello"}})
                got_result.wait(max(1.0, deadline - time.monotonic()))
            except OSError:
                pass  # claude exited early; what it wrote is still read below
            with contextlib.suppress(OSError):
                proc.stdin.close()
            try:
                proc.wait(timeout=max(1.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            reader.join(5)
    (out / "stdout.jsonl").write_text("".join(lines), encoding="utf-8")
    (out / "rc").write_text(str(proc.returncode), encoding="utf-8")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m subagents.conformance.inner SPEC.json", file=sys.stderr)
        return 2
    return run(json.loads(Path(args[0]).read_text(encoding="utf-8")))


if __name__ == "__main__":
    raise SystemExit(main())
