"""The team tools, with Claude Code's names and input fields (AGENT-TEAMS-2.1.330.md section 3).

``Agent`` (a ``name`` makes a teammate; without one, an ordinary subagent), ``SendMessage``
(text, or the structured ``shutdown_request`` / ``shutdown_response`` /
``plan_approval_response``), ``TaskCreate``, ``TaskGet``, ``TaskList``, ``TaskUpdate``, and
``ExitPlanMode`` for a teammate that must have its plan approved.  Each tool instance is bound
to one member; the work is done by :class:`~subagents.dispatch.teams.team.Team`.

Coordination changes nothing in the user's project, so these tools are ``read_only`` for the
permission policy (plan mode does not block ``SendMessage``); what a spawned teammate does is
checked under its own, never looser, policy.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from subagents.runtime.tools.base import Tool, ToolContext, ToolOutput, validate_input

if TYPE_CHECKING:
    from subagents.dispatch.teams.team import Member, Team

__all__ = ["TEAM_TOOL_NAMES", "team_tools"]

TEAM_TOOL_NAMES = ("SendMessage", "TaskCreate", "TaskGet", "TaskList", "TaskUpdate")
NAME_PATTERN = "^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$"
_MODES = ["acceptEdits", "bypassPermissions", "default", "dontAsk", "plan"]


class _TeamTool(Tool):
    read_only: bool = True

    def __init__(self, team: Team, member: Member) -> None:
        self.team = team
        self.member = member


AGENT_DESCRIPTION_TAIL = """

