"""Model aliases and the CLAUDE_CODE_SUBAGENT_MODEL precedence chain."""

from __future__ import annotations

import pytest

from subagents.errors import ConfigError
from subagents.providers.models import (
    DEFAULT_ALIASES,
    alias_table,
    choose_model,
    effective_model,
    is_alias,
    resolve_model,
)

SONNET = DEFAULT_ALIASES["sonnet"]
OPUS = DEFAULT_ALIASES["opus"]
HAIKU = DEFAULT_ALIASES["haiku"]
FABLE = DEFAULT_ALIASES["fable"]


def test_default_aliases_are_current_claude_ids() -> None:
    for alias in ("sonnet", "opus", "haiku", "fable"):
        model_id = resolve_model(alias)
        assert model_id.startswith(f"claude-{alias}-"), model_id


@pytest.mark.parametrize(
    ("given", "expected"),
    [("sonnet", SONNET), (" Opus ", OPUS), ("HAIKU", HAIKU), ("fable", FABLE),
     ("claude-sonnet-4-5-20250929", "claude-sonnet-4-5-20250929"),
     ("qwen2.5-coder:7b", "qwen2.5-coder:7b"), ("My-Model", "My-Model")],
)
def test_resolve(given: str, expected: str) -> None:
    assert resolve_model(given) == expected


def test_inherit_and_none_take_the_parent() -> None:
    assert resolve_model("inherit", parent="claude-opus-4-8") == "claude-opus-4-8"
    assert resolve_model(None, parent="haiku") == HAIKU  # a parent alias is resolved too
    assert resolve_model("", parent="x-model") == "x-model"
    # no parent: the table's default, opus as in Claude Code 2.1.332 (issue 18; was sonnet)
    assert resolve_model("INHERIT") == OPUS
    assert resolve_model("inherit", parent="inherit") == OPUS


def test_config_overrides_merge_over_defaults() -> None:
    table = {"sonnet": "qwen2.5-coder:32b", "fast": "haiku", "default": "opus"}
    assert resolve_model("sonnet", table=table) == "qwen2.5-coder:32b"
    assert resolve_model("opus", table=table) == OPUS  # untouched aliases still work
    assert resolve_model("fast", table=table) == HAIKU  # alias of an alias
    assert resolve_model("inherit", table=table) == OPUS  # config changes the default
    assert resolve_model("Fast", table={"FAST": "m1"}) == "m1"


def test_alias_cycles_stop() -> None:
    assert resolve_model("a", table={"a": "b", "b": "a"}) in {"a", "b"}


@pytest.mark.parametrize(
    "table",
    [{"sonnet": 3}, {"sonnet": ""}, {"inherit": "claude-x"}, {1: "x"}],
)
def test_bad_config_tables(table: dict[object, object]) -> None:
    with pytest.raises(ConfigError):
        alias_table(table)  # type: ignore[arg-type]


def test_is_alias() -> None:
    assert is_alias("Sonnet") and is_alias("inherit") and not is_alias("claude-sonnet-5-5")
    assert is_alias("fast", table={"fast": "haiku"})


def test_precedence_env_then_call_then_frontmatter_then_parent() -> None:
    env = {"CLAUDE_CODE_SUBAGENT_MODEL": "haiku"}
    everything = {"call": "opus", "frontmatter": "fable", "parent": "claude-parent"}
    assert choose_model(**everything, environ=env).source == "env"
    assert effective_model(**everything, environ=env) == HAIKU
    assert choose_model(**everything, environ={}).model == OPUS
    assert choose_model(frontmatter="fable", parent="p", environ={}).model == FABLE
    choice = choose_model(parent="claude-parent", environ={})
    assert (choice.model, choice.source) == ("claude-parent", "parent")
    choice = choose_model(environ={})
    assert (choice.model, choice.source, choice.requested) == (OPUS, "default", "")  # issue 18


def test_inherit_or_empty_levels_do_not_decide() -> None:
    choice = choose_model(
        call="inherit", frontmatter="  ", parent="opus",
        environ={"CLAUDE_CODE_SUBAGENT_MODEL": ""},
    )
    assert (choice.model, choice.source, choice.requested) == (OPUS, "parent", "opus")
    choice = choose_model(frontmatter="inherit", parent="p",
                          environ={"CLAUDE_CODE_SUBAGENT_MODEL": "inherit"})
    assert choice.source == "parent"


def test_env_var_is_read_from_the_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAUDE_CODE_SUBAGENT_MODEL", "claude-from-env")
    assert effective_model(frontmatter="opus") == "claude-from-env"
    monkeypatch.delenv("CLAUDE_CODE_SUBAGENT_MODEL")
    assert effective_model(frontmatter="opus") == OPUS


def test_table_applies_at_every_level() -> None:
    table = {"sonnet": "local-model"}
    assert effective_model(frontmatter="sonnet", table=table, environ={}) == "local-model"
    env = {"CLAUDE_CODE_SUBAGENT_MODEL": "sonnet"}
    assert effective_model(call="opus", table=table, environ=env) == "local-model"
