"""The runtime scenarios: one small project, a prompt each, and the model's side of the script.

The same scenario runs through the real Claude Code and through ``subagents run``, both against
a fake Messages API (:class:`~subagents.testing.server.FakeLLMServer`) that plays the model with
:func:`responder`.  The responder is stateless: a marker in the conversation's first user text
picks the script, the conversation so far picks the step, so both sides get the same tool calls
in the same order whatever else they send.

Markers (all written by this project):

* ``RT-MAIN <scenario>``: the main thread's prompt;
* ``RT-SUB <script> name=<agent>``: the prompt the main thread gives an agent it delegates to,
  so a child's requests can be told apart from the main thread's and from each other.

Every scripted tool call has the id ``toolu_rt_<label>``: the fingerprint finds the result of
"Read of a missing file" by its label, whatever order the results come back in.

Design decisions: the project is self-made (three agents, a ``CLAUDE.md`` with a marker line, a
few files, a git repository on branch ``rt-branch`` whose one commit says ``rt-commit-marker``)
so that the fingerprint can recognise context blocks by content this project wrote and never
needs Claude Code's wording.  Tool inputs use absolute paths inside the project (Claude Code's
tools ask for them).
"""

from __future__ import annotations

import itertools
import os
import re
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from subagents.providers.base import ModelResponse, TextBlock, ToolUseBlock

__all__ = [
    "AGENTS",
    "BRANCH",
    "CHILD_REPORT",
    "COMMIT_MARKER",
    "FILES",
    "RULE_MARKER",
    "SCENARIOS",
    "Scenario",
    "build_project",
    "responder",
    "scenario_by_id",
]

RULE_MARKER = "RT-RULE-MARKER"
BRANCH = "rt-branch"
COMMIT_MARKER = "rt-commit-marker"
MAIN = "RT-MAIN"
SUB = "RT-SUB"
CHILD_REPORT = "RT-CHILD-REPORT"

AGENTS: Mapping[str, str] = {
    "code-reviewer": """---
name: code-reviewer
description: Reviews code for bugs and style problems. Use after code changes.
tools: Read, Grep, Glob
model: sonnet
---
RT-BODY-code-reviewer. You review the files you are given and report each bug with its file
and line. You never change files.
""",
    "test-writer": """---
name: test-writer
description: Writes pytest unit tests for Python modules.
disallowedTools: Bash, WebFetch, WebSearch
model: haiku
---
RT-BODY-test-writer. You write small pytest tests under tests/.
""",
    "doc-helper": """---
name: doc-helper
description: Answers questions about the project's documentation.
maxTurns: 2
---
RT-BODY-doc-helper. You answer questions about the documentation and name the file you used.
""",
}

FILES: Mapping[str, str] = {
    "CLAUDE.md": f"# Project rules\n\n{RULE_MARKER}: answer in English.\n",
    "notes.txt": "first note\nsecond note\nthird note\n",
    "a.txt": "line one\nline two\tTABBED\ndup here\nand dup there\n" + "L" * 2500 + "\nlast\n",
    "b.txt": "bee\n",
    "crlf.txt": "one\r\ntwo\r\n",
    "empty.txt": "",
    "big.txt": "".join(f"row {i}\n" for i in range(1, 2501)),
    "src/app.py": "def main():\n    needle = 1\n    return needle\n",
    "src/util.py": "# nothing to find here\n",
    "README.md": "# Demo\n\nA demo project. needle in the readme.\n",
}


def build_project(project: Path, home: Path) -> None:
    """Write the project (a committed git repository) and an empty home."""
    for name, text in AGENTS.items():
        _write(project / ".claude" / "agents" / f"{name}.md", text)
    for rel, text in FILES.items():
        _write(project / rel, text)
    home.mkdir(parents=True, exist_ok=True)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home),
           "GIT_AUTHOR_NAME": "rt", "GIT_AUTHOR_EMAIL": "rt@example.invalid",
           "GIT_COMMITTER_NAME": "rt", "GIT_COMMITTER_EMAIL": "rt@example.invalid",
           "GIT_CONFIG_NOSYSTEM": "1"}
    for args in (["init", "-q", "-b", BRANCH, str(project)],
                 ["-C", str(project), "add", "-A"],
                 ["-C", str(project), "commit", "-q", "-m", f"{COMMIT_MARKER} initial"]):
        subprocess.run(["git", *args], env=env, capture_output=True, check=False)


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))


