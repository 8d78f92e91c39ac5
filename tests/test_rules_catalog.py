"""The rule registry is the single declaration of every code: each code a check, the reader,
``convert`` or the store can emit is declared once, with a unique slug, a summary, a severity per
profile and documentation; a finding cannot be built for an undeclared code; every declared
rule is reachable (a registered check, or one fixed emitter); and a check that emits a code it
did not register is caught by the engine."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

import subagents.lint.rules.claude_code
import subagents.lint.rules.engine
import subagents.lint.rules.scope  # noqa: F401  (registers the scope checks)
from subagents.definition import AgentDefinition
from subagents.diagnostics import Diagnostic, Severity
from subagents.lint.config import Config
from subagents.lint.rules import engine
from subagents.lint.rules.base import RuleContext, make_diagnostic
from subagents.lint.rules.catalog import (
    HARNESS_FAMILIES,
    RULES,
    Category,
    Emitter,
    check,
    checks_for,
    codes_of,
    get_rule,
    is_valid_selector,
    matches,
    rule,
)
from subagents.lint.rules.explanations import check_against_registry, explanations
from subagents.repair import fix


def test_codes_and_slugs() -> None:
    assert len({r.name for r in RULES.values()}) == len(RULES)
    for code, r in RULES.items():
        assert re.fullmatch(r"(SA|CV|SY|ST|FX|CX|GM|OC|CP|CU|QW|FD)\d{3}", code) and r.code == code
        if code[:2] in HARNESS_FAMILIES:  # another harness's reader: one category, one emitter
            assert r.category is Category.HARNESS and r.emitter is Emitter.HARNESS
        assert re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", r.name), r.name
        assert r.doc.endswith(".") and "\n" not in r.doc and len(r.doc) < 120
        assert r.default is not None or r.strict is not None
        if r.category is Category.SECURITY and code != "SA406":
            assert r.default is r.strict is Severity.ERROR and not r.silenceable, code
        if code == "SA406":  # a suspicion of injection warns by design (issue 20); never silenced
            assert r.default is Severity.WARNING and r.strict is Severity.ERROR
            assert not r.silenceable
        if code.startswith("CV"):
            assert r.category is Category.CONVERT and r.emitter is Emitter.CONVERT
        if code.startswith("SY"):
            assert r.category is Category.SYNC and r.emitter is Emitter.SYNC
        if code.startswith("ST"):
            assert r.category is Category.STORE and r.emitter is Emitter.STORE
        if code.startswith("FX"):
            assert r.category is Category.FIX and r.emitter is Emitter.FIX
    reader = [c for c, r in RULES.items() if r.category is Category.READER]
    assert {f"SA{i:03}" for i in range(1, 18)} <= set(reader)
    assert RULES["SA017"].default is Severity.INFO


def test_an_undeclared_code_cannot_be_built() -> None:
    with pytest.raises(KeyError, match="not a declared rule code"):
        make_diagnostic("SA999", "a.md", (1, 1), "nothing")
    with pytest.raises(KeyError):
        rule("CV099")
    with pytest.raises(KeyError):
        check("SA998")


def test_every_declared_rule_is_reachable() -> None:
    """A rule emitted by checks has one registered; every registered code is declared."""
    orphans = [c for c, r in RULES.items() if r.emitter is Emitter.CHECK and not checks_for(c)]
    assert orphans == []
    for code in RULES:
        for fn in checks_for(code):
            assert code in codes_of(fn)
    # every check the engine runs registered at least one code
    for fn in (*engine.FILE_RULES, *engine.DEFINITION_RULES):
        assert codes_of(fn), fn.__name__


def test_every_declared_rule_has_documentation_and_no_more() -> None:
    assert set(explanations()) == set(RULES)
    check_against_registry(RULES)
    with pytest.raises(ValueError, match="no documentation for SA101"):
        check_against_registry(set(RULES) - {"SA101"})
    with pytest.raises(ValueError, match="undeclared codes SA777"):
        check_against_registry({*RULES, "SA777"})


def test_message_templates_fill_their_parameters() -> None:
    for code, r in RULES.items():
        for variant, msg in r.messages.items():
            fields = re.findall(r"\{(\w+)([^}]*)\}", msg.text)
            text = r.message(variant, **{f: 1234 if spec == ":," else "X" for f, spec in fields})
            assert "{" not in text, (code, variant)
    d = rule("CV002").templated("unreadable", "a.md", None, None, None, target="codex")
    assert d.severity is Severity.ERROR and d.message == "the codex output could not be read back"
    d = rule("CV003").templated("claude-code", "a.md", 1, 1, None, name="a:b")
    assert d.severity is Severity.WARNING and d.rule == "CV003"


def test_a_check_that_emits_an_unregistered_code_becomes_an_internal_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    @check("SA204")
    def sneaky(defn: AgentDefinition, ctx: RuleContext) -> Iterator[Diagnostic]:
        yield ctx.diag("SA204", (1, 1), "fine")
        yield ctx.diag("SA205", (2, 1), "not registered by this check")

    monkeypatch.setattr(engine, "DEFINITION_RULES", (sneaky,))
    ctx = RuleContext(path="a.md", config=Config(), dialect=AgentDefinition(name="a").dialect)
    out = list(engine.check_definition(AgentDefinition(name="a"), ctx))
    assert [d.rule for d in out] == ["SA204", "SA000"]
    assert "sneaky" in out[1].message and "SA205" in out[1].message


def test_fixes_are_attached_to_rules_and_exist() -> None:
    """A rule's fix names a repair of `subagents fix`; the documented fix command agrees."""
    expl = explanations()
    for code, r in RULES.items():
        if r.fix is not None:
            assert r.fix in fix.REPAIRS, code
        if expl[code].fix_command:
            assert r.fix is not None, f"{code}: documented as fixed, but no fix attached"
    assert {r.fix for r in RULES.values() if r.fix} == set(fix.REPAIRS)


@pytest.mark.parametrize("code", sorted(c for c, r in RULES.items() if r.fix is not None))
def test_fix_repairs_each_rule_it_is_attached_to(code: str, tmp_path: Path) -> None:
    e = explanations()[code]
    (path, text), = e.bad_files.items()
    style = "comma" if RULES[code].fix == "tools-style" else None
    from subagents.lint.validate import validate_text

    strict = e.profile == "strict"
    assert code in {d.rule for d in validate_text(text, path=path, strict=strict)}
    result = fix.fix_text(text, path=path, tools_style=style)
    assert result.status is fix.FixStatus.FIXED, (code, result.problems)
    again = validate_text(result.fixed.decode("utf-8"), path=path, strict=strict)
    assert code not in {d.rule for d in again}


def test_selectors() -> None:
    assert matches("SA201", ["SA2"]) and matches("SA201", ["description-length"])
    assert matches("SA201", ["ALL"]) and not matches("SA201", ["SA1", "unknown-key"])
    assert is_valid_selector("SA4") and is_valid_selector("prompt-injection")
    assert not is_valid_selector("SA9") and not is_valid_selector("nonsense")
    # convert and store codes are explained, but `validate` never emits them
    assert not is_valid_selector("CV001") and not is_valid_selector("store-unknown-tool")
    r = get_rule("hardcoded-credential")
    assert r is not None and r.code == "SA404" and not r.silenceable
    assert get_rule("cv001") is RULES["CV001"]
