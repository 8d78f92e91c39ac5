"""Benchmark: what the round-two hardening of the Bash sandbox costs per call.

Run: ``.venv/bin/python bench/bench_sandbox_hardening.py [--calls 30] [--tree PATH]``

In one process, interleaved (so the machine's load hits both alike), starts the same command
through bwrap with the round-one options and with the round-two ones (``--cap-drop ALL`` as
root, a private ``/run``, the seccomp filter against unix sockets, the whole ``.git`` and
every nested ``.git`` bound read-only), and prints the median wall time of each, their ratio
and the difference in milliseconds.  Also times :func:`subagents.runtime.sandbox.guard`
(the walk for nested ``.git`` entries) on a real tree (default: this checkout).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from subagents.runtime.sandbox import SandboxSettings, bwrap_argv, guard, seccomp_fd, unavailable

ROUND_TWO_ONLY = {"--cap-drop": 1, "--seccomp": 1}


def round_one(argv: list[str]) -> list[str]:
    """``argv`` without the round-two options (what round one ran)."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ROUND_TWO_ONLY:
            i += 2
            continue
        if a == "--tmpfs" and argv[i + 1] in ("/run", "/var/run"):
            i += 2
            continue
        out.append(a)
        i += 1
    return out


def timed(argv: list[str], fds: tuple[int, ...]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True, pass_fds=fds)
    return time.perf_counter() - started


def main(calls: int, tree: Path) -> None:
    reason = unavailable()
    if reason:
        raise SystemExit(f"no sandbox here: {reason}")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / ".git" / "hooks").mkdir(parents=True)
        (work / ".git" / "config").write_text("[core]\n")
        one: list[float] = []
        two: list[float] = []
        for _ in range(calls):
            fd = seccomp_fd()
            new = bwrap_argv("echo hello", cwd=work, settings=SandboxSettings(), seccomp=fd)
            fds = (fd,) if fd is not None else ()
            try:
                two.append(timed(new, fds))
                one.append(timed(round_one(new), ()))
            finally:
                if fd is not None:
                    os.close(fd)
        o, t = statistics.median(one) * 1000, statistics.median(two) * 1000
        print(f"bwrap per call, round one {o:.2f} ms, round two {t:.2f} ms: "
              f"ratio {t / o:.2f}x, {t - o:+.2f} ms")
    started = time.perf_counter()
    n = 5
    for _ in range(n):
        g = guard(tree, SandboxSettings())
    walk = (time.perf_counter() - started) / n * 1000
    print(f"guard() on {tree}: {walk:.2f} ms per call ({len(g.missing)} protected paths "
          f"missing, {len(g.links)} links pinned)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=30)
    parser.add_argument("--tree", type=Path, default=Path(__file__).resolve().parents[1])
    args = parser.parse_args()
    main(args.calls, args.tree)