# --- scenarios --------------------------------------------------------------------------------

# A step: (label, tool name, input) with "{p}" in string values standing for the project path.
Step = tuple[str, str, Mapping[str, Any]]


@dataclass(frozen=True, slots=True)
class Scenario:
    """One runtime scenario: inputs only (the recording holds what was sent)."""

    id: str
    about: str
    prompt: str
    args: tuple[str, ...] = ()  # extra arguments, the same on both sides (--max-turns 2)
    # what the fingerprint keeps: context, params, tools, schemas, results, turns
    aspects: frozenset[str] = field(default_factory=frozenset)


def _s(id: str, about: str, prompt: str, aspects: str, args: tuple[str, ...] = ()) -> Scenario:
    return Scenario(id, about, f"{MAIN} {id} {prompt}", args, frozenset(aspects.split()))


SCENARIOS: tuple[Scenario, ...] = (
    _s("main-thread", "main thread with three custom agents: its first request",
       "Say hello.", "context params tools schemas turns"),
    _s("delegate-foreground", "the model delegates to code-reviewer in the foreground",
       "Please have notes.txt reviewed.", "context params tools results turns"),
    _s("delegate-background", "the model delegates without choosing foreground or background",
       "Please have notes.txt reviewed.", "results turns notices"),
    _s("delegate-each", "one foreground call to each agent and one without a type",
       "Probe every agent.", "context params tools schemas results turns"),
    _s("continue-agent", "delegate, then continue the same agent by its id",
       "Review notes.txt, then ask a follow-up.", "results turns notices"),
    _s("tools-read", "Read: found, long line, large, range, missing, empty, directory, CRLF",
       "Read some files.", "results"),
    _s("tools-bash", "Bash: output, none, large, failing, missing command, cd then pwd",
       "Run some commands.", "results"),
    _s("tools-edit", "Edit: replaced, not found, not unique, unchanged, missing file, empty "
       "file, large file",
       "Edit some files.", "results"),
    _s("tools-write", "Write: new file in new folders, over an existing file, empty, large, "
       "onto a folder",
       "Write some files.", "results"),
    _s("tools-search", "Grep and Glob in code-reviewer: files, content, count, none, many, "
       "bad path",
       "Search through a reviewer.", "results turns"),
    _s("tools-search-main", "Grep and Glob called in the main thread",
       "Search here.", "results"),
    _s("max-turns-agent", "doc-helper (maxTurns: 2) keeps calling tools",
       "Ask doc-helper to loop.", "results turns"),
    _s("max-turns-main", "the main thread with --max-turns 2 keeps calling tools",
       "Loop.", "turns", ("--max-turns", "2")),
    _s("unknown-tool", "a call to a tool that does not exist", "Call a missing tool.",
       "results"),
    _s("bad-input", "Read with a wrong field name, Bash with a number as command",
       "Send bad input.", "results"),
    _s("restricted-agent", "code-reviewer calls Bash and Write; a call for a missing agent",
       "Try a restricted agent.", "results"),
    _s("explicit-at", "@agent-code-reviewer in the prompt", "@agent-code-reviewer check notes.txt.",
       "params invocation turns"),
    _s("explicit-use", "'use the code-reviewer agent' in the prompt",
       "Use the code-reviewer agent to check notes.txt.", "params invocation turns"),
    _s("agent-flag", "--agent code-reviewer as the main thread",
       "Review notes.txt.", "context params tools schemas results turns",
       ("--agent", "code-reviewer")),
)

_BY_ID = {s.id: s for s in SCENARIOS}


def scenario_by_id(scenario_id: str) -> Scenario:
    try:
        return _BY_ID[scenario_id]
    except KeyError:
        raise KeyError(f"no runtime scenario {scenario_id!r} (have: "
                       + ", ".join(_BY_ID) + ")") from None


# --- the scripts ------------------------------------------------------------------------------

