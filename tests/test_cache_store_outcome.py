"""The result cache's short way of storing a file (``store_outcome``, each agent's facts as
``AgentFacts.text_of``) writes exactly what ``store`` of a ``FileEntry`` writes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from subagents.definition import AgentDefinition, Dialect, Scope
from subagents.diagnostics import Diagnostic, Severity
from subagents.lint import cache
from subagents.lint.cache import AgentFacts, FileEntry, ResultCache


def _definitions() -> list[AgentDefinition]:
    out = [AgentDefinition(name="a"), AgentDefinition(name="", description="d", path=None)]
    for dialect in Dialect:
        for source in (None, *Scope):
            out.append(AgentDefinition(name="n", description="é ü", dialect=dialect,
                                       source=source, path=Path(f"/x/{dialect}.md")))
    return out


def test_a_row_is_the_facts_row() -> None:
    for i, defn in enumerate(_definitions()):
        row = AgentFacts.row_of(defn, i + 1, 2 * i + 1)
        assert row == AgentFacts.of(defn, i + 1, 2 * i + 1).row()
        assert [type(v) for v in row] == [type(v) for v in AgentFacts.of(defn, i + 1,
                                                                          2 * i + 1).row()]


def test_a_text_is_the_json_of_the_row() -> None:
    for i, defn in enumerate(_definitions()):
        facts = AgentFacts.of(defn, i + 1, 2 * i + 1)
        text = AgentFacts.text_of(defn, i + 1, 2 * i + 1)
        assert text == facts.text() == json.dumps(facts.row(), separators=(",", ":"))


def test_store_outcome_writes_what_store_writes(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache.time, "time_ns", lambda: 10**19)
    files = []
    for i in range(3):
        f = tmp_path / f"a{i}.md"
        f.write_text(f"---\nname: a{i}\n---\n", encoding="utf-8")
        files.append(str(f))
    diags = [Diagnostic(path="a.md", line=1, column=2, rule="SA104", severity=Severity.ERROR,
                        message="m", hint=None)]
    defs = _definitions()
    outcomes = [([], 0, [], None, []), (diags, 2, defs[:2], ((), ("SA1",)), ["x"]),
                (diags * 2, len(defs), defs, (("SA2",), ()), [])]
    written = []
    for short in (False, True):
        results = ResultCache([tmp_path], folder=tmp_path / ("s" if short else "l"))
        for f, (d, n, agents, silenced, ids) in zip(files, outcomes, strict=True):
            assert results.lookup(f, "key") is None
            if short:
                results.store_outcome(f, "key", d, n,
                                      [AgentFacts.text_of(a, 3, 4) for a in agents], silenced,
                                      ids, "digest")
            else:
                results.store(f, "key", FileEntry(d, n, [AgentFacts.of(a, 3, 4) for a in agents],
                                                  silenced, ids), "digest")
        results.save()
        written.append(results.path.read_text(encoding="utf-8"))
    assert written[0] == written[1]
    entries = json.loads(written[0])["entries"]
    assert [entries[f][7] for f in files] == [None, [[], ["SA1"]], [["SA2"], []]]
