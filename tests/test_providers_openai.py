"""The openai provider, through the real ``openai`` SDK, against the loopback server."""

from __future__ import annotations

import json
import logging

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
from subagents.providers import (
    RetryPolicy,
    get_provider,
)
from subagents.providers.base import (
    Message,
    ModelRequest,
    ModelResponse,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
)
from subagents.providers.openai import OpenAIModel
from subagents.testing import text, tool_call, tool_calls
from subagents.testing.server import FakeLLMServer, Fault, raw_tool_call

STREAM = pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])


def make(
    server: FakeLLMServer, *, stream: bool = False, waits: list[float] | None = None,
    attempts: int = 4,
) -> OpenAIModel:
    return OpenAIModel(
        api_key=SECRET,
        base_url=server.openai_base_url,
        stream=stream,
        retry=RetryPolicy.instant(attempts, record=waits),
    )


@STREAM
async def test_text_reply(server: FakeLLMServer, stream: bool) -> None:
    server.add(text("Hello there, how are you today?", usage=Usage(12, 7)))
    reply = await make(server, stream=stream).complete(simple_request())
    assert reply.text == "Hello there, how are you today?"
    assert reply.stop_reason == "end_turn"
    assert reply.usage == Usage(12, 7)  # in streaming mode: from the include_usage chunk
    assert reply.model == "claude-test"
    sent = server.requests[0]
    assert sent.path == "/v1/chat/completions"
    assert sent.stream is stream
    if stream:
        assert sent.json["stream_options"] == {"include_usage": True}


@STREAM
async def test_request_translation(server: FakeLLMServer, stream: bool) -> None:
    server.add(text("ok"))
    await make(server, stream=stream).complete(tool_round_trip_request())
    body = server.requests[0].json
    assert body["model"] == "claude-test"
    assert body["max_tokens"] == 321  # a compatible server: max_tokens
    assert body["tools"] == [{
        "type": "function",
        "function": {"name": "Read", "description": READ_TOOL.description,
                     "parameters": dict(READ_TOOL.input_schema)},
    }]
    assert body["messages"] == [
        {"role": "system", "content": "You read files."},
        {"role": "user", "content": "read a.txt"},
        {"role": "assistant", "content": "Reading.", "tool_calls": [
            {"id": "toolu_1", "type": "function",
             "function": {"name": "Read", "arguments": '{"file_path": "a.txt"}'}},
        ]},
        {"role": "tool", "tool_call_id": "toolu_1", "content": "Error: file not found: a.txt"},
    ]
    assert server.requests[0].headers["authorization"] == f"Bearer {SECRET}"


async def test_tool_results_come_before_user_text_and_keep_order(server: FakeLLMServer) -> None:
    server.add(text("ok"))
    request = ModelRequest(model="m", system="", messages=[
        Message.user("go"),
        Message("assistant", (ToolUseBlock("c1", "A", {}), ToolUseBlock("c2", "B", {"x": 1}))),
        Message("user", (ToolResultBlock("c1", "one"), ToolResultBlock("c2", "two"),
                         TextBlock("and also this"))),
    ])
    await make(server).complete(request)
    messages = server.requests[0].json["messages"]
    assert messages[0] == {"role": "user", "content": "go"}  # no system message when empty
    assert messages[1]["content"] is None
    assert [c["function"]["arguments"] for c in messages[1]["tool_calls"]] == ["{}", '{"x": 1}']
    assert messages[2:] == [
        {"role": "tool", "tool_call_id": "c1", "content": "one"},
        {"role": "tool", "tool_call_id": "c2", "content": "two"},
        {"role": "user", "content": "and also this"},
    ]


def test_official_api_gets_max_completion_tokens(clean_env: None) -> None:
    from subagents.providers.openai import to_openai_params

    model = OpenAIModel(api_key=SECRET)
    assert model.max_tokens_param == "max_completion_tokens"
    params = to_openai_params(simple_request(), max_tokens_param=model.max_tokens_param)
    assert params["max_completion_tokens"] == 8192 and "max_tokens" not in params


