"""`subagents serve-mcp` driven by the official MCP SDK client over stdio (seed 003)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from store_helpers import call, mcp_session, serve_args

pytest.importorskip("mcp")
pytestmark = pytest.mark.slow  # each test starts a server process


def _read(path: Path) -> dict[str, object]:
    data = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


async def test_tools_are_listed_with_schemas(tmp_path: Path) -> None:
    async with mcp_session(tmp_path / "group") as session:
        listed = await session.list_tools()
    tools = {t.name: t for t in listed.tools}
    assert set(tools) == {"define_agent", "remove_agent", "list_agents", "validate_agent"}
    define = tools["define_agent"].input_schema
    assert define["required"] == ["name", "description", "prompt"]
    assert define["properties"]["scope"]["default"] == "group"
    assert define["properties"]["scope"]["enum"] == ["group", "global"]
    assert tools["list_agents"].input_schema["properties"]["scope"]["default"] == "all"


async def test_define_list_remove_in_group_scope(tmp_path: Path) -> None:
    group = tmp_path / "group"
    async with mcp_session(group, tmp_path / "global") as session:
        err, out = await call(
            session,
            "define_agent",
            name="fact-checker",
            description="Verifies claims with web search.",
            prompt="You verify claims.",
            tools=["WebSearch", "WebFetch"],
            model="haiku",
        )
        assert not err, out
        assert out["action"] == "created" and out["scope"] == "group"
        assert "next session" in out["message"]
        assert _read(group / "agents.json") == {
            "fact-checker": {
                "description": "Verifies claims with web search.",
                "prompt": "You verify claims.",
                "tools": ["WebSearch", "WebFetch"],
                "model": "haiku",
            }
        }
        err, out = await call(
            session, "define_agent", name="fact-checker", description="v2", prompt="p2"
        )
        assert not err and out["action"] == "updated"

        err, listing = await call(session, "list_agents")
        assert not err
        assert [(a["name"], a["source"]) for a in listing["agents"]] == [("fact-checker", "group")]
        assert listing["agents"][0]["description"] == "v2"
        assert "fact-checker [group]" in listing["summary"]

        err, out = await call(session, "remove_agent", name="fact-checker")
        assert not err and out["action"] == "removed"
        err, listing = await call(session, "list_agents")
        assert listing["agents"] == []
        assert _read(group / "agents.json") == {}

        err, text = await call(session, "remove_agent", name="fact-checker")
        assert err and "no agent named 'fact-checker" in text


async def test_main_group_manages_global_and_list_shows_overrides(tmp_path: Path) -> None:
    group, global_ = tmp_path / "group", tmp_path / "global"
    async with mcp_session(group, global_, main=True) as session:
        for name, desc in (("researcher", "global researcher"), ("coder", "global coder")):
            err, out = await call(
                session, "define_agent", name=name, description=desc, prompt="p", scope="global"
            )
            assert not err, out
        err, out = await call(
            session, "define_agent", name="researcher", description="group researcher", prompt="p"
        )
        assert not err, out

        err, listing = await call(session, "list_agents", scope="all")
        rows = {(a["name"], a["source"]): a for a in listing["agents"]}
        assert set(rows) == {("researcher", "global"), ("coder", "global"), ("researcher", "group")}
        assert rows[("researcher", "group")]["overrides_global"] is True
        assert rows[("researcher", "global")]["overridden_by_group"] is True
        assert rows[("researcher", "global")]["active"] is False
        assert rows[("coder", "global")]["overridden_by_group"] is False
        assert "(overrides global)" in listing["summary"]
        assert "(overridden by group)" in listing["summary"]

        err, listing = await call(session, "list_agents", scope="global")
        assert {a["name"] for a in listing["agents"]} == {"researcher", "coder"}
        err, listing = await call(session, "list_agents", scope="group")
        assert [a["name"] for a in listing["agents"]] == ["researcher"]

        err, out = await call(session, "remove_agent", name="coder", scope="global")
        assert not err, out
    assert set(_read(global_ / "agents.json")) == {"researcher"}
    assert set(_read(group / "agents.json")) == {"researcher"}


async def test_non_main_client_cannot_touch_global(tmp_path: Path) -> None:
    group, global_ = tmp_path / "group", tmp_path / "global"
    global_.mkdir()
    original = b'{"shared": {"description": "d", "prompt": "p"}}'
    (global_ / "agents.json").write_bytes(original)
    async with mcp_session(group, global_) as session:
        err, text = await call(
            session, "define_agent", name="x", description="d", prompt="p", scope="global"
        )
        assert err and "read-only" in text and "main group" in text
        err, text = await call(session, "remove_agent", name="shared", scope="global")
        assert err and "read-only" in text
        err, text = await call(session, "remove_agent", name="shared")
        assert err and "use scope 'global'" in text  # the hint says where it lives
        assert "StoreScope" not in text
        # Reading global is allowed.
        err, listing = await call(session, "list_agents", scope="global")
        assert not err and [a["name"] for a in listing["agents"]] == ["shared"]
        assert listing["can_write_global"] is False
    assert (global_ / "agents.json").read_bytes() == original
    assert not (group / "agents.json").exists()


async def test_bad_input_is_refused_with_clear_errors(tmp_path: Path) -> None:
    group = tmp_path / "group"
    group.mkdir()
    original = b'{"keep": {"description": "d", "prompt": "p"}}\n'
    (group / "agents.json").write_bytes(original)
    async with mcp_session(group) as session:
        cases: list[tuple[dict[str, object], str]] = [
            ({"name": "a/b"}, "ST001"),
            ({"name": "../x"}, "ST001"),
            ({"name": ".."}, "ST001"),
            ({"name": "FactChecker"}, "ST001"),
            ({"name": "x" * 1000}, "ST002"),
            ({"description": ""}, "ST003"),
            ({"prompt": " "}, "ST004"),
            ({"model": "sonet"}, "did you mean 'sonnet'"),
            ({"tools": ["Read", "Teleport"]}, "ST007"),
            ({"prompt": "x" * (5 * 1024 * 1024)}, "ST008"),
        ]
        for override, expected in cases:
            args: dict[str, object] = {
                "name": "ok-name",
                "description": "d",
                "prompt": "p",
                **override,
            }
            err, text = await call(session, "define_agent", **args)
            assert err, override
            assert expected in text, (override, text[:300])
            assert "Traceback" not in text
        # tools not a list: refused by the input schema before the tool runs.
        err, text = await call(
            session, "define_agent", name="a", description="d", prompt="p", tools="Read, Grep"
        )
        assert err and "tools" in text and "list" in text
        err, text = await call(
            session, "define_agent", name="a", description="d", prompt="p", scope="everywhere"
        )
        assert err and "scope" in text
    assert (group / "agents.json").read_bytes() == original


async def test_corrupt_store_is_reported_and_left_alone(tmp_path: Path) -> None:
    group = tmp_path / "group"
    group.mkdir()
    broken = b'{\n  "keep": {\n    "description": "d",\n    "prompt": "p"\n'
    (group / "agents.json").write_bytes(broken)
    async with mcp_session(group) as session:
        err, text = await call(session, "define_agent", name="a", description="d", prompt="p")
        assert err and "agents.json:5:1" in text and "truncated" in text
        assert "--force" in text
        err, listing = await call(session, "list_agents")
        assert not err and listing["agents"] == []
        assert "agents.json:5:1" in listing["errors"][0]
        (group / "agents.json").write_bytes(b"[1, 2]")
        err, text = await call(session, "remove_agent", name="keep")
        assert err and "agents.json:1:1" in text and "object" in text
    assert (group / "agents.json").read_bytes() == b"[1, 2]"


async def test_validate_agent_returns_diagnostics(tmp_path: Path) -> None:
    async with mcp_session(tmp_path / "group") as session:
        err, out = await call(
            session,
            "validate_agent",
            name="Bad Name",
            description="",
            prompt="p",
            tools=["Read", "Read"],
            model="gpt",
        )
        assert not err
        assert out["ok"] is False
        rules = {d["rule"] for d in out["diagnostics"]}
        assert {"ST001", "ST003", "ST005", "ST011"} <= rules
        assert all(
            {"path", "line", "rule", "severity", "message", "hint"} <= set(d)
            for d in out["diagnostics"]
        )
        err, out = await call(
            session,
            "validate_agent",
            name="good",
            description="Use it.",
            prompt="You do it.",
            tools=["Read"],
            model="sonnet",
        )
        assert not err and out["ok"] is True
        assert not [d for d in out["diagnostics"] if d["severity"] == "error"]
    assert not (tmp_path / "group" / "agents.json").exists()  # validating writes nothing


async def test_lock_timeout_reaches_the_client(tmp_path: Path) -> None:
    from filelock import FileLock

    group = tmp_path / "group"
    group.mkdir()
    async with mcp_session(group, extra=("--lock-timeout", "0.3")) as session:
        with FileLock(str(group / "agents.json.lock")):  # another writer, stuck
            err, text = await call(session, "define_agent", name="a", description="d", prompt="p")
        assert err and "more than 0.3 s" in text
        err, out = await call(session, "define_agent", name="a", description="d", prompt="p")
        assert not err and out["action"] == "created"


def _jsonrpc(message: dict[str, object]) -> bytes:
    return (json.dumps(message) + "\n").encode()


def test_client_disconnecting_mid_call_leaves_server_and_store_clean(tmp_path: Path) -> None:
    group = tmp_path / "group"
    group.mkdir()
    (group / "agents.json").write_text('{"keep": {"description": "d", "prompt": "p"}}')
    proc = subprocess.Popen(
        [sys.executable, *serve_args(group)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(
        _jsonrpc(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "abrupt", "version": "0"},
                },
            }
        )
    )
    proc.stdin.flush()
    assert json.loads(proc.stdout.readline())["id"] == 1
    proc.stdin.write(_jsonrpc({"jsonrpc": "2.0", "method": "notifications/initialized"}))
    for i in range(20):  # several writes in flight, then the client vanishes
        proc.stdin.write(
            _jsonrpc(
                {
                    "jsonrpc": "2.0",
                    "id": 10 + i,
                    "method": "tools/call",
                    "params": {
                        "name": "define_agent",
                        "arguments": {"name": f"a{i}", "description": "d", "prompt": "p" * 200_000},
                    },
                }
            )
        )
    proc.stdin.close()  # no reading of the answers: a hard disconnect
    proc.stdout.close()
    try:
        rc = proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    stderr = proc.stderr.read().decode() if proc.stderr else ""
    assert rc == 0, stderr
    assert "Traceback" not in stderr
    data = json.loads((group / "agents.json").read_text(encoding="utf-8"))  # valid JSON
    assert "keep" in data
    print("definitions written before the disconnect:", len(data) - 1)
    assert set(data) <= {"keep"} | {f"a{i}" for i in range(20)}
    assert not [p for p in group.iterdir() if p.name.endswith(".tmp")]


async def test_arguments_the_schema_refuses_read_clearly(tmp_path: Path) -> None:
    """Schema refusals name the argument and what it needs, not pydantic's internals."""
    group = tmp_path / "group"
    async with mcp_session(group) as session:
        err, text = await call(
            session, "define_agent", name="x", description="d", prompt="p", tools="Read, Grep"
        )
        assert err
        assert text.startswith("Error executing tool define_agent: bad arguments")
        assert "tools must be a list of tool names" in text and "not str" in text
        assert "pydantic" not in text and "Arguments" not in text
        err, text = await call(session, "define_agent", name="x", prompt="p")
        assert err and "description is required" in text
        err, text = await call(session, "list_agents", scope="everything")
        assert err and "scope is invalid" in text and "'all', 'group' or 'global'" in text
        assert "nothing was written" not in text  # list_agents writes nothing anyway
    assert not (group / "agents.json").exists()


