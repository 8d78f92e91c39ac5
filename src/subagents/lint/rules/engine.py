"""Run every rule over one file / one definition.

Design notes
------------
* Order is fixed (file rules, then per definition: fields, spec, security, dialect) so output
  is stable; :mod:`subagents.lint.validate` sorts the final list anyway.
* A rule that raises is a bug in the rule, not in the user's file: it becomes an internal
  ``SA000`` diagnostic naming the rule rather than a traceback that stops the other files.
* A caller that drops findings by code (``validate``'s filter) gives the context the checks
  that can say something it keeps (:func:`wanted_checks`, once per filter): the rules that
  are off in the profile (the style rules, by default) are then not run.
* A check that declared the dialects it judges (``@applies`` in
  :mod:`subagents.lint.rules.base`) is not called for a definition of another dialect (nor,
  if it said so, for a Claude definition judged on Claude Code's reading): the checks of each
  dialect are worked out once per checks tuple.  Dropping such a call cannot change the
  findings or their order (the check would have yielded nothing);
  ``tests/test_engine_dialects.py`` runs every check outside its declaration, and every
  definition both ways.  (Skipping checks by the fields a definition gives was measured too:
  working out which fields are given cost about what the skipped checks did.)
* Each check registered its codes (``@check`` in :mod:`subagents.lint.rules.catalog`); a
  finding with a code its check did not register is a bug too and becomes ``SA000``, so the
  registry is the true list of what every check can say.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from operator import attrgetter

from subagents.definition import AgentDefinition, Dialect
from subagents.diagnostics import Diagnostic
from subagents.lint.rules import dialects, fields, security, spec
from subagents.lint.rules.base import (
    APPLIES,
    QUIET,
    Applies,
    DefinitionRule,
    FileContext,
    FileRule,
    RuleContext,
)
from subagents.lint.rules.catalog import codes_of, rule

__all__ = ["DEFINITION_RULES", "FILE_RULES", "check_definition", "check_file", "wanted_checks"]

FILE_RULES: tuple[FileRule, ...] = security.FILE_RULES
DEFINITION_RULES: tuple[DefinitionRule, ...] = (
    *fields.RULES,
    *spec.RULES,
    *security.DEFINITION_RULES,
    *dialects.RULES,
)


class UnregisteredCode(Exception):
    """A check yielded a finding of a code it did not register."""


def _internal(path: str, check: object, exc: BaseException) -> Diagnostic:
    name = getattr(check, "__name__", repr(check))
    return rule("SA000").diagnostic(
        path, None, None, f"internal error in rule {name}: {type(exc).__name__}: {exc}",
        "this is a bug in subagents; please report it with the file")


_Plan = tuple[tuple[Callable[..., Iterator[Diagnostic]], frozenset[str]], ...]
# the checks of a rule tuple with the codes each registered, worked out once per tuple (the
# tuple is read at each call: tests replace it)
_plans: dict[int, tuple[tuple[object, ...], _Plan]] = {}


def _plan(checks: tuple[Callable[..., Iterator[Diagnostic]], ...]) -> _Plan:
    known = _plans.get(id(checks))
    if known is not None and known[0] is checks:
        return known[1]
    plan = tuple((c, codes_of(c)) for c in checks)
    _plans[id(checks)] = (checks, plan)
    return plan


def check_file(ctx: FileContext) -> Iterator[Diagnostic]:
    for check, allowed in _plan(FILE_RULES):
        # each finding's code checked against the check's own, without a generator per
        # check and file wrapping it
        try:
            for d in check(ctx):
                if d.rule not in allowed:
                    raise UnregisteredCode(f"emitted {d.rule}, which it did not register")
                yield d
        except Exception as exc:  # a rule bug must not stop the other files
            yield _internal(ctx.path, check, exc)


def wanted_checks(wants: Callable[[str], bool]) -> _Plan:
    """The definition checks with a code ``wants`` keeps (for :attr:`RuleContext.checks`):
    a check whose every finding the caller would drop is not run at all.  Worked out once per
    filter by the caller, not once per definition."""
    return tuple((c, codes) for c, codes in _plan(DEFINITION_RULES) if any(map(wants, codes)))


# -- the checks a definition's dialect can trigger ----------------------------------------------

def _silent(declared: Applies | None, dialect: Dialect, claude_code: bool) -> bool:
    """Does a check declared so say nothing for a definition of this dialect?"""
    if declared is None:
        return False
    if declared.only is not None and dialect not in declared.only:
        return True
    return dialect in declared.never or (
        not declared.on_claude_code and claude_code and dialect is Dialect.CLAUDE)


# a check to run, the codes it registered, and its declared quiet values (None: none
# declared): the fields' getter and the values it gives when the check has nothing to say
_Run = tuple[tuple[Callable[..., Iterator[Diagnostic]], frozenset[str],
                   Callable[[AgentDefinition], object] | None, object], ...]
# (checks tuple's id, dialect, Claude Code's reading) -> (checks, the ones to run, the same
# with their quiet values)
_by_dialect: dict[tuple[int, Dialect, bool], tuple[_Plan, _Plan, _Run]] = {}


def checks_for(checks: _Plan, dialect: Dialect, claude_code: bool) -> _Plan:
    """The checks of ``checks`` that can find something in a definition of ``dialect``
    (``claude_code``: judged on Claude Code's reading), in order."""
    return _entry(checks, dialect, claude_code)[1]


def _entry(checks: _Plan, dialect: Dialect, claude_code: bool) -> tuple[_Plan, _Plan, _Run]:
    key = (id(checks), dialect, claude_code)
    known = _by_dialect.get(key)
    if known is not None and known[0] is checks:
        return known
    run = tuple((c, codes) for c, codes in checks
                if not _silent(APPLIES.get(c), dialect, claude_code))
    if len(_by_dialect) >= 256:  # (callers making up check tuples: not all remembered)
        _by_dialect.clear()
    entry = _by_dialect[key] = (checks, run, tuple(_quiet(c, codes) for c, codes in run))
    return entry


def _quiet(check: Callable[..., Iterator[Diagnostic]], codes: frozenset[str]) -> tuple[
        Callable[..., Iterator[Diagnostic]], frozenset[str],
        Callable[[AgentDefinition], object] | None, object]:
    declared = QUIET.get(check)
    if declared is None:
        return check, codes, None, None
    names, values = declared
    # (one name: attrgetter gives the value itself, not a tuple of one)
    return check, codes, attrgetter(*names), values if len(names) > 1 else values[0]


def check_definition(defn: AgentDefinition, ctx: RuleContext) -> Iterator[Diagnostic]:
    checks = ctx.checks if ctx.checks is not None else _plan(DEFINITION_RULES)
    known = _by_dialect.get((id(checks), defn.dialect, ctx.claude_code))
    run = known[2] if known is not None and known[0] is checks else \
        _entry(checks, defn.dialect, ctx.claude_code)[2]
    for check, allowed, given, quiet in run:
        try:
            # a check declared quiet for the values these fields have is not called (the
            # comparison is in C: a call would start the check's generator to learn nothing)
            if given is not None and given(defn) == quiet:
                continue
            for d in check(defn, ctx):
                if d.rule not in allowed:
                    raise UnregisteredCode(f"emitted {d.rule}, which it did not register")
                yield d
        except Exception as exc:
            yield _internal(ctx.path, check, exc)
