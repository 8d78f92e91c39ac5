"""Judging one file for ``validate``: read it, run the rules, filter and re-map the findings.

Design notes
------------
* One bad file never stops the others: the reader turns bad input into diagnostics, the rule
  engine turns a crashing rule into ``SA000``, and so does :func:`_read_file` for a
  crashing reader.
* A link that leads out of the folder walked is reported (``SA402``) before reading, never
  followed.  The reader hands back the bytes and the ``fstat`` it read the file with, so the
  file rules' text, the world-writable check and the result cache's hash need no second read.
* Severities: reader and rule diagnostics are re-mapped through the catalogue for the profile
  (:class:`_Filter`).  Filtering, in order: ``select`` (command line replaces config), then
  ``ignore`` (config + command line + ``per-file-ignores`` + the in-file
  ``# subagents: ignore[...]`` comment, which cannot silence security rules).  A rule that is
  off in the profile is turned on when selected by its code, a code prefix narrower than
  ``SA`` (``SA2``) or its name -- as a warning, or its strict severity under --strict.
* A file of another harness is judged by that harness's own reader (the one every command
  uses) plus the security rules; a Claude file on Claude Code's reading
  (:mod:`subagents.lint.rules.claude_code`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import field
from pathlib import Path

from subagents._dataclass import TWINS, dataclass
from subagents.definition import AgentDefinition, Dialect
from subagents.diagnostics import Diagnostic, Severity
from subagents.harnesses.loader import LoadResult, harness_diagnostics, read_agent_file
from subagents.lint.config import SILENCER_MARK, Config, inline_ignores
from subagents.lint.harness_rules import HARNESS_DIALECTS
from subagents.lint.rules.base import FileContext, RuleContext
from subagents.lint.rules.catalog import RULES, Emitter, Profile, get_rule, matches
from subagents.lint.rules.claude_code import as_claude_code_loads, claude_code_reading
from subagents.lint.rules.engine import check_definition, check_file, wanted_checks
from subagents.lint.rules.scope import ScopedAgent
from subagents.lint.rules.security import path_escapes
from subagents.lint.targets import _Target

_UNREADABLE = frozenset({"SA001", "SA002", "SA011", "SA012", "SA015"})
_NO_FINDINGS: frozenset[tuple[str, int | None]] = frozenset()


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

    def asks_injection(self) -> bool:
        """Could the injection rule's findings (``SA405``, ``SA406``) survive this filter?"""
        return self.keeps("SA405") or self.keeps("SA406")

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


def _file_text(result: LoadResult, path: Path, max_bytes: int,
               data: bytes | None = None) -> str | None:
    """The text the file rules scan; ``data``: the bytes the reader read, if it did."""
    if result.document is not None:
        return result.document.text
    if any(d.rule in _UNREADABLE for d in result.diagnostics):
        return None
    try:
        if data is None:
            with open(path, "rb") as fh:
                data = fh.read(max_bytes + 1)
        else:  # (an agents.json store is read up to a larger cap than the file rules scan)
            data = data[: max_bytes + 1]
        return data.decode("utf-8-sig").replace("\r\n", "\n")
    except (OSError, UnicodeDecodeError):
        return None


_Silencers = dict[str, tuple["_Filter", tuple[str, ...], tuple[str, ...]]]


# (scope, agent id, display path, path) of each agent another harness loads from a file
_HarnessIds = list[tuple[str, str, str, Path]]

# what the reader read of a file, if it read it whole: its bytes and the ``fstat`` taken
# before reading them
_Read = list[tuple[bytes, os.stat_result]]


def _read_file(
    target: _Target, config: Config, filt: _Filter, read: _Read | None = None,
) -> tuple[FileContext, LoadResult | None, list[Diagnostic]]:
    """One file read for :func:`_judge`, and the context its rules see; or, not read, the
    file's findings (a link out of the folder, a reader crash); ``read`` is given the bytes
    the reader read with the ``fstat`` it took before reading them (the result cache records
    that stat: :meth:`subagents.lint.cache.ResultCache.store_text`).  (Apart from judging:
    ``validate`` reads a few dozen files before it judges them, :mod:`subagents.lint.ahead`.)"""
    # (by position, in the order of FileContext's fields, text and document not yet known:
    # a quarter cheaper than keywords)
    fctx = FileContext(target.display, target.path, target.dialect, config, None, None,
                       target.root)
    # before reading: a link out of the folder is reported, never followed.
    if target.may_escape and path_escapes(target.path, target.root):
        from subagents.lint.rules.security import check_path_escape

        return fctx, None, list(filt.apply(check_path_escape(fctx), (), ()))
    if read is None:
        read = []

    def seen(data: bytes, st: os.stat_result) -> None:
        read.append((data, st))
        fctx.mode = st.st_mode

    try:
        result = read_agent_file(target.path, dialect=target.dialect,
                                 display_path=target.display, max_bytes=config.max_file_size,
                                 claude_code=config.claude_code, on_read=seen,
                                 # (the walk listed it, not a link: one swapped in since is
                                 # refused, never read through)
                                 no_link=not target.may_escape)
    except Exception as exc:  # a reader bug must not stop the other files
        return fctx, None, list(filt.apply((_reader_crash(target.display, exc),), (), ()))
    document = result.document
    if result.harness_agents:
        fctx.text = result.text
    elif document is not None:
        fctx.text = document.text
        if read:  # (the text is these bytes decoded, BOM dropped, line breaks made LF)
            fctx.data = read[0][0]
    else:
        fctx.text = _file_text(result, target.path, config.max_file_size,
                               read[0][0] if read else None)
    return fctx, result, []


