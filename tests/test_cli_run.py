"""`subagents run`: real SDKs against a loopback server, scripted provider, permissions, Ctrl-C."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from runtime_helpers import wait_dead
from subagents.cli.main import cli
from subagents.errors import AgentNotFoundError
from subagents.testing import text, tool_call, tool_calls
from subagents.testing.server import FakeLLMServer

ECHO_SERVER = Path(__file__).parent / "data" / "mcp_echo_server.py"

READER = """---
name: reader
description: Reads files and answers questions about them.
tools: Read, Grep, Glob
---
You read files and answer briefly.
"""

WRITER = """---
name: writer
description: Writes files.
tools: Read, Write, Bash
{extra}---
You write files.
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "proj"
    agents = root / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "reader.md").write_text(READER)
    (agents / "writer.md").write_text(WRITER.format(extra=""))
    (root / "notes.md").write_text("The launch is on Tuesday.\n")
    monkeypatch.chdir(root)
    monkeypatch.setenv("SUBAGENTS_TRANSCRIPT_DIR", str(tmp_path / "transcripts"))
    return root


def invoke(*args: str, input: str | None = None) -> Result:
    return CliRunner().invoke(cli, ["run", *args], input=input)


def script(tmp_path: Path, replies: list[Any]) -> str:
    path = tmp_path / f"script-{time.monotonic_ns()}.json"
    path.write_text(json.dumps(replies))
    return str(path)


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
def test_anthropic_sdk_multi_turn_loop_and_refused_write(
    project: Path, monkeypatch: pytest.MonkeyPatch, stream: bool
) -> None:
    with FakeLLMServer() as server:
        server.add(
            tool_call("Glob", {"pattern": "*.md"}),
            tool_calls([("Read", {"file_path": "notes.md"}),
                        ("Write", {"file_path": "leak.txt", "content": "x"})]),
            text("The launch is on Tuesday."),
        )
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.anthropic_base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
        args = ["--agent", "reader", "--yes", "--model", "claude-test-9"]
        result = invoke(*args, *(["--stream"] if stream else []), "When is the launch?")
        assert result.exit_code == 0, result.output
        assert result.stdout.strip() == "The launch is on Tuesday."
        server.assert_complete()
        first = server.requests[0].json
        assert first["model"] == "claude-test-9"
        assert [t["name"] for t in first["tools"]] == ["Read", "Grep", "Glob"]
        assert "You read files" in json.dumps(first["system"])
        third = server.requests[2].json["messages"][-1]["content"]
        by_id = {b["tool_use_id"]: b for b in third if b["type"] == "tool_result"}
        assert len(by_id) == 2
        read, write = list(by_id.values())
        assert "Tuesday" in json.dumps(read["content"]) and not read.get("is_error")
        assert write.get("is_error") is True
    assert not (project / "leak.txt").exists()


