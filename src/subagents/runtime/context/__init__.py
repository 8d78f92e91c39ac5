"""The context a run works in, as Claude Code builds it: instructions, git, environment, harness.

Which run gets what (Claude Code 2.1.332, measured; the wording is ours):

=============  ==========================================  ===============================
run            first user message, before the prompt        system prompt
=============  ==========================================  ===============================
main thread    ``CLAUDE.md`` block, git snapshot            harness prompt + environment
subagent       ``CLAUDE.md`` block, git snapshot            body + hand-back rules +
                                                            environment
``--agent``    ``CLAUDE.md`` block                          body + environment
=============  ==========================================  ===============================

Each block is its own text block of the first user message, wrapped in
``<system-reminder>``; Claude Code's third main-thread block (commit attribution) is left
out: we add no attribution to anyone's commits.  Claude Code sends the environment as a
``system`` message; we send it as the last section of the system prompt
(:mod:`.environment` says why).

The project part (:class:`ProjectContext`: ``CLAUDE.md`` files and the git snapshot) is read
once per working folder and runner (:class:`ContextCache`), as Claude Code reads it once per
session: the main thread and every subagent see the same snapshot, and its notes (a file cut
or skipped, git too slow) are reported once.  The modules: :mod:`.claude_md`, :mod:`.git`,
:mod:`.environment`, :mod:`.prompts`.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from subagents.runtime.context.claude_md import Instructions, find_instructions
from subagents.runtime.context.environment import environment_block
from subagents.runtime.context.git import GitSnapshot, git_snapshot
from subagents.runtime.context.prompts import (
    HANDBACK_RULES,
    MAIN_THREAD_PROMPT,
    with_handback_rules,
)

__all__ = [
    "HANDBACK_RULES",
    "MAIN_THREAD_PROMPT",
    "ContextCache",
    "ProjectContext",
    "RunRole",
    "environment_block",
    "find_instructions",
    "git_snapshot",
    "load_project_context",
    "with_handback_rules",
]

#: ``main``: the main thread; ``agent``: an agent run as the main thread (``--agent``), a
#: pipeline stage or a team's lead; ``subagent``: a run with a parent (delegated to, or a
#: teammate).
RunRole = Literal["main", "agent", "subagent"]


@dataclass(frozen=True, slots=True)
class ProjectContext:
    """What a working folder contributes to the first user message."""

    instructions: Instructions
    git: GitSnapshot | None
    notes: tuple[str, ...] = ()

    def blocks(self, role: RunRole) -> list[str]:
        """The reminder blocks for a run in ``role``, in Claude Code's order."""
        out: list[str] = []
        rendered = self.instructions.render()
        if rendered is not None:
            out.append(rendered)
        if self.git is not None and role != "agent":
            out.append(self.git.render())
        return out


def load_project_context(
    cwd: str | os.PathLike[str], *, home: str | os.PathLike[str] | None = None,
    stop_at: str | os.PathLike[str] | None = None, git: bool = True,
) -> ProjectContext:
    """Read the ``CLAUDE.md`` files and take the git snapshot for ``cwd`` (never raises for
    what is on disk; problems are in ``notes``)."""
    instructions = find_instructions(cwd, home=home, stop_at=stop_at)
    notes = list(instructions.notes)
    snapshot = git_snapshot(cwd, notes=notes) if git else None
    return ProjectContext(instructions, snapshot, tuple(notes))


class ContextCache:
    """One :class:`ProjectContext` per working folder, built on first use (thread-safe: it is
    built in a worker thread, and concurrent first uses wait for one build)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._built: dict[Path, ProjectContext] = {}

    def get(self, cwd: Path) -> tuple[ProjectContext, bool]:
        """(the context, whether this call built it)."""
        with self._lock:
            found = self._built.get(cwd)
            if found is not None:
                return found, False
            built = load_project_context(cwd)
            self._built[cwd] = built
            return built, True
