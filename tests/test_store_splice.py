"""Writes splice only the changed entry: every other byte of a hand-formatted file is kept."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from subagents.store import AgentStore

HAND_WRITTEN = """{
    "zeta":   {"description": "z",   "prompt": "keep my spacing"},

    "alpha": {
        "description": "a",
        "prompt": "p",
        "x-note": [1,2,3]
    },
    "omega": {"description": "o", "prompt": "o\\u00e9"}
}
"""


@pytest.fixture
def store(tmp_path: Path) -> AgentStore:
    return AgentStore(None, tmp_path / "group")


def _put(store: AgentStore, text: str) -> Path:
    path = store.path("group")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_update_keeps_other_entries_byte_for_byte(store: AgentStore) -> None:
    path = _put(store, HAND_WRITTEN)
    store.define("alpha", "new", "p2", model="haiku")
    text = path.read_text(encoding="utf-8")
    assert '"zeta":   {"description": "z",   "prompt": "keep my spacing"},\n\n' in text
    assert '"omega": {"description": "o", "prompt": "o\\u00e9"}\n}\n' in text
    assert json.loads(text)["alpha"] == {
        "description": "new",
        "prompt": "p2",
        "x-note": [1, 2, 3],
        "model": "haiku",
    }
    # The new entry uses the file's own 4-space indentation.
    assert '\n    "alpha": {\n        "description": "new",' in text


def test_add_appends_with_file_indentation(store: AgentStore) -> None:
    path = _put(store, HAND_WRITTEN)
    store.define("new-one", "d", "p")
    text = path.read_text(encoding="utf-8")
    assert text.startswith(HAND_WRITTEN.rstrip("\n}").rstrip())
    assert list(json.loads(text)) == ["zeta", "alpha", "omega", "new-one"]
    assert '\n    "new-one": {\n        "description": "d",' in text


@pytest.mark.parametrize(
    ("name", "left"),
    [("zeta", ["alpha", "omega"]), ("alpha", ["zeta", "omega"]), ("omega", ["zeta", "alpha"])],
)
def test_remove_first_middle_last(store: AgentStore, name: str, left: list[str]) -> None:
    path = _put(store, HAND_WRITTEN)
    store.remove(name)
    text = path.read_text(encoding="utf-8")
    assert list(json.loads(text)) == left
    if name != "zeta":
        assert '"zeta":   {"description": "z",   "prompt": "keep my spacing"}' in text


@pytest.mark.parametrize(
    "start",
    [
        "{}",
        "{}\n",
        "  {  }  \n",
        "",
        '{"a":{"description":"d","prompt":"p"}}',
        '{\n\t"a": {\n\t\t"description": "d",\n\t\t"prompt": "p"\n\t}\n}',
    ],
)
def test_add_and_remove_on_odd_shapes(store: AgentStore, start: str) -> None:
    path = _put(store, start)
    before = json.loads(start) if start.strip() else {}
    store.define("b", "d", "p", tools=["Read"])
    after = json.loads(path.read_text(encoding="utf-8"))
    assert after == {**before, "b": {"description": "d", "prompt": "p", "tools": ["Read"]}}
    store.remove("b")
    assert json.loads(path.read_text(encoding="utf-8")) == before
    if before:
        store.remove("a")
        assert json.loads(path.read_text(encoding="utf-8")) == {}


NAMES = st.sampled_from(["a", "b", "c", "d-1", "e_2"])
OPS = st.lists(
    st.tuples(
        st.sampled_from(["define", "remove"]),
        NAMES,
        st.text(alphabet=st.characters(exclude_categories=["Cs"]), min_size=1, max_size=20).filter(
            lambda t: t.strip() != ""
        ),
        st.sampled_from([None, ["Read"], ["Bash", "Grep"]]),
    ),
    max_size=25,
)


@settings(max_examples=60, deadline=None)
@given(ops=OPS)
def test_any_sequence_of_changes_matches_a_plain_dict(
    tmp_path_factory: pytest.TempPathFactory, ops: list[tuple[str, str, str, list[str] | None]]
) -> None:
    store = AgentStore(None, tmp_path_factory.mktemp("prop"))
    model: dict[str, dict[str, object]] = {}
    for op, name, text, tools in ops:
        if op == "define":
            store.define(name, text, text, tools=tools)
            entry: dict[str, object] = {"description": text, "prompt": text}
            if tools is not None:
                entry["tools"] = tools
            model[name] = entry  # an existing name keeps its position, as in the file
        elif name in model:
            store.remove(name)
            del model[name]
    if ops and store.path("group").exists():
        on_disk = json.loads(store.path("group").read_text(encoding="utf-8"))
        assert on_disk == model
        assert list(on_disk) == list(model)
