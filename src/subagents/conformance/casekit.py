"""The shape of a conformance case and helpers to write its files.

A case is a small, self-made project: files for ``.claude/agents/`` (relative path -> exact
bytes), optional files for ``~/.claude/agents/``, optional files anywhere in the project (for
nested ``.claude/agents`` folders, with ``cwd`` naming the folder Claude Code starts in),
symbolic links (link path -> target as written), and the agents to launch so that the model
id, tools and prompt each really gets are recorded.  A case may also start Claude Code with
plugin folders (``--plugin-dir``, folders of the project) or an ``--agents`` value, and write
files into HOME (``~/.claude.json``: which folders the user trusted, user MCP servers).
``{PROJECT}`` and ``{HOME}`` in any file, link target or ``--agents`` value are replaced by the
two folders' real paths when the case is written (``~/.claude.json`` keys folders by path).
Cases are written by this project; nothing in them comes from the corpus.

Design decision: file contents are bytes, so encodings, BOMs, CRLF and size limits are exact.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Case", "agent", "fill", "md", "raw"]


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
    # folders of the project (relative to the root) given to Claude Code as --plugin-dir
    plugin_dirs: tuple[str, ...] = ()
    cli_agents: str | None = None  # the --agents value
    home_files: Mapping[str, bytes] = field(default_factory=dict)  # relative to HOME
    home_links: Mapping[str, str] = field(default_factory=dict)  # relative to HOME -> target
    # top-level parameters of a launched agent's request to record (e.g. "output_config")
    request_params: tuple[str, ...] = ()

    def claude_args(self, project: Path, home: Path) -> list[str]:
        """The extra command-line arguments of this case (paths made absolute)."""
        args: list[str] = []
        for folder in self.plugin_dirs:
            args += ["--plugin-dir", str(_inside(project, folder))]
        if self.cli_agents is not None:
            args += ["--agents", fill(self.cli_agents, project, home)]
        return args

    def materialise(self, project: Path, home: Path | None = None) -> tuple[Path, Path | None]:
        """Write the case under ``project/.claude/agents`` (and ``home/.claude/agents``).

        Returns the two agents folders (the user one is None when ``home`` is None).  The
        project folder is not made a git repository here; the recorder does that.
        """
        fill_home = home if home is not None else project
        agents = project / ".claude" / "agents"
        if ".claude/agents" not in self.links:  # else the folder itself is a link
            _write_tree(agents, self.files, project, fill_home)
        if self.project_files:
            _write_tree(project, self.project_files, project, fill_home)
        if self.cwd:
            _write_tree(project, {f"{self.cwd}/.keep": b""})
        for rel, target in self.links.items():
            link = _inside(project, rel)
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(fill(target, project, fill_home))
        user = None
        if home is not None:
            user = home / ".claude" / "agents"
            if self.user_files:
                _write_tree(user, self.user_files, project, home)
            if self.home_files:
                _write_tree(home, self.home_files, project, home)
            for rel, target in self.home_links.items():
                link = _inside(home, rel)
                link.parent.mkdir(parents=True, exist_ok=True)
                link.symlink_to(fill(target, project, home))
        return agents, user


def _inside(root: Path, rel: str) -> Path:
    if rel.startswith("/") or ".." in Path(rel).parts:
        raise ValueError(f"case file path must stay inside the agents folder: {rel!r}")
    return root / rel


def fill(text: str, project: Path, home: Path) -> str:
    """``text`` with ``{PROJECT}`` and ``{HOME}`` replaced by the two folders' paths."""
    return text.replace("{PROJECT}", str(project)).replace("{HOME}", str(home))


def _write_tree(root: Path, files: Mapping[str, bytes], project: Path | None = None,
                home: Path | None = None) -> None:
    root.mkdir(parents=True, exist_ok=True)
    for rel, data in files.items():
        target = _inside(root, rel)
        target.parent.mkdir(parents=True, exist_ok=True)
        if project is not None and home is not None and b"{" in data:
            target.write_bytes(data.replace(b"{PROJECT}", str(project).encode())
                               .replace(b"{HOME}", str(home).encode()))
        else:
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
