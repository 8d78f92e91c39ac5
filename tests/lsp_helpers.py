"""A small JSON-RPC client for ``subagents lsp``: the real server in a subprocess, on stdio.

It frames messages as the protocol does (``Content-Length`` headers), reads the server's
output on a thread, and lets a test send raw bytes too (the hostile cases).  Used by the tests
and by ``bench/bench_lsp.py``.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

WAIT = 60.0  # seconds: a bound on a hang, not a speed check


class LspClient:
    def __init__(self, cwd: Path, home: Path, *args: str, env: dict[str, str] | None = None):
        full_env = {k: v for k, v in os.environ.items() if not k.startswith("SUBAGENTS_")}
        full_env.update(HOME=str(home), NO_COLOR="1", **(env or {}))
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "subagents", "lsp", *args], cwd=cwd, env=full_env,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self._ids = itertools.count(1)
        self.inbox: queue.Queue[dict[str, Any]] = queue.Queue()
        self.notifications: list[dict[str, Any]] = []
        self.responses: dict[Any, dict[str, Any]] = {}
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.stderr = b""

    # ------------------------------------------------------------------ wire
    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    return
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.decode("ascii", "replace").partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value.strip())
            if length is None:
                continue
            body = out.read(length)
            self.inbox.put(json.loads(body))

    def send_raw(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, message: Any) -> None:
        body = json.dumps(message).encode()
        self.send_raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def send_body(self, body: bytes) -> None:
        self.send_raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    # ------------------------------------------------------------------ messages
    def _pump(self, until: Callable[[], bool], wait: float = WAIT) -> None:
        deadline = time.monotonic() + wait
        while not until():
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no answer from the server")
            try:
                msg = self.inbox.get(timeout=min(left, 1.0))
            except queue.Empty:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"the server exited: {self.proc.returncode}") from None
                continue
            if "method" in msg and "id" not in msg:
                self.notifications.append(msg)
            elif "method" in msg:  # a request from the server: say yes
                self.send({"jsonrpc": "2.0", "id": msg["id"], "result": None})
            else:
                self.responses[msg.get("id")] = msg

    def request(self, method: str, params: Any = None) -> dict[str, Any]:
        msg_id = next(self._ids)
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": msg_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return self.response(msg_id)

    def response(self, msg_id: Any) -> dict[str, Any]:
        self._pump(lambda: msg_id in self.responses)
        return self.responses.pop(msg_id)

    def notify(self, method: str, params: Any = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)

    def diagnostics(self, uri: str, version: int | None = None,
                    wait: float = WAIT) -> list[dict[str, Any]]:
        """The next diagnostics published for ``uri`` (for ``version`` when given)."""
        def found() -> dict[str, Any] | None:
            for i, n in enumerate(self.notifications):
                p = n.get("params") or {}
                if n["method"] == "textDocument/publishDiagnostics" and p.get("uri") == uri \
                        and (version is None or p.get("version") == version):
                    return self.notifications.pop(i)
            return None

        hit: list[dict[str, Any]] = []

        def ready() -> bool:
            got = found()
            if got is not None:
                hit.append(got)
            return bool(hit)

        self._pump(ready, wait)
        return list(hit[0]["params"]["diagnostics"])

    # ------------------------------------------------------------------ session
    def initialize(self, root: Path, encodings: list[str] | None = None) -> dict[str, Any]:
        caps: dict[str, Any] = {"textDocument": {"hover": {"contentFormat": ["markdown"]}}}
        if encodings:
            caps["general"] = {"positionEncodings": encodings}
        result = self.request("initialize", {"processId": os.getpid(),
                                             "rootUri": root.as_uri(),
                                             "capabilities": caps})
        self.notify("initialized", {})
        return result

    def open(self, path: Path, text: str, language: str = "markdown") -> str:
        uri = path.as_uri()
        self.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": language, "version": 1, "text": text}})
        return uri

    def change(self, uri: str, version: int, text: str) -> None:
        self.notify("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": version},
            "contentChanges": [{"text": text}]})

    def close(self) -> int:
        with contextlib.suppress(Exception):
            self.request("shutdown")
            self.notify("exit")
        try:
            code = self.proc.wait(timeout=WAIT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = self.proc.wait()
        if self.proc.stderr is not None:
            self.stderr = self.proc.stderr.read()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                with contextlib.suppress(Exception):
                    stream.close()
        return code