@STREAM
async def test_tool_use_round_trip(server: FakeLLMServer, stream: bool) -> None:
    args = {"file_path": "docs/a long name.txt", "nested": {"l": [1, {"q": "\"ü\""}]}}
    server.add(
        tool_calls([("Read", args), ("Grep", {"pattern": "x"})], ids=["call_a", "call_b"],
                   say="Let me look."),
        text("done"),
    )
    model = make(server, stream=stream)
    first = await model.complete(simple_request())
    assert first.stop_reason == "tool_use"
    assert first.text == "Let me look."
    assert first.tool_uses == (
        ToolUseBlock("call_a", "Read", args),
        ToolUseBlock("call_b", "Grep", {"pattern": "x"}),
    )
    history = [Message.user("hi"), first.as_message(),
               Message("user", (ToolResultBlock("call_a", "content"),
                                ToolResultBlock("call_b", "no match", is_error=True)))]
    second = await model.complete(ModelRequest(model="m", system="s", messages=history))
    assert second.text == "done"
    sent = server.requests[1].json["messages"]
    assert json.loads(sent[2]["tool_calls"][0]["function"]["arguments"]) == args
    assert sent[4] == {"role": "tool", "tool_call_id": "call_b", "content": "Error: no match"}


async def test_streamed_tool_arguments_are_assembled(server: FakeLLMServer) -> None:
    content = "def f():\n    return 1\n" * 50
    server.add(tool_call("Write", {"file_path": "f.py", "content": content}, id="call_w"))
    reply = await make(server, stream=True).complete(simple_request())
    assert reply.tool_uses == (
        ToolUseBlock("call_w", "Write", {"file_path": "f.py", "content": content}),
    )


@STREAM
@pytest.mark.parametrize(
    ("raw", "reason"),
    [('{"file_path": "a.t', "not valid JSON"), ('["a.txt"]', "a JSON list, not an object")],
)
async def test_malformed_arguments_become_data_not_a_crash(
    server: FakeLLMServer, stream: bool, raw: str, reason: str
) -> None:
    server.add(raw_tool_call("Read", raw, id="call_bad"), text("sorry"))
    model = make(server, stream=stream)
    reply = await model.complete(simple_request())
    (call,) = reply.tool_uses
    assert call.id == "call_bad" and call.name == "Read"
    assert call.input == {} and call.raw_arguments == raw
    message = call.malformed
    assert message is not None and reason in message and raw in message
    # sent back verbatim, so the model sees what it said
    history = [Message.user("hi"), reply.as_message(),
               Message("user", (ToolResultBlock("call_bad", message, is_error=True),))]
    await model.complete(ModelRequest(model="m", system="", messages=history))
    sent = server.requests[1].json["messages"][1]["tool_calls"][0]["function"]["arguments"]
    assert sent == raw


async def test_empty_arguments_mean_no_arguments(server: FakeLLMServer) -> None:
    server.add(raw_tool_call("TodoRead", "", id="call_e"))
    reply = await make(server).complete(simple_request())
    assert reply.tool_uses[0].input == {}


async def test_missing_tool_call_id_is_generated(server: FakeLLMServer) -> None:
    body = {"id": "x", "object": "chat.completion", "created": 1, "model": "m",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {
                "role": "assistant", "content": None,
                "tool_calls": [{"id": "", "type": "function",
                                "function": {"name": "LS", "arguments": "{}"}}]}}]}
    server.add(Fault.raw(200, json.dumps(body)))
    reply = await make(server).complete(simple_request())
    (call,) = reply.tool_uses
    assert call.id.startswith("call_") and call.name == "LS"
    assert reply.stop_reason == "tool_use"  # tool calls win over a "stop" finish reason
    assert reply.usage == Usage(0, 0)  # no usage block: zero, not a crash


@STREAM
async def test_empty_content_reply(server: FakeLLMServer, stream: bool) -> None:
    server.add(ModelResponse(content=()))
    reply = await make(server, stream=stream).complete(simple_request())
    assert reply.content == () and reply.stop_reason == "end_turn"


async def test_empty_assistant_message_in_history(server: FakeLLMServer) -> None:
    server.add(text("ok"))
    request = ModelRequest(model="m", system="", messages=[
        Message.user("hi"), Message("assistant", ()), Message.user("again")])
    await make(server).complete(request)
    assert server.requests[0].json["messages"][1] == {"role": "assistant", "content": ""}


async def test_no_choices_is_a_response_error(server: FakeLLMServer) -> None:
    server.add(Fault.raw(200, '{"id": "x", "object": "chat.completion", "choices": []}'))
    with pytest.raises(ProviderResponseError, match="no choices"):
        await make(server).complete(simple_request())


