"""`--format sarif` against the SARIF 2.1.0 schema's required properties (OASIS sarif-v2.1.0).

No SARIF schema ships with an installed package and tests may not use the network, so this is
the subset of the official schema that code-scanning uploads enforce, written out from the
standard: required properties, enums and minimums; the URI forms (no raw spaces, relative
under ``%SRCROOT%`` or an absolute ``file:`` URI) are checked by hand, since ``jsonschema``'s
``uri-reference`` format needs an optional package.  It is checked with
``jsonschema`` on awkward input: spaces in paths, a file outside the working folder (absolute
``file:`` URI), a finding without a line.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import pytest

from subagents.cli.main import cli
from subagents.diagnostics import Diagnostic, Severity
from subagents.lint.report import render_sarif
from subagents.lint.validate import validate_paths
from validate_helpers import GOOD_FRONT, agent, write

jsonschema = pytest.importorskip("jsonschema")

_MSG = {"type": "object", "anyOf": [{"required": ["text"]}, {"required": ["id"]}],
        "properties": {"text": {"type": "string"}}}
_MULTI = {"type": "object", "required": ["text"], "properties": {"text": {"type": "string"}}}
_LEVEL = {"enum": ["none", "note", "warning", "error"]}
_ARTIFACT = {"type": "object", "properties": {"uri": {"type": "string", "format": "uri-reference"},
                                               "uriBaseId": {"type": "string"}}}
SARIF_SUBSET: dict[str, Any] = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "required": ["version", "runs"],
    "properties": {
        "version": {"enum": ["2.1.0"]},
        "$schema": {"type": "string", "format": "uri"},
        "runs": {"type": "array", "items": {
            "type": "object",
            "required": ["tool"],
            "properties": {
                "tool": {"type": "object", "required": ["driver"], "properties": {
                    "driver": {"type": "object", "required": ["name"], "properties": {
                        "name": {"type": "string"},
                        "version": {"type": "string"},
                        "rules": {"type": "array", "uniqueItems": True, "items": {
                            "type": "object", "required": ["id"], "properties": {
                                "id": {"type": "string"},
                                "shortDescription": _MULTI, "fullDescription": _MULTI,
                                "help": _MULTI,
                                "defaultConfiguration": {"type": "object", "properties": {
                                    "level": _LEVEL, "enabled": {"type": "boolean"}}},
                            }}},
                    }}}},
                "originalUriBaseIds": {"type": "object", "additionalProperties": _ARTIFACT},
                "columnKind": {"enum": ["utf16CodeUnits", "unicodeCodePoints"]},
                "results": {"type": "array", "items": {
                    "type": "object",
                    "required": ["message"],
                    "properties": {
                        "ruleId": {"type": "string"},
                        "ruleIndex": {"type": "integer", "minimum": -1},
                        "level": _LEVEL,
                        "message": _MSG,
                        "locations": {"type": "array", "items": {"type": "object", "properties": {
                            "physicalLocation": {"type": "object", "properties": {
                                "artifactLocation": _ARTIFACT,
                                "region": {"type": "object", "properties": {
                                    "startLine": {"type": "integer", "minimum": 1},
                                    "startColumn": {"type": "integer", "minimum": 1},
                                }},
                            }},
                        }}},
                    }}},
            }}},
    },
}


def _check(doc: dict[str, Any]) -> None:
    validator = jsonschema.Draft7Validator(
        SARIF_SUBSET, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(doc)]
    assert errors == []
    (run,) = doc["runs"]
    base = run["originalUriBaseIds"]["%SRCROOT%"]["uri"]
    assert urlparse(base).scheme == "file" and base.endswith("/")  # SARIF §3.14.14
    for res in run["results"]:
        art = res["locations"][0]["physicalLocation"]["artifactLocation"]
        assert " " not in art["uri"]
        if "uriBaseId" in art:
            assert not urlparse(art["uri"]).scheme and not art["uri"].startswith("/")
        else:
            assert urlparse(art["uri"]).scheme == "file"


def test_awkward_paths_and_positions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project, outside = tmp_path / "project", tmp_path / "elsewhere"
    write(project, "my agents/bad agent.md", agent("name: -bad\ndescription: short\ntools: Nope"))
    write(outside, "agents/x.md", "no frontmatter")
    monkeypatch.chdir(project)
    report = validate_paths(["my agents", str(outside / "agents")])
    report.diagnostics.append(Diagnostic(path="my agents/bad agent.md", line=None, column=None,
                                         rule="SA000", severity=Severity.ERROR, message="m"))
    doc = json.loads(render_sarif(report))
    _check(doc)
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for r in doc["runs"][0]["results"]}
    assert "my%20agents/bad%20agent.md" in uris
    absolute = [u for u in uris if u.startswith("file:")]
    assert [unquote(urlparse(u).path) for u in absolute] == [str(outside / "agents" / "x.md")]
    no_line = [r for r in doc["runs"][0]["results"] if r["ruleId"] == "SA000"]
    assert "region" not in no_line[0]["locations"][0]["physicalLocation"]


def test_cli_sarif_of_an_empty_and_a_strict_run(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    monkeypatch.chdir(tmp_path)
    write(tmp_path, "agents/good.md", agent(GOOD_FRONT))
    result = CliRunner().invoke(cli, ["validate", "--format", "sarif", "agents"])
    assert result.exit_code == 0
    doc = json.loads(result.output)
    _check(doc)
    result = CliRunner().invoke(cli, ["validate", "--strict", "--format", "sarif", "agents"])
    _check(json.loads(result.output))
