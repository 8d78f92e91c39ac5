"""How deep a YAML text nests, found by a plain scan before any parser sees it.

libyaml's C parser and composer recurse once per nesting level: a 60 KB frontmatter nested
30,000 levels deep crashes the process (a segfault, no exception).  Every YAML parse of
untrusted text in this package asks :func:`nesting_scan` first and refuses text deeper than
the limit; agent frontmatter is a flat mapping with a few nested lists.
"""

from __future__ import annotations

from subagents._lazy_re import lazy_compile

__all__ = ["MAX_DEPTH", "nesting_depth", "nesting_scan"]

MAX_DEPTH = 64

_FLOW_OPEN = frozenset("[{")
_FLOW_CLOSE = frozenset("]}")


def nesting_depth(text: str, limit: int = MAX_DEPTH) -> int:
    """An upper bound of the nesting depth (see :func:`nesting_scan`)."""
    return nesting_scan(text, limit)[0]


# the indentation of a line, found after its line feed: a pattern that starts with a literal
# is searched for that character, where ``(?m)^ +`` is tried at every one (the text is given
# a line feed in front, for its first line)
_INDENT = lazy_compile(r"\n +")


def _max_indent(text: str) -> int:
    """The most spaces any line of ``text`` starts with."""
    return max((len(m) - 1 for m in _INDENT.findall("\n" + text)), default=0)


def nesting_scan(text: str, limit: int = MAX_DEPTH) -> tuple[int, int]:
    """An upper bound of the nesting depth of ``text``, stopping early past ``limit``.

    Counts flow brackets (outside quotes and comments, roughly) plus block nesting estimated
    from indentation steps and ``- `` / ``? `` indicators at the start of a line. It may
    over-estimate (a ``[`` inside a plain scalar counts), never under-estimate by much, and runs
    in one pass: it exists so that no C parser ever sees a 30,000-level document.
    """
    # A cheap upper bound first: every level costs a `[`, a `{`, an indicator or a column of
    # indentation.  Real frontmatter stays far below the limit and skips the scan.
    quick = text.count("[") + text.count("{") + text.count("- ") + text.count("? ")
    if quick <= limit:
        indent = _max_indent(text)
        if quick + indent + 1 <= limit:
            return quick + indent + 1, 0
    flow = 0
    worst = 0
    indents: list[int] = [-1]
    for number, line in enumerate(text.split("\n"), 1):
        stripped = line.lstrip(" ")
        if not stripped or stripped.startswith("#"):
            continue
        indent = len(line) - len(stripped)
        if flow == 0:
            while indents and indent <= indents[-1]:
                indents.pop()
            indents.append(indent)
            block = len(indents) - 1
            # "- - - x" nests one sequence per indicator on a single line
            rest = stripped
            while len(rest) >= 2 and rest[0] in "-?" and rest[1] in " \t":
                block += 1
                rest = rest[2:].lstrip(" \t")
        else:
            block = len(indents) - 1
        quote = ""
        for ch in line:
            if quote:
                if ch == quote:
                    quote = ""
            elif ch in "\"'" and flow > 0:
                quote = ch
            elif ch == "#" and flow == 0:
                break
            elif ch in _FLOW_OPEN:
                flow += 1
                worst = max(worst, block + flow)
                if worst > limit:
                    return worst, number
            elif ch in _FLOW_CLOSE and flow > 0:
                flow -= 1
        worst = max(worst, block + flow)
        if worst > limit:
            return worst, number
    return worst, 0


