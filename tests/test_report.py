"""Text, JSON (the DESIGN.md contract) and SARIF 2.1.0 renderings of a report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from subagents.lint.report import render, render_json, render_sarif, render_text
from subagents.lint.rules.catalog import RULES
from subagents.lint.validate import ValidationReport, validate_paths
from validate_helpers import GOOD_FRONT, agent, write


@pytest.fixture
def report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ValidationReport:
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "agents/good.md", agent(GOOD_FRONT))
    write(tmp_path, "agents/bad.md", agent("name: -bad\ndescription: short\ntools: Nope"))
    write(tmp_path, "agents/none.md", "plain text")
    return validate_paths(["agents"])


def test_text_is_linter_style_with_hints_and_summary(report: ValidationReport) -> None:
    out = render_text(report)
    lines = out.splitlines()
    first = lines.index("agents/bad.md:2:7: SA101 error: Claude Code 2.1.332 skips this file: "
                        "`name` '-bad' starts with `-`")
    assert lines[first + 1].startswith("    hint: ")
    assert "agents/none.md:1:1: SA003 error:" in out
    warnings = f"{report.warnings} warning" + ("" if report.warnings == 1 else "s")
    # bad.md is judged, but Claude Code skips it: one agent loads, as `list` counts
    assert lines[-1] == f"3 files, 1 agent: {report.errors} errors, {warnings}"
    assert "\x1b[" not in out
    assert "\x1b[31m" in render_text(report, color=True)


def test_json_matches_the_contract_exactly(report: ValidationReport) -> None:
    data = json.loads(render_json(report))
    assert set(data) == {"summary", "diagnostics"}
    assert data["summary"] == {"files": 3, "agents": 1, "errors": report.errors,
                               "warnings": report.warnings}
    assert report.errors >= 3
    for d in data["diagnostics"]:
        assert set(d) == {"path", "line", "column", "rule", "severity", "message", "hint"}
        assert isinstance(d["path"], str) and d["severity"] in ("error", "warning", "info")
        assert d["line"] is None or d["line"] >= 1
    bad = [d for d in data["diagnostics"] if d["rule"] == "SA104"]
    assert bad == [{"path": "agents/bad.md", "line": 4, "column": 8, "rule": "SA104",
                    "severity": "error", "message": "`tools`: unknown tool 'Nope'; Claude Code 2.1.332 lists it but "
                    "drops it when spawning the agent",
                    "hint": bad[0]["hint"]}]


def test_sarif_2_1_0(report: ValidationReport) -> None:
    doc = json.loads(render_sarif(report))
    assert doc["version"] == "2.1.0" and doc["$schema"].endswith("sarif-2.1.0.json")
    (run,) = doc["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "subagents"
    ids = [r["id"] for r in driver["rules"]]
    assert ids == list(RULES)
    assert all(r["shortDescription"]["text"] for r in driver["rules"])
    assert len(run["results"]) == len(report.diagnostics)
    for res in run["results"]:
        assert ids[res["ruleIndex"]] == res["ruleId"]
        assert res["level"] in ("error", "warning", "note")
        loc = res["locations"][0]["physicalLocation"]
        uri = loc["artifactLocation"]["uri"]
        assert not uri.startswith("/") and uri.startswith("agents/")
        assert loc["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
        assert loc["region"]["startLine"] >= 1 and loc["region"]["startColumn"] >= 1
    sa101 = next(r for r in run["results"] if r["ruleId"] == "SA101")
    assert sa101["locations"][0]["physicalLocation"]["region"] == {"startLine": 2,
                                                                   "startColumn": 7}


def test_render_dispatch(report: ValidationReport) -> None:
    assert render(report, "json") == render_json(report)
    assert render(report, "text") == render_text(report)
    assert json.loads(render(report, "sarif"))["version"] == "2.1.0"