def test_openai_sdk_same_run(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeLLMServer() as server:
        server.add(tool_call("Read", {"file_path": "notes.md"}), text("Tuesday."))
        monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        result = invoke("--agent", "reader", "--provider", "openai", "--model", "qwen-test",
                        "--format", "json", "When?")
        assert result.exit_code == 0, result.output
        data = json.loads(result.stdout)
        assert data["final_text"] == "Tuesday." and data["stop_reason"] == "end_turn"
        assert data["model"] == "qwen-test"
        assert data["tool_calls"][0]["name"] == "Read" and data["tool_calls"][0]["executed"]
        assert server.requests[0].api == "openai"
        names = [t["function"]["name"] for t in server.requests[0].json["tools"]]
        assert names == ["Read", "Grep", "Glob"]
        transcript = Path(data["transcript_path"])
        assert transcript.is_file()
        assert json.loads(transcript.read_text().splitlines()[-1])["type"] == "stop"


def test_max_turns_is_an_error_without_another_request(project: Path, tmp_path: Path) -> None:
    """As Claude Code's error_max_turns: no extra request, no final text, exit 1."""
    replies: list[Any] = [{"tool": "Glob", "input": {"pattern": "*"}}] * 2
    result = invoke("--agent", "reader", "--provider", "scripted", "--script",
                    script(tmp_path, replies), "--max-turns", "2", "--format", "json", "loop")
    assert result.exit_code == 1, result.output
    data = json.loads(result.stdout)
    assert data["stop_reason"] == "max_turns" and data["turns"] == 2
    assert data["is_error"] is True and data["final_text"] == ""
    assert "reached its turn limit (2 turns)" in result.stderr
    assert "Traceback" not in result.output
    # the main thread too
    result = invoke("--provider", "scripted", "--script", script(tmp_path, replies),
                    "--max-turns", "2", "loop")
    assert result.exit_code == 1 and result.stdout == ""
    assert "main reached its turn limit" in result.stderr


def test_max_turns_summary_is_opt_in(project: Path, tmp_path: Path) -> None:
    replies: list[Any] = [{"tool": "Glob", "input": {"pattern": "*"}}] * 2
    replies.append("Summary: globbed twice, found notes.md.")
    result = invoke("--agent", "reader", "--provider", "scripted", "--script",
                    script(tmp_path, replies), "--max-turns", "2", "--max-turns-summary",
                    "--format", "json", "loop")
    assert result.exit_code == 1, result.output
    data = json.loads(result.stdout)
    assert data["stop_reason"] == "max_turns" and data["turns"] == 2
    assert data["final_text"] == "Summary: globbed twice, found notes.md."


def test_max_turns_from_frontmatter(project: Path, tmp_path: Path) -> None:
    (project / ".claude" / "agents" / "reader.md").write_text(
        READER.replace("tools: Read", "maxTurns: 1\ntools: Read"))
    replies: list[Any] = [{"tool": "Glob", "input": {"pattern": "*"}}]
    result = invoke("--agent", "reader", "--provider", "scripted", "--script",
                    script(tmp_path, replies), "--format", "json", "loop")
    data = json.loads(result.stdout)
    assert data["stop_reason"] == "max_turns" and data["turns"] == 1
    assert result.exit_code == 1


def _write_run(tmp_path: Path, *flags: str) -> Result:
    replies: list[Any] = [{"tool": "Write", "input": {"file_path": "out.txt", "content": "hi"}},
                          "done"]
    return invoke("--agent", "writer", "--provider", "scripted", "--script",
                  script(tmp_path, replies), "--format", "json", *flags, "write it")


def test_write_needs_permission_without_a_terminal(project: Path, tmp_path: Path) -> None:
    result = _write_run(tmp_path)
    assert result.exit_code == 0
    call = json.loads(result.stdout)["tool_calls"][0]
    assert call["is_error"] and not call["executed"] and "--yes" in call["output"]
    assert not (project / "out.txt").exists()


@pytest.mark.parametrize("flags", [["--yes"], ["--allow", "Write"], ["--permission-mode",
                                                                     "acceptEdits"]])
def test_write_approved(project: Path, tmp_path: Path, flags: list[str]) -> None:
    result = _write_run(tmp_path, *flags)
    assert result.exit_code == 0, result.output
    assert (project / "out.txt").read_text() == "hi"


def test_allow_rule_from_config(project: Path, tmp_path: Path) -> None:
    (project / ".subagents.toml").write_text('allow = ["Write"]\n')
    result = _write_run(tmp_path)  # an untrusted project's config does not apply
    assert not (project / "out.txt").exists()
    assert "not trusted" in result.stderr
    _write_run(tmp_path, "--trust")
    assert (project / "out.txt").read_text() == "hi"


def test_plan_mode_and_bypass_need_config(project: Path, tmp_path: Path) -> None:
    agents = project / ".claude" / "agents"
    (agents / "writer.md").write_text(WRITER.format(extra="permissionMode: plan\n"))
    result = _write_run(tmp_path, "--yes")
    assert "plan" in json.loads(result.stdout)["tool_calls"][0]["output"]
    assert not (project / "out.txt").exists()
    (agents / "writer.md").write_text(WRITER.format(extra="permissionMode: bypassPermissions\n"))
    result = _write_run(tmp_path, "--permission-mode", "bypassPermissions")
    assert "not allowed by configuration" in result.stderr
    assert not (project / "out.txt").exists()
    # a project cannot allow bypass mode for itself, even trusted; the user can
    (project / ".subagents.toml").write_text("allow-bypass-permissions = true\n")
    result = _write_run(tmp_path, "--trust", "--permission-mode", "bypassPermissions")
    assert not (project / "out.txt").exists()
    assert "allow-bypass-permissions is ignored" in result.stderr
    result = _write_run(tmp_path, "--permission-mode", "bypassPermissions",
                        "--allow-bypass-permissions")
    assert (project / "out.txt").read_text() == "hi"


def test_usage_and_lookup_errors(project: Path, tmp_path: Path) -> None:
    r = invoke("--agent", "reader", "--provider", "scripted", "hi")
    assert r.exit_code == 2 and "--script" in r.output
    r = invoke("--agent", "reader", "--max-turns", "0", "hi")
    assert r.exit_code == 2
    r = invoke("--agent", "readr", "--provider", "scripted", "--script", script(tmp_path, ["x"]),
               "hi")
    assert isinstance(r.exception, AgentNotFoundError) and r.exception.exit_code == 1
    assert "reader" in str(r.exception)  # the close match is suggested
    r = invoke("--help")
    assert r.exit_code == 0 and "--max-turns" in r.output and "ANTHROPIC_API_KEY" in r.output


def _subagents(*args: str, cwd: Path, env: dict[str, str] | None = None,
               **kw: Any) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, **(env or {})}
    for key in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_BASE_URL"):
        if env is None or key not in env:
            full_env.pop(key, None)
    return subprocess.run([sys.executable, "-m", "subagents.cli.main", "run", *args],
                          cwd=cwd, env=full_env, capture_output=True, text=True, timeout=60,
                          check=False, **kw)


