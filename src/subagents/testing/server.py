"""A scripted fake LLM server on 127.0.0.1, for testing through the real provider SDKs.

``respx`` does not intercept the current ``anthropic``/``openai`` SDKs, and mocking the SDKs
tests nothing of the wire.  This server speaks just enough of both APIs for the real SDKs to
talk to it, answers from a queue, and records every request::

    from subagents.testing import text, tool_call
    from subagents.testing.server import FakeLLMServer, Fault

    with FakeLLMServer() as server:
        server.add(Fault.status(500), tool_call("Read", {"file_path": "a.txt"}), text("done"))
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.anthropic_base_url)
        monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
        ...                                    # run an agent, or call a provider
        assert server.requests[1].json["system"] == "You are..."
        server.assert_complete()

Endpoints:

* ``POST /v1/messages`` — Anthropic Messages API: plain JSON, or with ``"stream": true`` the SSE
  events ``message_start``, ``content_block_start``, ``content_block_delta`` (``text_delta``,
  ``input_json_delta``), ``content_block_stop``, ``message_delta``, ``message_stop``.
* ``POST /v1/chat/completions`` — OpenAI chat completions: plain JSON, or ``data:`` chunks with
  content and ``tool_calls`` deltas, a usage chunk and ``data: [DONE]``.

Replies are provider-neutral: a :class:`~subagents.providers.base.ModelResponse` (build one with
``subagents.testing.text`` / ``tool_call`` / ``tool_calls``) is rendered in whichever API the
request used, so one script serves both providers.  :class:`Fault` scripts failures: an HTTP
error status (``Fault.status(500)``, ``Fault.rate_limit(retry_after=2)``), a dropped connection
(``Fault.drop()``), no answer until the client times out (``Fault.hang(30)``), an answer cut
off halfway (``Fault.cut()``), an error event inside a stream
(``Fault.stream_error("overloaded_error")``), a malformed JSON body (``Fault.malformed()``), or
any raw reply (``Fault.raw(...)``).  :func:`raw_tool_call` sends tool-call arguments verbatim
(to test a server that emits broken JSON arguments).  A callable ``(RecordedRequest) -> reply``
answers from what was asked.  With the queue empty the server answers ``default`` when one was
given, else 500 and says so.  ``POST /v1/messages/count_tokens`` is answered with a fixed count.

Spawn mode, for reading what a harness gives its subagents (``subagents.conformance`` runs the
real Claude Code against it)::

    FakeLLMServer(default=spawn_responder(["reviewer", "tester"]), record_to="requests.jsonl")

The main thread's first request (its conversation holds :data:`SPAWN_MAIN_MARKER` and no tool
result yet) is answered with one ``Agent`` tool call per name (``Task`` when the request offers
only that tool), each with the prompt ``SPAWN_SUB_MARKER + " name=<name>"``; every other request
gets plain text.  The recorded requests then show the model id, the tools and the system prompt
each subagent really got.

From a shell (for trying ``subagents run`` offline through the real SDKs)::

    python -m subagents.testing.server --script replies.json --record requests.jsonl
    # prints ANTHROPIC_BASE_URL=http://127.0.0.1:PORT and OPENAI_BASE_URL=.../v1, then serves

The script is the ``scripted`` provider's JSON format plus fault entries (see
:func:`script_replies`).

Design decisions: stdlib only (``http.server`` in a daemon thread; no aiohttp), bound to
127.0.0.1 on a free port; HTTP/1.0 so every response ends by closing the connection, which
keeps streaming simple (no chunked encoding) and makes a dropped connection easy to script.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

from subagents.providers.base import ModelResponse, TextBlock, ThinkingBlock, ToolUseBlock, Usage

__all__ = [
    "SPAWN_MAIN_MARKER",
    "SPAWN_SUB_MARKER",
    "FakeLLMServer",
    "Fault",
    "RawToolCall",
    "RecordedRequest",
    "main",
    "raw_tool_call",
    "script_replies",
    "spawn_responder",
]


@dataclass(frozen=True, slots=True)
class RecordedRequest:
    """One request the server received."""

    method: str
    path: str
    headers: Mapping[str, str]
    body: bytes
    json: Any  # the parsed body, or None when it was not JSON

    @property
    def api(self) -> str:
        """``anthropic``, ``openai`` or ``unknown``, from the path."""
        return _api_for(self.path)

    @property
    def stream(self) -> bool:
        return isinstance(self.json, dict) and bool(self.json.get("stream"))


@dataclass(frozen=True, slots=True)
class Fault:
    """A scripted failure.  Build one with the class methods."""

    kind: str  # "status" | "drop" | "hang" | "cut" | "stream_error" | "malformed" | "raw"
    code: int = 500
    message: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)
    body: bytes = b""
    error_type: str = ""

    @classmethod
    def status(
        cls, code: int = 500, message: str = "", headers: Mapping[str, str] | None = None
    ) -> Fault:
        """An API error status with the provider's error body shape."""
        return cls("status", code=code, message=message or f"scripted error {code}",
                   headers=dict(headers or {}))

    @classmethod
    def rate_limit(cls, retry_after: float | None = 1.0, message: str = "rate limited") -> Fault:
        """429, with a ``retry-after`` header (seconds) unless ``retry_after`` is None."""
        headers = {} if retry_after is None else {"retry-after": f"{retry_after:g}"}
        return cls("status", code=429, message=message, headers=headers)

    @classmethod
    def drop(cls) -> Fault:
        """Read the request, then close the connection without answering."""
        return cls("drop")

    @classmethod
    def hang(cls, seconds: float = 30.0) -> Fault:
        """Read the request, answer nothing for ``seconds`` (or until the server stops), close.

        For client timeouts: give the provider a ``timeout`` shorter than ``seconds``.
        """
        return cls("hang", code=0, message=f"{seconds:g}")

    @classmethod
    def cut(cls) -> Fault:
        """Start a 200 answer, then close the connection halfway through (mid-stream drop)."""
        return cls("cut", code=200)

    @classmethod
    def stream_error(cls, error_type: str = "overloaded_error", message: str = "") -> Fault:
        """A 200 stream that carries an error event (for a plain request: that status)."""
        return cls("stream_error", code=529 if error_type == "overloaded_error" else 500,
                   message=message or error_type, error_type=error_type)

    @classmethod
    def malformed(cls) -> Fault:
        """200 with ``content-type: application/json`` (or an SSE event) that is not JSON."""
        return cls("malformed", code=200)

    @classmethod
    def raw(
        cls, status: int, body: bytes | str, headers: Mapping[str, str] | None = None
    ) -> Fault:
        """Exactly this status, body and headers."""
        data = body.encode() if isinstance(body, str) else body
        return cls("raw", code=status, body=data, headers=dict(headers or {}))


