"""Benchmark: ``validate`` cold, warm and in two processes vs a naive parse (and agnix).

Run: ``.venv/bin/python bench/bench_cache.py [--corpus PATH] [--sizes 1,254,2000,10000]
[--rounds 3] [--agnix PATH] [--agnix-max 2000]``

For each size, the corpus's Claude agent files are copied round-robin into a temporary folder
under distinct names (100 per ``agents`` folder, so the duplicate-name and similar-description
rules run as in a large project).  The corpus holds a few hundred of them, so a large tree
repeats each text many times; ``--distinct`` makes every copy unique (a closing sentence with
its number) so that nothing done for one text can be reused for its copies.  Each round then
measures, interleaved so that the load of a shared machine falls on all alike, the CPU time
(user + system, of this process *and* of the children it waited for) and the wall time of:

* **naive**: ``frontmatter.load`` of every file (python-frontmatter with PyYAML's C loader;
  parse only, no checks), in this process: the baseline every ratio is against;
* **cold**: ``validate_paths(cache=True, jobs=1)`` with an empty cache folder (validates and
  writes the cache);
* **warm**: the same again on the unchanged files (reads the cache, hashes every file,
  recomputes the cross-file rules);
* **2 proc**: ``validate_paths(cache=True, jobs=2)`` with an empty cache folder (the per-file
  work split over this process and one forked child);
* **agnix** (when its binary is found: ``--agnix``, ``$AGNIX`` or on ``PATH``; install the
  ``agnix`` wheel into a throwaway venv, it is no dependency of ours): ``agnix validate`` of
  the same folders as a child process, once per size, up to ``--agnix-max`` files.

It prints the median of each as a ratio to the naive parse (CPU to CPU, wall to wall) and
checks that cold, warm and two processes give the same report.  The targets on 2,000 files:
cold <= 3x, warm <= 1.2x.  The package fingerprint (one ``stat`` per file of the installed
package, once per process) is computed before timing; ``--fingerprint`` prints its cost.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def _default_corpus() -> Path:
    if os.environ.get("SUBAGENTS_CORPUS"):
        return Path(os.environ["SUBAGENTS_CORPUS"])
    for up in HERE.parents:  # beside the checkout, or beside a worktree's parent
        if (up / "shared" / "corpus").is_dir():
            return up / "shared" / "corpus"
    return HERE.parents[1] / "shared" / "corpus"


def claude_files(corpus: Path) -> list[Path]:
    files = [
        *sorted((corpus / "0xfurai__claude-code-subagents").rglob("*.md")),
        *sorted((corpus / "VoltAgent__awesome-claude-code-subagents").rglob("*.md")),
        *sorted((corpus / "catlog22__Claude-Code-Workflow" / "files" / ".claude").rglob("*.md")),
    ]
    return [f for f in files if f.name.lower() != "readme.md"]


def replicate(files: list[Path], n: int, dest: Path, distinct: bool = False) -> list[Path]:
    """``n`` copies of ``files``, round-robin.  With ``distinct``, each copy's text is made
    unique by a closing sentence naming its number, so that no work can be shared between
    copies (the corpus has a few hundred files: a larger tree repeats each many times)."""
    out: list[Path] = []
    for i in range(n):
        src = files[i % len(files)]
        folder = dest / f"p{i // 100:03d}" / ".claude" / "agents"
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / f"{i:05d}-{src.name}"
        if distinct:
            data = src.read_bytes()
            target.write_bytes(data + (b"" if data.endswith(b"\n") else b"\n")
                               + f"\nThis is copy number {i} of the agent.\n".encode())
        else:
            shutil.copyfile(src, target)
        out.append(target)
    return out


def cpu() -> float:
    """CPU seconds of this process and of its children that have been waited for."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def timed(fn: Callable[[], Any]) -> tuple[float, float, Any]:
    c, w = cpu(), time.perf_counter()
    out = fn()
    return cpu() - c, time.perf_counter() - w, out


def naive(paths: list[Path]) -> None:
    import frontmatter

    for p in paths:
        # a file the naive parser refuses still cost its time
        with contextlib.suppress(Exception):
            frontmatter.load(str(p))


def find_agnix(given: str | None) -> str | None:
    for candidate in (given, os.environ.get("AGNIX"), shutil.which("agnix")):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


