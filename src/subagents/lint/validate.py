"""Validate agent files and folders: the run -- targets, per-file outcomes, cross-file rules.

Design notes
------------
* A run: the targets (:mod:`subagents.lint.targets`: which files, their dialect and scope),
  each file judged on its own (:mod:`subagents.lint.judge`: read, rules, filter, severities;
  one bad file never stops the others), then the cross-file rules (duplicate names, similar
  descriptions, another harness's duplicate ids) over what every file gave, and the findings
  sorted.  The configuration is found once per folder.
* The result cache (``cache=True``, :mod:`subagents.lint.cache`) answers for unchanged files
  (their findings and the facts the cross-file rules read, never the cross-file findings).
  The command line asks for it as ``cache="auto"``: used when the run reads at least
  :data:`CACHE_FILES` files.  On one file (a pre-commit hook on the file just edited, a
  cache miss) opening, keying and saving the cache cost about a fifth of the whole command
  (callgrind: 288 M instructions without it, 348 M with it); a hit saves 7%.
  ``jobs`` splits the files it cannot answer over processes (:mod:`subagents.lint.parallel`).
  The report is the same either way, finding for finding and in the same order.
* With no paths: the agents the current project sees - ``.claude/agents`` in the current
  folder and each parent up to the git root, then ``~/.claude/agents`` (``.codex/agents``
  with ``dialect="codex"``), plus what every other harness reads in this project.  The full
  precedence logic lives in the registry; this is the self-contained minimum for
  ``validate``.
* The walk and the judging were split out of this module (it had grown past 900 lines); its
  public names (:func:`iter_agent_files`, :func:`default_paths`, :func:`source_roots`, ...)
  are still importable from here.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import field
from pathlib import Path

from subagents._dataclass import dataclass
from subagents.definition import Dialect
from subagents.diagnostics import Diagnostic, Severity, count_by_severity, sort_diagnostics
from subagents.errors import UsageError
from subagents.lint.config import Config, find_config, load_config
from subagents.lint.judge import (
    _Filter,
    _HarnessIds,
    _judge,
    _Read,
    _read_file,
    _Silencers,
)
from subagents.lint.rules.base import FileContext
from subagents.lint.rules.catalog import Profile
from subagents.lint.rules.scope import ScopedAgent, check_scope
from subagents.lint.targets import (
    _Target,
    _targets,
    default_paths,
    default_sources,
    harness_project_paths,
    iter_agent_files,
    source_roots,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal, ParamSpec, TypeVar

    from subagents.harnesses.layout import Source
    from subagents.harnesses.loader import LoadResult
    from subagents.lint.cache import ResultCache

    _P = ParamSpec("_P")
    _R = TypeVar("_R")

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


def _one_profile_per_run(func: Callable[_P, _R]) -> Callable[_P, _R]:
    """Run ``func`` with the Claude Code profiles read once (every file asks for them;
    :func:`subagents.claude_code.profile.pinned`), each folder's plugin looked up once
    (:func:`subagents.harnesses.plugins.plugins_pinned`), and the cyclic garbage collector
    paused (:func:`_collector_paused`)."""
    @functools.wraps(func)
    def run(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        from subagents.claude_code.profile import pinned
        from subagents.harnesses.plugins import plugins_pinned

        with pinned(), plugins_pinned(), _collector_paused():
            return func(*args, **kwargs)
    return run


class _collector_paused:
    """The cyclic garbage collector off for a run, and on again after it, in a process with
    one thread.

    A run keeps every file's outcome until the report and makes (almost) no reference
    cycles: on the corpus and a 2,000-file tree a collection after the run finds none, on a
    folder of broken files a few objects a file (exceptions).  With the collector on, the
    objects kept are walked again by every collection for nothing: in a fresh process
    validating 2,000 distinct files, 71 collections took 11 ms of about 800 (measured with
    ``gc.callbacks``; paused: one, 2 ms, before the pause), about 1%, more in a long-lived
    process whose older objects are walked too.  Left alone when the collector is already
    off, and when other threads run (a language server, an MCP server): pausing it there
    would pause it for their work too.
    """

    __slots__ = ("paused",)

    def __enter__(self) -> None:
        import gc
        import sys

        threading = sys.modules.get("threading")  # not imported: no other thread
        self.paused = gc.isenabled() and (threading is None or threading.active_count() == 1)
        if self.paused:
            gc.disable()

    def __exit__(self, *exc: object) -> None:
        if self.paused:
            import gc

            gc.enable()


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
    cache: bool | Literal["auto"] = False,
    jobs: int | None = 1,
) -> ValidationReport:
    """Validate files and folders (none: the agents the current project sees).

    ``cache``: reuse the findings of files unchanged since an earlier run
    (:mod:`subagents.lint.cache`); ``"auto"`` (what the command line asks unless
    ``--no-cache``): only when the run reads at least :data:`CACHE_FILES` files.  The output
    is the same either way.

    ``jobs``: processes for the files the cache cannot answer (``None``: two when the machine
    has the cores and there are enough files to pay for it; :mod:`subagents.lint.parallel`).
    The report is the same, in the same order, whatever the number.

    With no ``paths``, the roots of ``sources`` (default: :func:`default_sources`) are read;
    an agents folder that is not a folder is an error (``SA605``), as in ``subagents list``.

    Raises :class:`~subagents.errors.UsageError` for a path that does not exist, and
    :class:`~subagents.errors.ConfigError` for a broken configuration file.
    """
    _refuse_unknown_selectors(select, ignore)
    if not isinstance(cache, bool) and cache != "auto":
        raise ValueError(f'cache must be True, False or "auto", not {cache!r}')
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
    found: list[tuple[_Target, Config, _Filter, str]] = []
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
            key_path = target.apath or os.path.abspath(target.path)
            if key_path in seen:
                continue
            seen.add(key_path)
            found.append((target, cfg, filt, key_path))
    if cache == "auto":
        cache = len(found) >= CACHE_FILES
    results = _open_cache(resolved) if cache else None
    work = _keyed(found, results)
    for item, (diags, n, mine, silenced, ids, _kept) in zip(
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


#: the fewest files a run must read for ``cache="auto"`` to open the result cache (see the
#: module's notes)
CACHE_FILES = 8


def _keyed(found: Sequence[tuple[_Target, Config, _Filter, str]],
           results: ResultCache | None) -> list[_Work]:
    """The files to validate, each with its key in the result cache (none without one).

    A key is what decides a file's outcome besides its bytes and mode: the hash of its
    group's part (the configuration and filter, the dialect, the folder walked, the scope,
    whether the path may lead out), the same for every file of a folder walked and worked
    out once for it, then the path shown (and, for a path that may lead out of its folder,
    where it leads).  The absolute path is the entry's own key in the cache."""
    if results is None:
        return [_Work(target, cfg, filt, "", apath) for target, cfg, filt, apath in found]
    fingerprints: dict[int, str] = {}  # one per configuration (which decides the filter)
    groups: dict[tuple[int, int, int, str, bool], str] = {}
    work: list[_Work] = []
    for target, cfg, filt, apath in found:
        # (the objects' ids: each is kept alive by ``found``; equal objects under two ids
        # only work out the same part twice)
        where = (id(cfg), id(target.root), id(target.dialect), target.scope,
                 target.may_escape)
        group = groups.get(where)
        if group is None:
            fingerprint = fingerprints.get(id(cfg))
            if fingerprint is None:
                fingerprint = fingerprints[id(cfg)] = _fingerprint(cfg, filt)
            group = groups[where] = results.key(target.dialect, target.root, target.scope,
                                                target.may_escape, fingerprint)
        if target.may_escape:
            # a named file may lead elsewhere through a linked folder: where it leads counts
            key = f"{group}{target.display}\0{os.path.realpath(target.path)}"
        else:
            key = group + target.display
        work.append(_Work(target, cfg, filt, key, apath))
    return work


