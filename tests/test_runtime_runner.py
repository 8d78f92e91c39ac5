"""The agentic loop with ScriptedModel: turns, tools, refusals, limits, model, prompt, hooks."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

import pytest

from subagents.definition import AgentDefinition
from subagents.errors import ProviderConnectionError
from subagents.providers.base import (
    ModelRequest,
    ModelResponse,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from subagents.runtime.hooks import HookDecision, RunHooks, ToolCall
from subagents.runtime.permissions import PermissionPolicy, PermissionRequest
from subagents.runtime.result import AgentResult, ResultSlot
from subagents.runtime.runner import AgentRunner, build_system_prompt
from subagents.runtime.tools import Tool, ToolContext, ToolOutput, builtin_tools
from subagents.testing import ScriptedModel, text, tool_call, tool_calls

READER = AgentDefinition(name="reader", description="reads", system_prompt="You read files.",
                         tools=("Read", "Grep", "Glob"))


def runner(model: ScriptedModel, tmp_path: Path, **kw: Any) -> AgentRunner:
    kw.setdefault("parent_model", "claude-test-1")
    return AgentRunner(model, cwd=tmp_path, transcript_dir=tmp_path / "transcripts", **kw)


def results_of(request: ModelRequest) -> list[ToolResultBlock]:
    return [b for b in request.messages[-1].content if isinstance(b, ToolResultBlock)]


def events(result: AgentResult) -> list[dict[str, Any]]:
    assert result.transcript_path is not None
    return [json.loads(ln) for ln in result.transcript_path.read_text().splitlines()]


async def test_multi_turn_tool_loop(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("alpha\nbeta\n")
    model = ScriptedModel([
        tool_call("Glob", {"pattern": "*.md"}),
        tool_call("Read", {"file_path": "notes.md"}),
        text("notes.md says alpha and beta"),
    ])
    result = await runner(model, tmp_path).run(READER, "What do the notes say?")
    model.assert_complete()
    assert result.stop_reason == "end_turn"
    assert result.final_text == "notes.md says alpha and beta"
    assert result.turns == 3
    assert [c.name for c in result.tool_calls] == ["Glob", "Read"]
    assert all(c.executed and not c.is_error for c in result.tool_calls)
    assert result.usage.input_tokens == 30
    # the model was offered only the allowlist, with the agent's prompt, a fresh history
    first = model.requests[0]
    assert [t.name for t in first.tools] == ["Read", "Grep", "Glob"]
    assert first.system == "You read files."
    assert first.model == "claude-test-1"
    assert len(first.messages) == 1 and first.messages[0].text == "What do the notes say?"
    assert "alpha" in results_of(model.requests[2])[0].content
    assert result.transcript_path is not None
    assert result.transcript_path.stat().st_mode & 0o777 == 0o600
    kinds = [e["type"] for e in events(result)]
    assert kinds[0] == "start" and kinds[-1] == "stop"
    assert kinds.count("message") == 6  # prompt, 3 assistant, 2 tool results


async def test_tool_outside_allowlist_never_runs(tmp_path: Path) -> None:
    model = ScriptedModel([
        tool_calls([("Write", {"file_path": "pwned.txt", "content": "x"}),
                    ("Bash", {"command": "touch bashed.txt"})]),
        text("ok"),
    ])
    result = await runner(model, tmp_path, policy=PermissionPolicy(mode="bypassPermissions",
                                                                   allow_bypass=True)
                          ).run(READER, "go")
    assert not (tmp_path / "pwned.txt").exists()
    assert not (tmp_path / "bashed.txt").exists()
    blocks = results_of(model.requests[1])
    assert all(b.is_error for b in blocks)
    assert blocks[0].content == (
        "<tool_use_error>Error: No such tool available: Write. Write is not among the tools "
        "this agent has; go on with the ones it has.</tool_use_error>")
    assert [c.executed for c in result.tool_calls] == [False, False]


async def test_invented_tool_and_bad_arguments(tmp_path: Path) -> None:
    model = ScriptedModel([
        tool_calls([("Teleport", {"to": "mars"}), ("Read", {"path": "x"}),
                    ("Read", {"file_path": 42})]),
        text("sorry"),
    ])
    result = await runner(model, tmp_path).run(READER, "go")
    invented, missing, wrong_type = results_of(model.requests[1])
    assert invented.is_error and invented.content == (
        "<tool_use_error>Error: No such tool available: Teleport</tool_use_error>")
    assert missing.is_error and missing.content == (
        "<tool_use_error>InputValidationError: Read failed due to the following issues:\n"
        "The required parameter `file_path` is missing\n"
        "An unexpected parameter `path` was provided</tool_use_error>")
    assert wrong_type.is_error and wrong_type.content == (
        "<tool_use_error>InputValidationError: Read failed due to the following issue:\n"
        "The parameter `file_path` type is expected as `string` but provided as `number`"
        "</tool_use_error>")
    assert result.stop_reason == "end_turn"
    assert not any(c.executed for c in result.tool_calls)


async def test_unparseable_arguments_from_the_provider(tmp_path: Path) -> None:
    from subagents.providers.base import ModelResponse, ToolUseBlock

    garbled = ToolUseBlock.from_arguments("t1", "Read", '{"file_path": "a')
    model = ScriptedModel([ModelResponse(content=(garbled,), stop_reason="tool_use"),
                           text("retrying later")])
    result = await runner(model, tmp_path).run(READER, "go")
    (block,) = results_of(model.requests[1])
    assert block.is_error and "not valid JSON" in block.content
    assert result.tool_calls[0].executed is False


async def test_disallowed_write_is_refused_and_file_absent(tmp_path: Path) -> None:
    agent = AgentDefinition(name="w", system_prompt="x", disallowed_tools=("Write",))
    model = ScriptedModel([tool_call("Write", {"file_path": "out.txt", "content": "x"}),
                           text("could not")])
    result = await runner(model, tmp_path, policy=PermissionPolicy(mode="acceptEdits")).run(
        agent, "write it")
    assert "Write" not in [t.name for t in model.requests[0].tools]
    (block,) = results_of(model.requests[1])
    assert block.is_error
    assert not (tmp_path / "out.txt").exists()
    assert result.tool_calls[0].executed is False


async def test_bash_specifier_is_enforced_by_the_runner(tmp_path: Path) -> None:
    async def yes(req: PermissionRequest) -> bool:
        return True

    agent = AgentDefinition(name="differ", system_prompt="x", tools=("Bash(echo:*)",))
    model = ScriptedModel([
        tool_calls([("Bash", {"command": "echo fine"}), ("Bash", {"command": "touch bad.txt"}),
                    ("Bash", {"command": "echo x > bad2.txt"})]),
        text("done"),
    ])
    await runner(model, tmp_path, policy=PermissionPolicy(ask=yes)).run(agent, "go")
    assert [t.name for t in model.requests[0].tools] == ["Bash"]
    ok, touch, redirect = results_of(model.requests[1])
    assert not ok.is_error and ok.content.strip() == "fine"
    assert touch.is_error and "only as Bash(echo:*)" in touch.content
    assert redirect.is_error
    assert not (tmp_path / "bad.txt").exists() and not (tmp_path / "bad2.txt").exists()


async def test_default_mode_without_callback_refuses_mutations(tmp_path: Path) -> None:
    agent = AgentDefinition(name="e", system_prompt="x")
    model = ScriptedModel([tool_call("Bash", {"command": "touch made.txt"}), text("no")])
    await runner(model, tmp_path).run(agent, "go")
    (block,) = results_of(model.requests[1])
    assert block.is_error and "permission denied" in block.content
    assert not (tmp_path / "made.txt").exists()


async def test_ask_callback_approves(tmp_path: Path) -> None:
    asked: list[PermissionRequest] = []

    async def ask(req: PermissionRequest) -> bool:
        asked.append(req)
        return True

    agent = AgentDefinition(name="e", system_prompt="x")
    model = ScriptedModel([tool_call("Write", {"file_path": "ok.txt", "content": "hi"}),
                           text("done")])
    await runner(model, tmp_path, policy=PermissionPolicy(ask=ask)).run(agent, "go")
    assert (tmp_path / "ok.txt").read_text() == "hi"
    assert [r.tool for r in asked] == ["Write"]


async def test_a_failing_permission_callback_refuses(tmp_path: Path) -> None:
    async def broken(req: PermissionRequest) -> bool:
        raise OSError("terminal went away")

    agent = AgentDefinition(name="e", system_prompt="x")
    model = ScriptedModel([tool_call("Write", {"file_path": "f.txt", "content": "x"}),
                           text("ok")])
    result = await runner(model, tmp_path, policy=PermissionPolicy(ask=broken)).run(agent, "go")
    (block,) = results_of(model.requests[1])
    assert block.is_error and "terminal went away" in block.content
    assert not (tmp_path / "f.txt").exists() and result.stop_reason == "end_turn"


async def test_plan_mode_refuses_every_mutation(tmp_path: Path) -> None:
    async def yes(req: PermissionRequest) -> bool:
        return True

    agent = AgentDefinition(name="planner", system_prompt="x", permission_mode="plan")
    model = ScriptedModel([
        tool_calls([("Write", {"file_path": "a", "content": ""}), ("Bash", {"command": "ls"}),
                    ("Read", {"file_path": "a"})]),
        text("plan"),
    ])
    await runner(model, tmp_path, policy=PermissionPolicy(ask=yes)).run(agent, "go")
    w, b, ls = results_of(model.requests[1])
    assert w.is_error and b.is_error and "plan" in w.content
    assert ls.content.startswith("File does not exist")  # Read ran: plan mode reads


async def test_empty_reply_is_nudged_then_ends(tmp_path: Path) -> None:
    empty = ModelResponse(content=(), stop_reason="end_turn")
    model = ScriptedModel([empty, text("here you go")])
    result = await runner(model, tmp_path).run(READER, "go")
    assert result.final_text == "here you go"
    assert "empty" in model.requests[1].messages[-1].content[-1].text  # type: ignore[union-attr]
    assert any("empty reply" in w for w in result.warnings)
    model2 = ScriptedModel([empty, ModelResponse(content=(TextBlock("  "),))])
    result2 = await runner(model2, tmp_path).run(READER, "go")
    assert result2.stop_reason == "end_turn" and result2.final_text == ""
    model2.assert_complete()


async def test_max_turns_stops_without_another_request(tmp_path: Path) -> None:
    """As Claude Code: at the limit the last turn's tools run, then no further request."""
    agent = READER.evolve(max_turns=2)
    model = ScriptedModel([tool_call("Glob", {"pattern": "*"}), tool_call("Glob", {"pattern": "*"})])
    result = await runner(model, tmp_path).run(agent, "loop forever")
    model.assert_complete()
    assert len(model.requests) == 2
    assert result.stop_reason == "max_turns" and result.turns == 2 and not result.ok
    assert result.final_text == ""
    assert [c.executed for c in result.tool_calls] == [True, True]
    assert result.to_dict()["is_error"] is True
    # the conversation is kept for continuing it: it ends with the last round's results
    assert result.messages[-1].role == "user"
    assert isinstance(result.messages[-1].content[0], ToolResultBlock)


