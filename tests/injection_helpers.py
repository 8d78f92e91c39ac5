"""The labelled injection sets as pytest parameters, shared by the detector's tests."""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pytest

#: the detector's tiers: (characters the views and the gate have read, whether Hyperscan
#: answers); a test sets them before each call so that both ways it compares see one state
TIERS = {"first texts": (0, False), "re2 sets": (1 << 40, False), "hyperscan": (1 << 40, True)}


def built_scanner() -> Any:
    """A Hyperscan scanner of the detector's parts, built here (``None`` without the wheel)."""
    try:
        import hyperscan  # noqa: F401
    except ImportError:
        return None
    from subagents.lint.rules import injection_scan

    return injection_scan.build()


def injections(rows: Iterable[dict[str, str]], known_misses: set[str]) -> list[Any]:
    """The injection rows, each known miss marked as a strict expected failure (kept visible:
    a miss that starts to be found fails until it is taken off the list)."""
    return [pytest.param(r, marks=pytest.mark.xfail(strict=True, reason="a known miss"),
                         id=r["id"])
            if r["id"] in known_misses else pytest.param(r, id=r["id"])
            for r in rows if r["label"] == "injection"]


def benign(rows: Iterable[dict[str, str]]) -> list[Any]:
    """The benign rows."""
    return [pytest.param(r, id=r["id"]) for r in rows if r["label"] == "benign"]


def phrases_with_gaps(rng: random.Random, heads: Sequence[str], filler: Sequence[str],
                      tails: Sequence[str], ends: Sequence[str], most: int,
                      short: int) -> str:
    """A made-up text for the equivalence tests of the detector's parts: up to ``most``
    phrases, each a head, a gap of filler words whose width is near a bounded window's
    limits (110-130 and 150-170 characters) or short (0, 1, 2 to ``short``), a tail and an
    end."""
    out: list[str] = []
    for _ in range(rng.randint(1, most)):
        out.append(rng.choice(heads))
        width = rng.choice([0, 1, rng.randint(2, short), rng.randint(110, 130),
                            rng.randint(150, 170)])
        gap = ""
        while len(gap) < width:
            gap += rng.choice(filler) + " "
        out.append(" " + gap[:width])
        out.append(rng.choice(tails))
        out.append(rng.choice(ends))
    return "".join(out)


_DATA = Path(__file__).parent / "data" / "injection"
_ROOT = Path(__file__).parent.parent


def development_texts(*, docs: bool = True) -> list[str]:
    """The development sets' texts (never the held-out ones; labels not read), then the
    repository's example agents and, with ``docs``, its documentation pages: what the
    equivalence tests of the detector's shortcuts compare on."""
    texts: list[str] = []
    for name in ("dev.jsonl", "dev2.jsonl", "probe3.jsonl"):
        for line in (_DATA / name).read_text(encoding="utf-8").splitlines():
            if line.strip():
                texts.append(json.loads(line)["text"])
    paths = sorted(_ROOT.glob("examples/**/*.md"))
    if docs:
        paths += sorted(_ROOT.glob("docs/*.md"))
    texts += [path.read_text(encoding="utf-8") for path in paths]
    return texts