_MAIN_STEPS: Mapping[str, Sequence[Step]] = {
    "tools-read": (
        ("read_found", "Read", {"file_path": "{p}/a.txt"}),
        ("read_large", "Read", {"file_path": "{p}/big.txt"}),
        ("read_range", "Read", {"file_path": "{p}/big.txt", "offset": 10, "limit": 3}),
        ("read_missing", "Read", {"file_path": "{p}/missing.txt"}),
        ("read_empty", "Read", {"file_path": "{p}/empty.txt"}),
        ("read_directory", "Read", {"file_path": "{p}/src"}),
        ("read_crlf", "Read", {"file_path": "{p}/crlf.txt"}),
    ),
    "tools-bash": (
        ("bash_output", "Bash", {"command": "echo hi", "description": "Say hi"}),
        ("bash_empty", "Bash", {"command": "true", "description": "Nothing"}),
        ("bash_large", "Bash", {"command": "seq 1 20000", "description": "Long output"}),
        ("bash_error", "Bash", {"command": "echo out; echo err >&2; exit 3",
                                "description": "Fail with 3"}),
        ("bash_missing", "Bash", {"command": "no-such-command-rt", "description": "Missing"}),
        ("bash_cd", "Bash", {"command": "cd src && pwd", "description": "Change folder"}),
        ("bash_pwd", "Bash", {"command": "pwd", "description": "Where"}),
    ),
    "tools-edit": (
        ("edit_not_unique", "Edit", {"file_path": "{p}/a.txt", "old_string": "dup",
                                     "new_string": "DUP"}),
        ("edit_found", "Edit", {"file_path": "{p}/a.txt", "old_string": "line one",
                                "new_string": "line 1"}),
        ("edit_not_found", "Edit", {"file_path": "{p}/b.txt", "old_string": "absent text",
                                    "new_string": "x"}),
        ("edit_unchanged", "Edit", {"file_path": "{p}/b.txt", "old_string": "bee",
                                    "new_string": "bee"}),
        ("edit_missing_file", "Edit", {"file_path": "{p}/nowhere.txt", "old_string": "a",
                                       "new_string": "b"}),
        ("edit_empty", "Edit", {"file_path": "{p}/empty.txt", "old_string": "",
                                "new_string": "filled\n"}),
        ("edit_large", "Edit", {"file_path": "{p}/big.txt", "old_string": "row 2000\n",
                                "new_string": "ROW 2000\n"}),
    ),
    "tools-write": (
        ("write_new", "Write", {"file_path": "{p}/newdir/sub/f.txt", "content": "deep\n"}),
        ("write_existing", "Write", {"file_path": "{p}/notes.txt", "content": "replaced\n"}),
        ("write_empty", "Write", {"file_path": "{p}/blank.txt", "content": ""}),
        ("write_large", "Write", {"file_path": "{p}/large.txt",
                                  "content": "".join(f"line {i}\n" for i in range(1, 12001))}),
        ("write_error", "Write", {"file_path": "{p}/src", "content": "not a folder\n"}),
    ),
    "tools-search-main": (
        ("grep_main", "Grep", {"pattern": "needle"}),
        ("glob_main", "Glob", {"pattern": "**/*.py"}),
    ),
    "unknown-tool": (("unknown_tool", "NoSuchTool", {"x": 1}),),
    "bad-input": (
        ("read_wrong_field", "Read", {"path": "{p}/a.txt"}),
        ("bash_number", "Bash", {"command": 42}),
    ),
    "agent-flag": (
        ("read_found", "Read", {"file_path": "{p}/notes.txt"}),
        ("bash_refused", "Bash", {"command": "echo hi", "description": "hi"}),
    ),
}

_SEARCH_STEPS: Sequence[Step] = (
    ("grep_files", "Grep", {"pattern": "needle"}),
    ("grep_content", "Grep", {"pattern": "needle", "output_mode": "content", "-n": True}),
    ("grep_count", "Grep", {"pattern": "needle", "output_mode": "count"}),
    ("grep_none", "Grep", {"pattern": "zzz-no-match"}),
    ("grep_bad_path", "Grep", {"pattern": "needle", "path": "{p}/no-such-folder"}),
    ("grep_large", "Grep", {"pattern": "row", "output_mode": "content", "-n": True}),
    ("glob_found", "Glob", {"pattern": "**/*.py"}),
    ("glob_none", "Glob", {"pattern": "*.nothing"}),
    ("glob_bad_path", "Glob", {"pattern": "*.py", "path": "{p}/no-such-folder"}),
)

_ids = itertools.count(1)


