"""A YAML failure found once is not looked for again where the answer is provably the same.

* The frontmatter's recovery reads each field on its own and asks only *whether* it reads:
  ``parse_yaml_tree(..., exact_error=False)`` answers a text the composer refuses without the
  event-by-event second parse (which only finds the error's own message and place).  The
  recovered document and its findings must be exactly those of the exact parse.
* Claude Code's first parse of a block the strict reader's composer already refused (the
  same text, the same libyaml composer) is that refusal, not a second parse: the view must
  be the one the block's own parse gives.

Compared on every corpus file and on generated frontmatter full of the shapes that break
YAML (``: `` in plain values, ``<example>`` blocks, stray indentation, quotes, lists, several
documents)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corpus_helpers import needs_corpus
from hypothesis_helpers import examples
from subagents.formats import frontmatter, yamltree
from subagents.formats.frontmatter import decode_bytes, split_frontmatter
from subagents.formats.yamltree import UNREAD, parse_yaml_tree


def _exact_always(monkeypatch: pytest.MonkeyPatch) -> None:
    """The recovery's field parses made exact, as they were before the shortcut."""
    plain = yamltree.parse_yaml_tree

    def exact(text: str, *, line_offset: int = 0, exact_error: bool = True) -> Any:
        return plain(text, line_offset=line_offset)

    monkeypatch.setattr(frontmatter, "parse_yaml_tree", exact)


def _seen(text: str) -> object:
    doc, issues = split_frontmatter(text)
    if doc is None:
        return None, issues
    return (doc.root, doc.fields, doc.recovered, doc.yaml_text, doc.body, issues)


_LINES = [
    "name: x", "description: plain", "description: Use when: the user asks",
    "description: a: b: c", "  continued: line", "  <example>", "  user: hi", "  </example>",
    "<example>", "Context: x", "assistant: y", "</commentary>", "tools: Read, Grep",
    "tools: [Read, Grep]", "model: sonnet", "  - item", "- item", "key", "key:", "'q': 1",
    'd: "open', "d: 'it''s'", "# comment", "", "   ", "\tx: tab", "k: v # c", "x: [a, b",
    "x: {a: 1", "? complex", "%YAML 1.2", "--- doc", "... end", "name: y", "color: blue",
    "description: |", "  block line", "description: >-", "é: ü", "k: 12:30", "k: - x",
    "description: see [docs] here: now", "k: {x}: y", "a: b\u0085c", "k: x\u2028y: z",
]


@st.composite
def _broken(draw: st.DrawFn) -> str:
    lines = draw(st.lists(st.sampled_from(_LINES), min_size=1, max_size=10))
    return "---\n" + "\n".join(lines) + "\n---\nbody\n"


@given(_broken())
@settings(max_examples=examples(400))
def test_recovery_is_that_of_exact_parses(text: str) -> None:
    fast = _seen(text)
    with pytest.MonkeyPatch.context() as mp:
        _exact_always(mp)
        assert fast == _seen(text), repr(text)


@given(st.text(st.sampled_from("ab: -#'\"[]{}?\n\t|>&*!é"), max_size=60))
@settings(max_examples=examples(400))
def test_inexact_parse_fails_where_the_exact_one_does(text: str) -> None:
    exact = parse_yaml_tree(text, line_offset=2)
    quick = parse_yaml_tree(text, line_offset=2, exact_error=False)
    if quick.error is UNREAD:
        assert exact.error is not None and exact.root is None, repr(text)
    else:
        assert quick == exact, repr(text)


def test_a_broken_field_is_answered_without_the_event_parse(
        monkeypatch: pytest.MonkeyPatch) -> None:
    events: list[str] = []
    plain = yamltree.yaml.parse

    def counted(*args: Any, **kwargs: Any) -> Any:
        events.append("parse")
        return plain(*args, **kwargs)

    monkeypatch.setattr(yamltree.yaml, "parse", counted)
    assert parse_yaml_tree("d: a: b\n", exact_error=False).error is UNREAD
    assert events == []
    # more than one document is the composer's own refusal: the event path still answers
    tree = parse_yaml_tree("a: 1\n--- b\n", exact_error=False)
    assert events == ["parse"] and tree.error is not UNREAD
    # the exact parse still finds the message
    assert "mapping values" in (parse_yaml_tree("d: a: b\n").error or UNREAD).message


@needs_corpus
def test_corpus_recovery_is_that_of_exact_parses(corpus: Path) -> None:
    recovered = 0
    for path in sorted(corpus.rglob("*.md")):
        decoded = decode_bytes(path.read_bytes())
        if decoded.text is None:
            continue
        fast = _seen(decoded.text)
        with pytest.MonkeyPatch.context() as mp:
            _exact_always(mp)
            assert fast == _seen(decoded.text), path
        recovered += bool(fast[0] is not None and fast[2])
    assert recovered >= 5  # the corpus holds broken `description:` values


def _claude_views(data: bytes) -> tuple[Any, Any]:
    import dataclasses

    from subagents.claude_code.reader import read_claude_code
    from subagents.definition import Dialect
    from subagents.harnesses.loader import parse_agent_text

    # (the one field that says the strict parse was shared, as it is for a file that reads)
    shared = parse_agent_text(data, path="a.md", dialect=Dialect.CLAUDE).claude_code
    assert shared is not None
    if shared.shared_parse:
        shared = dataclasses.replace(shared, shared_parse=False)
    return shared, read_claude_code(data)


@given(_broken(), st.sampled_from(["", "\n", "\n\n"]))
@settings(max_examples=examples(400))
def test_claude_code_reading_with_the_strict_refusal_is_its_own(text: str, blank: str) -> None:
    data = text.replace("---\n", "---\n" + blank, 1).encode("utf-8")
    shared, alone = _claude_views(data)
    assert shared == alone and repr(shared) == repr(alone), data


def test_a_refused_block_is_composed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from subagents.claude_code import bun_yaml

    composed: list[str] = []
    plain = bun_yaml._Loader

    def counted(text: str) -> Any:
        composed.append(text)
        return plain(text)

    monkeypatch.setattr(bun_yaml, "_Loader", counted)
    data = b"---\nname: a\ndescription: Use when: the user asks\n---\nbody\n"
    shared, alone = _claude_views(data)
    assert shared == alone and shared.loaded and shared.parse.value == "lenient"
    assert not shared.shared_parse
    # the loader's reading composed only the lenient rewrite; the reading alone, both texts
    original = "name: a\ndescription: Use when: the user asks\n"
    rewritten = composed[0]
    assert composed == [rewritten, original, rewritten] and rewritten != original
    # after blank lines the block is another text: composed again, not given the answer
    composed.clear()
    shared, alone = _claude_views(data.replace(b"---\n", b"---\n\n", 1))
    assert shared == alone and composed == [original, rewritten, original, rewritten]


@needs_corpus
def test_corpus_claude_code_reading_with_the_strict_refusal_is_its_own(corpus: Path) -> None:
    for path in sorted(corpus.rglob("*.md")):
        data = path.read_bytes()
        shared, alone = _claude_views(data)
        assert shared == alone, path
