"""The shape of a conformance case and helpers to write its files.

A case is a small, self-made project: files for ``.claude/agents/`` (relative path -> exact
bytes), optional files for ``~/.claude/agents/``, optional files anywhere in the project (for
nested ``.claude/agents`` folders, with ``cwd`` naming the folder Claude Code starts in),
symbolic links (link path -> target as written), and the agents to launch so that the model
id, tools and prompt each really gets are recorded.
Cases are written by this project; nothing in them comes from the corpus.

Design decision: file contents are bytes, so encodings, BOMs, CRLF and size limits are exact.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Case", "agent", "md", "raw"]


@dataclass(frozen=True, slots=True)
class Case:
    """One conformance case: inputs only (the recording holds what the harness did)."""

    id: str
    about: str
    files: Mapping[str, bytes]
    user_files: Mapping[str, bytes] = field(default_factory=dict)
    spawn: tuple[str, ...] = ()
    project_files: Mapping[str, bytes] = field(default_factory=dict)  # relative to the root
    cwd: str = ""  # where Claude Code starts, relative to the project root
    # symbolic links: link path relative to the project root -> the target as written in it
    links: Mapping[str, str] = field(default_factory=dict)

    def materialise(self, project: Path, home: Path | None = None) -> tuple[Path, Path | None]:
        """Write the case under ``project/.claude/agents`` (and ``home/.claude/agents``).

        Returns the two agents folders (the user one is None when ``home`` is None).  The
        project folder is not made a git repository here; the recorder does that.
        """
        agents = project / ".claude" / "agents"
        _write_tree(agents, self.files)
        if self.project_files:
            _write_tree(project, self.project_files)
        if self.cwd:
            _write_tree(project, {f"{self.cwd}/.keep": b""})
        for rel, target in self.links.items():
            link = _inside(project, rel)
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(target)
        user = None
        if home is not None:
            user = home / ".claude" / "agents"
            if self.user_files:
                _write_tree(user, self.user_files)
        return agents, user


def _inside(root: Path, rel: str) -> Path:
    if rel.startswith("/") or ".." in Path(rel).parts:
        raise ValueError(f"case file path must stay inside the agents folder: {rel!r}")
    return root / rel


def _write_tree(root: Path, files: Mapping[str, bytes]) -> None:
    root.mkdir(parents=True, exist_ok=True)
    for rel, data in files.items():
        target = _inside(root, rel)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def raw(text: str, encoding: str = "utf-8") -> bytes:
    """Exact file bytes from text (no newline handling)."""
    return text.encode(encoding)


def md(front: str, body: str = "", *, newline: str = "\n") -> bytes:
    """``---`` + the frontmatter text + ``---`` + the body, as UTF-8.

    ``front`` is written as given (end it with a newline).  An empty ``body`` becomes a prompt
    line that names the first ``name:`` value, so each file's prompt is recognisable.
    """
    if not body:
        body = "Prompt text of this agent.\n"
    text = f"---\n{front}---\n{body}"
    if newline != "\n":
        text = text.replace("\n", newline)
    return text.encode("utf-8")


def agent(name: str, description: str | None = None, extra: str = "", body: str = "") -> bytes:
    """A plain valid file: ``name``, ``description`` (default: "Agent NAME."), extra lines."""
    desc = f"Agent {name}." if description is None else description
    return md(f"name: {name}\ndescription: {desc}\n{extra}", body or f"You are {name}.\n")
