"""The findings of a field of the wrong shape (``fields._bad``): which code, what message,
and where -- the value when its position is known, else the key, else the frontmatter's
start, else the first line."""

from __future__ import annotations

from subagents.definition import Dialect, SourceLocation
from subagents.formats.fields import build_from_items


def _findings(raw: list, default: SourceLocation | None = None) -> list[tuple]:  # type: ignore[type-arg]
    _definition, issues = build_from_items(raw, dialect=Dialect.CLAUDE, path=None,
                                           default_location=default)
    return [(i.code, i.message, i.line, i.column, i.hint, i.key) for i in issues]


def test_a_second_spelling_of_a_field() -> None:
    raw = [("maxTurns", 3, SourceLocation(2, 1), "3", (2, 11)),
           ("max_turns", 4, SourceLocation(3, 1), "4", (3, 12))]
    assert _findings(raw) == [(
        "SA108", "`max_turns` must be given once (another spelling of this field came "
        "first), not the number 4", 3, 12, "write a whole number, e.g. `maxTurns: 30`",
        "max_turns")]


def test_where_a_wrong_shape_is_reported() -> None:
    value = ("maxTurns", "ten", SourceLocation(4, 1), "ten", (4, 11))
    key_only = ("tools", 5, SourceLocation(5, 1), None, None)
    nowhere = ("tags", "x", None, None, None)
    assert _findings([value, key_only, nowhere], SourceLocation(1, 1)) == [
        ("SA108", "`maxTurns` must be a positive whole number, not the text 'ten'", 4, 11,
         "write a whole number, e.g. `maxTurns: 30`", "maxTurns"),
        ("SA014", "`tools` must be a comma-separated string or a list of tool names, not "
         "the number 5", 5, 1, "write `tools: Read, Grep, Glob` (or a YAML list of names)",
         "tools"),
        ("SA113", "`tags` must be a list of strings, not the text 'x'", 1, 1,
         "write `tags: [review, security]`", "tags"),
    ]
    assert _findings([nowhere], SourceLocation(7, 2))[0][2:4] == (7, 2)
    assert _findings([nowhere])[0][2:4] == (1, 1)
