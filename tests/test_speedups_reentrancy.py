"""The C extension's functions that take lists and call Python on the way (a flag's
``__bool__``, a weight's ``__float__``, a key's ``__hash__``, ``count``) hold those lists as
tuples: Python code that empties or shrinks a list while the C loop reads it gets an answer
or an exception, not a crash (before: a NULL or freed item read, or unset codes used as
indices).  The library itself never passes such objects; these guard the memory safety of
the C code against them.  Run in a subprocess each: a crash fails the test rather than the
run."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("subagents._speedups", reason="the C extension is not built")

_CASES = {
    "similar_unit": """
        docs = [{"a": 1}, {"b": 1}, {"c": 1}]
        class B:
            def __bool__(self):
                docs.clear(); return True
        S.similar_unit(docs, [B(), True, True], {"a": 1, "b": 1, "c": 1}, [0.0, 1.0], {})
    """,
    "similar_find": """
        docs = [{"a": 1}, {"b": 1}, {"c": 1}]
        class B:
            def __bool__(self):
                docs.clear(); return True
        S.similar_find(docs, [B(), True, True], {"a": 1, "b": 1, "c": 1}, [0.0, 1.0], {},
                       0.1, 5)
    """,
    "similar_candidates_list": """
        vecs = [{"a": None}, {"a": 1.0}, {"a": 1.0}]
        class F:
            def __float__(self):
                vecs.clear(); return 1.0
        vecs[0]["a"] = F()
        S.similar_candidates(vecs, {"a": 3}, 0.1, 5)
    """,
    "similar_candidates_dict": """
        vec = {"a": None, "b": 1.0, "c": 1.0}
        class F:
            def __float__(self):
                vec.pop("b"); vec.pop("c"); return 1.0
        vec["a"] = F()
        try:
            S.similar_candidates([vec, {"b": 1.0, "c": 1.0}, {"b": 1.0}],
                                 {"a": 1, "b": 3, "c": 2}, 0.1, 3)
        except RuntimeError:
            pass
    """,
    "similar_docs": """
        texts = ["a", "b", "c"]
        def count(t):
            texts.clear(); return ({}, True)
        S.similar_docs(texts, {}, count)
    """,
    "simple_pairs": """
        from subagents.formats.yamltree import YScalar
        armed = [False]
        class K(str):
            def __hash__(self):
                if armed[0]:
                    rows.clear()
                return str.__hash__(self)
            def __eq__(self, other):
                return str.__eq__(self, other)
        rows = [(K("k"), 1, 4, "v"), ("j", 2, 4, "w"), ("m", 3, 4, "x")]
        keys = {(k, line): "node" for k, line, _, _ in rows}
        armed[0] = True
        S.simple_pairs(rows, keys, {}, frozenset(), "tag", YScalar)
    """,
}


@pytest.mark.parametrize("case", sorted(_CASES))
def test_lists_emptied_by_python_code(case: str) -> None:
    code = "import subagents._speedups as S\n" + textwrap.dedent(_CASES[case]) + "\nprint('ok')\n"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().endswith("ok")