@dataclass(frozen=True, slots=True)
class RawToolCall:
    """A tool call whose arguments are sent verbatim (they may be broken JSON)."""

    name: str
    arguments: str
    id: str
    say: str = ""


def raw_tool_call(
    name: str, arguments: str, *, id: str = "call_raw_1", say: str = ""
) -> RawToolCall:
    """A tool call whose ``arguments`` text is sent as is (e.g. broken JSON)."""
    return RawToolCall(name, arguments, id, say)


ServerReply = ModelResponse | Fault | RawToolCall | Callable[[RecordedRequest], Any]

_ids = itertools.count(1)


def _api_for(path: str) -> str:
    clean = path.split("?", 1)[0].rstrip("/")
    if clean.endswith("/messages/count_tokens"):
        return "anthropic-count"
    if clean.endswith("/messages"):
        return "anthropic"
    if clean.endswith("/chat/completions"):
        return "openai"
    return "unknown"


# --- rendering: one neutral reply -> the API's wire form ----------------------------------------

_ANTHROPIC_STOP = {"end_turn", "tool_use", "max_tokens", "stop_sequence", "refusal"}
_OPENAI_FINISH = {"end_turn": "stop", "tool_use": "tool_calls", "max_tokens": "length",
                  "stop_sequence": "stop", "refusal": "content_filter", "error": "stop"}


