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
  the same text as a same-run baseline; and the detector on each file's prompt (the body
  after the front matter, what ``validate`` checks) against a naive parse of the same files
  (``python-frontmatter``), in interleaved rounds (CPU time), with the shortcuts on and off
  (``injection.PREFILTER``: the literal prefilter and the early exit): the ratio is what a
  busy machine does not change.  ``--speed-only`` skips the precision and recall.
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


def against_parse(root: Path, rounds: int = 5) -> None:
    """The detector on each prompt against a naive parse of its file, interleaved rounds."""
    import frontmatter  # type: ignore[import-untyped]

    from subagents.lint.rules import injection

    files = [p.read_text(encoding="utf-8", errors="replace")
             for p in sorted(root.rglob("*.md")) if p.is_file()]
    bodies = []
    for text in files:
        parts = text.split("---", 2) if text.startswith("---") else []
        bodies.append(parts[2] if len(parts) == 3 else text)

    def parse() -> None:
        for text in files:
            try:
                frontmatter.loads(text)
            except Exception:  # a naive parse of real files: some fail
                continue

    def detect() -> None:
        injection.forget_verdicts()  # each round as a new process: repeated bodies only
        for body in bodies:
            assess_injection(body)

    detect()  # compiled and warmed: the rounds measure the steady state
    spent = {"parse": 0.0, "detector": 0.0, "detector, shortcuts off": 0.0}
    for _ in range(rounds):
        for label in spent:
            injection.PREFILTER = label != "detector, shortcuts off"
            started = time.process_time()
            parse() if label == "parse" else detect()
            spent[label] += time.process_time() - started
    injection.PREFILTER = True
    each = {k: v / rounds / len(files) * 1e6 for k, v in spent.items()}
    size = sum(map(len, bodies)) / len(bodies) / 1000
    print(f"against a naive parse: {len(files)} files (prompts {size:.1f} KB on average), "
          f"{rounds} interleaved rounds, CPU time")
    for label, us in each.items():
        print(f"  {label:<26} {us:8.0f} us a file  {us / each['parse']:5.1f}x the parse")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--skip-heldout", action="store_true",
                        help="leave the held-out sets unread")
    parser.add_argument("--speed-only", action="store_true",
                        help="only the speed: no precision and recall")
    args = parser.parse_args()
    if not args.speed_only:
        names = DEV if args.skip_heldout else DEV + HELDOUT
        sets = [a for n in names if (DATA / n).is_file() for a in ("--set", str(DATA / n))]
        measure([*sets, "--corpus", str(args.corpus)])
    if args.corpus.is_dir():
        speed(args.corpus)
        against_parse(args.corpus)
