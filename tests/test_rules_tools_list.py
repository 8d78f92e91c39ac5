"""SA207: `tools` written as a YAML list (anthropics/claude-code#13331, REFERENCE.md).

Lists are documented and 4 in 10 real files use them, so this is an info - it never fails a
run, not even with --strict - that says what was reported and how `fix` rewrites it.
"""

from __future__ import annotations

from pathlib import Path

from subagents.definition import Dialect
from subagents.diagnostics import Severity
from subagents.lint.validate import validate_text
from subagents.repair.fix import fix_file
from validate_helpers import BODY, GOOD_FRONT, agent, diags, only

LISTED = ("name: lister\ndescription: Reviews Python code for style issues when asked.\n"
          "maxTurns: 5\ntools:\n  - Read\n  - Grep\n")


def test_a_list_is_quiet_by_default_and_an_info_at_the_key_when_strict() -> None:
    # Claude Code 2.1.330 reads a list exactly like a comma string (measured)
    assert only(diags(agent(LISTED)), "SA207") == []
    (d,) = only(diags(agent(LISTED), strict=True), "SA207")
    assert (d.line, d.column, d.severity) == (5, 1, Severity.INFO)
    assert d.hint is not None and "`tools: Read, Grep`" in d.hint


def test_strict_does_not_make_it_fail() -> None:
    ds = diags(agent(LISTED), strict=True)
    assert [d.severity for d in only(ds, "SA207")] == [Severity.INFO]


def test_flow_list_and_disallowed_tools() -> None:
    ds = diags(agent(GOOD_FRONT + "disallowedTools: [Write, Edit]\n"), strict=True)
    (d,) = only(ds, "SA207")
    assert "`disallowedTools: Write, Edit`" in (d.hint or "")


def test_comma_string_and_other_dialects_are_quiet() -> None:
    assert only(diags(agent(GOOD_FRONT + "tools: Read, Grep\n")), "SA207") == []
    codex = ("---\nname: lister\ndescription: Reviews code.\ntools:\n  - Read\n---\n" + BODY)
    assert only(validate_text(codex, dialect=Dialect.CODEX_MD), "SA207") == []


def test_fix_with_comma_style_clears_it(tmp_path: Path) -> None:
    p = tmp_path / "agents" / "lister.md"
    p.parent.mkdir()
    p.write_text(agent(LISTED), encoding="utf-8")
    fix_file(p, tools_style="comma")
    text = p.read_text(encoding="utf-8")
    assert "tools: Read, Grep\n" in text
    assert only(diags(text), "SA207") == []
