"""The built-in tools' limits and result shapes, keyed on the Claude Code version they follow.

The tools return what Claude Code returns to the model (measured against the real CLI with a
scripted fake API: ``docs/runtime-tools.md``), so an agent written for Claude Code sees the
same world here.  Those figures change between Claude Code releases, so they are *data*: one
:class:`ToolFormats` row per version in :data:`FORMATS`, chosen with :func:`formats_for`
(default :data:`DEFAULT_VERSION`).  Behaviour that is not a number (which messages exist, the
line format of ``Read``) lives in the tools and is the same for every row so far.

Short fixed result lines that models key on ("No files found", "Exit code 3", "File does not
exist.") are reproduced as formats; longer explanatory text is written in our own words with
the same structure (which block, where the variable parts go).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DEFAULT_VERSION", "FORMATS", "ToolFormats", "formats_for"]


@dataclass(frozen=True, slots=True)
class ToolFormats:
    """Limits and switches of the built-in tools for one Claude Code version."""

    version: str
    #: ``Read`` refuses a whole file larger than this (bytes) unless paged or ``allow_large``.
    read_max_bytes: int = 256 * 1024
    #: the most ``Read`` returns with ``allow_large`` (characters): ours, CC says "what fits".
    read_large_max_chars: int = 2_000_000
    #: ``Bash`` output longer than this (characters) is saved to a file; a preview is sent.
    bash_inline_chars: int = 30_000
    #: size of that preview (characters, cut back to a line end when one is near).
    bash_preview_chars: int = 2_000
    #: ``Grep``'s default ``head_limit`` (0 in a call: no limit).
    grep_head_limit: int = 250
    #: the most paths ``Glob`` lists.
    glob_limit: int = 100
    #: ``Grep``/``Glob`` are offered only to agents that name them and have no ``Bash``
    #: (2.1.332: the main thread searches through Bash).
    search_tools_need_explicit: bool = True
    #: ``cd`` in ``Bash`` carries over to the next call in the main thread.
    bash_persistent_cwd: bool = True
    #: WebFetch/WebSearch/NotebookEdit, and the delegation session's SendMessage and
    #: TaskStop, hide behind ``ToolSearch`` where it is offered.
    deferred_tools: tuple[str, ...] = ("NotebookEdit", "SendMessage", "TaskStop", "WebFetch",
                                       "WebSearch")


#: Claude Code version -> the tools' figures.  Add a row when a release changes them.
FORMATS: dict[str, ToolFormats] = {
    "2.1.332": ToolFormats(version="2.1.332"),
}

DEFAULT_VERSION = "2.1.332"


def formats_for(version: str | None = None) -> ToolFormats:
    """The row for ``version`` (``None``: the default); an unknown version gets the newest
    row at or below it, else the default."""
    if version is None or version in FORMATS:
        return FORMATS[version or DEFAULT_VERSION]

    def key(v: str) -> tuple[int, ...]:
        return tuple(int(p) if p.isdigit() else 0 for p in v.split("."))

    older = [v for v in FORMATS if key(v) <= key(version)]
    return FORMATS[max(older, key=key)] if older else FORMATS[DEFAULT_VERSION]
