"""Hypothesis: any bytes (and any frontmatter-shaped text) in, diagnostics out - never an
exception, never an internal-error diagnostic, every diagnostic with a line."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hypothesis_helpers import examples
from subagents.definition import Dialect
from subagents.lint.report import render_json
from subagents.lint.validate import validate_paths, validate_text

_SETTINGS = settings(max_examples=examples(300), deadline=None,
                     suppress_health_check=[HealthCheck.too_slow])

_KEYS = ["name", "description", "tools", "model", "maxTurns", "hooks", "mcpServers", "skills",
         "permissionMode", "color", "tags", "version", "disallowedTools", "keywords", "x"]
_VALUES = st.one_of(
    st.text(max_size=40),
    st.sampled_from(["Read, Grep", "[a, b]", "'quoted: x'", "|\n  block", "{a: 1}", "-1", "0",
                     "&a x", "*a", "!!binary x", "Use: this <example>", "\t- x", "ghp_abc",
                     "\n  - matcher: x\n    hooks: [{type: command}]", "sonnet", "null"]),
)


def _frontmatter(pairs: list[tuple[str, str]], body: str) -> str:
    return "---\n" + "".join(f"{k}: {v}\n" for k, v in pairs) + "---\n" + body


def _check(data: str | bytes, dialect: Dialect = Dialect.CLAUDE) -> None:
    ds = validate_text(data, path="f.md", dialect=dialect)
    for d in ds:
        assert d.rule != "SA000", d
        assert d.line is not None and d.line >= 1 and (d.column or 1) >= 1, d


@_SETTINGS
@given(st.binary(max_size=2000))
def test_any_bytes(data: bytes) -> None:
    _check(data)


@_SETTINGS
@given(st.lists(st.tuples(st.sampled_from(_KEYS), _VALUES), max_size=8), st.text(max_size=300))
def test_frontmatter_shaped_text(pairs: list[tuple[str, str]], body: str) -> None:
    text = _frontmatter(pairs, body)
    _check(text)
    _check(text, Dialect.CODEX_MD)


@_SETTINGS
@given(st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=20)),
    lambda children: st.one_of(st.lists(children, max_size=4),
                               st.dictionaries(st.text(max_size=8), children, max_size=4)),
    max_leaves=20,
))
def test_any_json(value: object) -> None:
    _check(json.dumps({"agent": value}), Dialect.JSON)
    _check(json.dumps(value), Dialect.JSON)


@settings(max_examples=examples(60), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=1500),
       where=st.sampled_from([".claude/agents/a.md", ".codex/agents/a.md", "agents.json",
                              ".github/agents/a.md"]))
def test_any_bytes_through_files(tmp_path_factory: pytest.TempPathFactory, data: bytes,
                                 where: str) -> None:
    """The whole file path: walking, reading, file rules, filters, scope rules, report."""
    root = tmp_path_factory.mktemp("fz")
    target = root / where
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    report = validate_paths([root])
    assert report.files == 1
    assert all(d.rule != "SA000" and d.line is not None for d in report.diagnostics)
    assert json.loads(render_json(report))["summary"]["files"] == 1
