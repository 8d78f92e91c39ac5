"""One file at the prompt: ``subagents validate one.md`` against a bare ``python -c pass``.

Run: ``.venv/bin/python bench/bench_one_file.py [--runs 30] [--importtime]``.  Prints figures
and ratios against the baseline measured in the same run; it asserts nothing.

The two commands run as interleaved pairs (baseline, command, baseline, command, ...) in fresh
processes, so a busy machine slows both alike; the figures are medians of the CPU time (user +
system, from ``os.wait4``) and of the wall time.  Also measured the same way: the console
script ``subagents`` (what a pre-commit hook runs), ``subagents --version``, and ``python -c
'import click, yaml'`` (the floor of any click command that reads YAML: what is above it is
ours).  With ``--importtime``, the modules imported by ``validate one.md`` are listed with
their self time (``python -X importtime``), largest first -- a guide to what to make lazy
next, not a figure (the flag slows imports).

Two agent files: a small one (five lines of prompt) and a typical one (about 3 KB: a role,
focus areas, a method, an output format, a link; written for this benchmark).  Their costs
differ mostly by the prompt-injection patterns the prompt makes the detector compile.  With
``--instructions`` (needs ``valgrind``), each command's user-mode instruction count is also
measured once (``valgrind --tool=callgrind``) with the same ratio: on a busy shared machine
CPU times drift by 10-20% between runs, instruction counts by well under 1%.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

AGENT = """---
name: reader
description: Reads files and answers questions about them. Use for questions about the code.
tools: Read, Grep, Glob
---
You read files and answer briefly.
"""

TYPICAL = """---
name: api-reviewer
description: Reviews HTTP API changes for correctness, compatibility and security. Use after
  editing route handlers, request schemas or authentication code.
tools: Read, Grep, Glob, Bash
model: sonnet
---
You are a reviewer of HTTP APIs. You read the change the user points you at, the handlers it
touches and their tests, and you report problems with file and line.

## Focus areas

- Request validation: every input is checked for type, range and size before it is used.
- Status codes: errors map to the right 4xx or 5xx code, and the body says what went wrong.
- Compatibility: a field removed or renamed, a default changed or a new required parameter
  breaks clients; say which and suggest a migration path.
- Authentication and authorisation: each route checks who is calling and what they may do;
  tokens and keys never appear in logs, error messages or responses.
- Pagination, rate limits and timeouts on every endpoint that lists or calls out.
- Tests: a new route has tests for success, bad input and missing permissions.

## Method

1. Run `git diff --stat` and read each changed file in full, not only the hunks.
2. Find the callers of every changed function with Grep before judging a change.
3. Run the test suite for the touched package (`pytest -q tests/api`) and read failures.
4. Compare the OpenAPI document with the handlers when the project has one.
5. Check the rules in CONTRIBUTING.md and follow the style the codebase already uses.

## Output

Start with a one-line verdict: ready, ready with changes, or not ready. Then list findings,
most serious first, each as `path:line - problem - suggested fix`. Keep it short: no praise,
no restating the diff, and no findings you are not sure of. When a finding depends on a
design decision, say so and ask instead of guessing.

See https://example.com/api-guidelines for the conventions this team follows.
"""


def one_run(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """(cpu ms, wall ms) of one fresh process."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    _pid, status, usage = os.wait4(proc.pid, 0)
    wall = (time.perf_counter() - start) * 1000
    err = proc.stderr.read().decode() if proc.stderr else ""
    if proc.stderr:
        proc.stderr.close()
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{err}")
    return (usage.ru_utime + usage.ru_stime) * 1000, wall


def importtime(cmd: list[str], cwd: Path, env: dict[str, str], top: int) -> None:
    proc = subprocess.run([sys.executable, "-X", "importtime", *cmd[1:]], cwd=cwd, env=env,
                          capture_output=True, text=True, check=False)
    rows: list[tuple[int, str]] = []
    for line in proc.stderr.splitlines():
        if line.startswith("import time:") and "self [us]" not in line:
            self_us, _cum, name = line.removeprefix("import time:").split("|", 2)
            rows.append((int(self_us), name.strip()))
    total = sum(us for us, _ in rows)
    print(f"\n`python -X importtime` of validate one.md: {len(rows)} modules, "
          f"{total / 1000:.1f} ms self time in all; the {top} largest:")
    for us, name in sorted(rows, reverse=True)[:top]:
        print(f"  {us / 1000:7.2f} ms  {name}")


