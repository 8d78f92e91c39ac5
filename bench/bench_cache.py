"""Benchmark: ``validate`` cold and warm (the result cache) vs a naive python-frontmatter parse.

Run: ``.venv/bin/python bench/bench_cache.py [--corpus PATH] [--sizes 254,2000] [--rounds 5]``

For each size, the corpus's Claude agent files are copied round-robin into a temporary folder
under distinct names (100 per ``agents`` folder, so the duplicate-name and similar-description
rules run as in a large project).  Each round then measures, interleaved so that the load of
a shared machine falls on all three alike, the CPU time of this process (user + system) for:

* **naive**: ``frontmatter.load`` of every file (PyYAML's C loader; parse only, no checks);
* **cold**: ``validate_paths(cache=True)`` with an empty cache folder (validates and writes);
* **warm**: the same again on the unchanged files (reads the cache, hashes every file,
  recomputes the cross-file rules).

It prints the median of each and the ratios cold/naive (target <= 3) and warm/naive (target
<= 1.2 on 2,000 files), and checks that cold and warm give the same report.  The package
fingerprint (one ``stat`` per file of the installed package, once per process) is computed
before timing; ``--fingerprint`` prints its cost on its own.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_CORPUS = Path(os.environ.get("SUBAGENTS_CORPUS") or HERE.parents[1] / "shared" / "corpus")


def claude_files(corpus: Path) -> list[Path]:
    files = [
        *sorted((corpus / "0xfurai__claude-code-subagents").rglob("*.md")),
        *sorted((corpus / "VoltAgent__awesome-claude-code-subagents").rglob("*.md")),
        *sorted((corpus / "catlog22__Claude-Code-Workflow" / "files" / ".claude").rglob("*.md")),
    ]
    return [f for f in files if f.name.lower() != "readme.md"]


def replicate(files: list[Path], n: int, dest: Path) -> list[Path]:
    out: list[Path] = []
    for i in range(n):
        src = files[i % len(files)]
        folder = dest / f"p{i // 100:03d}" / ".claude" / "agents"
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / f"{i:05d}-{src.name}"
        shutil.copyfile(src, target)
        out.append(target)
    return out


def cpu() -> float:
    return time.process_time()


def naive(paths: list[Path]) -> None:
    import frontmatter

    for p in paths:
        # a file the naive parser refuses still cost its time
        with contextlib.suppress(Exception):
            frontmatter.load(str(p))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--sizes", default="254,2000")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--fingerprint", action="store_true")
    args = ap.parse_args()
    files = claude_files(args.corpus)
    if not files:
        raise SystemExit(f"no agent files under {args.corpus} (give --corpus)")
    with tempfile.TemporaryDirectory(prefix="bench-cache-") as tmp:
        os.environ["SUBAGENTS_CACHE_DIR"] = os.path.join(tmp, "cache")
        from subagents.lint.cache import package_fingerprint
        from subagents.lint.validate import validate_paths

        t0 = cpu()
        package_fingerprint()
        if args.fingerprint:
            print(f"package fingerprint (once a process): {(cpu() - t0) * 1000:.1f} ms CPU")
        print(f"{len(files)} Claude agent files in the corpus; {args.rounds} interleaved rounds, "
              "median CPU seconds of this process")
        print(f"{'files':>6} {'naive':>8} {'cold':>8} {'warm':>8} {'cold/naive':>11} "
              f"{'warm/naive':>11}")
        for size in (int(s) for s in args.sizes.split(",")):
            root = Path(tmp) / f"n{size}"
            paths = replicate(files, size, root)
            folders = sorted({p.parent for p in paths})
            validate_paths(folders, cache=False)  # imports and first-use caches, untimed
            naive(paths)
            times: dict[str, list[float]] = {"naive": [], "cold": [], "warm": []}
            for _ in range(args.rounds):
                shutil.rmtree(os.environ["SUBAGENTS_CACHE_DIR"], ignore_errors=True)
                t = cpu()
                naive(paths)
                times["naive"].append(cpu() - t)
                t = cpu()
                cold = validate_paths(folders, cache=True)
                times["cold"].append(cpu() - t)
                t = cpu()
                warm = validate_paths(folders, cache=True)
                times["warm"].append(cpu() - t)
                if cold.to_dict() != warm.to_dict():
                    raise SystemExit("cold and warm reports differ")
            med = {k: statistics.median(v) for k, v in times.items()}
            print(f"{size:>6} {med['naive']:>8.3f} {med['cold']:>8.3f} {med['warm']:>8.3f} "
                  f"{med['cold'] / med['naive']:>10.2f}x {med['warm'] / med['naive']:>10.2f}x")


if __name__ == "__main__":
    main()
