"""AgentStore: read, merge, define, remove, list, validation at write time (seed 003)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from subagents.diagnostics import Severity
from subagents.errors import AgentNotFoundError, DefinitionError, StoreError
from subagents.store.core import (
    MAX_NAME_LENGTH,
    MAX_PROMPT_BYTES,
    AgentStore,
    StoreScopeError,
    parse_store_text,
    validate_entry,
)


@pytest.fixture
def store(tmp_path: Path) -> AgentStore:
    return AgentStore(tmp_path / "global", tmp_path / "group", main=True)


def _file(store: AgentStore, scope: str) -> dict[str, object]:
    data = json.loads(store.path(scope).read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def test_define_creates_file_with_seed_shape(store: AgentStore) -> None:
    result = store.define(
        "fact-checker",
        "Verifies claims.",
        "You check facts.",
        tools=["WebSearch", "WebFetch"],
        model="haiku",
    )
    assert result.action == "created"
    assert result.path == store.path("group")
    assert _file(store, "group") == {
        "fact-checker": {
            "description": "Verifies claims.",
            "prompt": "You check facts.",
            "tools": ["WebSearch", "WebFetch"],
            "model": "haiku",
        }
    }
    assert not store.path("global").exists()
    text = store.path("group").read_text(encoding="utf-8")
    assert text.endswith("\n") and text.startswith('{\n  "fact-checker"')


def test_redefine_keeps_unknown_keys_order_and_other_entries(store: AgentStore) -> None:
    path = store.path("group")
    path.parent.mkdir(parents=True)
    original = {
        "zeta": {"description": "z", "prompt": "z", "x-owner": "ops"},
        "alpha": {
            "x-note": {"nested": [1, 2]},
            "description": "old",
            "prompt": "old",
            "tools": ["Read"],
            "disallowedTools": ["Bash"],
            "model": "opus",
        },
        "not-an-agent": 42,
        "mid": {"description": "m", "prompt": "m"},
    }
    path.write_text(json.dumps(original, indent=4), encoding="utf-8")
    result = store.define("alpha", "new", "new prompt", tools=None, model="sonnet")
    assert result.action == "updated"
    data = _file(store, "group")
    assert list(data) == ["zeta", "alpha", "not-an-agent", "mid"]
    assert data["zeta"] == original["zeta"]
    assert data["not-an-agent"] == 42
    assert data["alpha"] == {
        "x-note": {"nested": [1, 2]},
        "description": "new",
        "prompt": "new prompt",
        "disallowedTools": ["Bash"],  # kept; tools dropped because omitted = inherit
        "model": "sonnet",
    }


def test_unicode_written_as_text(store: AgentStore) -> None:
    store.define("poet", "Écrit des poèmes ✍", "Tu écris.")
    assert "Écrit des poèmes ✍" in store.path("group").read_text(encoding="utf-8")


def test_mode_of_existing_file_is_kept(store: AgentStore) -> None:
    store.define("a", "d", "p")
    os.chmod(store.path("group"), 0o600)
    store.define("b", "d", "p")
    assert os.stat(store.path("group")).st_mode & 0o777 == 0o600


def test_symlinked_store_is_refused(store: AgentStore, tmp_path: Path) -> None:
    # Issue 12: a link could make one store write another (a group's the global one).
    real = tmp_path / "real" / "agents.json"
    real.parent.mkdir()
    real.write_text("{}", encoding="utf-8")
    store.path("group").parent.mkdir(parents=True)
    store.path("group").symlink_to(real)
    with pytest.raises(StoreError, match="symbolic link"):
        store.define("a", "d", "p")
    assert json.loads(real.read_text(encoding="utf-8")) == {}


def test_merge_group_wins_and_list_reports_overrides(store: AgentStore) -> None:
    store.define("shared", "global version", "g", scope="global")
    store.define("only-global", "g", "g", scope="global")
    store.define("shared", "group version", "p")
    store.define("only-group", "p", "p")
    merged = store.merged()
    assert merged["shared"]["description"] == "group version"
    assert set(merged) == {"shared", "only-global", "only-group"}

    listing = {(a.name, str(a.scope)): a for a in store.list("all").agents}
    assert listing[("shared", "group")].overrides is True
    assert listing[("shared", "global")].overridden is True
    assert listing[("shared", "global")].active is False
    assert listing[("only-global", "global")].overridden is False
    assert listing[("only-group", "group")].overrides is False
    # Listing one scope still says what it overrides.
    group_only = store.list("group").agents
    assert {a.name for a in group_only} == {"shared", "only-group"}
    assert next(a for a in group_only if a.name == "shared").to_dict()["overrides_global"]
    assert {a.name for a in store.list("global").agents} == {"shared", "only-global"}
    with pytest.raises(StoreScopeError):
        store.list("everything")


def test_list_reports_entry_lines_and_invalid_entries(store: AgentStore) -> None:
    path = store.path("group")
    path.parent.mkdir(parents=True)
    path.write_text(
        '{\n  "ok": {"description": "d", "prompt": "p"},\n'
        '  "bad": {"description": "no prompt"}\n}\n',
        encoding="utf-8",
    )
    agents = {a.name: a for a in store.list().agents}
    assert agents["ok"].line == 2 and agents["ok"].active
    assert agents["bad"].line == 3
    assert agents["bad"].problems and not agents["bad"].active


def test_definitions_merge_through_the_loader(store: AgentStore) -> None:
    pytest.importorskip("subagents.harnesses.loader")
    store.define("a", "global a", "p", scope="global", model="opus")
    store.define("a", "group a", "p", tools=["Read"])
    store.define("b", "global b", "p", scope="global")
    defs, _ = store.definitions()
    by_name = {d.name: d for d in defs}
    assert by_name["a"].description == "group a"
    assert by_name["a"].tools == ("Read",)
    assert by_name["b"].path == store.path("global")


def test_remove(store: AgentStore) -> None:
    store.define("a", "d", "p")
    store.define("b", "d", "p")
    result = store.remove("a")
    assert result.action == "removed"
    assert list(_file(store, "group")) == ["b"]
    store.remove("b")
    assert _file(store, "group") == {}


def test_remove_missing_names_the_other_scope(tmp_path: Path) -> None:
    main = AgentStore(tmp_path / "global", tmp_path / "group", main=True)
    main.define("researcher", "d", "p", scope="global")
    main.define("researchers", "d", "p")
    store = AgentStore(tmp_path / "global", tmp_path / "group", main=False)
    with pytest.raises(AgentNotFoundError) as info:
        store.remove("researcher")
    assert "researchers" in str(info.value)  # close match offered
    assert "global" in str(info.value.hint)
    assert "main group" in str(info.value.hint)


def test_global_scope_refused_unless_main(tmp_path: Path) -> None:
    store = AgentStore(tmp_path / "global", tmp_path / "group", main=False)
    with pytest.raises(StoreScopeError, match="read-only"):
        store.define("a", "d", "p", scope="global")
    with pytest.raises(StoreScopeError, match="read-only"):
        store.remove("a", scope="global")
    assert not (tmp_path / "global").exists()
    # reading global is fine
    assert store.list("global").agents == ()


def test_unknown_scope_and_missing_global_dir(tmp_path: Path) -> None:
    store = AgentStore(None, tmp_path / "group", main=True)
    with pytest.raises(StoreScopeError, match="unknown scope"):
        store.define("a", "d", "p", scope="everywhere")
    with pytest.raises(StoreScopeError, match="no global store"):
        store.define("a", "d", "p", scope="global")
    store.define("a", "d", "p")
    assert store.merged() == {"a": {"description": "d", "prompt": "p"}}


# -- validation at write time ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "rule"),
    [
        ("a/b", "ST001"),
        ("../escape", "ST001"),
        ("..", "ST001"),
        ("Researcher", "ST001"),
        ("has space", "ST001"),
        ("", "ST001"),
        ("x" * 1000, "ST002"),
        (42, "ST001"),
    ],
)
def test_bad_names_refused(store: AgentStore, name: object, rule: str) -> None:
    diags = validate_entry(name, "d", "p")
    assert [d.rule for d in diags] == [rule]
    with pytest.raises(DefinitionError) as info:
        store.define(name, "d", "p")  # type: ignore[arg-type]
    assert rule in str(info.value)
    assert not store.path("group").exists()


def test_name_at_the_length_limit_is_fine(store: AgentStore) -> None:
    store.define("a" * MAX_NAME_LENGTH, "d", "p")
    assert "a" * MAX_NAME_LENGTH in store.merged()


def test_upper_case_name_gets_a_suggestion() -> None:
    (diag,) = validate_entry("Fact Checker", "d", "p")
    assert diag.hint == "try 'fact-checker'"


def test_huge_prompt_refused_and_file_untouched(store: AgentStore) -> None:
    store.define("keep", "d", "p")
    before = store.path("group").read_bytes()
    with pytest.raises(DefinitionError, match="ST008") as info:
        store.define("big", "d", "x" * (5 * 1024 * 1024))
    assert f"{MAX_PROMPT_BYTES:,}" in str(info.value)
    assert store.path("group").read_bytes() == before


def test_store_size_limit(store: AgentStore) -> None:
    chunk = "y" * (MAX_PROMPT_BYTES - 100)
    for i in range(4):
        store.define(f"agent-{i}", "d", chunk)
    before = store.path("group").read_bytes()
    with pytest.raises(StoreError, match="over the"):
        store.define("agent-4", "d", chunk)
    assert store.path("group").read_bytes() == before
    store.remove("agent-0")  # shrinking is always allowed


@pytest.mark.parametrize(
    ("kwargs", "rule"),
    [
        ({"description": ""}, "ST003"),
        ({"description": "   "}, "ST003"),
        ({"prompt": ""}, "ST004"),
        ({"prompt": None}, "ST010"),
        ({"description": 5}, "ST010"),
        ({"tools": "Read, Grep"}, "ST006"),
        ({"tools": {"Read": True}}, "ST006"),
        ({"tools": ["Read", 3]}, "ST006"),
        ({"tools": ["Read", "Teleport"]}, "ST007"),
        ({"model": "sonet"}, "ST005"),
        ({"model": "gpt"}, "ST005"),
        ({"model": 4}, "ST010"),
    ],
)
def test_bad_fields_refused(kwargs: dict[str, object], rule: str) -> None:
    args: dict[str, object] = {"name": "a", "description": "d", "prompt": "p", **kwargs}
    diags = validate_entry(args.pop("name"), args.pop("description"), args.pop("prompt"), **args)  # type: ignore[arg-type]
    assert rule in {d.rule for d in diags if d.severity is Severity.ERROR}


def test_model_typo_suggests_alias() -> None:
    (diag,) = validate_entry("a", "d", "p", model="sonet")
    assert diag.hint == "did you mean 'sonnet'?"


@pytest.mark.parametrize(
    "model",
    [
        "sonnet",
        "opus",
        "haiku",
        "inherit",
        "fable",
        "claude-sonnet-4-5-20250929",
        "claude-3-5-haiku-latest",
        "us.anthropic.claude-opus-4-1-20250805-v1:0",
    ],
)
def test_good_models(model: str) -> None:
    assert validate_entry("a", "d", "p", model=model) == []


def test_known_tool_forms_accepted_and_duplicate_warns(store: AgentStore) -> None:
    tools = ["Read", "Bash(git diff:*)", "mcp__github__create_issue", "Agent(a, b)", "Read"]
    diags = validate_entry("a", "d", "p", tools=tools)
    assert [(d.rule, d.severity) for d in diags] == [("ST011", Severity.WARNING)]
    result = store.define("a", "d", "p", tools=tools)
    assert [d.rule for d in result.warnings] == ["ST011"]
    assert store.merged()["a"]["tools"] == tools


def test_empty_tools_list_means_no_tools(store: AgentStore) -> None:
    store.define("a", "d", "p", tools=[])
    assert store.merged()["a"]["tools"] == []


def test_parse_store_text_reports_lines() -> None:
    entries, lines = parse_store_text('{\n"a": {"description": "d", "prompt": "p"},\n\n"b": {}}')
    assert lines == {"a": 2, "b": 4}
    assert list(entries) == ["a", "b"]
    assert parse_store_text("  \n")[0] == {}


def test_store_validate_entry_names_the_scope_file(store: AgentStore) -> None:
    (diag,) = store.validate_entry("ok", "d", "p", tools="Read", scope="global")
    assert diag.rule == "ST006"
    assert diag.path == str(store.path("global"))
    assert store.validate_entry("ok", "d", "p", tools=["Read"]) == []


def test_change_result_reports_lock_timing(store: AgentStore) -> None:
    out = store.define("a", "d", "p").to_dict()
    assert out["lock_wait_ms"] >= 0 and out["lock_held_ms"] > 0
    assert store.remove("a").to_dict()["lock_held_ms"] > 0
