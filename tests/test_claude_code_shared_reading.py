"""Claude Code's reading attached by the loader (``emulate``: the strict reader's parse shared,
the view filled in with shortcuts) equals its reading of the same bytes on their own.

``read_claude_code(data)`` with nothing given parses the block itself (Bun's parser emulated on
libyaml) and takes none of the loader's shortcuts; the view the loader attaches must say the
same in every field but ``shared_parse`` (which only says where the value came from), on
generated files (judged fields good and bad, tools with every kind of separator, keys that
are not text, blank lines after the opening ``---``, CRLF, a BOM, a ``---`` inside a value)
and on every file of the corpus.  Claude Code's definition built from the shared view is the
one built from a view read on its own with the strict definition given.
"""

from __future__ import annotations

import dataclasses
import math
import re
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from hypothesis_helpers import examples
from subagents.claude_code import bun_yaml
from subagents.claude_code.definition import definition_from_view
from subagents.claude_code.reader import (
    ClaudeCodeView,
    ParseMode,
    js_trim,
    read_claude_code,
    split_tools,
)
from subagents.definition import Dialect
from subagents.harnesses.loader import parse_agent_text
from test_claude_code_reader import JS_WHITESPACE
from test_yamltree_equivalence import _yaml_texts

_FIELDS = [f.name for f in dataclasses.fields(ClaudeCodeView) if f.name != "shared_parse"]


def _comparable(value: Any) -> Any:
    """NaN made equal to itself, types kept apart (1, 1.0 and True differ)."""
    if isinstance(value, float) and math.isnan(value):
        return ("nan",)
    if isinstance(value, dict):
        return [(_comparable(k), _comparable(v)) for k, v in value.items()]
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [_comparable(v) for v in value])
    return (type(value).__name__, value)


def _same_reading(data: bytes) -> None:
    result = parse_agent_text(data, dialect=Dialect.CLAUDE)
    shared = result.claude_code
    alone = read_claude_code(data)
    assert shared is not None
    if shared.parse is ParseMode.YAML:  # the value Bun's parser gives, its keys made text
        parsed = bun_yaml.parse(shared.block_text)
        want = {str(k): v for k, v in parsed.items()} if isinstance(parsed, dict) else {}
        assert _comparable(shared.frontmatter) == _comparable(want)
        assert all(type(k) is str for k in shared.frontmatter)
    for name in _FIELDS:
        assert _comparable(getattr(shared, name)) == _comparable(getattr(alone, name)), (
            name, data)
    if not shared.loaded:
        return
    strict = result.definition
    got = definition_from_view(shared, path=None, strict=strict)
    alone.shared_parse = shared.shared_parse  # (the same strict definition, the same way)
    want = definition_from_view(alone, path=None, strict=strict)
    for f in dataclasses.fields(got):
        assert _comparable(getattr(got, f.name)) == _comparable(getattr(want, f.name)), (
            f.name, data)
    if strict is None:
        return
    # positions given: the mapping copied (the strict definition's own, when not given)
    copied = definition_from_view(shared, path=None, strict=strict,
                                  locations=dict(strict.locations))
    bodiless = definition_from_view(shared, path=None, strict=strict, include_body=False)
    for f in dataclasses.fields(got):
        assert _comparable(getattr(got, f.name)) == _comparable(getattr(copied, f.name)), (
            f.name, data)
        if f.name != "system_prompt":
            assert _comparable(getattr(got, f.name)) == _comparable(
                getattr(bodiless, f.name)), (f.name, data)
    assert got.locations == strict.locations and bodiless.system_prompt == ""


_VALUES = ["Read, Grep", "Read,Grep  Glob", "[Read, Grep]", "[Read, 'Bash(git:*)', 1]",
           "Bash(git diff, git log) Read", "'Read,\tGrep'", '"Read\\u00a0Grep"', "'*'",
           "Read *", "''", "[]", "{}", "~", "1", "true", "sonnet", "' Inherit '", "haiku ",
           "blue", "purple", "not-a-colour", "project", "local", "nope", "worktree", "plan",
           "bypassPermissions", "banana", "high", "3", "-1", "ten", "1.5", "[a, b]",
           "[x, {y: {command: run}}]", "'Read\\nGrep'", '"a\\\\nb"', "ü日本", "'a: b'",
           "{PreToolUse: [{matcher: x, hooks: [{type: command, command: ls}]}]}",
           "{Stop: x}", "{Nope: []}"]
