"""Benchmark: the prompt-injection detector's precision and recall, and its speed.

Run: ``.venv/bin/python bench/bench_injection.py [--corpus PATH]``

* On the labelled set ``tests/data/injection_prompts.jsonl`` (hostile prompts that put the
  four signals - override, reading secrets, sending to an address, concealment - in different
  orders and wordings, and benign prompts, many of them security agents that *discuss*
  injection): true/false positives and negatives, precision and recall, each miss and false
  alarm by id.  The set was written together with the detector, so these figures show it does
  what it was built for, not how it fares on attacks nobody has seen.
* On the shared corpus of real agent files (assumed benign): how many are flagged (each is
  listed, to be judged by a person) and the time per MB, against ``str.lower`` over the same
  text as a same-run baseline.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from subagents.lint.rules.security import detect_injection

HERE = Path(__file__).resolve().parent
DATA = HERE.parent / "tests" / "data" / "injection_prompts.jsonl"
CORPUS = HERE.parent.parent / "shared" / "corpus"


def labelled() -> None:
    rows = [json.loads(line) for line in DATA.read_text().splitlines() if line.strip()]
    tp = fp = fn = tn = 0
    for row in rows:
        hit = detect_injection(row["text"]) is not None
        hostile = row["label"] == "hostile"
        if hostile and hit:
            tp += 1
        elif hostile:
            fn += 1
            print(f"  missed: {row['id']}")
        elif hit:
            fp += 1
            print(f"  false alarm: {row['id']}")
        else:
            tn += 1
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    print(f"labelled set: {len(rows)} prompts ({tp + fn} hostile, {fp + tn} benign)")
    print(f"  TP {tp}  FP {fp}  FN {fn}  TN {tn}")
    print(f"  precision {precision:.3f}  recall {recall:.3f}")


def corpus(root: Path) -> None:
    files = [p for p in sorted(root.rglob("*")) if p.is_file()
             and p.suffix in (".md", ".toml", ".json")]
    texts = [p.read_text(encoding="utf-8", errors="replace") for p in files]
    size = sum(len(t) for t in texts) / 1e6
    started = time.perf_counter()
    flagged = [p for p, t in zip(files, texts, strict=True) if detect_injection(t)]
    took = time.perf_counter() - started
    started = time.perf_counter()
    for t in texts:
        t.lower()
    base = time.perf_counter() - started
    print(f"corpus: {len(files)} files, {size:.1f} MB: {len(flagged)} flagged")
    for p in flagged:
        print(f"  flagged: {p.relative_to(root)}")
    print(f"  {took / size * 1000:.0f} ms per MB (str.lower: {base / size * 1000:.1f} ms per MB,"
          f" ratio {took / max(base, 1e-9):.0f}x)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    args = parser.parse_args()
    labelled()
    if args.corpus.is_dir():
        corpus(args.corpus)
    else:
        print(f"corpus: not found at {args.corpus}; skipped")
