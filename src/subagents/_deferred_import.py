"""Import a standard module without a heavy module it imports but needs only in a rare case.

Design notes
------------
* Two standard modules on the path of ``subagents validate FILE`` import, at their top, a
  heavy module they use in one rare case: ``dataclasses`` imports :mod:`inspect` (and with it
  ``ast``, ``dis``, ``tokenize``, ``linecache``) only to write the docstring of a class that
  has none; ``urllib.parse`` (which :mod:`pathlib` imports) imports :mod:`ipaddress` only to
  check a host name written in brackets.  Together about an eighth of that command (38 M
  instructions by callgrind).  Every dataclass the command builds has a docstring and no URL
  is parsed, so it needs neither (``tests/test_deferred_import.py`` runs the command and checks
  that neither is imported).
* :func:`import_deferring` imports the module while ``sys.modules`` holds a stand-in for the
  heavy one, and takes the stand-in out again at once: the module keeps the stand-in under its
  global name; every other ``import`` gets the real module as usual.  The stand-in imports the
  real module when an attribute is first asked of it and answers with the real one's, so the
  rare case still works as it always did (a class without a docstring gets the standard one).
* Only ``subagents validate FILE`` calls it (:mod:`subagents.cli.quick`, in its own process);
  nothing happens when either module is already imported.
"""

from __future__ import annotations

import importlib
import sys
import types

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["import_deferring"]


class _ImportedOnUse(types.ModuleType):
    """Stands for the module of its name: imports it when an attribute is first asked."""

    def __getattr__(self, name: str) -> Any:
        if sys.modules.get(self.__name__) is self:  # asked during the import: not ours to keep
            del sys.modules[self.__name__]
        return getattr(importlib.import_module(self.__name__), name)


def import_deferring(module: str, later: str) -> None:
    """Import ``module`` with a stand-in for ``later`` (see the module's notes)."""
    if module in sys.modules or later in sys.modules:
        return
    stand_in = _ImportedOnUse(later)
    sys.modules[later] = stand_in
    try:
        __import__(module)  # what ``import module`` does
    finally:
        if sys.modules.get(later) is stand_in:
            del sys.modules[later]