_KEYS = ["tools", "disallowedTools", "model", "color", "memory", "isolation", "permissionMode",
         "effort", "maxTurns", "background", "mcpServers", "hooks", "skills", "initialPrompt",
         "keywords", "x-other", "1", "null", "'q'", "PreToolUse", "tools"]


@st.composite
def _files(draw: st.DrawFn) -> bytes:
    lines = ["name: " + draw(st.sampled_from(["a", "code-reviewer", "'x'", "b:c", "-x"])),
             "description: " + draw(st.sampled_from(["Use it", "'Say\\nmore'", "''", "1"]))]
    for _ in range(draw(st.integers(0, 6))):
        lines.append(f"{draw(st.sampled_from(_KEYS))}: {draw(st.sampled_from(_VALUES))}")
    if draw(st.booleans()):
        lines.append(draw(_yaml_texts()).rstrip("\n"))
    draw(st.randoms()).shuffle(lines)
    opening = draw(st.sampled_from(["---\n", "---\n\n", "---\n\n\n", "---  \n", "--- \n\n",
                                    "---\n \n", "---\n\t\n"]))
    closing = draw(st.sampled_from(["---\n", "---", "---  \n\n", "--- x\n"]))
    body = draw(st.sampled_from(["", "body\n", "\n\nYou review code.\n\n", "a---b\n"]))
    text = opening + "\n".join(lines) + "\n" + closing + body
    if draw(st.booleans()):
        text = text.replace("\n", "\r\n")
    data = text.encode("utf-8")
    return (b"\xef\xbb\xbf" + data) if draw(st.booleans()) else data


@settings(max_examples=examples(800), deadline=None)
@given(_files())
def test_the_loaders_reading_is_the_reading_of_the_bytes(data: bytes) -> None:
    _same_reading(data)


def test_the_loaders_reading_on_the_corpus(corpus: Path) -> None:
    files = sorted(p for p in corpus.rglob("*.md") if p.is_file())
    assert files
    for path in files:
        _same_reading(path.read_bytes())


def test_printable_text_holds_no_whitespace_but_the_space() -> None:
    """``split_tools`` splits printable text with ``str.split()`` and trims nothing: that
    holds because every character Python or JavaScript counts as whitespace, but the space,
    is not printable (checked on every code point)."""
    for code in range(0x110000):
        ch = chr(code)
        if ch != " " and (ch.isspace() or ch in JS_WHITESPACE):
            assert not ch.isprintable(), hex(code)


def _reference_split(value: Any) -> tuple[str, ...] | None:
    """The split without the printable shortcut: each item on `[, ]`, pieces trimmed."""
    items = [value] if isinstance(value, str) else [v for v in value if isinstance(v, str)]
    out = [p for item in items for p in map(js_trim, re.split("[, ]", item)) if p]
    return None if "*" in out else tuple(out)


_TOOL_CHARS = "Read Grep,*\t\u00a0\u3000\x1f\x85\u2028\u200b\ufeffé日"


@settings(max_examples=examples(1000))
@given(st.one_of(st.text(alphabet=_TOOL_CHARS, max_size=24),
                 st.lists(st.one_of(st.text(alphabet=_TOOL_CHARS, max_size=12), st.integers()),
                          min_size=1, max_size=4)))
def test_tools_split_as_without_the_shortcut(value: str | list[Any]) -> None:
    got = split_tools(value)
    if not value or not any(isinstance(v, str) and v for v in (
            [value] if isinstance(value, str) else value)):
        assert got == ()
        return
    assert got == _reference_split(value), repr(value)


_MODELS = ["sonnet", " opus ", "Inherit", "INHERIT ", "", " ", "\x1c", "\u3000", "\ufeff",
           "\u3000haiku\x85", "claude-sonnet-4-5", "x" * 70]
