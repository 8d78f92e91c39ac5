"""An agent's usage examples: the requests its author says should reach it.

``subagents test`` routes each one and checks it lands on its agent (the description
is the dispatch signal).  Where they are written, in order of trust:

1. the body's ``## Usage Examples`` section: ``user:`` lines if there are any,
   else each list item (``- "Review my changes" - analyses git diff`` → the quoted part, or the
   item up to a `` - ``/``→`` explanation), else each quoted string;
2. ``<example>`` blocks in the description (Claude Code's generator writes them): the text after
   ``user:`` up to ``assistant:`` / ``<commentary>`` / the block's end;
3. an ``Examples:`` part of the description (templates write ``(1) "Review my recent
   changes" - analyzes git diff``): ``user:`` lines, else quoted strings.

Design decisions: extraction is lexical and forgiving (real files use every shape); each
request is stripped of surrounding quotes and collapsed to one line; duplicates are dropped;
an example shorter than two words is dropped (a heading, not a request).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from subagents.definition import AgentDefinition

__all__ = ["UsageExample", "usage_examples"]


@dataclass(frozen=True, slots=True)
class UsageExample:
    """One request an agent should receive; ``where`` says which part of the file it came from."""

    agent: str
    request: str
    where: str  # "body" | "description-example" | "description"


_SECTION_RE = re.compile(r"^(#{1,6})\s*usage\s+examples?\s*:?\s*$", re.I | re.M)
_HEADING_RE = re.compile(r"^(#{1,6})\s+\S", re.M)
_USER_RE = re.compile(
    r"(?:^|\s)(?:\*\*)?user(?:\*\*)?\s*:\s*(?:\*\*)?\s*(?P<req>.+?)"
    r"(?=\s*(?:\*\*)?assistant(?:\*\*)?\s*:|\s*<commentary>|\s*</example>|\n\s*\n|\n\s*[-*]\s"
    r"|\n\s*(?:\*\*)?[A-Za-z][\w -]{0,24}(?:\*\*)?\s*:|\Z)",
    re.I | re.S,
)
_EXAMPLE_BLOCK_RE = re.compile(r"<example>(.*?)(?:</example>|\Z)", re.I | re.S)
_QUOTED_RE = re.compile(r"[\"“']([^\"”\n]{6,}?)[\"”']")
_ITEM_RE = re.compile(r"^\s*(?:[-*+]|\(?\d+[.)])\s+(?P<item>.+)$", re.M)
_EXAMPLES_PART_RE = re.compile(r"\bexamples?\s*:\s*(?P<rest>.*)\Z", re.I | re.S)


def _clean(text: str) -> str:
    text = " ".join(text.split())
    text = text.strip().strip("`*_").strip()
    if len(text) >= 2 and text[0] in "\"'“‘" and text[-1] in "\"'”’":
        text = text[1:-1].strip()
    return text


def _body_section(body: str) -> str | None:
    m = _SECTION_RE.search(body)
    if not m:
        return None
    level = len(m.group(1))
    rest = body[m.end():]
    for h in _HEADING_RE.finditer(rest):
        if len(h.group(1)) <= level:
            return rest[: h.start()]
    return rest


def _from_section(text: str) -> list[str]:
    users = [m.group("req") for m in _USER_RE.finditer(text)]
    if users:
        return users
    items = [m.group("item") for m in _ITEM_RE.finditer(text)]
    if items:
        out = []
        for item in items:
            q = _QUOTED_RE.search(item)
            if q and q.start() <= 3:
                out.append(q.group(1))
            else:
                out.append(re.split(r"\s+(?:-|–|—|→|->)\s+", item, maxsplit=1)[0])
        return out
    return [m.group(1) for m in _QUOTED_RE.finditer(text)]


def usage_examples(agent: AgentDefinition) -> list[UsageExample]:
    """Every usage example of ``agent``, in file order, without duplicates."""
    found: list[tuple[str, str]] = []
    section = _body_section(agent.system_prompt or "")
    if section:
        found += [(r, "body") for r in _from_section(section)]
    desc = agent.description or ""
    blocks = _EXAMPLE_BLOCK_RE.findall(desc)
    for block in blocks:
        found += [(m.group("req"), "description-example") for m in _USER_RE.finditer(block)]
    if not blocks:
        part = _EXAMPLES_PART_RE.search(desc)
        if part:
            rest = part.group("rest")
            users = [m.group("req") for m in _USER_RE.finditer(rest)]
            reqs = users or [m.group(1) for m in _QUOTED_RE.finditer(rest)]
            found += [(r, "description") for r in reqs]
    out: list[UsageExample] = []
    seen: set[str] = set()
    for raw, where in found:
        req = _clean(raw)
        if len(req.split()) < 2 or req.casefold() in seen:
            continue
        seen.add(req.casefold())
        out.append(UsageExample(agent.qualified_name, req, where))
    return out