def _blocks(reply: ModelResponse | RawToolCall) -> list[tuple[str, Any]]:
    """Neutral blocks as ("text", str) / ("tool", (id, name, arguments_json_text)) /
    ("thinking", (text, signature)) (Anthropic only; the OpenAI forms skip it)."""
    if isinstance(reply, RawToolCall):
        out: list[tuple[str, Any]] = [("text", reply.say)] if reply.say else []
        return [*out, ("tool", (reply.id, reply.name, reply.arguments))]
    blocks: list[tuple[str, Any]] = []
    for block in reply.content:
        if isinstance(block, TextBlock):
            blocks.append(("text", block.text))
        elif isinstance(block, ThinkingBlock):
            blocks.append(("thinking", (block.thinking, block.signature)))
        elif isinstance(block, ToolUseBlock):
            blocks.append(("tool", (block.id, block.name, block.wire_arguments)))
    return blocks


def _meta(reply: ModelResponse | RawToolCall, model: str) -> tuple[str, Usage, str]:
    if isinstance(reply, RawToolCall):
        return "tool_use", Usage(10, 5), model
    return reply.stop_reason, reply.usage, reply.model or model


def _anthropic_json(reply: ModelResponse | RawToolCall, model: str) -> dict[str, Any]:
    stop, usage, model_id = _meta(reply, model)
    content: list[dict[str, Any]] = []
    for kind, value in _blocks(reply):
        if kind == "text":
            content.append({"type": "text", "text": value})
        elif kind == "thinking":
            content.append({"type": "thinking", "thinking": value[0], "signature": value[1]})
        else:
            call_id, name, args = value
            try:
                parsed = json.loads(args)
            except ValueError:
                parsed = {"_raw": args}  # the Messages API always sends an object here
            content.append({"type": "tool_use", "id": call_id, "name": name, "input": parsed})
    return {
        "id": f"msg_fake_{next(_ids)}", "type": "message", "role": "assistant", "model": model_id,
        "content": content, "stop_reason": stop if stop in _ANTHROPIC_STOP else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens},
    }


def _pieces(text: str, size: int = 7) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def _anthropic_events(reply: ModelResponse | RawToolCall, model: str) -> Iterator[bytes]:
    message = _anthropic_json(reply, model)
    usage = message["usage"]

    def event(name: str, data: Mapping[str, Any]) -> bytes:
        return f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()

    start = dict(message, content=[], stop_reason=None,
                 usage={"input_tokens": usage["input_tokens"], "output_tokens": 1})
    yield event("message_start", {"type": "message_start", "message": start})
    yield event("ping", {"type": "ping"})
    for index, (kind, value) in enumerate(_blocks(reply)):
        if kind == "text":
            block: dict[str, Any] = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": p} for p in _pieces(value)]
        elif kind == "thinking":
            block = {"type": "thinking", "thinking": "", "signature": ""}
            deltas = [*({"type": "thinking_delta", "thinking": p} for p in _pieces(value[0])),
                      {"type": "signature_delta", "signature": value[1]}]
        else:
            call_id, name, args = value
            block = {"type": "tool_use", "id": call_id, "name": name, "input": {}}
            deltas = [{"type": "input_json_delta", "partial_json": p} for p in _pieces(args)]
        yield event("content_block_start",
                    {"type": "content_block_start", "index": index, "content_block": block})
        for delta in deltas:
            yield event("content_block_delta",
                        {"type": "content_block_delta", "index": index, "delta": delta})
        yield event("content_block_stop", {"type": "content_block_stop", "index": index})
    yield event("message_delta", {
        "type": "message_delta",
        "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
        "usage": {"output_tokens": usage["output_tokens"]},
    })
    yield event("message_stop", {"type": "message_stop"})


