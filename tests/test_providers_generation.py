"""Generation parameters: the per-model table (measured on Claude Code 2.1.332), the overrides,
how the Anthropic and OpenAI adapters put them on the wire, thinking blocks kept in the
history, and a provider that refuses them (asked again without, with a warning)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from providers_helpers import clean_env_fixture, server_fixture, simple_request
from subagents.definition import AgentDefinition
from subagents.lint.config import load_config
from subagents.providers.anthropic import AnthropicModel, to_anthropic_params
from subagents.providers.base import (
    FORCE_TOOL,
    Message,
    ModelRequest,
    ModelResponse,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
)
from subagents.providers.generation import (
    DEFAULT_GENERATION,
    EFFORT_EXPLICIT,
    Generation,
    generation_for,
    model_display_name,
)
from subagents.providers.openai import OpenAIModel, to_openai_params
from subagents.runtime.runner import AgentRunner
from subagents.runtime.tools.base import ToolContext
from subagents.testing import ScriptedModel, text, tool_call
from subagents.testing.server import FakeLLMServer, Fault

__all__ = ["clean_env_fixture", "server_fixture"]

AGENT = AgentDefinition(name="a", description="d", system_prompt="You work.")


@pytest.mark.parametrize(("model", "expected"), [
    ("claude-opus-5-5", Generation(128000, "adaptive", "medium")),
    ("claude-sonnet-5-5", Generation(128000, "adaptive", "medium")),
    ("claude-haiku-5-5", Generation(128000, "adaptive", "medium")),
    ("claude-fable-5-2", Generation(128000, "adaptive", "medium")),
    ("claude-opus-4-7", Generation(64000, "adaptive", "xhigh")),
    ("claude-opus-4-6", Generation(64000, "adaptive", "high")),
    ("claude-sonnet-4-6", Generation(32000, "adaptive", "high")),
    ("claude-opus-4-5", Generation(32000, "budget", "high")),
    ("claude-sonnet-4-5-20250929", Generation(32000, "budget", None)),
    ("claude-sonnet-4-20250514", Generation(32000, "budget", None)),
    ("claude-3-7-sonnet-latest", Generation(32000, None, None)),
    ("claude-3-5-haiku-20241022", Generation(8192, None, None)),
    ("gpt-4o", DEFAULT_GENERATION),
    ("qwen2.5-coder:7b", Generation(32000, "adaptive", "high")),
])
def test_measured_rows(model: str, expected: Generation) -> None:
    assert generation_for(model) == expected


def test_budget_is_one_less_than_the_limit() -> None:
    assert generation_for("claude-sonnet-4-5").thinking_budget == 31999
    assert generation_for("claude-opus-5-5").thinking_budget is None


def test_overrides() -> None:
    assert generation_for("claude-opus-5-5", max_tokens=4000, effort="low") == Generation(
        4000, "adaptive", "low")
    assert generation_for("claude-opus-5-5", thinking=False) == Generation(128000, None, None)
    assert generation_for("claude-opus-5-5", effort="extreme").effort == "medium"
    # no thinking, no effort: effort rides on thinking
    assert generation_for("claude-3-5-haiku", effort="high") == Generation(8192, None, None)
    assert generation_for("claude-3-5-haiku", thinking=True).thinking == "adaptive"


def test_display_names() -> None:
    assert model_display_name("claude-opus-5-5") == "Opus 5.5"
    assert model_display_name("claude-sonnet-4-5-20250929") == "Sonnet 4.5"
    assert model_display_name("gpt-4o") == "gpt-4o"


# ------------------------------------------------------------------------ on the wire


def req(**kw: object) -> ModelRequest:
    return dataclasses.replace(simple_request(), **kw)  # type: ignore[arg-type]


def test_anthropic_adaptive_and_effort() -> None:
    params = to_anthropic_params(req(max_tokens=128000, thinking="adaptive", effort="medium"))
    assert params["max_tokens"] == 128000
    assert params["thinking"] == {"type": "adaptive"}
    assert params["output_config"] == {"effort": "medium"}


def test_anthropic_budget_and_hidden() -> None:
    params = to_anthropic_params(req(max_tokens=32000, thinking="budget", thinking_budget=31999,
                                     thinking_hidden=True))
    assert params["thinking"] == {"type": "enabled", "budget_tokens": 31999,
                                  "display": "omitted"}
    assert "output_config" not in params


def test_anthropic_no_thinking_sends_neither() -> None:
    params = to_anthropic_params(req(effort="high"))
    assert "thinking" not in params and "output_config" not in params


def test_anthropic_forced_tool_drops_thinking() -> None:
    from providers_helpers import READ_TOOL

    params = to_anthropic_params(req(tools=[READ_TOOL], thinking="adaptive", effort="low",
                                     metadata={FORCE_TOOL: "Read"}))
    assert params["tool_choice"] == {"type": "tool", "name": "Read"}
    assert "thinking" not in params and "output_config" not in params


def history_with_thinking() -> list[Message]:
    return [Message.user("go"),
            Message("assistant", (ThinkingBlock("let me see", "sig-1"),
                                  ThinkingBlock("", redacted="opaque"),
                                  ToolUseBlock("t1", "Read", {"file_path": "a"}))),
            Message("user", (ToolResultBlock("t1", "content"),))]


def test_thinking_blocks_go_back_only_with_thinking() -> None:
    on = to_anthropic_params(req(messages=history_with_thinking(), thinking="adaptive"))
    assert on["messages"][1]["content"][:2] == [
        {"type": "thinking", "thinking": "let me see", "signature": "sig-1"},
        {"type": "redacted_thinking", "data": "opaque"}]
    off = to_anthropic_params(req(messages=history_with_thinking()))
    assert [b["type"] for b in off["messages"][1]["content"]] == ["tool_use"]


def test_openai_never_sends_thinking_and_effort_where_known() -> None:
    request = req(model="o3-mini", thinking="adaptive", effort="high",
                  messages=history_with_thinking())
    params = to_openai_params(request, max_tokens_param="max_completion_tokens",
                              reasoning_effort=True)
    assert params["reasoning_effort"] == "high" and "thinking" not in params
    assert params["messages"][2]["role"] == "assistant"
    assert params["messages"][2]["content"] is None  # thinking is not assistant text
    assert "reasoning_effort" not in to_openai_params(request, max_tokens_param="max_tokens")


@pytest.mark.usefixtures("clean_env")
def test_openai_chooses_where_to_send_reasoning_effort() -> None:
    from subagents.providers.openai import sends_reasoning_effort

    reasoning = req(model="gpt-5-mini", effort="medium", thinking="adaptive")
    local = req(model="qwen3:8b", effort="medium", thinking="adaptive")
    assert sends_reasoning_effort(reasoning, None, official=True)
    assert not sends_reasoning_effort(req(model="gpt-4o", effort="high"), None, official=True)
    assert not sends_reasoning_effort(local, None, official=False)
    chosen = dataclasses.replace(local, metadata={EFFORT_EXPLICIT: True})
    assert sends_reasoning_effort(chosen, None, official=False)
    assert not sends_reasoning_effort(chosen, False, official=False)
    assert sends_reasoning_effort(local, True, official=False)
    assert OpenAIModel(api_key="k", reasoning_effort=False).reasoning_effort is False


async def test_thinking_round_trip_through_the_sdk(server: FakeLLMServer) -> None:
    thought = ModelResponse(content=(ThinkingBlock("plan", "sig-xyz"),
                                     ToolUseBlock("toolu_1", "Read", {"file_path": "a"})),
                            stop_reason="tool_use", usage=Usage(1, 1))
    server.add(thought, text("done"))
    model = AnthropicModel(api_key="k", base_url=server.anthropic_base_url)
    first = await model.complete(req(thinking="adaptive", effort="medium"))
    assert isinstance(first.content[0], ThinkingBlock) and first.content[0].signature == "sig-xyz"
    assert first.text == "" and first.stop_reason == "tool_use"
    follow = req(thinking="adaptive", effort="medium", messages=[
        Message.user("go"), first.as_message(),
        Message("user", (ToolResultBlock("toolu_1", "x"),))])
    await model.complete(follow)
    sent = server.requests[1].json
    assert sent["thinking"] == {"type": "adaptive"} and sent["output_config"] == {
        "effort": "medium"}
    assert sent["messages"][1]["content"][0] == {"type": "thinking", "thinking": "plan",
                                                 "signature": "sig-xyz"}


async def test_streamed_thinking_is_kept(server: FakeLLMServer) -> None:
    server.add(ModelResponse(content=(ThinkingBlock("plan", "sig-s"), TextBlock("hi"))))
    model = AnthropicModel(api_key="k", base_url=server.anthropic_base_url, stream=True)
    reply = await model.complete(req(thinking="adaptive"))
    assert reply.text == "hi"
    assert reply.content[0] == ThinkingBlock("plan", "sig-s")


# ------------------------------------------------------------------------ in a run


def test_run_sends_the_models_parameters(tmp_path: Path) -> None:
    model = ScriptedModel([text("ok")])
    AgentRunner(model, cwd=tmp_path).run_sync(AGENT, "hi")
    (request,) = model.requests
    assert request.model == "claude-opus-5-5"  # the default session model, as in Claude Code
    assert (request.max_tokens, request.thinking, request.effort) == (128000, "adaptive",
                                                                      "medium")
    assert not request.thinking_hidden and EFFORT_EXPLICIT not in request.metadata


def test_config_overrides_and_frontmatter_effort(tmp_path: Path) -> None:
    picky = dataclasses.replace(AGENT, effort="low", model="haiku")
    model = ScriptedModel([text("main"), text("child")])
    runner = AgentRunner(model, cwd=tmp_path, max_tokens=5000, effort="high")
    runner.run_sync(picky, "as the main thread")  # its own effort is ignored there
    parent = ToolContext(cwd=tmp_path, agent_name="main", model="claude-opus-5-5")
    runner.run_sync(picky, "as a subagent", parent=parent)
    main, child = model.requests
    assert (main.max_tokens, main.effort) == (5000, "high")
    assert (child.model, child.max_tokens, child.effort) == ("claude-haiku-5-5", 5000, "low")
    assert child.thinking_hidden and child.metadata[EFFORT_EXPLICIT] is True


def test_session_effort_is_the_main_threads_only(tmp_path: Path) -> None:
    """Measured: claude --effort high gives the main thread high and a subagent without its
    own effort the model's default (medium)."""
    model = ScriptedModel([text("main"), text("child")])
    runner = AgentRunner(model, cwd=tmp_path, effort="high")
    runner.run_sync(AGENT, "main")
    parent = ToolContext(cwd=tmp_path, agent_name="main", model="claude-opus-5-5")
    runner.run_sync(AGENT, "child", parent=parent)
    main, child = model.requests
    assert (main.effort, child.effort) == ("high", "medium")
    assert main.metadata[EFFORT_EXPLICIT] and EFFORT_EXPLICIT not in child.metadata