async def test_max_turns_one_asks_for_a_summary_without_tools(tmp_path: Path) -> None:
    """The summary request is opt-in (max_turns_summary)."""
    agent = READER.evolve(max_turns=1)
    model = ScriptedModel([tool_call("Glob", {"pattern": "*"}), text("Summary: I looked.")])
    result = await runner(model, tmp_path, max_turns_summary=True).run(agent, "loop forever")
    model.assert_complete()
    assert result.stop_reason == "max_turns"
    assert result.turns == 1
    assert result.final_text == "Summary: I looked."
    last = model.requests[-1]
    assert last.tools == ()
    assert last.metadata.get("final_summary") is True
    assert "maximum number of turns (1)" in last.messages[-1].content[-1].text  # type: ignore[union-attr]
    # no tool blocks in a request without tools (the Anthropic API refuses them): as text
    assert not any(isinstance(b, (ToolResultBlock, ToolUseBlock))
                   for m in last.messages for b in m.content)
    assert [m.role for m in last.messages] == ["user", "assistant", "user"]
    assert "[called tool Glob" in last.messages[1].text
    assert "[result of tool call" in last.messages[2].text


async def test_looping_agent_stops_at_its_limit(tmp_path: Path) -> None:
    def again(request: ModelRequest) -> ModelResponse:
        if not request.tools:
            return text("Stopped: I kept globbing.")
        return tool_call("Glob", {"pattern": "*"})

    model = ScriptedModel([again] * 4)
    result = await runner(model, tmp_path, default_max_turns=3, max_turns_summary=True).run(
        READER, "go")
    assert result.stop_reason == "max_turns" and result.turns == 3
    assert result.final_text == "Stopped: I kept globbing."
    assert len(model.requests) == 4
    # per-call max_turns wins over the frontmatter and the runner default
    model2 = ScriptedModel([again] * 2)
    r2 = await runner(model2, tmp_path).run(READER.evolve(max_turns=9), "go", max_turns=2)
    assert r2.turns == 2 and r2.stop_reason == "max_turns" and r2.final_text == ""
    model2.assert_complete()


