"""The literals a signal pattern of the injection detector cannot match without, worked out
from the pattern's syntax tree: the table the detector's prefilter reads
(:mod:`.injection_gate`).

Design notes
------------
* Most signal patterns cannot match most prompts: a pattern that needs one of ``ignore``,
  ``disregard``... and one of ``instructions``, ``rules``... cannot match a prompt that holds
  none of them.  One pass over the text says which literals it holds (an RE2 set of them:
  overlapping occurrences are all seen); a pattern part is searched only when the text holds
  what the table says every match of it holds.  Searching a part costs a pass of a large
  automaton over the text; the table is checked with a few integer operations.
* :func:`requirement` walks the pattern's syntax tree (Python's own ``re`` parser: the
  injection patterns are valid for both engines and use no syntax the two read differently)
  and returns what every match must contain, as alternatives (*clauses*), each a list of
  literal sets that must all be present (one literal of each set); ``None`` when it cannot
  say (a branch made only of character classes, a repetition that may be empty).  A sequence
  needs what each of its parts needs (all of them, as long as the clauses stay few); an
  alternation needs one of its branches' clauses.  ``(?:ignore|forget) (?:all|the)?
  (?:rules|orders)`` needs ``{ignore, forget}`` and ``{rules, orders}``.  A literal between
  word ends (``\\b``, ``\\s+``) must be a whole word of the text (``\\bput\\b`` is not
  in "input"; marked with a leading NUL in the table): RE2's ``\\b`` knows ASCII word
  characters only, and so does the check.  Character classes and other anchors are left out,
  which only ever makes the answer weaker (more texts searched), never wrong: the prefilter
  fails closed.
* The signal patterns are matched case-sensitively against case-folded text, so the
  literals are taken exactly as the pattern spells them.
* This module runs when the table is generated (``python -m
  subagents.lint.rules.injection_prefilter``) and in the tests that check the table is
  current; the detector only reads the generated table (``_injection_literals.py``), so the
  parse costs nothing at run time.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any

__all__ = ["injection_alternatives", "injection_literals", "render_alternatives", "render_table",
           "requirement", "split_alternatives"]

#: an alternation needing more literals than this is not worth testing one by one
MAX_LITERALS = 160
#: a class of at most this many single characters counts as their alternation
_SMALL_CLASS = 8


# A requirement: any one of its clauses; a clause: every one of its literal sets; a set: any
# one of its literals.  ``None``: nothing known.
Clause = tuple[frozenset[str], ...]
Requirement = frozenset[Clause] | None

#: more clauses than this and a sequence keeps fewer of its parts' conditions
MAX_CLAUSES = 48
#: an alternation of more clauses than this needs one literal of a branch instead
MAX_BRANCH_CLAUSES = 256


def _useful(clause: Clause) -> Clause:
    """The clause without sets holding the empty string (every text holds it)."""
    return tuple(sorted({s for s in clause if "" not in s}, key=sorted))


def _one_set(sets: Iterable[frozenset[str]]) -> Requirement:
    union = frozenset().union(*sets)
    if not union or len(union) > MAX_LITERALS:
        return None
    return frozenset({(union,)})


def _normal(clauses: frozenset[Clause]) -> Requirement:
    """Clauses of one set each are one set (any of their literals)."""
    clauses = frozenset(_useful(c) for c in clauses)
    if any(not c for c in clauses):
        return None  # a branch that needs nothing useful: the whole needs nothing known
    if all(len(c) == 1 for c in clauses):
        return _one_set(c[0] for c in clauses)
    if len(clauses) > MAX_BRANCH_CLAUSES:  # too many: each clause by its most selective set
        return _one_set(max(c, key=lambda s: (min(map(len, s)), -len(s))) for c in clauses)
    return clauses


def _both(left: frozenset[Clause], right: frozenset[Clause]) -> frozenset[Clause] | None:
    """Both requirements (``None``: too many clauses to keep)."""
    if len(left) * len(right) > MAX_CLAUSES:
        return None
    return frozenset(_useful((*a, *b)) for a in left for b in right)


#: an exact set (every string a part can match) larger than this is not spelled out
_MAX_EXACT = 64


def _exact(items: Iterable[tuple[Any, Any]]) -> frozenset[str] | None:
    """Every string ``items`` can match, when they are few and made of literals only
    (``instructions?`` is ``{instruction, instructions}``); else ``None``."""
    found = frozenset({""})
    for op, av in items:
        if op is sre.LITERAL:
            options: frozenset[str] | None = frozenset({chr(av)})
        elif op is sre.SUBPATTERN:
            options = _exact(av[3])
        elif op is sre.BRANCH:
            branches = [_exact(b) for b in av[1]]
            options = (frozenset().union(*branches)  # type: ignore[arg-type]
                       if all(b is not None for b in branches) else None)
        elif op is sre.IN and 0 < len(av) <= _SMALL_CLASS and all(
                o is sre.LITERAL for o, _ in av):
            options = frozenset(chr(a) for _, a in av)
        elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT) and av[0] == 0 and av[1] == 1:
            inner = _exact(av[2])
            options = None if inner is None else inner | {""}
        else:
            options = None
        if options is None or len(found) * len(options) > _MAX_EXACT:
            return None
        found = frozenset(a + b for a in found for b in options)
    return found


#: marks a literal that must be a whole word of the text (ASCII letters, digits, ``_``)
WORD = "\0"
_ASCII_WORD = re.compile(r"[A-Za-z0-9_]+")


def _is_boundary(op: Any, av: Any) -> bool:
    """Is the position after what comes before ``op`` a word's end?  (``\\b``, or a
    character that is no ASCII word character: ``\\s``, ``\\W``; once or more.)"""
    if op is sre.AT:
        return av is sre.AT_BOUNDARY
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
        low, _high, sub = av
        return low >= 1 and len(sub) == 1 and _is_boundary(*sub[0])
    if op is sre.IN:
        return bool(av) and all(
            (o is sre.CATEGORY and a in (sre.CATEGORY_SPACE, sre.CATEGORY_NOT_WORD))
            or (o is sre.LITERAL and not _ASCII_WORD.fullmatch(chr(a)))
            for o, a in av)
    return False


def _requirement(items: Iterable[tuple[Any, Any]], start: bool = False,
                 end: bool = False) -> Requirement:
    """``start``/``end``: is there a word end just before/after ``items``?  (The parser
    moves a ``\\b`` that starts every branch out of the alternation.)"""
    parts: list[frozenset[Clause]] = []
    run: frozenset[str] = frozenset({""})  # the strings the literal part so far can be
    after_boundary = False  # is the run preceded by a word end?
    previous_boundary = start
    items = list(items)

    def flush(before_boundary: bool = False) -> None:
        nonlocal run
        if any(run):
            if (after_boundary and before_boundary
                    and all(_ASCII_WORD.fullmatch(r) for r in run)):
                # \bput\b: RE2's \b knows ASCII word characters only, so the match is a
                # whole word of the text split at every other character
                run = frozenset(WORD + r for r in run)
            parts.append(frozenset({(run,)}))
        run = frozenset({""})

    for i, (op, av) in enumerate(items):
        before = previous_boundary
        after = _is_boundary(*items[i + 1]) if i + 1 < len(items) else end
        if not any(run):
            after_boundary = previous_boundary
        previous_boundary = _is_boundary(op, av)
        exact = _exact(((op, av),))
        if exact is not None:
            if len(run) * len(exact) <= _MAX_EXACT:
                run = frozenset(a + b for a in run for b in exact)
                continue
            flush()
            after_boundary = False
            run = exact
            continue
        flush(before_boundary=_is_boundary(op, av))
        part: Requirement = None
        if op is sre.SUBPATTERN:
            part = _requirement(av[3], before, after)
        elif op is sre.BRANCH:
            branches = [_requirement(b, before, after) for b in av[1]]
            if all(b is not None for b in branches):
                part = _normal(frozenset().union(*branches))  # type: ignore[arg-type]
        elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
            if av[0] >= 1:
                part = _requirement(av[2])
        elif op is sre.IN:
            chars = [a for o, a in av if o is sre.LITERAL]
            if 0 < len(chars) == len(av) and len(chars) <= _SMALL_CLASS:
                part = frozenset({(frozenset(chr(c) for c in chars),)})
        # anchors, any character, categories, negated classes: they require no literal
        if part is not None:
            parts.append(part)
    flush(before_boundary=end)
    # the most selective parts first, so that those are kept when the clauses grow too many
    parts = [p for p in parts if all(_useful(c) for c in p)]
    parts.sort(key=lambda p: (len(p), -min(min(map(len, s)) for c in p for s in c)))
    found: frozenset[Clause] | None = None
    for part in parts:
        both = part if found is None else _both(found, part)
        if both is not None:
            found = both
    return None if found is None else _normal(found)


def requirement(pattern: str) -> Requirement:
    """What every match of ``pattern`` (matched case-sensitively) contains: any one clause,
    each of whose literal sets has a literal in the text; ``None`` when nothing is known."""
    found = _requirement(sre_parse.parse(pattern, re.M))
    if found is None:
        return None
    return found


TABLE = "_injection_literals.py"


Table = dict[str, tuple[tuple[tuple[str, ...], ...], ...] | None]


def injection_literals() -> Table:
    """The requirement table of the injection detector's signal pattern parts (what
    :mod:`.injection_gate` consults), as it must be written: clauses and literals in a fixed
    order."""
    from subagents.lint.rules.injection import part_sources

    return {name: _ordered(requirement(pattern)) for name, pattern in part_sources()}


def _width(text: str) -> int:
    """Columns on screen (what the line-length check counts): wide characters take two."""
    import unicodedata

    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _tuple(items: tuple[str, ...]) -> str:
    return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"


def _wrap(items: list[str], indent: str) -> list[str]:
    """``items`` as a tuple, on one line when it fits, else one line per few items."""
    one = indent + _tuple(tuple(items)) + ","
    if _width(one) <= 99:
        return [one]
    lines = [indent + "("]
    line = indent + "   "
    for item in items:
        if _width(f"{line} {item},") > 99:
            lines.append(line)
            line = indent + "   "
        line += f" {item},"
    return [*lines, line, indent + "),"]


def _clause_lines(clauses: tuple[tuple[tuple[str, ...], ...], ...], indent: str) -> list[str]:
    """The clauses of one requirement, one per line when it fits (``indent``: the clauses')."""
    lines = []
    for clause in clauses:
        sets = [_tuple(tuple(map(repr, literals))) for literals in clause]
        one = indent + _tuple(tuple(sets)) + ","
        if _width(one) <= 99:
            lines.append(one)
            continue
        lines.append(indent + "(")
        for literals in clause:
            lines.extend(_wrap([repr(x) for x in literals], indent + "    "))
        lines.append(indent + "),")
    return lines


def render_table(table: Table) -> str:
    lines = [
        '"""Generated by ``python -m subagents.lint.rules.injection_prefilter``: do not edit.',
        "",
        "For each part of an injection signal pattern, what every match contains: any one clause,",
        "each a tuple of literal sets that must all have a literal in the text (a leading NUL:",
        "a whole word; ``None``: nothing known).  tests/test_injection_prefilter.py checks it",
        "is current.",
        '"""',
        "",
        "LITERALS: dict[str, tuple[tuple[tuple[str, ...], ...], ...] | None] = {",
    ]
    for name, clauses in table.items():
        if clauses is None:
            lines.append(f"    {name!r}: None,")
            continue
        lines.append(f"    {name!r}: (")
        lines.extend(_clause_lines(clauses, "        "))
        lines.append("    ),")
    lines.append("}")
    return "\n".join(lines) + "\n"


def split_alternatives(pattern: str) -> list[tuple[int, int]]:
    """Where each top-level alternative of ``pattern`` starts and ends (``|`` outside every
    group and character class): ``"|".join`` of the slices is the pattern."""
    spans = []
    depth = 0
    in_class = False
    start = i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            # a ``]`` first in the class (after a ``^``) is one of its characters
            i += 2 if pattern[i + 1:i + 2] == "]" else (
                3 if pattern[i + 1:i + 3] == "^]" else 1)
            continue
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "|" and depth == 0:
            spans.append((start, i))
            start = i + 1
        i += 1
    spans.append((start, len(pattern)))
    return spans


#: for each part compiled by alternatives: each top-level alternative's start and end in the
#: part's source and what every match of it contains (as in :data:`Table`)
AltTable = dict[str, tuple[tuple[int, int, tuple[tuple[tuple[str, ...], ...], ...] | None], ...]]
ALT_TABLE = "_injection_alts.py"


def _ordered(found: Requirement) -> tuple[tuple[tuple[str, ...], ...], ...] | None:
    return None if found is None else tuple(sorted(
        tuple(sorted(tuple(sorted(s, key=lambda x: (len(x), x))) for s in clause))
        for clause in found))


def injection_alternatives() -> AltTable:
    """The table :mod:`.injection_alts` reads: the parts it names, alternative by
    alternative."""
    from subagents.lint.rules.injection import part_sources
    from subagents.lint.rules.injection_alts import PARTS

    sources = dict(part_sources())
    out: AltTable = {}
    for name in sorted(PARTS):
        pattern = sources[name]
        spans = split_alternatives(pattern)
        assert "|".join(pattern[a:b] for a, b in spans) == pattern
        out[name] = tuple((a, b, _ordered(requirement(pattern[a:b]))) for a, b in spans)
    return out


def render_alternatives(table: AltTable) -> str:
    lines = [
        '"""Generated by ``python -m subagents.lint.rules.injection_prefilter``: do not edit.',
        "",
        "For each part of an injection signal pattern that :mod:`.injection_alts` compiles by",
        "alternatives: each top-level alternative's start and end in the part's source and",
        "what every match of it contains (as in ``_injection_literals.py``; ``None``: nothing",
        "known).  tests/test_injection_alts.py checks it is current.",
        '"""',
        "",
        "ALTERNATIVES: dict[",
        "    str, tuple[tuple[int, int, tuple[tuple[tuple[str, ...], ...], ...] | None], ...]",
        "] = {",
    ]
    for name, alternatives in table.items():
        lines.append(f"    {name!r}: (")
        for start, end, clauses in alternatives:
            if clauses is None:
                lines.append(f"        ({start}, {end}, None),")
                continue
            lines.append(f"        ({start}, {end}, (")
            lines.extend(_clause_lines(clauses, "            "))
            lines.append("        )),")
        lines.append("    ),")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:  # pragma: no cover - a development command
    from pathlib import Path

    from subagents.lint.rules._generator import rewrite_tables

    rewrite_tables(
        "python -m subagents.lint.rules.injection_prefilter",
        f"Rewrite {TABLE} and {ALT_TABLE}, the literals every match of each injection signal "
        "part (and of each of its alternatives) holds, from the patterns; run it after "
        "editing injection_patterns.py or injection_lexicon.py.",
        [(Path(__file__).with_name(TABLE), lambda: render_table(injection_literals())),
         (Path(__file__).with_name(ALT_TABLE),
          lambda: render_alternatives(injection_alternatives()))],
        argv)


if __name__ == "__main__":  # pragma: no cover
    main()
