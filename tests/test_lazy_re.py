"""``lazy_compile`` behaves as ``re.compile`` once used, compiles nothing before, and every
module-level pattern of the package that uses it compiles."""

from __future__ import annotations

import ast
import copy
import importlib
import pickle
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from subagents import _lazy_re
from subagents._lazy_re import lazy_compile

SRC = Path(_lazy_re.__file__).parent


def test_the_copied_names_are_all_of_the_patterns() -> None:
    public = tuple(sorted(n for n in dir(re.Pattern) if not n.startswith("_")))
    assert public == _lazy_re.PATTERN_ATTRIBUTES


def test_nothing_is_compiled_before_the_first_use(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[Any] = []
    real = re.compile
    monkeypatch.setattr(re, "compile", lambda *a: calls.append(a) or real(*a))
    lazy = lazy_compile(r"a(b+)", re.I)
    copy.copy(lazy)
    copy.deepcopy(lazy)
    assert repr(lazy) == "lazy_compile('a(b+)', re.IGNORECASE)"
    assert calls == []
    assert lazy.search("xABB") is not None
    assert calls == [(r"a(b+)", re.I)]
    assert lazy.sub("-", "abab") == "--"
    assert calls == [(r"a(b+)", re.I)]  # once only
    with pytest.raises(AttributeError):
        lazy.no_such_attribute  # type: ignore[attr-defined]  # noqa: B018


def test_a_used_pattern_pickles_and_copies() -> None:
    lazy = lazy_compile(r"\d+")
    assert lazy.findall("a1b22") == ["1", "22"]
    for other in (copy.copy(lazy), copy.deepcopy(lazy), pickle.loads(pickle.dumps(lazy))):
        assert other.findall("a1b22") == ["1", "22"]


SAMPLES = [(r"(?P<word>\w+)\s*(=)?", 0), (r"^-{3}$", re.M), (r"[^\x00-\x7f]+", 0),
           (r"colou?r", re.I), (r"a.b", re.S)]


@given(st.sampled_from(SAMPLES), st.text(alphabet="ab=- \nCOLURcolur\u00e9\x00", max_size=40))
def test_same_answers_as_the_compiled_pattern(source: tuple[str, int], text: str) -> None:
    compiled = re.compile(*source)
    lazy = lazy_compile(*source)
    for _ in range(2):  # the first use compiles, the second goes straight to the pattern

        def spans(ms: Any) -> list[Any]:
            return [(m.span(), m.groups()) for m in ms]

        assert spans([lazy.search(text)] if lazy.search(text) else []) == spans(
            [compiled.search(text)] if compiled.search(text) else [])
        assert spans(lazy.finditer(text)) == spans(compiled.finditer(text))
        assert lazy.findall(text) == compiled.findall(text)
        assert lazy.split(text) == compiled.split(text)
        assert lazy.subn("#", text) == compiled.subn("#", text)
        assert bool(lazy.match(text)) == bool(compiled.match(text))
        assert bool(lazy.fullmatch(text)) == bool(compiled.fullmatch(text))
        assert (lazy.pattern, lazy.flags, lazy.groups, lazy.groupindex) == (
            compiled.pattern, compiled.flags, compiled.groups, compiled.groupindex)


def test_bytes_patterns() -> None:
    lazy = lazy_compile(rb"\x00+")
    assert lazy.split(b"a\x00\x00b") == [b"a", b"b"]


def _modules_using_it() -> list[str]:
    found = []
    for path in sorted(SRC.rglob("*.py")):
        if "lazy_compile(" in path.read_text(encoding="utf-8") and path.name != "_lazy_re.py":
            rel = path.relative_to(SRC.parent).with_suffix("")
            found.append(".".join(rel.parts).removesuffix(".__init__"))
    return found


def _lazy_patterns(value: Any, depth: int = 0) -> list[Any]:
    """The lazy patterns in a module-level value (in tuples and dataclasses, as the secrets
    table holds them)."""
    if isinstance(value, _lazy_re._LazyPattern):
        return [value]
    if depth > 3:
        return []
    if isinstance(value, tuple | list):
        return [p for v in value for p in _lazy_patterns(v, depth + 1)]
    if hasattr(value, "__dataclass_fields__") and not isinstance(value, type):
        return [p for name in value.__dataclass_fields__
                for p in _lazy_patterns(getattr(value, name), depth + 1)]
    return []


@pytest.mark.parametrize("module", _modules_using_it())
def test_every_module_level_pattern_compiles(module: str) -> None:
    """Each ``lazy_compile`` written at module level compiles (a typo in a pattern would
    otherwise show only when the pattern is first used)."""
    mod = importlib.import_module(module)
    source = Path(mod.__file__ or "").read_text(encoding="utf-8")
    written = sum(
        1 for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "lazy_compile")
    found = {id(p): p for value in vars(mod).values() for p in _lazy_patterns(value)}
    assert len(found) >= written, (module, written, len(found))
    for pattern in found.values():
        assert re.compile(*pattern._source).pattern == pattern.pattern
