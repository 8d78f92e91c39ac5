"""The tool set per context (Claude Code 2.1.332), ToolSearch and deferred tools, the version
table, and the errors for tools a context does not have."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from subagents.definition import AgentDefinition
from subagents.providers.base import ModelRequest, ToolResultBlock
from subagents.runtime.permissions import PermissionPolicy
from subagents.runtime.runner import AgentRunner
from subagents.runtime.tools import builtin_tools
from subagents.runtime.tools.formats import DEFAULT_VERSION, FORMATS, ToolFormats, formats_for
from subagents.runtime.tools.toolset import ToolSearchTool, select_tools
from subagents.testing import ScriptedModel, text, tool_call, tool_calls

ALL = AgentDefinition(name="all", system_prompt="x")  # no tools: every tool
REVIEWER = AgentDefinition(name="reviewer", system_prompt="x", tools=("Read", "Grep", "Glob"))
WITH_BASH = AgentDefinition(name="prober", system_prompt="x",
                            tools=("Read", "Grep", "Glob", "Bash", "Write", "Edit"))
STAR = AgentDefinition(name="star", system_prompt="x", tools=("*",))
NO_BASH = AgentDefinition(name="writer", system_prompt="x", disallowed_tools=("Bash",))


def _runner(model: ScriptedModel, tmp_path: Path, **kw: Any) -> AgentRunner:
    kw.setdefault("parent_model", "m")
    return AgentRunner(model, cwd=tmp_path, transcripts=False, **kw)


def _names(request: ModelRequest) -> list[str]:
    return [t.name for t in request.tools]


def _results(request: ModelRequest) -> list[ToolResultBlock]:
    return [b for b in request.messages[-1].content if isinstance(b, ToolResultBlock)]


def test_grep_and_glob_only_for_agents_that_name_them_and_have_no_bash() -> None:
    tools = builtin_tools()

    def offered(agent: AgentDefinition) -> set[str]:
        available = PermissionPolicy().restrict(agent).tools.apply(tools)
        return set(select_tools(available, agent).offered)

    assert offered(REVIEWER) == {"Read", "Grep", "Glob"}
    every = {"Read", "Write", "Edit", "Bash", "ToolSearch"}
    assert offered(ALL) == every  # the main thread, too
    assert offered(WITH_BASH) == {"Read", "Write", "Edit", "Bash"}
    assert offered(STAR) == every
    assert offered(NO_BASH) == every - {"Bash"}  # measured: still no Grep/Glob
    # the switch is data: a version row without the rule keeps them
    loose = ToolFormats(version="x", search_tools_need_explicit=False)
    assert {"Grep", "Glob"} <= set(select_tools(tools, ALL, loose).offered)


async def test_an_agent_naming_grep_beside_bash_is_warned(tmp_path: Path) -> None:
    model = ScriptedModel([text("a"), text("b")])
    result = await _runner(model, tmp_path).run(WITH_BASH, "go")
    assert [w for w in result.warnings if "next to Bash" in w] == [
        "tool Grep is in the tools of 'prober', but next to Bash it is not offered (as in "
        "Claude Code 2.1.332); the agent searches through Bash",
        "tool Glob is in the tools of 'prober', but next to Bash it is not offered (as in "
        "Claude Code 2.1.332); the agent searches through Bash"]
    quiet = await _runner(model, tmp_path).run(REVIEWER, "go")
    assert not [w for w in quiet.warnings if "next to Bash" in w]


async def test_a_main_thread_grep_call_points_to_bash(tmp_path: Path) -> None:
    model = ScriptedModel([
        tool_calls([("Grep", {"pattern": "x"}), ("Glob", {"pattern": "*"}),
                    ("MultiEdit", {"file_path": "a", "edits": []}), ("NoSuchTool", {"x": 1}),
                    ("WebFetch", {"url": "https://example.com"})]),
        text("done"),
    ])
    result = await _runner(model, tmp_path).run(ALL, "go")
    assert "Grep" not in _names(model.requests[0])
    grep, glob, multi, unknown, fetch = _results(model.requests[1])
    # a refusal is ours, not outside text: not wrapped as untrusted data
    assert fetch.content == "<tool_use_error>Error: No such tool available: WebFetch" \
        "</tool_use_error>"
    assert grep.is_error and grep.content == (
        "<tool_use_error>Error: No such tool available: Grep. Grep is not offered here: search "
        "file contents with `grep` through the Bash tool instead.</tool_use_error>")
    assert glob.content.startswith("<tool_use_error>Error: No such tool available: Glob. ")
    assert "`find`" in glob.content
    assert multi.content == "<tool_use_error>Error: No such tool available: MultiEdit" \
        "</tool_use_error>"
    assert unknown.content == "<tool_use_error>Error: No such tool available: NoSuchTool" \
        "</tool_use_error>"
    assert not any(c.executed for c in result.tool_calls)
    assert [c.refusal for c in result.tool_calls] == ["not_allowed", "not_allowed", "unknown",
                                                      "unknown", "unknown"]


async def test_our_extra_tools_are_offered_only_when_asked(tmp_path: Path) -> None:
    model = ScriptedModel([text("a"), text("b")])
    await _runner(model, tmp_path).run(ALL, "go")
    assert not {"MultiEdit", "LS", "TodoWrite"} & set(_names(model.requests[0]))
    await _runner(model, tmp_path, tools=builtin_tools(extras=True)).run(ALL, "go")
    assert {"MultiEdit", "LS", "TodoWrite"} <= set(_names(model.requests[1]))


async def test_deferred_tools_load_through_toolsearch(tmp_path: Path) -> None:
    tools = builtin_tools(web=True, search_backend=lambda q: [])
    model = ScriptedModel([
        tool_call("ToolSearch", {"query": "select:WebSearch,Nope"}),
        tool_call("ToolSearch", {"query": "select:Nope"}),
        tool_call("WebSearch", {"query": "what is new"}),
        text("done"),
    ])
    bypass = PermissionPolicy(mode="bypassPermissions", allow_bypass=True)
    result = await _runner(model, tmp_path, tools=tools, policy=bypass).run(ALL, "go")
    first = _names(model.requests[0])
    assert "ToolSearch" in first and "WebSearch" not in first and "WebFetch" not in first
    loaded = _results(model.requests[1])[0].content
    assert loaded.startswith("<functions>\n<function>") and loaded.endswith("</functions>")
    spec = json.loads(loaded.split("<function>")[1].split("</function>")[0])
    assert spec["name"] == "WebSearch" and spec["parameters"]["required"] == ["query"]
    assert "WebSearch" in _names(model.requests[1]) and "WebFetch" not in _names(
        model.requests[1])  # listed from the next request on
    assert _results(model.requests[2])[0].content == "No matching deferred tools found"
    assert result.tool_calls[2].executed  # the loaded tool runs
    # an agent that names a deferred tool gets it directly, without ToolSearch
    named = AgentDefinition(name="fetcher", system_prompt="x", tools=("Read", "WebFetch"))
    direct = ScriptedModel([text("ok")])
    await _runner(direct, tmp_path, tools=tools).run(named, "go")
    assert _names(direct.requests[0]) == ["Read", "WebFetch"]


async def test_a_deferred_tool_called_before_loading_still_runs(tmp_path: Path) -> None:
    tools = builtin_tools(web=True)
    model = ScriptedModel([tool_call("WebFetch", {"url": "file:///etc/passwd"}), text("x")])
    bypass = PermissionPolicy(mode="bypassPermissions", allow_bypass=True)
    result = await _runner(model, tmp_path, tools=tools, policy=bypass).run(ALL, "go")
    assert result.tool_calls[0].executed and "only http" in result.tool_calls[0].output


def test_toolsearch_by_keywords() -> None:
    tools = builtin_tools(web=True, search_backend=lambda q: [])
    search = ToolSearchTool({n: tools[n] for n in ("WebFetch", "WebSearch")})
    from runtime_helpers import ctx_for

    ctx = ctx_for(Path("."))
    out = search.call({"query": "fetch url", "max_results": 1}, ctx)
    assert out.content.count("<function>") == 1 and '"name": "WebFetch"' in out.content
    assert search.call({"query": "zzzz"}, ctx).content == "No matching deferred tools found"
    assert ctx.extra["loaded_tools"] == {"WebFetch"}


async def test_toolsearch_is_there_even_with_nothing_to_load(tmp_path: Path) -> None:
    model = ScriptedModel([tool_call("ToolSearch", {"query": "select:WebFetch"}), text("a"),
                           text("b")])
    await _runner(model, tmp_path).run(ALL, "go")
    assert "ToolSearch" in _names(model.requests[0])
    assert _results(model.requests[1])[0].content == "No matching deferred tools found"
    await _runner(model, tmp_path).run(REVIEWER, "go")  # an explicit list: only what it names
    assert _names(model.requests[2]) == ["Read", "Grep", "Glob"]


def test_the_version_table() -> None:
    assert DEFAULT_VERSION in FORMATS
    row = formats_for()
    assert (row.read_max_bytes, row.bash_inline_chars, row.bash_preview_chars,
            row.grep_head_limit, row.glob_limit) == (256 * 1024, 30_000, 2_000, 250, 100)
    assert formats_for("2.1.332") is row
    assert formats_for("9.9.9") is row  # newer: the newest row at or below it
    assert formats_for("0.1") is FORMATS[DEFAULT_VERSION]  # older than every row
    assert builtin_tools(claude_code="2.1.332")["Read"].formats is row  # type: ignore[attr-defined]


async def test_the_runner_follows_the_configured_version(tmp_path: Path) -> None:
    FORMATS["0.0.1-test"] = ToolFormats(version="0.0.1-test", search_tools_need_explicit=False)
    try:
        model = ScriptedModel([text("a")])
        await _runner(model, tmp_path, claude_code="0.0.1-test").run(ALL, "go")
        assert {"Grep", "Glob"} <= set(_names(model.requests[0]))
    finally:
        del FORMATS["0.0.1-test"]


def test_cli_extra_tools_flag(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    from subagents.cli.main import cli

    monkeypatch.chdir(tmp_path)
    replies = tmp_path / "s.json"
    replies.write_text(json.dumps([{"tool": "LS", "input": {}}, "done"]))
    args = ["run", "--provider", "scripted", "--script", str(replies), "--no-transcript",
            "--format", "json", "go"]
    off = CliRunner().invoke(cli, args)
    assert off.exit_code == 0, off.output
    (call,) = json.loads(off.stdout)["tool_calls"]
    assert not call["executed"] and "No such tool available: LS" in call["output"]
    on = CliRunner().invoke(cli, [*args[:-1], "--extra-tools", "go"])
    assert on.exit_code == 0, on.output
    (call,) = json.loads(on.stdout)["tool_calls"]
    assert call["executed"] and not call["is_error"]


_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
                     | st.text(max_size=5),
                     lambda inner: st.lists(inner, max_size=3)
                     | st.dictionaries(st.text(max_size=5), inner, max_size=3), max_leaves=8)


@settings(max_examples=60, deadline=None)
@example(name="Read", value={"\n": None})  # a made-up key with a newline stays on one line
@given(name=st.sampled_from(sorted(builtin_tools(extras=True))),
       value=st.dictionaries(st.sampled_from(["file_path", "command", "pattern", "offset",
                                              "timeout", "edits", "x", "-n", "todos"]),
                             _JSON, max_size=4) | _JSON)
def test_any_input_is_accepted_or_refused_in_claude_codes_shape(name: str, value: Any) -> None:
    from subagents.runtime.tools.base import ToolInputError

    tool = builtin_tools(extras=True)[name]
    try:
        tool.check_input(value)
    except ToolInputError as exc:
        head, *issues = exc.message.split("\n")
        assert head in (f"InputValidationError: {name} failed due to the following issue:",
                        f"InputValidationError: {name} failed due to the following issues:")
        assert issues and all(i.startswith(("The ", "An unexpected")) for i in issues)
