"""The anthropic provider, through the real ``anthropic`` SDK, against the loopback server."""

from __future__ import annotations

import asyncio
import logging
import socket

import pytest

from providers_helpers import (
    READ_TOOL,
    SECRET,
    clean_env_fixture,  # noqa: F401  (fixture "clean_env")
    server_fixture,  # noqa: F401  (fixture "server")
    simple_request,
    tool_round_trip_request,
)
from subagents.errors import (
    MissingCredentialsError,
    ProviderConnectionError,
    ProviderResponseError,
)
from subagents.providers import RetryPolicy, get_provider
from subagents.providers.anthropic import AnthropicModel
from subagents.providers.base import ToolUseBlock, Usage
from subagents.testing import text, tool_call, tool_calls
from subagents.testing.server import FakeLLMServer, Fault, raw_tool_call

STREAM = pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])


def make(
    server: FakeLLMServer, *, stream: bool = False, waits: list[float] | None = None,
    attempts: int = 4,
) -> AnthropicModel:
    return AnthropicModel(
        api_key=SECRET,
        base_url=server.anthropic_base_url,
        stream=stream,
        retry=RetryPolicy.instant(attempts, record=waits),
    )


@STREAM
async def test_text_reply(server: FakeLLMServer, stream: bool) -> None:
    server.add(text("Hello there, how are you today?", usage=Usage(12, 7)))
    reply = await make(server, stream=stream).complete(simple_request())
    assert reply.text == "Hello there, how are you today?"
    assert reply.stop_reason == "end_turn"
    assert reply.usage == Usage(12, 7)
    assert reply.model == "claude-test"
    assert server.requests[0].stream is stream
    server.assert_complete()


@STREAM
async def test_request_carries_system_tools_and_messages(
    server: FakeLLMServer, stream: bool
) -> None:
    server.add(text("ok"))
    await make(server, stream=stream).complete(tool_round_trip_request())
    sent = server.requests[0]
    assert sent.path == "/v1/messages"
    body = sent.json
    assert body["model"] == "claude-test"
    assert body["max_tokens"] == 321
    assert body["system"] == "You read files."
    assert body["tools"] == [
        {"name": "Read", "description": READ_TOOL.description,
         "input_schema": dict(READ_TOOL.input_schema)}
    ]
    assert body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "read a.txt"}]},
        {"role": "assistant", "content": [
            {"type": "text", "text": "Reading."},
            {"type": "tool_use", "id": "toolu_1", "name": "Read",
             "input": {"file_path": "a.txt"}},
        ]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1",
             "content": "file not found: a.txt", "is_error": True},
        ]},
    ]
    # the key travels in a header (whichever the SDK uses), never in the body
    assert SECRET in " ".join(sent.headers.values())
    assert SECRET not in sent.body.decode()


@STREAM
async def test_tool_use_round_trip(server: FakeLLMServer, stream: bool) -> None:
    args = {"file_path": "docs/a very long file name.txt", "offset": 10, "limit": 200,
            "nested": {"list": [1, 2, {"deep": "value with \"quotes\" and ünïcode"}]}}
    server.add(
        tool_calls([("Read", args), ("Grep", {"pattern": "x"})], ids=["toolu_a", "toolu_b"],
                   say="Let me look."),
        text("The file says hi."),
    )
    model = make(server, stream=stream)
    first = await model.complete(simple_request("read it"))
    assert first.stop_reason == "tool_use"
    assert first.text == "Let me look."
    assert first.tool_uses == (
        ToolUseBlock("toolu_a", "Read", args),
        ToolUseBlock("toolu_b", "Grep", {"pattern": "x"}),
    )
    second = await model.complete(tool_round_trip_request())
    assert second.text == "The file says hi."
    server.assert_complete()


async def test_streamed_tool_input_is_assembled_from_many_deltas(server: FakeLLMServer) -> None:
    content = "line\n" * 200
    server.add(tool_call("Write", {"file_path": "out.txt", "content": content}))
    reply = await make(server, stream=True).complete(simple_request())
    assert reply.tool_uses[0].input == {"file_path": "out.txt", "content": content}


async def test_streamed_malformed_tool_input_is_reported_not_swallowed(
    server: FakeLLMServer,
) -> None:
    server.add(raw_tool_call("Read", '{"file_path": "a.t', id="toolu_bad"))
    reply = await make(server, stream=True).complete(simple_request())
    (call,) = reply.tool_uses
    assert call.id == "toolu_bad"
    assert call.input == {} and call.raw_arguments == '{"file_path": "a.t'
    assert call.malformed is not None and "not valid JSON" in call.malformed


