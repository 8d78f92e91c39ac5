"""Run every rule over one file / one definition.

Design notes
------------
* Order is fixed (file rules, then per definition: fields, spec, security, dialect) so output
  is stable; :mod:`subagents.lint.validate` sorts the final list anyway.
* A rule that raises is a bug in the rule, not in the user's file: it becomes an internal
  ``SA000`` diagnostic naming the rule rather than a traceback that stops the other files.
"""

from __future__ import annotations

from collections.abc import Iterator

from subagents.definition import AgentDefinition
from subagents.diagnostics import Diagnostic, Severity
from subagents.lint.rules import dialects, fields, security, spec
from subagents.lint.rules.base import DefinitionRule, FileContext, FileRule, RuleContext

__all__ = ["DEFINITION_RULES", "FILE_RULES", "check_definition", "check_file"]

FILE_RULES: tuple[FileRule, ...] = security.FILE_RULES
DEFINITION_RULES: tuple[DefinitionRule, ...] = (
    *fields.RULES,
    *spec.RULES,
    *security.DEFINITION_RULES,
    *dialects.RULES,
)


def _internal(path: str, rule: object, exc: BaseException) -> Diagnostic:
    name = getattr(rule, "__name__", repr(rule))
    return Diagnostic(
        path=path,
        line=None,
        column=None,
        rule="SA000",
        severity=Severity.ERROR,
        message=f"internal error in rule {name}: {type(exc).__name__}: {exc}",
        hint="this is a bug in subagents; please report it with the file",
    )


def check_file(ctx: FileContext) -> Iterator[Diagnostic]:
    for rule in FILE_RULES:
        try:
            yield from rule(ctx)
        except Exception as exc:  # a rule bug must not stop the other files
            yield _internal(ctx.path, rule, exc)


def check_definition(defn: AgentDefinition, ctx: RuleContext) -> Iterator[Diagnostic]:
    for rule in DEFINITION_RULES:
        try:
            yield from rule(defn, ctx)
        except Exception as exc:
            yield _internal(ctx.path, rule, exc)
