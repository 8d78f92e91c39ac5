"""The task list under random operations: its invariants always hold (hypothesis)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from hypothesis_helpers import examples
from subagents.dispatch.teams import TeamFiles, TeamLayout
from subagents.dispatch.teams.tasks import TaskBoard

ACTORS = ["team-lead", "alpha", "beta"]
IDS = st.sampled_from(["1", "2", "3", "4", "5", "9"])
OPS = st.one_of(
    st.tuples(st.just("create"), st.text(min_size=1, max_size=5)),
    st.tuples(st.just("update"), st.sampled_from(ACTORS), IDS, st.fixed_dictionaries({}, optional={
        "owner": st.sampled_from(["alpha", "beta", ""]),
        "status": st.sampled_from(["pending", "in_progress", "completed", "deleted", "bogus"]),
        "addBlocks": st.lists(IDS, max_size=2),
        "addBlockedBy": st.lists(IDS, max_size=2),
        "metadata": st.dictionaries(st.sampled_from("ab"), st.one_of(st.none(), st.integers()),
                                    max_size=2),
    })),
)


def _check(tasks: dict[str, dict[str, Any]]) -> None:
    for tid, t in tasks.items():
        assert t["status"] in ("pending", "in_progress", "completed")
        for b in t["blocks"]:  # dependencies are two-way and point at tasks that exist
            assert tid in tasks[b]["blockedBy"]
        for b in t["blockedBy"]:
            assert tid in tasks[b]["blocks"]
    # no cycle: a topological order exists
    left = {k: set(v["blockedBy"]) for k, v in tasks.items()}
    while left:
        free = [k for k, deps in left.items() if not deps & set(left)]
        assert free, f"dependency cycle among {sorted(left)}"
        for k in free:
            del left[k]


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(OPS, max_size=25))
def test_task_list_invariants_hold_under_any_sequence(ops: list[tuple[Any, ...]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        board = TaskBoard(TeamFiles(TeamLayout.project(Path(tmp)), "prop"))
        seen_ids: list[str] = []
        for op in ops:
            if op[0] == "create":
                tid = board.create(op[1], "d")["id"]
                assert tid not in seen_ids  # ids are never reused
                seen_ids.append(tid)
                continue
            _, actor, tid, changes = op
            before = board.get(tid)
            out = board.update(tid, changes, actor=actor, is_lead=actor == "team-lead")
            after = board.get(tid)
            if before is None:
                assert out.text == "Task not found"
            elif out.is_error:
                assert after == before  # a refused update changes nothing
            if before is not None and before.get("owner") not in (None, actor) \
                    and actor != "team-lead" and after is not None:
                assert after.get("owner") == before.get("owner")  # no stolen claim
            tasks, problems = board.files.read_tasks()
            assert not problems
            _check(tasks)


def test_a_member_cannot_release_a_task_another_member_owns(tmp_path: Path) -> None:
    """Found by the property test above: ``owner: ""`` from a non-owner was a stolen claim."""
    board = TaskBoard(TeamFiles(TeamLayout.project(tmp_path), "t"))
    tid = board.create("work", "d")["id"]
    assert not board.update(tid, {"owner": "alpha"}, actor="team-lead", is_lead=True).is_error
    out = board.update(tid, {"owner": ""}, actor="beta", is_lead=False)
    assert out.is_error and "already owned by alpha" in out.text
    assert board.get(tid)["owner"] == "alpha"  # type: ignore[index]
    assert not board.update(tid, {"owner": ""}, actor="alpha", is_lead=False).is_error
    assert board.get(tid).get("owner") is None  # type: ignore[union-attr]