def _open_cache(roots: Sequence[Path]) -> ResultCache | None:
    from subagents.lint.cache import ResultCache

    try:
        return ResultCache(roots or [Path.cwd()])
    except Exception:  # no usable cache: validate without one
        return None


def _fingerprint(cfg: Config, filt: _Filter) -> str:
    from subagents.lint.cache import config_fingerprint

    return config_fingerprint(cfg, filt.profile.value, filt.select, filt.ignore)


@dataclass(slots=True)
class _Work:
    """One file to validate, with what judges it and its key in the result cache.

    (Not frozen: a frozen class's ``__init__`` sets each field through a call, about 0.5 us
    more a file; nothing changes a work item once made.)"""

    target: _Target
    config: Config
    filt: _Filter
    entry_key: str
    #: ``os.path.abspath`` of the file (worked out once: the cache keys files by it)
    apath: str


# What one file gives the run: its findings, the agents it loads, the facts the scope rules
# read, its silencers (config ignores, in-file ignores), the ids another harness loads and,
# for the result cache, what it stores (see ``_stored``; None: nothing, or no cache).
_Outcome = tuple[list[Diagnostic], int, list[ScopedAgent],
                 tuple[tuple[str, ...], tuple[str, ...]] | None, _HarnessIds,
                 tuple[str | None, str, os.stat_result | None] | None]


