"""The YAML tree builder's shortcuts give the tree the plain construction gives.

The builder composes with a loader that answers the composer's per-node questions directly
(no path resolvers; a scalar no implicit type can start is a string) and converts the nodes
with scalars built in place.  The reference below is the plain construction: PyYAML's own safe
loader and one recursive call per node.  Every node (value, position, style, resolved tag) and
every finding must be the same, on real frontmatter and on generated YAML full of values that
look typed (``yes``, ``~``, ``0x1F``, ``.inf``, dates)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from hypothesis_helpers import examples
from subagents.formats import yamltree
from subagents.formats.frontmatter import decode_bytes, split_frontmatter
from subagents.formats.yamltree import YamlIssue, YMap, YNode, YScalar, YSeq, parse_yaml_tree

_STOCK: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _reference_node(node: yaml.Node, offset: int, issues: list[YamlIssue], depth: int = 0
                    ) -> YNode:
    start = node.start_mark
    line, column = start.line + 1 + offset, start.column + 1
    if depth > yamltree.MAX_DEPTH:
        raise yamltree._Refused(yamltree._too_deep(line, column))
    if isinstance(node, yaml.ScalarNode):
        end = node.end_mark
        return YScalar(node.value, line, column, node.style or None, None,
                       end.line + 1 + offset, end.column + 1, node.tag)
    if isinstance(node, yaml.SequenceNode):
        return YSeq([_reference_node(i, offset, issues, depth + 1) for i in node.value],
                    line, column, bool(node.flow_style))
    pairs: list[tuple[YScalar, YNode]] = []
    seen: dict[str, int] = {}
    for key_node, value_node in node.value:
        key = _reference_node(key_node, offset, issues, depth + 1)
        if not isinstance(key, YScalar):
            issues.append(YamlIssue("SA005", "a mapping key must be a plain value, not a list "
                                    "or mapping", key.line, key.column))
            continue
        if key.value in seen:
            issues.append(yamltree._duplicate(key, seen[key.value]))
        else:
            seen[key.value] = key.line
        pairs.append((key, _reference_node(value_node, offset, issues, depth + 1)))
    return YMap(pairs, line, column, bool(getattr(node, "flow_style", False)))


def _read(text: str, offset: int, loader_class: Any, build: Any) -> object:
    """(root, issues, error) from ``loader_class``'s node tree built by ``build``, or the
    exception's type when the YAML fails."""
    issues: list[YamlIssue] = []
    try:
        loader = loader_class(text)
        try:
            node = loader.get_single_node()
        finally:
            loader.dispose()
    except yaml.YAMLError as exc:
        return type(exc)
    try:
        root = build(node, offset, issues) if node is not None else None
    except yamltree._Refused as refused:
        return None, issues, refused.issue
    return root, issues, None


def _reference(text: str, offset: int = 3) -> object:
    """The plain way: the stock loader's nodes, converted one by one."""
    return _read(text, offset, _STOCK, _reference_node)


def _ours(text: str, offset: int = 3) -> object:
    return _read(text, offset, yamltree._TreeLoader, yamltree._from_node)


def _same(text: str) -> None:
    assert _ours(text) == _reference(text), repr(text)
    if "&" not in text and "*" not in text and "!" not in text:  # the fast path's texts
        tree = parse_yaml_tree(text, line_offset=3)
        ref = _reference(text)
        if isinstance(ref, tuple) and tree.error is None:
            assert (tree.root, tree.issues) == _as_file_counts(text, ref[:2]), repr(text)


def _as_file_counts(text: str, ref: tuple[Any, Any], offset: int = 3) -> tuple[Any, Any]:
    """The reference's positions as the file counts lines: libyaml (YAML 1.1) ends a line at
    NEL, U+2028 and U+2029 too; the file, and parse_yaml_tree, only at a line feed."""
    if not any(c in text for c in "\x85\u2028\u2029"):
        return ref

    def pos(line: int, column: int) -> tuple[int, int]:
        start, breaks = 0, 0  # where libyaml's line `line` starts, found by walking
        while breaks < line - 1 - offset and start < len(text):
            breaks += text[start] in "\n\x85\u2028\u2029"
            start += 1
        at = start + column - 1
        return (text.count("\n", 0, at) + 1 + offset,
                at - (text.rfind("\n", 0, at) + 1) + 1)

    def moved(node: YNode) -> YNode:
        line, column = pos(node.line, node.column)
        if isinstance(node, YScalar):
            end_line, end_column = pos(node.end_line, node.end_column)
            return YScalar(node.value, line, column, node.style, node.tag, end_line, end_column,
                           node.resolved_tag)
        if isinstance(node, YSeq):
            return YSeq([moved(i) for i in node.items], line, column, node.flow)
        assert isinstance(node, YMap)
        pairs = [(moved(k), moved(v)) for k, v in node.pairs]
        return YMap(pairs, line, column, node.flow)  # type: ignore[arg-type]

    root, issues = ref
    return (None if root is None else moved(root),
            [YamlIssue(i.code, i.message, *pos(i.line, i.column), i.hint, i.key, i.subject)
             for i in issues])


