"""Benchmark: load + validate real agent files vs the naive python-frontmatter + PyYAML parse.

Run: ``.venv/bin/python bench/bench_load.py [--corpus PATH] [--sizes 1000,10000]``

What it prints (all measured in this run, on this machine):

* per-file median (ms, CPU time of this process) of the full path - read, frontmatter
  split, positioned YAML tree, AgentDefinition, every rule - and of the naive baseline
  (``frontmatter.load``: PyYAML's CSafeLoader, parse only, no positions, no validation) over
  the same files; their ratio (target <= 1.2) and a split of our time into reading vs rules;
* ``validate_paths`` over folders of 1,000 and 10,000 files (the corpus's Claude files copied
  round-robin into a temp folder, 100 per agents folder so scope rules - duplicates and
  the pairwise similar-description check - run as in a (large) project);
* peak memory per loaded agent (tracemalloc, definitions kept alive) against the target of
  64 KiB plus the file's size;
* ``subagents validate one.md`` wall time vs ``python3 -c pass`` (target <= 10x).

Corpus files are copied to a temporary folder only for the run; nothing is written in the repo.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

from subagents.harnesses.loader import read_agent_file
from subagents.lint.config import Config
from subagents.lint.judge import _Filter, _judge
from subagents.lint.rules.base import FileContext
from subagents.lint.rules.catalog import Profile
from subagents.lint.validate import validate_paths

HERE = Path(__file__).resolve().parent
DEFAULT_CORPUS = HERE.parents[1] / "shared" / "corpus"


def claude_files(corpus: Path) -> list[Path]:
    files = [
        *sorted((corpus / "0xfurai__claude-code-subagents").rglob("*.md")),
        *sorted((corpus / "VoltAgent__awesome-claude-code-subagents").rglob("*.md")),
        *sorted((corpus / "catlog22__Claude-Code-Workflow" / "files" / ".claude").rglob("*.md")),
    ]
    return [f for f in files if f.name.lower() != "readme.md"]


_FILTER = _Filter(Profile.DEFAULT, (), ())


def full_path(p: Path, cfg: Config) -> int:
    """What validate does for one file (without walking and scope rules): the one reading,
    Claude Code's answer for it, and the rules of the default profile (``_judge``)."""
    result = read_agent_file(p, display_path=str(p))
    text = result.text if result.harness_agents else (
        result.document.text if result.document is not None else None)
    fctx = FileContext(path=str(p), file_path=p, dialect=result.dialect, config=cfg, text=text)
    diags, _ = _judge(result, fctx, cfg, _FILTER, {})
    return len(diags)


def read_only(p: Path, cfg: Config) -> int:
    return len(read_agent_file(p, display_path=str(p)).diagnostics)


def baseline(p: Path, cfg: Config) -> int:
    import frontmatter

    try:
        post = frontmatter.load(str(p))
    except Exception:  # broken YAML: the naive reader just fails
        return 0
    return len(post.metadata)


def per_file_median(fn: Callable[[Path, Config], int], files: list[Path], rounds: int) -> float:
    cfg = Config()
    samples: list[float] = []
    # CPU time of this process: the figure that does not move when other jobs share the CPU
    clock = time.process_time
    for _ in range(rounds):
        for p in files:
            t0 = clock()
            fn(p, cfg)
            samples.append(clock() - t0)
    return statistics.median(samples) * 1000


def make_tree(files: list[Path], n: int, root: Path) -> Path:
    base = root / f"n{n}"
    for i in range(n):
        src = files[i % len(files)]
        folder = base / f"project{i // 100:03}" / ".claude" / "agents"
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, folder / f"{i:05}-{src.name}")
    return base


def bench_tree(files: list[Path], sizes: list[int]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            base = make_tree(files, n, Path(tmp))
            t0 = time.perf_counter()
            report = validate_paths([base], config=Config())
            dt = time.perf_counter() - t0
            t0 = time.perf_counter()
            validate_paths([base], config=Config(), ignore=["SA602"])
            dt_nosim = time.perf_counter() - t0
            t1 = time.perf_counter()
            for p in sorted(base.rglob("*.md")):
                baseline(p, Config())
            db = time.perf_counter() - t1
            print(f"validate_paths {n:>6} files: {dt * 1000 / n:.3f} ms/file "
                  f"(naive parse {db * 1000 / n:.3f} ms/file, ratio {dt / db:.2f}); "
                  f"{report.errors} errors, {report.warnings} warnings; without the pairwise "
                  f"SA602 check {dt_nosim * 1000 / n:.3f} ms/file (ratio {dt_nosim / db:.2f})")


def bench_memory(files: list[Path]) -> None:
    sizes = [p.stat().st_size for p in files]
    tracemalloc.start()
    before, _ = tracemalloc.get_traced_memory()
    kept = [read_agent_file(p).definitions for p in files]
    _, peak = tracemalloc.get_traced_memory()
    current, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    n = len(kept)
    avg_size = sum(sizes) / n
    print(f"memory: peak {(peak - before) / n / 1024:.1f} KiB per loaded agent while loading, "
          f"{(current - before) / n / 1024:.1f} KiB retained; mean file {avg_size / 1024:.1f} "
          f"KiB; target <= 64 KiB + file size = {64 + avg_size / 1024:.1f} KiB")


def bench_cli(one: Path, rounds: int = 9) -> None:
    # An installed package has .pyc files; this environment may set PYTHONDONTWRITEBYTECODE,
    # which would make every run recompile every module.  Allow bytecode and warm it once.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

    def measure(cmd: list[str]) -> tuple[float, float]:
        subprocess.run(cmd, capture_output=True, check=False, env=env)
        walls, cpus = [], []
        for _ in range(rounds):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            subprocess.run(cmd, capture_output=True, check=False, env=env)
            walls.append(time.perf_counter() - t0)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
        return statistics.median(walls), statistics.median(cpus)

    exe = shutil.which("subagents", path=str(Path(sys.executable).parent)) or "subagents"
    base_wall, base_cpu = measure([sys.executable, "-c", "pass"])
    wall, cpu = measure([exe, "validate", str(one)])
    print(f"`subagents validate one.md`: wall {wall * 1000:.0f} ms vs `python3 -c pass` "
          f"{base_wall * 1000:.0f} ms = {wall / base_wall:.1f}x; CPU {cpu * 1000:.0f} ms vs "
          f"{base_cpu * 1000:.0f} ms = {cpu / max(base_cpu, 1e-9):.1f}x (target <= 10x)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--sizes", default="1000,10000")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    files = claude_files(args.corpus)
    if not files:
        sys.exit(f"no corpus files under {args.corpus}")
    print(f"{len(files)} Claude-dialect corpus files, {args.rounds} rounds each")
    for p in files[:20]:  # warm caches and imports
        full_path(p, Config())
        baseline(p, Config())
    ours = per_file_median(full_path, files, args.rounds)
    reader = per_file_median(read_only, files, args.rounds)
    naive = per_file_median(baseline, files, args.rounds)
    print(f"median per file: full validation {ours:.3f} ms (reader {reader:.3f} ms + rules "
          f"{ours - reader:.3f} ms); naive python-frontmatter+PyYAML {naive:.3f} ms; "
          f"ratio {ours / naive:.2f} (target <= 1.2; target median <= 0.3 ms)")
    bench_tree(files, [int(s) for s in args.sizes.split(",") if s])
    bench_memory(files)
    bench_cli(files[0])


if __name__ == "__main__":
    main()
