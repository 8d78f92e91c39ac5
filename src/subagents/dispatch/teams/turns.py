"""The turns of team members: what happens when a lead's or a teammate's turn ends.

:class:`LeadControl` delivers the lead's mail, waits while teammates work, and ends the run
when nobody works and nothing waits.  :class:`TeammateControl` runs a teammate's turn-end hooks
(``SubagentStop`` → ``TaskCompleted`` → ``TeammateIdle``; exit 2 keeps it working), posts the
idle notification and waits for mail or the end of the team.  :func:`history_from_transcripts`
rebuilds a member's conversation from its JSONL transcripts (a resumed teammate or team).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from subagents.dispatch.teams.files import now_iso
from subagents.providers.base import (
    Message,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from subagents.runtime.runner import TurnControl
from subagents.runtime.tools.base import ToolContext

if TYPE_CHECKING:
    from subagents.dispatch.teams.team import Member, Team

__all__ = ["LeadControl", "TeammateControl", "history_from_transcripts"]

LEAD = "team-lead"
MAX_HOOK_ROUNDS = 5


class LeadControl(TurnControl):
    """The lead's turns: deliver its mail, wait while teammates work, else end the run."""

    def __init__(self, team: Team, lead: Member) -> None:
        self.team = team
        self.lead = lead

    async def next_input(self, ctx: ToolContext, text: str) -> str | None:
        team = self.team
        self.lead.ctx = ctx
        while True:
            self.lead.wake.clear()
            entries = team.files.take_messages(LEAD)
            if team.problems:
                entries.extend({"from": "system", "text": f"Team problem: {p}"}
                               for p in team.problems[len(getattr(self, "_told", [])):])
                self._told = list(team.problems)
            direct, team.main_queue[:] = list(team.main_queue), []
            if entries or direct:
                self.lead.state = "working"
                team._emit("member", name=LEAD, state="working")
                parts = (team.render(entries, for_lead=True), team.render_direct(direct))
                return "\n\n".join(p for p in parts if p)
            if not any(m.state == "working" for m in team.teammates()):
                self.lead.state = "idle"
                team._emit("member", name=LEAD, state="done")
                return None
            self.lead.state = "idle"
            team._emit("member", name=LEAD, state="waiting")
            await self.lead.wake.wait()

    def stop_now(self, ctx: ToolContext) -> bool:
        self.lead.ctx = ctx
        return False


