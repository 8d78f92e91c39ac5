"""The rule catalogue is complete and consistent: every code any reader or rule can emit is in
it, with a unique slug, a one-line doc and a severity per profile."""

from __future__ import annotations

import re
from pathlib import Path

from subagents.diagnostics import Severity
from subagents.lint.rules.catalog import RULES, Category, get_rule, is_valid_selector, matches

SRC = Path(__file__).resolve().parents[1] / "src" / "subagents"


def test_codes_and_slugs() -> None:
    assert len({r.name for r in RULES.values()}) == len(RULES)
    for code, rule in RULES.items():
        assert re.fullmatch(r"SA\d{3}", code) and rule.code == code
        assert re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", rule.name), rule.name
        assert rule.doc.endswith(".") and "\n" not in rule.doc and len(rule.doc) < 120
        assert rule.default is not None or rule.strict is not None
    reader = [c for c, r in RULES.items() if r.category is Category.READER]
    assert {f"SA{i:03}" for i in range(1, 18)} <= set(reader)
    assert RULES["SA017"].default is Severity.INFO


def test_every_emitted_code_is_catalogued() -> None:
    """Scan the reader and the rules for diagnostic codes; each must be in the table."""
    emitted: set[str] = set()
    for path in [*SRC.rglob("*.py")]:
        emitted |= set(re.findall(r"\"(SA\d{3})\"", path.read_text(encoding="utf-8")))
    assert emitted, "no codes found: the scan is broken"
    assert emitted - set(RULES) == set()


def test_selectors() -> None:
    assert matches("SA201", ["SA2"]) and matches("SA201", ["description-length"])
    assert matches("SA201", ["ALL"]) and not matches("SA201", ["SA1", "unknown-key"])
    assert is_valid_selector("SA4") and is_valid_selector("prompt-injection")
    assert not is_valid_selector("SA9") and not is_valid_selector("nonsense")
    rule = get_rule("hardcoded-credential")
    assert rule is not None and rule.code == "SA404" and not rule.silenceable
