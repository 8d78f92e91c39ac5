"""Writes splice only the changed entry: every other byte of a hand-formatted file is kept."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hypothesis_helpers import examples
from subagents.store.core import AgentStore

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


@settings(max_examples=examples(60), deadline=None)
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


# quick_doc (what a writer parses under the lock) must refuse exactly what parse_doc refuses,
# with the same message, and an append through it must keep every old byte.
_TEXTS = [
    "{}",
    "  {}  \n",
    "\n\t{ }\n",
    '{"a": {"description": "d", "prompt": "p"}}',
    '{"a": 1, "b": [1, {"c": null}]}\n\n',
    '{"a": 1, "a": 2}',
    '{"a": {"k": 1, "k": 2}}',
    '{"a": NaN}',
    '{"a": 1',
    '{"a": 1,}',
    "[1, 2]",
    '"text"',
    "null",
    '{"a": 1} {"b": 2}',
    '{"a": 1} x',
    "{'a': 1}",
    '{"a": "\\ud800"}',
    "",
    "   \n",
]


@pytest.mark.parametrize("text", _TEXTS)
def test_quick_doc_refuses_what_parse_doc_refuses(text: str) -> None:
    from subagents.errors import StoreCorruptError
    from subagents.store.file import parse_doc, quick_doc

    try:
        full = parse_doc(text, "agents.json")
    except StoreCorruptError as exc:
        with pytest.raises(StoreCorruptError) as quick_exc:
            quick_doc(text, "agents.json")
        assert str(quick_exc.value) == str(exc)
        return
    quick = quick_doc(text, "agents.json")
    assert quick.entries == full.entries
    assert (quick.open_pos, quick.close_pos) == (full.open_pos, full.close_pos)


@pytest.mark.parametrize(
    "text",
    [
        "{}",
        "  {}  \n",
        "\n\t{ }\n",
        '{"a": {"description": "d", "prompt": "p"}}',
        '{"a": 1, "b": [1, {"c": null}]}\n\n',
        '{\n\t"a": {\n\t\t"description": "d",\n\t\t"prompt": "p"\n\t}  \n}\n',
    ],
)
def test_append_keeps_every_old_byte(store: AgentStore, text: str) -> None:
    path = _put(store, text)
    store.define("new-one", "d", "p", tools=["Read"])
    after = path.read_text(encoding="utf-8")
    data = json.loads(after)
    assert list(data)[-1] == "new-one"
    assert data["new-one"] == {"description": "d", "prompt": "p", "tools": ["Read"]}
    old = json.loads(text)
    assert {k: v for k, v in data.items() if k != "new-one"} == old
    # Old bytes kept: the text before the insertion point and after it are unchanged.
    insert_at = after.index('"new-one"')
    head = after[:insert_at].rstrip(" \t\n,")
    assert text.startswith(head) and after.endswith(text[len(text.rstrip(" \t\n}")) :].lstrip())
    if "\t\"a\"" in text:
        assert '\n\t"new-one": {\n\t\t"description"' in after  # the file's indentation


# quick_doc(text, previous=...) checks only what others appended since this process's last
# write; it must give exactly what the full decode gives, for appends and for anything else.
_WS = st.sampled_from(["", " ", "\n", "\n  ", "\t", "\r\n"])
_NAMES = st.text(alphabet="abcx-", min_size=1, max_size=3)


@settings(max_examples=examples(300), deadline=None)
@given(
    base=st.dictionaries(_NAMES, st.integers(0, 9), min_size=1, max_size=4),
    added=st.lists(st.tuples(_NAMES, st.integers(0, 9)), max_size=3),
    ws=st.lists(_WS, min_size=4, max_size=4),
    damage=st.sampled_from(["none", "trailing-comma", "no-comma", "truncate", "edit-old", "bom"]),
)
def test_incremental_check_equals_full_decode(
    base: dict[str, int], added: list[tuple[str, int]], ws: list[str], damage: str
) -> None:
    from subagents.errors import StoreCorruptError
    from subagents.store.file import dump_store, quick_doc, written_doc

    old_text = dump_store(base).decode()
    previous = written_doc(old_text, dict(base), "agents.json")
    cut = old_text.rstrip().rstrip("}").rstrip()
    members = "".join(f",{ws[0]}{json.dumps(k)}{ws[1]}:{ws[2]}{v}" for k, v in added)
    text = cut + members + ws[3] + old_text[len(cut) :]
    if damage == "trailing-comma":
        text = cut + members + "," + old_text[len(cut) :]
    elif damage == "no-comma" and added:
        text = cut + members[1:] + old_text[len(cut) :]
    elif damage == "truncate":
        text = text[: len(text) - 2]
    elif damage == "edit-old":
        text = text.replace(":", ": ", 1)
    elif damage == "bom":
        text = "\ufeff" + text
    try:
        full = quick_doc(text, "agents.json")
    except StoreCorruptError as exc:
        with pytest.raises(StoreCorruptError) as info:
            quick_doc(text, "agents.json", previous)
        assert str(info.value) == str(exc)
        return
    fast = quick_doc(text, "agents.json", previous)
    assert list(fast.entries.items()) == list(full.entries.items())
    assert (fast.open_pos, fast.close_pos) == (full.open_pos, full.close_pos)


def test_other_writers_appends_are_kept_by_a_cached_writer(tmp_path: Path) -> None:
    """Two store objects (two processes' worth) alternate; the cache never loses an entry."""
    a, b = AgentStore(None, tmp_path), AgentStore(None, tmp_path)
    for i in range(30):
        (a if i % 3 else b).define(f"n{i}", "d", "p")
        if i % 7 == 0:
            b.define(f"n{i}", "changed", "p")  # an update, not an append, in between
        if i % 11 == 0:
            a.remove(f"n{i}")
    data = json.loads((tmp_path / "agents.json").read_text(encoding="utf-8"))
    assert list(data) == [f"n{i}" for i in range(30) if i % 11]
    assert [k for k, v in data.items() if v["description"] == "changed"] == [
        f"n{i}" for i in range(30) if i % 7 == 0 and i % 11
    ]