def _fill(value: Any, project: str) -> Any:
    if isinstance(value, str):
        return value.replace("{p}", project)
    if isinstance(value, Mapping):
        return {k: _fill(v, project) for k, v in value.items()}
    return value


def _call(label: str, name: str, args: Mapping[str, Any], project: str) -> ToolUseBlock:
    return ToolUseBlock(id=f"toolu_rt_{label}", name=name, input=_fill(args, project))


def _reply(*calls: ToolUseBlock) -> ModelResponse:
    return ModelResponse(content=tuple(calls), stop_reason="tool_use")


def _text(words: str) -> ModelResponse:
    return ModelResponse(content=(TextBlock(words),))


def _message_list(body: Mapping[str, Any]) -> list[Any]:
    messages = body.get("messages")
    return messages if isinstance(messages, list) else []


def _content_text(content: Any, *, results: bool) -> str:
    if isinstance(content, str):
        return content
    out: list[str] = []
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text":
            out.append(str(block.get("text", "")))
        elif results and block.get("type") == "tool_result":
            out.append(_content_text(block.get("content"), results=True))
    return "\n".join(out)


def conversation_marker(body: Mapping[str, Any]) -> tuple[str, str, str]:
    """``(thread, script, agent)`` of a request: ("main", scenario, "") or ("child", script, X).

    ``("side", "", "")`` for a request that carries neither marker.
    """
    messages = body.get("messages")
    texts = [_content_text(m.get("content"), results=False)
             for m in messages if isinstance(m, dict) and m.get("role") == "user"] \
        if isinstance(messages, list) else []
    joined = "\n".join(texts)
    sub = re.search(rf"{SUB} (\S+) name=(\S+)", joined)
    if sub:
        return "child", sub.group(1), sub.group(2)
    main = re.search(rf"{MAIN} (\S+)", joined)
    if main:
        return "main", main.group(1), ""
    return "side", "", ""


def _results(messages: Sequence[Any]) -> list[tuple[str, str]]:
    """``(tool_use_id, text)`` of every tool result in the conversation, in order."""
    out: list[tuple[str, str]] = []
    for m in messages:
        content = m.get("content") if isinstance(m, dict) else None
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                out.append((str(block.get("tool_use_id")),
                            _content_text(block.get("content"), results=True)))
    return out


def _offered(body: Mapping[str, Any]) -> list[str]:
    tools = body.get("tools")
    return [str(t.get("name")) for t in tools if isinstance(t, dict)] \
        if isinstance(tools, list) else []


def _agent_tool(body: Mapping[str, Any]) -> tuple[str, set[str]]:
    """The delegation tool a request offers (``Agent`` or ``Task``) and its input fields."""
    for tool in body.get("tools") or []:
        if isinstance(tool, dict) and tool.get("name") in ("Agent", "Task"):
            schema = tool.get("input_schema") or {}
            return str(tool["name"]), set((schema.get("properties") or {}).keys())
    return "Agent", set()


def _delegate(body: Mapping[str, Any], label: str, agent: str | None, script: str,
              *, foreground: bool = True) -> ToolUseBlock:
    name, fields = _agent_tool(body)
    args: dict[str, Any] = {"description": f"rt {label}",
                            "prompt": f"{SUB} {script} name={agent or 'default'}"}
    if agent is not None:
        args["subagent_type"] = agent
    if foreground and "run_in_background" in fields:
        args["run_in_background"] = False
    return ToolUseBlock(id=f"toolu_rt_{label}", name=name, input=args)


_AGENT_ID = re.compile(r"agent[ _-]?id[\"']?\s*[:=]\s*[\"']?([A-Za-z0-9_.-]+)", re.I)


def agent_id_in(text: str) -> str | None:
    """The agent id a delegation result names (``agentId: X``, ``agent_id=X``), if any."""
    match = _AGENT_ID.search(text)
    return match.group(1) if match else None


def responder(project: Path | str) -> Callable[[Any], ModelResponse]:
    """The model's side of every scenario, for ``FakeLLMServer(default=...)``."""
    proj = str(project)

    def answer(request: Any) -> ModelResponse:
        body = request.json if isinstance(getattr(request, "json", None), dict) else {}
        messages = _message_list(body)
        thread, script, agent = conversation_marker(body)
        done = _results(messages)
        if not _offered(body) and thread != "child":
            return _text("RT-TOOLLESS-REPLY")
        if thread == "child":
            return _child(script, agent, len(done), proj)
        if thread == "main":
            return _main(script, body, done, proj)
        return _text("RT-UNSCRIPTED-REPLY")

    return answer


