"""Explicit invocation: a prompt that names its agent.

Two readings.  :func:`agent_mention` is what a run acts on, as Claude Code 2.1.332 does
(RUNTIME-2.1.332.md row 9): only the ``@agent-X`` mention counts, and it only adds a line to
the model's context (:mod:`subagents.dispatch.main_thread`).  :func:`parse_explicit` is the
broad reading that ``subagents route`` reports (it also knows the plain forms below).

Recognised forms (case-insensitive)::

    Use the code-reviewer agent to check this PR       use / using / ask / have / get / with /
    Ask the security auditor subagent about ...        delegate to / hand it to / invoke / run
    @code-reviewer check this   /   @agent-code-reviewer check this   (Claude Code's mention form)

Design decisions
----------------
* Only names of agents that exist pin anything.  "Use the new agent" must not pin an agent
  called ``new``; an unknown name in the ``use the X agent`` form is still reported
  (``ExplicitInvocation.agent is None``, ``requested`` set) so that the caller can tell the user
  it is not available and carry on with the main thread.  An ``@word`` that is not
  an agent is ignored entirely (it is usually a person or a file).
* Names match ignoring case and separators (``Code Reviewer`` = ``code-reviewer`` =
  ``code_reviewer``), as the Task tool's ``subagent_type`` does (REFERENCE.md).
* Several words may precede ``agent``; the longest *known* suffix wins, so "use the trusty
  code reviewer agent" pins ``code-reviewer``.
* The first mention in the text wins: "use the planner agent, then the tester agent" is a
  request to the planner, which may delegate on.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from subagents.dispatch.task_tool import normalize_agent_name

__all__ = ["ExplicitInvocation", "agent_mention", "parse_explicit"]

_VERBS = (
    r"use|using|ask|asking|have|get|with|delegate\s+to|hand\s+(?:it|this|that)\s+(?:off\s+)?to"
    r"|invoke|run|call|let"
)
_NAMED_RE = re.compile(
    rf"\b(?:{_VERBS})\s+(?:the\s+|my\s+|our\s+|your\s+|an?\s+)?"
    r"(?P<x>[\w.:-]+(?:\s+[\w.:-]+){0,4}?)\s+(?:sub-?)?agent\b",
    re.I,
)
_MENTION_RE = re.compile(r"(?<![\w@.])@(?:agent-)?(?P<x>[A-Za-z][\w.:-]*[\w])")
_AGENT_MENTION_RE = re.compile(r"(?<![\w@.])@agent-(?P<x>[A-Za-z0-9][\w.:-]*[\w]|[A-Za-z0-9])")


@dataclass(frozen=True, slots=True)
class ExplicitInvocation:
    """A prompt's explicit agent request.

    ``agent`` is the canonical name of the pinned agent, or ``None`` when the prompt asked for
    an agent that does not exist (``requested`` says what was asked for).  ``start``/``end``
    locate the mention in the prompt.
    """

    requested: str
    agent: str | None
    start: int
    end: int
    form: str  # "named" ("use the X agent") or "mention" ("@X")


def parse_explicit(prompt: str, agent_names: Iterable[str]) -> ExplicitInvocation | None:
    """The first explicit agent request in ``prompt``, or ``None``."""
    table: dict[str, str] = {}
    for name in agent_names:
        table.setdefault(normalize_agent_name(name), name)
    found: list[ExplicitInvocation] = []
    for m in _NAMED_RE.finditer(prompt):
        words = m.group("x").split()
        hit: ExplicitInvocation | None = None
        for k in range(len(words)):
            candidate = " ".join(words[k:])
            canonical = table.get(normalize_agent_name(candidate))
            if canonical is not None:
                hit = ExplicitInvocation(candidate, canonical, m.start(), m.end(), "named")
                break
        if hit is None:
            # Report the last word(s) as the requested name: "use the foo agent" -> "foo".
            hit = ExplicitInvocation(words[-1].strip(".:"), None, m.start(), m.end(), "named")
            if words[-1].lower() in ("an", "a", "the", "new", "same", "other", "another", "this"):
                continue
        found.append(hit)
    for m in _MENTION_RE.finditer(prompt):
        canonical = table.get(normalize_agent_name(m.group("x")))
        if canonical is not None:
            found.append(ExplicitInvocation(m.group("x"), canonical, m.start(), m.end(), "mention"))
            break
    if not found:
        return None
    known = [f for f in found if f.agent is not None]
    pool = known or found
    return min(pool, key=lambda f: f.start)


def agent_mention(prompt: str, agent_names: Iterable[str]) -> ExplicitInvocation | None:
    """The first ``@agent-X`` mention in ``prompt``: ``agent`` set when X is one of
    ``agent_names`` (ignoring case and separators), ``None`` when no agent has that name."""
    table: dict[str, str] = {}
    for name in agent_names:
        table.setdefault(normalize_agent_name(name), name)
    m = _AGENT_MENTION_RE.search(prompt)
    if m is None:
        return None
    canonical = table.get(normalize_agent_name(m.group("x")))
    return ExplicitInvocation(m.group("x"), canonical, m.start(), m.end(), "mention")
