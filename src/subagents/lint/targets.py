"""Which files a ``validate`` run reads: the folders walked, the files taken, their scope.

Design notes
------------
* Walking a folder takes ``*.md`` files (except well-known non-agent files such as README.md,
  CLAUDE.md, AGENTS.md, SKILL.md, and the ``skills``/``commands`` folders) and JSON files named
  ``agents.json`` / ``*.agents.json`` (a ``package.json`` is not an agent file); a JSON file
  named explicitly is always read.  Inside a ``.claude/agents`` folder the walk is Claude
  Code's own (every folder, every ``*.md``).  Symlinks are not followed into folders; a
  symlinked file that resolves outside the folder being walked is marked so that
  :mod:`subagents.lint.judge` reports it (``SA402``) and never reads it.  The walk takes which
  files are links from the folder listing (no ``lstat`` per file).
* Dialect comes from the location (``loader.detect_dialect``) unless the caller forces one.
* The *scope* for duplicate names is the nearest ``agents``/``agent`` folder above a file
  (Claude Code scans agents folders recursively; subfolders do not change an id), else the
  folder that was walked, and never mixes dialects: ``.claude/agents`` and ``.codex/agents``
  holding the same names is not a clash.  Each ``agents.json`` is a scope of its own.
* With no paths: the sources the registry plans (:func:`default_sources`), plus what every
  other harness reads in this project (:func:`harness_project_paths`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from subagents._dataclass import dataclass
from subagents.definition import Dialect
from subagents.diagnostics import Diagnostic
from subagents.harnesses.loader import detect_dialect
from subagents.harnesses.table import SPECS
from subagents.lint.rules.security import path_escapes

TYPE_CHECKING = False
if TYPE_CHECKING:
    from subagents.harnesses.layout import Source

__all__ = [
    "default_paths",
    "default_sources",
    "harness_project_paths",
    "iter_agent_files",
    "source_roots",
]


_SKIP_FILES = frozenset(
    {"readme.md", "changelog.md", "contributing.md", "license.md", "code_of_conduct.md",
     "security.md", "claude.md", "agents.md", "skill.md", "gemini.md"}
)


_SKIP_DIRS = frozenset(
    {"node_modules", "__pycache__", "skills", "commands", "venv", "site-packages"}
)


# the hidden folders of the other harnesses (the harness table)
_HARNESS_DOT_DIRS = frozenset(spec.dot_dir for spec in SPECS if spec.name != "claude")


_AGENT_DOT_DIRS = frozenset({".claude", *_HARNESS_DOT_DIRS})


@dataclass(frozen=True, slots=True)
class _Target:
    """A file to validate: where it is, how it is shown, which reader reads it."""

    path: Path
    display: str
    dialect: Dialect | None
    root: Path  # the folder it was found in
    scope: str
    #: Could the path lead out of ``root``?  Walked files can only through a symlink (the walk
    #: never follows linked folders); an explicitly named file is always checked.
    may_escape: bool = True
    #: ``os.path.abspath(path)`` (the result cache keys files by it, and a plugin's agent is
    #: found by it): for a walked file, its folder's worked out once and its name joined
    apath: str = ""


def _agents_folder(p: Path, stop: Path | None = None) -> Path | None:
    """The outermost ``agents``/``agent`` folder above ``p`` (not above ``stop``): Claude Code
    reads an agents folder recursively, so ``.claude/agents/x/agents/a.md`` and
    ``.claude/agents/y/agents/a.md`` (copied plugins) are one scope and one name clash; and
    under a ``.claude/agents`` folder everything is that folder's, as for Claude Code."""
    text = p.absolute().as_posix()
    cut = text.find("/.claude/agents/")
    if cut >= 0:
        return Path(text[: cut + len("/.claude/agents")])
    found = None
    for parent in p.parents:
        if parent.name in ("agents", "agent"):
            found = parent
            if parent.parent.name.startswith("."):  # a harness's own folder: the top
                break
        if stop is not None and parent == stop:
            break
    return found


