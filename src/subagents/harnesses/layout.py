"""Where agents live: the scope folders of a directory, and a careful recursive folder scan.

This module knows the *layout* (which folders, in which order) and walks folders; it never
parses a file (that is :mod:`subagents.harnesses.loader`) and never decides a winner (that is
:mod:`subagents.registry.core`).

Design notes
------------
* Precedence, highest first (REFERENCE.md "Location and precedence"): managed; cli
  (``--agents`` JSON, ``register()``, then NanoClaw ``agents.json`` group and global: the
  same name in both, the group wins); project (``.claude/agents`` in the current folder and
  every parent up to the repository root, closest first); user (``~/.claude/agents``); plugin
  (``<plugin>/agents/**``); built-ins last.  Each folder (or JSON text/file) is a
  :class:`Source`; ``Source.order`` sorts them.  Two definitions of one name in *one* source are
  a clash; across sources the earlier one wins and the later is "shadowed".
* The repository root is the nearest folder holding ``.git`` (a folder, or a file for
  worktrees/submodules).  Outside a repository only the current folder is a project folder:
  walking to ``/`` would read ``~/.claude/agents`` (the *user* folder) a second time as a
  project folder whenever the cwd is under ``$HOME``.  For the same reason a project folder that
  *is* the user folder is dropped from the project list.
* The Codex dialect swaps ``.claude`` for ``.codex`` in the project and user folders;
  a project holding both trees is normal and never a clash, because one run sees one dialect.
* The walk follows symlinked folders (people link a shared agents folder into projects) but keeps
  the (device, inode) of every folder on the current path, so a symlink loop is reported once
  (SA604) instead of recursing forever.  Hidden entries (``.git``, editor lock files ``.#x.md``)
  are skipped.  Only ``*.md`` files are agent files in folder sources.
* Folder listings are cached by the folder's own stamp (mtime, size, inode): an unchanged folder
  is not listed again on reload.  A listing taken within :data:`RACY_NS` of the folder's mtime
  is not trusted (the "racy git" problem: a second change in the same timestamp tick would be
  invisible), so it is listed again next time.
* What a harness silently skips (:func:`harness_skip`) lives here too, as part of "what the
  harness picks up": Claude Code skips an empty or invalid ``name`` and an empty
  ``description``; codex-subagents rejects names outside ``[a-z][a-z0-9_-]{2,63}`` and empty or
  duplicate ``tools``/``keywords`` entries.  Built-in agents are listed here as the
  lowest source.
* Problems with folders are diagnostics, never exceptions: SA603 unreadable folder, SA604 symlink
  loop, SA605 an agents path that is not a folder.
"""

from __future__ import annotations

import os
import stat as stat_mod
import time
from collections.abc import Callable, Iterable
from dataclasses import field
from enum import StrEnum
from pathlib import Path
from typing import NamedTuple

from subagents._dataclass import dataclass
from subagents.definition import AgentDefinition, Dialect, Scope
from subagents.diagnostics import Diagnostic, Severity
from subagents.fs import find_git_root
from subagents.harnesses.plugins import (
    plugin_agent_paths,
    plugin_namespace,
    plugin_of,
    plugins_pinned,
)
from subagents.known_tools import AGENT_TOOL, AGENT_TOOL_NAMES
from subagents.names import CODEX_NAME

__all__ = [
    "BUILTIN_AGENTS",
    "RACY_NS",
    "DirListingCache",
    "FolderScan",
    "ScannedFile",
    "Source",
    "SourceKind",
    "Stamp",
    "find_git_root",
    "harness_skip",
    "plan_sources",
    "plugin_agent_paths",
    "plugin_namespace",
    "plugin_of",
    "plugins_pinned",
    "project_folders",
    "scan_folder",
]

# A stamp this close to "now" may hide a second change in the same filesystem tick.
RACY_NS = 100_000_000


class Stamp(NamedTuple):
    """What a reload compares: codex-subagents' mtime cache, plus size and inode.

    A NamedTuple, not a dataclass: a reload compares one stamp per file, and tuple equality
    runs in C.
    """

    mtime_ns: int
    size: int
    ino: int
    dev: int

    @classmethod
    def of(cls, st: os.stat_result) -> Stamp:
        return cls(st.st_mtime_ns, st.st_size, st.st_ino, st.st_dev)

    def racy(self, observed_ns: int) -> bool:
        """True when the file may change again without its stamp changing."""
        return observed_ns - self.mtime_ns < RACY_NS


class SourceKind(StrEnum):
    FOLDER = "folder"  # a folder of Markdown agent files, scanned recursively
    AGENT_FILE = "agent-file"  # one Markdown agent file (a plugin manifest's `agents` entry)
    JSON_TEXT = "json-text"  # the --agents value
    JSON_FILE = "json-file"  # a NanoClaw agents.json
    REGISTERED = "registered"  # definitions given to AgentRegistry.register()
    BUILTIN = "builtin"  # general-purpose, Explore, Plan