def test_a_request_with_a_lone_surrogate_is_answered(tmp_path: Path) -> None:
    """`"\\udc80"` is JSON text the SDK's parser refuses; the request must still be answered."""
    group = tmp_path / "group"
    group.mkdir()
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": "t", "version": "0"}}}
    call_line = (b'{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": '
                 b'"define_agent", "arguments": {"name": "\\udc80x", "description": "d", '
                 b'"prompt": "p"}}}\n')
    assert b"\\udc80" in call_line
    proc = subprocess.Popen([sys.executable, *serve_args(group)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    killer = threading.Timer(60, proc.kill)  # a request never answered must not hang the suite
    killer.start()
    answers: dict[object, dict[str, object]] = {}
    try:
        proc.stdin.write(_jsonrpc(init) + _jsonrpc({"jsonrpc": "2.0",
                                                    "method": "notifications/initialized"})
                         + call_line + _jsonrpc({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}))
        proc.stdin.flush()
        while not {2, 3} <= answers.keys():
            line = proc.stdout.readline()
            if not line:
                break
            message = json.loads(line)
            answers[message.get("id")] = message
        proc.stdin.close()
        proc.wait(timeout=30)
    finally:
        killer.cancel()
        if proc.poll() is None:
            proc.kill()
    err = proc.stderr.read().decode() if proc.stderr else ""
    assert 2 in answers and 3 in answers, (answers.keys(), err[-2000:])
    result = answers[2]["result"]
    assert isinstance(result, dict) and result["isError"] is True  # a bad name: a tool error
    assert "Traceback" not in err
