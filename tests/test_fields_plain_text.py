"""The fields a definition takes a text value of as it is (``fields._PLAIN_TEXT``, a
shortcut past ``_convert``'s cases) are exactly those ``_convert`` returns the text for."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from subagents.definition import FIELD_ALIASES
from subagents.formats import fields
from subagents.formats.fields import build_from_items

_ATTRS = sorted(set(FIELD_ALIASES.values()))


def test_the_plain_fields_are_those_convert_returns_as_is() -> None:
    for attr in _ATTRS:
        if attr in fields._PLAIN_TEXT:
            for text in ("", " ", "x", "a, b", "1", "true", "é\u2028"):
                assert fields._convert(attr, text) is text, attr
    # and every field not listed turns some text into something else (a list, a number, a
    # string of its own) or is one of those read as written
    for attr in set(_ATTRS) - fields._PLAIN_TEXT:
        assert (attr in fields._TEXT_AS_WRITTEN
                or fields._convert(attr, "a, b") != "a, b"
                or fields._convert(attr, "a, b") is fields._BAD), attr


@given(st.lists(st.tuples(st.sampled_from(sorted(FIELD_ALIASES)),
                          st.one_of(st.text(max_size=8), st.none(), st.integers(),
                                    st.booleans(), st.lists(st.text(max_size=3), max_size=2))),
                max_size=6))
def test_a_definition_is_built_as_through_convert(items: list[tuple[str, object]]) -> None:
    raw = [(k, v, None, v if isinstance(v, str) else None, None) for k, v in items]
    from subagents.definition import Dialect

    ours = build_from_items(raw, dialect=Dialect.CLAUDE, path=None)
    saved = fields._PLAIN_TEXT
    try:
        fields._PLAIN_TEXT = frozenset()  # every value through _convert
        plain = build_from_items(raw, dialect=Dialect.CLAUDE, path=None)
    finally:
        fields._PLAIN_TEXT = saved
    assert ours[0] == plain[0] and repr(ours[0]) == repr(plain[0])
    assert [(i.code, i.message, i.line, i.column) for i in ours[1]] == [
        (i.code, i.message, i.line, i.column) for i in plain[1]]
