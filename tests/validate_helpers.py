"""Helpers for the validate/rules tests: write agent files, pick diagnostics by code."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

from subagents.definition import AgentDefinition
from subagents.diagnostics import Diagnostic
from subagents.lint import judge
from subagents.lint.rules.base import RuleContext
from subagents.lint.validate import ValidationReport, validate_text

DATA = Path(__file__).resolve().parent / "data" / "validate"

BODY = (
    "## Role\nYou review code.\n\n## Capabilities\n- Read diffs\n\n## Methodology\n1. Read\n\n"
    "## Communication Style\nTerse.\n\n## Constraints\nNever edit files. Report findings only.\n"
)


def agent(front: str, body: str = BODY) -> str:
    """A Markdown agent file from frontmatter lines (without the --- lines) and a body."""
    return f"---\n{front.strip(chr(10))}\n---\n{body}"


GOOD_FRONT = (
    "name: code-reviewer\n"
    "description: Reviews recent diffs for security and style problems\n"
    "tools: Read, Grep, Glob\n"
    "maxTurns: 20\n"
)


def write(root: Path, rel: str, text: str | bytes) -> Path:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        p.write_bytes(text)
    else:
        p.write_text(text, encoding="utf-8")
    return p


def diags(text: str, *, strict: bool = False, **kw: object) -> list[Diagnostic]:
    return validate_text(text, path="a.md", strict=strict, **kw)  # type: ignore[arg-type]


def only(ds: list[Diagnostic] | ValidationReport, code: str) -> list[Diagnostic]:
    items = ds.diagnostics if isinstance(ds, ValidationReport) else ds
    return [d for d in items if d.rule == code]


def codes(ds: list[Diagnostic] | ValidationReport) -> Counter[str]:
    items = ds.diagnostics if isinstance(ds, ValidationReport) else ds
    return Counter(d.rule for d in items)


def checked_pairs(texts: Iterable[str], monkeypatch: pytest.MonkeyPatch,
                  **options: Any) -> list[tuple[AgentDefinition, RuleContext]]:
    """Every (definition, context) that ``validate_text(text, **options)`` gives the
    definition checks, for each of ``texts`` in turn."""
    seen: list[tuple[AgentDefinition, RuleContext]] = []
    real = judge.check_definition

    def spy(defn: AgentDefinition, ctx: RuleContext) -> Iterator[Diagnostic]:
        seen.append((defn, ctx))
        return real(defn, ctx)

    monkeypatch.setattr(judge, "check_definition", spy)
    for text in texts:
        validate_text(text, **options)
    monkeypatch.setattr(judge, "check_definition", real)
    return seen