def _openai_json(reply: ModelResponse | RawToolCall, model: str) -> dict[str, Any]:
    stop, usage, model_id = _meta(reply, model)
    texts = [v for k, v in _blocks(reply) if k == "text"]
    calls = [
        {"id": cid, "type": "function", "function": {"name": name, "arguments": args}}
        for k, (cid, name, args) in ((k, v) for k, v in _blocks(reply) if k == "tool")
    ]
    message: dict[str, Any] = {"role": "assistant", "content": "".join(texts) if texts else None}
    if calls:
        message["tool_calls"] = calls
    return {
        "id": f"chatcmpl-fake-{next(_ids)}", "object": "chat.completion",
        "created": int(time.time()), "model": model_id,
        "choices": [{"index": 0, "message": message,
                     "finish_reason": "tool_calls" if calls else _OPENAI_FINISH.get(stop, "stop")}],
        "usage": {"prompt_tokens": usage.input_tokens, "completion_tokens": usage.output_tokens,
                  "total_tokens": usage.total_tokens},
    }


def _openai_chunks(reply: ModelResponse | RawToolCall, model: str) -> Iterator[bytes]:
    whole = _openai_json(reply, model)
    base = {"id": whole["id"], "object": "chat.completion.chunk", "created": whole["created"],
            "model": whole["model"]}

    def chunk(delta: Mapping[str, Any], finish: str | None = None) -> bytes:
        data = dict(base, choices=[{"index": 0, "delta": delta, "finish_reason": finish}])
        return f"data: {json.dumps(data)}\n\n".encode()

    yield chunk({"role": "assistant", "content": ""})
    message = whole["choices"][0]["message"]
    for piece in _pieces(message["content"] or ""):
        if piece:
            yield chunk({"content": piece})
    for index, call in enumerate(message.get("tool_calls", [])):
        fn = call["function"]
        yield chunk({"tool_calls": [{"index": index, "id": call["id"], "type": "function",
                                     "function": {"name": fn["name"], "arguments": ""}}]})
        for piece in _pieces(fn["arguments"]):
            yield chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
    yield chunk({}, whole["choices"][0]["finish_reason"])
    usage_chunk = dict(base, choices=[], usage=whole["usage"])
    yield f"data: {json.dumps(usage_chunk)}\n\n".encode()
    yield b"data: [DONE]\n\n"


def _error_body(api: str, status: int, message: str) -> bytes:
    if api == "anthropic":
        kind = {400: "invalid_request_error", 401: "authentication_error",
                403: "permission_error", 404: "not_found_error", 429: "rate_limit_error",
                529: "overloaded_error"}.get(status, "api_error")
        return json.dumps({"type": "error", "error": {"type": kind, "message": message}}).encode()
    return json.dumps({"error": {"message": message, "type": "error", "code": status}}).encode()


# --- the server ------------------------------------------------------------------------------


class FakeLLMServer:
    """A scripted Anthropic/OpenAI-compatible HTTP server on 127.0.0.1 (see module docstring)."""

    def __init__(
        self,
        replies: list[ServerReply] | None = None,
        *,
        model: str = "fake-model",
        record_to: str | None = None,
        default: ServerReply | None = None,
    ) -> None:
        self.record_to = record_to  # also append each request as a JSON line to this file
        self.default = default  # the answer once the queue is empty (None: a 500 error)
        self._queue: deque[ServerReply] = deque(replies or ())
        self._lock = threading.Lock()
        self.requests: list[RecordedRequest] = []
        self.model = model
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()  # wakes hanging handlers at stop()

    # lifecycle
    def start(self, *, port: int = 0) -> FakeLLMServer:
        if self._httpd is None:
            self._stopping.clear()
            self._httpd = ThreadingHTTPServer(("127.0.0.1", port), _make_handler(self))
            self._httpd.daemon_threads = True
            # a short poll interval keeps stop() (and so each test's teardown) quick
            self._thread = threading.Thread(
                target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02},
                name="fake-llm-server", daemon=True,
            )
            self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> FakeLLMServer:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # addresses
    @property
    def url(self) -> str:
        if self._httpd is None:
            raise RuntimeError("FakeLLMServer is not started; use it as a context manager")
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def anthropic_base_url(self) -> str:
        """For ``ANTHROPIC_BASE_URL`` (the SDK appends ``/v1/messages``)."""
        return self.url

    @property
    def openai_base_url(self) -> str:
        """For ``OPENAI_BASE_URL`` (the SDK appends ``/chat/completions``)."""
        return self.url + "/v1"

    # script
    def add(self, *replies: ServerReply) -> None:
        with self._lock:
            self._queue.extend(replies)

    @property
    def remaining(self) -> int:
        with self._lock:
            return len(self._queue)

    def assert_complete(self) -> None:
        """Fail if some scripted replies were never asked for."""
        if self.remaining:
            raise AssertionError(f"{self.remaining} scripted replies were not used")

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self._record_locked(request)

    def _record_locked(self, request: RecordedRequest) -> None:
        self.requests.append(request)
        if self.record_to:
            line = {"method": request.method, "path": request.path, "json": request.json}
            with open(self.record_to, "a", encoding="utf-8") as out:
                out.write(json.dumps(line) + "\n")

    def _next(self, request: RecordedRequest) -> ServerReply | None:
        with self._lock:
            self._record_locked(request)
            return self._queue.popleft() if self._queue else self.default


