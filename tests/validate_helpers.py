"""Helpers for the validate/rules tests: write agent files, pick diagnostics by code."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from subagents.diagnostics import Diagnostic
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
