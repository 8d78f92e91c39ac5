"""The loader's result of a Markdown file is built once, by the harness (``emulate_read``).

``Harness.emulate_read`` takes the strict reading as parts; Claude Code's harness builds the
one result with its reading attached.  It must be exactly what building the strict result and
then ``emulate`` gave (``Reading.emulate_read``, the plain way): every field, Claude Code's
view and the reworded findings, on every corpus file and on generated files (broken YAML,
duplicate keys, CRLF, a BOM, no frontmatter, lenient and refused blocks)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corpus_helpers import needs_corpus
from hypothesis_helpers import examples
from subagents.definition import Dialect
from subagents.harnesses import loader
from subagents.harnesses.claude import HARNESS, ClaudeHarness
from subagents.harnesses.loader import LoadResult, parse_agent_text
from subagents.harnesses.reading import Reading


def _plain_way(monkeypatch: pytest.MonkeyPatch) -> None:
    """Claude Code's harness answering ``emulate_read`` the plain way: the strict result
    built, then ``emulate``."""
    monkeypatch.setattr(ClaudeHarness, "emulate_read", Reading.emulate_read)


def _fields(result: LoadResult) -> list[Any]:
    return [getattr(result, f.name) for f in dataclasses.fields(LoadResult)]


def _same(data: bytes, path: str = "a.md", dialect: Dialect = Dialect.CLAUDE) -> LoadResult:
    once = parse_agent_text(data, path=path, dialect=dialect, file_path=Path(path))
    with pytest.MonkeyPatch.context() as mp:
        _plain_way(mp)
        plain = parse_agent_text(data, path=path, dialect=dialect, file_path=Path(path))
    assert _fields(once) == _fields(plain), data
    assert repr(once.claude_code) == repr(plain.claude_code)
    assert once.loaded == plain.loaded
    return once


_LINES = ["name: a", "name: a", "description: d", "description: Use when: x", "tools: Read",
          "tools: [Read, Grep]", "model: sonnet", "model: ' '", "name: b", "hooks:",
          "  Stop: []", "memory: user", "x: &a 1", "y: *a", "k: !t v", "  indented: 1", "- x",
          "", "# c", "maxTurns: ten", "skills: s1", "\tk: v", "name: -x", "description: ''"]


@st.composite
def _files(draw: st.DrawFn) -> bytes:
    lines = draw(st.lists(st.sampled_from(_LINES), max_size=8))
    head = draw(st.sampled_from(["---\n", "---\n\n", "\n---\n", "--- \n", "", "\ufeff---\n"]))
    close = draw(st.sampled_from(["---\n", "---", "--- x\n", ""]))
    text = head + "\n".join(lines) + "\n" + close + draw(st.sampled_from(["body\n", "", "\n\n"]))
    if draw(st.booleans()):
        text = text.replace("\n", "\r\n")
    return text.encode("utf-8")


@given(_files())
@settings(max_examples=examples(300))
def test_the_one_result_is_the_strict_one_emulated(data: bytes) -> None:
    _same(data)


def test_every_way_in_gives_the_one_result(tmp_path: Path) -> None:
    data = b"---\nname: a\nname: b\ndescription: d\n---\nbody\n"
    result = _same(data)
    assert result.claude_code is not None and result.claude_code.loaded
    assert [d.rule for d in result.diagnostics] == ["SA007"]
    assert "keeps the last value" in result.diagnostics[0].message
    _same(data, dialect=Dialect.CODEX_MD)  # (the plain harness: its result unchanged)
    _same("---\nname: a\ndescription: d\n---\nbody\n", )  # type: ignore[arg-type]
    assert loader._harness_of(Dialect.CLAUDE) is HARNESS


@needs_corpus
def test_corpus_files_give_the_one_result(corpus: Path) -> None:
    for path in sorted(corpus.rglob("*.md")):
        _same(path.read_bytes(), str(path))