def _make_handler(server: FakeLLMServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"  # close after each response: see module docstring
        server_version = "FakeLLM/1"

        def log_message(self, format: str, *args: Any) -> None:
            pass  # keep test output clean

        def do_GET(self) -> None:
            self._send(404, b'{"error": {"message": "not found"}}')

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length) if length else b""
            try:
                parsed: Any = json.loads(body) if body else None
            except ValueError:
                parsed = None
            request = RecordedRequest(
                "POST", self.path, {k.lower(): v for k, v in self.headers.items()}, body, parsed
            )
            api = request.api
            if api == "anthropic-count":
                server._record(request)
                self._send(200, b'{"input_tokens": 10}')
                return
            if api == "unknown":
                self._send(404, _error_body("openai", 404, f"no endpoint {self.path}"))
                return
            reply = server._next(request)
            if callable(reply) and not isinstance(reply, (ModelResponse, Fault, RawToolCall)):
                reply = reply(request)
            if reply is None:
                message = f"fake server: no scripted reply left for request {len(server.requests)}"
                self._send(500, _error_body(api, 500, message))
            elif isinstance(reply, Fault):
                self._fault(reply, api, request.stream)
            elif isinstance(reply, (ModelResponse, RawToolCall)):
                model = str((parsed or {}).get("model") or server.model)
                self._answer(reply, api, request.stream, model)
            else:
                raise TypeError(f"unsupported scripted reply {reply!r}")

        def _send(self, status: int, body: bytes, headers: Mapping[str, str] | None = None,
                  content_type: str = "application/json") -> None:
            self.send_response(status)
            self.send_header("content-type", content_type)
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _stream(self, events: Iterator[bytes]) -> None:
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("cache-control", "no-cache")
            self.end_headers()
            for data in events:
                self.wfile.write(data)
                self.wfile.flush()

        def _answer(self, reply: ModelResponse | RawToolCall, api: str, stream: bool,
                    model: str) -> None:
            if api == "anthropic":
                if stream:
                    self._stream(_anthropic_events(reply, model))
                else:
                    self._send(200, json.dumps(_anthropic_json(reply, model)).encode())
            elif stream:
                self._stream(_openai_chunks(reply, model))
            else:
                self._send(200, json.dumps(_openai_json(reply, model)).encode())

        def _stream_error(self, fault: Fault, api: str, stream: bool) -> None:
            kind = fault.error_type or "api_error"
            if not stream:
                self._send(fault.code, _error_body(api, fault.code, fault.message))
                return
            error = {"type": kind, "message": fault.message}
            if api == "anthropic":
                reply = ModelResponse(content=(TextBlock("partial"),))
                start = next(_anthropic_events(reply, server.model))
                tail = f"event: error\ndata: {json.dumps({'type': 'error', 'error': error})}\n\n"
                self._stream(iter([start, tail.encode()]))
            else:
                self._stream(iter([f"data: {json.dumps({'error': error})}\n\n".encode()]))

        def _cut(self, api: str, stream: bool) -> None:
            reply = ModelResponse(content=(TextBlock("this answer never finishes"),))
            if stream:
                events = (_anthropic_events if api == "anthropic" else _openai_chunks)(
                    reply, server.model
                )
                self._stream(itertools.islice(events, 3))
            else:
                body = json.dumps((_anthropic_json if api == "anthropic" else _openai_json)(
                    reply, server.model)).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body[: len(body) // 2])
            self.close_connection = True

        def _fault(self, fault: Fault, api: str, stream: bool) -> None:
            if fault.kind == "drop":
                self.close_connection = True  # the handler returns without a status line
            elif fault.kind == "hang":
                server._stopping.wait(float(fault.message))
                self.close_connection = True
            elif fault.kind == "status":
                self._send(fault.code, _error_body(api, fault.code, fault.message), fault.headers)
            elif fault.kind == "cut":
                self._cut(api, stream)
            elif fault.kind == "stream_error":
                self._stream_error(fault, api, stream)
            elif fault.kind == "raw":
                self._send(fault.code, fault.body, fault.headers,
                           fault.headers.get("content-type", "application/json"))
            elif stream:  # malformed, streaming: a data line that is not JSON
                prefix = b"event: message_start\n" if api == "anthropic" else b""
                self._stream(iter([prefix + b'data: {"type": "message_start", "mess\n\n']))
            else:
                self._send(200, b'{"id": "broken", "content": [ {"type": "te')

    return Handler


# --- spawn mode --------------------------------------------------------------------------------

SPAWN_MAIN_MARKER = "SPAWN-MAIN"
SPAWN_SUB_MARKER = "SPAWN-SUB"


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts: list[str] = []
    for block in content if isinstance(content, list) else []:
        if isinstance(block, dict) and block.get("type") == "text":
            parts.append(str(block.get("text", "")))
        elif isinstance(block, dict) and block.get("type") == "tool_result":
            parts.append(_content_text(block.get("content")))
    return "\n".join(parts)


def _has_tool_result(messages: list[Any]) -> bool:
    return any(
        isinstance(m, dict) and isinstance(m.get("content"), list)
        and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in m["content"])
        for m in messages
    )