_SCALARS = [
    "x", "yes", "No", "on", "OFF", "y", "n", "~", "null", "Null", "", "true", "False", "1",
    "-2", "+3", "0x1F", "0o17", "017", "1_000", "1.5", "-.5", "1e3", "6.8523015e+5", ".inf",
    "-.Inf", ".nan", "2024-01-01", "2001-12-14t21:59:43.10-05:00", "12:30:45", "=", "<<",
    "'quoted'", '"double"', "'yes'", '"1"', "a: b", "Read, Grep", "[a, yes, 1]", "{k: 1, j: ~}",
    "[]", "{}", "|\n  block\n  text", ">-\n  folded", "ü日本", "-x", ".hidden", "#not",
    "\"esc\\n\"", "1.0.0", "v1", "0", "-", "?x", "%p", "@a", "`b`",
]
_KEYS = ["name", "description", "tools", "model", "yes", "1", "~", "'q'", "a b", "x-y", "null",
         "name"]


@st.composite
def _yaml_texts(draw: st.DrawFn) -> str:
    lines: list[str] = []
    for _ in range(draw(st.integers(0, 8))):
        key = draw(st.sampled_from(_KEYS))
        shape = draw(st.sampled_from(["plain", "plain", "list", "map", "flow"]))
        if shape == "plain":
            lines.append(f"{key}: {draw(st.sampled_from(_SCALARS))}")
        elif shape == "list":
            lines.append(f"{key}:")
            lines += [f"  - {draw(st.sampled_from(_SCALARS))}"
                      for _ in range(draw(st.integers(0, 3)))]
        elif shape == "map":
            lines.append(f"{key}:")
            lines += [f"  {draw(st.sampled_from(_KEYS))}: {draw(st.sampled_from(_SCALARS))}"
                      for _ in range(draw(st.integers(1, 3)))]
        else:
            items = ", ".join(draw(st.lists(st.sampled_from(_SCALARS[:40]), max_size=4)))
            lines.append(f"{key}: [{items}]")
    return "\n".join(lines) + ("\n" if draw(st.booleans()) else "")


@settings(max_examples=examples(1000), deadline=None)
@given(_yaml_texts())
def test_the_tree_is_the_plain_construction(text: str) -> None:
    _same(text)


@settings(max_examples=examples(300), deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=60))
def test_the_tree_on_any_text(text: str) -> None:
    _same(text)
    _same("k: " + text)


def test_yaml_1_1_line_breaks_are_counted_as_the_file_counts_lines() -> None:
    for text in ["\x850", "k: a\u2028b\nj: 1\n", "k: 'a\u2029b'\nj: [1, 2]\n", "\u2028\nk: 1\n",
                 "k:\n  - a\x85\n  - b\n",
                 # a mark past the last break (the empty value of a last `?` key)
                 "\x85?", "k: \x85?", "a: 1\nb: \u2028?", "\x85\n?", "? \u2029"]:
        _same(text)
    tree = parse_yaml_tree("k: 'a\u2028b'\nj: 1\n", line_offset=1)
    assert isinstance(tree.root, YMap) and tree.root.pairs[1][0].line == 3


def test_every_scalar_on_its_own() -> None:
    for value in _SCALARS:
        _same(f"key: {value}\n")
        _same(f"- {value}\n")
        _same(f"{value}\n")


def test_the_tree_of_every_corpus_frontmatter(corpus: Path) -> None:
    seen = 0
    for path in sorted(corpus.rglob("*.md")):
        text = decode_bytes(path.read_bytes()).text
        doc = split_frontmatter(text)[0] if text is not None else None
        if doc is not None and doc.yaml_text.strip():
            _same(doc.yaml_text)
            seen += 1
    assert seen > 100
