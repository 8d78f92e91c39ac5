"""Claude Code's reading takes shortcuts on the common case; each gives what the plain
definition (kept here as the reference) gives, on generated input and on the corpus."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from hypothesis_helpers import examples
from subagents.claude_code import bun_yaml
from subagents.claude_code.bun_yaml import bun_value, resolve_plain
from subagents.formats.frontmatter import decode_bytes, split_frontmatter
from subagents.formats.yamltree import YMap, YNode, YScalar, YSeq, parse_yaml_tree
from test_yamltree_equivalence import _SCALARS, _yaml_texts


def _reference_resolve(value: str) -> Any:
    """The YAML 1.2 core schema, every test in order."""
    if value in bun_yaml._NULL:
        return None
    if value in bun_yaml._TRUE:
        return True
    if value in bun_yaml._FALSE:
        return False
    if bun_yaml._INT10.match(value):
        return int(value) if len(value) <= 300 else float(value)
    if bun_yaml._INT8.match(value):
        return int(value[2:], 8)
    if bun_yaml._INT16.match(value):
        return int(value[2:], 16)
    if bun_yaml._FLOAT.match(value):
        return float(value)
    if bun_yaml._INF.match(value):
        return -math.inf if value.startswith("-") else math.inf
    if bun_yaml._NAN.match(value):
        return math.nan
    return value


def _reference_value(node: YNode) -> Any:
    if isinstance(node, YScalar):
        return node.value if node.style else _reference_resolve(node.value)
    if isinstance(node, YMap):
        out: dict[Any, Any] = {}
        for key, item in node.pairs:
            k = _reference_value(key)
            if isinstance(k, (list, dict)):
                k = str(k)
            out.pop(k, None)
            out[k] = _reference_value(item)
        return out
    if isinstance(node, YSeq):
        return [_reference_value(item) for item in node.items]
    return None


def _comparable(value: Any) -> Any:
    """NaN made equal to itself, types kept apart (1 and True and 1.0 differ)."""
    if isinstance(value, float) and math.isnan(value):
        return ("nan",)
    if isinstance(value, dict):
        return [(_comparable(k), _comparable(v)) for k, v in value.items()]
    if isinstance(value, list):
        return [_comparable(v) for v in value]
    return (type(value).__name__, value)


_WORDS = [*_SCALARS, "nope", "nulls", "TRUE", "True", "tRue", "fals", "n", "t", "f", "N", "0",
          "-0", "+", "-", ".", "0o8", "0x", "0xG", "1e", ".5e-3", "+.inf", "-.nan", "NaN",
          "1" * 400, "~x", "nan", "inf", "Infinity"]


@settings(max_examples=examples(500), deadline=None)
@given(st.one_of(st.sampled_from(_WORDS), st.text(max_size=12),
                 st.text(alphabet="0123456789+-.eExXoObB_nNtTfFaAlsuri~", max_size=8)))
def test_plain_scalars_resolve_as_the_core_schema_says(value: str) -> None:
    assert _comparable(resolve_plain(value)) == _comparable(_reference_resolve(value))


def _same_value(text: str) -> None:
    tree = parse_yaml_tree(text)
    if tree.root is not None:
        assert _comparable(bun_value(tree.root)) == _comparable(_reference_value(tree.root))


@settings(max_examples=examples(500), deadline=None)
@given(_yaml_texts())
def test_the_tree_as_buns_value(text: str) -> None:
    _same_value(text)


def test_the_tree_as_buns_value_on_the_corpus(corpus: Path) -> None:
    for path in sorted(corpus.rglob("*.md")):
        text = decode_bytes(path.read_bytes()).text
        doc = split_frontmatter(text)[0] if text is not None else None
        if doc is not None and doc.root is not None:
            assert _comparable(bun_value(doc.root)) == _comparable(_reference_value(doc.root))
