"""Benchmark: the prompt-injection detector's precision and recall, and its speed.

Run: ``.venv/bin/python bench/bench_injection.py [--corpus PATH]``

* Precision and recall on the development sets (``tests/data/injection/dev.jsonl``,
  ``dev2.jsonl``, ``probe3.jsonl``, ``probe4.jsonl``: what the patterns were tuned on) and on
  the held-out sets
  (``heldout.jsonl``, ``heldout2.jsonl`` when present: written apart from the detector and
  never tuned on), each printed separately with the counts per style, and the share of real
  agent files flagged: :mod:`subagents.lint.rules.injection_eval` does the counting.
  ``--skip-heldout`` leaves the held-out sets unread (what a developer tuning the detector
  runs).
* Speed over the shared corpus of real agent files: time per MB against ``str.lower`` over
  the same text as a same-run baseline.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from subagents.lint.rules.injection import assess_injection
from subagents.lint.rules.injection_eval import main as measure

HERE = Path(__file__).resolve().parent
DATA = HERE.parent / "tests" / "data" / "injection"
# beside the checkout, or beside the folder of worktrees
CORPUS = next((up / "shared" / "corpus" for up in HERE.parents[1:3]
               if (up / "shared" / "corpus").is_dir()), HERE.parent.parent / "shared" / "corpus")
DEV = ("dev.jsonl", "dev2.jsonl", "probe3.jsonl", "probe4.jsonl")
HELDOUT = ("heldout.jsonl", "heldout2.jsonl")


def speed(root: Path) -> None:
    texts = [p.read_text(encoding="utf-8", errors="replace")
             for p in sorted(root.rglob("*.md")) if p.is_file()]
    size = sum(len(t) for t in texts) / 1e6
    started = time.perf_counter()
    for t in texts:
        assess_injection(t)
    took = time.perf_counter() - started
    started = time.perf_counter()
    for t in texts:
        t.lower()
    base = time.perf_counter() - started
    print(f"speed: {len(texts)} files, {size:.1f} MB: {took / size * 1000:.0f} ms per MB "
          f"(str.lower: {base / size * 1000:.1f} ms per MB, ratio {took / max(base, 1e-9):.0f}x)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--skip-heldout", action="store_true",
                        help="leave the held-out sets unread")
    args = parser.parse_args()
    names = DEV if args.skip_heldout else DEV + HELDOUT
    sets = [a for n in names if (DATA / n).is_file() for a in ("--set", str(DATA / n))]
    measure([*sets, "--corpus", str(args.corpus)])
    if args.corpus.is_dir():
        speed(args.corpus)
