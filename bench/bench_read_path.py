"""The read path of a cold ``validate`` against a naive python-frontmatter parse.

Run: ``.venv/bin/python bench/bench_read_path.py [--files 2000] [--rounds 5] [--instructions]``.
Prints figures and ratios against the baseline measured in the same run; it asserts nothing.

The read path is what ``validate`` does to read one file before any rule judges it: the
bytes, the decoding, the frontmatter split, the YAML tree with positions, the definition,
Claude Code's reading of the same file, a plugin's terms and the strict reader's findings as
Claude Code's reading leaves them (``read_agent_file`` + ``as_claude_code_loads`` +
``claude_code_reading``, inside one run's pinned profiles and plugin look-ups).  The
baseline is ``frontmatter.load`` of the same files (python-frontmatter on PyYAML's C loader:
read, split, parse; no checks).  The files are the corpus's Claude agent files copied
round-robin into a temporary folder, as ``bench_cache.py`` does.

The two passes run interleaved, each after a warm-up pass, and the median CPU ratio is
printed.  With ``--instructions`` (needs ``valgrind``) each pass is also counted once in a
child process under ``callgrind``, collecting only inside the measured pass (after a warm-up
on 50 files): on a busy shared machine CPU ratios drift by 10-20% between runs, instruction
counts by well under 1%.  ``docs/performance.md`` records what each change to this path
saved.
"""

from __future__ import annotations

import argparse
import functools
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench_cache  # noqa: E402  (the corpus and the tree, shared with the cache bench)


def read_path(paths: list[Path]) -> Callable[[], None]:
    from subagents.claude_code.profile import pinned
    from subagents.harnesses.loader import read_agent_file
    from subagents.harnesses.plugins import plugins_pinned
    from subagents.lint.rules.claude_code import as_claude_code_loads, claude_code_reading

    def run() -> None:
        with pinned(), plugins_pinned():
            for p in paths:
                result = read_agent_file(p, display_path=str(p))
                text = result.document.text if result.document is not None else None
                result = as_claude_code_loads(result, p)
                claude_code_reading(result, str(p), p, text)

    return run


def naive(paths: list[Path]) -> Callable[[], None]:
    return functools.partial(bench_cache.naive, paths)


def _child(which: str, root: Path) -> None:
    """Under callgrind: a warm-up on 50 files, then one pass inside ``functools.reduce`` (the
    only function collected)."""
    paths = sorted(root.rglob("*.md"))
    make = read_path if which == "read" else naive
    make(paths[:50])()
    functools.reduce(lambda _a, _b: make(paths)(), [0, 1])


def _instructions(which: str, root: Path) -> int | None:
    if shutil.which("valgrind") is None:
        return None
    out = subprocess.run(
        ["valgrind", "--tool=callgrind", "--toggle-collect=functools_reduce",
         "--callgrind-out-file=/dev/null", sys.executable, __file__, "--child", which,
         "--root", str(root)],
        capture_output=True, text=True, check=False, env={**os.environ, "PYTHONHASHSEED": "0"})
    found = re.search(r"Collected : (\d+)", out.stderr)
    return int(found.group(1)) if found else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=None)
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--instructions", action="store_true")
    parser.add_argument("--child", choices=("read", "naive"), help=argparse.SUPPRESS)
    parser.add_argument("--root", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args.child, args.root)
        return
    corpus = args.corpus or bench_cache._default_corpus()
    files = bench_cache.claude_files(corpus)
    if not files:
        sys.exit(f"no Claude agent files in {corpus} (give --corpus or SUBAGENTS_CORPUS)")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        paths = bench_cache.replicate(files, args.files, root)
        ours, base = read_path(paths), naive(paths)
        ours(), base()  # warm-up: lazy imports, compiled patterns
        ratios = []
        for _ in range(args.rounds):
            c = time.process_time()
            base()
            n = time.process_time() - c
            c = time.process_time()
            ours()
            o = time.process_time() - c
            ratios.append(o / n)
            print(f"naive {n * 1000:7.1f} ms CPU   read path {o * 1000:7.1f} ms CPU   "
                  f"{o / n:5.2f}x")
        print(f"{args.files} files, median of {args.rounds}: read path "
              f"{statistics.median(ratios):.2f}x the naive parse (CPU)")
        if args.instructions:
            n_ins, o_ins = _instructions("naive", root), _instructions("read", root)
            if n_ins is None or o_ins is None:
                print("instructions: valgrind not found or failed")
            else:
                print(f"instructions: naive {n_ins / 1e6:,.0f} M, read path "
                      f"{o_ins / 1e6:,.0f} M: {o_ins / n_ins:.2f}x")


if __name__ == "__main__":
    main()