def run_agnix(agnix: str, root: Path, timeout: float) -> tuple[float, float] | None:
    """(CPU, wall) of ``agnix validate ROOT``, or None when it timed out."""
    c, w = cpu(), time.perf_counter()
    try:
        subprocess.run([agnix, "validate", str(root)], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return None
    return cpu() - c, time.perf_counter() - w


def measure(validate_paths: Callable[..., Any], files: list[Path], size: int, root: Path,
            cache_dir: str, rounds: int, agnix: str | None, agnix_timeout: float,
            distinct: bool = False) -> str:
    """One line of the table for ``size`` files."""
    paths = replicate(files, size, root, distinct)
    folders = sorted({p.parent for p in paths})
    validate_paths(folders[:1], cache=False)  # imports and first-use caches, untimed
    naive(paths[:50])
    cpus: dict[str, list[float]] = {k: [] for k in ("naive", "cold", "warm", "two")}
    walls: dict[str, list[float]] = {k: [] for k in cpus}

    def cold(jobs: int) -> Any:
        shutil.rmtree(cache_dir, ignore_errors=True)
        return validate_paths(folders, cache=True, jobs=jobs)

    runs: list[tuple[str, Callable[[], Any]]] = [
        ("naive", lambda: naive(paths)), ("cold", lambda: cold(1)),
        ("warm", lambda: validate_paths(folders, cache=True, jobs=1)), ("two", lambda: cold(2))]
    for _ in range(rounds):
        reports = []
        for name, fn in runs:
            c, w, out = timed(fn)
            cpus[name].append(c)
            walls[name].append(w)
            if out is not None:
                reports.append(json.dumps(out.to_dict(), sort_keys=True))
        if len(set(reports)) != 1:
            raise SystemExit("cold, warm and two-process reports differ")
    mc = {k: statistics.median(v) for k, v in cpus.items()}
    mw = {k: statistics.median(v) for k, v in walls.items()}

    def ratio(c: float, w: float) -> str:
        return f"{c / mc['naive']:>5.1f}x/{w / mw['naive']:>5.1f}x"

    line = (f"{size:>6} {mc['naive'] * 1000:>7.1f}/{mw['naive'] * 1000:>7.1f} "
            f"{ratio(mc['cold'], mw['cold'])} {ratio(mc['warm'], mw['warm'])} "
            f"{ratio(mc['two'], mw['two'])}")
    if agnix is None:
        return line + f" {'-':>15}"
    got = run_agnix(agnix, root, agnix_timeout)
    if got is None:
        return line + f" {'> ' + str(int(agnix_timeout)) + ' s':>15}"
    return line + f" {ratio(*got):>15}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, default=_default_corpus())
    ap.add_argument("--sizes", default="1,254,2000,10000")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--fingerprint", action="store_true")
    ap.add_argument("--agnix", default=None, help="the agnix binary (default: $AGNIX, PATH)")
    ap.add_argument("--agnix-max", type=int, default=2000,
                    help="largest size agnix is run on (its cross-file rules are quadratic)")
    ap.add_argument("--agnix-timeout", type=float, default=600)
    ap.add_argument("--distinct", action="store_true",
                    help="make every copy's text unique (a closing sentence with its number), "
                         "so that nothing is shared between repeated files")
    args = ap.parse_args()
    files = claude_files(args.corpus)
    if not files:
        raise SystemExit(f"no agent files under {args.corpus} (give --corpus)")
    agnix = find_agnix(args.agnix)
    with tempfile.TemporaryDirectory(prefix="bench-cache-") as tmp:
        cache_dir = os.path.join(tmp, "cache")
        os.environ["SUBAGENTS_CACHE_DIR"] = cache_dir
        from subagents.lint.cache import package_fingerprint
        from subagents.lint.validate import validate_paths

        t0 = cpu()
        package_fingerprint()
        if args.fingerprint:
            print(f"package fingerprint (once a process): {(cpu() - t0) * 1000:.1f} ms CPU")
        print(f"{len(files)} Claude agent files in the corpus"
              + (", every copy made distinct" if args.distinct else ", repeated round-robin")
              + f"; {args.rounds} interleaved rounds; "
              f"{os.cpu_count()} cores; median CPU (this process + children) and wall time")
        print("ratios to the naive parse (CPU/CPU, wall/wall); agnix: "
              + (f"{agnix}" if agnix else "not found (--agnix PATH)"))
        head = (f"{'files':>6} {'naive ms':>15} {'cold':>13} {'warm':>13} {'2 proc':>13} "
                f"{'agnix':>15}")
        print(head)
        print(f"{'':>6} {'cpu / wall':>15} " + " ".join([f"{'cpu / wall':>13}"] * 3)
              + f" {'cpu / wall':>15}")
        for size in (int(s) for s in args.sizes.split(",")):
            root = Path(tmp) / f"n{size}"
            line = measure(validate_paths, files, size, root, cache_dir, args.rounds,
                           agnix if size <= args.agnix_max else None, args.agnix_timeout,
                           args.distinct)
            print(line, flush=True)

if __name__ == "__main__":
    main()