class TeammateControl(TurnControl):
    """A teammate's turns: hooks, idle notification, then wait for mail (or the end)."""

    def __init__(self, team: Team, member: Member) -> None:
        self.team = team
        self.member = member
        self.hook_rounds = 0  # turns in a row that a blocking hook asked for

    def stop_now(self, ctx: ToolContext) -> bool:
        self.member.ctx = ctx
        return self.member.approved_shutdown

    async def next_input(self, ctx: ToolContext, text: str) -> str | None:
        team, m = self.team, self.member
        m.ctx = ctx
        m.turns += 1
        if m.approved_shutdown:
            return None
        feedback = await self._turn_end_hooks(ctx, text)
        if feedback == "":
            return None
        if feedback is not None:
            # A hook that blocks every time would keep a teammate (and the bill) going forever
            # (Claude Code has no bound): after MAX_HOOK_ROUNDS the teammate goes idle anyway
            # and the lead is told.
            self.hook_rounds += 1
            if self.hook_rounds <= MAX_HOOK_ROUNDS:
                return feedback
            team.problems.append(f"{m.name}: a turn-end hook blocked {MAX_HOOK_ROUNDS} turns "
                                 "in a row; the teammate went idle anyway")
        self.hook_rounds = 0
        waiting = team.files.waiting(m.name)
        if team.lead is not None and not team.closing.is_set():
            note: dict[str, Any] = {"type": "idle_notification", "from": m.name,
                                    "timestamp": now_iso()}
            if not waiting:
                note["idleReason"] = "available"
            if text:
                note["result"] = text
            if m.last_sent:
                note["summary"] = m.last_sent
            team.post_json(team.lead, m.name, note)
        m.state = "idle"
        team._emit("member", name=m.name, state="idle")
        while True:
            m.wake.clear()
            if team.closing.is_set() or m.approved_shutdown:
                return None
            entries = team.files.take_messages(m.name)
            if entries:
                m.state = "working"
                team._emit("member", name=m.name, state="working")
                await team.subagent_start(m)
                return team.render(entries, for_lead=False)
            if m.state == "working":  # woken by a post whose entry someone else took
                m.state = "idle"
            closing = asyncio.ensure_future(team.closing.wait())
            woken = asyncio.ensure_future(m.wake.wait())
            try:
                await asyncio.wait({closing, woken}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                closing.cancel()
                woken.cancel()

    async def _turn_end_hooks(self, ctx: ToolContext, text: str) -> str | None:
        """``None`` to go idle; feedback text to keep working; ``""`` to stop."""
        team, m = self.team, self.member
        hooks = team.hooks
        if hooks is None:
            return None
        base = {**team._common(), "permission_mode": ctx.policy.effective_mode.value
                if ctx.policy else "default", "agent_id": m.agent_id, "agent_type": m.name}
        plan = team.in_plan_mode(m)  # plan mode runs no hook command
        if hooks.has("SubagentStop"):
            path = getattr(ctx.transcript, "path", None)
            outcome = await hooks.fire("SubagentStop", {
                **base, "stop_hook_active": False, "agent_transcript_path": str(path or ""),
                "last_assistant_message": text}, team.runner.cwd, target=m.name, plan=plan)
            if outcome.stopped:
                return ""
            if outcome.blocked:
                return outcome.feedback
        if hooks.has("TaskCompleted"):
            for task in team.board.owned_open(m.name):
                feedback = await team._task_completed_hook(m, task)
                if feedback is not None:
                    return feedback
        if hooks.has("TeammateIdle"):
            outcome = await hooks.fire("TeammateIdle", {
                **base, "teammate_name": m.name, "team_name": team.name}, team.runner.cwd,
                plan=plan)
            if outcome.stopped:
                return ""
            if outcome.blocked:
                return outcome.feedback
        return None


def history_from_transcripts(folder: Path, member: str) -> list[Message]:
    """A member's conversation from its transcripts, cut after its last complete turn."""
    messages: list[Message] = []
    paths = sorted(folder.glob(f"{member}-*.jsonl"),
                   key=lambda p: (int(p.stem.rsplit("-", 1)[1])
                                  if p.stem.rsplit("-", 1)[1].isdigit() else 0))
    for path in paths:
        part: list[Message] = []
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except OSError:
            continue
        for line in lines:
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                break  # a line cut by a kill: what follows cannot be trusted
            if not isinstance(event, dict) or event.get("type") != "message":
                continue
            message = _message_from_json(event)
            if message is not None:
                part.append(message)
        # keep up to the last assistant message that asked for no tools (a finished turn)
        cut = max((i for i, msg in enumerate(part) if msg.role == "assistant" and not any(
            isinstance(b, ToolUseBlock) for b in msg.content)), default=-1)
        part = part[:cut + 1]
        if part and messages and messages[-1].role == part[0].role == "assistant":
            continue
        if part and messages and messages[-1].role == "user" == part[0].role:
            messages[-1] = Message("user", (*messages[-1].content, *part[0].content))
            part = part[1:]
        messages.extend(part)
    return messages


def _message_from_json(event: Mapping[str, Any]) -> Message | None:
    role = event.get("role")
    if role not in ("user", "assistant"):
        return None
    blocks: list[Any] = []
    for b in event.get("content") or ():
        if not isinstance(b, dict):
            continue
        if b.get("type") == "text":
            blocks.append(TextBlock(str(b.get("text", ""))))
        elif b.get("type") == "thinking":
            redacted = b.get("redacted")
            blocks.append(ThinkingBlock(str(b.get("thinking", "")), str(b.get("signature", "")),
                                        redacted=str(redacted) if redacted is not None else None))
        elif b.get("type") == "tool_use":
            error = b.get("arguments_error")
            blocks.append(ToolUseBlock(
                str(b.get("id")), str(b.get("name")), dict(b.get("input") or {}),
                raw_arguments=str(b.get("raw_arguments", "")) if error is not None else None,
                arguments_error=str(error) if error is not None else None))
        elif b.get("type") == "tool_result":
            blocks.append(ToolResultBlock(str(b.get("tool_use_id")), str(b.get("content", "")),
                                          bool(b.get("is_error"))))
    return Message(role, tuple(blocks)) if blocks else None