def test_per_call_effort_wins(tmp_path: Path) -> None:
    picky = dataclasses.replace(AGENT, effort="low")
    model = ScriptedModel([text("child")])
    parent = ToolContext(cwd=tmp_path, agent_name="main", model="claude-opus-5-5")
    AgentRunner(model, cwd=tmp_path, effort="high").run_sync(picky, "x", parent=parent,
                                                            effort="max")
    assert model.requests[0].effort == "max"


def test_thinking_off_in_config(tmp_path: Path) -> None:
    model = ScriptedModel([text("ok")])
    AgentRunner(model, cwd=tmp_path, thinking=False).run_sync(AGENT, "hi")
    assert (model.requests[0].thinking, model.requests[0].effort) == (None, None)


def test_config_keys(tmp_path: Path) -> None:
    path = tmp_path / ".subagents.toml"
    path.write_text('max-tokens = 16000\neffort = "high"\nthinking = false\n')
    config = load_config(path)
    assert (config.max_tokens, config.effort, config.thinking) == (16000, "high", False)
    from subagents.errors import ConfigError

    path.write_text('effort = "extreme"\n')
    with pytest.raises(ConfigError, match="effort"):
        load_config(path)
    path.write_text("max-tokens = 0\n")
    with pytest.raises(ConfigError, match="max-tokens"):
        load_config(path)


