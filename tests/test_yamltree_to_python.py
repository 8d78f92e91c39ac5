"""``YScalar.to_python`` answers the text itself with one test for the common cases (quoted,
tagged a string, or plain and resolved as one); every scalar must convert as the plain steps
(kept here as the reference) convert it, whatever its style, tag and resolved tag."""

from __future__ import annotations

from typing import Any

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from hypothesis_helpers import examples
from subagents.formats import yamltree
from subagents.formats.yamltree import YScalar

_STR = "tag:yaml.org,2002:str"
_TAGS = [None, "", "!", _STR, "tag:yaml.org,2002:int", "tag:yaml.org,2002:bool",
         "tag:yaml.org,2002:null", "tag:yaml.org,2002:float", "tag:yaml.org,2002:timestamp",
         "!custom"]


def _reference(node: YScalar) -> Any:
    if node.style or (node.tag and node.tag in ("!", _STR)):
        return node.value
    tag = node.tag or node.resolved_tag or yamltree._resolver.resolve(
        yaml.ScalarNode, node.value, (True, False))
    if tag == _STR:
        return node.value
    try:
        return yamltree._constructor.construct_object(yaml.ScalarNode(tag, node.value),
                                                      deep=True)
    except (yaml.YAMLError, ValueError, TypeError, OverflowError):
        return node.value


@settings(max_examples=examples(1000), deadline=None)
@given(st.one_of(st.sampled_from(["x", "yes", "1", "~", "", "1.5", "2024-01-01", ".inf", "0x1F",
                                  "null", "True"]), st.text(max_size=10)),
       st.sampled_from([None, "", "'", '"', "|", ">"]), st.sampled_from(_TAGS),
       st.sampled_from(_TAGS))
def test_to_python_is_the_plain_steps(value: str, style: str | None, tag: str | None,
                                      resolved: str | None) -> None:
    node = YScalar(value, 1, 1, style, tag, 1, 1, resolved)
    got, want = _outcome(node.to_python), _outcome(lambda: _reference(node))
    assert type(got) is type(want) and (got == want or got != got), (node, got, want)


def _outcome(convert: Any) -> Any:
    """The value, or the type of the exception (a resolved tag the text does not fit, as
    made up here, makes PyYAML's constructor fail; both ways must fail alike)."""
    try:
        return convert()
    except Exception as exc:  # compared, not hidden
        return type(exc)
