"""Make ``import dataclasses`` cheaper for a short command, without changing what it does.

Design notes
------------
* ``dataclasses`` imports :mod:`inspect` at its top, and :mod:`inspect` imports ``ast``,
  ``dis``, ``tokenize``, ``linecache`` and more: about a tenth of ``subagents validate
  one.md`` (33 M instructions by callgrind).  ``dataclasses`` uses it for one thing: the
  docstring of a class that has none (``inspect.signature``).  Every dataclass ``validate
  FILE`` builds has a docstring (``tests/test_dataclasses_start.py`` runs the command and
  checks that :mod:`inspect` was never imported), so that command never needs it.
* :func:`defer_inspect` imports ``dataclasses`` while ``sys.modules["inspect"]`` holds a
  stand-in, and takes the stand-in out again at once: ``dataclasses`` keeps it under its
  global name ``inspect``; every other ``import inspect`` gets the real module as usual.  The
  stand-in imports the real :mod:`inspect` when an attribute is first asked of it and answers
  with the real one's, so a dataclass without a docstring still gets the standard one.
* Only ``subagents validate FILE`` calls it (:mod:`subagents.cli.quick`, its own process);
  nothing happens when ``dataclasses`` or ``inspect`` is already imported.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import Any

__all__ = ["defer_inspect"]


class _InspectOnUse(types.ModuleType):
    """Stands for :mod:`inspect` in ``dataclasses``: imports it when first used."""

    def __getattr__(self, name: str) -> Any:
        if sys.modules.get("inspect") is self:  # still importing dataclasses: not ours to keep
            del sys.modules["inspect"]
        return getattr(importlib.import_module("inspect"), name)


def defer_inspect() -> None:
    """Import ``dataclasses`` without importing :mod:`inspect` (see the module's notes)."""
    if "dataclasses" in sys.modules or "inspect" in sys.modules:
        return
    stand_in = _InspectOnUse("inspect")
    sys.modules["inspect"] = stand_in
    try:
        import dataclasses  # noqa: F401  (imported here, with the stand-in)
    finally:
        if sys.modules.get("inspect") is stand_in:
            del sys.modules["inspect"]
