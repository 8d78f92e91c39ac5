"""Start-up benchmark: where the time of a one-shot `subagents run` goes.

Run: ``.venv/bin/python bench/bench_startup.py [--runs 10]``.  Prints figures and ratios
against a baseline measured in the same run (``python -c pass``); it asserts nothing.

1. *Wall time* (median of ``--runs`` fresh processes) of ``python -c pass`` (the baseline: an
   interpreter that does nothing), ``subagents --version``, ``subagents run --help``,
   ``subagents validate one.md``, and ``subagents run --agent reader PROMPT`` against the
   loopback server (:class:`subagents.testing.server.FakeLLMServer`, in this process) through
   the real ``anthropic`` and ``openai`` SDKs -- one model reply, no tool call, no transcript.
2. *Where a run's time goes*: the same run under ``python -X importtime``; the import time is
   split by top-level package (the *self* time of every module, so nothing is counted twice),
   and "work" is what is left of the wall time after the interpreter (the baseline) and the
   imports: reading the agents, building the request, the HTTP round trip, printing.
   (``-X importtime`` itself adds a little to the imports; the split is a guide, the wall
   times in part 1 are the figures.)
3. *The work alone*: the same command run in this process with every import already done
   (``subagents.cli.main.main``, ``--runs`` times): what a run costs once the interpreter
   and the imports are paid for.

Everything runs offline on 127.0.0.1; a temporary project is created and removed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from subagents.testing import text
from subagents.testing.server import FakeLLMServer

AGENT = """---
name: reader
description: Reads files and answers questions about them. Use for questions about the code.
tools: Read, Grep, Glob
---
You read files and answer briefly.
"""


def wall(cmd: list[str], *, cwd: Path, env: dict[str, str], runs: int,
         before: object = None) -> float:
    """Median wall time (ms) of ``cmd`` in fresh processes; ``before()`` runs before each."""
    times = []
    for _ in range(runs):
        if callable(before):
            before()
        start = time.perf_counter()
        proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, check=False)
        times.append((time.perf_counter() - start) * 1000)
        if proc.returncode not in (0, 1):
            raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr}")
    return statistics.median(times)


def import_split(cmd: list[str], *, cwd: Path, env: dict[str, str]) -> dict[str, float]:
    """Import self-time (ms) by top-level package, from ``python -X importtime``."""
    proc = subprocess.run([sys.executable, "-X", "importtime", *cmd[1:]], cwd=cwd, env=env,
                          capture_output=True, text=True, check=False)
    by_package: dict[str, float] = defaultdict(float)
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        self_us, _cumulative, name = line.removeprefix("import time:").split("|", 2)
        root = name.strip().split(".")[0]
        by_package[root] += int(self_us.strip()) / 1000
    return dict(by_package)


def in_process(args: list[str], *, cwd: Path, env: dict[str, str], runs: int,
               before: object) -> float:
    """Median ms of ``subagents ARGS`` called in this process once everything is imported."""
    import contextlib
    import io

    from subagents.cli.main import main as cli_main

    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    os.environ.clear()
    os.environ.update(env)
    os.chdir(cwd)
    times = []
    try:
        for i in range(runs + 1):  # the first run imports what is left: not counted
            if callable(before):
                before()
            sink = io.StringIO()
            start = time.perf_counter()
            with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink), \
                    contextlib.suppress(SystemExit):
                cli_main(args)
            if i:
                times.append((time.perf_counter() - start) * 1000)
    finally:
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
    return statistics.median(times)


STDLIB = set(sys.stdlib_module_names) | {"_frozen_importlib", "_frozen_importlib_external"}
THIRD_PARTY_NAMES = {
    "anthropic": "anthropic (SDK)", "openai": "openai (SDK)", "httpx": "httpx", "httpx2": "httpx",
    "httpcore": "httpx", "httpcore2": "httpx", "h11": "httpx", "anyio": "anyio",
    "pydantic": "pydantic", "pydantic_core": "pydantic", "typing_extensions": "pydantic",
    "annotated_types": "pydantic", "typing_inspection": "pydantic",
    "subagents": "subagents", "click": "click", "yaml": "yaml", "_yaml": "yaml",
    "jiter": "openai (SDK)", "distro": "openai (SDK)", "sniffio": "anyio", "idna": "httpx",
    "certifi": "httpx", "truststore": "httpx", "ssl": "ssl", "_ssl": "ssl",
}


def group(split: dict[str, float]) -> dict[str, float]:
    out: dict[str, float] = defaultdict(float)
    for root, ms in split.items():
        if root in THIRD_PARTY_NAMES:
            out[THIRD_PARTY_NAMES[root]] += ms
        elif root in STDLIB or root.startswith("_"):
            out["stdlib"] += ms
        else:
            out["other third-party"] += ms
    return dict(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=10, help="processes per measurement")
    args = parser.parse_args()
    runs = max(1, args.runs)

    with tempfile.TemporaryDirectory() as tmp, FakeLLMServer() as server:
        project = Path(tmp) / "proj"
        agents = project / ".claude" / "agents"
        agents.mkdir(parents=True)
        (project / ".git").mkdir()
        (agents / "reader.md").write_text(AGENT)
        home = Path(tmp) / "home"
        home.mkdir()
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("ANTHROPIC_", "OPENAI_", "SUBAGENTS_"))}
        env.update(HOME=str(home), NO_COLOR="1",
                   ANTHROPIC_BASE_URL=server.anthropic_base_url, ANTHROPIC_API_KEY="sk-bench",
                   OPENAI_BASE_URL=server.openai_base_url, OPENAI_API_KEY="sk-bench")
        py = sys.executable
        sub = [py, "-m", "subagents"]
        run_args = ["run", "--agent", "reader", "--no-transcript", "--model", "bench-model",
                    "What does main.py do?"]

        def reply() -> None:
            server.add(text("It prints hello."))

        figures = {
            "python -c pass (baseline)": wall([py, "-c", "pass"], cwd=project, env=env,
                                              runs=runs),
            "subagents --version": wall([*sub, "--version"], cwd=project, env=env, runs=runs),
            "subagents run --help": wall([*sub, "run", "--help"], cwd=project, env=env,
                                         runs=runs),
            "subagents validate one.md": wall([*sub, "validate", str(agents / "reader.md")],
                                              cwd=project, env=env, runs=runs),
            "subagents run (anthropic SDK)": wall([*sub, *run_args], cwd=project, env=env,
                                                  runs=runs, before=reply),
            "subagents run (openai SDK)": wall([*sub, *run_args[:1], "--provider", "openai",
                                                *run_args[1:]], cwd=project, env=env,
                                               runs=runs, before=reply),
        }
        base = figures["python -c pass (baseline)"]
        print(f"Wall time, median of {runs} fresh processes (ratio to `python -c pass`):")
        for label, ms in figures.items():
            print(f"  {label:<32} {ms:8.1f} ms   {ms / base:5.1f}x")

        for provider in ("anthropic", "openai"):
            reply()
            cmd = [*sub, *run_args[:1], "--provider", provider, *run_args[1:]]
            split = group(import_split(cmd, cwd=project, env=env))
            total_imports = sum(split.values())
            run_ms = figures[f"subagents run ({provider} SDK)"]
            work = max(0.0, run_ms - base - total_imports)
            print(f"\nWhere `subagents run --provider {provider}` spends its {run_ms:.0f} ms "
                  "(ratios to the baseline):")
            print(f"  {'interpreter start (baseline)':<32} {base:8.1f} ms   {1.0:5.1f}x")
            print(f"  {'imports, all':<32} {total_imports:8.1f} ms   "
                  f"{total_imports / base:5.1f}x")
            for name, ms in sorted(split.items(), key=lambda kv: -kv[1]):
                if ms >= 1.0:
                    print(f"    {name:<30} {ms:8.1f} ms   {ms / base:5.1f}x")
            print(f"  {'work (read, request, reply)':<32} {work:8.1f} ms   {work / base:5.1f}x")
        server.requests.clear()

        print("\nThe work alone (in this process, imports done; median of "
              f"{runs} runs):")
        for provider in ("anthropic", "openai"):
            ms = in_process([*run_args[:1], "--provider", provider, *run_args[1:]],
                            cwd=project, env=env, runs=runs, before=reply)
            print(f"  subagents run --provider {provider:<10} {ms:8.1f} ms   "
                  f"{ms / base:5.1f}x")


if __name__ == "__main__":
    main()
