"""The result cache's file, format 4: each entry is a list, encoded when its file's outcome is
stored (``_entry_text``), and that text is exactly what ``json.dumps`` writes for the list
(``_entry_row``), whatever the strings hold (non-ASCII, lone surrogates, quotes, control
characters); a field of another type is refused, never written as something JSON cannot
read."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from subagents.definition import AgentDefinition, Dialect, Scope
from subagents.diagnostics import Diagnostic, Severity
from subagents.lint import cache
from subagents.lint.cache import AgentFacts, ResultCache

_text = st.text(st.characters(codec=None, blacklist_categories=()), max_size=12)
_big = st.integers(min_value=0, max_value=2**64)
_diagnostic = st.builds(
    Diagnostic, path=_text, line=st.none() | st.integers(0, 10**6),
    column=st.none() | st.integers(0, 10**6), rule=_text, severity=st.sampled_from(Severity),
    message=_text, hint=st.none() | _text, key=st.none() | _text, subject=st.none() | _text)
_definition = st.builds(
    AgentDefinition, name=_text, description=_text, dialect=st.sampled_from(Dialect),
    source=st.none() | st.sampled_from(Scope), path=st.none() | _text.map(Path))
_names = st.lists(_text, max_size=3).map(tuple)


class _Stat:
    """What ``_entry_text`` reads of an ``os.stat_result``."""

    def __init__(self, values: list[int]) -> None:
        self.st_mtime_ns, self.st_size, self.st_ino, self.st_mode, self.st_ctime_ns = values


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


@given(apath=_text, key=_text, stated=st.lists(_big, min_size=5, max_size=5), digest=_text,
       hashed_at=_big, diagnostics=st.lists(_diagnostic, max_size=3),
       agents=st.integers(0, 50),
       facts=st.lists(st.tuples(_definition, st.integers(0, 10**6), st.integers(0, 10**6)),
                      max_size=3),
       silencers=st.none() | st.tuples(_names, _names), ids=st.lists(_text, max_size=3))
def test_an_entry_is_written_as_json_writes_its_list(
        apath: str, key: str, stated: list[int], digest: str, hashed_at: int,
        diagnostics: list[Diagnostic], agents: int,
        facts: list[tuple[AgentDefinition, int, int]],
        silencers: tuple[tuple[str, ...], tuple[str, ...]] | None, ids: list[str]) -> None:
    texts = [AgentFacts.text_of(d, line, column) for d, line, column in facts]
    rows = [AgentFacts.row_of(d, line, column) for d, line, column in facts]
    assert texts == [_dumps(r) for r in rows]
    text = cache._entry_text(apath, key, _Stat(stated), digest, hashed_at,  # type: ignore[arg-type]
                             diagnostics, agents, texts, silencers, ids)
    row = cache._entry_row(key, stated, digest, hashed_at, diagnostics, agents, rows,
                           silencers, ids)
    assert "{" + text + "}" == _dumps({apath: row})
    assert text.isascii()  # (a lone surrogate escaped: the file is always valid UTF-8)
    # and read back, the entry is the outcome stored
    entry = cache._entry_in(json.loads("{" + text + "}")[apath])
    assert entry.diagnostics == diagnostics
    assert [(d.key, d.subject) for d in entry.diagnostics] == [
        (d.key, d.subject) for d in diagnostics]
    assert entry.agents == agents
    assert [f.row() for f in entry.facts] == rows
    assert entry.silencers == silencers and entry.harness_ids == ids


@pytest.mark.parametrize("bad", [None, "7", object()])
def test_a_field_of_another_type_is_refused(bad: object) -> None:
    st_ = _Stat([1, 2, 3, 4, 5])
    with pytest.raises((TypeError, ValueError)):
        cache._entry_text("/a", "k", st_, "h", bad, [], 1, [], None, [])  # type: ignore[arg-type]
    with pytest.raises((TypeError, ValueError)):
        AgentFacts.text_of(AgentDefinition(name="n"), bad, 1)  # type: ignore[arg-type]


def test_an_entry_that_cannot_be_written_is_not_stored(tmp_path: Path) -> None:
    """The run goes on; the file is simply validated again next time."""
    f = tmp_path / "a.md"
    f.write_text("---\nname: a\n---\n", encoding="utf-8")
    results = ResultCache([tmp_path], folder=tmp_path / "c")
    assert results.lookup(str(f), "key") is None
    results.store_outcome(str(f), "key", [], object(), [], None, [], "d")  # type: ignore[arg-type]
    results.save()
    assert not results.path.exists() or json.loads(results.path.read_text())["entries"] == {}


def test_the_file_is_format_4_with_list_entries(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache.time, "time_ns", lambda: 10**19)  # every file long unchanged
    files = []
    for i in range(2):
        f = tmp_path / f"a{i}.md"
        f.write_text(f"---\nname: a{i}\n---\n", encoding="utf-8")
        files.append(str(f))
    results = ResultCache([tmp_path], folder=tmp_path / "c")
    for f in files:
        assert results.lookup(f, "key") is None
        results.store_outcome(f, "key", [], 1, ['["a","d","claude",null,null,2,1]'],
                              ((), ()), [], cache.file_digest(Path(f).read_bytes()))
    results.save()
    data = json.loads(results.path.read_text(encoding="ascii"))
    assert data["format"] == cache._FORMAT == 4
    for f in files:
        key, stated, digest, hashed_at, diags, n, facts, silencers, ids = data["entries"][f]
        st_ = os.lstat(f)
        assert (key, diags, n, silencers, ids) == ("key", [], 1, [[], []], [])
        assert digest == cache.file_digest(Path(f).read_bytes())
        assert stated == [st_.st_mtime_ns, st_.st_size, st_.st_ino, st_.st_mode,
                          st_.st_ctime_ns]
        assert facts == [["a", "d", "claude", None, None, 2, 1]]
        assert hashed_at == 10**19
    # a run that answers both from the file and stores nothing keeps it as it is
    again = ResultCache([tmp_path], folder=tmp_path / "c")
    before = again.path.read_bytes()
    for f in files:
        assert again.lookup(f, "key") is not None
    again.save()
    assert again.path.read_bytes() == before


def test_a_format_3_file_is_ignored(tmp_path: Path) -> None:
    f = tmp_path / "a.md"
    f.write_text("---\nname: a\n---\n", encoding="utf-8")
    results = ResultCache([tmp_path], folder=tmp_path / "c")
    results.path.parent.mkdir()
    st_ = os.lstat(f)
    old = {"k": "key", "st": [st_.st_mtime_ns, st_.st_size, st_.st_ino, st_.st_mode,
                              st_.st_ctime_ns],
           "h": cache.file_digest(f.read_bytes()), "t": 10**19, "d": [], "n": 1, "f": [],
           "s": None, "i": []}
    results.path.write_text(json.dumps({"format": 3, "version": cache.package_fingerprint(),
                                        "entries": {str(f): old}, "similar": {}}))
    assert ResultCache([tmp_path], folder=tmp_path / "c").lookup(str(f), "key") is None


def test_kept_and_new_entries_make_one_file(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """A run that answers most files from the cache and validates one edited file writes the
    kept entries (as read) and the new one (as encoded) into one valid file, which the next
    run answers every file from."""
    from test_validate_cache import _no_reading, _project, _run

    monkeypatch.setenv("SUBAGENTS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(cache.time, "time_ns", lambda: 10**19)  # every file long unchanged
    agents = _project(tmp_path)
    _run(str(agents))
    (agents / "writer.md").write_text((agents / "writer.md").read_text() + "\nmore\n")
    edited = _run(str(agents))
    (path,) = (tmp_path / "cache").glob("*.json")
    entries = json.loads(path.read_text(encoding="ascii"))["entries"]
    assert sorted(entries) == sorted(os.path.abspath(f) for f in agents.glob("*.md"))
    assert edited == _run("--no-cache", str(agents))
    with monkeypatch.context() as m:
        _no_reading(m)
        assert _run(str(agents)) == edited