def test_missing_key_says_how_to_set_it(project: Path) -> None:
    proc = _subagents("--agent", "reader", "hello", cwd=project)
    assert proc.returncode in (1, 2)
    assert "ANTHROPIC_API_KEY" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert proc.stdout == ""


def test_failed_provider_exits_1(project: Path, tmp_path: Path) -> None:
    replies = [{"error": "connection", "message": "server unreachable"}]
    r = invoke("--agent", "reader", "--provider", "scripted", "--script",
               script(tmp_path, replies), "hi")
    assert r.exit_code == 1
    assert "server unreachable" in r.stderr


def test_prompt_from_stdin_and_quiet_stderr(project: Path, tmp_path: Path) -> None:
    r = invoke("--agent", "reader", "--provider", "scripted", "--script",
               script(tmp_path, ["ok"]), "-", input="question from stdin\n")
    assert r.exit_code == 0 and r.stdout == "ok\n"
    assert r.stderr == ""  # stderr is not a terminal: no progress


def test_main_thread_delegates_without_agent(project: Path, tmp_path: Path) -> None:
    replies: list[Any] = [
        {"tool": "Task", "input": {"description": "read notes", "prompt": "Read notes.md",
                                   "subagent_type": "reader", "run_in_background": False}},
        {"tool": "Read", "input": {"file_path": "notes.md"}},
        "Tuesday (from notes.md).",
        "The reader says: Tuesday.",
    ]
    r = invoke("--provider", "scripted", "--script", script(tmp_path, replies), "--format",
               "json", "When is the launch?")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["final_text"] == "The reader says: Tuesday."
    assert [c["agent"] for c in data["children"]] == ["reader"]
    assert data["children"][0]["final_text"] == "Tuesday (from notes.md)."


