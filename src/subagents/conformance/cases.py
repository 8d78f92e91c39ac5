"""Every conformance case, in one tuple (``CASES``), and look-ups by id.

The cases cover each measured behaviour of Claude Code's agent loader (discovery, precedence,
duplicates, the frontmatter block, YAML and its lenient second pass, and the name, description,
tools, model and ignored-field rules) plus edge cases of our own, and the other places agents
come from (plugins, ``--agents``, trust, MCP servers: :mod:`cases_scopes`).  Adding a case without
recording it fails ``tests/test_conformance_data.py``.
"""

from __future__ import annotations

from subagents.conformance.casekit import Case
from subagents.conformance.cases_details import DETAIL_CASES
from subagents.conformance.cases_fields import EXTRA_CASES, FIELD_CASES
from subagents.conformance.cases_loading import LOADING_CASES
from subagents.conformance.cases_scopes import SCOPE_CASES

__all__ = ["CASES", "Case", "case_by_id"]

CASES: tuple[Case, ...] = (*LOADING_CASES, *FIELD_CASES, *EXTRA_CASES, *DETAIL_CASES,
                           *SCOPE_CASES)


def _check_unique() -> None:
    seen: set[str] = set()
    for case in CASES:
        if case.id in seen:
            raise RuntimeError(f"conformance case id {case.id!r} is used twice")
        seen.add(case.id)


_check_unique()


def case_by_id(case_id: str) -> Case:
    """The case with this id (KeyError with the known ids when there is none)."""
    for case in CASES:
        if case.id == case_id:
            return case
    raise KeyError(f"no conformance case {case_id!r}")
