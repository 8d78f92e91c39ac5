"""Benchmark: the injection detector on distinct prompts, by prefilter tier.

Run: ``.venv/bin/python bench/bench_injection_tiers.py [--corpus PATH] [--rounds N]``

Every distinct prompt of the corpus (the body after the front matter) is judged with the
verdict memo off (``injection.REMEMBER = False``: what a tree of different agents costs), in
interleaved rounds (CPU time, median) against a naive parse of the same files
(``python-frontmatter``) as the same-run baseline, with the prefilter's tiers:

* ``scan``: Hyperscan says which parts may match (:mod:`subagents.lint.rules.injection_scan`;
  the database is compiled once, before the rounds);
* ``re2``: the RE2 literal sets (Hyperscan off);
* ``plain``: no prefilter at all (``PREFILTER = False``).

``--only TIER --once N`` judges every prompt N times with one tier after a warm-up pass (for
``valgrind --tool=callgrind``, ``PYTHONHASHSEED=0``: runs with N=1 and N=3, half the
difference is one pass).
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from subagents.lint.rules import injection, injection_gate, injection_scan

HERE = Path(__file__).resolve().parent
CORPUS = next((up / "shared" / "corpus" for up in HERE.parents[1:3]
               if (up / "shared" / "corpus").is_dir()), HERE.parent.parent / "shared" / "corpus")


def prompts(root: Path) -> tuple[list[Path], list[str]]:
    """The corpus's agent files and their distinct bodies."""
    files = sorted(p for p in root.rglob("*.md") if p.is_file())
    seen: dict[str, None] = {}
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        if text.startswith("---"):
            end = text.find("\n---", 3)
            if end > 0:
                text = text[end + 4:]
        seen.setdefault(text, None)
    return files, list(seen)


def tier(name: str, scan: injection_scan.Scanner | None) -> None:
    injection.PREFILTER = name != "plain"
    injection_scan.set_scanner(scan if name == "scan" else None, failed=name != "scan")
    injection_gate._READ[0] = 1 << 40  # past every threshold: the tier answers from the start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, default=CORPUS)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--only", choices=("scan", "re2", "plain"))
    ap.add_argument("--once", type=int, default=0, metavar="N",
                    help="with --only: judge every prompt N times after the warm-up, nothing "
                         "else (callgrind: the difference of two N is the cost of the passes)")
    args = ap.parse_args()
    injection.REMEMBER = False
    files, texts = prompts(args.corpus)
    scan = injection_scan.build()
    names = [args.only] if args.only else ["scan", "re2", "plain"]
    if scan is None and "scan" in names:
        print("hyperscan is not installed: the scan tier is left out")
        names.remove("scan")

    def judge() -> None:
        for text in texts:
            injection.assess_injection(text)

    for name in names:  # warm up: compile what each tier compiles
        tier(name, scan)
        judge()
    if args.once:
        tier(names[0], scan)
        for _ in range(args.once):
            judge()
        return
    import frontmatter  # type: ignore[import-untyped]

    def naive() -> None:
        for path in files:
            # (a file the naive parse cannot read costs what it costs)
            with contextlib.suppress(Exception):
                frontmatter.loads(path.read_text(encoding="utf-8", errors="replace"))

    runs: list[tuple[str, Callable[[], None]]] = [("naive", naive)]
    for name in names:
        runs.append((name, lambda name=name: (tier(name, scan), judge())[-1]))  # type: ignore[misc]
    cpu: dict[str, list[float]] = {name: [] for name, _ in runs}
    for _ in range(args.rounds):
        for name, fn in runs:
            started = time.process_time()
            fn()
            cpu[name].append(time.process_time() - started)
    median = {k: statistics.median(v) for k, v in cpu.items()}
    print(f"{len(texts)} distinct prompts ({len(files)} files), {args.rounds} interleaved "
          f"rounds, CPU median")
    for name in names:
        print(f"{name:>6}: {median[name] / len(texts) * 1e6:7.0f} us a prompt, "
              f"{median[name] / median['naive']:5.2f}x the naive parse of the files, "
              f"{median[name] / median[names[-1]]:5.2f}x {names[-1]}")


if __name__ == "__main__":
    main()
