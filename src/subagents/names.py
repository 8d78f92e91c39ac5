"""Agent names: the one way two spellings of a name are found to be the same agent.

A model calling the Task tool writes ``Code Reviewer``, ``code_reviewer`` or ``code.reviewer``
for the agent named ``code-reviewer``; ``run --agent``, the registry's ``get``, pipelines,
permission rules (``Agent(code-reviewer)``) and explicit ``@code-reviewer`` mentions must all
find the same agent for the same spelling.  Before this module the registry ignored
``-``, ``_`` and spaces while the Task tool also ignored dots and other white space, so
``run --agent code.reviewer`` failed where a model's Task call worked.

:func:`normalize_agent_name` is the matching key: case folded, and white space, ``-``, ``_``
and ``.`` removed.  It is a key for *finding* an agent, never a name to show or write.

This module is also the home of each dialect's *name grammar* (:class:`NameGrammar`): the
pattern a name must match, written once and used by the linter, the loaders, the converter,
the store and ``subagents new``, and of the one rewrite that suggests a valid spelling of an
invalid name (:meth:`NameGrammar.suggest`: lower case, runs of other characters become one
hyphen), so the linter, ``convert`` and the store suggest the same spelling.

* :data:`CODEX_NAME` -- codex-subagents refuses names outside ``[a-z][a-z0-9_-]{2,63}``.
* :data:`PORTABLE_NAME` -- the format specification's kebab-case name (at most 50
  characters), the one every harness accepts; ``subagents new`` writes only such names.
* :data:`JSON_NAME` -- agents.json (NanoClaw) keys: ``[a-z0-9_-]+``.

Claude Code itself is more lenient (any non-empty name up to its length limit); what it
accepts is measured and kept in :mod:`subagents.claude_code` (``profile.max_name_length``),
not repeated here.  Grammars are matched against the whole name (``re.fullmatch``), so a
trailing newline never slips through ``$``.
"""

from __future__ import annotations

import functools
import re
from dataclasses import field

from subagents._dataclass import dataclass
from subagents._lazy_re import lazy_compile

__all__ = [
    "CODEX_NAME",
    "JSON_NAME",
    "PORTABLE_NAME",
    "NameGrammar",
    "file_stem",
    "normalize_agent_name",
    "slugify",
]

_SEPARATORS = lazy_compile(r"[\s_.\-]+")


@functools.lru_cache(maxsize=1 << 16)
def normalize_agent_name(name: str) -> str:
    """``Code Reviewer`` / ``code_reviewer`` / ``code.reviewer`` → ``codereviewer``."""
    return _SEPARATORS.sub("", name).casefold()


def slugify(name: str, *, keep_underscore: bool = False, fallback: str = "agent",
            limit: int = 64) -> str:
    """A lowercase slug of ``name``: each run of other characters becomes one ``-``, and no
    ``-`` (or ``_``) at either end (``C++ Expert`` -> ``c-expert``).  One run, never ``---``:
    Claude Code ends a frontmatter at the first ``---`` anywhere, even inside a name."""
    allowed = r"a-z0-9_" if keep_underscore else r"a-z0-9"
    slug = re.sub(rf"[^{allowed}]+", "-", name.lower()).strip("-_")[:limit].strip("-_")
    return slug or fallback


def file_stem(name: str) -> str:
    """The file name (without ``.md``) an agent is written to: the name itself when it is a
    safe file name, else a slug of it (``C# Expert`` -> ``c-expert``); the name inside the file
    is kept as it is.  Empty (refused) when nothing usable is left, and for a name holding a
    path separator or ``..``, which the security rules refuse in any agent file."""
    if any(bad in name for bad in ("/", "\\", "..", "\x00")):
        return ""
    if _SAFE_FILE.match(name):
        return name
    return slugify(name, fallback="")


_SAFE_FILE = lazy_compile(r"^[A-Za-z0-9_][A-Za-z0-9_.@+-]*$")


@dataclass(frozen=True, slots=True)
class NameGrammar:
    """The names one dialect accepts: ``pattern`` (a regular expression, shown to users as
    written) and ``rule``, the same in words.  ``keep`` (the punctuation a name may hold),
    ``max_length`` and ``letter_first`` shape the spelling :meth:`suggest` proposes."""

    pattern: str
    rule: str
    keep: str = "-"
    max_length: int | None = None
    letter_first: bool = False
    _compiled: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_compiled", re.compile(self.pattern))

    def matches(self, name: str) -> bool:
        """Does the whole of ``name`` follow this grammar?"""
        return self._compiled.fullmatch(name) is not None

    def suggest(self, name: str) -> str | None:
        """A spelling of ``name`` this grammar accepts (``Code Reviewer`` -> ``code-reviewer``),
        or ``None`` when the rewrite gives none."""
        other = f"[^a-z0-9{re.escape(self.keep)}]+"
        spelled = re.sub(other, "-", name.lower()).strip(self.keep)
        if self.letter_first and spelled and not spelled[0].isalpha():
            spelled = "agent-" + spelled
        if self.max_length is not None:
            spelled = spelled[: self.max_length].rstrip(self.keep)
        return spelled if spelled and self.matches(spelled) else None


CODEX_NAME = NameGrammar(
    r"[a-z][a-z0-9_-]{2,63}",
    "3-64 lowercase letters, digits, `_` or `-`, starting with a letter",
    keep="_-", max_length=64, letter_first=True,
)
PORTABLE_NAME = NameGrammar(
    r"[a-z][a-z0-9-]{0,49}",
    "lowercase letters, digits and hyphens, starting with a letter, at most 50 characters",
    max_length=50, letter_first=True,
)
JSON_NAME = NameGrammar(r"[a-z0-9_-]+", "lowercase letters, digits, `_` and `-` only", keep="_-")