Agent teams: give a `name` to start a teammate instead of a one-off subagent. A teammate \
keeps running in the background, works on the shared task list, and is addressable with \
SendMessage({to: name}). To continue an existing teammate, send it a message rather than \
calling Agent again. Teammates cannot start teammates (the roster is flat)."""


class AgentTool(_TeamTool):
    name: str = "Agent"
    input_schema: Mapping[str, Any] = {
        "type": "object",
        "properties": {
            "description": {"type": "string",
                            "description": "A short (3-5 word) description of the task"},
            "prompt": {"type": "string", "description": "The task for the agent to perform"},
            "subagent_type": {"type": "string",
                              "description": "The type of specialized agent to use"},
            "model": {"type": "string", "enum": ["sonnet", "opus", "haiku", "fable"],
                      "description": "Optional model; overrides the agent file's model"},
            "effort": {"type": "string", "enum": ["low", "medium", "high", "xhigh", "max"]},
            "run_in_background": {"type": "boolean"},
            "name": {"type": "string", "pattern": NAME_PATTERN,
                     "description": "Name for the spawned agent. Makes it addressable via "
                                    "SendMessage({to: name}) while running."},
            "team_name": {"type": "string", "description": "Deprecated; ignored. The session "
                                                           "has a single implicit team."},
            "mode": {"type": "string", "enum": _MODES,
                     "description": "Deprecated; ignored. Teammates inherit the lead's "
                                    "permission mode."},
            "isolation": {"type": "string", "enum": ["worktree", "remote"]},
        },
        "required": ["description", "prompt"],
        "additionalProperties": False,
    }

    def __init__(self, team: Team, member: Member, description: str) -> None:
        super().__init__(team, member)
        self._description = description + AGENT_DESCRIPTION_TAIL

    def spec(self) -> Any:
        from subagents.providers.base import ToolSpec

        return ToolSpec(self.name, self._description, self.input_schema)

    def validate(self, input: Mapping[str, Any]) -> str | None:
        # The name checks give Claude Code's own messages (see Team.spawn); the rest is typed.
        loose = {k: v for k, v in input.items() if k not in ("name", "model")}
        schema = dict(self.input_schema)
        schema["properties"] = {k: v for k, v in schema["properties"].items()
                                if k not in ("name", "model")}
        schema["additionalProperties"] = True
        problem = validate_input(loose, schema)
        if problem:
            return problem
        unknown = set(input) - set(self.input_schema["properties"])
        return f"unknown field(s): {', '.join(sorted(unknown))}" if unknown else None

    async def run(self, input: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        return await self.team.agent_call(self.member, input, ctx)


class SendMessageTool(_TeamTool):
    name: str = "SendMessage"
    deferrable: bool = False  # always in the list: a team works through it
    description: str = (
        "Send a message to another agent on your team. Plain text output is not visible to "
        "other agents: to talk to them you MUST use this tool. Incoming messages arrive "
        "automatically between your turns; never poll for them. Address agents by name "
        '(the team lead is "team-lead", also reachable as "main").\n\n'
        "Protocol responses (legacy): when you receive a shutdown_request, answer with "
        'SendMessage({to: "team-lead", message: {type: "shutdown_response", request_id, '
        "approve: true}}) — or approve: false with a reason to keep working. The team lead "
        "answers a plan_approval_request with {type: \"plan_approval_response\", request_id, "
        "approve, feedback?}. Do not send a shutdown_request unless you were asked to, and do "
        "not send JSON status messages: write plain text."
    )
    input_schema: Mapping[str, Any] = {
        "type": "object",
        "properties": {
            "to": {"type": "string", "pattern": "^[^\\n\\r]*$", "maxLength": 300,
                   "description": "Recipient: a teammate's name, or team-lead"},
            "summary": {"type": "string", "maxLength": 200,
                        "description": "A 5-10 word preview (truncated rather than rejected)"},
            "message": {
                "anyOf": [
                    {"type": "string"},
                    {"type": "object", "properties": {
                        "type": {"const": "shutdown_request"}, "reason": {"type": "string"}},
                     "required": ["type"], "additionalProperties": False},
                    {"type": "object", "properties": {
                        "type": {"const": "shutdown_response"},
                        "request_id": {"type": "string", "minLength": 1, "maxLength": 300},
                        "approve": {"type": "boolean"}, "reason": {"type": "string"}},
                     "required": ["type", "request_id", "approve"],
                     "additionalProperties": False},
                    {"type": "object", "properties": {
                        "type": {"const": "plan_approval_response"},
                        "request_id": {"type": "string", "minLength": 1, "maxLength": 300},
                        "approve": {"type": "boolean"}, "feedback": {"type": "string"}},
                     "required": ["type", "request_id", "approve"],
                     "additionalProperties": False},
                ],
                "default": "",
            },
        },
        "required": ["to", "message"],
        "additionalProperties": False,
    }

    def validate(self, input: Mapping[str, Any]) -> str | None:
        to = input.get("to")
        if not isinstance(to, str) or not to.strip() or "\n" in to or "\r" in to:
            return "'to' must be a one-line name (a teammate, or team-lead)"
        if len(to) > 300:
            return "'to' is longer than 300 characters"
        message = input.get("message", "")
        if not isinstance(message, (str, dict)):
            return "'message' must be text or a protocol object"
        extra = set(input) - {"to", "summary", "message", "notify_when_idle"}
        return f"unknown field(s): {', '.join(sorted(extra))}" if extra else None

    async def run(self, input: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        return await self.team.send_call(self.member, input, ctx)


class TaskCreateTool(_TeamTool):
    name: str = "TaskCreate"
    description: str = (
        "Create a task in the team's shared task list (status pending, no owner), to track "
        "multi-step work and potentially assign it to teammates. Give enough detail in the "
        "description for another agent to do it; assign it with TaskUpdate owner. Check "
        "TaskList first to avoid duplicates."
    )
    input_schema: Mapping[str, Any] = {
        "type": "object",
        "properties": {
            "subject": {"type": "string", "description": "A brief title"},
            "description": {"type": "string", "description": "What needs to be done"},
            "activeForm": {"type": "string", "description": "Spinner text while in progress"},
            "metadata": {"type": "object"},
        },
        "required": ["subject", "description"],
        "additionalProperties": False,
    }

    async def run(self, input: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        return await self.team.task_create(self.member, input, ctx)


class TaskGetTool(_TeamTool):
    name: str = "TaskGet"
    description: str = "Show one task of the shared task list in full."
    input_schema: Mapping[str, Any] = {
        "type": "object",
        "properties": {"taskId": {"type": "string", "description": "The task's id"}},
        "required": ["taskId"],
        "additionalProperties": False,
    }

    async def run(self, input: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        return ToolOutput(self.team.board.get_text(str(input["taskId"])))


class TaskListTool(_TeamTool):
    name: str = "TaskList"
    description: str = (
        "List the team's tasks, one line each: id, status, subject, (owner), [blocked by …]. "
        "Before assigning tasks to teammates, check what exists.\n\n"
        "Teammate Workflow:\n1. After finishing a task, call TaskList.\n2. Pick a pending "
        "task with no owner and no open blockers, lowest id first.\n3. Claim it by setting "
        "owner to your name with TaskUpdate (a task someone else owns cannot be claimed), or "
        "wait for the lead.\n4. If blocked, work on unblocking it or tell the lead."
    )
    input_schema: Mapping[str, Any] = {
        "type": "object", "properties": {}, "additionalProperties": False}

    async def run(self, input: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        return ToolOutput(self.team.board.list_text())


class TaskUpdateTool(_TeamTool):
    name: str = "TaskUpdate"
    description: str = (
        "Update a task: claim it by setting owner, move it pending → in_progress → "
        "completed (only when fully done), or deleted to remove it; add dependencies with "
        'addBlocks / addBlockedBy, e.g. {"taskId":"2","addBlockedBy":["1"]}. Read the '
        "current state with TaskGet first."
    )
    input_schema: Mapping[str, Any] = {
        "type": "object",
        "properties": {
            "taskId": {"type": "string"},
            "subject": {"type": "string"},
            "description": {"type": "string"},
            "activeForm": {"type": "string"},
            "owner": {"type": "string"},
            "status": {"type": "string",
                       "enum": ["pending", "in_progress", "completed", "deleted"]},
            "addBlocks": {"type": "array", "items": {"type": "string"}},
            "addBlockedBy": {"type": "array", "items": {"type": "string"}},
            "metadata": {"type": "object"},
        },
        "required": ["taskId"],
        "additionalProperties": False,
    }

    async def run(self, input: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        return await self.team.task_update(self.member, input, ctx)


class ExitPlanModeTool(_TeamTool):
    name: str = "ExitPlanMode"
    description: str = (
        "You are in plan mode: when your plan is ready, call this with the plan. It goes to "
        "the team lead for approval; wait for the answer before changing anything."
    )
    input_schema: Mapping[str, Any] = {
        "type": "object",
        "properties": {"plan": {"type": "string", "description": "The plan, in Markdown"}},
        "required": ["plan"],
        "additionalProperties": False,
    }

    async def run(self, input: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        return await self.team.plan_request(self.member, str(input["plan"]), ctx)


def team_tools(team: Team, member: Member, *, agent_description: str | None) -> list[Tool]:
    """The tools of ``member``: the task tools and SendMessage; ``Agent`` when
    ``agent_description`` is given; ``ExitPlanMode`` for a plan-mode teammate."""
    tools: list[Tool] = [SendMessageTool(team, member), TaskCreateTool(team, member),
                         TaskGetTool(team, member), TaskListTool(team, member),
                         TaskUpdateTool(team, member)]
    if agent_description is not None:
        tools.insert(0, AgentTool(team, member, agent_description))
    if member.plan_mode_required:
        tools.append(ExitPlanModeTool(team, member))
    return tools
