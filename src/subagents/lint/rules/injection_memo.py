"""The injection detector's verdicts remembered per process, by the text itself.

Design notes
------------
* The same text is often judged more than once in one process: an agent copied into several
  scopes or projects, a description shared by a family of agents, the language server
  re-checking a file whose prompt did not change, ``run`` checking a prompt ``validate``
  already checked.  The detector is a pure function of the text (its shortcuts give the same
  answer as the plain search: tests/test_injection_prefilter.py), so a verdict given once can
  be given again.
* Keyed by the whole text, not a digest: a hit is an exact string comparison, never a
  collision.  The key's hash is computed once per string object (Python caches it).
* Bounded: at most :data:`CHARS` characters of text are kept as keys, the oldest dropped
  first, and a text longer than an eighth of that is not kept (so a few huge prompts cannot
  push out all the rest).  Every text is still judged the first time it is seen in a process;
  nothing is written to disk.
* Safe across threads (the language server checks in a worker thread): a look-up is one
  dictionary read; storing and dropping hold a lock; the detector itself runs outside it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Generic as _Generic
    from typing import TypeVar

    T = TypeVar("T")
else:  # generic for the type checker only: the typing module is not imported at run time

    class _Generic:
        __slots__ = ()

        def __class_getitem__(cls, item: object) -> type:
            return cls

    T = "T"

__all__ = ["CHARS", "Verdicts"]

#: characters of text kept as keys at most (with the verdicts, about 4 to 16 MB)
CHARS = 1 << 22

_MISSING = object()


class Verdicts(_Generic[T]):
    """``get(text, judge)``: ``judge(text)``, remembered."""

    __slots__ = ("_chars", "_limit", "_lock", "_seen")

    def __init__(self, limit: int = CHARS) -> None:
        self._seen: dict[str, T] = {}
        self._chars = 0
        self._limit = limit
        self._lock = threading.Lock()

    def get(self, text: str, judge: Callable[[str], T]) -> T:
        known = self._seen.get(text, _MISSING)
        if known is not _MISSING:
            return known  # type: ignore[return-value]
        found = judge(text)
        size = len(text)
        if size <= self._limit // 8:
            with self._lock:
                seen = self._seen
                if text not in seen:
                    seen[text] = found
                    self._chars += size
                    while self._chars > self._limit:  # the oldest first (insertion order)
                        old = next(iter(seen))
                        del seen[old]
                        self._chars -= len(old)
        return found

    def __contains__(self, text: str) -> bool:
        return text in self._seen

    def clear(self) -> None:
        """Forget every verdict (a benchmark's cold run, a test that changes the detector)."""
        with self._lock:
            self._seen.clear()
            self._chars = 0

    @property
    def chars(self) -> int:
        """Characters of text kept now."""
        return self._chars

    def __len__(self) -> int:
        return len(self._seen)
