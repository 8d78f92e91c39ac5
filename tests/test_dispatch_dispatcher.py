"""AgentDispatcher + the main thread, driven offline by a model scripted per agent."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dispatch_helpers import PerAgentModel, agent, runner
from subagents.dispatch.dispatcher import AgentDispatcher, tree_usage
from subagents.dispatch.main_thread import run_main_thread, run_main_thread_async
from subagents.providers.base import (
    ModelRequest,
    ModelResponse,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
)
from subagents.providers.models import resolve_model
from subagents.testing import text, tool_call, tool_calls

REVIEWER = agent("code-reviewer", "Reviews code for quality.", "You review code carefully.",
                 tools=("Read", "Grep"), model="haiku")
WRITER = agent("doc-writer", "Writes documentation.", tools=("Read", "Write"))


def task(agent_name: str, prompt: str = "do the thing", **extra: object) -> dict[str, object]:
    """An Agent call's input; in the foreground unless ``run_in_background`` is given (the
    background protocol has its own tests, tests/test_dispatch_protocol.py)."""
    return {"description": "a task", "prompt": prompt, "subagent_type": agent_name,
            "run_in_background": False, **extra}


def report(content: str) -> str:
    """The report inside a framed foreground result (each line indented by two spaces)."""
    lines = content.split("The report:\n", 1)[1].splitlines()
    return "\n".join(line[2:] for line in lines if line.startswith("  "))


def tool_results(req: ModelRequest) -> list[tuple[str, bool]]:
    last = req.messages[-1]
    return [(b.content, b.is_error) for b in last.content if isinstance(b, ToolResultBlock)]


def test_task_call_spawns_isolated_child_and_returns_its_final_text(tmp_path: Path) -> None:
    model = PerAgentModel({
        "main": [tool_call("Task", task("Code_Reviewer", "Review src/app.py for bugs"),
                           say="Delegating."), text("The reviewer found nothing.")],
        "code-reviewer": [text("src/app.py: no bugs found.")],
    })
    result = run_main_thread("please check src/app.py", agents=[REVIEWER, WRITER], model=model,
                             cwd=tmp_path)
    assert result.final_text == "The reviewer found nothing."
    # First main request: the Agent tool, and the agents listed in a system reminder.
    first = model.requests["main"][0]
    assert any(t.name == "Agent" for t in first.tools)
    listing = first.messages[0].content[-1].text  # type: ignore[union-attr]
    assert listing.startswith("<system-reminder>\nAvailable agent types for the Agent tool:")
    assert "- code-reviewer: Reviews code for quality. (Tools: Read, Grep)" in listing
    assert "- doc-writer: Writes documentation. (Tools: Read, Write)" in listing
    assert first.messages[0].content[0].text == "please check src/app.py"  # type: ignore[union-attr]
    # The child saw only its prompt, its system prompt, its model and its tools; no Agent tool.
    (child_req,) = model.requests["code-reviewer"]
    assert [m.text for m in child_req.messages] == ["Review src/app.py for bugs"]
    assert child_req.system.startswith("You review code carefully.")
    assert child_req.model == resolve_model("haiku")
    assert sorted(t.name for t in child_req.tools) == ["Grep", "Read"]
    # The parent got the child's report, framed, with its id and usage.
    ((content, is_error),) = tool_results(model.requests["main"][1])
    assert not is_error and report(content) == "src/app.py: no bugs found."
    assert re.search(r"^agentId: a[0-9a-f]{16} \(", content, re.M)
    assert "<usage>subagent_tokens: 15\ntool_uses: 0\nduration_ms: " in content
    # The tree and the usage across it.
    assert [c.agent for c in result.children] == ["code-reviewer"]
    assert tree_usage(result) == result.usage + result.children[0].usage
    assert tree_usage(result) == Usage(30, 15)


def test_per_call_model_overrides_frontmatter(tmp_path: Path) -> None:
    model = PerAgentModel({"main": [tool_call("Task", task("code-reviewer", model="opus")),
                                    text("ok")],
                           "code-reviewer": [text("done")]})
    run_main_thread("x", agents=[REVIEWER], model=model, cwd=tmp_path)
    assert model.requests["code-reviewer"][0].model == resolve_model("opus")


def test_unknown_agent_is_an_error_naming_the_available_agents(tmp_path: Path) -> None:
    model = PerAgentModel({"main": [tool_call("Task", task("code-critic")), text("I'll do it myself")]})
    result = run_main_thread("x", agents=[REVIEWER, WRITER], model=model, cwd=tmp_path)
    ((content, is_error),) = tool_results(model.requests["main"][1])
    assert is_error
    assert "'code-critic' not found" in content
    assert "code-reviewer" in content and "doc-writer" in content and "general-purpose" in content
    # every agent, built-in or not, in name order with case aside (as Claude Code lists them)
    listed = content.split("Available agents: ", 1)[1].split(". ", 1)[0].split(", ")
    assert listed == sorted(listed, key=str.casefold) and listed[0] == "claude"
    assert {"Explore", "Plan", "statusline-setup"} <= set(listed)
    assert result.final_text == "I'll do it myself"  # the parent carried on
    assert result.children[0].stop_reason == "error"


def test_missing_prompt_is_an_error(tmp_path: Path) -> None:
    model = PerAgentModel({"main": [tool_call("Task", {"subagent_type": "code-reviewer",
                                                       "description": "x"}),
                                    text("ok")]})
    run_main_thread("x", agents=[REVIEWER], model=model, cwd=tmp_path)
    ((content, is_error),) = tool_results(model.requests["main"][1])
    assert is_error and "missing 'prompt'" in content
    assert "code-reviewer" not in model.requests  # nothing was spawned


def test_children_get_no_agent_tool_without_nesting(tmp_path: Path) -> None:
    delegator = agent("delegator", tools=None)
    model = PerAgentModel({"main": [tool_call("Task", task("delegator")), text("ok")],
                           "delegator": [tool_call("Task", task("code-reviewer")), text("x")]})
    run_main_thread("x", agents=[delegator, REVIEWER], model=model, cwd=tmp_path, nesting=False)
    child_tools = {t.name for t in model.requests["delegator"][0].tools}
    assert not child_tools & {"Agent", "Task", "SendMessage"} and "Read" in child_tools
    ((content, is_error),) = tool_results(model.requests["delegator"][1])
    assert is_error and "No such tool available: Task. Task is not among the tools" in content
    assert "code-reviewer" not in model.requests


def test_recursive_self_delegation_is_bounded_by_the_depth_limit(tmp_path: Path) -> None:
    """As in Claude Code, an agent may start its own type again; the depth limit bounds it."""
    loop = agent("looper", tools=None)
    model = PerAgentModel({"main": [tool_call("Task", task("looper")), text("done")],
                           "looper": [tool_call("Task", task("Looper")),
                                      tool_call("Agent", task("looper")),
                                      tool_call("Agent", task("looper")),
                                      text("l3"), text("l2"), text("l1")]})
    result = run_main_thread("x", agents=[loop], model=model, cwd=tmp_path)
    reqs = model.requests["looper"]
    assert len(reqs) == 6  # three nested runs, two requests each; no fourth run
    assert [("Agent" in {t.name for t in r.tools}) for r in reqs[:3]] == [True, True, False]
    ((content, is_error),) = tool_results(reqs[3])
    assert is_error and "Agent" in content  # depth 3 has no Agent tool: the call is refused
    l1 = result.children[0]
    assert l1.final_text == "l1" and l1.children[0].children[0].final_text == "l3"


def test_nesting_depth_limit(tmp_path: Path) -> None:
    a, b, c, d = (agent(n, tools=None) for n in ("aa", "bb", "cc", "dd"))
    model = PerAgentModel({
        "main": [tool_call("Task", task("aa")), text("end")],
        "aa": [tool_call("Task", task("bb")), text("a done")],
        "bb": [tool_call("Task", task("cc")), text("b done")],
        "cc": [tool_call("Task", task("dd")), text("c done")],
    })
    result = run_main_thread("x", agents=[a, b, c, d], model=model, cwd=tmp_path, nesting=True)
    # aa (depth 1) and bb (depth 2) may delegate; cc at depth 3 gets no Agent tool.
    assert "Agent" in {t.name for t in model.requests["aa"][0].tools}
    assert "Agent" in {t.name for t in model.requests["bb"][0].tools}
    assert {"Agent", "Task", "SendMessage"}.isdisjoint(
        t.name for t in model.requests["cc"][0].tools)
    # a child that may delegate is told which agents exist with its first tool results (as
    # in Claude Code), not in its first message
    assert "Available agent types" not in model.requests["aa"][0].messages[0].text
    assert "Available agent types for the Agent tool:" in model.requests["aa"][1].messages[-1].text
    assert "dd" not in model.requests
    cc = result.children[0].children[0].children[0]
    assert cc.agent == "cc" and cc.final_text == "c done"
    assert tree_usage(result).input_tokens == 10 * (2 + 2 + 2 + 2)


async def test_dispatch_depth_limit_direct(tmp_path: Path) -> None:
    model = PerAgentModel({"code-reviewer": [text("fine")]})
    d = AgentDispatcher([REVIEWER], runner=runner(model, tmp_path), max_depth=1)
    ok = await d.dispatch("code-reviewer", "look")
    assert ok.final_text == "fine"
    from subagents.runtime.tools.base import ToolContext

    deep = ToolContext(cwd=tmp_path, depth=1)
    refused = await d.dispatch("code-reviewer", "look", parent=deep)
    assert refused.stop_reason == "error" and "depth limit of 1" in (refused.error or "")
    assert deep.children == [refused]


@pytest.mark.parametrize("limit", [5, 20])
def test_fan_out_of_50_respects_the_concurrency_limit(tmp_path: Path, limit: int) -> None:
    workers = [agent(f"worker-{i:02d}") for i in range(50)]
    scripts: dict[str, list[object]] = {
        "main": [tool_calls([("Task", task(w.name, f"part {i}")) for i, w in enumerate(workers)]),
                 text("all parts done")],
    }
    scripts.update({w.name: [text(f"{w.name} done")] for w in workers})
    model = PerAgentModel(scripts, delays={w.name: 0.02 for w in workers})  # type: ignore[arg-type]
    seen: list[int] = []
    result = run_main_thread("split it", agents=workers, model=model, cwd=tmp_path,
                             max_concurrency=limit,
                             on_event=lambda k, d: seen.append(1) if k == "delegate" else None)
    outputs = tool_results(model.requests["main"][1])
    assert [report(c) for c, _ in outputs] == [f"worker-{i:02d} done" for i in range(50)]
    assert len(result.children) == 50 and len(seen) == 50
    # Children's model calls overlapped, but never more than the limit at once.
    assert 1 < model.peak <= limit


def test_several_task_calls_in_one_message_run_in_parallel(tmp_path: Path) -> None:
    model = PerAgentModel(
        {"main": [tool_calls([("Task", task("code-reviewer")), ("Task", task("doc-writer"))]),
                  text("both done")],
         "code-reviewer": [text("reviewed")], "doc-writer": [text("written")]},
        delays={"code-reviewer": 0.05, "doc-writer": 0.05},
    )
    run_main_thread("x", agents=[REVIEWER, WRITER], model=model, cwd=tmp_path)
    assert model.peak == 2
    assert [(report(c), e) for c, e in tool_results(model.requests["main"][1])] == [
        ("reviewed", False), ("written", False)]


def test_child_that_raises_becomes_an_error_and_parent_continues(tmp_path: Path) -> None:
    model = PerAgentModel({"main": [tool_calls([("Task", task("code-reviewer")),
                                                ("Task", task("doc-writer"))]),
                                    text("reported")],
                           "code-reviewer": [RuntimeError("model adapter bug")],
                           "doc-writer": [text("docs written")]})
    result = run_main_thread("x", agents=[REVIEWER, WRITER], model=model, cwd=tmp_path)
    (bad, bad_err), (good, good_err) = tool_results(model.requests["main"][1])
    assert bad_err and "RuntimeError: model adapter bug" in bad
    assert (report(good), good_err) == ("docs written", False)
    assert result.final_text == "reported"


def test_child_provider_failure_is_an_error(tmp_path: Path) -> None:
    from subagents.errors import ProviderResponseError

    model = PerAgentModel({"main": [tool_call("Task", task("code-reviewer")), text("ok")],
                           "code-reviewer": [ProviderResponseError("server said 500")]})
    run_main_thread("x", agents=[REVIEWER], model=model, cwd=tmp_path)
    ((content, is_error),) = tool_results(model.requests["main"][1])
    assert is_error and "server said 500" in content


def test_child_that_times_out_is_stopped_and_parent_continues(tmp_path: Path) -> None:
    model = PerAgentModel({"main": [tool_call("Task", task("code-reviewer")), text("moved on")],
                           "code-reviewer": [text("too late")]},
                          delays={"code-reviewer": 30})
    result = run_main_thread("x", agents=[REVIEWER], model=model, cwd=tmp_path, timeout=0.2)
    ((content, is_error),) = tool_results(model.requests["main"][1])
    assert is_error and "timed out after 0.2 s" in content
    assert result.final_text == "moved on"


def test_a_childs_own_timeout_error_without_a_deadline_is_an_error_not_a_crash(
    tmp_path: Path,
) -> None:
    # No dispatcher timeout: a TimeoutError raised inside the child (a client, a tool) must
    # still come back as an is_error result, and the parent goes on.
    model = PerAgentModel({"main": [tool_call("Task", task("code-reviewer")), text("went on")],
                           "code-reviewer": [TimeoutError("read timed out")]})
    result = run_main_thread("x", agents=[REVIEWER], model=model, cwd=tmp_path)
    ((content, is_error),) = tool_results(model.requests["main"][1])
    assert is_error and "read timed out" in content and "timed out after" not in content
    assert result.final_text == "went on"


def test_one_dispatcher_across_event_loops(tmp_path: Path) -> None:
    # A dispatcher kept between asyncio.run calls gets a fresh semaphore in each loop.
    import asyncio

    model = PerAgentModel({"code-reviewer": [text("one"), text("two"), text("three")]})
    d = AgentDispatcher([REVIEWER], runner=runner(model, tmp_path), max_concurrency=1)
    for expected in ("one", "two", "three"):
        assert asyncio.run(d.dispatch("code-reviewer", "look")).final_text == expected


def test_child_hitting_max_turns_stops_and_the_parent_is_told(tmp_path: Path) -> None:
    """As Claude Code: no further request at the limit; the parent gets a note, no report."""
    limited = agent("limited", tools=("Read",), max_turns=2)
    (tmp_path / "a.txt").write_text("hello")
    model = PerAgentModel({
        "main": [tool_call("Task", task("limited")), text("noted")],
        "limited": [tool_call("Read", {"file_path": "a.txt"}),
                    tool_call("Read", {"file_path": "a.txt"})],
    })
    result = run_main_thread("x", agents=[limited], model=model, cwd=tmp_path)
    child = result.children[0]
    assert child.stop_reason == "max_turns" and child.turns == 2 and child.final_text == ""
    assert len(model.requests["limited"]) == 2
    ((content, is_error),) = tool_results(model.requests["main"][1])
    assert not is_error
    assert content.startswith("  <tools-used-before-summary>Read</tools-used-before-summary>")
    assert "stopped at its 2-turn limit" in content and "SendMessage" in content
    assert "[Subagent hand-back]" not in content  # there is no report to frame
    assert re.search(r"^agentId: a[0-9a-f]{16} ", content, re.M)
    assert "tool_uses: 2" in content
    assert result.final_text == "noted" and result.stop_reason == "end_turn"


def test_the_summary_at_the_limit_is_opt_in(tmp_path: Path) -> None:
    limited = agent("limited", tools=("Read",), max_turns=1)
    (tmp_path / "a.txt").write_text("hello")
    model = PerAgentModel({
        "main": [tool_call("Task", task("limited")), text("summarised")],
        "limited": [tool_call("Read", {"file_path": "a.txt"}), text("It says hello.")],
    })
    run_main_thread("x", agents=[limited], runner=runner(model, tmp_path, max_turns_summary=True),
                    cwd=tmp_path)
    assert model.requests["limited"][-1].tools == ()  # the summary request offers no tools
    ((content, _),) = tool_results(model.requests["main"][1])
    assert "stopped at its 1-turn limit" in content and report(content) == "It says hello."


def test_registry_changing_during_a_run(tmp_path: Path) -> None:
    # Issue 12: the agents of a run are those at its start; changes wait for the next run
    # (an agent written during the run must not be run by it).
    from subagents.registry.core import AgentRegistry

    folder = tmp_path / ".claude" / "agents"
    folder.mkdir(parents=True)
    (tmp_path / ".git").mkdir()
    helper = folder / "helper.md"
    helper.write_text("---\nname: helper\ndescription: Helps.\n---\nYou help, version one.\n")

    def change(req: ModelRequest) -> ModelResponse:
        helper.unlink()
        (folder / "newbie.md").write_text(
            "---\nname: newbie\ndescription: New here.\n---\nYou are new.\n")
        return tool_calls([("Task", task("helper")), ("Task", task("newbie"))])

    model = PerAgentModel({
        "main": [tool_call("Task", task("helper")), change, text("done")],
        "helper": [text("helped"), text("helped")],
        "newbie": [text("new answer")],
    })
    registry = AgentRegistry(tmp_path, home=tmp_path / "home")
    result = run_main_thread("x", registry=registry, model=model, cwd=tmp_path)
    ((first, _),) = tool_results(model.requests["main"][1])
    assert report(first) == "helped"
    (kept, kept_err), (new, new_err) = tool_results(model.requests["main"][2])
    assert (report(kept), kept_err) == ("helped", False)  # as loaded at the start of the run
    assert new_err and "'newbie' not found" in new and "helper" in new
    assert "newbie" not in model.requests
    assert result.final_text == "done"
    # the next run sees the change
    model2 = PerAgentModel({"main": [tool_call("Task", task("newbie")), text("done")],
                            "newbie": [text("new answer")]})
    run_main_thread("x", registry=AgentRegistry(tmp_path, home=tmp_path / "home"),
                    model=model2, cwd=tmp_path)
    assert report(tool_results(model2.requests["main"][1])[0][0]) == "new answer"


def test_parent_denylist_and_plan_mode_cannot_be_escaped(tmp_path: Path) -> None:
    parent = agent("cautious", tools=None, disallowed_tools=("Bash",), permission_mode="plan")
    child = agent("shell-worker", tools=("Bash", "Read", "Write"),
                  permission_mode="bypassPermissions")
    model = PerAgentModel({
        "cautious": [tool_call("Task", task("shell-worker")), text("done")],
        "shell-worker": [tool_call("Write", {"file_path": "x.txt", "content": "pwned"}),
                         text("tried")],
    })
    run_main_thread("x", agents=[parent, child], model=model, cwd=tmp_path, main_agent=parent)
    offered = {t.name for t in model.requests["shell-worker"][0].tools}
    assert "Bash" not in offered and "Read" in offered  # the parent's denylist holds
    ((content, is_error),) = tool_results(model.requests["shell-worker"][1])
    assert is_error and "plan" in content  # the parent's plan mode holds
    assert "x.txt" not in [p.name for p in tmp_path.iterdir()]


def test_a_pinned_agent_runs_under_the_callers_policy(tmp_path: Path) -> None:
    # "Use the X agent" goes through the main thread, and the caller's plan mode holds.
    from subagents.runtime.permissions import PermissionPolicy

    worker = agent("shell-worker", tools=("Write", "Read"), permission_mode="bypassPermissions")
    model = PerAgentModel({
        "main": [tool_call("Task", task("shell-worker")), text("it could not write")],
        "shell-worker": [tool_call("Write", {"file_path": "x.txt", "content": "pwned"}),
                         text("tried")]})
    result = run_main_thread("Use the shell-worker agent to write x.txt", agents=[worker],
                             model=model, cwd=tmp_path, policy=PermissionPolicy(mode="plan"))
    assert [c.agent for c in result.children] == ["shell-worker"]
    ((content, is_error),) = tool_results(model.requests["shell-worker"][1])
    assert is_error and "plan" in content
    assert not (tmp_path / "x.txt").exists()


def test_per_agent_tools_cannot_escape_the_parents_denylist(tmp_path: Path) -> None:
    parent = agent("cautious", tools=None, disallowed_tools=("Bash", "Write"))
    child = agent("shell-worker", tools=("Bash", "Read", "Write"))
    model = PerAgentModel({
        "cautious": [tool_call("agent__shell-worker", {"prompt": "run it",
                                                       "run_in_background": False}),
                     text("done")],
        "shell-worker": [tool_call("Write", {"file_path": "x.txt", "content": "pwned"}),
                         text("tried")],
    })
    run_main_thread("x", agents=[parent, child], model=model, cwd=tmp_path, main_agent=parent,
                    agent_tools=True)
    offered = {t.name for t in model.requests["shell-worker"][0].tools}
    assert offered == {"Read"}
    ((content, is_error),) = tool_results(model.requests["shell-worker"][1])
    assert is_error and "Write" in content
    assert not (tmp_path / "x.txt").exists()


def test_task_alias_is_read_as_agent(tmp_path: Path) -> None:
    model = PerAgentModel({"main": [tool_call("Task", task("code-reviewer")), text("ok")],
                           "code-reviewer": [text("reviewed")]})
    result = run_main_thread("x", agents=[REVIEWER], model=model, cwd=tmp_path)
    assert report(tool_results(model.requests["main"][1])[0][0]) == "reviewed"
    assert result.tool_calls[0].name == "Agent"
    assert {t.name for t in model.requests["main"][0].tools} >= {"Agent", "ToolSearch"}
    assert "Task" not in {t.name for t in model.requests["main"][0].tools}


def test_plain_words_add_nothing_and_nothing_is_forced(tmp_path: Path) -> None:
    """Claude Code 2.1.332: "use the X agent" adds nothing; no request forces a tool."""
    model = PerAgentModel({
        "main": [tool_call("Task", task("code-reviewer")), text("The reviewer says: fine")],
        "code-reviewer": [text("pinned review")]})
    prompt = "Use the code reviewer agent to check src/app.py"
    result = run_main_thread(prompt, agents=[REVIEWER, WRITER], model=model, cwd=tmp_path)
    first, second = model.requests["main"]
    assert "force_tool" not in first.metadata and "tool_choice" not in first.metadata
    asked, reminder = first.messages[0].content
    assert asked.text == prompt  # type: ignore[union-attr]
    assert "asked for" not in reminder.text  # type: ignore[union-attr]
    assert report(tool_results(second)[0][0]) == "pinned review"
    assert result.agent == "main" and result.final_text == "The reviewer says: fine"


def test_an_agent_mention_adds_one_line_and_forces_nothing(tmp_path: Path) -> None:
    model = PerAgentModel({"main": [text("ok")]})
    run_main_thread("@agent-code-reviewer look at app.py", agents=[REVIEWER], model=model,
                    cwd=tmp_path)
    first = model.requests["main"][0]
    assert "force_tool" not in first.metadata
    reminder = first.messages[0].content[-1].text  # type: ignore[union-attr]
    line = 'The user asked for the "code-reviewer" agent'
    assert reminder.startswith("<system-reminder>\n" + line) and reminder.count(line) == 1
    assert first.messages[0].content[0].text == "@agent-code-reviewer look at app.py"  # type: ignore[union-attr]
    # an agent as main thread is not told to delegate to itself
    model = PerAgentModel({"code-reviewer": [text("answered")]})
    run_main_thread("@agent-code-reviewer look", agents=[REVIEWER], model=model,
                    cwd=tmp_path, main_agent=REVIEWER)
    assert "asked for" not in model.requests["code-reviewer"][0].messages[0].text


def test_a_mention_of_an_unknown_agent_is_reported(tmp_path: Path) -> None:
    model = PerAgentModel({"main": [text("handled by main"), text("again")]})
    notices: list[str] = []
    result = run_main_thread("@agent-linter check main.py", agents=[REVIEWER], model=model,
                             cwd=tmp_path,
                             on_event=lambda k, d: notices.append(d["message"])
                             if k == "notice" else None)
    assert result.final_text == "handled by main"
    assert any("'linter'" in w and "not available" in w for w in result.warnings)
    assert notices and "'linter'" in notices[0]
    quiet = run_main_thread("Use the linter agent on main.py", agents=[REVIEWER], model=model,
                            cwd=tmp_path)
    assert quiet.warnings == ()


def test_agents_as_their_own_tools(tmp_path: Path) -> None:
    model = PerAgentModel({"main": [tool_call("agent__code-reviewer",
                                              {"prompt": "check it", "run_in_background": False}),
                                    text("ok")],
                           "code-reviewer": [text("checked")]})
    run_main_thread("x", agents=[REVIEWER], model=model, cwd=tmp_path, agent_tools=True)
    names = {t.name for t in model.requests["main"][0].tools}
    assert {"Agent", "agent__code-reviewer", "agent__general-purpose"} <= names
    assert report(tool_results(model.requests["main"][1])[0][0]) == "checked"
    d = AgentDispatcher([REVIEWER], runner=runner(model, tmp_path))
    specs = d.agent_tool_definitions()
    assert all(re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", s.name) for s in specs)


async def test_async_api_and_events_form_a_tree(tmp_path: Path) -> None:
    model = PerAgentModel({"main": [tool_call("Task", task("code-reviewer")), text("ok")],
                           "code-reviewer": [tool_call("Read", {"file_path": "nope.txt"}),
                                             text("no file")]})
    events: list[tuple[str, dict[str, object]]] = []
    await run_main_thread_async("x", agents=[REVIEWER], model=model, cwd=tmp_path,
                                on_event=lambda k, d: events.append((k, dict(d))))
    delegate = next(d for k, d in events if k == "delegate")
    child_tools = [d for k, d in events if k == "tool" and d["agent"] == "code-reviewer"]
    assert delegate["parent_node"] == "main" and child_tools[0]["node"] == delegate["node"]
    assert any(k == "delegate_done" and d["ok"] for k, d in events)


def test_general_purpose_builtin_is_offered(tmp_path: Path) -> None:
    model = PerAgentModel({"main": [tool_call("Agent", {"prompt": "anything", "description": "d",
                                                        "run_in_background": False}),
                                    text("ok")],
                           "general-purpose": [text("gp did it")]})
    run_main_thread("x", agents=[REVIEWER], model=model, cwd=tmp_path)
    assert report(tool_results(model.requests["main"][1])[0][0]) == "gp did it"
    assert model.requests["general-purpose"][0].tools  # all tools


def test_raw_tool_use_block_shape() -> None:
    # The scripted replies above use ToolUseBlock exactly as providers produce them.
    assert isinstance(tool_call("Task", task("x")).content[0], ToolUseBlock)


def test_parent_agent_allowlist_limits_which_agents_it_may_spawn(tmp_path: Path) -> None:
    lead = agent("lead", tools=("Read", "Agent(code-reviewer)"))
    model = PerAgentModel({
        "lead": [tool_calls([("Task", task("code-reviewer")), ("Task", task("doc-writer"))]),
                 text("done")],
        "code-reviewer": [text("reviewed")],
    })
    run_main_thread("x", agents=[lead, REVIEWER, WRITER], model=model, cwd=tmp_path,
                    main_agent=lead)
    (ok, ok_err), (_refused, refused_err) = tool_results(model.requests["lead"][1])
    assert (report(ok), ok_err) == ("reviewed", False)
    assert refused_err and "doc-writer" not in model.requests


def test_keyword_auto_routing(tmp_path: Path) -> None:
    deployer = agent("deployer", "Ships releases.", keywords=("deploy", "release train"))
    model = PerAgentModel({"deployer": [text("deployed")],
                           "main": [tool_call("Task", task("deployer")), text("main: deployed"),
                                    text("main answered")]})
    result = run_main_thread("deploy the release train now", agents=[deployer, REVIEWER],
                             model=model, cwd=tmp_path, auto_route=True)
    assert result.final_text == "main: deployed"
    assert "force_tool" not in model.requests["main"][0].metadata
    assert 'asked for the "deployer" agent' in model.requests["main"][0].messages[0].text
    # Off by default, and no keyword hit means the main thread decides.
    assert run_main_thread("deploy it", agents=[deployer], model=model,
                           cwd=tmp_path).final_text == "main answered"
    assert "asked for" not in model.requests["main"][-1].messages[0].text


async def test_dispatcher_from_a_model_alone() -> None:
    from subagents.errors import SubagentError

    model = PerAgentModel({"code-reviewer": [text("fine")]})
    d = AgentDispatcher([REVIEWER], model=model)
    d.runner.transcripts = False  # type: ignore[union-attr]
    result = await d.dispatch("code-reviewer", "look at it")
    assert result.final_text == "fine" and result.agent == "code-reviewer"
    unknown = await d.dispatch("nope", "x")
    assert unknown.stop_reason == "error" and "code-reviewer" in (unknown.error or "")
    with pytest.raises(SubagentError, match="needs a model or a runner"):
        AgentDispatcher([REVIEWER])


def test_a_runs_registry_snapshot_lists_like_the_registry(tmp_path: Path) -> None:
    """The frozen snapshot a run takes of the registry answers `list()` as the registry does:
    the built-in agents only when asked for (teams and the Task tool ask)."""
    from subagents.dispatch.snapshot import RegistrySnapshot
    from subagents.registry.core import AgentRegistry

    (tmp_path / ".git").mkdir()
    (tmp_path / ".claude" / "agents").mkdir(parents=True)
    (tmp_path / ".claude" / "agents" / "r.md").write_text(
        "---\nname: reviewer\ndescription: Reviews code.\n---\nYou review.\n")
    registry = AgentRegistry(tmp_path, home=tmp_path / "home").load_all()
    snapshot = RegistrySnapshot(registry)
    for include in (False, True):
        assert [e.name for e in snapshot.list(include_builtin=include)] == [
            e.name for e in registry.list(include_builtin=include)]
    assert "general-purpose" in [e.name for e in snapshot.list(include_builtin=True)]
    assert snapshot.entry("Explore").definition.name == "Explore"


def test_options_are_one_frozen_config_and_the_keywords_still_work() -> None:
    import dataclasses

    from subagents.dispatch.config import DispatchConfig, MainThreadConfig
    from subagents.errors import SubagentError

    model = PerAgentModel({})
    typed = AgentDispatcher([agent("one")], DispatchConfig(max_depth=2, timeout=5.0), model=model)
    keywords = AgentDispatcher([agent("one")], model=model, max_depth=2, timeout=5.0)
    assert typed.config == keywords.config
    assert typed.config.max_depth == 2 and typed.config.nesting is True
    # a keyword wins over the same field of the config
    both = AgentDispatcher([agent("one")], DispatchConfig(max_depth=2), model=model, max_depth=4)
    assert both.config.max_depth == 4
    with pytest.raises(TypeError, match="max_dept"):
        AgentDispatcher([agent("one")], model=model, max_dept=2)  # type: ignore[call-arg]
    with pytest.raises(dataclasses.FrozenInstanceError):
        typed.config.max_depth = 9  # type: ignore[misc]
    with pytest.raises(SubagentError):
        AgentDispatcher([agent("one")], DispatchConfig(max_depth=0), model=model)
    main = MainThreadConfig(nesting=False, max_depth=2, agent_tools=True)
    assert main.dispatch(None) == DispatchConfig(nesting=False, max_depth=2)
    with pytest.raises(TypeError, match="auto_rout"):
        main.with_options(auto_rout=True)
