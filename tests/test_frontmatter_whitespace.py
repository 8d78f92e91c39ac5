"""Whitespace other than spaces and tabs around the `---` lines: a form feed, a vertical tab,
NBSP, U+2028, a lone carriage return.  Claude Code's block pattern lets JavaScript's
whitespace follow either `---` (recorded cases ``block-*-after-*``, which the conformance
tests replay); the strict reader must find the block at the same lines, or every finding in
the file loses its position (it was reported at 1:1)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hypothesis_helpers import examples
from subagents.claude_code.reader import OPENING_NOT_ENDED, read_claude_code
from subagents.diagnostics import Diagnostic
from subagents.formats.frontmatter import decode_bytes, split_frontmatter
from subagents.lint.report import _read_lines
from validate_helpers import diags, only

_FILE = "---{open}\nname: ws-agent\ndescription: Odd line.\n---{close}\nBody.\n"


def _file(open_ws: str = "", close_ws: str = "", before: str = "") -> bytes:
    return (before + _FILE.format(open=open_ws, close=close_ws)).encode("utf-8")


def _description_line(data: bytes) -> int:
    """The file line of the description (a lone carriage return ends a line, as editors say)."""
    text = decode_bytes(data).text
    assert text is not None
    return text.split("\n").index("description: Odd line.") + 1


def _at(d: Diagnostic) -> tuple[int | None, int | None]:
    return d.line, d.column


@pytest.mark.parametrize("ws", ["\f", "\v", " \f", "\u00a0", "\u2028", "\ufeff", "\t\f ",
                                "\r\r\t", "\r\f"])
@pytest.mark.parametrize("where", ["open", "close", "both"])
def test_a_vague_description_is_reported_on_its_own_line(ws: str, where: str) -> None:
    data = _file(ws if where != "close" else "", ws if where != "open" else "")
    ds = diags(data)
    (vague,) = only(ds, "SA304")
    assert _at(vague) == (_description_line(data), 14)
    assert not [d for d in ds if _at(d) == (1, 1)]
    view = read_claude_code(data)
    assert view.loaded and view.name == "ws-agent" and view.body == "Body."


def test_the_block_lines_agree_with_claude_code() -> None:
    data = _file("\f", "\f")
    doc, issues = split_frontmatter(data.decode())
    assert doc is not None and not issues
    assert (doc.start_line, doc.end_line) == (1, 4)
    assert doc.fields["description"].key_line == read_claude_code(data).block_line + 1
    assert doc.body == "Body.\n"


@pytest.mark.parametrize("before", ["\f\n", "\f", "\r", "\u2028\n", " \f\n\n"])
def test_whitespace_before_the_opening_line(before: str) -> None:
    # Claude Code skips the file (block-ff-before-open, block-ff-line-first,
    # block-cr-line-first); the strict reader still reads the block for the other findings
    data = _file(before=before)
    assert not read_claude_code(data).loaded
    ds = diags(data)
    assert [d.rule for d in ds if _at(d) == (1, 1)] == ["SA018"]
    text = decode_bytes(data).text
    assert text is not None
    line = text.split("\n").index("description: Odd line.") + 1
    (vague,) = only(ds, "SA304")
    assert _at(vague) == (line, 14)
    assert "SA004" not in {d.rule for d in ds}  # the opening --- was once taken for a close


def test_a_first_line_holding_only_a_form_feed_is_not_a_never_closed_block() -> None:
    doc, issues = split_frontmatter("\f\n---\nname: x\ndescription: d\n---\nBody.\n")
    assert doc is not None and (doc.start_line, doc.end_line) == (2, 5)
    assert [i.code for i in issues] == ["SA018"]


def test_a_lone_carriage_return_after_the_opening_line() -> None:
    # block-lone-cr-open: Claude Code finds no block; we say why, on line 1
    data = b"---\rname: ws-agent\ndescription: Odd line.\n---\nBody.\n"
    view = read_claude_code(data)
    assert not view.loaded and view.skip is not None
    assert view.skip.message == OPENING_NOT_ENDED
    ds = diags(data)
    (skip,) = only(ds, "SA004")
    assert _at(skip) == (1, 1) and "line break" in skip.message
    assert skip.hint is not None and "line feed" in skip.hint
    assert _at(only(ds, "SA304")[0]) == (3, 14)
    # a block that is really not closed keeps its message and hint
    (unclosed,) = only(diags(b"---\nname: x\ndescription: Odd line.\nBody.\n"), "SA004")
    assert "never closed" in unclosed.message and "close the frontmatter" in (unclosed.hint or "")


def test_a_lone_carriage_return_after_the_closing_line_loads() -> None:
    data = b"---\nname: ws-agent\ndescription: Odd line.\n---\rBody.\n"
    view = read_claude_code(data)
    assert view.loaded and view.body == "Body."  # block-lone-cr-close
    assert _at(only(diags(data), "SA304")[0]) == (3, 14)


def test_the_snippet_lines_are_numbered_as_the_readers_number_them(tmp_path: object) -> None:
    from pathlib import Path

    assert isinstance(tmp_path, Path)
    f = tmp_path / "a.md"
    f.write_bytes("---\f\nname: x\x0b y\ndescription: a\u2028b\r\n---\rBody.\n".encode())
    lines = _read_lines(str(f))
    assert lines == ["---\f", "name: x\x0b y", "description: a\u2028b", "---", "Body."]


_WS = st.sampled_from(
    [" ", "\t", "\f", "\v", "\r", "\u00a0", "\u1680", "\u2000", "\u200a", "\u2028", "\u2029",
     "\u202f", "\u205f", "\u3000", "\ufeff", "\x85", "\x1c", "\x1f"]
)
_RUN = st.lists(_WS, max_size=4).map("".join)


@settings(max_examples=examples(500), deadline=None)
@given(open_ws=_RUN, close_ws=_RUN, before=st.lists(st.sampled_from(["", "\n", "\f", "\r", " "]),
                                                    max_size=3).map("".join))
def test_no_finding_lands_on_1_1_unless_it_is_about_line_1(
    open_ws: str, close_ws: str, before: str
) -> None:
    data = _file(open_ws, close_ws, before)
    ds = diags(data)
    # about line 1: where (or whether) the block starts, or Claude Code's reason to skip it
    about_line_1 = {"SA003", "SA004", "SA018"}
    assert not [d for d in ds if _at(d) == (1, 1) and d.rule not in about_line_1], ds
    text = decode_bytes(data).text
    assert text is not None
    lines = text.split("\n")
    line = lines.index("description: Odd line.") + 1
    found = [_at(d) for d in only(ds, "SA304")]
    assert set(found) <= {(line, 14)}, ds
    if read_claude_code(data).loaded:  # then it is always judged, and where it is written
        assert found == [(line, 14)], ds


def test_the_fix_diff_keeps_a_form_feed_line_whole() -> None:
    from subagents.repair.fix import fix_text

    result = fix_text(_file(before="\f\n"), path="a.md")
    assert result.fixed.startswith(b"---\n")  # the line before the opening --- went
    diff = result.diff()
    assert "-\f\n ---\n" in diff and "No newline" not in diff


@pytest.mark.parametrize("brk", ["\u2028", "\u2029", "\x85"])
def test_positions_after_a_yaml_1_1_line_break_inside_a_value(brk: str) -> None:
    # libyaml ends a line at NEL, U+2028 and U+2029; the file does not
    data = ("---\nname: ls-quoted\ndescription: \"Reviews diffs" + brk + "for security problems "
            "in the API layer\"\ntools: Read, Serach\n---\nBody.\n").encode()
    (unknown,) = only(diags(data), "SA104")
    assert _at(unknown) == (4, 14)