def _outcome(item: _Work) -> _Outcome:
    """One file read and judged on its own (a run of one file)."""
    read: _Read = []
    fctx, result, early = _read_file(item.target, item.config, item.filt, read)
    return _finish(item, fctx, result, early, read)


def _finish(item: _Work, fctx: FileContext, result: LoadResult | None,
            early: list[Diagnostic], read: _Read) -> _Outcome:
    """The outcome of a file read by :func:`_read_file` (``result``; ``None``: not read, and
    ``early`` holds its findings)."""
    mine: list[ScopedAgent] = []
    my_ids: _HarnessIds = []
    mine_silencers: _Silencers = {}
    if result is None:
        diags, n = early, 0
    else:
        target = item.target
        diags, n = _judge(result, fctx, item.config, item.filt, mine_silencers,
                          target.scope, mine, my_ids, target.apath or None)
    silenced = mine_silencers.get(item.target.display)
    pair = None if silenced is None else (silenced[1], silenced[2])
    return (diags, n, mine, pair, my_ids,
            _stored(read, diags, n, mine, pair, my_ids) if item.entry_key else None)


def _stored(read: _Read, diags: list[Diagnostic], n: int, mine: list[ScopedAgent],
            silenced: tuple[tuple[str, ...], tuple[str, ...]] | None,
            my_ids: _HarnessIds) -> tuple[str | None, str, os.stat_result | None] | None:
    """What the result cache stores of a file's outcome, worked out where the outcome is
    made (its strings at hand, and in the worker process with ``jobs``): the hash of the
    bytes judged (``None``: not read; the cache hashes the file), the JSON of the outcome
    (:func:`subagents.lint.cache.outcome_text`) and the reader's ``fstat`` of the file
    (taken before it read those bytes; ``None``: not read); ``None``: not stored."""
    for a in mine:
        if a.definition.skills:
            # whether each skill exists is read from .claude/skills folders (SA021): not a
            # fact of this file alone, so such a file is validated every time
            return None
    cache = _cache_module()
    text_of = cache.AgentFacts.text_of
    try:
        text = cache.outcome_text(
            diags, n, [text_of(a.definition, a.line, a.column) for a in mine], silenced,
            [agent_id for _scope, agent_id, _display, _path in my_ids] if my_ids else ())
    except (TypeError, ValueError):  # a fact of another type: validated again next time
        return None
    if not read:
        return None, text, None
    data, st = read[0]
    return cache.file_digest(data), text, st


