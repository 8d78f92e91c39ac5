"""RunConfig: the runner's options as one frozen value; the old keyword arguments still work."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from subagents import AgentRunner
from subagents.definition import AgentDefinition
from subagents.runtime.config import RunConfig
from subagents.runtime.permissions import PermissionPolicy
from subagents.testing import ScriptedModel, text


def test_old_keyword_arguments_map_into_the_config(tmp_path: Path) -> None:
    policy = PermissionPolicy(mode="plan")
    r = AgentRunner(ScriptedModel([]), cwd=tmp_path, policy=policy, default_max_turns=7,
                    max_tokens=99, parent_model="m", transcript_dir=tmp_path / "t",
                    mcp_read_only=["mcp__x__y"], include_env=True)
    assert r.config.cwd == tmp_path.resolve() and r.cwd == tmp_path.resolve()
    assert r.config.policy is policy and r.policy is policy
    assert (r.config.default_max_turns, r.config.max_tokens) == (7, 99)
    assert r.config.transcript_dir == tmp_path / "t" and r.transcripts is True
    assert r.config.mcp_read_only == ("mcp__x__y",) and r.include_env is True


def test_a_keyword_wins_over_the_same_field_of_config(tmp_path: Path) -> None:
    config = RunConfig(cwd=tmp_path, default_max_turns=3, parent_model="from-config")
    r = AgentRunner(ScriptedModel([]), config, default_max_turns=9)
    assert r.config.default_max_turns == 9
    assert r.config.parent_model == "from-config"
    assert config.default_max_turns == 3  # the caller's config is not changed


def test_config_is_frozen_and_unknown_options_are_refused(tmp_path: Path) -> None:
    config = RunConfig(cwd=tmp_path)
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.max_tokens = 1  # type: ignore[misc]
    with pytest.raises(TypeError, match="unknown run option"):
        AgentRunner(ScriptedModel([]), cwd=tmp_path, max_turn=3)  # type: ignore[call-arg]


def test_defaults_without_any_option(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    r = AgentRunner(ScriptedModel([]))
    assert r.cwd == tmp_path.resolve()
    assert r.transcripts is False and r.default_max_turns == 50
    assert isinstance(r.policy, PermissionPolicy)


def test_setting_an_option_replaces_only_this_runners_config(tmp_path: Path) -> None:
    config = RunConfig(cwd=tmp_path)
    a = AgentRunner(ScriptedModel([]), config)
    b = AgentRunner(ScriptedModel([]), config)
    a.default_max_turns = 4
    assert a.default_max_turns == 4 and b.default_max_turns == 50


def test_derive_leaves_the_original_runner_alone(tmp_path: Path) -> None:
    events: list[str] = []
    first = ScriptedModel([])
    r = AgentRunner(first, cwd=tmp_path, transcripts=False)
    other = ScriptedModel([text("hi")])
    d = r.derive(model=other, on_event=lambda kind, data: events.append(kind))
    assert r.model is first and r.on_event is None
    assert d.model is other and d.tools == r.tools and d.cwd == r.cwd
    result = d.run_sync(AgentDefinition(name="a", system_prompt="x", tools=()), "go")
    assert result.final_text == "hi"
    assert events[0] == "start" and events[-1] == "stop"
