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
    return {"description": "a task", "prompt": prompt, "subagent_type": agent_name, **extra}


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
    # First main request: a Task tool listing the agents.
    first = model.requests["main"][0]
    task_spec = next(t for t in first.tools if t.name == "Task")
    assert "- code-reviewer: Reviews code for quality. (Tools: Read, Grep)" in task_spec.description
    assert "- doc-writer: Writes documentation. (Tools: Read, Write)" in task_spec.description
    # The child saw only its prompt, its system prompt, its model and its tools; no Task tool.
    (child_req,) = model.requests["code-reviewer"]
    assert [m.text for m in child_req.messages] == ["Review src/app.py for bugs"]
    assert child_req.system.startswith("You review code carefully.")
    assert child_req.model == resolve_model("haiku")
    assert sorted(t.name for t in child_req.tools) == ["Grep", "Read"]
    # The parent got exactly the child's final text as the tool result.
    assert tool_results(model.requests["main"][1]) == [("src/app.py: no bugs found.", False)]
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


def test_children_get_no_task_tool_without_nesting(tmp_path: Path) -> None:
    delegator = agent("delegator", tools=None)
    model = PerAgentModel({"main": [tool_call("Task", task("delegator")), text("ok")],
                           "delegator": [tool_call("Task", task("code-reviewer")), text("x")]})
    run_main_thread("x", agents=[delegator, REVIEWER], model=model, cwd=tmp_path)
    child_tools = {t.name for t in model.requests["delegator"][0].tools}
    assert "Task" not in child_tools and "Read" in child_tools
    ((content, is_error),) = tool_results(model.requests["delegator"][1])
    assert is_error and "No such tool available: Task. Task is not among the tools" in content
    assert "code-reviewer" not in model.requests


def test_recursive_self_delegation_is_refused(tmp_path: Path) -> None:
    loop = agent("looper", tools=None)
    model = PerAgentModel({"main": [tool_call("Task", task("looper")), text("done")],
                           "looper": [tool_call("Task", task("Looper")), text("gave up")]})
    result = run_main_thread("x", agents=[loop], model=model, cwd=tmp_path, nesting=True)
    assert len(model.requests["looper"]) == 2  # one run, two turns: no second looper run
    ((content, is_error),) = tool_results(model.requests["looper"][1])
    assert is_error and "already running in this chain" in content
    assert result.children[0].final_text == "gave up"


def test_nesting_depth_limit(tmp_path: Path) -> None:
    a, b, c, d = (agent(n, tools=None) for n in ("aa", "bb", "cc", "dd"))
    model = PerAgentModel({
        "main": [tool_call("Task", task("aa")), text("end")],
        "aa": [tool_call("Task", task("bb")), text("a done")],
        "bb": [tool_call("Task", task("cc")), text("b done")],
        "cc": [tool_call("Task", task("dd")), text("c done")],
    })
    result = run_main_thread("x", agents=[a, b, c, d], model=model, cwd=tmp_path, nesting=True)
    # aa (depth 1) and bb (depth 2) may delegate; cc at depth 3 gets no Task tool.
    assert "Task" in {t.name for t in model.requests["aa"][0].tools}
    assert "Task" in {t.name for t in model.requests["bb"][0].tools}
    assert "Task" not in {t.name for t in model.requests["cc"][0].tools}
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
    assert [c for c, _ in outputs] == [f"worker-{i:02d} done" for i in range(50)]
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
    assert tool_results(model.requests["main"][1]) == [("reviewed", False), ("written", False)]


def test_child_that_raises_becomes_an_error_and_parent_continues(tmp_path: Path) -> None:
    model = PerAgentModel({"main": [tool_calls([("Task", task("code-reviewer")),
                                                ("Task", task("doc-writer"))]),
                                    text("reported")],
                           "code-reviewer": [RuntimeError("model adapter bug")],
                           "doc-writer": [text("docs written")]})
    result = run_main_thread("x", agents=[REVIEWER, WRITER], model=model, cwd=tmp_path)
    (bad, bad_err), (good, good_err) = tool_results(model.requests["main"][1])
    assert bad_err and "RuntimeError: model adapter bug" in bad
    assert (good, good_err) == ("docs written", False)
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