def _is_agent_candidate(name: str) -> bool:
    """Does a file met while walking look like an agent file?  (Named files always are.)"""
    low = name.lower()
    if low.endswith(".md"):
        return low not in _SKIP_FILES
    return low == "agents.json" or low.endswith(".agents.json")


def iter_agent_files(
    folder: Path, display: str, *, report_links: bool = False
) -> Iterator[tuple[Path, str, bool]]:
    """``(path, display path, is_symlink)`` of every candidate agent file under ``folder``.

    Linked folders are never descended.  With ``report_links``, one that leads outside
    ``folder`` is yielded itself (``is_symlink=True``) so that validation can report it
.  Callers that write (``fix``) should refuse linked files that resolve
    outside the folder (``subagents.lint.rules.security.path_escapes``).
    """
    for full, shown, linked, _dirpath, _name in _walk_agent_files(folder, display,
                                                                 report_links=report_links):
        yield Path(full), shown, linked


def _shown(base: str, name: str) -> str:
    """``os.path.normpath(os.path.join(display, rel, name))`` from ``base``, the normalised
    ``join(display, rel)`` worked out once per folder: a file name has no separator and is
    never ``.`` or ``..``, so joining it to a normalised folder is already normal."""
    return name if base == "." else os.path.join(base, name)


def _joined(folder: str) -> str:
    """What a walked file's name follows in ``os.path.join(folder, name)``: the folder with
    the separator ``join`` puts after it (none after an empty folder or one that ends in a
    separator).  A name has no separator and no drive, so ``join`` only ever appends it:
    worked out once a folder, a file's path is one concatenation, not a call of ``join``
    (tests/test_targets_child_paths.py compares the two)."""
    return os.path.join(folder, "")


def _walk_agent_files(
    folder: Path, display: str, *, report_links: bool = False
) -> Iterator[tuple[str, str, bool, str, str]]:
    """:func:`iter_agent_files` with plain strings: ``(path, display path, is_symlink, its
    folder, its name)`` (validate groups files by folder without building a path object)."""
    real_root = os.path.realpath(folder)
    for dirpath, dirnames, filenames, linked in _walk(os.fspath(folder)):
        # absolute, so that a relative walk (`validate .codex/agents`) sees the same folders
        posix = os.path.abspath(dirpath).replace(os.sep, "/") + "/"
        # Inside a .claude/agents folder the walk is Claude Code's own: every folder (hidden
        # ones, skills/, node_modules/ too) and every *.md file (README.md too), since Claude
        # Code reads them all as agents (claude_code/scan.py)
        in_claude = "/.claude/agents/" in posix
        dirnames[:] = sorted(
            d for d in dirnames
            if in_claude or (d not in _SKIP_DIRS
                             and (not d.startswith(".") or d in _AGENT_DOT_DIRS))
        )
        rel = os.path.relpath(dirpath, folder)
        base = os.path.normpath(os.path.join(display, rel))
        # (what `_shown` and `os.path.join(dirpath, name)` give, as concatenations: `_joined`)
        shown_at = "" if base == "." else _joined(base)
        full_at = _joined(dirpath)
        for d in dirnames if report_links else ():
            link = os.path.join(dirpath, d)
            if os.path.islink(link) and path_escapes(link, real_root):
                yield link, _shown(base, d), True, dirpath, d
        in_codex = "/.codex/agents/" in posix
        # another harness's folder holds more than agents (.github/workflows, .cursor/rules,
        # .gemini/commands): only what that harness reads as an agent is walked
        other_harness = not in_claude and any(f"/{d}/" in posix for d in _HARNESS_DOT_DIRS)
        for name in sorted(filenames):
            if in_claude:  # (and agents.json stores, which are ours to check wherever they are)
                if not (name.endswith(".md") or (_is_agent_candidate(name)
                                                 and name.lower().endswith(".json"))):
                    continue
            elif not (_is_agent_candidate(name)
                      or (in_codex and name.lower().endswith(".toml"))):
                continue
            full = full_at + name
            if other_harness and detect_dialect(full) in (Dialect.CLAUDE, None):
                continue
            yield full, shown_at + name, name in linked, dirpath, name