@STREAM
async def test_empty_content_reply(server: FakeLLMServer, stream: bool) -> None:
    from subagents.providers.base import ModelResponse

    server.add(ModelResponse(content=(), stop_reason="end_turn"))
    reply = await make(server, stream=stream).complete(simple_request())
    assert reply.content == ()
    assert reply.text == ""
    assert reply.stop_reason == "end_turn"


async def test_empty_message_in_history_is_sent_as_placeholder(server: FakeLLMServer) -> None:
    from subagents.providers.base import Message, ModelRequest

    server.add(text("ok"))
    request = ModelRequest(
        model="m", system="", messages=[Message.user("hi"), Message("assistant", ()),
                                        Message.user("again")],
    )
    await make(server).complete(request)
    body = server.requests[0].json
    assert "system" not in body
    assert body["messages"][1] == {
        "role": "assistant", "content": [{"type": "text", "text": "(no content)"}]
    }


@STREAM
async def test_500_then_200_is_retried(server: FakeLLMServer, stream: bool) -> None:
    waits: list[float] = []
    server.add(Fault.status(500, "boom"), Fault.status(529, "overloaded"), text("fine"))
    reply = await make(server, stream=stream, waits=waits).complete(simple_request())
    assert reply.text == "fine"
    assert len(server.requests) == 3
    assert len(waits) == 2
    assert waits[1] > waits[0] > 0  # exponential backoff


@STREAM
async def test_429_retry_after_is_honoured(server: FakeLLMServer, stream: bool) -> None:
    waits: list[float] = []
    server.add(Fault.rate_limit(retry_after=7), text("after the wait"))
    reply = await make(server, stream=stream, waits=waits).complete(simple_request())
    assert reply.text == "after the wait"
    assert waits == [7.0]


async def test_429_retries_are_bounded(server: FakeLLMServer) -> None:
    waits: list[float] = []
    server.add(*[Fault.rate_limit(retry_after=1)] * 5)
    with pytest.raises(ProviderResponseError) as info:
        await make(server, waits=waits, attempts=3).complete(simple_request())
    assert info.value.status == 429
    assert len(server.requests) == 3
    assert waits == [1.0, 1.0]
    assert "gave up after 3 attempts" in str(info.value)
    assert server.remaining == 2


async def test_429_with_a_very_long_retry_after_gives_up_at_once(server: FakeLLMServer) -> None:
    waits: list[float] = []
    server.add(Fault.rate_limit(retry_after=3600), text("never"))
    with pytest.raises(ProviderResponseError) as info:
        await make(server, waits=waits).complete(simple_request())
    assert waits == []
    assert len(server.requests) == 1
    assert "3600s" in str(info.value)


@STREAM
async def test_dropped_connection_is_retried(server: FakeLLMServer, stream: bool) -> None:
    server.add(Fault.drop(), Fault.cut(), text("third time lucky"))
    reply = await make(server, stream=stream).complete(simple_request())
    assert reply.text == "third time lucky"
    assert len(server.requests) == 3


@STREAM
async def test_connection_dropped_every_time(server: FakeLLMServer, stream: bool) -> None:
    server.add(Fault.drop(), Fault.cut(), Fault.drop())
    with pytest.raises(ProviderConnectionError) as info:
        await make(server, stream=stream, attempts=3).complete(simple_request())
    assert server.url in str(info.value)
    assert "ANTHROPIC_BASE_URL" in str(info.value)


async def test_unreachable_server(clean_env: None) -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    model = AnthropicModel(api_key=SECRET, base_url=url, retry=RetryPolicy.instant(2))
    with pytest.raises(ProviderConnectionError) as info:
        await model.complete(simple_request())
    assert f"{url}/v1/messages" in str(info.value)
    assert "gave up after 2 attempts" in str(info.value)


@STREAM
async def test_malformed_json_is_a_response_error_not_retried(
    server: FakeLLMServer, stream: bool
) -> None:
    server.add(Fault.malformed(), text("unused"))
    with pytest.raises(ProviderResponseError) as info:
        await make(server, stream=stream).complete(simple_request())
    assert "cannot be understood" in str(info.value)
    assert len(server.requests) == 1


