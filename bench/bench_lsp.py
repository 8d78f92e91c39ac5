"""Language server: the time from a change in the editor to its diagnostics.

Run: ``.venv/bin/python bench/bench_lsp.py [--changes 40]``.  Prints figures and ratios
against baselines measured in the same run; it asserts nothing.

The real server (``subagents lsp``) runs in a subprocess and a JSON-RPC client talks to it over
stdio (tests/lsp_helpers.py).  Measured:

1. *Start*: spawn to the ``initialize`` answer, against ``python -c pass`` (spawn to exit).
2. *Change to diagnostics*: ``didChange`` sent to ``publishDiagnostics`` received for that
   version, median and 90th percentile over ``--changes`` edits of a small agent file with two
   findings, with ``--debounce 0`` (the server's own work) and with the default 0.2 s (what a
   typist sees after the last key).  The baseline is ``validate_paths`` on the same file in
   this process (the check alone, without the protocol).
3. *A 1 MB agent file* (the largest Claude Code reads): the same, debounce 0.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from lsp_helpers import LspClient
from subagents.lint.validate import validate_paths

AGENT = ("---\nname: rev\ndescription: Reviews code: use it after edits\n"
         "tools: Read, Reed\n---\nYou review code.\n")


def spawn_ms(cmd: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def change_latency(project: Path, home: Path, debounce: str, text: str,
                   changes: int) -> tuple[float, float, float]:
    """(start ms, median ms, p90 ms) of change -> diagnostics."""
    start = time.perf_counter()
    client = LspClient(project, home, "--debounce", debounce)
    client.initialize(project)
    started = (time.perf_counter() - start) * 1000
    uri = client.open(project / ".claude/agents/rev.md", text)
    client.diagnostics(uri, version=1)
    times = []
    for v in range(2, changes + 2):
        edited = text.replace("Reed", f"Reed{v}")
        t0 = time.perf_counter()
        client.change(uri, v, edited)
        client.diagnostics(uri, version=v)
        times.append((time.perf_counter() - t0) * 1000)
    client.close()
    times.sort()
    return started, statistics.median(times), times[int(len(times) * 0.9) - 1]


def in_process_ms(path: Path, runs: int) -> float:
    validate_paths([str(path)])  # imports
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        validate_paths([str(path)])
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--changes", type=int, default=40, help="edits per measurement")
    args = parser.parse_args()
    changes = max(5, args.changes)
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "proj"
        (project / ".git").mkdir(parents=True)
        (project / ".claude/agents").mkdir(parents=True)
        home = Path(tmp) / "home"
        home.mkdir()
        small = project / ".claude/agents/rev.md"
        small.write_text(AGENT)
        big_text = AGENT + ("Review every line of the change. " * 31_000)[: (1 << 20) - len(AGENT)]
        big = project / ".claude/agents/big.md"
        big.write_text(big_text)
        os.chdir(project)

        base_spawn = spawn_ms([sys.executable, "-c", "pass"], 10)
        check_small = in_process_ms(small, changes)
        check_big = in_process_ms(big, max(5, changes // 4))
        started, med0, p90_0 = change_latency(project, home, "0", AGENT, changes)
        _s, med_d, p90_d = change_latency(project, home, "0.2", AGENT, max(5, changes // 4))
        _s, med_b, p90_b = change_latency(project, home, "0", big_text, max(5, changes // 4))

        print(f"Start: spawn to the initialize answer {started:.0f} ms; `python -c pass` "
              f"{base_spawn:.0f} ms ({started / base_spawn:.1f}x)")
        print("\nChange to diagnostics (median / 90th percentile; ratio of the median to "
              "validate_paths on the same file in this process):")
        rows = [
            ("small file, debounce 0", med0, p90_0, check_small),
            ("small file, debounce 0.2 s", med_d, p90_d, check_small),
            ("1 MB file, debounce 0", med_b, p90_b, check_big),
        ]
        for label, med, p90, base in rows:
            print(f"  {label:<28} {med:7.1f} ms / {p90:7.1f} ms   in-process check "
                  f"{base:6.1f} ms   {med / base:5.1f}x")


if __name__ == "__main__":
    main()