_FIELD_VALUES = st.one_of(st.sampled_from(_MODELS), st.sampled_from(_VALUES), st.none(),
                          st.integers(-1, 2), st.lists(st.sampled_from(["Read", " Grep"]),
                                                       max_size=2))


@st.composite
def _frontmatter_fields(draw: st.DrawFn) -> dict[str, Any]:
    """``model`` and ``tools`` or not, and half the time other keys after them."""
    fields = draw(st.fixed_dictionaries({}, optional={"model": _FIELD_VALUES,
                                                      "tools": _FIELD_VALUES}))
    if draw(st.booleans()):
        fields.update(draw(st.dictionaries(
            st.sampled_from(["color", "memory", "hooks", "PreToolUse", "x-other", "tools",
                             "disallowedTools"]), _FIELD_VALUES, max_size=3)))
    return fields


@settings(max_examples=examples(1000), deadline=None)
@given(_frontmatter_fields())
def test_plain_keys_read_as_every_step_reads_them(fields: dict[str, Any]) -> None:
    """A frontmatter of name, description, model and tools only takes one test of its keys
    instead of the steps for hooks, unknown keys, memory and notes: the same view as those
    steps give (the shortcut switched off), and the model trimmed as the plain steps say."""
    from subagents.claude_code import reader
    from subagents.claude_code.profile import get_profile

    fm = {"name": "a", "description": "b\\nc", **fields}
    profile = get_profile()

    def judged(shortcut: bool) -> ClaudeCodeView:
        view = ClaudeCodeView(profile, False, None, ParseMode.YAML, dict(fm), name="a")
        saved = reader._PLAIN_KEYS, dict(reader._PLAIN_OF), dict(reader._MODELS)
        if not shortcut:
            reader._PLAIN_KEYS = frozenset()
            reader._PLAIN_OF.clear()
            reader._MODELS.clear()
        try:
            return reader._judged_fields(view, view.frontmatter, "b\\nc")
        finally:
            reader._PLAIN_KEYS = saved[0]
            reader._PLAIN_OF.clear()
            reader._PLAIN_OF.update(saved[1])
            reader._MODELS.clear()
            reader._MODELS.update(saved[2])

    short, steps = judged(True), judged(False)
    for name in [*_FIELDS, "shared_parse"]:
        assert _comparable(getattr(short, name)) == _comparable(getattr(steps, name)), name
    value = fm.get("model")
    if isinstance(value, str) and short.loaded:
        trimmed = js_trim(value)
        assert short.model == (None if not trimmed else "inherit"
                               if trimmed.lower() == "inherit" else trimmed)
        noted = any(n.key == "model" for n in short.notes)
        assert noted == (not value.strip())


def test_the_view_fields_are_in_the_order_the_reader_gives_them() -> None:
    """``read_claude_code`` builds its view with every field in order, none by keyword."""
    assert [f.name for f in dataclasses.fields(ClaudeCodeView)] == [
        "profile", "loaded", "skip", "parse", "frontmatter",
        "name", "description", "model", "tools", "disallowed_tools",
        "body", "notes", "unknown_keys", "quoted_keys",
        "block_text", "block_line", "error_line",
        "block_cut_inline", "replaced_bytes", "shared_parse"]
    text = "---\nname: a\ndescription: b\n---  \n\n body \n"
    view = read_claude_code(text)
    assert (view.body, view.block_text, view.block_line, view.block_cut_inline,
            view.replaced_bytes, view.quoted_keys, view.notes, view.unknown_keys) == (
        "body", "name: a\ndescription: b\n", 2, False, False, (), (), ())
    cut = read_claude_code("---\nname: a\ndescription: b---\n")
    assert (cut.block_cut_inline, cut.replaced_bytes, cut.loaded) == (True, False, True)
    bad = read_claude_code(b"---\nname: a\ndescription: b\xff\n---\n")
    assert (bad.block_cut_inline, bad.replaced_bytes, bad.loaded) == (False, True, True)