def _steps(steps: Sequence[Step], n: int, proj: str, end: str) -> ModelResponse:
    if n < len(steps):
        label, name, args = steps[n]
        return _reply(_call(label, name, args, proj))
    return _text(end)


def _child(script: str, agent: str, n: int, proj: str) -> ModelResponse:
    if script in {"delegate-foreground", "delegate-background"}:
        return _steps((("child_read", "Read", {"file_path": "{p}/notes.txt"}),), n, proj,
                      f"{CHILD_REPORT}: notes.txt has three lines and no bugs.")
    if script == "tools-search":
        return _steps(_SEARCH_STEPS, n, proj, f"{CHILD_REPORT} search done.")
    if script == "max-turns-agent":
        return _reply(_call(f"child_loop_{n}", "Bash",
                            {"command": f"echo loop{n}", "description": "loop"}, proj))
    if script == "restricted-agent":
        if n == 0:
            return _reply(_call("child_bash", "Bash", {"command": "echo hi", "description": "hi"},
                                proj),
                          _call("child_write", "Write", {"file_path": "{p}/x.txt",
                                                         "content": "x"}, proj))
        return _text(f"{CHILD_REPORT} restricted done.")
    return _text(f"{CHILD_REPORT} {agent} done.")


def _main(script: str, body: Mapping[str, Any], done: Sequence[tuple[str, str]],
          proj: str) -> ModelResponse:
    n = len(done)
    if script in _MAIN_STEPS:
        return _steps(_MAIN_STEPS[script], n, proj, f"RT-DONE {script}")
    if script in ("delegate-foreground", "tools-search", "max-turns-agent", "explicit-at",
                  "explicit-use"):
        if n == 0:
            return _reply(_delegate(body, "delegate", "code-reviewer" if script != "max-turns-agent"
                                    else "doc-helper", script))
        return _text(f"RT-DONE {script}")
    if script == "delegate-background":
        if n == 0:
            return _reply(_delegate(body, "delegate", "code-reviewer", script, foreground=False))
        return _text(f"RT-DONE {script} after {n} result(s)")
    if script == "delegate-each":
        if n == 0:
            calls = [_delegate(body, f"delegate_{name.replace('-', '_')}", name, script)
                     for name in AGENTS]
            calls.append(_delegate(body, "delegate_default", None, script))
            return _reply(*calls)
        return _text(f"RT-DONE {script}")
    if script == "restricted-agent":
        if n == 0:
            return _reply(_delegate(body, "delegate", "code-reviewer", script),
                          _delegate(body, "delegate_missing", "no-such-agent", script))
        return _text(f"RT-DONE {script}")
    if script == "max-turns-main":
        return _reply(_call(f"main_loop_{n}", "Bash",
                            {"command": f"echo main{n}", "description": "loop"}, proj))
    if script == "continue-agent":
        return _continue(body, done, proj)
    return _text(f"RT-DONE {script}")


def _continue(body: Mapping[str, Any], done: Sequence[tuple[str, str]],
              proj: str) -> ModelResponse:
    """Delegate; then load SendMessage when it is deferred; then continue the agent by id."""
    called = {tool_id for tool_id, _ in done}
    if not done:
        return _reply(_delegate(body, "delegate", "code-reviewer", "continue-agent"))
    if "toolu_rt_continue" in called:
        return _text("RT-DONE continue-agent")
    offered = _offered(body)
    if "SendMessage" not in offered and "ToolSearch" in offered \
            and "toolu_rt_load_sendmessage" not in called:
        return _reply(_call("load_sendmessage", "ToolSearch",
                            {"query": "select:SendMessage", "max_results": 1}, proj))
    first = dict(done).get("toolu_rt_delegate", "")
    agent_id = agent_id_in(first) or "unknown-agent-id"
    return _reply(_call("continue", "SendMessage",
                        {"to": agent_id, "message": f"{SUB} continue-agent name=code-reviewer "
                         "one more question", "summary": "follow-up"}, proj))
