"""The environment block: where and on what a run works.

Claude Code 2.1.332 sends it as a ``system``-role message after the first user message, for
the main thread, each subagent and ``--agent`` alike (measured: 914 characters for a subagent):
working folder, whether it is a git repository, platform, shell, OS version, the model's name
and exact id, the knowledge cutoff and the date.  The main thread's copy also carries the
deferred tools, the agent listing and skills, which live elsewhere here.

We send the same facts, in our words, as the last section of the system prompt: every provider
accepts a system prompt, while a ``system`` message in the middle of a conversation is refused
by some OpenAI-compatible chat templates.  The knowledge cutoff is left out: we do not know it
for every model a provider may serve.
"""

from __future__ import annotations

import os
import platform
import shutil
from datetime import date
from pathlib import Path

__all__ = ["environment_block", "is_git_repository", "shell_name"]


def shell_name() -> str:
    """The shell the Bash tool runs (``bash`` when there is one, as the tool chooses)."""
    return "bash" if shutil.which("bash") else Path(os.environ.get("SHELL") or "/bin/sh").name


def is_git_repository(cwd: Path) -> bool:
    """Is ``cwd`` inside a git work tree (a ``.git`` entry here or above)?"""
    here = cwd.resolve()
    return any((p / ".git").exists() for p in (here, *here.parents))


def environment_block(cwd: Path, model: str | None, *, git: bool | None = None,
                      today: date | None = None) -> str:
    """The ``# Environment`` section for a run of ``model`` in ``cwd`` (no model line when
    ``model`` is ``None``)."""
    from subagents.providers.generation import model_display_name

    in_git = is_git_repository(cwd) if git is None else git
    name = model_display_name(model) if model else ""
    model_line = (f"You run on the model {name}; its exact id is {model}." if name != model
                  else f"You run on the model {model}.")
    lines = [
        "# Environment",
        "Where this session runs:",
        f" - Working directory: {cwd}",
        f" - Git repository: {'yes' if in_git else 'no'}",
        f" - Platform: {platform.system().lower()}",
        f" - Shell: {shell_name()}",
        f" - OS version: {platform.system()} {platform.release()}",
    ]
    if model:
        lines += ["", model_line]
    lines += ["", f"Today's date: {(today or date.today()).isoformat()}."]
    return "\n".join(lines)