@pytest.mark.usefixtures("clean_env")
def test_provider_refusing_thinking_fails_over(server: FakeLLMServer, tmp_path: Path) -> None:
    server.add(Fault.status(400, "thinking: unknown parameter for this model"),
               tool_call("Read", {"file_path": str(tmp_path / "x")}), text("done"))
    model = AnthropicModel(api_key="k", base_url=server.anthropic_base_url)
    result = AgentRunner(model, cwd=tmp_path).run_sync(AGENT, "hi")
    assert result.final_text == "done" and result.stop_reason == "end_turn"
    first, again, last = (r.json for r in server.requests)
    assert first["thinking"] == {"type": "adaptive"} and "output_config" in first
    assert "thinking" not in again and "output_config" not in again
    assert "thinking" not in last  # learnt once, not asked again
    assert sum("refused thinking/effort" in w for w in result.warnings) == 1


@pytest.mark.usefixtures("clean_env")
def test_provider_refusing_the_output_limit_fails_over(server: FakeLLMServer,
                                                       tmp_path: Path) -> None:
    server.add(Fault.status(400, "max_tokens: 128000 > 32768, the maximum allowed"),
               text("done"))
    model = AnthropicModel(api_key="k", base_url=server.anthropic_base_url)
    result = AgentRunner(model, cwd=tmp_path, thinking=False).run_sync(AGENT, "hi")
    assert result.final_text == "done"
    assert [r.json["max_tokens"] for r in server.requests] == [128000, 8192]
    assert any("output limit" in w for w in result.warnings)