@dataclass(frozen=True, slots=True)
class Source:
    """One place definitions come from; ``order`` sorts sources by precedence (lower wins)."""

    scope: Scope
    kind: SourceKind
    rank: int
    label: str
    root: Path | None = None
    dialect: Dialect = Dialect.CLAUDE
    plugin: str | None = None
    text: str | None = field(default=None, repr=False)

    @property
    def order(self) -> tuple[int, int]:
        return (self.scope.precedence, self.rank)


def _agents_subpath(dialect: Dialect) -> Path:
    return Path(".codex" if dialect is Dialect.CODEX_MD else ".claude") / "agents"


def project_folders(cwd: Path, dialect: Dialect = Dialect.CLAUDE) -> list[Path]:
    """Project agents folders, closest first: cwd and every parent up to the git root."""
    sub = _agents_subpath(dialect)
    root = find_git_root(cwd)
    if root is None:
        return [cwd / sub]
    folders = []
    for folder in (cwd, *cwd.parents):
        folders.append(folder / sub)
        if folder == root:
            break
    return folders


def user_folder(home: Path, dialect: Dialect = Dialect.CLAUDE) -> Path:
    return home / _agents_subpath(dialect)


def _same_folder(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return a == b


def plan_sources(
    *,
    cwd: Path,
    home: Path,
    dialect: Dialect,
    managed_dir: Path | None,
    cli_text: str | None,
    agents_json: tuple[Path | None, Path | None] | None,
    plugin_dirs: Iterable[Path],
) -> list[Source]:
    """Every source of a directory, in precedence order (built-ins excluded)."""
    sources: list[Source] = []
    if managed_dir is not None:
        sources.append(Source(Scope.MANAGED, SourceKind.FOLDER, 0, "managed", managed_dir, dialect))
    # cli: register() (rank 0, added by the registry), --agents (1), agents.json group (2),
    # agents.json global (3) -- the group file wins a clash with the global one.
    if cli_text is not None:
        sources.append(
            Source(
                Scope.CLI, SourceKind.JSON_TEXT, 1, "--agents", None, Dialect.JSON, None, cli_text
            )
        )
    if agents_json is not None:
        global_path, group_path = agents_json
        if group_path is not None:
            sources.append(
                Source(
                    Scope.CLI,
                    SourceKind.JSON_FILE,
                    2,
                    "agents.json (group)",
                    group_path,
                    Dialect.JSON,
                )
            )
        if global_path is not None:
            sources.append(
                Source(
                    Scope.CLI,
                    SourceKind.JSON_FILE,
                    3,
                    "agents.json (global)",
                    global_path,
                    Dialect.JSON,
                )
            )
    user = user_folder(home, dialect)
    for rank, folder in enumerate(project_folders(cwd, dialect)):
        if _same_folder(folder, user):
            continue
        label = "project" if rank == 0 else f"project (parent {rank})"
        sources.append(Source(Scope.PROJECT, SourceKind.FOLDER, rank, label, folder, dialect))
    sources.append(Source(Scope.USER, SourceKind.FOLDER, 0, "user", user, dialect))
    for rank, plugin_dir in enumerate(plugin_dirs):
        name = plugin_namespace(plugin_dir)
        for where in plugin_agent_paths(plugin_dir):
            kind = SourceKind.AGENT_FILE if where.suffix == ".md" and not where.is_dir() else (
                SourceKind.FOLDER)
            sources.append(
                Source(Scope.PLUGIN, kind, rank, f"plugin {name}", where, Dialect.CLAUDE, name)
            )
    return sources


# the delegation tool under both its names (known_tools.AGENT_TOOL_NAMES), old name first
_READ_ONLY_DENY = ("Write", "Edit", "MultiEdit", "NotebookEdit",
                   *sorted(AGENT_TOOL_NAMES, key=lambda n: n == AGENT_TOOL))

# Claude Code's built-in agents (REFERENCE.md "Built-in agents"), lowest precedence.
BUILTIN_AGENTS: tuple[AgentDefinition, ...] = (
    AgentDefinition(
        name="general-purpose",
        description="General-purpose agent for researching complex questions, searching for "
        "code, and executing multi-step tasks. Use it when no specialised agent fits.",
        system_prompt="You are an agent working on a task delegated to you by another agent. "
        "Use the tools available to complete it fully, then reply with a concise final report: "
        "what you did, what you found, and anything the caller must know. Your final message is "
        "the only thing the caller sees.",
        source=Scope.BUILTIN,
    ),
    AgentDefinition(
        name="Explore",
        description="Fast read-only agent for exploring codebases: finding files, searching "
        "code and answering questions about how things work.",
        system_prompt="You explore a codebase to answer questions. You never modify files. "
        "Search broadly, read what matters, and answer with file paths and line numbers.",
        model="haiku",
        disallowed_tools=_READ_ONLY_DENY,
        source=Scope.BUILTIN,
    ),
    AgentDefinition(
        name="Plan",
        description="Read-only planning agent: researches the codebase and proposes a "
        "step-by-step implementation plan without changing anything.",
        system_prompt="You research the codebase and produce an implementation plan: the files "
        "to change, in order, with the reason for each step. You never modify files.",
        disallowed_tools=_READ_ONLY_DENY,
        source=Scope.BUILTIN,
    ),
)


# --------------------------------------------------------------------------- folder scanning


# (path, extra id segments from subfolders -- plugin sources use them: ("sub", "deeper")).
# A plain tuple: a reload builds one per file, and NamedTuple construction is Python-level.
ScannedFile = tuple[Path, tuple[str, ...]]


@dataclass(slots=True)
class FolderScan:
    files: list[ScannedFile] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    folders: list[Path] = field(default_factory=list)  # every folder visited (for watching)
    exists: bool = True


@dataclass(slots=True)
class _Listing:
    stamp: Stamp
    files: tuple[Path, ...]
    dirs: tuple[Path, ...]


class DirListingCache:
    """Folder listings keyed by path, reused while the folder's stamp is unchanged."""

    def __init__(self) -> None:
        self._listings: dict[tuple[Path, bool], _Listing] = {}

    def list(
        self, folder: Path, st: os.stat_result, *, hidden: bool = False
    ) -> tuple[tuple[Path, ...], tuple[Path, ...]]:
        """(files, folders) in ``folder``; the same Path objects while it is unchanged (their
        cached hashes make the registry's per-file dict lookups cheap on reload).  ``hidden``:
        include dot-files and dot-folders (Claude Code's scan does; Codex's does not)."""
        stamp = Stamp.of(st)
        cached = self._listings.get((folder, hidden))
        if cached is not None and cached.stamp == stamp:
            return cached.files, cached.dirs
        now = time.time_ns()
        files: list[str] = []
        dirs: list[str] = []
        with os.scandir(folder) as it:
            for entry in it:
                name = entry.name
                if name.startswith(".") and not hidden:
                    continue
                try:
                    is_dir = entry.is_dir()  # follows symlinks
                except OSError:
                    is_dir = False
                if is_dir:
                    dirs.append(name)
                elif name.endswith(".md"):
                    files.append(name)
        listing = _Listing(
            stamp,
            tuple(folder / name for name in sorted(files)),
            tuple(folder / name for name in sorted(dirs)),
        )
        if not stamp.racy(now):
            self._listings[(folder, hidden)] = listing
        else:
            self._listings.pop((folder, hidden), None)
        return listing.files, listing.dirs

    def forget(self, folder: Path) -> None:
        self._listings.pop((folder, False), None)
        self._listings.pop((folder, True), None)


def _diag(path: str, rule: str, severity: Severity, message: str, hint: str) -> Diagnostic:
    return Diagnostic(
        path=path, line=None, column=None, rule=rule, severity=severity, message=message, hint=hint
    )


def scan_folder(
    root: Path,
    *,
    display: Callable[[Path], str],
    cache: DirListingCache | None = None,
    hidden: bool = False,
) -> FolderScan:
    """Every ``*.md`` file under ``root``, recursively, with folder problems as diagnostics.

    ``hidden``: dot-files and dot-folders too (as Claude Code's ripgrep scan with ``--hidden``).
    """
    result = FolderScan()
    cache = cache or DirListingCache()
    try:
        st = os.stat(root)
    except FileNotFoundError:
        result.exists = False
        return result
    except OSError as exc:
        result.exists = os.path.lexists(root)
        if _is_loop(exc):
            result.diagnostics.append(_loop_diag(root, display))
        else:
            result.diagnostics.append(_unreadable_diag(root, exc, display))
        return result
    if not stat_mod.S_ISDIR(st.st_mode):
        result.diagnostics.append(
            _diag(
                display(root),
                "SA605",
                Severity.ERROR,
                f"{display(root)} is a file, not a folder: no agents are read from it",
                "agents live in a folder of .md files; move this file into a folder of that name",
            )
        )
        return result
    _walk(root, st, (), frozenset(), result, display, cache, hidden)
    return result


def _is_loop(exc: OSError) -> bool:
    import errno

    return exc.errno == errno.ELOOP


def _loop_diag(path: Path, display: Callable[[Path], str]) -> Diagnostic:
    return _diag(
        display(path),
        "SA604",
        Severity.WARNING,
        f"symlink loop at {display(path)}: the folder leads back to itself; not followed",
        "remove the symlink or point it outside the agents folder",
    )


def _unreadable_diag(path: Path, exc: OSError, display: Callable[[Path], str]) -> Diagnostic:
    return _diag(
        display(path),
        "SA603",
        Severity.ERROR,
        f"cannot read folder {display(path)}: {exc.strerror or exc}; its agents are not loaded",
        "check the folder's permissions (it needs r and x for this user)",
    )


def _walk(
    folder: Path,
    st: os.stat_result,
    segments: tuple[str, ...],
    ancestors: frozenset[tuple[int, int]],
    result: FolderScan,
    display: Callable[[Path], str],
    cache: DirListingCache,
    hidden: bool = False,
) -> None:
    key = (st.st_dev, st.st_ino)
    if key in ancestors:
        result.diagnostics.append(_loop_diag(folder, display))
        return
    ancestors = ancestors | {key}
    result.folders.append(folder)
    try:
        files, dirs = cache.list(folder, st, hidden=hidden)
    except FileNotFoundError:
        return  # removed while we were scanning: it simply has no agents now
    except OSError as exc:
        if _is_loop(exc):
            result.diagnostics.append(_loop_diag(folder, display))
        else:
            result.diagnostics.append(_unreadable_diag(folder, exc, display))
        return
    for path in files:
        result.files.append((path, segments))
    for sub in dirs:
        try:
            sub_st = os.stat(sub)
        except FileNotFoundError:
            continue
        except OSError as exc:
            if _is_loop(exc):
                result.diagnostics.append(_loop_diag(sub, display))
            else:
                result.diagnostics.append(_unreadable_diag(sub, exc, display))
            continue
        if stat_mod.S_ISDIR(sub_st.st_mode):
            _walk(sub, sub_st, (*segments, sub.name), ancestors, result, display, cache, hidden)


# --------------------------------------------------------------------------- what harnesses skip


def harness_skip(defn: AgentDefinition, display: str, dialect: Dialect, *,
                 colon_ok: bool = False) -> Diagnostic | None:
    """Why a harness would not load this definition (None: it would).

    The registry only: an empty ``name`` (SA102), a ``name`` with ``:`` or a leading ``-``
    (SA101, Claude Code skips those; ``colon_ok``: an ``--agents`` key may hold ``:``), an
    empty ``description`` outside Codex (SA103), and
    codex-subagents' own rejections.  The full rule set is ``validate``'s job.
    """
    loc = defn.location_of("name")
    line = loc.line if loc else 1
    if not defn.name.strip():
        return _line_diag(
            display,
            "SA102",
            "`name` is missing or empty: the agent is not loaded",
            "add `name: my-agent` to the front matter",
            line=line,
        )
    if (":" in defn.name and not colon_ok) or defn.name.startswith("-"):
        return _line_diag(
            display,
            "SA101",
            f"invalid name {defn.name!r} (contains ':' or starts with '-'): "
            "Claude Code skips this agent",
            "use lowercase letters, digits and hyphens",
            line=line,
        )
    if dialect is not Dialect.CODEX_MD and not defn.description.strip():
        dloc = defn.location_of("description")
        return _line_diag(
            display,
            "SA103",
            f"`description` of {defn.name!r} is missing or empty: the agent is not loaded",
            "say when to use the agent in `description`",
            line=dloc.line if dloc else line,
        )
    if dialect is Dialect.CODEX_MD:
        return _codex_skips(defn, display, line)
    return None


def _codex_skips(defn: AgentDefinition, display: str, line: int) -> Diagnostic | None:
    """What codex-subagents' parser rejects, header part.

    (Empty instructions are checked when the body is loaded: discovery does not read it.)
    """
    if not CODEX_NAME.matches(defn.name):
        return _line_diag(
            display,
            "SA501",
            f"Codex name {defn.name!r} does not match {CODEX_NAME.pattern}: not loaded",
            "use lowercase letters, digits, '_' and '-', starting with a letter (3-64 chars)",
            line=line,
        )
    for key, values in (("tools", defn.tools or ()), ("keywords", defn.keywords)):
        loc = defn.location_of(key)
        where = loc.line if loc else line
        if any(not v.strip() for v in values):
            return _line_diag(
                display,
                "SA502",
                f"an empty entry in `{key}`: not loaded",
                f"remove the empty string from `{key}`",
                line=where,
            )
        if len(set(values)) != len(values):
            return _line_diag(
                display,
                "SA503",
                f"a duplicate entry in `{key}`: not loaded",
                f"list each entry of `{key}` once",
                line=where,
            )
    return None


def _line_diag(path: str, rule: str, message: str, hint: str, line: int) -> Diagnostic:
    return Diagnostic(
        path=path,
        line=line,
        column=1,
        rule=rule,
        severity=Severity.ERROR,
        message=message,
        hint=hint,
    )
