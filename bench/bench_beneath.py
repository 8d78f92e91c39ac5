"""Benchmark: what opening beneath a root with no link followed costs the file tools.

Run: ``.venv/bin/python bench/bench_beneath.py [--rounds 2000] [--tree PATH]``

In one process, interleaved in a shuffled order (the machine's load hits every way alike),
the same work three ways: ``plain`` (``os.open`` of the path, links followed: what Read and
Grep did before), ``walk`` (the ``O_NOFOLLOW`` walk, one ``openat`` per component: what
writes did before, and the fallback now) and ``openat2`` (``RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
RESOLVE_NO_MAGICLINKS``, one call).  Timed: one open of a file 5 folders below a root
(the root opened too, as each tool call does), the Read tool's whole call, a write without
``fsync`` (the open and rename cost alone), the Write tool's whole call (with its ``fsync``),
and reading every file of a real tree (default: this checkout's ``src``) as Grep does.
Prints medians and minimums (the least disturbed by a loaded machine) and the ratios of
``openat2`` against ``walk`` and ``plain``.
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from subagents import fs_beneath
from subagents.fs import read_regular, write_nofollow
from subagents.fs_beneath import Root
from subagents.runtime.tools.base import ToolContext
from subagents.runtime.tools.files import ReadTool, WriteTool

WAYS = ("plain", "walk", "openat2")


def use(way: str) -> None:
    """Make the opener use ``way`` (``plain`` leaves it as it is: it is not called)."""
    fs_beneath.PROBE.available = None
    fs_beneath.openat2_available()
    if way == "walk":
        fs_beneath.PROBE.available = False


def timed(fn: Callable[[], object], repeat: int) -> float:
    gc.disable()  # a collection landing in one way's sample is noise, not its cost
    try:
        started = time.perf_counter()
        for _ in range(repeat):
            fn()
        return (time.perf_counter() - started) / repeat
    finally:
        gc.enable()


def compare(label: str, work: dict[str, Callable[[], object]], rounds: int,
            batch: int) -> None:
    samples: dict[str, list[float]] = {w: [] for w in work}
    order = list(work)
    for _ in range(rounds):
        random.shuffle(order)  # no way always runs right after another
        for way in order:
            use(way)
            samples[way].append(timed(work[way], batch))
    med = {w: statistics.median(s) * 1e6 for w, s in samples.items()}
    low = {w: min(s) * 1e6 for w, s in samples.items()}
    parts = [f"{w} {med[w]:.1f} us (min {low[w]:.1f})" for w in work]
    ratios = []
    for base in ("walk", "plain"):
        if base in med:
            ratios.append(f"openat2/{base} {med['openat2'] / med[base]:.2f}x "
                          f"(min {low['openat2'] / low[base]:.2f}x)")
    print(f"{label}: {', '.join(parts)}; {', '.join(ratios)}")


def main(rounds: int, tree: Path) -> None:
    if not fs_beneath.openat2_available():
        raise SystemExit("openat2 is not available here: nothing to compare against the walk")
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp).resolve() / "project"
        deep = project / "src" / "pkg" / "sub" / "mod"
        deep.mkdir(parents=True)
        target = deep / "file.py"
        target.write_text("x = 1\n" * 200, encoding="utf-8")
        rel = str(target.relative_to(project))

        def plain_open() -> None:
            os.close(os.open(target, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC))

        def beneath_open() -> None:
            with Root(project) as root:
                os.close(root.open(rel, os.O_RDONLY | os.O_NONBLOCK))

        compare(f"open a file {len(Path(rel).parts)} deep, root opened each time",
                {"plain": plain_open, "walk": beneath_open, "openat2": beneath_open},
                rounds, 20)

        ctx = ToolContext(cwd=project)
        read = ReadTool()
        read_input = {"file_path": str(target)}

        def read_call() -> None:
            out = read.call(read_input, ctx)
            assert not out.is_error, out.content

        compare("Read tool call (200 lines)", {"walk": read_call, "openat2": read_call},
                max(rounds // 4, 10), 10)

        out_file = deep / "out.py"

        def write_no_fsync() -> None:
            write_nofollow(out_file, "y = 2\n", fsync=False, root=project)

        compare("write without fsync (open folder, temp file, rename)",
                {"walk": write_no_fsync, "openat2": write_no_fsync},
                max(rounds // 4, 10), 10)

        write = WriteTool()
        write_input = {"file_path": str(out_file), "content": "z = 3\n"}

        def write_call() -> None:
            out = write.call(write_input, ctx)
            assert not out.is_error, out.content

        compare("Write tool call (with fsync)", {"walk": write_call, "openat2": write_call},
                max(rounds // 40, 5), 5)

    files = [p.resolve() for p in sorted(tree.rglob("*.py"))][:2000]
    top = tree.resolve()

    def grep_plain() -> None:
        for p in files:
            read_regular(p, 5 << 20)

    def grep_beneath() -> None:
        with Root(top) as root:
            for p in files:
                read_regular(p, 5 << 20, beneath=root)

    compare(f"read {len(files)} files of {tree} as Grep does",
            {"plain": grep_plain, "walk": grep_beneath, "openat2": grep_beneath},
            max(rounds // 40, 10), 1)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2000)
    parser.add_argument("--tree", type=Path,
                        default=Path(__file__).resolve().parents[1] / "src")
    args = parser.parse_args()
    main(args.rounds, args.tree)
