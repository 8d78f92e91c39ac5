"""subagents reads agents exactly as the real Claude Code does: compared with its recordings.

The recordings (``subagents/conformance/data``) were made by running the real Claude Code CLI
on every case of ``subagents.conformance.cases`` and on every file of ``../shared/corpus``.
These tests need no Claude Code: they compare the registry (what ``list``, ``run``, ``route``
and the Task tool see) with the recorded results.  Re-recording is
``test_conformance_data.py``'s job.
"""

from __future__ import annotations

import hashlib
import shutil
from collections import Counter
from pathlib import Path

import pytest

from corpus_helpers import CORPUS, needs_corpus
from subagents.claude_code.reader import listing_tools
from subagents.conformance import CASES, load_corpus_expectations, load_expectations
from subagents.conformance.compare import DELIBERATE, agreement_table, compare_recording
from subagents.registry.core import AgentRegistry


def test_every_recorded_case_agrees_or_is_a_documented_deliberate_difference(
    tmp_path: Path,
) -> None:
    recording = load_expectations()
    results = compare_recording(recording, CASES, tmp_path)
    assert len(results) == len(recording.cases) == len(CASES)
    table = agreement_table(results)
    undocumented = [r for r in results if not r.agrees and not r.deliberate]
    assert undocumented == [], table
    # a deliberate difference that no longer differs must leave the list (and the docs)
    stale = [r.id for r in results if r.agrees and r.id in DELIBERATE]
    assert stale == [], f"no longer different: {stale}"
    docs = (Path(__file__).parent.parent / "docs" / "conformance.md").read_text()
    for case_id in DELIBERATE:
        assert f"`{case_id}`" in docs, f"{case_id} is not documented in docs/conformance.md"


def test_the_comparison_notices_a_difference(tmp_path: Path) -> None:
    """The comparison is not vacuous: a recording that disagrees with us is reported."""
    import dataclasses

    recording = load_expectations()
    case = next(c for c in CASES if c.id == "baseline")
    expected = recording.case("baseline")
    wrong_agent = dataclasses.replace(expected.agents[0], description="something else")
    wrong = dataclasses.replace(expected, agents=(wrong_agent,))
    from subagents.conformance.compare import compare_case

    result = compare_case(case, wrong, recording, tmp_path)
    assert not result.agrees and "description" in result.differences[0]


def _sha1(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


@pytest.mark.slow
@needs_corpus
def test_list_on_the_corpus_matches_claude_code_file_for_file(tmp_path: Path) -> None:
    """Each collection as one project's .claude/agents: listed exactly as Claude Code lists it."""
    recording = load_corpus_expectations()
    by_collection: dict[str, list[tuple[str, object]]] = {}
    for entry in recording.files:
        collection, _, rel = entry.path.partition("/")
        by_collection.setdefault(collection, []).append((rel, entry))
    loaded = 0
    for collection, entries in by_collection.items():
        project = tmp_path / collection
        agents = project / ".claude" / "agents"
        (project / ".git").mkdir(parents=True)
        for rel, _entry in entries:
            target = agents / rel.replace("/", "__")  # one folder, as the recorder batched them
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(CORPUS / collection / rel, target)
        registry = AgentRegistry(project, home=tmp_path / "home").load_all()
        listed = {e.path.name: e for e in registry.list() if e.path is not None}
        shadowed = {e.path.name for e in registry.shadowed() if e.path is not None}
        names = Counter(e.name for _rel, e in entries if e.loaded)  # type: ignore[attr-defined]
        for rel, entry in entries:
            key = rel.replace("/", "__")
            if not entry.loaded:  # type: ignore[attr-defined]
                assert key not in listed and key not in shadowed, f"{collection}/{rel}"
                continue
            loaded += 1
            if names[entry.name] > 1:  # type: ignore[attr-defined]
                continue  # one name in two files: Claude Code's batches kept them apart
            got = listed.get(key)
            assert got is not None, f"{collection}/{rel}: Claude Code loads it, we do not"
            assert got.name == entry.name  # type: ignore[attr-defined]
            assert _sha1(got.description) == entry.description_sha1, rel  # type: ignore[attr-defined]
            assert got.model == entry.model, rel  # type: ignore[attr-defined]
            tools = listing_tools(got.header.tools, got.header.disallowed_tools)
            assert tools == entry.tools, rel  # type: ignore[attr-defined]
    assert loaded == sum(e.loaded for e in recording.files) == 582
