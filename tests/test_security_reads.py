"""Issue 12, item 5: reads outside the working folder ask, web tools are egress, and read-only
tools cannot hang the run (FIFOs, devices, catastrophic regular expressions)."""

from __future__ import annotations

import http.server
import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from runtime_helpers import ctx_for
from subagents.runtime.permissions import PermissionPolicy, PermissionRequest
from subagents.runtime.tools import builtin_tools
from subagents.runtime.tools.search import GrepTool
from subagents.runtime.tools.web import WebFetchTool

TOOLS = builtin_tools(web=True, extras=True)


async def test_reading_a_private_key_outside_the_folder_needs_permission(
        tmp_path: Path, home: Path) -> None:
    key = home / ".ssh" / "id_ed25519"
    key.parent.mkdir()
    key.write_text("PRIVATE")
    work = tmp_path / "work"
    work.mkdir()
    (work / "notes.txt").write_text("fine")
    ctx = ctx_for(work)
    policy = PermissionPolicy(mode="acceptEdits")  # even the permissive mode
    for name, call in [("Read", {"file_path": "~/.ssh/id_ed25519"}),
                       ("Read", {"file_path": str(key)}),
                       ("Read", {"file_path": "../../" + str(key.relative_to("/"))}),
                       ("Grep", {"pattern": "PRIVATE", "path": str(home)}),
                       ("LS", {"path": str(home / ".ssh")}),
                       ("Glob", {"pattern": f"{home}/.ssh/*"})]:
        d = await policy.decide(TOOLS[name], call, ctx)
        assert not d.allowed and d.unasked, (name, call)
    assert (await policy.decide(TOOLS["Read"], {"file_path": "notes.txt"}, ctx)).allowed
    assert (await policy.decide(TOOLS["Grep"], {"pattern": "x"}, ctx)).allowed
    asked: list[PermissionRequest] = []

    async def user(request: PermissionRequest) -> bool:
        asked.append(request)
        return True

    d = await PermissionPolicy(ask=user).decide(TOOLS["Read"], {"file_path": str(key)}, ctx)
    assert d.allowed and asked
    rule = PermissionPolicy(allow_rules=(f"Read({home}/.ssh/**)",))
    assert (await rule.decide(TOOLS["Read"], {"file_path": str(key)}, ctx)).allowed


async def test_web_tools_are_egress_not_read_only(tmp_path: Path) -> None:
    fetch = TOOLS["WebFetch"]
    assert not fetch.read_only
    call = {"url": "https://example.com/x"}
    plan = await PermissionPolicy(mode="plan").decide(fetch, call, ctx_for(tmp_path))
    assert not plan.allowed
    default = await PermissionPolicy().decide(fetch, call, ctx_for(tmp_path))
    assert not default.allowed and default.unasked
    rule = PermissionPolicy(allow_rules=("WebFetch(domain:example.com)",))
    assert (await rule.decide(fetch, call, ctx_for(tmp_path))).allowed
    assert not (await rule.decide(fetch, {"url": "https://evil.test/?k=secret"},
                                  ctx_for(tmp_path))).allowed


class _Redirector(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        port = self.server.server_address[1]
        if self.path == "/same":
            self.send_response(302)
            self.send_header("Location", f"http://127.0.0.1:{port}/page")
        elif self.path == "/away":
            self.send_response(302)
            self.send_header("Location", f"http://localhost:{port}/page?leak=1")
        else:
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
        self.end_headers()
        if self.path.startswith("/page"):
            self.wfile.write(b"the page")

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[int]:
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Redirector)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield srv.server_address[1]
    srv.shutdown()
    srv.server_close()


async def test_every_redirect_hop_is_checked(tmp_path: Path, server: int) -> None:
    policy = PermissionPolicy(allow_rules=("WebFetch(domain:127.0.0.1)",))
    ctx = ctx_for(tmp_path, policy=policy)
    tool = WebFetchTool(timeout=10)
    same = await tool.run({"url": f"http://127.0.0.1:{server}/same"}, ctx)
    assert not same.is_error and "the page" in same.content
    away = await tool.run({"url": f"http://127.0.0.1:{server}/away"}, ctx)
    assert away.is_error and "another host" in away.content and "the page" not in away.content


async def test_read_refuses_fifos_and_devices(tmp_path: Path) -> None:
    fifo = tmp_path / "agent.md"
    os.mkfifo(fifo)
    read = TOOLS["Read"]
    for target in (str(fifo), "/dev/zero"):
        out = await read.run({"file_path": target}, ctx_for(tmp_path))
        assert out.is_error and "not a regular file" in out.content, target


async def test_grep_cannot_hang(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.txt")
    (tmp_path / "long.txt").write_text("a" * 50_000 + "b\n")
    grep = GrepTool()
    ctx = ctx_for(tmp_path)
    # catastrophic for a backtracking engine; linear in RE2
    out = await grep.run({"pattern": "(a+)+$", "output_mode": "count"}, ctx)
    assert not out.is_error and "No matches" in out.content
    out = await grep.run({"pattern": "(a|aa)+c"}, ctx)
    assert out.content == "No files found"
    out = await grep.run({"pattern": "x", "path": "/dev/zero"}, ctx)
    assert out.content == "No files found"
    out = await grep.run({"pattern": "(?<=a)b"}, ctx)
    assert out.is_error and "linear-time" in out.content
    out = await grep.run({"pattern": "a{3}b", "output_mode": "files_with_matches"}, ctx)
    assert "long.txt" in out.content


async def test_a_search_stops_at_its_time_limit(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    import subagents.runtime.tools.search as search

    (tmp_path / "a.txt").write_text("needle\n")
    monkeypatch.setattr(search, "SEARCH_TIME_LIMIT", -1.0)  # already past: stops at once
    out = await GrepTool().run({"pattern": "needle"}, ctx_for(tmp_path))
    assert "search stopped" in out.content and "a.txt" not in out.content
    out = await TOOLS["Glob"].run({"pattern": "**/*.txt"}, ctx_for(tmp_path))
    assert out.is_error and "stopped" in out.content