def _walk(top: str) -> Iterator[tuple[str, list[str], list[str], frozenset[str]]]:
    """``os.walk(top, followlinks=False)`` (top down, errors skipped), each folder also with
    the names of its files that are symbolic links, as the folder listing says (its entry
    types: no ``lstat`` per file, which ``os.path.islink`` costs)."""
    dirs: list[str] = []
    nondirs: list[str] = []
    links: list[str] = []
    try:
        scandir_it = os.scandir(top)
    except OSError:
        return
    with scandir_it:
        while True:
            try:
                entry = next(scandir_it)
            except StopIteration:
                break
            except OSError:
                return
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            if is_dir:
                dirs.append(entry.name)
                continue
            nondirs.append(entry.name)
            try:
                if entry.is_symlink():
                    links.append(entry.name)
            except OSError:  # (what os.path.islink answers when lstat fails)
                pass
    yield top, dirs, nondirs, frozenset(links)
    for dirname in dirs:  # (as pruned by the caller)
        new_path = os.path.join(top, dirname)
        if not os.path.islink(new_path):
            yield from _walk(new_path)


def _display(p: Path, given: str | None) -> str:
    """As the user typed it, else one spelling for every command (:mod:`subagents.fs`)."""
    if given is not None:
        return given
    from subagents.fs import display_path

    return display_path(p)


def default_sources(
    cwd: Path | None = None, home: Path | None = None, dialect: Dialect | None = None
) -> list[Source]:
    """The folder and ``agents.json`` sources the registry reads for this directory.

    Built by :func:`subagents.harnesses.layout.plan_sources`, the function the registry plans its
    scopes with, so ``validate``, ``fix``, ``list`` and ``doctor`` read the same folders.  The
    CLI passes the registry's own plan (with ``--managed-dir``/plugins from the environment)
    through ``subagents.registry.configured.scope_sources``.
    """
    from subagents.harnesses.layout import plan_sources

    chosen = Dialect.CODEX_MD if dialect is Dialect.CODEX_MD else Dialect.CLAUDE
    return plan_sources(
        cwd=(cwd or Path.cwd()).absolute(), home=home or Path.home(), dialect=chosen,
        managed_dir=None, cli_text=None, agents_json=None, plugin_dirs=(),
    )


def default_paths(
    cwd: Path | None = None, home: Path | None = None, dialect: Dialect | None = None
) -> list[Path]:
    """Agents folders the current project sees that exist: project folders up to the git root
    (closest first), then the user's (``.codex/agents`` for the Codex dialect)."""
    return [s.root for s in default_sources(cwd, home, dialect)
            if s.root is not None and s.root.is_dir()]


def harness_project_paths(cwd: Path | None = None, home: Path | None = None) -> list[Path]:
    """The agent folders and files every harness but Claude Code reads in this project (the
    harness table's project locations that exist), for ``validate`` with no path: a project's
    ``.codex/agents`` or ``.gemini/agents`` is checked as its harness reads it."""
    from subagents.harnesses import get_harness
    from subagents.harnesses.layout import find_git_root

    start = (cwd or Path.cwd()).absolute()
    project = find_git_root(start) or start
    claude = project / ".claude"
    found: list[Path] = []
    for spec in SPECS:
        if spec.name == "claude":
            continue
        for loc in get_harness(spec.name).locations(project, home or Path.home()):
            path = loc.path
            if (loc.scope == "project" and path not in found and os.path.lexists(path)
                    and not path.is_relative_to(claude)):
                found.append(path)
    return found


def source_roots(
    sources: Sequence[Source],
) -> tuple[list[Path], list[Diagnostic]]:
    """The roots of ``sources`` that can be read, and a diagnostic for each that cannot (an
    agents folder that is a file: the registry's own finding, so every command says the same)."""
    from subagents.harnesses.layout import SourceKind, scan_folder

    roots: list[Path] = []
    problems: list[Diagnostic] = []
    for src in sources:
        root = src.root
        if root is None or src.kind not in (SourceKind.FOLDER, SourceKind.JSON_FILE,
                                            SourceKind.AGENT_FILE):
            continue
        if not os.path.lexists(root) or root in roots:
            continue
        if src.kind is SourceKind.FOLDER and not root.is_dir():
            problems.extend(scan_folder(root, display=lambda q: _display(q, None)).diagnostics)
            continue
        roots.append(root)
    return roots, problems