def instructions(cmd: list[str], cwd: Path, env: dict[str, str]) -> int | None:
    """User-mode instructions of one run (callgrind), or ``None`` without valgrind."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        return None
    proc = subprocess.run([valgrind, "--tool=callgrind", "--callgrind-out-file=/dev/null", *cmd],
                          cwd=cwd, env=env, capture_output=True, text=True, check=False)
    for line in proc.stderr.splitlines():
        if "Collected :" in line:
            return int(line.rsplit(":", 1)[1].strip().replace(",", ""))
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=30, help="pairs per measurement")
    parser.add_argument("--importtime", action="store_true",
                        help="also list the modules validate one.md imports")
    parser.add_argument("--instructions", action="store_true",
                        help="also count instructions with valgrind (stable on a busy machine)")
    args = parser.parse_args()
    runs = max(3, args.runs)
    py = sys.executable
    script = shutil.which("subagents", path=str(Path(py).parent)) or ""

    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "proj"
        agents = project / ".claude" / "agents"
        agents.mkdir(parents=True)
        (project / ".git").mkdir()
        one = agents / "reader.md"
        one.write_text(AGENT)
        typical = agents / "api-reviewer.md"
        typical.write_text(TYPICAL)
        home = Path(tmp) / "home"
        home.mkdir()
        env = {k: v for k, v in os.environ.items() if not k.startswith("SUBAGENTS_")}
        env.update(HOME=str(home), NO_COLOR="1")
        # as installed: pip writes the .pyc files; without them every run compiles the source
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        base_cmd = [py, "-c", "pass"]
        commands = {
            "python -m subagents validate one.md": [py, "-m", "subagents", "validate", str(one)],
            "python -m subagents validate typical.md": [py, "-m", "subagents", "validate",
                                                        str(typical)],
            "subagents --version": [py, "-m", "subagents", "--version"],
            # what any command built on click that reads YAML pays before its own code
            "python -c 'import click, yaml'": [py, "-c", "import click, yaml"],
        }
        if script:
            commands["subagents validate one.md (script)"] = [script, "validate", str(one)]
        for cmd in (base_cmd, *commands.values()):  # warm the file cache and the .pyc files
            one_run(cmd, project, env)
        base_cpu: list[float] = []
        base_wall: list[float] = []
        figures: dict[str, tuple[list[float], list[float]]] = {k: ([], []) for k in commands}
        for _ in range(runs):
            for label, cmd in commands.items():
                cpu, wall = one_run(base_cmd, project, env)
                base_cpu.append(cpu)
                base_wall.append(wall)
                cpu, wall = one_run(cmd, project, env)
                figures[label][0].append(cpu)
                figures[label][1].append(wall)
        bc, bw = statistics.median(base_cpu), statistics.median(base_wall)
        print(f"Median of {runs} interleaved pairs; ratio to `python -c pass` "
              f"(CPU {bc:.1f} ms, wall {bw:.1f} ms):")
        print(f"  {'command':<40} {'CPU ms':>8} {'ratio':>6}  {'wall ms':>8} {'ratio':>6}")
        for label, (cpu_l, wall_l) in figures.items():
            c, w = statistics.median(cpu_l), statistics.median(wall_l)
            print(f"  {label:<40} {c:8.1f} {c / bc:5.1f}x  {w:8.1f} {w / bw:5.1f}x")
        if args.instructions:
            base_ir = instructions(base_cmd, project, env)
            if base_ir is None:
                print("\n(no valgrind: instruction counts skipped)")
            else:
                print(f"\nInstructions (callgrind, one run each); `python -c pass`: "
                      f"{base_ir / 1e6:.0f} M")
                for label, cmd in commands.items():
                    ir = instructions(cmd, project, env)
                    if ir is not None:
                        print(f"  {label:<40} {ir / 1e6:8.0f} M {ir / base_ir:5.1f}x")
        if args.importtime:
            importtime(commands["python -m subagents validate one.md"], project, env, top=25)


if __name__ == "__main__":
    main()
