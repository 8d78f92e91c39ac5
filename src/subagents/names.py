"""Agent names: the one way two spellings of a name are found to be the same agent.

A model calling the Task tool writes ``Code Reviewer``, ``code_reviewer`` or ``code.reviewer``
for the agent named ``code-reviewer``; ``run --agent``, the registry's ``get``, pipelines,
permission rules (``Agent(code-reviewer)``) and explicit ``@code-reviewer`` mentions must all
find the same agent for the same spelling.  Before this module the registry ignored
``-``, ``_`` and spaces while the Task tool also ignored dots and other white space, so
``run --agent code.reviewer`` failed where a model's Task call worked.

:func:`normalize_agent_name` is the matching key: case folded, and white space, ``-``, ``_``
and ``.`` removed.  It is a key for *finding* an agent, never a name to show or write.
"""

from __future__ import annotations

import functools
import re

__all__ = ["normalize_agent_name"]

_SEPARATORS = re.compile(r"[\s_.\-]+")


@functools.lru_cache(maxsize=1 << 16)
def normalize_agent_name(name: str) -> str:
    """``Code Reviewer`` / ``code_reviewer`` / ``code.reviewer`` → ``codereviewer``."""
    return _SEPARATORS.sub("", name).casefold()