@pytest.mark.usefixtures("clean_env")
def test_other_refusals_are_not_retried(server: FakeLLMServer, tmp_path: Path) -> None:
    server.add(Fault.status(400, "messages: text content blocks must be non-empty"))
    model = AnthropicModel(api_key="k", base_url=server.anthropic_base_url)
    result = AgentRunner(model, cwd=tmp_path).run_sync(AGENT, "hi")
    assert result.stop_reason == "error" and len(server.requests) == 1


@pytest.mark.usefixtures("clean_env")
def test_openai_compatible_server_end_to_end(server: FakeLLMServer, tmp_path: Path) -> None:
    """A local server: the model's limit, no reasoning_effort unless chosen; chosen and
    refused, it is dropped once with a warning."""
    server.add(text("plain"), Fault.status(400, "Unrecognized request argument: "
                                                "reasoning_effort"), text("after"))
    model = OpenAIModel(api_key="local", base_url=server.openai_base_url)
    plain = AgentRunner(model, cwd=tmp_path).run_sync(AGENT, "hi", model="qwen3:8b")
    chosen = AgentRunner(model, cwd=tmp_path, effort="low").run_sync(AGENT, "hi",
                                                                      model="qwen3:8b")
    first, refused, again = (r.json for r in server.requests)
    assert first["max_tokens"] == 32000 and "reasoning_effort" not in first
    assert "thinking" not in first
    assert refused["reasoning_effort"] == "low" and "reasoning_effort" not in again
    assert plain.warnings == () and chosen.final_text == "after"
    assert any("refused thinking/effort" in w for w in chosen.warnings)


def test_thinking_survives_a_transcript_round_trip() -> None:
    """A teammate resumed from its transcript sends its thinking back as it came."""
    from subagents.dispatch.teams.turns import _message_from_json
    from subagents.runtime.transcript import message_to_json

    message = Message("assistant", (ThinkingBlock("plan", "sig"),
                                    ThinkingBlock("", redacted="opaque"),
                                    ToolUseBlock("t1", "Read", {"file_path": "a"})))
    assert _message_from_json(message_to_json(message)) == message


@pytest.mark.usefixtures("clean_env")
@pytest.mark.parametrize(("env", "flag", "expected"), [
    ("5000", [], 5000), ("5000", ["--max-tokens", "7000"], 7000), ("lots", [], 128000)])
def test_cli_output_limit_from_env_and_flag(server: FakeLLMServer, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch, env: str,
                                            flag: list[str], expected: int) -> None:
    from click.testing import CliRunner

    from subagents.cli.main import cli

    agents = tmp_path / "proj" / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "one.md").write_text("---\nname: one\ndescription: d\ntools: Read\n---\nBody.\n")
    monkeypatch.chdir(tmp_path / "proj")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.anthropic_base_url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    monkeypatch.setenv("CLAUDE_CODE_MAX_OUTPUT_TOKENS", env)
    server.add(text("ok"))
    result = CliRunner().invoke(cli, ["run", "--agent", "one", "--no-transcript", *flag, "go"])
    assert result.exit_code == 0, result.output
    assert server.requests[0].json["max_tokens"] == expected
    assert ("ignored" in result.stderr) == (env == "lots")