def spawn_responder(
    names: list[str], *, reply: str = "ok"
) -> Callable[[RecordedRequest], ModelResponse]:
    """A reply function: spawn one subagent per name from the main thread, else say ``reply``."""
    counter = itertools.count(1)
    lock = threading.Lock()

    def answer(request: RecordedRequest) -> ModelResponse:
        body = request.json if isinstance(request.json, dict) else {}
        raw_messages = body.get("messages")
        messages: list[Any] = raw_messages if isinstance(raw_messages, list) else []
        text = "\n".join(_content_text(m.get("content")) for m in messages if isinstance(m, dict))
        offered = [t.get("name") for t in body.get("tools") or [] if isinstance(t, dict)]
        if (names and SPAWN_MAIN_MARKER in text and SPAWN_SUB_MARKER not in text
                and not _has_tool_result(messages)):
            tool = "Task" if "Task" in offered and "Agent" not in offered else "Agent"
            calls: list[TextBlock | ToolUseBlock] = []
            for name in names:
                with lock:
                    number = next(counter)
                calls.append(ToolUseBlock(
                    id=f"toolu_spawn_{number:04d}", name=tool,
                    input={"subagent_type": name, "description": "spawn probe",
                           "prompt": f"{SPAWN_SUB_MARKER} name={name}",
                           "run_in_background": False},
                ))
            return ModelResponse(content=tuple(calls), stop_reason="tool_use")
        return ModelResponse(content=(TextBlock(reply),))

    return answer


# --- standalone: python -m subagents.testing.server --script replies.json --------------------