class SleepTool(Tool):
    name = "Nap"
    description = "wait for a partner"
    input_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    read_only = True

    def __init__(self, parties: int) -> None:
        self.arrived = 0
        self.parties = parties
        self.all_here = asyncio.Event()

    async def run(self, input: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        # A barrier: if calls ran one after another the first would wait forever.
        self.arrived += 1
        if self.arrived == self.parties:
            self.all_here.set()
        await asyncio.wait_for(self.all_here.wait(), 10)
        await asyncio.sleep(0.01 * (self.parties - input["n"]))  # later calls finish first
        return ToolOutput(f"nap {input['n']}")


async def test_parallel_calls_overlap_and_keep_order(tmp_path: Path) -> None:
    tool = SleepTool(5)
    model = ScriptedModel([tool_calls([("Nap", {"n": i}) for i in range(5)]), text("rested")])
    agent = AgentDefinition(name="n", system_prompt="x", tools=("Nap",))
    result = await runner(model, tmp_path, tools=[tool]).run(agent, "go")
    blocks = results_of(model.requests[1])
    assert [b.content for b in blocks] == [f"nap {i}" for i in range(5)]
    assert [b.tool_use_id for b in blocks] == [u.id for u in model.requests[1].messages[-2]
                                              .tool_uses]
    assert [c.output for c in result.tool_calls] == [f"nap {i}" for i in range(5)]


async def test_provider_error_is_a_result(tmp_path: Path) -> None:
    model = ScriptedModel([tool_call("Glob", {"pattern": "*"}),
                           ProviderConnectionError("cannot reach 127.0.0.1:1")])
    result = await runner(model, tmp_path).run(READER, "go")
    assert result.stop_reason == "error"
    assert "cannot reach" in (result.error or "")
    assert events(result)[-1]["stop_reason"] == "error"


async def test_tool_crash_becomes_is_error(tmp_path: Path) -> None:
    class Boom(Tool):
        name = "Boom"
        read_only = True

        async def run(self, input: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
            raise RuntimeError("kaput")

    model = ScriptedModel([tool_call("Boom", {}), text("hm")])
    agent = AgentDefinition(name="b", system_prompt="x")
    result = await runner(model, tmp_path, tools=[Boom()]).run(agent, "go")
    (block,) = results_of(model.requests[1])
    assert block.is_error and "kaput" in block.content
    assert result.stop_reason == "end_turn"


def test_model_resolution(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    r = AgentRunner(ScriptedModel(), cwd=tmp_path, parent_model="parent-model-id",
                    model_table={"haiku": "claude-haiku-test"})
    a = AgentDefinition(name="a", model="haiku")
    assert r.resolve_model(a) == "claude-haiku-test"
    assert r.resolve_model(a, "call-model-id") == "call-model-id"
    assert r.resolve_model(a.evolve(model="inherit")) == "parent-model-id"
    assert r.resolve_model(a.evolve(model=None)) == "parent-model-id"
    parent_ctx = ToolContext(cwd=tmp_path, model="the-parents-model")
    assert r.resolve_model(a.evolve(model="inherit"), None, parent_ctx) == "the-parents-model"
    monkeypatch.setenv("CLAUDE_CODE_SUBAGENT_MODEL", "env-model-id")
    assert r.resolve_model(a, "call-model-id", parent_ctx) == "env-model-id"
    # the main thread (no parent) is not a subagent: the env override does not apply
    assert r.resolve_model(a, "call-model-id") == "call-model-id"


def test_system_prompt_and_memory(tmp_path: Path, home: Path) -> None:
    free = AgentDefinition(name="m", system_prompt="Body.", memory="Tests use pytest.")
    assert build_system_prompt(free, tmp_path) == "Body.\n\n# Memory\n\nTests use pytest."
    scoped = AgentDefinition(name="m", system_prompt="Body.", memory="project")
    missing = build_system_prompt(scoped, tmp_path)
    assert "does not exist yet" in missing
    mem = tmp_path / ".claude" / "agent-memory" / "m" / "MEMORY.md"
    mem.parent.mkdir(parents=True)
    mem.write_text("".join(f"fact {i}\n" for i in range(300)))
    prompt = build_system_prompt(scoped, tmp_path)
    assert "fact 0" in prompt and "fact 199" in prompt and "fact 200" not in prompt
    user = home / ".claude" / "agent-memory" / "m" / "MEMORY.md"
    user.parent.mkdir(parents=True)
    user.write_text("user fact")
    assert "user fact" in build_system_prompt(scoped.evolve(memory="user"), tmp_path)
    env = build_system_prompt(free, tmp_path, include_env=True)
    assert f"Working directory: {tmp_path}" in env


async def test_hooks_seam(tmp_path: Path) -> None:
    seen: list[str] = []

    class Recorder(RunHooks):
        async def on_start(self, ctx: ToolContext, agent: AgentDefinition, prompt: str) -> None:
            seen.append(f"start {agent.name}")

        async def before_tool(self, ctx: ToolContext, call: ToolCall) -> HookDecision | None:
            seen.append(f"before {call.name}")
            if call.name == "Grep":
                return HookDecision(False, "no grepping today")
            return None

        async def after_tool(self, ctx: ToolContext, call: ToolCall, output: ToolOutput) -> None:
            seen.append(f"after {call.name}")

        async def on_stop(self, ctx: ToolContext, result: AgentResult) -> None:
            seen.append(f"stop {result.stop_reason}")

    model = ScriptedModel([tool_calls([("Glob", {"pattern": "*"}), ("Grep", {"pattern": "x"})]),
                           text("done")])
    result = await runner(model, tmp_path, hooks=Recorder()).run(READER, "go")
    assert seen[0] == "start reader" and seen[-1] == "stop end_turn"
    assert "after Glob" in seen and "after Grep" not in seen
    (_, grep) = results_of(model.requests[1])
    assert grep.is_error and "no grepping today" in grep.content
    assert result.tool_calls[1].executed is False


async def test_child_run_cannot_escape_parent_denylist(tmp_path: Path) -> None:
    """The API the Task tool uses: a child started from a parent context is intersected."""
    parent_policy = PermissionPolicy(mode="acceptEdits").restrict(
        AgentDefinition(name="parent", disallowed_tools=("Write",)))
    child = AgentDefinition(name="writer", system_prompt="x", tools=("Write", "Read"))
    model = ScriptedModel([tool_call("Write", {"file_path": "f.txt", "content": "x"}),
                           text("done")])
    r = runner(model, tmp_path)
    parent_ctx = ToolContext(cwd=tmp_path.resolve(), model="m-parent", run_id="p1", depth=0,
                             policy=parent_policy, runner=r)
    result = await r.run(child, "write", parent=parent_ctx)
    assert [t.name for t in model.requests[0].tools] == ["Read"]
    assert not (tmp_path / "f.txt").exists()
    assert result.model == "m-parent"
    start = events(result)[0]
    assert start["parent_run_id"] == "p1" and start["depth"] == 1


async def test_without_transcript(tmp_path: Path) -> None:
    model = ScriptedModel([tool_call("Glob", {"pattern": "*"}), text("done")])
    r = AgentRunner(model, cwd=tmp_path, transcripts=False, parent_model="m")
    slot = ResultSlot()
    result = await r.run(READER, "go", result_slot=slot)
    assert result.transcript_path is None and result.final_text == "done"
    assert slot.result is result and slot.interrupted is None


def test_run_sync_and_isolation(tmp_path: Path) -> None:
    model = ScriptedModel([text("one"), text("two")])
    r = runner(model, tmp_path)
    assert r.run_sync(READER, "first").final_text == "one"
    assert r.run_sync(READER, "second").final_text == "two"
    assert [m.text for m in model.requests[1].messages] == ["second"]  # fresh history


def test_builtin_tool_names_match_claude_code() -> None:
    assert list(builtin_tools()) == ["Read", "Write", "Edit", "Bash", "Grep", "Glob"]
    assert list(builtin_tools(extras=True))[6:] == ["MultiEdit", "LS", "TodoWrite"]
    props = {n: set(t.input_schema["properties"]) for n, t in builtin_tools().items()}
    # Claude Code 2.1.332's fields, exactly
    assert props["Read"] == {"file_path", "offset", "limit", "pages", "allow_large"}
    assert props["Edit"] == {"file_path", "old_string", "new_string", "replace_all"}
    assert props["Write"] == {"file_path", "content"}
    assert props["Bash"] == {"command", "timeout", "description", "run_in_background",
                             "dangerouslyDisableSandbox"}
    assert props["Glob"] == {"pattern", "path"}
    assert {"pattern", "path", "glob", "output_mode", "-B", "-A", "-C", "context", "-n", "-i",
            "-o", "type", "head_limit", "offset", "multiline"} == props["Grep"]
    tools = builtin_tools()
    assert tools["Bash"].input_schema["properties"]["timeout"]["type"] == "number"
    assert tools["Read"].input_schema["properties"]["offset"]["minimum"] == 0
    assert all(t.input_schema.get("additionalProperties") is False for t in tools.values())


async def test_each_refusal_says_its_kind_in_the_result_and_the_transcript(
    tmp_path: Path,
) -> None:
    class Deny(RunHooks):
        async def before_tool(self, ctx: ToolContext, call: ToolCall) -> HookDecision | None:
            return HookDecision(False, "not that one") if call.input.get(
                "file_path") == "denied.txt" else None

    agent = AgentDefinition(name="k", system_prompt="x",
                            tools=("Read", "Glob", "Write", "Edit", "Bash(git status:*)"))
    model = ScriptedModel([
        tool_calls([
            ("Teleport", {}),                                        # unknown
            ("Grep", {"pattern": "x"}),                              # not offered
            ("Read", {"path": "x"}),                                 # bad arguments
            ("Bash", {"command": "rm -rf /tmp/nothing-here"}),       # outside Bash(git status:*)
            ("Read", {"file_path": "denied.txt"}),                   # a hook says no
            ("Write", {"file_path": "../out.txt", "content": "x"}),  # outside the folder
            ("Edit", {"file_path": "a.txt", "old_string": "", "new_string": "y"}),  # nobody asks
            ("Read", {"file_path": "missing.txt"}),                  # ran (an error, no refusal)
        ]),
        text("done"),
    ])
    result = await runner(model, tmp_path, hooks=Deny()).run(agent, "go")
    kinds = [c.refusal for c in result.tool_calls]
    assert kinds == ["unknown", "not_allowed", "arguments", "rule", "hook", "permission",
                     "unasked", None]
    assert [c.executed for c in result.tool_calls] == [False] * 7 + [True]
    assert result.tool_calls[-1].is_error  # it ran and failed: an error, not a refusal
    assert result.to_dict()["tool_calls"][6]["refusal"] == "unasked"
    tool_events = [e for e in events(result) if e["type"] == "tool"]
    by_id = {e["id"]: e for e in tool_events}
    for call in result.tool_calls:
        event = by_id[call.id]
        assert event.get("refusal") == call.refusal
        if call.refusal:  # the transcript says why, not only that it was refused
            assert event["reason"] == call.output
    assert not (tmp_path.parent / "out.txt").exists() and not (tmp_path / "a.txt").exists()


async def test_transcript_records_usage_per_turn_and_the_call_count(tmp_path: Path) -> None:
    from subagents.providers.base import Usage

    model = ScriptedModel([tool_call("Glob", {"pattern": "*"}),
                           text("done", usage=Usage(7, 3))])
    result = await runner(model, tmp_path).run(READER, "go")
    evs = events(result)
    replies = [e for e in evs if e["type"] == "message" and e["role"] == "assistant"]
    assert [r["usage"] for r in replies] == [{"input_tokens": 10, "output_tokens": 5},
                                             {"input_tokens": 7, "output_tokens": 3}]
    stop = evs[-1]
    assert stop["type"] == "stop" and stop["tool_calls"] == 1
    assert stop["usage"] == {"input_tokens": 17, "output_tokens": 8}


async def test_a_reply_cut_at_the_output_limit_is_a_warning(tmp_path: Path) -> None:
    cut = ModelResponse(content=(TextBlock("The answer is"),), stop_reason="max_tokens")
    model = ScriptedModel([cut])
    result = await runner(model, tmp_path, max_tokens=64).run(READER, "go")
    assert result.final_text == "The answer is" and result.stop_reason == "end_turn"
    assert any("cut at the output limit (64 tokens)" in w for w in result.warnings)


async def test_parallel_edits_of_one_file_keep_every_edit(tmp_path: Path) -> None:
    """Edits of the same file in one message run in the model's order (no lost update);
    edits of different files still overlap."""
    (tmp_path / "a.txt").write_text("one two three\n")
    (tmp_path / "b.txt").write_text("x\n")
    agent = AgentDefinition(name="e", system_prompt="x", tools=("Edit", "Write"))
    edits = [("Edit", {"file_path": "a.txt", "old_string": word, "new_string": word.upper()})
             for word in ("one", "two", "three")]
    model = ScriptedModel([
        tool_calls([*edits, ("Write", {"file_path": "b.txt", "content": "y\n"}),
                    ("Edit", {"file_path": "a.txt", "old_string": "ONE TWO",
                              "new_string": "1 2"})]),
        text("done"),
    ])
    result = await runner(model, tmp_path, policy=PermissionPolicy(mode="acceptEdits")).run(
        agent, "go")
    assert [c.is_error for c in result.tool_calls] == [False] * 5, result.tool_calls
    assert (tmp_path / "a.txt").read_text() == "1 2 THREE\n"
    assert (tmp_path / "b.txt").read_text() == "y\n"


async def test_a_failed_summary_request_is_explained(tmp_path: Path) -> None:
    agent = READER.evolve(max_turns=1)
    model = ScriptedModel([tool_call("Glob", {"pattern": "*"}),
                           ProviderConnectionError("server went away")])
    result = await runner(model, tmp_path, max_turns_summary=True).run(agent, "go")
    assert result.stop_reason == "max_turns" and result.final_text == ""
    assert result.error is not None and "server went away" in result.error
    assert any("summary request at the turn limit failed" in w and "server went away" in w
               for w in result.warnings)


async def test_listed_tools_this_run_lacks_are_warned_about(tmp_path: Path) -> None:
    agent = AgentDefinition(name="nb", system_prompt="x",
                            tools=("Read", "NotebookEdit", "WebFetch", "Task(helper)",
                                   "mcp__gh__*", "Bash(git diff:*)"))
    model = ScriptedModel([text("ok")])
    result = await runner(model, tmp_path).run(agent, "go")
    lacking = [w for w in result.warnings if "this run does not provide it" in w]
    assert len(lacking) == 3, lacking
    assert "tool NotebookEdit" in lacking[0]
    assert "tool WebFetch" in lacking[1] and "--web" in lacking[1]
    assert "tool Task" in lacking[2] and "delegation" in lacking[2]
    assert [t.name for t in model.requests[0].tools] == ["Read", "Bash"]
    plain = await runner(ScriptedModel([text("ok")]), tmp_path).run(READER, "go")
    assert not plain.warnings


async def test_a_read_next_to_an_edit_of_the_same_file_keeps_its_place(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("before\n")
    (tmp_path / "b.txt").write_text("other\n")
    agent = AgentDefinition(name="e", system_prompt="x", tools=("Read", "Edit"))
    edit = ("Edit", {"file_path": "a.txt", "old_string": "before", "new_string": "after"})
    model = ScriptedModel([
        tool_calls([("Read", {"file_path": "a.txt"}), edit,
                    ("Read", {"file_path": "./a.txt"}), ("Read", {"file_path": "b.txt"})]),
        text("done"),
    ])
    result = await runner(model, tmp_path, policy=PermissionPolicy(mode="acceptEdits")).run(
        agent, "go")
    first, _, second, other = [c.output for c in result.tool_calls]
    assert "before" in first and "after" in second and "other" in other
