"""The closing ``---`` line is found by ``str.find`` of its dashes, as the pattern finds it.

:func:`subagents.formats.frontmatter._close_line` passes over lines holding neither ``---``
nor ``...`` and matches the close-line pattern only from the start of a line holding one;
the plain way searches the pattern through the text.  Both must give the same match (span)
or none, from the start of any line, on generated texts full of near misses and on every
corpus file."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from hypothesis_helpers import examples
from subagents.formats.frontmatter import _IS_CLOSE_LINE_RE, _close_line

_PIECES = ["---", "...", "--", "..", "-", ".", " ", "\t", "\x0c", "\x0b", "\xa0", "\ufeff",
           "\u2028", "\u3000", "\r", "x", "name: a", "- item", "\n", "\n", "\n", "# ---"]


def _spans(text: str, start: int) -> tuple[object, object]:
    ours = _close_line(text, start)
    plain = _IS_CLOSE_LINE_RE.search(text, start)
    return ours, (None if plain is None else plain.span())


def _every_line_start(text: str) -> list[int]:
    return [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]


@settings(max_examples=examples(1500), deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=40).map("".join))
def test_the_close_line_is_the_patterns(text: str) -> None:
    for start in _every_line_start(text):
        ours, plain = _spans(text, start)
        assert ours == plain, (text, start)


def test_near_misses() -> None:
    for text in ["---\nname: a\n--- x\n---\n", "---\na: ...b\n...\n", "---\n  ---  \nb",
                 "---\nx---\n \t---\n", "---\na\n----\n---", "---\n...\x0c\n", "---\n- ---\n",
                 "---\na\n---\ufeff\nbody", "---\n---", "---\nno close", "---\n\n\n"]:
        for start in _every_line_start(text):
            ours, plain = _spans(text, start)
            assert ours == plain, (text, start)


def test_every_corpus_file(corpus: Path) -> None:
    count = 0
    for path in sorted(corpus.rglob("*.md")):
        text = path.read_bytes().decode("utf-8", "replace").replace("\r\n", "\n")
        nl = text.find("\n")
        ours, plain = _spans(text, nl + 1)
        assert ours == plain, path
        count += 1
    assert count > 300
