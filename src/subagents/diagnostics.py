"""Diagnostics: what the reader and the rules say about a file.

A :class:`Diagnostic` is data, not an exception: bad input produces diagnostics and the loader
goes on.  ``line`` and ``column`` are 1-based positions in the *file* (not in the frontmatter),
or ``None`` when the finding is about the file as a whole.  ``to_dict`` is the JSON contract of
``subagents validate --format json`` (DESIGN.md) and must not change shape.

``key`` and ``subject`` are typed facts an emitter passes along for the code that re-words or
re-codes a finding (the frontmatter key a reader finding is about, the YAML construct it names),
so that nobody has to parse them back out of ``message``.  They are not part of the JSON
contract and do not take part in equality.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import field, replace
from enum import StrEnum

from subagents._dataclass import dataclass

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["Diagnostic", "Severity", "count_by_severity", "sort_diagnostics"]


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return _RANK[self]


_RANK = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}


@dataclass(frozen=True, slots=True, kw_only=True)
class Diagnostic:
    """One finding about one file (or one definition inside a JSON file)."""

    path: str
    line: int | None
    column: int | None
    rule: str
    severity: Severity
    message: str
    hint: str | None = None
    #: The field key the finding is about (``maxTurns`` for a wrong type), when there is one.
    key: str | None = field(default=None, compare=False)
    #: The construct the finding names, in words (``YAML anchor `&a` ``), when there is one.
    subject: str | None = field(default=None, compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "rule": self.rule,
            "severity": str(self.severity),
            "message": self.message,
            "hint": self.hint,
        }

    def format_text(self) -> str:
        """``path:line:col: CODE severity: message`` then the hint on its own indented line."""
        where = self.path
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        text = f"{where}: {self.rule} {self.severity}: {self.message}"
        if self.hint:
            text += f"\n    hint: {self.hint}"
        return text

    def with_severity(self, severity: Severity) -> Diagnostic:
        return replace(self, severity=severity)


def sort_diagnostics(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """Stable order: by path, then line, then column, then severity."""
    return sorted(
        diagnostics,
        key=lambda d: (d.path, d.line or 0, d.column or 0, d.severity.rank, d.rule),
    )


def count_by_severity(diagnostics: Iterable[Diagnostic]) -> dict[Severity, int]:
    counts = dict.fromkeys(Severity, 0)
    for d in diagnostics:
        counts[d.severity] += 1
    return counts
