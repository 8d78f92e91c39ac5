"""Module-level regular expressions compiled when first used.

Design notes
------------
* ``subagents validate FILE`` imports about sixty module-level patterns and uses a handful
  for a short file; compiling them all at import was about a tenth of that command.
  :func:`lazy_compile` takes the same arguments as :func:`re.compile` and returns an object
  that compiles the pattern on its first use.
* Typed as the :class:`re.Pattern` it stands for, so call sites and type checks stay as they
  were (``_RE.search(text)``).  After the first use the compiled pattern's methods and
  attributes are copied onto the object: later calls reach them by a plain attribute
  look-up, with no Python code in between (as fast as the pattern itself).
* It is not a :class:`re.Pattern`: do not pass it where one is required by type (``re.sub``
  with a pattern object, ``isinstance``); call its methods.  ``tests/test_lazy_re.py`` checks
  it behaves as the compiled pattern and that the copied names are all of the pattern's.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, overload

__all__ = ["PATTERN_ATTRIBUTES", "lazy_compile"]

#: The public attributes of :class:`re.Pattern` (a test compares with ``dir(re.Pattern)``).
PATTERN_ATTRIBUTES = ("findall", "finditer", "flags", "fullmatch", "groupindex", "groups",
                      "match", "pattern", "scanner", "search", "split", "sub", "subn")


class _LazyPattern:
    """Stands for ``re.compile(pattern, flags)``, compiled by the first attribute look-up."""

    def __init__(self, pattern: str | bytes, flags: int) -> None:
        self._source = (pattern, flags)

    def __getattr__(self, name: str) -> Any:
        # Called only for a name not found: before the first use, any of the pattern's.
        # Special names (``__deepcopy__``, ``__getstate__``...) are asked by copy and pickle
        # and are not the pattern's business.
        if name.startswith("__") or "search" in vars(self):
            raise AttributeError(name)
        pattern, flags = self._source
        compiled: re.Pattern[Any] = re.compile(pattern, flags)
        for attribute in PATTERN_ATTRIBUTES:
            setattr(self, attribute, getattr(compiled, attribute))
        return getattr(compiled, name)

    def __repr__(self) -> str:
        pattern, flags = self._source
        return f"lazy_compile({pattern!r}, {flags})"


if TYPE_CHECKING:  # the typing module is not imported at run time (see subagents/__init__.py)
    @overload
    def lazy_compile(pattern: str, flags: int = 0) -> re.Pattern[str]: ...
    @overload
    def lazy_compile(pattern: bytes, flags: int = 0) -> re.Pattern[bytes]: ...
def lazy_compile(pattern: str | bytes, flags: int = 0) -> Any:
    """``re.compile(pattern, flags)``, done when the result is first used."""
    return _LazyPattern(pattern, flags)
