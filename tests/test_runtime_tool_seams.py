"""Tools are instances with a typed input check; a tool's context offers a Delegate."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from dispatch_helpers import PerAgentModel, agent
from subagents.dispatch.dispatcher import AgentDispatcher, AgentTool
from subagents.providers.base import ToolUseBlock
from subagents.runtime.runner import AgentRunner
from subagents.runtime.tools.base import Tool, ToolContext, ToolInputError, ToolOutput
from subagents.testing import ScriptedModel, text, tool_call


class Picky(Tool):
    """Refuses odd numbers with a typed error from run (a check the schema cannot say)."""

    input_schema: Mapping[str, Any] = {"type": "object", "properties": {"n": {"type": "integer"}},
                                       "required": ["n"]}
    read_only = True

    def __init__(self, name: str) -> None:
        self.name = name  # per instance: no class made at run time
        self.ran: list[int] = []

    async def run(self, input: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        if input["n"] % 2:
            raise ToolInputError(f"n must be even, got {input['n']}")
        self.ran.append(input["n"])
        return ToolOutput("ok")


async def test_tool_input_error_becomes_an_arguments_refusal(tmp_path: Path) -> None:
    tool = Picky("pick_one")
    model = ScriptedModel([tool_call("pick_one", {"n": 3}), tool_call("pick_one", {"n": "x"}),
                           tool_call("pick_one", {"n": 4}), text("done")])
    r = AgentRunner(model, cwd=tmp_path, tools=[tool], transcripts=False, parent_model="m")
    result = await r.run(agent("a", tools=("pick_one",)), "go")
    odd, bad, even = result.tool_calls
    assert (odd.refusal, odd.is_error, odd.executed) == ("arguments", True, False)
    assert odd.output == "<tool_use_error>n must be even, got 3</tool_use_error>"
    assert bad.refusal == "arguments" and bad.output == (
        "<tool_use_error>InputValidationError: pick_one failed due to the following issue:\n"
        "The parameter `n` type is expected as `number` but provided as `string`"
        "</tool_use_error>")
    assert even.refusal is None and tool.ran == [4]


def test_check_input_raises_typed_errors() -> None:
    tool = Picky("p")
    assert tool.check_input({"n": 2}) == {"n": 2}
    for bad in ([1], {"n": "x"}, {}):
        try:
            tool.check_input(bad)
        except ToolInputError as exc:
            assert exc.message.startswith("InputValidationError: p failed due to the following")
        else:
            raise AssertionError(f"{bad!r} was accepted")


def test_malformed_arguments_are_a_typed_property_of_the_block() -> None:
    garbled = ToolUseBlock.from_arguments("1", "Read", '{"a')
    assert garbled.input == {} and garbled.raw_arguments == '{"a'
    assert garbled.arguments_error is not None and "not valid JSON" in garbled.arguments_error
    assert garbled.malformed is not None and "'{\"a'" in garbled.malformed
    assert garbled.wire_arguments == '{"a'  # sent back as it came
    listed = ToolUseBlock.from_arguments("3", "Read", '["a"]')
    assert listed.arguments_error == "a JSON list, not an object"
    ok = ToolUseBlock.from_arguments("2", "Read", '{"file_path": "a"}')
    assert ok.malformed is None and ok.input == {"file_path": "a"} and ok.raw_arguments is None
    assert ToolUseBlock.from_arguments("4", "LS", " ").input == {}
    # the transcript keeps what was received, and a team's history reads it back
    from subagents.dispatch.teams.turns import _message_from_json
    from subagents.providers.base import Message
    from subagents.runtime.transcript import message_to_json

    back = _message_from_json(message_to_json(Message("assistant", (garbled,))))
    assert back is not None and back.content == (garbled,)
    assert back.content[0].raw_arguments == '{"a' and back.content[0].malformed == garbled.malformed


def test_agent_tools_are_instances_of_one_class(tmp_path: Path) -> None:
    d = AgentDispatcher([agent("one"), agent("two")], model=PerAgentModel({}))
    tools = d.agent_tools()
    assert {type(t) for t in tools} == {AgentTool}
    assert sorted(t.name for t in tools) == sorted({t.name for t in tools})  # distinct
    assert all(t.name.startswith("agent__") for t in tools)


async def test_the_runner_is_the_delegate_of_its_tools(tmp_path: Path) -> None:
    seen: list[ToolContext] = []

    class Spy(Tool):
        name = "Spy"
        read_only = True

        async def run(self, input: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
            seen.append(ctx)
            assert ctx.delegate is not None
            child = await ctx.delegate.spawn(agent("kid", tools=()), "hi", parent=ctx)
            return ToolOutput(child.final_text)

    model = PerAgentModel({"parent": [tool_call("Spy", {}), text("done")],
                           "kid": [text("child says hi")]})
    r = AgentRunner(model, cwd=tmp_path, tools=[Spy()], transcripts=False, parent_model="m")
    result = await r.run(agent("parent", tools=("Spy",)), "go")
    assert seen[0].delegate is r
    assert result.tool_calls[0].output == "child says hi"
    assert [c.agent for c in result.children] == ["kid"]


def test_tool_context_still_accepts_runner(tmp_path: Path) -> None:
    r = AgentRunner(ScriptedModel([]), cwd=tmp_path)
    assert ToolContext(cwd=tmp_path, runner=r).delegate is r
