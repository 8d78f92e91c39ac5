"""Validate agent files and folders: read, run the rules, filter, re-map severities, summarise.

Design notes
------------
* One bad file never stops the others: the reader turns bad input into diagnostics, the rule
  engine turns a crashing rule into ``SA000`` (and so does this module for a crashing reader),
  and every file is handled on its own.
* Dialect comes from the location (``loader.detect_dialect``) unless ``dialect=`` forces one.
  Walking a folder takes ``*.md`` files (except well-known non-agent files such as README.md,
  CLAUDE.md, AGENTS.md, SKILL.md, and the ``skills``/``commands`` folders) and JSON files named
  ``agents.json`` / ``*.agents.json`` (a ``package.json`` is not an agent file); a JSON file
  named explicitly is always read.  Symlinks are not followed into folders; a symlinked file
  that resolves outside the folder being walked is ``SA402`` and is never read.
* The *scope* for duplicate names is the nearest ``agents``/``agent`` folder above a file (Claude
  Code scans agents folders recursively; subfolders do not change an id), else the folder that
  was walked, and never mixes dialects: ``.claude/agents`` and ``.codex/agents`` holding the
  same names is not a clash.  Each ``agents.json`` is a scope of its own (NanoClaw's global
  and per-group files overlay each other by design; a key twice in one file is ``SA007``).
* Severities: reader and rule diagnostics are re-mapped through the catalogue for the profile
  (``strict`` flag or ``strict = true`` in config).  Filtering, in order: ``select`` (command
  line replaces config), then ``ignore`` (config + command line + ``per-file-ignores`` + the
  in-file ``# subagents: ignore[...]`` comment, which cannot silence security rules).  A rule
  that is off in the profile is turned on when selected by its code, a code prefix narrower
  than ``SA`` (``SA2``) or its name -- as a warning, or its strict severity under --strict.
* With no paths: the agents the current project sees - ``.claude/agents`` in the current
  folder and each parent up to the git root, then ``~/.claude/agents`` (``.codex/agents``
  with ``dialect="codex"``).  The full precedence logic lives in the registry; this is the
  self-contained minimum for ``validate``.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from subagents._dataclass import dataclass
from subagents.definition import AgentDefinition, Dialect
from subagents.diagnostics import Diagnostic, Severity, count_by_severity, sort_diagnostics
from subagents.errors import UsageError
from subagents.harnesses.loader import (
    LoadResult,
    detect_dialect,
    harness_diagnostics,
    read_agent_file,
)
from subagents.harnesses.table import SPECS
from subagents.lint.config import Config, find_config, inline_ignores, load_config
from subagents.lint.harness_rules import HARNESS_DIALECTS
from subagents.lint.rules.base import FileContext, RuleContext
from subagents.lint.rules.catalog import RULES, Emitter, Profile, get_rule, matches
from subagents.lint.rules.claude_code import as_claude_code_loads, claude_code_reading
from subagents.lint.rules.engine import check_definition, check_file, wanted_checks
from subagents.lint.rules.scope import ScopedAgent, check_scope
from subagents.lint.rules.security import path_escapes

if TYPE_CHECKING:
    from subagents.harnesses.layout import Source
    from subagents.lint.cache import ResultCache

__all__ = [
    "ValidationReport",
    "default_paths",
    "default_sources",
    "harness_project_paths",
    "iter_agent_files",
    "source_roots",
    "validate_paths",
    "validate_text",
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
_UNREADABLE = frozenset({"SA001", "SA002", "SA011", "SA012", "SA015"})


@dataclass(slots=True)
class ValidationReport:
    """The outcome of one ``validate`` run."""

    files: int = 0
    agents: int = 0
    diagnostics: list[Diagnostic] = field(default_factory=list)
    strict: bool = False
    #: configuration files skipped because others could have written them (for stderr)
    config_warnings: list[str] = field(default_factory=list)

    @property
    def errors(self) -> int:
        return count_by_severity(self.diagnostics)[Severity.ERROR]

    @property
    def warnings(self) -> int:
        return count_by_severity(self.diagnostics)[Severity.WARNING]

    @property
    def infos(self) -> int:
        return count_by_severity(self.diagnostics)[Severity.INFO]

    @property
    def exit_code(self) -> int:
        return 1 if any(d.severity is Severity.ERROR for d in self.diagnostics) else 0

    def summary(self) -> dict[str, int]:
        counts = count_by_severity(self.diagnostics)
        return {
            "files": self.files,
            "agents": self.agents,
            "errors": counts[Severity.ERROR],
            "warnings": counts[Severity.WARNING],
        }

    def to_dict(self) -> dict[str, Any]:
        """The ``--format json`` contract of DESIGN.md."""
        return {
            "summary": self.summary(),
            "diagnostics": [d.to_dict() for d in self.diagnostics],
        }


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


@dataclass(slots=True)
class _Filter:
    """Which findings a run keeps: the profile, ``--select`` and ``--ignore``."""

    profile: Profile
    select: tuple[str, ...]
    ignore: tuple[str, ...]

    _kept: dict[str, bool] = field(default_factory=dict)
    _checks: tuple[tuple[Callable[..., Iterator[Diagnostic]], frozenset[str]], ...] | None = None

    def checks(self) -> tuple[tuple[Callable[..., Iterator[Diagnostic]], frozenset[str]], ...]:
        """The definition checks with a code this filter keeps (once per filter)."""
        if self._checks is None:
            self._checks = wanted_checks(self.keeps)
        return self._checks

    def keeps(self, code: str) -> bool:
        """Could a finding of ``code`` survive this filter (ignoring per-file silencers)?
        (Asked by rules for every definition: the answer is computed once per code.)"""
        known = self._kept.get(code)
        if known is not None:
            return known
        if (self.select and not matches(code, self.select)) or matches(code, self.ignore):
            answer = False
        else:
            rule = RULES.get(code)
            answer = rule is None or rule.severity(self.profile) is not None or _explicit(
                code, self.select)
        self._kept[code] = answer
        return answer

    def apply(self, diags: Iterable[Diagnostic], extra_ignore: Sequence[str],
              inline: Sequence[str]) -> Iterator[Diagnostic]:
        for d in diags:
            rule = RULES.get(d.rule)
            if self.select and not matches(d.rule, self.select) and d.rule != "SA000":
                continue
            if matches(d.rule, self.ignore) or matches(d.rule, extra_ignore):
                continue
            if inline and (rule is None or rule.silenceable) and matches(d.rule, inline):
                continue
            if rule is None or rule.emitter is Emitter.HARNESS:
                # a harness finding's severity follows its effect (lint/harness_rules.py),
                # which its declaration mirrors; one code (CP006) has two effects
                yield d
                continue
            severity = rule.severity(self.profile)
            if severity is None:
                if not _explicit(d.rule, self.select):
                    continue
                # selected although off in this profile: advice by default, the strict
                # severity under --strict
                severity = (
                    Severity.WARNING
                    if self.profile is Profile.DEFAULT
                    else rule.strict or Severity.WARNING
                )
            yield d if severity is d.severity else d.with_severity(severity)


def _explicit(code: str, selectors: Sequence[str]) -> bool:
    """Selected by its code, a code prefix narrower than ``SA`` (``SA2``), or its name."""
    for s in selectors:
        rule = get_rule(s)
        if rule is not None and rule.code == code:
            return True
        up = s.strip().upper()
        if len(up) > 2 and up.startswith("SA") and up[2:].isdigit() and code.startswith(up):
            return True
    return False


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


def _walk_agent_files(
    folder: Path, display: str, *, report_links: bool = False
) -> Iterator[tuple[str, str, bool, str, str]]:
    """:func:`iter_agent_files` with plain strings: ``(path, display path, is_symlink, its
    folder, its name)`` (validate groups files by folder without building a path object)."""
    real_root = os.path.realpath(folder)
    for dirpath, dirnames, filenames in os.walk(folder, followlinks=False):
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
            full = os.path.join(dirpath, name)
            if other_harness and detect_dialect(full) in (Dialect.CLAUDE, None):
                continue
            yield full, _shown(base, name), os.path.islink(full), dirpath, name


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


def _targets(paths: Sequence[Path], given: Sequence[str | None],
             dialect: Dialect | None) -> Iterator[_Target]:
    for p, shown in zip(paths, given, strict=True):
        display = _display(p, shown)
        if p.is_dir():
            # dialect and scope depend on the folder (and the name's suffix): compute once each
            cache: dict[tuple[str, str], tuple[Dialect, str]] = {}
            for name_, fdisplay, linked, dirpath, name in _walk_agent_files(
                    p, display, report_links=True):
                full = Path(name_)
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
                yield _Target(full, fdisplay, d, p, scope, may_escape=linked)
        else:
            root = _agents_folder(p.absolute()) or p.absolute().parent
            d = dialect or detect_dialect(p) or Dialect.CLAUDE
            scope = f"{d}:{p.absolute()}" if d is Dialect.JSON else f"{d}:{root}"
            yield _Target(p, display, d, root, scope)


def _file_text(result: LoadResult, path: Path, max_bytes: int) -> str | None:
    if result.document is not None:
        return result.document.text
    if any(d.rule in _UNREADABLE for d in result.diagnostics):
        return None
    try:
        with open(path, "rb") as fh:
            data = fh.read(max_bytes + 1)
        return data.decode("utf-8-sig").replace("\r\n", "\n")
    except (OSError, UnicodeDecodeError):
        return None


_Silencers = dict[str, tuple["_Filter", tuple[str, ...], tuple[str, ...]]]


# (scope, agent id, display path, path) of each agent another harness loads from a file
_HarnessIds = list[tuple[str, str, str, Path]]


def _validate_file(
    target: _Target, config: Config, filt: _Filter, scoped: list[ScopedAgent],
    silencers: _Silencers, harness_ids: _HarnessIds,
) -> tuple[list[Diagnostic], int]:
    fctx = FileContext(path=target.display, file_path=target.path, dialect=target.dialect,
                       config=config, agents_root=target.root)
    # before reading: a link out of the folder is reported, never followed.
    if target.may_escape and path_escapes(target.path, target.root):
        from subagents.lint.rules.security import check_path_escape

        return list(filt.apply(check_path_escape(fctx), (), ())), 0
    try:
        result = read_agent_file(target.path, dialect=target.dialect,
                                 display_path=target.display, max_bytes=config.max_file_size,
                                 claude_code=config.claude_code)
    except Exception as exc:  # a reader bug must not stop the other files
        return list(filt.apply((_reader_crash(target.display, exc),), (), ())), 0
    fctx.text = (result.text if result.harness_agents
                 else _file_text(result, target.path, config.max_file_size))
    return _judge(result, fctx, config, filt, silencers, scope=target.scope, scoped=scoped,
                  harness_ids=harness_ids)


def _judge(
    result: LoadResult, fctx: FileContext, config: Config, filt: _Filter,
    silencers: _Silencers, *, scope: str = "", scoped: list[ScopedAgent] | None = None,
    harness_ids: _HarnessIds | None = None,
) -> tuple[list[Diagnostic], int]:
    """One file's diagnostics and the number of agents it loads, whatever its harness (a file
    on disk, or text in memory with no ``fctx.file_path``)."""
    display, file_path = fctx.path, fctx.file_path
    if result.dialect in HARNESS_DIALECTS:
        for agent in result.harness_agents:
            if (harness_ids is not None and file_path is not None
                    and agent.outcome.value == "loads" and agent.agent_id is not None):
                harness_ids.append((scope, agent.agent_id, display, file_path))
        return _judge_harness_file(result, display, file_path, config, filt, silencers)
    fctx.document = result.document
    result = as_claude_code_loads(result, file_path)  # a plugin's agent: Claude Code's terms
    reader_diags, definitions = claude_code_reading(result, display, file_path, fctx.text)
    diags: list[Diagnostic] = list(reader_diags)
    diags.extend(check_file(fctx))
    reader_findings = frozenset((d.rule, d.line) for d in reader_diags)
    for defn in definitions:
        ctx = RuleContext(path=display, config=config, dialect=defn.dialect,
                          document=result.document, text=fctx.text,
                          reader_findings=reader_findings,
                          claude_code=result.claude_code is not None, wants=filt.keeps,
                          checks=filt.checks())
        diags.extend(check_definition(defn, ctx))
        if scoped is None:
            continue
        loc = defn.location_of("name") or (
            next(iter(defn.locations.values())) if defn.locations else None
        )
        scoped.append(ScopedAgent(_slim(defn), display, loc.line if loc else 1,
                                  loc.column if loc else 1, scope))
    inline: tuple[str, ...] = ()
    if fctx.text is not None:
        end = result.document.end_line if result.document is not None else 0
        inline = inline_ignores(fctx.text, frontmatter_end=end)
    extra = config.ignores_for(file_path) if file_path is not None else ()
    if definitions:  # scope rules report on this file later: same silencers apply
        silencers[display] = (filt, extra, inline)
    # the agents counted are those the harness loads (a file Claude Code skips is judged on
    # the strict reading, but defines no agent), as `list` and `doctor` count them
    # (``result.loaded`` builds Claude Code's definition again: claude_code_reading returned it)
    view = result.claude_code
    counted = (len(definitions) if result.dialect is Dialect.CODEX_MD
               else (len(definitions) if view.loaded else 0) if view is not None
               else len(result.loaded))
    return list(filt.apply(diags, extra, inline)), counted


def _judge_harness_file(
    result: LoadResult, display: str, file_path: Path | None, config: Config, filt: _Filter,
    silencers: _Silencers,
) -> tuple[list[Diagnostic], int]:
    """A file meant for another harness: what that harness does with it (its own reader, the
    one every command uses), plus the security rules on the agents it loads."""
    strict = filt.profile is not Profile.DEFAULT
    if result.harness_agents and result.dialect is not None:
        from subagents.harnesses import get_harness

        label = get_harness(result.dialect.value).display_name
        diags = harness_diagnostics(result.harness_agents, display, label, strict=strict)
    else:  # not read at all (too large, not a regular file)
        diags = list(result.diagnostics)
    text = result.text
    for defn in result.definitions:
        ctx = RuleContext(path=display, config=config, dialect=defn.dialect,
                          document=None, text=text, reader_findings=frozenset(),
                          claude_code=False, wants=filt.keeps, checks=filt.checks())
        diags.extend(d for d in check_definition(defn, ctx) if d.rule.startswith("SA4"))
        # not given to the scope rules: what a name clash does is the harness's own rule
        # (its reader and `list --dialect` say it), not Claude Code's "neither is loaded"
    inline = inline_ignores(text, frontmatter_end=0) if text is not None else ()
    extra = config.ignores_for(file_path) if file_path is not None else ()
    if result.definitions:
        silencers[display] = (filt, extra, inline)
    return list(filt.apply(diags, extra, inline)), len(result.definitions)


def _harness_duplicates(found: _HarnessIds) -> Iterator[Diagnostic]:
    """One name loaded twice from one of another harness's folders: the harness uses the first
    file it reads (its folder order: by path) and ignores the others, under the harness's own
    code for it (the table's ``duplicate_code``), as ``list`` and ``doctor`` say."""
    from subagents.harnesses import get_harness
    from subagents.harnesses.table import get_spec

    groups: dict[tuple[str, str], list[tuple[str, Path]]] = {}
    for scope, agent_id, display, path in found:
        groups.setdefault((scope, agent_id), []).append((display, path))
    for (scope, agent_id), files in groups.items():
        if len(files) < 2:
            continue
        name = scope.split(":", 1)[0]
        label = get_harness(name).display_name
        ordered = sorted(files, key=_read_order(name, files[0][1]))
        winner = ordered[0][0]
        for display, _path in ordered[1:]:
            yield Diagnostic(
                path=display, line=1, column=1, rule=get_spec(name).duplicate_code,
                severity=Severity.ERROR,
                message=f"agent name {agent_id!r} is defined again by {winner}; {label} uses "
                        "that file and ignores this one",
                hint="rename one agent (its `name`) or delete one file")


def _read_order(name: str, sample: Path) -> Callable[[tuple[str, Path]], tuple[int, str]]:
    """The order in which harness ``name`` reads the files of the project ``sample`` is in
    (its own ``discover``, as ``list`` and ``doctor`` use), then by path."""
    from subagents.harnesses import get_harness
    from subagents.harnesses.table import get_spec

    text = sample.absolute().as_posix()
    project = sample.absolute().parent
    for folder in get_spec(name).project_folders:
        cut = text.find(f"/{folder}/")
        if cut >= 0:
            project = Path(text[:cut] or "/")
            break
    try:
        found = get_harness(name).discover(project, Path.home())
    except OSError:
        found = []
    order = {str(p.absolute()): i for i, p in enumerate(found)}
    return lambda f: (order.get(str(f[1].absolute()), len(order)), str(f[1]))


def _reader_crash(path: str, exc: BaseException) -> Diagnostic:
    return Diagnostic(
        path=path,
        line=1,
        column=1,
        rule="SA000",
        severity=Severity.ERROR,
        message=f"internal error while reading the file: {type(exc).__name__}: {exc}"[:300],
        hint="this is a bug in subagents; please report it with the file",
    )


def _slim(defn: AgentDefinition) -> AgentDefinition:
    """Keep what the scope rules need; drop the prompt so 10,000 files stay cheap.

    The scope rules read the facts the result cache keeps of an agent
    (:class:`~subagents.lint.cache.AgentFacts`: a warm run judges scopes from those alone),
    and storing a file asks for its skills: a new definition of those fields alone costs half
    a copy of every field."""
    if len(defn.system_prompt) <= 2000:
        return defn
    return AgentDefinition(name=defn.name, description=defn.description, dialect=defn.dialect,
                           path=defn.path, source=defn.source, skills=defn.skills)


_P = ParamSpec("_P")
_R = TypeVar("_R")


def _one_profile_per_run(func: Callable[_P, _R]) -> Callable[_P, _R]:
    """Run ``func`` with the Claude Code profiles read once (every file asks for them;
    :func:`subagents.claude_code.profile.pinned`), and each folder's plugin looked up once
    (:func:`subagents.harnesses.plugins.plugins_pinned`)."""
    @functools.wraps(func)
    def run(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        from subagents.claude_code.profile import pinned
        from subagents.harnesses.plugins import plugins_pinned

        with pinned(), plugins_pinned():
            return func(*args, **kwargs)
    return run


def _refuse_unknown_selectors(*groups: Sequence[str]) -> None:
    """An undeclared code (``GM999``) selects nothing: refused, with what was meant."""
    from subagents.lint.rules.catalog import selector_problem

    problems = [p for group in groups for p in map(selector_problem, group) if p is not None]
    if problems:
        raise UsageError("; ".join(problems), hint="`subagents rules` lists every code and name")


@_one_profile_per_run
def validate_paths(
    paths: Sequence[str | os.PathLike[str]] = (),
    *,
    strict: bool = False,
    dialect: Dialect | str | None = None,
    config: Config | None = None,
    select: Sequence[str] = (),
    ignore: Sequence[str] = (),
    sources: Sequence[Source] | None = None,
    cache: bool = False,
    jobs: int | None = 1,
) -> ValidationReport:
    """Validate files and folders (none: the agents the current project sees).

    ``cache``: reuse the findings of files unchanged since an earlier run
    (:mod:`subagents.lint.cache`; the CLI turns it on unless ``--no-cache``).  The output is
    the same either way.

    ``jobs``: processes for the files the cache cannot answer (``None``: two when the machine
    has the cores and there are enough files to pay for it; :mod:`subagents.lint.parallel`).
    The report is the same, in the same order, whatever the number.

    With no ``paths``, the roots of ``sources`` (default: :func:`default_sources`) are read;
    an agents folder that is not a folder is an error (``SA605``), as in ``subagents list``.

    Raises :class:`~subagents.errors.UsageError` for a path that does not exist, and
    :class:`~subagents.errors.ConfigError` for a broken configuration file.
    """
    _refuse_unknown_selectors(select, ignore)
    forced = Dialect(dialect) if dialect is not None else None
    given: list[str | None]
    scope_problems: list[Diagnostic] = []
    if paths:
        resolved = [Path(p) for p in paths]
        given = [os.fspath(p) for p in paths]
        missing = [os.fspath(p) for p in resolved if not p.exists() and not p.is_symlink()]
        if missing:
            raise UsageError(
                f"no such file or folder: {', '.join(missing)}",
                hint="give agent files or folders that exist, or no path for this project's "
                "agents",
            )
    else:
        resolved, scope_problems = source_roots(
            sources if sources is not None else default_sources(dialect=forced))
        if forced is None:  # and what every other harness reads in this project
            resolved += [p for p in harness_project_paths() if p not in resolved]
        given = [None] * len(resolved)
    configs: dict[Any, Config] = {}
    report = ValidationReport(strict=strict)
    all_diags: list[Diagnostic] = list(scope_problems)
    scoped: list[ScopedAgent] = []
    silencers: _Silencers = {}
    harness_ids: _HarnessIds = []
    filters: dict[int, _Filter] = {}
    seen: set[str] = set()  # a file named twice (or inside a folder also named) counts once
    results = _open_cache(resolved) if cache else None
    fingerprints: dict[int, str] = {}
    work: list[_Work] = []
    for p, shown in zip(resolved, given, strict=True):
        cfg = config if config is not None else _config_for(p, configs,
                                                             report.config_warnings)
        key = id(cfg)
        if key not in filters:
            profile = Profile.STRICT if (strict or cfg.strict) else Profile.DEFAULT
            filters[key] = _Filter(profile, tuple(select) or cfg.select,
                                   (*cfg.ignore, *ignore))
        filt = filters[key]
        for target in _targets([p], [shown], forced):
            key_path = os.path.abspath(target.path)
            if key_path in seen:
                continue
            seen.add(key_path)
            entry_key = ""
            if results is not None:
                if key not in fingerprints:
                    fingerprints[key] = _fingerprint(cfg, filt)
                entry_key = _entry_key(results, fingerprints[key], target, key_path)
            work.append(_Work(target, cfg, filt, entry_key, key_path))
    for item, (diags, n, mine, silenced, ids) in zip(
            work, _outcomes(work, results, jobs), strict=True):
        # merged in the order of the files, however many processes computed them
        scoped.extend(mine)
        harness_ids.extend(ids)
        if silenced is not None:
            silencers[item.target.display] = (item.filt, *silenced)
        report.files += 1
        report.agents += n
        all_diags.extend(diags)
    # the similar-description check is pairwise: skip it when nobody would see SA602
    similar = any(f.keeps("SA602") for f in filters.values())
    memo = results.similar if results is not None else None
    for d in (*check_scope(scoped, similar=similar, memo=memo),
              *_harness_duplicates(harness_ids)):
        filt, extra, inline = silencers[d.path]
        all_diags.extend(filt.apply((d,), extra, inline))
    report.strict = strict or any(f.profile is Profile.STRICT for f in filters.values())
    report.diagnostics = sort_diagnostics(all_diags)
    if results is not None:
        results.save()
    return report


def _open_cache(roots: Sequence[Path]) -> ResultCache | None:
    from subagents.lint.cache import ResultCache

    try:
        return ResultCache(roots or [Path.cwd()])
    except Exception:  # no usable cache: validate without one
        return None


def _fingerprint(cfg: Config, filt: _Filter) -> str:
    from subagents.lint.cache import config_fingerprint

    return config_fingerprint(cfg, filt.profile.value, filt.select, filt.ignore)


@dataclass(frozen=True, slots=True)
class _Work:
    """One file to validate, with what judges it and its key in the result cache."""

    target: _Target
    config: Config
    filt: _Filter
    entry_key: str
    #: ``os.path.abspath`` of the file (worked out once: the cache keys files by it)
    apath: str


# What one file gives the run: its findings, the agents it loads, the facts the scope rules
# read, its silencers (config ignores, in-file ignores) and the ids another harness loads.
_Outcome = tuple[list[Diagnostic], int, list[ScopedAgent],
                 tuple[tuple[str, ...], tuple[str, ...]] | None, _HarnessIds]


def _entry_key(results: ResultCache, fingerprint: str, target: _Target, apath: str) -> str:
    # a named file may lead elsewhere through a linked folder: where it leads is part of the key
    real = os.path.realpath(target.path) if target.may_escape else ""
    return results.key(apath, real, target.display, target.dialect,
                       target.root, target.scope, target.may_escape, fingerprint)


def _outcome(item: _Work) -> _Outcome:
    """:func:`_validate_file` of one file, on its own (so that it can run in another
    process: :mod:`subagents.lint.parallel`)."""
    mine: list[ScopedAgent] = []
    my_ids: _HarnessIds = []
    mine_silencers: _Silencers = {}
    diags, n = _validate_file(item.target, item.config, item.filt, mine, mine_silencers,
                              my_ids)
    silenced = mine_silencers.get(item.target.display)
    return diags, n, mine, None if silenced is None else (silenced[1], silenced[2]), my_ids


def _outcomes(work: Sequence[_Work], results: ResultCache | None,
              jobs: int | None) -> list[_Outcome]:
    """The outcome of every file, in order: from the result cache when a file is unchanged
    (its stored findings and the facts the scope rules need, never their findings), else
    validated, over several processes when it pays (``jobs``)."""
    done: list[_Outcome | None] = [None] * len(work)
    todo: list[int] = []
    for i, item in enumerate(work):
        entry = results.lookup(item.apath, item.entry_key) if results is not None \
            else None
        if entry is None:
            todo.append(i)
            continue
        target = item.target
        done[i] = (entry.diagnostics, entry.agents,
                   [ScopedAgent(f.definition(target.path), target.display, f.line, f.column,
                                target.scope) for f in entry.facts],
                   entry.silencers,
                   [(target.scope, agent_id, target.display, target.path)
                    for agent_id in entry.harness_ids])
    if jobs == 1 or len(todo) < 2:  # (one file at the prompt imports nothing more)
        computed = [_outcome(work[i]) for i in todo]
    else:
        from subagents.lint.parallel import run_split, workers_for

        computed = run_split(_outcome, [work[i] for i in todo], workers_for(len(todo), jobs))
    for i, outcome in zip(todo, computed, strict=True):
        done[i] = outcome
        if results is not None:
            _store(results, work[i], outcome)
    return [d for d in done if d is not None]


def _store(results: ResultCache, item: _Work, outcome: _Outcome) -> None:
    from subagents.lint.cache import AgentFacts, FileEntry

    diags, n, mine, silenced, my_ids = outcome
    if any(a.definition.skills for a in mine):
        # whether each skill exists is read from .claude/skills folders (SA021): not a fact of
        # this file alone, so such a file is validated every time
        return
    results.store(item.apath, item.entry_key, FileEntry(
        diags, n, [AgentFacts.of(a.definition, a.line, a.column) for a in mine], silenced,
        [agent_id for _scope, agent_id, _display, _path in my_ids]))


def _config_for(p: Path, cache: dict[Any, Config], notes: list[str]) -> Config:
    """The config for a file, found once per folder (walking up stats several files per level,
    which cost more than validating a small agent when done for every file)."""
    folder = ("folder", p.parent)
    if folder not in cache:
        found = find_config(p, notes)
        if found not in cache:
            cache[found] = load_config(found) if found is not None else Config()
        cache[folder] = cache[found]
    return cache[folder]


def validate_text(
    text: str | bytes,
    *,
    path: str = "<string>",
    dialect: Dialect = Dialect.CLAUDE,
    strict: bool = False,
    config: Config | None = None,
) -> list[Diagnostic]:
    """Validate text in memory (no file checks): the diagnostics, sorted."""
    from subagents.harnesses.loader import parse_agent_text

    cfg = config or Config()
    filt = _Filter(Profile.STRICT if strict else Profile.DEFAULT, cfg.select, cfg.ignore)
    result = parse_agent_text(text, path=path, dialect=dialect, claude_code=cfg.claude_code)
    doc_text: str | None
    if result.document is not None:
        doc_text = result.document.text
    elif result.text is not None or isinstance(text, str):
        doc_text = result.text if result.text is not None else str(text)
    else:
        try:
            doc_text = text.decode("utf-8-sig")
        except UnicodeDecodeError:
            doc_text = None
    if doc_text is not None and "\r" in doc_text and result.document is None:
        doc_text = doc_text.replace("\r\n", "\n")
    fctx = FileContext(path=path, file_path=None, dialect=result.dialect, config=cfg,
                       text=doc_text)
    return sort_diagnostics(_judge(result, fctx, cfg, filt, {})[0])