def test_child_hitting_max_turns_returns_its_summary(tmp_path: Path) -> None:
    limited = agent("limited", tools=("Read",), max_turns=2)
    (tmp_path / "a.txt").write_text("hello")
    model = PerAgentModel({
        "main": [tool_call("Task", task("limited")), text("summarised")],
        "limited": [tool_call("Read", {"file_path": "a.txt"}),
                    tool_call("Read", {"file_path": "a.txt"}),
                    text("Read a.txt twice; it says hello.")],
    })
    result = run_main_thread("x", agents=[limited], model=model, cwd=tmp_path)
    child = result.children[0]
    assert child.stop_reason == "max_turns" and child.turns == 2
    assert model.requests["limited"][-1].tools == ()  # the summary request offers no tools
    ((content, is_error),) = tool_results(model.requests["main"][1])
    assert not is_error
    assert content.startswith("Read a.txt twice; it says hello.")
    assert "turn limit" in content


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
    assert tool_results(model.requests["main"][1]) == [("helped", False)]
    (kept, kept_err), (new, new_err) = tool_results(model.requests["main"][2])
    assert (kept, kept_err) == ("helped", False)  # as loaded at the start of the run
    assert new_err and "'newbie' not found" in new and "helper" in new
    assert "newbie" not in model.requests
    assert result.final_text == "done"
    # the next run sees the change
    model2 = PerAgentModel({"main": [tool_call("Task", task("newbie")), text("done")],
                            "newbie": [text("new answer")]})
    run_main_thread("x", registry=AgentRegistry(tmp_path, home=tmp_path / "home"),
                    model=model2, cwd=tmp_path)
    assert tool_results(model2.requests["main"][1]) == [("new answer", False)]


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
        "cautious": [tool_call("agent__shell-worker", {"prompt": "run it"}), text("done")],
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


def test_agent_alias_is_read_as_task(tmp_path: Path) -> None:
    model = PerAgentModel({"main": [tool_call("Agent", task("code-reviewer")), text("ok")],
                           "code-reviewer": [text("reviewed")]})
    result = run_main_thread("x", agents=[REVIEWER], model=model, cwd=tmp_path)
    assert tool_results(model.requests["main"][1]) == [("reviewed", False)]
    assert result.tool_calls[0].name == "Task"


def test_explicit_invocation_delegates_through_the_main_thread(tmp_path: Path) -> None:
    model = PerAgentModel({
        "main": [tool_call("Task", task("code-reviewer")), text("The reviewer says: fine")],
        "code-reviewer": [text("pinned review")]})
    prompt = "Use the code reviewer agent to check src/app.py"
    result = run_main_thread(prompt, agents=[REVIEWER, WRITER], model=model, cwd=tmp_path)
    first, second = model.requests["main"]
    assert first.metadata["force_tool"] == "Task"  # the first call is forced to delegate
    assert "force_tool" not in second.metadata  # then the main thread decides again
    assert first.messages[0].text.startswith(prompt)
    assert 'invoke the agent "code-reviewer"' in first.messages[0].text
    assert tool_results(second) == [("pinned review", False)]
    assert result.agent == "main" and result.final_text == "The reviewer says: fine"
    assert [c.agent for c in result.children] == ["code-reviewer"]


def test_a_mention_delegates_first_and_an_agent_main_thread_is_not_forced(
    tmp_path: Path,
) -> None:
    model = PerAgentModel({"main": [tool_call("Task", task("code-reviewer")), text("ok")],
                           "code-reviewer": [text("r")]})
    run_main_thread("@agent-code-reviewer look at app.py", agents=[REVIEWER], model=model,
                    cwd=tmp_path)
    assert model.requests["main"][0].metadata["force_tool"] == "Task"
    lead = agent("lead")
    model = PerAgentModel({"lead": [text("lead answered")]})
    result = run_main_thread("@code-reviewer look", agents=[REVIEWER, lead], model=model,
                             cwd=tmp_path, main_agent=lead, explicit=False)
    assert result.final_text == "lead answered"
    assert "force_tool" not in model.requests["lead"][0].metadata