@STREAM
async def test_500_then_200_is_retried(server: FakeLLMServer, stream: bool) -> None:
    waits: list[float] = []
    server.add(Fault.status(500), Fault.status(503), text("fine"))
    reply = await make(server, stream=stream, waits=waits).complete(simple_request())
    assert reply.text == "fine"
    assert len(server.requests) == 3 and len(waits) == 2


@STREAM
async def test_429_retry_after_is_honoured(server: FakeLLMServer, stream: bool) -> None:
    waits: list[float] = []
    server.add(Fault.rate_limit(retry_after=2.5), text("ok"))
    assert (await make(server, stream=stream, waits=waits).complete(simple_request())).text == "ok"
    assert waits == [2.5]


async def test_429_retries_are_bounded(server: FakeLLMServer) -> None:
    server.add(*[Fault.rate_limit(retry_after=1)] * 4)
    with pytest.raises(ProviderResponseError) as info:
        await make(server, attempts=2).complete(simple_request())
    assert info.value.status == 429 and len(server.requests) == 2


@STREAM
async def test_dropped_connection_is_retried(server: FakeLLMServer, stream: bool) -> None:
    server.add(Fault.drop(), Fault.cut(), text("ok"))
    reply = await make(server, stream=stream).complete(simple_request())
    assert reply.text == "ok" and len(server.requests) == 3


@STREAM
async def test_connection_dropped_every_time(server: FakeLLMServer, stream: bool) -> None:
    server.add(*[Fault.drop()] * 3)
    with pytest.raises(ProviderConnectionError) as info:
        await make(server, stream=stream, attempts=3).complete(simple_request())
    assert f"{server.openai_base_url}/chat/completions" in str(info.value)
    assert "OPENAI_BASE_URL" in str(info.value)


@STREAM
async def test_malformed_json(server: FakeLLMServer, stream: bool) -> None:
    server.add(Fault.malformed(), text("unused"))
    with pytest.raises(ProviderResponseError, match="cannot be understood"):
        await make(server, stream=stream).complete(simple_request())
    assert len(server.requests) == 1


async def test_html_instead_of_json(server: FakeLLMServer) -> None:
    server.add(Fault.raw(200, "<html>login</html>", {"content-type": "text/html"}))
    with pytest.raises(ProviderResponseError):
        await make(server).complete(simple_request())


async def test_404_hints_at_the_model(server: FakeLLMServer) -> None:
    server.add(Fault.status(404, "model 'claude-test' not found, try pulling it first"))
    with pytest.raises(ProviderResponseError) as info:
        await make(server).complete(simple_request())
    assert info.value.status == 404
    assert "try pulling it first" in str(info.value)
    assert "model-aliases" in str(info.value)


async def test_key_never_appears_in_errors_or_logs(
    server: FakeLLMServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    for noisy in ("openai", "httpx", "httpx2", "httpcore"):  # the SDK's own debug logs too
        caplog.set_level(logging.DEBUG, logger=noisy)
    server.add(Fault.status(502, f"bad gateway {SECRET}"),
               Fault.status(401, f"Incorrect API key provided: {SECRET}"))
    with pytest.raises(ProviderResponseError) as info:
        await make(server).complete(simple_request())
    assert "OPENAI_API_KEY" in str(info.value)
    assert any(r.name.startswith("openai") for r in caplog.records)  # SDK logs were seen
    for seen in (str(info.value), repr(info.value), caplog.text, repr(make(server))):
        assert SECRET not in seen


def test_missing_key_explains_local_servers(clean_env: None) -> None:
    with pytest.raises(MissingCredentialsError) as info:
        get_provider("openai")
    message = str(info.value)
    assert "OPENAI_API_KEY" in message
    assert "any non-empty" in message and "Ollama" in message


async def test_environment_key_and_base_url(
    server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "local")
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
    server.add(text("from env"))
    model = get_provider("openai", retry=RetryPolicy.instant())
    assert (await model.complete(simple_request())).text == "from env"


def test_bad_max_tokens_param(clean_env: None) -> None:
    from subagents.errors import UsageError

    with pytest.raises(UsageError):
        OpenAIModel(api_key="x", max_tokens_param="tokens")


async def test_finish_reasons(server: FakeLLMServer) -> None:
    server.add(ModelResponse(content=(TextBlock("cut"),), stop_reason="max_tokens"),
               ModelResponse(content=(TextBlock("no"),), stop_reason="refusal"))
    model = make(server)
    assert (await model.complete(simple_request())).stop_reason == "max_tokens"
    assert (await model.complete(simple_request())).stop_reason == "refusal"


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
