"""SendMessage for agent teams: mail between members, and the shutdown and plan protocols.

Split from :mod:`subagents.dispatch.teams.team` along its seam: these functions hold the
message routing (to the lead, a teammate, everyone), the structured protocol messages
(``shutdown_request`` / ``shutdown_response``, ``plan_approval_response``) and waking a
stopped teammate that has mail.  They take the :class:`~subagents.dispatch.teams.team.Team`
as their first argument; ``Team.send_call`` and friends are one-line methods over them, so
the team tools keep calling the team.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from subagents.dispatch.teams.files import now_iso, now_ms
from subagents.dispatch.teams.turns import history_from_transcripts
from subagents.runtime.tools.base import ToolContext, ToolOutput

if TYPE_CHECKING:
    from subagents.dispatch.teams.team import Member, Team

__all__ = ["plan_request", "resume", "send_call"]


# ------------------------------------------------------------------ SendMessage


async def send_call(team: Team, sender: Member, input: Mapping[str, Any],
                    ctx: ToolContext) -> ToolOutput:
    to = str(input["to"]).strip()
    message = input.get("message", "")
    summary = input.get("summary")
    summary = summary[:200] if isinstance(summary, str) and summary.strip() else None
    target = team.member(to)
    if isinstance(message, dict):
        return _protocol(team, sender, to, target, message)
    if target is None:
        names = ", ".join(["team-lead", *(m.name for m in team.teammates())])
        return _json({"success": False, "message": f"No agent named '{to}' is reachable."
                      f"\nTeam members: {names}."})
    if team.messages >= team.limits.max_messages:
        return _json({"success": False, "message": f"The team's message limit "
                      f"({team.limits.max_messages}) is reached; finish with what you "
                      "have."})
    team.messages += 1
    text = str(message)
    if target.is_lead and to.lower() == "main" and not sender.is_lead:
        # Claude Code delivers these in memory, as <agent-message>, with no inbox entry
        team.main_queue.append({"from": sender.name, "text": text})
        target.wake.set()
        team._emit("message", sender=sender.name, to="main")
        return _json({"success": True,
                      "message": "Message queued for the main conversation's next turn."})
    first_line = text.strip().splitlines()[0][:200] if text.strip() else ""
    sender.last_sent = f"[to {target.name}] {first_line}"
    color = sender.color if not sender.is_lead else None
    msg_id = team.post(target, sender.name, text, summary=summary or first_line or None,
                       color=color)
    team._emit("message", sender=sender.name, to=target.name)
    note = ""
    if target.state in ("shut down", "stopped", "failed") and not target.is_lead:
        note = resume(team, target)
    routing: dict[str, Any] = {"sender": sender.name, "target": f"@{target.name}"}
    if target.color and not target.is_lead:
        routing["targetColor"] = target.color
    if color:
        routing["senderColor"] = color
    routing.update({"summary": summary or first_line, "content": text})
    return _json({"success": True, "message": f"Message sent to {target.name}'s inbox{note}",
                  "msg_id": msg_id, "routing": routing})


def resume(team: Team, member: Member) -> str:
    """Start a stopped teammate again with its earlier conversation (its transcripts)."""
    history = history_from_transcripts(team.files.transcripts_dir, member.name)
    prompt = team.render(team.files.take_messages(member.name), for_lead=False)
    member.approved_shutdown = member.killed = False
    member.failure = None
    if member.state == "shut down":
        team._add_to_config(member)
    team._start(member, prompt, team.lead.ctx if team.lead else None, history)
    team._emit("member", name=member.name, state="working")
    return (f". Teammate \"{member.name}\" was not running; resumed it with "
            f"{len(history)} prior messages and your message as its next prompt")


def _protocol(team: Team, sender: Member, to: str, target: Member | None,
              message: Mapping[str, Any]) -> ToolOutput:
    kind = message.get("type")
    if kind == "shutdown_request":
        if not sender.is_lead:
            return ToolOutput.error("Only the team lead can send a shutdown_request.")
        if target is None or target.is_lead:
            return _json({"success": False, "message": f"No teammate named '{to}' is "
                          "reachable."})
        rid = f"shutdown-{now_ms()}@{target.name}"
        target.shutdown_ids.add(rid)
        payload: dict[str, Any] = {"type": "shutdown_request", "requestId": rid,
                                   "from": sender.name}
        if isinstance(message.get("reason"), str):
            payload["reason"] = message["reason"]
        payload["timestamp"] = now_iso()
        team.post_json(target, sender.name, payload)
        if target.state in ("stopped", "failed", "shut down"):
            resume(team, target)
        return _json({"success": True, "message": f"Shutdown request sent to "
                      f"{target.name}. Request ID: {rid}", "request_id": rid,
                      "target": target.name})
    if kind == "shutdown_response":
        if target is None or not target.is_lead:
            return ToolOutput.error('<tool_use_error>shutdown_response must be sent to '
                                    '"team-lead"</tool_use_error>')
        rid = str(message.get("request_id", ""))
        if rid not in sender.shutdown_ids:
            return _json({"success": False, "message": "No shutdown request with that ID "
                          "from your team lead has reached this session, so nothing was "
                          "done and you keep running."})
        sender.shutdown_ids.discard(rid)
        if message.get("approve") is True:
            sender.approved_shutdown = True
            team.post_json(target, sender.name, {
                "type": "shutdown_approved", "requestId": rid, "from": sender.name,
                "timestamp": now_iso(), "paneId": "in-process", "backendType": "in-process"})
            return _json({"success": True, "message": "Shutdown approved. Ending now.",
                          "request_id": rid})
        reason = str(message.get("reason") or "")
        team.post_json(target, sender.name, {"type": "shutdown_rejected", "requestId": rid,
                                             "from": sender.name, "reason": reason,
                                             "timestamp": now_iso()})
        return _json({"success": True, "message": f'Shutdown rejected. Reason: "{reason}". '
                      "Continuing to work.", "request_id": rid})
    if kind == "plan_approval_response":
        if not sender.is_lead:
            return ToolOutput.error("Only the team lead answers plan approval requests.")
        rid = str(message.get("request_id", ""))
        owner = next((m for m in team.teammates() if rid in m.plan_ids), None)
        if owner is None:
            return _json({"success": False, "message": f"No plan approval request {rid!r} "
                          "is waiting."})
        owner.plan_ids.discard(rid)
        if message.get("approve") is True:
            owner.plan_mode_required = False
            lead_policy = team.lead.ctx.policy if team.lead and team.lead.ctx else None
            mode = lead_policy.effective_mode.value if lead_policy else "default"
            if mode == "plan":
                # The user put the whole session in plan mode: a model (the lead) cannot
                # lift it for anyone; the teammate keeps planning, read-only.
                team.post(owner, sender.name, "[Plan Approved] The session is in plan mode, "
                          "which only the user can lift: stay read-only and report the plan.")
                return _json({"success": True, "message": f"Plan approved for {owner.name}, "
                              "who stays in plan mode: the user chose plan mode for this "
                              "session, and only the user can lift it.", "request_id": rid})
            if owner.ctx is not None and owner.ctx.policy is not None:
                owner.ctx.policy = dataclasses.replace(owner.ctx.policy, mode=mode)
            team.post(owner, sender.name, "[Plan Approved] You can now proceed with "
                      "implementation")
            return _json({"success": True, "message": f"Plan approved for {owner.name}. "
                          "They will receive the approval and can proceed with "
                          "implementation.", "request_id": rid})
        feedback = str(message.get("feedback") or "")
        team.post(owner, sender.name, f"[Plan Rejected] {feedback}".strip())
        return _json({"success": True, "message": f"Plan rejected for {owner.name}.",
                      "request_id": rid})
    return ToolOutput.error(f"unknown message type {kind!r}: send text, or one of "
                            "shutdown_request, shutdown_response, plan_approval_response")


async def plan_request(team: Team, member: Member, plan: str, ctx: ToolContext) -> ToolOutput:
    if member.is_lead or team.lead is None:
        return ToolOutput.error("ExitPlanMode is for teammates in plan mode")
    if not member.plan_mode_required:
        return ToolOutput("Your plan was already approved; go ahead.")
    rid = f"plan_approval-{now_ms()}@{member.name}@{team.name}"
    member.plan_ids.add(rid)
    team.post_json(team.lead, member.name, {
        "type": "plan_approval_request", "from": member.name, "timestamp": now_iso(),
        "planContent": plan, "requestId": rid})
    return ToolOutput("Your plan was sent to the team lead for approval. Wait for the "
                      "answer before changing anything.")


def _json(data: Mapping[str, Any]) -> ToolOutput:
    return ToolOutput(json.dumps(data, ensure_ascii=False))


def _shutdown_id(text: str) -> str | None:
    if '"type":"shutdown_request"' not in text:
        return None
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return None
    rid = data.get("requestId") if isinstance(data, dict) else None
    return rid if isinstance(rid, str) else None


def _terminated(member: Member, freed: Sequence[Mapping[str, Any]], *,
                failed: bool = False) -> str:
    head = (f"{member.name} has stopped: {member.failure}." if failed
            else f"{member.name} has shut down.")
    if not freed:
        return head
    tasks = ", ".join(f'#{t["id"]} "{t.get("subject", "")}"' for t in freed)
    return (f"{head} {len(freed)} task(s) were unassigned: {tasks}. Use TaskList to check "
            "availability and TaskUpdate with owner to reassign them to idle teammates.")