async def test_400_carries_status_and_server_message(server: FakeLLMServer) -> None:
    server.add(Fault.status(400, "messages: roles must alternate"))
    with pytest.raises(ProviderResponseError) as info:
        await make(server).complete(simple_request())
    assert info.value.status == 400
    assert "roles must alternate" in str(info.value)
    assert len(server.requests) == 1  # a 400 is not retried


async def test_key_never_appears_in_errors_or_logs(
    server: FakeLLMServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    for noisy in ("anthropic", "httpx", "httpx2", "httpcore"):  # the SDK's own debug logs too
        caplog.set_level(logging.DEBUG, logger=noisy)
    server.add(
        Fault.status(500, f"internal error for key {SECRET}"),
        Fault.status(401, f"invalid x-api-key: {SECRET}"),
    )
    with pytest.raises(ProviderResponseError) as info:
        await make(server).complete(simple_request())
    error = info.value
    assert error.status == 401
    assert "ANTHROPIC_API_KEY" in str(error)
    for text_seen in (str(error), repr(error), error.message, str(error.hint), caplog.text):
        assert SECRET not in text_seen
    assert any("retry 1" in r.getMessage() for r in caplog.records)
    assert any(r.name.startswith("anthropic") for r in caplog.records)  # SDK logs were seen
    assert SECRET not in repr(make(server))


def test_missing_key_says_how_to_set_it(clean_env: None) -> None:
    with pytest.raises(MissingCredentialsError) as info:
        get_provider("anthropic")
    assert "export ANTHROPIC_API_KEY=" in str(info.value)


async def test_environment_key_and_base_url(
    server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.anthropic_base_url)
    server.add(text("from env"))
    model = get_provider("anthropic", retry=RetryPolicy.instant())
    assert (await model.complete(simple_request())).text == "from env"
    assert SECRET in " ".join(server.requests[0].headers.values())


async def test_auth_token_is_accepted(
    server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", SECRET)
    server.add(text("token ok"))
    model = AnthropicModel(base_url=server.url, retry=RetryPolicy.instant())
    assert (await model.complete(simple_request())).text == "token ok"
    assert server.requests[0].headers.get("authorization") == f"Bearer {SECRET}"


def test_a_model_serves_several_event_loops(server: FakeLLMServer) -> None:
    server.add(text("one"), text("two"))
    model = make(server)
    assert asyncio.run(model.complete(simple_request())).text == "one"
    assert asyncio.run(model.complete(simple_request())).text == "two"


async def test_stop_reasons_map(server: FakeLLMServer) -> None:
    from subagents.providers.base import ModelResponse, TextBlock

    server.add(ModelResponse(content=(TextBlock("cut"),), stop_reason="max_tokens"))
    reply = await make(server).complete(simple_request())
    assert reply.stop_reason == "max_tokens"


async def test_error_event_mid_stream(server: FakeLLMServer) -> None:
    server.add(Fault.stream_error("overloaded_error", "busy"), text("recovered"))
    model = make(server, stream=True)
    assert (await model.complete(simple_request())).text == "recovered"
    assert len(server.requests) == 2
    server.add(Fault.stream_error("invalid_request_error", "prompt is too long"), text("unused"))
    with pytest.raises(ProviderResponseError, match="mid-stream: prompt is too long"):
        await model.complete(simple_request())
    assert len(server.requests) == 3  # not retried: a retry would fail the same way


@pytest.mark.slow
@STREAM
async def test_timeout_is_retried_like_a_dropped_connection(
    server: FakeLLMServer, stream: bool
) -> None:
    server.add(Fault.hang(30), text("answered in time"))
    model = make(server, stream=stream)
    model.timeout = 0.5  # the client gives up long before the server would answer
    assert (await model.complete(simple_request())).text == "answered in time"
    assert len(server.requests) == 2


async def test_tool_results_go_before_text_in_a_user_message(server: FakeLLMServer) -> None:
    from subagents.providers.base import Message, ModelRequest, TextBlock, ToolResultBlock

    server.add(text("ok"))
    request = ModelRequest(model="m", system="s", messages=[
        Message.user("go"),
        Message("assistant", (ToolUseBlock("t1", "A", {}), ToolUseBlock("t2", "B", {}))),
        Message("user", (TextBlock("note: last turn"), ToolResultBlock("t1", "one"),
                         ToolResultBlock("t2", "two", is_error=True))),
    ])
    await make(server).complete(request)
    content = server.requests[0].json["messages"][2]["content"]
    assert [(b["type"], b.get("tool_use_id")) for b in content] == [
        ("tool_result", "t1"), ("tool_result", "t2"), ("text", None)]
