"""The live delegation tree: state from events, plain-text and rich rendering."""

from __future__ import annotations

import io
from pathlib import Path

from dispatch_helpers import PerAgentModel, agent
from subagents.dispatch.display import DelegationTree, format_result_tree, live_tree
from subagents.dispatch.main_thread import run_main_thread
from subagents.testing import text, tool_call, tool_calls


def _run(tmp_path: Path, sink: object) -> object:
    (tmp_path / "a.txt").write_text("x")
    model = PerAgentModel({
        "main": [tool_calls([("Task", {"description": "review a", "prompt": "p",
                                       "subagent_type": "reviewer"}),
                             ("Task", {"description": "bad", "prompt": "p",
                                       "subagent_type": "nobody"})]),
                 # the reviewer runs in the background: the main thread ends its turn, then
                 # reads the notification in another
                 text("waiting for the reviewer"), text("done")],
        "reviewer": [tool_call("Read", {"file_path": "a.txt"}), text("fine")],
    })
    return run_main_thread("go", agents=[agent("reviewer", tools=("Read",))], model=model,
                           cwd=tmp_path, on_event=sink)


def test_tree_state_from_a_real_run(tmp_path: Path) -> None:
    tree = DelegationTree()
    result = _run(tmp_path, tree)
    lines = tree.lines()
    assert lines[0].startswith("✓ main")
    assert any(line.startswith("  ✓ reviewer — review a [2 turns, 30 tokens]") for line in lines)
    assert "      Read a.txt" in lines
    text_tree = format_result_tree(result)  # type: ignore[arg-type]
    assert text_tree.splitlines()[0].startswith("✓ main (end_turn, 3 turns")
    assert "  ✓ reviewer (end_turn, 2 turns, 30 tokens, tools: Read)" in text_tree
    assert "not found" in text_tree  # the failed delegation is in the tree too


def test_old_tool_calls_are_folded() -> None:
    tree = DelegationTree()
    for i in range(8):
        tree("tool", {"node": "main", "name": "Read", "input": {"file_path": f"f{i}"}})
    lines = tree.lines()
    assert "    … 3 earlier tool call(s)" in lines and lines[-1] == "    Read f7"


def test_live_tree_is_off_without_a_terminal_and_draws_when_forced(tmp_path: Path) -> None:
    with live_tree(io.StringIO()) as sink:
        assert sink is None
    out = io.StringIO()
    with live_tree(out, force=True) as sink:
        assert sink is not None
        _run(tmp_path, sink)
    drawn = out.getvalue()
    assert "reviewer" in drawn and "Read a.txt" in drawn