@pytest.mark.slow
def test_ctrl_c_exits_130_flushes_transcript_and_kills_children(project: Path,
                                                               tmp_path: Path) -> None:
    tdir = tmp_path / "ctrl-c"
    replies = [{"tool": "Bash", "input": {"command": "echo $$ > sh.pid; sleep 300"}}, "never"]
    proc = subprocess.Popen(
        # --sandbox off: the test reads the shell's pid from outside (in the sandbox it has
        # a pid of its own namespace; tests/test_security_sandbox.py covers that case)
        [sys.executable, "-m", "subagents.cli.main", "run", "--agent", "writer", "--yes",
         "--provider", "scripted", "--script", script(tmp_path, replies), "--sandbox", "off",
         "--transcript-dir", str(tdir), "--format", "json", "sleep"],
        cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    pid_file = project / "sh.pid"
    deadline = time.monotonic() + 30
    while not (pid_file.exists() and pid_file.read_text().strip()):
        assert time.monotonic() < deadline and proc.poll() is None, proc.stderr
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert json.loads(out)["stop_reason"] == "interrupted"
    assert "interrupted" in err and "Traceback" not in err
    assert wait_dead(int(pid_file.read_text()))
    (transcript,) = tdir.glob("*.jsonl")
    last = json.loads(transcript.read_text().splitlines()[-1])
    assert last["type"] == "stop" and last["stop_reason"] == "interrupted"


def test_terminal_questions(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from subagents.cli import run_cmd
    from subagents.runtime.permissions import PermissionRequest

    request = PermissionRequest("Bash", {"command": "make"}, "writer", "default", tmp_path)
    assert run_cmd._ask_callback(False) is None  # not a terminal: nobody to ask
    asked: list[str] = []

    def yes(req: PermissionRequest) -> bool:
        asked.append(run_cmd._describe(req.tool, req.input))
        return True

    monkeypatch.setattr(run_cmd, "_confirm", yes)
    assert asyncio.run(run_cmd._in_daemon_thread(request)) is True
    assert asked == ["make"]

    def eof(req: PermissionRequest) -> bool:
        raise EOFError

    monkeypatch.setattr(run_cmd, "_confirm", eof)
    assert asyncio.run(run_cmd._in_daemon_thread(request)) is False
    always = run_cmd._ask_callback(True)
    assert always is not None and asyncio.run(always(request)) is True


def test_max_turns_summary_through_the_anthropic_sdk(project: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeLLMServer() as server:
        server.add(tool_call("Glob", {"pattern": "*"}), text("Summary: one glob, then stopped."))
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.anthropic_base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
        result = invoke("--agent", "reader", "--max-turns", "1", "--max-turns-summary",
                        "--format", "json", "loop")
        assert result.exit_code == 1, result.output
        data = json.loads(result.stdout)
        assert data["stop_reason"] == "max_turns"
        assert data["final_text"] == "Summary: one glob, then stopped."
        last = server.requests[-1].json
        assert "tools" not in last
        kinds = {b["type"] for m in last["messages"] for b in m["content"]}
        assert kinds == {"text"}  # tool blocks sent as text: the API refuses them without tools


def test_agent_from_agents_json(project: Path, tmp_path: Path) -> None:
    inline = json.dumps({"inline": {"description": "An inline agent.",
                                    "prompt": "You are inline.", "tools": ["Glob"]}})
    replies: list[Any] = [{"tool": "Read", "input": {"file_path": "notes.md"}}, "ok"]
    r = invoke("--agents", inline, "--agent", "inline", "--provider", "scripted", "--script",
               script(tmp_path, replies), "--format", "json", "hi")
    assert r.exit_code == 0, r.output
    call = json.loads(r.stdout)["tool_calls"][0]
    assert call["is_error"] and "not among the tools" in call["output"]


def test_progress_on_a_terminal_only(project: Path, tmp_path: Path,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from subagents.cli import run_cmd

    replies: list[Any] = [{"tool": "Glob", "input": {"pattern": "*.md"}}, "found it"]
    monkeypatch.setattr(run_cmd, "_stderr_tty", lambda: True)
    r = invoke("--agent", "reader", "--provider", "scripted", "--script",
               script(tmp_path, replies), "find")
    assert r.exit_code == 0 and r.stdout == "found it\n"
    assert "reader turn 1/50" in r.stderr
    assert "→ Glob" in r.stderr
    assert "end_turn after 2 turns" in r.stderr


def test_agent_as_main_thread_may_delegate_within_its_allowlist(
    project: Path, tmp_path: Path
) -> None:
    # A lead agent with no `tools` line inherits everything, the Task tool included
    # (Claude Code's `claude --agent lead`): it hands the reading to `reader`.
    (project / ".claude" / "agents" / "lead.md").write_text(
        "---\nname: lead\ndescription: Leads the work and delegates reading.\n---\nYou lead.\n"
    )
    replies: list[Any] = [
        {"tool": "Task", "input": {"description": "read notes", "prompt": "Read notes.md",
                                   "subagent_type": "reader", "run_in_background": False}},
        {"tool": "Read", "input": {"file_path": "notes.md"}},
        "Tuesday.",
        "Lead: Tuesday.",
    ]
    r = invoke("--agent", "lead", "--provider", "scripted", "--script",
               script(tmp_path, replies), "--format", "json", "When is the launch?")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["agent"] == "lead" and data["final_text"] == "Lead: Tuesday."
    assert [c["agent"] for c in data["children"]] == ["reader"]
    # ...but an agent whose allowlist lacks Task/Agent is never offered it.
    replies = [{"tool": "Task", "input": {"description": "x", "prompt": "x",
                                          "subagent_type": "writer"}}, "I could not delegate."]
    r = invoke("--agent", "reader", "--provider", "scripted", "--script",
               script(tmp_path, replies), "--format", "json", "Delegate please")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["children"] == []
    (call,) = data["tool_calls"]
    assert call["name"] == "Task" and call["is_error"] and not call["executed"]


def test_pipeline_chains_agents_and_writes_handoffs(project: Path, tmp_path: Path) -> None:
    replies: list[Any] = [
        {"tool": "Read", "input": {"file_path": "notes.md"}},
        "Notes say Tuesday. READY_FOR_WRITER",
        "Wrote the summary.",
    ]
    handoff = tmp_path / "handoff"
    r = invoke("--pipeline", "reader, writer", "--handoff-dir", str(handoff), "--provider",
               "scripted", "--script", script(tmp_path, replies), "--format", "json",
               "Summarise the notes")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["agent"] == "pipeline" and data["final_text"] == "Wrote the summary."
    assert [c["agent"] for c in data["children"]] == ["reader", "writer"]
    assert sorted(p.name for p in handoff.iterdir()) == ["01-reader.md", "02-writer.md"]
    for bad in (["--pipeline", "reader", "--agent", "writer"], ["--pipeline", " , "],
                ["--require-ready"], ["--pipeline", "reader,nobody"]):
        r = invoke(*bad, "--provider", "scripted", "--script", script(tmp_path, ["x"]), "go")
        assert r.exit_code in (1, 2) and "Traceback" not in r.output, (bad, r.output)


GUARDED = """---
name: guarded
description: Runs shell commands, but never rm.
tools: Bash, Read{mcp_tool}
skills: house-style, no-such-skill
hooks:
  PreToolUse:
    - matcher: Bash
      hooks:
        - type: command
          command: "grep -q '\\"rm ' && {{ echo 'rm is forbidden for this agent' >&2; exit 2; }} || exit 0"
{mcp}---
You run commands carefully.
"""


@pytest.mark.slow
@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_agent_hooks_skills_and_mcp_are_wired_into_a_real_cli_run(
    project: Path, monkeypatch: pytest.MonkeyPatch, provider: str
) -> None:
    """Through the CLI and the real SDK: the agent file's PreToolUse hook blocks one Bash call
    (and not the other), its skill is in the system prompt the server receives, a missing
    skill is a warning on stderr, and its MCP server's tool is offered and called."""
    skill = project / ".claude" / "skills" / "house-style" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: house-style\ndescription: How we answer\n---\n"
                     "Always answer in exactly three bullet points.\n")
    (project / ".git").mkdir()  # the skill search stops at the repository root
    (project / "keep.txt").write_text("precious\n")
    mcp = ECHO_SERVER.is_file() and _has_mcp()
    pidfile = project / "mcp.pid"
    extra = ""
    if mcp:
        # a list of `name: {config}` items: Claude Code ignores a mapping here (measured)
        extra = (f"mcpServers:\n  - echo:\n      command: {json.dumps(sys.executable)}\n"
                 f"      args: [{json.dumps(str(ECHO_SERVER))}, {json.dumps(str(pidfile))}]\n")
    agent = GUARDED.format(mcp_tool=", mcp__echo__echo" if mcp else "", mcp=extra)
    (project / ".claude" / "agents" / "guarded.md").write_text(agent)
    calls: list[tuple[str, dict[str, Any]]] = [
        ("Bash", {"command": "rm -f keep.txt"}),
        ("Bash", {"command": "echo allowed > ran.txt"}),
    ]
    if mcp:
        calls.append(("mcp__echo__echo", {"text": "hello mcp"}))
    with FakeLLMServer() as server:
        server.add(tool_calls(calls), text("Done: one command was blocked."))
        if provider == "anthropic":
            monkeypatch.setenv("ANTHROPIC_BASE_URL", server.anthropic_base_url)
            monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
        else:
            monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
            monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        r = invoke("--agent", "guarded", "--provider", provider, "--yes", "--format", "json",
                   "--trust", "clean up")
        assert r.exit_code == 0, r.output
        server.assert_complete()
        first = server.requests[0].json
        system = first["system"] if provider == "anthropic" else first["messages"][0]["content"]
        assert system.startswith("You run commands carefully.")
        assert "# Skill: house-style" in system
        assert "Always answer in exactly three bullet points." in system
        offered = ([t["name"] for t in first["tools"]] if provider == "anthropic"
                   else [t["function"]["name"] for t in first["tools"]])
        assert offered == ["Read", "Bash"] + (["mcp__echo__echo"] if mcp else [])
    data = json.loads(r.stdout)
    blocked, allowed, *rest = data["tool_calls"]
    assert blocked["refusal"] == "hook" and not blocked["executed"]
    assert "rm is forbidden for this agent" in blocked["output"]
    assert (project / "keep.txt").read_text() == "precious\n"  # the hook really stopped it
    assert allowed["executed"] and (project / "ran.txt").read_text() == "allowed\n"
    if mcp:
        (echo,) = rest
        assert echo["executed"] and echo["output"] == "hello mcp"
        assert wait_dead(int(pidfile.read_text())), "the agent's MCP server outlived the run"
    assert "warning: skill 'no-such-skill' not found" in r.stderr  # even off a terminal


def test_refusals_for_want_of_a_question_are_explained_on_stderr(
    project: Path, tmp_path: Path
) -> None:
    replies: list[Any] = [{"tool_calls": [
        {"name": "Write", "input": {"file_path": "a.txt", "content": "x"}},
        {"name": "Bash", "input": {"command": "git status"}}]}, "could not"]
    r = invoke("--agent", "writer", "--provider", "scripted", "--script",
               script(tmp_path, replies), "write")
    assert r.exit_code == 0 and r.stdout == "could not\n"
    assert "2 tool call(s) needed permission and were refused (Bash, Write)" in r.stderr
    assert "--yes" in r.stderr
    r = invoke("--agent", "writer", "--provider", "scripted", "--script",
               script(tmp_path, replies), "--yes", "write")
    assert r.exit_code == 0 and "needed permission" not in r.stderr
    assert (project / "a.txt").read_text() == "x"


def _has_mcp() -> bool:
    try:
        import mcp  # noqa: F401
    except ImportError:
        return False
    return True


def test_no_live_tree_while_questions_may_be_asked(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A live redraw would overwrite the "Allow? [y/N]" prompt: plain progress lines then;
    the live tree (rooted at the --agent's name) only when nothing will be asked."""
    import contextlib

    from subagents.cli import run_cmd
    from subagents.dispatch import display
    from subagents.runtime.permissions import PermissionRequest

    roots: list[str] = []

    @contextlib.contextmanager
    def fake_live_tree(*args: Any, root_agent: str = "main", **kw: Any) -> Any:
        roots.append(root_agent)
        yield None

    async def ask(req: PermissionRequest) -> bool:
        return False

    monkeypatch.setattr(display, "live_tree", fake_live_tree)
    monkeypatch.setattr(run_cmd, "_ask_callback",
                        lambda assume_yes: None if assume_yes else ask)
    r = invoke("--agent", "reader", "--provider", "scripted", "--script",
               script(tmp_path, ["ok"]), "q")
    assert r.exit_code == 0 and roots == []  # someone may be asked: no live display
    r = invoke("--agent", "reader", "--yes", "--provider", "scripted", "--script",
               script(tmp_path, ["ok"]), "q")
    assert r.exit_code == 0 and roots == ["reader"]