_FAULTS: dict[str, Callable[[Mapping[str, Any]], Fault]] = {
    "drop": lambda e: Fault.drop(),
    "cut": lambda e: Fault.cut(),
    "malformed": lambda e: Fault.malformed(),
    "rate_limit": lambda e: Fault.rate_limit(float(e.get("retry_after", 1))),
    "stream_error": lambda e: Fault.stream_error(str(e.get("type", "overloaded_error"))),
    # no answer for a while: for trying Ctrl-C and client timeouts from a shell
    "hang": lambda e: Fault.hang(float(e.get("seconds", 30))),
}


def script_replies(data: Any, *, source: str = "script") -> list[ServerReply]:
    """A JSON script (the ``scripted`` provider's format) -> server replies.

    Besides model replies, an entry may be a fault: ``{"fault": 500}`` (any status, optional
    ``"message"``), ``{"fault": "rate_limit", "retry_after": 2}``, ``{"fault": "drop"}``,
    ``"cut"``, ``"malformed"``, ``"stream_error"`` or ``{"fault": "hang", "seconds": 30}``.
    The scripted provider's ``error`` entries become the matching fault (``connection`` ->
    drop, ``response`` -> 500, ``credentials`` -> 401).
    """
    from subagents.errors import MissingCredentialsError, ProviderConnectionError
    from subagents.providers.scripted import parse_script

    entries = data.get("replies") if isinstance(data, Mapping) else data
    if not isinstance(entries, list):
        parse_script(data, source=source)  # raises the usual UsageError for a non-list
        return []
    # Parse the model replies together (tool-call ids follow the reply's position, as in the
    # scripted provider), with a placeholder where each fault goes.
    faults: dict[int, Fault] = {}
    plain: list[Any] = []
    for index, entry in enumerate(entries):
        if isinstance(entry, Mapping) and "fault" in entry:
            faults[index] = _fault_entry(entry, source, index)
            plain.append("")
        else:
            plain.append(entry)
    replies: list[ServerReply] = []
    for index, reply in enumerate(parse_script(plain, source=source)):
        if index in faults:
            replies.append(faults[index])
        elif isinstance(reply, ProviderConnectionError):
            replies.append(Fault.drop())
        elif isinstance(reply, MissingCredentialsError):
            replies.append(Fault.status(401, str(reply)))
        elif isinstance(reply, BaseException):
            replies.append(Fault.status(500, str(reply)))
        elif isinstance(reply, ModelResponse):
            replies.append(reply)
    return replies


def _fault_entry(entry: Mapping[str, Any], source: str, index: int) -> Fault:
    from subagents.errors import UsageError

    fault = entry["fault"]
    if isinstance(fault, int) and not isinstance(fault, bool):
        return Fault.status(fault, str(entry.get("message") or ""))
    if isinstance(fault, str) and fault in _FAULTS:
        return _FAULTS[fault](entry)
    raise UsageError(
        f"bad script ({source}, reply {index + 1}): unknown fault {fault!r}",
        hint="a fault is an HTTP status or one of " + ", ".join(sorted(_FAULTS)),
    )


def main(argv: list[str] | None = None) -> int:
    """Serve a script until interrupted; print the base URLs to use first."""
    import argparse
    import signal
    import sys

    from subagents.errors import SubagentError

    parser = argparse.ArgumentParser(
        prog="python -m subagents.testing.server",
        description="A scripted fake Anthropic/OpenAI server on 127.0.0.1 for offline runs.",
    )
    parser.add_argument("--script", required=True, help="JSON list of replies (see docstring)")
    parser.add_argument("--port", type=int, default=0, help="port (default: any free port)")
    parser.add_argument("--record", help="append each request as a JSON line to this file")
    args = parser.parse_args(argv)
    try:
        with open(args.script, encoding="utf-8") as handle:
            replies = script_replies(json.load(handle), source=args.script)
    except (OSError, ValueError, SubagentError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    server = FakeLLMServer(replies, record_to=args.record)
    server.start(port=args.port)
    print(f"ANTHROPIC_BASE_URL={server.anthropic_base_url}", flush=True)
    print(f"OPENAI_BASE_URL={server.openai_base_url}", flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        stop.wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


if __name__ == "__main__":  # pragma: no cover - exercised through a subprocess test
    raise SystemExit(main())