def _chunks(items: Sequence[_Work], workers: int = 1) -> list[list[_Work]]:
    """``items`` in runs of at most :data:`~subagents.lint.ahead.CHUNK_FILES`, read and
    judged together (:func:`_chunk_outcomes`): as many runs as a multiple of ``workers``,
    of sizes that differ by one at most, so that each process gets its share of the files."""
    from subagents.lint.ahead import CHUNK_FILES

    n = len(items)
    count = workers * -(-n // (workers * CHUNK_FILES))
    out = [list(items[n * k // count:n * (k + 1) // count]) for k in range(count)]
    return [chunk for chunk in out if chunk]


def _chunk_outcomes(items: Sequence[_Work]) -> list[_Outcome]:
    """``[_outcome(item) for item in items]``, with the injection detector's texts of the
    files read so far judged together before the files are judged
    (:mod:`subagents.lint.ahead`: the same outcomes, in less time)."""
    from subagents.lint.ahead import injection_texts, judge_ahead, room

    budget = room()
    out: list[_Outcome] = []
    started: list[tuple[_Work, FileContext, LoadResult | None, list[Diagnostic],
                        _Read]] = []
    texts: list[str] = []
    gathered = 0

    def judge_started() -> None:
        judge_ahead(texts)
        out.extend(_finish(*s) for s in started)
        started.clear()
        texts.clear()

    for item in items:
        read: _Read = []
        fctx, result, early = _read_file(item.target, item.config, item.filt, read)
        if budget and result is not None and item.filt.asks_injection():
            found = injection_texts(result)
            size = sum(map(len, found))
            if gathered + size > budget and started:
                judge_started()
                gathered = 0
            texts.extend(found)
            gathered += size
        started.append((item, fctx, result, early, read))
    judge_started()
    return out


def _outcomes(work: Sequence[_Work], results: ResultCache | None,
              jobs: int | None) -> list[_Outcome]:
    """The outcome of every file, in order: from the result cache when a file is unchanged
    (its stored findings and the facts the scope rules need, never their findings), else
    validated, over several processes when it pays (``jobs``)."""
    done: list[_Outcome | None] = [None] * len(work)
    todo: list[int] = []
    for i, item in enumerate(work):
        # (a file the walk listed, not a link: the cache may take its stat from the reader)
        entry = results.lookup(item.apath, item.entry_key,
                               listed=not item.target.may_escape) if results is not None \
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
                    for agent_id in entry.harness_ids], None)
    if len(todo) < 2:  # (one file at the prompt imports nothing more)
        computed = [_outcome(work[i]) for i in todo]
    else:
        # a few dozen files at a time, their injection texts judged together
        # (:mod:`subagents.lint.ahead`); over several processes when it pays
        items = [work[i] for i in todo]
        if jobs == 1:
            done_chunks = [_chunk_outcomes(c) for c in _chunks(items)]
        else:
            from subagents.lint.parallel import run_split, workers_for

            workers = workers_for(len(todo), jobs)
            done_chunks = run_split(_chunk_outcomes, _chunks(items, workers), workers)
        computed = [outcome for chunk in done_chunks for outcome in chunk]
    for i, outcome in zip(todo, computed, strict=True):
        done[i] = outcome
        if results is not None:
            _store(results, work[i], outcome)
    return [d for d in done if d is not None]


@functools.cache
def _cache_module() -> Any:
    """:mod:`subagents.lint.cache`, imported when the cache is first used (an import
    statement per file cost more than this call)."""
    from subagents.lint import cache

    return cache


def _store(results: ResultCache, item: _Work, outcome: _Outcome) -> None:
    stored = outcome[5]
    if stored is not None:
        digest, text, st = stored
        results.store_text(item.apath, item.entry_key, text, digest, st)


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
