"""The optional C extension (``subagents._speedups``), for the modules that can use it.

``pip install`` builds it where a C compiler is present (setup.py: ``optional=True``, so an
install without one goes on without it).  Every module that uses it keeps Python code giving
the same results, and asks for it only once its input is large enough to pay for loading it:
``validate`` of one file never loads it.  ``SUBAGENTS_NO_EXTENSION`` set to anything but
``0`` makes every such module use its Python code (the tests compare the two ways).
"""

from __future__ import annotations

import os
from types import ModuleType


def speedups() -> ModuleType | None:
    """The extension module, or None: not built, or switched off by
    ``SUBAGENTS_NO_EXTENSION``.  (Asked at most once by each module that uses it.)"""
    if os.environ.get("SUBAGENTS_NO_EXTENSION", "") not in ("", "0"):
        return None
    try:
        from subagents import _speedups
    except ImportError:  # not built: the caller's Python code answers
        return None
    return _speedups
