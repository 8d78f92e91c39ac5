"""The injection detector's largest signal parts compiled, for the first texts of a process,
from only the alternatives a text can match.

Design notes
------------
* Compiling a part is most of what ``subagents validate one.md`` spends on a typical prompt:
  RE2 builds each bounded window (``[^\\n]{0,120}?``) one state per character, and each
  state's cost grows with the bytes the whole part uses.  A typical prompt passes the
  literal prefilter (:mod:`.injection_gate`) of ``override.0`` through two of its 59
  top-level alternatives, and that of ``send.0`` through one of its eight.
* Exact: the part is an alternation ``a|b|c`` matched leftmost-first; an alternative that
  matches nowhere in the text never wins at any start, so the alternation of the others,
  in their order, finds every match the whole part finds (same start, same end), from
  every position a search resumes at.  Which alternatives cannot match is what every match
  of each contains (the generated table ``_injection_alts.py``, worked out by
  :mod:`.injection_prefilter` alternative by alternative, as ``_injection_literals.py`` is
  part by part), looked up in the text.  tests/test_injection_alts.py compares the two
  compilations match by match.
* Only while it pays: while the prefilter still looks literals up one by one (the first
  :data:`.injection_gate._SET_AFTER` characters a process reads) and the whole part is not
  compiled yet.  A large run compiles the whole part once; each reduced alternation is
  compiled once per process (remembered by the alternatives kept).
* ``import subagents`` does not load the table: only a text that may match one of
  :data:`PARTS` does.
"""

from __future__ import annotations

from collections.abc import Callable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["PARTS", "reduced"]

#: the parts compiled by alternatives (the two a typical prompt compiles; most of the others
#: are small, or have few alternatives)
PARTS = frozenset({"override.0", "send.0"})

#: compiled alternations, by part and the alternatives kept (``None``: none can match)
_COMPILED: dict[tuple[str, tuple[int, ...]], Any] = {}


def kept(name: str, meets: Callable[[Any], bool]) -> tuple[int, ...]:
    """The alternatives of part ``name`` whose required literals the text holds (``meets``:
    does the text hold what a requirement of the table needs?), in their order."""
    from subagents.lint.rules._injection_alts import ALTERNATIVES

    return tuple(i for i, (_, _, needs) in enumerate(ALTERNATIVES[name]) if meets(needs))


def reduced(name: str, source: str, meets: Callable[[Any], bool],
            compile_: Callable[[str], Any], whole: Callable[[], Any]) -> Any:
    """Part ``name`` (its ``source`` as compiled) with only the alternatives the text can
    match, compiled by ``compile_``; ``None`` when none can, ``whole()`` (the part as it is)
    when all can.  ``source`` is what the table was worked out from (the test says so)."""
    from subagents.lint.rules._injection_alts import ALTERNATIVES

    keep = kept(name, meets)
    if len(keep) == len(ALTERNATIVES[name]):
        return whole()
    found = _COMPILED.get((name, keep))
    if found is None and keep:
        if len(_COMPILED) > 64:
            _COMPILED.clear()
        spans = ALTERNATIVES[name]
        found = _COMPILED[name, keep] = compile_(
            "|".join(source[spans[i][0]:spans[i][1]] for i in keep))
    return found
