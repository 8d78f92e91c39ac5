"""The labelled injection sets as pytest parameters, shared by the detector's tests."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pytest


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
