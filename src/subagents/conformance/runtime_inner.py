"""The part of a runtime recording that lives inside the network namespace.

``python -m subagents.conformance.runtime_inner SPEC.json`` (started by
:func:`subagents.conformance.runtime_record.run_claude`): brings loopback up when it runs in a
new network namespace, serves :class:`~subagents.testing.server.FakeLLMServer` on 127.0.0.1 with
the scenarios' :func:`~subagents.conformance.runtime_cases.responder`, runs
``claude -p PROMPT --output-format stream-json --verbose --permission-mode bypassPermissions``
in the project, and writes ``requests.jsonl``, ``stdout.jsonl``, ``stderr.txt`` and ``rc`` into
the spec's output folder.

Design decision: the environment Claude Code gets is :func:`~subagents.conformance.harness.
claude_env` (nothing inherited but PATH) plus ``IS_SANDBOX=1``, which Claude Code requires
before it accepts ``bypassPermissions`` as root.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from subagents.conformance.harness import claude_env
from subagents.conformance.inner import _loopback_up
from subagents.conformance.runtime_cases import responder
from subagents.testing.server import FakeLLMServer

__all__ = ["main", "run"]


def run(spec: dict[str, Any]) -> int:
    out = Path(spec["out"])
    if spec.get("netns"):
        _loopback_up()
    server = FakeLLMServer(default=responder(spec["project"]),
                           record_to=str(out / "requests.jsonl"))
    with server:
        env = claude_env(spec["home"], server.url)
        env["IS_SANDBOX"] = "1"
        command = [spec["claude"], "-p", spec["prompt"], "--output-format", "stream-json",
                   "--verbose", "--permission-mode", "bypassPermissions", *spec["args"]]
        with open(out / "stdout.jsonl", "wb") as so, open(out / "stderr.txt", "wb") as se:
            try:
                done = subprocess.run(command, cwd=spec["project"], env=env,
                                      stdin=subprocess.DEVNULL, stdout=so, stderr=se,
                                      timeout=float(spec.get("timeout", 180)), check=False)
                rc = str(done.returncode)
            except subprocess.TimeoutExpired:
                rc = "timeout"
    (out / "rc").write_text(rc, encoding="utf-8")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m subagents.conformance.runtime_inner SPEC.json", file=sys.stderr)
        return 2
    return run(json.loads(Path(args[0]).read_text(encoding="utf-8")))


if __name__ == "__main__":
    raise SystemExit(main())