def _judge(
    result: LoadResult, fctx: FileContext, config: Config, filt: _Filter,
    silencers: _Silencers, scope: str = "", scoped: list[ScopedAgent] | None = None,
    harness_ids: _HarnessIds | None = None, absolute: str | None = None,
) -> tuple[list[Diagnostic], int]:
    """One file's diagnostics and the number of agents it loads, whatever its harness (a file
    on disk, or text in memory with no ``fctx.file_path``); ``absolute``: the file's
    ``os.path.abspath`` when the caller has it.  (Every argument may be given by position:
    ``validate`` calls this once a file, and keywords cost a little more.)"""
    display, file_path = fctx.path, fctx.file_path
    if result.dialect in HARNESS_DIALECTS:
        for agent in result.harness_agents:
            if (harness_ids is not None and file_path is not None
                    and agent.outcome.value == "loads" and agent.agent_id is not None):
                harness_ids.append((scope, agent.agent_id, display, file_path))
        return _judge_harness_file(result, display, file_path, config, filt, silencers)
    fctx.document = result.document
    # a plugin's agent: Claude Code's terms
    result = as_claude_code_loads(result, file_path, absolute)
    reader_diags, definitions = claude_code_reading(result, display, file_path, fctx.text)
    # (most files have no reader finding: no set built for them)
    reader_findings = (frozenset([(d.rule, d.line) for d in reader_diags]) if reader_diags
                       else _NO_FINDINGS)
    diags: list[Diagnostic] = list(reader_diags)
    diags.extend(check_file(fctx))
    for defn in definitions:
        # (by position, in the order of RuleContext's fields: half the cost of keywords;
        # tests/test_judge_slim.py holds the order)
        ctx = RuleContext(display, config, defn.dialect, result.document, fctx.text,
                          reader_findings, result.claude_code is not None, filt.keeps,
                          filt.checks())
        diags.extend(check_definition(defn, ctx))
        if scoped is None:
            continue
        loc = defn.location_of("name") or (
            next(iter(defn.locations.values())) if defn.locations else None
        )
        scoped.append(ScopedAgent(_slim(defn), display, loc.line if loc else 1,
                                  loc.column if loc else 1, scope))
    inline: tuple[str, ...] = ()
    literals = fctx.literals
    # (the secrets scan's gate said whether the text holds a silencer's mark)
    if fctx.text is not None and (literals is None or SILENCER_MARK in literals):
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
    # (nothing to filter: most files of a tree)
    return list(filt.apply(diags, extra, inline)) if diags else diags, counted


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
    if not _SLIM and AgentDefinition in TWINS:
        # (until the class has its twin, as in a run over one file: the class's ``__init__``)
        _SLIM.append(_slim_maker())
    if _SLIM and _SLIM[0] is not None:
        setter, defaults = _SLIM[0]
        return setter(defn, *defaults, {}, {}, {})
    return AgentDefinition(name=defn.name, description=defn.description, dialect=defn.dialect,
                           path=defn.path, source=defn.source, skills=defn.skills)


# The slim copy as :func:`~subagents.definition.fields_setter` makes it, once the class has
# its unfrozen twin: the kept fields copied, every other set to its default, a new dict for
# each of the three whose default is one; about half the cost of ``__init__`` given six
# keywords (tests/test_judge_slim.py compares the two).  None (``__init__`` makes it) if the
# class's defaults are ever other than that.  (Comments, not docstrings, and one plain loop:
# the module is on the one-file path, which loads this code but never runs it.)
_SLIM_KEPT = ("name", "description", "dialect", "path", "source", "skills")
_SLIM: list[tuple[Callable[..., AgentDefinition], tuple[object, ...]] | None] = []


def _slim_maker() -> tuple[Callable[..., AgentDefinition], tuple[object, ...]] | None:
    import dataclasses as dc

    from subagents.definition import fields_setter

    names: list[str] = []
    defaults: list[object] = []
    fresh: list[str] = []
    for f in dc.fields(AgentDefinition):
        if f.name in _SLIM_KEPT:
            continue
        if f.default_factory is dict:
            fresh.append(f.name)
        elif f.default is dc.MISSING:
            return None
        else:
            names.append(f.name)
            defaults.append(f.default)
    if len(fresh) != 3:
        return None
    return fields_setter((*names, *fresh)), tuple(defaults)