# ``Path._make_child_relpath`` (CPython 3.11, 3.12): the folder's path object with one more
# part, as iterdir makes its children -- a sixth of the cost of parsing the whole path again.
_make_child: Callable[[Path, str], Path] | None = getattr(Path, "_make_child_relpath", None)


def _child(folder: Path, name: str, full: str, text_at: str | None = None) -> Path:
    """``Path(full)``, where ``full`` is ``os.path.join(folder, name)`` and ``name`` a walked
    file's name (no separator, never ``.`` or ``..``): the same path (equal, same text).
    ``text_at``: :func:`_child_text_at` of ``folder``, when the caller worked it out."""
    if _make_child is not None:
        try:
            child = _make_child(folder, name)
        except Exception:  # another pathlib: parse it as always
            return Path(full)
        if _SETS_TEXT:
            # the path's text, which opening the file asks for (``os.fspath``): pathlib would
            # join its parts for it, and the folder's text is known
            child._str = (  # type: ignore[attr-defined]
                (_child_text_at(folder) if text_at is None else text_at) + name)
        return child
    return Path(full)


def _child_text_at(folder: Path) -> str:
    """The text a child of ``folder`` starts with: ``str(folder / name)`` is it plus
    ``name`` (``folder / name`` of ``.`` is ``name``; a root's text ends in a separator)."""
    text = str(folder)
    return "" if text == "." else _joined(text)


# Python 3.11's ``_make_child_relpath`` leaves the child's text to be joined on first use
# (a ``_str`` slot, filled by ``__str__``); 3.12's sets it itself.
_SETS_TEXT = _make_child is not None and sys.version_info[:2] == (3, 11)


def _targets(paths: Sequence[Path], given: Sequence[str | None],
             dialect: Dialect | None) -> Iterator[_Target]:
    for p, shown in zip(paths, given, strict=True):
        display = _display(p, shown)
        if p.is_dir():
            # dialect and scope depend on the folder (and the name's suffix): compute once each
            cache: dict[tuple[str, str], tuple[Dialect, str]] = {}
            # each walked folder's absolute path (a file name has no separator and is never
            # `.` or `..`: joined to a normalised folder, it is what abspath of the file says),
            # its path object, the file's made from it (see _child), and that object's text,
            # the first and last as what a file's name is appended to (`_joined`)
            absolute: dict[str, tuple[str, Path, str]] = {}
            for name_, fdisplay, linked, dirpath, name in _walk_agent_files(
                    p, display, report_links=True):
                known = absolute.get(dirpath)
                if known is None:
                    folder_path = Path(dirpath)
                    known = absolute[dirpath] = (_joined(os.path.abspath(dirpath)), folder_path,
                                                 _child_text_at(folder_path))
                full = _child(known[1], name, name_, known[2])
                low = name.lower()
                kind = ".json" if low.endswith(".json") else (
                    ".agent.md" if low.endswith(".agent.md") else ".md")
                key = (dirpath, kind)  # (the walk spells one folder one way)
                if key not in cache:
                    root_for_scope = _agents_folder(full, stop=p) or p
                    d = dialect or detect_dialect(full) or Dialect.CLAUDE
                    cache[key] = (d, f"{d}:{root_for_scope.absolute()}")
                d, scope = cache[key]
                if d is Dialect.JSON:  # each agents.json is its own namespace
                    scope = f"{d}:{full.absolute()}"
                # (by position, in the order of the fields: a fifth cheaper than keywords)
                yield _Target(full, fdisplay, d, p, scope, linked, known[0] + name)
        else:
            root = _agents_folder(p.absolute()) or p.absolute().parent
            d = dialect or detect_dialect(p) or Dialect.CLAUDE
            scope = f"{d}:{p.absolute()}" if d is Dialect.JSON else f"{d}:{root}"
            yield _Target(p, display, d, root, scope, apath=os.path.abspath(p))