def test_explicit_unknown_agent_falls_back_to_main_thread(tmp_path: Path) -> None:
    model = PerAgentModel({"main": [text("handled by main")]})
    notices: list[str] = []
    result = run_main_thread("Use the linter agent on main.py", agents=[REVIEWER], model=model,
                             cwd=tmp_path,
                             on_event=lambda k, d: notices.append(d["message"])
                             if k == "notice" else None)
    assert result.final_text == "handled by main"
    assert any("'linter'" in w and "not available" in w for w in result.warnings)
    assert notices and "'linter'" in notices[0]


def test_agents_as_their_own_tools(tmp_path: Path) -> None:
    model = PerAgentModel({"main": [tool_call("agent__code-reviewer", {"prompt": "check it"}),
                                    text("ok")],
                           "code-reviewer": [text("checked")]})
    run_main_thread("x", agents=[REVIEWER], model=model, cwd=tmp_path, agent_tools=True)
    names = {t.name for t in model.requests["main"][0].tools}
    assert {"Task", "agent__code-reviewer", "agent__general-purpose"} <= names
    assert tool_results(model.requests["main"][1]) == [("checked", False)]
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
    model = PerAgentModel({"main": [tool_call("Task", {"prompt": "anything", "description": "d"}),
                                    text("ok")],
                           "general-purpose": [text("gp did it")]})
    run_main_thread("x", agents=[REVIEWER], model=model, cwd=tmp_path)
    assert tool_results(model.requests["main"][1]) == [("gp did it", False)]
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
    assert (ok, ok_err) == ("reviewed", False)
    assert refused_err and "doc-writer" not in model.requests


def test_keyword_auto_routing(tmp_path: Path) -> None:
    deployer = agent("deployer", "Ships releases.", keywords=("deploy", "release train"))
    model = PerAgentModel({"deployer": [text("deployed")],
                           "main": [tool_call("Task", task("deployer")), text("main: deployed"),
                                    text("main answered")]})
    result = run_main_thread("deploy the release train now", agents=[deployer, REVIEWER],
                             model=model, cwd=tmp_path, auto_route=True)
    assert result.final_text == "main: deployed"
    assert model.requests["main"][0].metadata["force_tool"] == "Task"
    assert 'invoke the agent "deployer"' in model.requests["main"][0].messages[0].text
    # Off by default, and no keyword hit means the main thread decides.
    assert run_main_thread("deploy it", agents=[deployer], model=model,
                           cwd=tmp_path).final_text == "main answered"
    assert "force_tool" not in model.requests["main"][-1].metadata


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
    assert typed.config.max_depth == 2 and typed.config.nesting is False
    # a keyword wins over the same field of the config
    both = AgentDispatcher([agent("one")], DispatchConfig(max_depth=2), model=model, max_depth=4)
    assert both.config.max_depth == 4
    with pytest.raises(TypeError, match="max_dept"):
        AgentDispatcher([agent("one")], model=model, max_dept=2)  # type: ignore[call-arg]
    with pytest.raises(dataclasses.FrozenInstanceError):
        typed.config.max_depth = 9  # type: ignore[misc]
    with pytest.raises(SubagentError):
        AgentDispatcher([agent("one")], DispatchConfig(max_depth=0), model=model)
    main = MainThreadConfig(nesting=True, max_depth=2, agent_tools=True)
    assert main.dispatch(None) == DispatchConfig(nesting=True, max_depth=2)
    with pytest.raises(TypeError, match="auto_rout"):
        main.with_options(auto_rout=True)
