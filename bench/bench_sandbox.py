"""Benchmark: the cost of the Bash sandbox per call (bubblewrap vs running bash directly).

Run: ``.venv/bin/python bench/bench_sandbox.py [--calls 50]``

Runs the same commands through :class:`~subagents.runtime.tools.shell.BashTool` without a
sandbox and with one (``SandboxSettings()``: bwrap with every namespace unshared, the working
folder bound, protected paths re-bound read-only, credential stores hidden), interleaved, in
this run, and prints the median wall time per call of each and their ratio, plus the
per-call overhead in milliseconds.  Also times the permission check of a ``Bash`` rule on a
parsed command (tree-sitter-bash) against the old string split (``shlex``).
"""

from __future__ import annotations

import argparse
import asyncio
import shlex
import statistics
import tempfile
import time
from pathlib import Path

from subagents.runtime.sandbox import SandboxSettings, unavailable
from subagents.runtime.shellparse import deny_matches, plain_commands
from subagents.runtime.tools.base import ToolContext
from subagents.runtime.tools.shell import BashTool

COMMANDS = ["true", "echo hello", "ls -la | wc -l", "git --version"]


async def _time(tool: BashTool, command: str, ctx: ToolContext) -> float:
    started = time.perf_counter()
    out = await tool.run({"command": command}, ctx)
    elapsed = time.perf_counter() - started
    if out.is_error and command == "true":
        raise SystemExit(f"the command failed: {out.content}")
    return elapsed


async def main(calls: int) -> None:
    reason = unavailable()
    if reason:
        raise SystemExit(f"no sandbox here: {reason}")
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / ".git").mkdir()
        (Path(tmp) / ".git" / "config").write_text("[core]\n")
        ctx = ToolContext(cwd=Path(tmp).resolve())
        plain, boxed = BashTool(), BashTool(sandbox=SandboxSettings())
        for tool in (plain, boxed):  # warm up (the bwrap probe, page cache)
            await _time(tool, "true", ctx)
        print(f"{'command':<18} {'direct ms':>10} {'sandbox ms':>11} {'ratio':>7} {'+ms':>7}")
        for command in COMMANDS:
            direct: list[float] = []
            sandboxed: list[float] = []
            for _ in range(calls):  # interleaved, so drift hits both alike
                direct.append(await _time(plain, command, ctx))
                sandboxed.append(await _time(boxed, command, ctx))
            d, s = statistics.median(direct) * 1000, statistics.median(sandboxed) * 1000
            print(f"{command:<18} {d:>10.2f} {s:>11.2f} {s / d:>6.2f}x {s - d:>7.2f}")

    line = "git diff --stat HEAD~1 -- src/ | grep -v test | wc -l"
    n = 2000
    started = time.perf_counter()
    for _ in range(n):
        plain_commands(line)
        deny_matches("rm:*", line)
    parsed = (time.perf_counter() - started) / n * 1e6
    started = time.perf_counter()
    for _ in range(n):
        shlex.split(line)
    split = (time.perf_counter() - started) / n * 1e6
    print(f"\nrule check on a parsed command: {parsed:.1f} us per call "
          f"(shlex.split alone: {split:.1f} us, ratio {parsed / split:.1f}x)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=50)
    asyncio.run(main(parser.parse_args().calls))
