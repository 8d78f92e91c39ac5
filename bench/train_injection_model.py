"""Experiment: a small learned second opinion for the prompt-injection detector, trained on
the development sets and cross-validated; measured, and **not shipped** (see the figures it
prints: on real agent files it raises false alarms the rules do not).

Run: ``.venv/bin/python bench/train_injection_model.py [--folds 5] [--corpus DIR]``

* The model: logistic regression over hashed word and word-pair features (CRC-32 into
  2^18 buckets, stable across machines) of one passage: the line around a weak sign the
  rules see (a secret, a send, a condition, text addressed to the model...), up to
  :data:`SPAN` characters either side.  It would be asked only where the rules find nothing,
  and could only warn (SA406), never refuse.  Pure Python inference; nothing here is imported
  by the library.
* Data: the development sets only (``tests/data/injection/dev.jsonl``, ``dev2.jsonl``,
  ``probe3.jsonl``, ``probe4.jsonl`` and ``tests/data/injection_prompts.jsonl``); the held-out
  sets are never
  read.  A passage of a benign prompt is benign; a passage of an injection is an attack
  unless the same passage also occurs in another prompt (the agent text the attacks were
  placed in is shared between rows).
* Training: AdaGrad, L2, fixed passes in a fixed order (the same data gives the same
  weights).  Cross-validation: k folds over prompts; for each fold the model is trained on
  the others and the whole detector (rules, then the model where the rules found nothing)
  is measured on the fold.  The corpus of real agent files (assumed benign) is judged with
  a model trained on all the development data, at several thresholds.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import re
import zlib
from pathlib import Path

from subagents.lint.rules import injection as rules
from subagents.lint.rules.injection_eval import Counts, load_rows

HERE = Path(__file__).resolve().parent
DATA = HERE.parent / "tests" / "data"
SETS = [DATA / "injection" / "dev.jsonl", DATA / "injection" / "dev2.jsonl",
        DATA / "injection" / "probe3.jsonl", DATA / "injection" / "probe4.jsonl"]
# beside the checkout, or beside the folder of worktrees
CORPUS = next((up / "shared" / "corpus" for up in HERE.parents[1:3]
               if (up / "shared" / "corpus").is_dir()), HERE.parent.parent / "shared" / "corpus")
THRESHOLDS = (0.5, 0.8, 0.9, 0.97, 0.99)
EPOCHS = 12
RATE = 0.3
L2 = 1e-4
BUCKETS = 1 << 18
SPAN = 200
_WORD = re.compile(r"[^\W\d_]+|\d+|[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
Model = tuple[float, dict[int, float]]


def _bucket(token: str) -> int:
    return zlib.crc32(token.encode("utf-8")) % BUCKETS


def features(text: str) -> list[int]:
    words = [w for w in _WORD.findall(text) if len(w) > 1 or _CJK.match(w)]
    return [_bucket(w) for w in words] + [_bucket(a + " " + b)
                                          for a, b in itertools.pairwise(words)]


def window(norm: str, start: int, end: int) -> tuple[int, str]:
    lo = max(0, start - SPAN)
    cut = norm.rfind("\n", lo, start)
    lo = cut + 1 if cut >= 0 else lo
    hi = min(len(norm), end + SPAN)
    cut = norm.find("\n", end, hi)
    hi = cut if cut >= 0 else hi
    return lo, norm[lo:hi]


def score(text: str, model: Model) -> float:
    bias, w = model
    z = bias + sum(w.get(f, 0.0) for f in features(text))
    return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))


def detect(text: str, model: Model, threshold: float) -> bool:
    """The rules, then the model on the passages around weak signs where they found none."""
    if rules.assess_injection(text) is not None:
        return True
    return any(score(p, model) >= threshold for p in passages(text))


def rows() -> list[dict[str, str]]:
    out = [r for path in SETS for r in load_rows(path)]
    for n, line in enumerate((DATA / "injection_prompts.jsonl").read_text().splitlines()):
        if line.strip():
            r = json.loads(line)
            out.append({"id": f"issue12-{n}", "style": "-", "text": r["text"],
                        "label": "injection" if r["label"] == "hostile" else "benign"})
    return out


def passages(text: str) -> list[str]:
    pats = rules._Patterns.get()
    kinds = {k: pats[k] for k, _ in rules._SIGNALS}
    norm = rules._fast(text, True)
    seen: dict[int, str] = {}
    for pos, _, end in sorted(rules._hits(norm, kinds, every=True)):
        lo, passage = window(norm, pos, end)
        seen.setdefault(lo, passage)
    return list(seen.values())


def examples(data: list[dict[str, str]]) -> list[tuple[list[int], int]]:
    per_row = [(r, passages(r["text"])) for r in data]
    counts: dict[str, int] = {}
    for _, ps in per_row:
        for p in set(ps):
            counts[p] = counts.get(p, 0) + 1
    out: list[tuple[list[int], int]] = []
    for r, ps in per_row:
        for p in ps:
            label = int(r["label"] == "injection" and counts[p] == 1)
            out.append((features(p), label))
    return out


def train(data: list[tuple[list[int], int]]) -> Model:
    w: dict[int, float] = {}
    g: dict[int, float] = {}
    bias, gb = 0.0, 1e-8
    pos = sum(y for _, y in data) or 1
    neg = (len(data) - pos) or 1
    for _ in range(EPOCHS):
        for feats, y in data:
            z = bias + sum(w.get(f, 0.0) for f in feats)
            p = 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))
            # classes weighted to count alike
            err = (p - y) * (len(data) / (2 * (pos if y else neg)))
            gb += err * err
            bias -= RATE * err / math.sqrt(gb)
            for f in set(feats):
                grad = err + L2 * w.get(f, 0.0)
                g[f] = g.get(f, 1e-8) + grad * grad
                w[f] = w.get(f, 0.0) - RATE * grad / math.sqrt(g[f])
    return bias, w


def folds(data: list[dict[str, str]], k: int) -> list[list[dict[str, str]]]:
    return [data[i::k] for i in range(k)]


def corpus_texts(root: Path) -> list[tuple[str, ...]]:
    from subagents.harnesses.loader import read_agent_file

    out: list[tuple[str, ...]] = []
    for path in sorted(root.rglob("*.md")):
        if path.name.lower().startswith("readme"):
            continue
        try:
            d = read_agent_file(path).definition
            out.append((d.system_prompt or "", d.description or "", d.initial_prompt or ""))
        except Exception:  # judged whole, as the evaluation does
            out.append((path.read_text(encoding="utf-8", errors="replace"),))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    args = parser.parse_args()
    data = rows()
    parts = folds(data, args.folds)
    models = [train(examples([r for j, p in enumerate(parts) if j != i for r in p]))
              for i in range(len(parts))]
    alone = Counts()
    for held in parts:
        for r in held:
            alone.add(r["label"] == "injection", rules.assess_injection(r["text"]) is not None)
    print(f"{len(data)} prompts ({sum(r['label'] == 'injection' for r in data)} injections); "
          f"{args.folds}-fold over prompts")
    print(f"  rules alone (tuned on these sets): precision {alone.precision:.3f} recall "
          f"{alone.recall:.3f} (TP {alone.tp} FP {alone.fp} FN {alone.fn} TN {alone.tn})")
    corpus = corpus_texts(args.corpus) if args.corpus.is_dir() else []
    full = train(examples(data)) if corpus else None
    for threshold in THRESHOLDS:
        both = Counts()
        for model, held in zip(models, parts, strict=True):
            for r in held:
                both.add(r["label"] == "injection", detect(r["text"], model, threshold))
        line = (f"  rules + model at {threshold:.2f}: precision {both.precision:.3f} recall "
                f"{both.recall:.3f} (TP {both.tp} FP {both.fp} FN {both.fn} TN {both.tn})")
        if full is not None:
            flagged = sum(1 for texts in corpus
                          if any(detect(t, full, threshold) for t in texts if t))
            line += f"; real agents flagged {flagged} of {len(corpus)}"
        print(line)


if __name__ == "__main__":
    main()
