"""A loopback fake model API for the other harnesses' CLIs: logs every request, answers briefly.

It speaks just enough of four wire formats for a coding-agent CLI to finish a turn:

- OpenAI chat completions (``.../chat/completions``, streamed or not): Copilot CLI, OpenCode,
  Qwen Code;
- the OpenAI Responses API (``.../responses``, server-sent events): Codex;
- Gemini ``generateContent`` / ``streamGenerateContent``: Gemini CLI;
- ``GET .../models`` (a small model list) and Gemini ``countTokens``.

Every request is appended to a JSON-lines log as ``{"method", "path", "body"}`` before it is
answered, so the log shows what the CLI sent even when the reply is not what it wanted.

A *scripted tool call* (``toolcall={"name": ..., "arguments": {...}, "namespace": ...}``) makes
the first request that offers a tool of that name get one call to it instead of text; that is
how a recording makes the main agent delegate once, so that the child's own request (its model,
tools and system prompt) shows up in the log.  ``delay_after_tool`` holds back the answer to a
request that carries a tool result, so a child's first request is logged before a parent that
closes its children when it ends (Codex ``exec``) finishes.

Design decisions: standard library only (``http.server``), bound to 127.0.0.1, one thread per
connection; each answer has a ``content-length`` (no chunked encoding), which every CLI measured
accepts.  Which dialect to speak is decided by the request path alone.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

__all__ = ["REPLY", "FakeModelAPI", "offered_tool_names"]

REPLY = "OK-FAKE"
_MODELS = ("gpt-5", "gpt-4.1", "fake-model", "gemini-2.5-pro", "gemini-2.5-flash")


def offered_tool_names(body: Any) -> list[str]:
    """Tool names a request offers, in any of the four dialects (namespaces flattened)."""
    names: list[str] = []
    tools = body.get("tools") if isinstance(body, dict) else None
    for tool in tools if isinstance(tools, list) else []:
        if not isinstance(tool, dict):
            continue
        function = tool.get("function")
        if isinstance(function, dict) and isinstance(function.get("name"), str):
            names.append(function["name"])
        elif isinstance(tool.get("name"), str):
            names.append(tool["name"])
        for key in ("functionDeclarations", "function_declarations", "tools"):
            for sub in tool.get(key) or []:
                if isinstance(sub, dict) and isinstance(sub.get("name"), str):
                    names.append(sub["name"])
    return names


def _carries_tool_result(body: Any) -> bool:
    text = json.dumps(body)
    return any(mark in text for mark in ('"function_call_output"', '"role": "tool"',
                                         '"functionResponse"'))


class FakeModelAPI:
    """The server; use as a context manager (``with FakeModelAPI(log) as api: api.url``)."""

    def __init__(self, log: Path, *, port: int = 0, toolcall: Mapping[str, Any] | None = None,
                 delay_after_tool: float = 0.0) -> None:
        self.log = log
        self.toolcall = dict(toolcall) if toolcall else None
        self.delay_after_tool = delay_after_tool
        self._fired = False
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", port), _handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> FakeModelAPI:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def record(self, method: str, path: str, body: Any) -> None:
        line = json.dumps({"method": method, "path": path, "body": body}, ensure_ascii=False)
        with self._lock, open(self.log, "a", encoding="utf-8") as out:
            out.write(line + "\n")

    def take_toolcall(self, body: Any) -> dict[str, Any] | None:
        """The scripted call, the first time a request offers its tool; otherwise None."""
        if self.toolcall is None:
            return None
        with self._lock:
            if self._fired or self.toolcall["name"] not in offered_tool_names(body):
                return None
            self._fired = True
            return self.toolcall


# ----------------------------------------------------------------------------- the dialects


def _chat(body: dict[str, Any], call: Mapping[str, Any] | None) -> tuple[list[bytes] | None,
                                                                       dict[str, Any]]:
    """(SSE events when streamed, else None; the plain JSON answer)."""
    model = body.get("model", "m")
    created = int(time.time())
    if call is not None:
        tool = {"id": "call_1", "type": "function",
                "function": {"name": call["name"], "arguments": json.dumps(call["arguments"])}}
        message: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [tool]}
        deltas = [({"role": "assistant", "content": None, "tool_calls": [{"index": 0, **tool}]},
                   None), ({}, "tool_calls")]
        finish = "tool_calls"
    else:
        message = {"role": "assistant", "content": REPLY}
        deltas = [({"role": "assistant", "content": REPLY}, None), ({}, "stop")]
        finish = "stop"
    usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
    whole = {"id": "chatcmpl-1", "object": "chat.completion", "created": created, "model": model,
             "choices": [{"index": 0, "message": message, "finish_reason": finish}],
             "usage": usage}
    if not body.get("stream"):
        return None, whole
    chunk = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": created,
             "model": model}
    events = [_data({**chunk, "choices": [{"index": 0, "delta": d, "finish_reason": f}]})
              for d, f in deltas]
    events.append(_data({**chunk, "choices": [], "usage": usage}))
    events.append(b"data: [DONE]\n\n")
    return events, whole


def _responses(body: dict[str, Any], call: Mapping[str, Any] | None) -> tuple[list[bytes] | None,
                                                                            dict[str, Any]]:
    item: dict[str, Any]
    if call is not None:
        item = {"type": "function_call", "id": "fc_1", "call_id": "call_1",
                "name": call["name"], "arguments": json.dumps(call["arguments"]),
                "status": "completed"}
        if call.get("namespace"):
            item["namespace"] = call["namespace"]
    else:
        item = {"type": "message", "id": "msg_1", "status": "completed", "role": "assistant",
                "content": [{"type": "output_text", "text": REPLY, "annotations": []}]}
    response = {"id": "resp_1", "object": "response", "created_at": int(time.time()),
                "status": "completed", "model": body.get("model", "m"), "output": [item],
                "usage": {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2,
                          "input_tokens_details": {"cached_tokens": 0},
                          "output_tokens_details": {"reasoning_tokens": 0}}}
    if body.get("stream") is False:
        return None, response
    named: list[tuple[str, dict[str, Any]]] = [("response.created", {"type": "response.created",
                                   "response": {**response, "status": "in_progress",
                                                "output": []}})]
    if call is None:
        named.append(("response.output_item.added",
                      {"type": "response.output_item.added", "output_index": 0,
                       "item": {**item, "status": "in_progress", "content": []}}))
        named.append(("response.output_text.delta",
                      {"type": "response.output_text.delta", "item_id": "msg_1",
                       "output_index": 0, "content_index": 0, "delta": REPLY}))
    named.append(("response.output_item.done", {"type": "response.output_item.done",
                                                "output_index": 0, "item": item}))
    named.append(("response.completed", {"type": "response.completed", "response": response}))
    return [f"event: {n}\ndata: {json.dumps(d)}\n\n".encode() for n, d in named], response


def _gemini(call: Mapping[str, Any] | None) -> dict[str, Any]:
    parts: list[dict[str, Any]] = [{"text": REPLY}]
    if call is not None:
        parts = [{"functionCall": {"name": call["name"], "args": call["arguments"]}}]
    return {"candidates": [{"content": {"role": "model", "parts": parts},
                            "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1,
                              "totalTokenCount": 2}}


def _data(obj: Any) -> bytes:
    return b"data: " + json.dumps(obj).encode() + b"\n\n"


def _handler(api: FakeModelAPI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            return

        def _read(self) -> Any:
            size = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(size) if size else b""
            try:
                return json.loads(raw or b"{}")
            except ValueError:
                return {"_raw": raw.decode("utf-8", "replace")}

        def _send(self, obj: Any, ctype: str = "application/json", code: int = 200) -> None:
            data = obj if isinstance(obj, bytes) else json.dumps(obj).encode()
            self.send_response(code)
            self.send_header("content-type", ctype)
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            api.record("GET", self.path, None)
            if "models" in self.path:
                self._send({"object": "list", "models": [],
                            "data": [{"id": m, "object": "model", "owned_by": "fake"}
                                     for m in _MODELS]})
                return
            self._send({})

        def do_POST(self) -> None:
            body = self._read()
            api.record("POST", self.path, body)
            if not isinstance(body, dict):
                body = {}
            if api.delay_after_tool and _carries_tool_result(body):
                time.sleep(api.delay_after_tool)
            path = self.path.split("?", 1)[0]
            if path.endswith("/chat/completions"):
                events, whole = _chat(body, api.take_toolcall(body))
            elif path.rstrip("/").endswith("/responses"):
                events, whole = _responses(body, api.take_toolcall(body))
            elif path.endswith((":generateContent", ":streamGenerateContent")):
                whole = _gemini(api.take_toolcall(body))
                events = [_data(whole)] if path.endswith(":streamGenerateContent") else None
            elif "countTokens" in path:
                events, whole = None, {"totalTokens": 1}
            else:
                events, whole = None, {}
            if events is not None:
                self._send(b"".join(events), "text/event-stream")
            else:
                self._send(whole)

    return Handler
