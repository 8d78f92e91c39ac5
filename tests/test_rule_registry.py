"""One registry for every code, the other harnesses' included: every code a module of ``src/``
can emit is declared; every declared code is documented (``explain`` and docs/rules.md) with
its own text; an undeclared code is refused by the command line, the configuration and the
library alike; a harness finding's severity is the one its declaration gives."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from subagents.cli.main import cli
from subagents.diagnostics import Severity
from subagents.errors import ConfigError, UsageError
from subagents.harnesses import get_harness
from subagents.lint.config import load_config
from subagents.lint.harness_rules import severity_of
from subagents.lint.rules.catalog import HARNESS_FAMILIES, RULES, Category, Emitter
from subagents.lint.rules.explanations import explanations
from subagents.lint.rules.harness_catalog import MIXED
from subagents.lint.validate import validate_paths

SRC = Path(__file__).resolve().parents[1] / "src" / "subagents"
DOCS = Path(__file__).resolve().parents[1] / "docs" / "rules.md"
_CODE = re.compile(r"[A-Z]{2}\d{3}")


def test_no_finding_is_built_with_a_made_up_code() -> None:
    """A Finding's code is a declared one: the generic loader once emitted "read" and
    "shadowed", which no --select, explain or docs knew."""
    for path in sorted((SRC / "harnesses").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Finding" \
                    and node.args and isinstance(node.args[0], ast.Constant):
                assert node.args[0].value in RULES, (path.name, node.lineno, node.args[0].value)


def _emitted_codes() -> dict[str, list[str]]:
    """Every string literal of ``src/`` that is a whole code, with where it is."""
    found: dict[str, list[str]] = {}
    for path in sorted(SRC.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and _CODE.fullmatch(node.value):
                found.setdefault(node.value, []).append(
                    f"{path.relative_to(SRC)}:{node.lineno}")
    return found


def test_every_code_a_module_can_emit_is_declared() -> None:
    emitted = _emitted_codes()
    undeclared = {code: where for code, where in emitted.items() if code not in RULES}
    assert undeclared == {}
    # the scan sees the harness modules (it would miss nothing they emit)
    for prefix in HARNESS_FAMILIES:
        assert any(code.startswith(prefix) for code in emitted), prefix


def test_every_harness_code_is_emitted_by_its_harness_module() -> None:
    """The registry declares no harness code that nothing can produce."""
    emitted = _emitted_codes()
    for code, rule in RULES.items():
        if rule.category is Category.HARNESS:
            assert rule.emitter is Emitter.HARNESS
            assert any(w.startswith("harnesses/") for w in emitted.get(code, ())), code


def test_every_declared_code_is_documented_with_its_own_text() -> None:
    expl = explanations()
    page = DOCS.read_text(encoding="utf-8")
    assert page.count("## All rules") == 1  # one generated list (a stale copy had stayed)
    for code in RULES:
        assert f"**{code} `{RULES[code].name}`.**" in page, code
    checks = [e.checks for e in expl.values()]
    assert len(set(checks)) == len(checks)  # no generic paragraph shared by codes
    for code, rule in RULES.items():
        if rule.category is Category.HARNESS:
            assert expl[code].harness, code


def test_harness_codes_are_counted() -> None:
    harness = [c for c, r in RULES.items() if r.category is Category.HARNESS]
    assert len(harness) == 91 and len(RULES) == 185  # SA406 added (issue 20)


@pytest.mark.parametrize("code", ["GM004", "OC001", "CX012", "QW018", "CU009", "FD003", "CP010"])
def test_explain_is_specific_to_each_harness_code(code: str) -> None:
    out = CliRunner().invoke(cli, ["explain", code])
    assert out.exit_code == 0, out.output
    label = get_harness(HARNESS_FAMILIES[code[:2]][0]).display_name
    assert out.output.startswith(f"{code} {RULES[code].name} ({label}")
    assert explanations()[code].checks.split(".")[0][:40] in " ".join(out.output.split())
    assert f"What {label}" in out.output


def test_rules_lists_the_harness_codes() -> None:
    out = CliRunner().invoke(cli, ["rules"])
    assert out.exit_code == 0
    for code in ("GM003", "OC008", "CX001", "QW022", "CP006", "CU001", "FD009"):
        assert f"{code}  {RULES[code].name}" in out.output


def test_an_undeclared_code_is_refused_on_the_command_line(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("---\nname: a\ndescription: Does a.\n---\nDo a.\n",
                                   encoding="utf-8")
    for option in ("--select", "--ignore"):
        out = CliRunner().invoke(cli, ["validate", str(tmp_path), option, "GM999"])
        assert out.exit_code == 2, out.output
        assert "GM999" in out.output and "did you mean" in out.output
    ok = CliRunner().invoke(cli, ["validate", str(tmp_path), "--select", "GM004,gemini-unknown-key"])
    assert ok.exit_code == 0, ok.output


def test_another_commands_code_is_refused_with_the_reason() -> None:
    from subagents.lint.rules.catalog import selector_problem

    assert "`subagents convert`" in (selector_problem("CV001") or "")
    assert "agent store" in (selector_problem("store-invalid-name") or "")
    assert selector_problem("SA104") is None and selector_problem("gemini-unknown-key") is None


def test_an_undeclared_code_is_refused_in_the_configuration(tmp_path: Path) -> None:
    cfg = tmp_path / ".subagents.toml"
    cfg.write_text('ignore = ["OC999"]\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"OC999.*did you mean"):
        load_config(cfg)
    cfg.write_text('ignore = ["OC008", "OC0", "GM"]\n', encoding="utf-8")
    assert load_config(cfg).ignore == ("OC008", "OC0", "GM")


def test_an_undeclared_code_is_refused_by_the_library(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="GM999"):
        validate_paths([tmp_path], select=["GM999"])
    with pytest.raises(UsageError, match="no-such-rule"):
        validate_paths([tmp_path], ignore=["no-such-rule"])


_TEXTS = (
    "---\nname: rev\ndescription: Reviews.\ncolor: blue\ntools: Read, Grep\n"
    "permissionMode: plan\nmaxTurns: x\nbackground: maybe\nhooks: 3\nmcpServers: 4\n"
    "temperature: 0.2\nmodel: sonnet\nreadonly: 1\nowner: me\n---\nReview ${thing} "
    "${query} with care and precision.\n",
    "no frontmatter at all\n",
    "---\ndescription: [unclosed\n---\nx\n",
    "---\nname: -\n---\n",
    "---\ndescription: A: b: c\nname: x\n---\nDo x.\n",
)


@pytest.mark.parametrize("strict", [False, True])
def test_a_harness_finding_has_its_declared_severity(strict: bool) -> None:
    """The severity the one rule gives a finding's effect is the declared one (CP006, the one
    code with two effects, is declared with the stronger)."""
    seen: set[str] = set()
    for prefix, (dialect, _title) in HARNESS_FAMILIES.items():
        harness = get_harness(dialect)
        for text in _TEXTS:
            for agent in harness.read_text(text, None):
                for finding in agent.findings:
                    rule = RULES[finding.code]
                    assert finding.code.startswith(prefix)
                    declared = rule.strict if strict else rule.default
                    got = severity_of(finding.effect, strict=strict)
                    if finding.code in MIXED:
                        assert got in (declared, Severity.WARNING), finding
                    else:
                        assert got is declared, (finding.code, finding.effect)
                    seen.add(finding.code)
    assert len(seen) >= 25, sorted(seen)


def test_a_later_file_of_one_name_has_a_declared_code(tmp_path: Path) -> None:
    from subagents.harnesses import load_project

    folder = tmp_path / "p" / ".cursor" / "agents"
    folder.mkdir(parents=True)
    for stem in ("a", "b"):
        (folder / f"{stem}.md").write_text("---\nname: same\ndescription: Does it.\n---\nGo.\n")
    home = tmp_path / "home"
    home.mkdir()
    agents = load_project(get_harness("cursor"), tmp_path / "p", home)
    codes = [f.code for a in agents for f in a.findings]
    assert codes == ["SA601"]  # what validate calls the same clash (duplicate-name)
