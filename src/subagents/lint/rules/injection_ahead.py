"""The injection detector's first steps done stage by stage over a chunk's texts.

Design notes
------------
* **Why.**  ``validate`` judges the texts of a chunk of files together, before the files
  (:mod:`subagents.lint.ahead`).  For most texts the detector does four things: normalise and
  collapse the text, scan it with Hyperscan (which parts may match), read the hidden views'
  marks (RE2), and find nothing more.  Done text by text, each of these brings its own code
  and tables (the collapsing's, a Hyperscan database, an RE2 automaton) back into the
  processor's caches for every text; :func:`stage` does each step for every text of the
  chunk before the next step, and the detector (:func:`.injection._assess`) takes each
  text's results from :data:`.injection.AHEAD` instead of working them out.
* **The same verdicts.**  The steps are the detector's own functions, given the same text,
  and each is a function of the text alone.  What differs is only the order of the
  process's counters of characters read (:func:`.injection_views.count_read`, the
  prefilter's): they say when a shortcut pays for its set-up (Hyperscan's database, the
  marks looked for), never what is found; a mark not looked for counts as there.
  ``tests/test_injection_ahead.py`` compares every text's verdict with the detector's alone.
* **Bounded.**  The texts staged are a chunk's (at most a quarter of the verdicts' memory,
  :func:`subagents.lint.ahead.room`); each is taken out when judged, and :func:`unstage`
  empties what is left after the chunk.  A step that raises for a text (a lone surrogate)
  leaves that text out: the detector works it out, and raises, when it is asked.
"""

from __future__ import annotations

from subagents.lint.rules import injection
from subagents.lint.rules.injection import _fast_both_utf8
from subagents.lint.rules.injection_gate import all_parts_or_holds, parts_or_holds
from subagents.lint.rules.injection_views import (
    all_text_marks,
    characters_read,
    count_read,
    found,
)

__all__ = ["stage", "unstage"]

_LONGEST = 1 << 20  # (what :func:`.injection._assess` reads of a text)


def stage(texts: list[str]) -> None:
    """Do the detector's first steps for each of ``texts`` (different texts, none longer
    than the detector reads), a step for all of them before the next step."""
    if not injection.PREFILTER:
        return  # the plain search (what the tests compare with) is never staged
    kept: list[str] = []
    utf8s: list[list[bytes]] = []
    all_variants: list[list[str]] = []
    raws: list[bytes] = []
    for text in texts:
        if not text or len(text) > _LONGEST:
            continue  # (the detector reads no more of a text)
        utf8: list[bytes] = []
        try:
            variants, known = _fast_both_utf8(text, utf8)
            raw = known if known is not None else variants[0].encode()
        except Exception:  # the detector raises it again when asked
            continue
        count_read(text)  # as the detector counts it
        kept.append(text)
        utf8s.append(utf8)
        all_variants.append(variants)
        raws.append(raw)
    try:
        gates = all_parts_or_holds([variants[0] for variants in all_variants], raws)
    except Exception:  # (none staged: the detector works each text out when asked)
        return
    # the spread pattern (:func:`.injection._squeezed_finding`), once the process asks it
    spread: list[bool | None] = [None] * len(kept)
    if characters_read() > injection.SPREAD_AFTER:
        pattern = injection._Patterns.get()["spread"]
        spread = [found(pattern, raw) for raw in raws]
    ahead = injection.AHEAD
    could_find = injection._could_find_parts
    for text, variants, raw, gate, spreads, marks in zip(
            kept, all_variants, raws, gates, spread, all_text_marks(kept, utf8s), strict=True):
        readings = [gate]
        if (spreads is False and marks is not None and marks[1] is None
                and isinstance(gate, frozenset) and not could_find(gate)):
            # what _assess would then do: no part named could make a finding, the spread
            # pattern rules out a squeezed phrase, the marks any hidden view; and for a
            # text whose look-alike letters were folded, the same of the text unfolded
            # (asked here, for the few such texts: its gate is handed on if it may find)
            if len(variants) == 1:
                ahead[text] = None
                continue
            try:
                second = parts_or_holds(variants[1], variants[1].encode())
            except Exception:  # (the detector asks again, and raises)
                second = None
            if isinstance(second, frozenset) and not could_find(second):
                ahead[text] = None
                continue
            if second is not None:
                readings.append(second)
        ahead[text] = (variants, raw, readings, spreads, marks)


def unstage() -> None:
    """Forget what :func:`stage` did that was not taken (the end of a chunk)."""
    injection.AHEAD.clear()
