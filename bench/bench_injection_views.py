"""Benchmark: the injection detector's hidden views on distinct prompts.

Run: ``.venv/bin/python bench/bench_injection_views.py [--tree PATH] [--rounds N]``

``injection_views.views`` of every distinct prompt of a tree (the body after the front
matter; the corpus by default, a bench tree such as ``bench_cache.replicate``'s with
``--tree``), in interleaved rounds (CPU time, median) against a naive parse of the same files
(``python-frontmatter``) as the same-run baseline, in the views' two tiers:

* ``marked``: the RE2 set pass looks for the base64 mark too (what a process does once it
  has read :data:`~subagents.lint.rules.injection_views._BASE64_AFTER` characters): only the
  runs that can decode to text are found;
* ``unmarked``: every base64 run is found and tried (a process's first texts).

``--only TIER --once N`` takes the views of every prompt N times in one tier after a warm-up
pass (for ``valgrind --tool=callgrind``, ``PYTHONHASHSEED=0``: runs with N=1 and N=3, half the
difference is one pass); ``--once 0`` with ``--cold`` takes no warm-up pass (N=1 against N=0:
the first pass, compiles and the automaton's first states included).
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from bench_injection_tiers import prompts  # (run as a script: bench/ is on the path)

from subagents.lint.rules import injection_views

HERE = Path(__file__).resolve().parent
CORPUS = next((up / "shared" / "corpus" for up in HERE.parents[1:3]
               if (up / "shared" / "corpus").is_dir()), HERE.parent.parent / "shared" / "corpus")
TIERS = {"marked": -1, "unmarked": 1 << 62}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tree", type=Path, default=CORPUS)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--only", choices=tuple(TIERS))
    ap.add_argument("--once", type=int, default=-1, metavar="N",
                    help="with --only: take every prompt's views N times, nothing else")
    ap.add_argument("--cold", action="store_true", help="with --once: no warm-up pass")
    args = ap.parse_args()
    files, texts = prompts(args.tree)

    def views() -> None:
        for text in texts:
            for _view in injection_views.views(text):
                pass

    if args.only and args.once >= 0:
        injection_views._BASE64_AFTER = TIERS[args.only]
        for _ in range(args.once + (0 if args.cold else 1)):
            views()
        return

    import frontmatter  # type: ignore[import-untyped]

    def naive() -> None:
        for path in files:
            # a file the naive parser refuses still cost its time
            with contextlib.suppress(Exception):
                frontmatter.load(str(path))

    def tier(name: str) -> Callable[[], None]:
        def run() -> None:
            injection_views._BASE64_AFTER = TIERS[name]
            views()
        return run

    runs: dict[str, Callable[[], None]] = {"naive": naive}
    runs.update({name: tier(name) for name in ([args.only] if args.only else TIERS)})
    for run in runs.values():  # warm up: compile what each tier compiles
        run()
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(args.rounds):
        for name, run in runs.items():
            start = time.process_time()
            run()
            times[name].append(time.process_time() - start)
    base = statistics.median(times["naive"])
    print(f"{len(files)} files, {len(texts)} distinct prompts, "
          f"{sum(map(len, texts)) / max(len(texts), 1):,.0f} characters on average")
    print(f"naive parse: {base * 1e6 / len(files):.1f} us a file")
    for name in runs:
        if name != "naive":
            cpu = statistics.median(times[name])
            print(f"{name:>9}: {cpu * 1e6 / len(texts):.1f} us a prompt "
                  f"({cpu / base:.2f}x the naive parse of the tree)")


if __name__ == "__main__":
    main()
