"""`subagents schema`: a valid draft 2020-12 schema that agrees with the validator."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from corpus_helpers import CORPUS, needs_corpus
from subagents.diagnostics import Severity
from subagents.lint.schema import frontmatter_schema
from subagents.lint.validate import iter_agent_files, validate_paths
from validate_helpers import DATA

jsonschema = pytest.importorskip("jsonschema")


def _front(text: str) -> dict[str, Any]:
    block = text.split("---", 2)[1]
    data = yaml.safe_load(block)
    out: dict[str, Any] = json.loads(json.dumps(data, default=str))  # dates as strings
    return out


def _validator() -> Any:
    schema = frontmatter_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def test_seed_example_conforms() -> None:
    v = _validator()
    errors = list(v.iter_errors(_front((DATA / "seed_compliant.md").read_text())))
    assert errors == []


@pytest.mark.parametrize(("patch", "path"), [
    ({"name": "-x"}, "name"),
    ({"maxTurns": 0}, "maxTurns"),
    ({"permissionMode": "yolo"}, "permissionMode"),
    ({"hooks": {"BeforeAll": []}}, "hooks"),
    ({"hooks": {"Stop": [{"matcher": "x"}]}}, "hooks"),
    ({"mcpServers": {"gh": {"env": {}}}}, "mcpServers"),
    ({"tags": "a, b"}, "tags"),
    ({"effort": "extreme"}, "effort"),
])
def test_schema_rejects_what_validate_rejects(patch: dict[str, Any], path: str) -> None:
    base = {"name": "ok", "description": "Reviews diffs for problems"}
    errors = list(_validator().iter_errors({**base, **patch}))
    assert errors and errors[0].absolute_path[0] == path
    assert list(_validator().iter_errors(base)) == []
    assert list(_validator().iter_errors({"name": "ok"}))  # description required


@needs_corpus
def test_corpus_files_without_errors_conform() -> None:
    v = _validator()
    folders = [CORPUS / "0xfurai__claude-code-subagents",
               CORPUS / "catlog22__Claude-Code-Workflow/files/.claude",
               CORPUS / "VoltAgent__awesome-claude-code-subagents"]
    report = validate_paths(folders)
    every = {str(p) for f in folders for p, _shown, _link in iter_agent_files(f, str(f))}
    # (files only Claude Code's lenient YAML pass reads are not YAML for the schema either)
    bad = {d.path for d in report.diagnostics
           if d.severity is Severity.ERROR or d.rule in ("SA010", "SA013")}
    checked = 0
    for path in every - bad:
        text = Path(path).read_text(encoding="utf-8").lstrip()
        errors = list(v.iter_errors(_front(text)))
        assert errors == [], (path, [e.message for e in errors])
        checked += 1
    assert checked > 300
