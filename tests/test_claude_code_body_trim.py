"""Claude Code's reading: the body from the block's offsets, trimmed in one copy; the
frontmatter's keys made text with one copy of the mapping.

``read_claude_code`` no longer copies the text after the block and then trims the copy: it
counts the whitespace at the body's end from the end (a long run left to ``js_trim``).  The
body must be ``js_trim`` of what :func:`split_block` gives as the rest, whatever whitespace
(JavaScript's, and characters that are not JavaScript whitespace) ends or fills it; the
split of ``tools`` without parentheses must be the split on ``[, ]``."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from hypothesis_helpers import examples
from subagents.claude_code import bun_yaml
from subagents.claude_code.reader import (
    ParseMode,
    js_trim,
    read_claude_code,
    split_block,
    split_tools,
)
from test_yamltree_equivalence import _yaml_texts

_SPACES = ["\n", " ", "\t", "\r", "\u00a0", "\u2028", "\u2029", "\ufeff", "\u3000", "\x0b",
           "\x0c", "\x1f", "\x85", "\u200b", "\u2000", "\u180e"]


@st.composite
def _files(draw: st.DrawFn) -> str:
    head = draw(st.sampled_from(["---\nname: a\ndescription: b\n---", "---\n---", "---\n---x",
                                 "---\nname: a\n--- ", "---\n\n---\u00a0\n"]))
    inner = draw(st.text(max_size=20))
    tail = "".join(draw(st.lists(st.sampled_from(_SPACES), max_size=90)))
    lead = "".join(draw(st.lists(st.sampled_from(_SPACES), max_size=4)))
    return head + lead + inner + tail


def _check(text: str) -> None:
    block = split_block(text)
    view = read_claude_code(text)
    assert view.body == (js_trim(block[1]) if block is not None else js_trim(text)), repr(text)


@settings(max_examples=examples(1000), deadline=None)
@given(_files())
def test_the_body_is_the_trimmed_rest(text: str) -> None:
    _check(text)


def test_long_whitespace_runs_at_the_end() -> None:
    for n in (0, 1, 63, 64, 65, 200):
        for space in ("\n", "\u3000", " \n"):
            _check("---\nname: a\ndescription: b\n---\nbody" + space * n)
            _check("---\nname: a\ndescription: b\n---\n" + space * n)
            _check("---\nname: a\ndescription: b\n---" + space * n)


@settings(max_examples=examples(500))
@given(st.text(alphabet="Read Grep,*\t\u00a0\u3000\x1f\x85\u2028", max_size=24))
def test_tools_split_as_on_comma_and_space(item: str) -> None:
    pieces = [p for p in map(js_trim, re.split("[, ]", item)) if p]
    got = split_tools(item)
    assert got == (None if "*" in pieces else tuple(pieces))


@settings(max_examples=examples(500), deadline=None)
@given(_yaml_texts())
def test_frontmatter_keys_as_text_and_unknown_keys(yaml_text: str) -> None:
    """The frontmatter is a copy whose keys are all text (a key read as a number, a bool or
    null becomes its ``str``), in the parsed order; the unknown keys are those the profile
    does not know, in that order."""
    text = f"---\n{yaml_text}\n---\nbody\n"
    view = read_claude_code(text)
    block = split_block(text)
    assert block is not None
    try:
        parsed = bun_yaml.parse(block[0])
    except bun_yaml.BunYamlError:
        return  # the lenient pass's reading: not this shortcut's
    if view.parse is not ParseMode.YAML:
        return
    expected = {str(k): v for k, v in parsed.items()} if isinstance(parsed, dict) else {}
    assert list(view.frontmatter.items()) == list(expected.items()) or any(
        v != v for v in expected.values())  # (NaN is not equal to itself)
    assert all(type(k) is str for k in view.frontmatter)
    if view.loaded:
        known = view.profile.known_keys
        assert view.unknown_keys == tuple(k for k in expected if k not in known)
