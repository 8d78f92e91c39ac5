"""The shared task list: Claude Code's task semantics and result texts, over :class:`TeamFiles`.

Results are Claude Code's strings (``Task #1 created successfully: …``, ``Task not found``,
``Updated task #2 owner, status``; ``claude-code/AGENT-TEAMS-2.1.330.md``, sections 3.3–3.5), so a
model prompted for Claude Code reads them as it expects.

Where this differs, on purpose
------------------------------
* **A claim is atomic.**  Claude Code lets a second teammate overwrite the owner of a task
  (the last writer wins).  Here the whole read-check-write of an update happens under the
  list lock, and a teammate setting ``owner`` (or ``in_progress``) on a task another member
  owns gets ``Task #1 is already owned by alpha …`` as an error result and nothing changes.
  The lead may still reassign (it coordinates the team).
* **Dependencies are checked.**  ``addBlocks``/``addBlockedBy`` naming a task that does not
  exist, or closing a cycle (``#1 → #2 → #1``), are refused with the reason; nothing is
  written.  Claude Code writes them.
* **Corrupt task files** are named in ``TaskList``/``TaskGet`` results instead of breaking them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from subagents.dispatch.teams.files import TeamFileError, TeamFiles

__all__ = ["STATUSES", "TaskBoard", "UpdateOutcome"]

STATUSES = ("pending", "in_progress", "completed", "deleted")
NOT_FOUND = "Task not found"
COMPLETED_NOTE = ("\n\nTask completed. Call TaskList now to find your next available task or "
                  "see if your work unblocked others.")


@dataclass(slots=True)
class UpdateOutcome:
    """What a ``TaskUpdate`` did."""

    text: str
    is_error: bool = False
    task: dict[str, Any] | None = None
    assigned_to: str | None = None  # the new owner, to be sent a task_assignment
    completed: bool = False
    changed: list[str] = field(default_factory=list)


def _key(task_id: str) -> int:
    return int(task_id) if task_id.isdigit() else 1 << 62


def _ids(value: Any) -> list[str] | None:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, (str, int)) for v in value):
        return None
    return [str(v).lstrip("#") for v in value]


class TaskBoard:
    """Task operations for one team (all read-modify-writes under the list lock)."""

    def __init__(self, files: TeamFiles) -> None:
        self.files = files

    # ------------------------------------------------------------------ create / read

    def create(self, subject: str, description: str, active_form: str | None = None,
               metadata: Mapping[str, Any] | None = None) -> dict[str, Any]:
        with self.files.task_list_lock():
            task: dict[str, Any] = {"id": self.files.next_task_id(), "subject": subject,
                                    "description": description}
            if active_form:
                task["activeForm"] = active_form
            task.update({"status": "pending", "blocks": [], "blockedBy": []})
            if metadata:
                task["metadata"] = dict(metadata)
            self.files.write_task(task)
        return task

    def remove(self, task_id: str) -> None:
        """Delete a task (a ``TaskCreated`` hook's rollback; ``status: deleted``)."""
        with self.files.task_list_lock():
            self._delete_locked(task_id)

    def _delete_locked(self, task_id: str) -> None:
        tasks, _ = self.files.read_tasks()
        self.files.delete_task(task_id)
        for other in tasks.values():
            if task_id in other.get("blocks", []) or task_id in other.get("blockedBy", []):
                other["blocks"] = [b for b in other.get("blocks", []) if b != task_id]
                other["blockedBy"] = [b for b in other.get("blockedBy", []) if b != task_id]
                self.files.write_task(other)
        if task_id.isdigit():
            self.files.raise_high_water_mark(int(task_id))

    def get(self, task_id: str) -> dict[str, Any] | None:
        return self.files.read_task(str(task_id).lstrip("#"))

    def all(self) -> tuple[list[dict[str, Any]], list[str]]:
        tasks, problems = self.files.read_tasks()
        return [tasks[k] for k in sorted(tasks, key=_key)], problems

    def get_text(self, task_id: str) -> str:
        try:
            task = self.get(task_id)
        except TeamFileError as exc:
            return f"Task #{task_id} cannot be read: {exc}"
        if task is None:
            return NOT_FOUND
        lines = [f"Task #{task['id']}: {task.get('subject', '')}",
                 f"Status: {task.get('status', 'pending')}",
                 f"Description: {task.get('description', '')}"]
        if task.get("blockedBy"):
            lines.append("Blocked by: " + ", ".join(f"#{b}" for b in task["blockedBy"]))
        if task.get("blocks"):
            lines.append("Blocks: " + ", ".join(f"#{b}" for b in task["blocks"]))
        return "\n".join(lines)

    def list_text(self) -> str:
        tasks, problems = self.all()
        status = {t["id"]: t.get("status") for t in tasks}
        lines = []
        for t in tasks:
            line = f"#{t['id']} [{t.get('status', 'pending')}] {t.get('subject', '')}"
            if t.get("owner"):
                line += f" ({t['owner']})"
            open_blockers = [b for b in t.get("blockedBy", []) if status.get(b) != "completed"]
            if open_blockers:
                line += " [blocked by " + ", ".join(f"#{b}" for b in open_blockers) + "]"
            lines.append(line)
        lines.extend(f"(skipped: {p})" for p in problems)
        return "\n".join(lines) if lines else "No tasks found"

    def owned_open(self, owner: str) -> list[dict[str, Any]]:
        tasks, _ = self.all()
        return [t for t in tasks if t.get("owner") == owner and t.get("status") == "in_progress"]

    def unassign(self, owner: str) -> list[dict[str, Any]]:
        """Reset ``owner``'s unfinished tasks to pending with no owner (a teammate stopped)."""
        out = []
        with self.files.task_list_lock():
            tasks, _ = self.files.read_tasks()
            for t in sorted(tasks.values(), key=lambda t: _key(str(t["id"]))):
                if t.get("owner") == owner and t.get("status") != "completed":
                    t.pop("owner", None)
                    t["status"] = "pending"
                    self.files.write_task(t)
                    out.append(t)
        return out

    def counts(self) -> dict[str, int]:
        tasks, _ = self.all()
        out = {"pending": 0, "in_progress": 0, "completed": 0}
        for t in tasks:
            s = t.get("status", "pending")
            out[s] = out.get(s, 0) + 1
        return out

    # ------------------------------------------------------------------ update

    def update(self, task_id: str, changes: Mapping[str, Any], *, actor: str,
               is_lead: bool) -> UpdateOutcome:
        """Apply ``changes`` (TaskUpdate's fields) as ``actor``; see the module docstring."""
        task_id = str(task_id).lstrip("#")
        with self.files.task_list_lock():
            try:
                task = self.files.read_task(task_id)
            except TeamFileError as exc:
                return UpdateOutcome(f"Task #{task_id} cannot be read: {exc}", is_error=True)
            if task is None:
                return UpdateOutcome(NOT_FOUND)
            tasks: dict[str, dict[str, Any]] = {task_id: task}
            if changes.get("addBlocks") or changes.get("addBlockedBy"):
                # only dependency changes need the whole list (existence, cycles)
                tasks = {**self.files.read_tasks()[0], task_id: task}
            return self._apply(task, tasks, changes, actor=actor, is_lead=is_lead)

    def _apply(self, task: dict[str, Any], tasks: dict[str, dict[str, Any]],
               changes: Mapping[str, Any], *, actor: str, is_lead: bool) -> UpdateOutcome:
        tid = str(task["id"])
        status = changes.get("status")
        if status is not None and status not in STATUSES:
            return UpdateOutcome(f"Invalid status {status!r}: use one of "
                                 f"{', '.join(STATUSES)}", is_error=True)
        if status == "deleted":
            self._delete_locked(tid)
            return UpdateOutcome(f"Updated task #{tid} deleted", changed=["deleted"])
        current = task.get("owner")
        owner = changes.get("owner")
        if owner == "":
            owner = None
        new_owner = owner if "owner" in changes else current
        if "owner" not in changes and status == "in_progress" and not current and not is_lead:
            new_owner = actor  # a teammate starting an unowned task takes it (Claude Code)
        # Another member may neither take nor release (owner "") a task someone owns; the
        # owner may release it, the lead may reassign it.
        if current and not is_lead and current != actor and (
            new_owner != current or status == "in_progress"
        ):
            return UpdateOutcome(
                f"Task #{tid} is already owned by {current}; it was not changed. Pick another "
                "task with TaskList (pending, no owner, not blocked), or ask the team lead to "
                "reassign it.", is_error=True)
        add_blocks = _ids(changes.get("addBlocks"))
        add_blocked_by = _ids(changes.get("addBlockedBy"))
        if add_blocks is None or add_blocked_by is None:
            return UpdateOutcome("addBlocks and addBlockedBy must be lists of task ids",
                                 is_error=True)
        for dep in (*add_blocks, *add_blocked_by):
            if dep == tid:
                return UpdateOutcome(f"Task #{tid} cannot block itself; nothing was changed",
                                     is_error=True)
            if dep not in tasks:
                return UpdateOutcome(f"Task #{dep} not found; nothing was changed",
                                     is_error=True)
        edges = {k: set(v.get("blockedBy", [])) for k, v in tasks.items()}
        for b in add_blocked_by:
            edges[tid].add(b)
        for b in add_blocks:
            edges.setdefault(b, set()).add(tid)
        cycle = _cycle(edges, tid)
        if cycle:
            return UpdateOutcome("That would create a dependency cycle ("
                                 + " → ".join(f"#{c}" for c in cycle)
                                 + "); nothing was changed", is_error=True)
        changed: list[str] = []
        for field_name, key in (("subject", "subject"), ("description", "description"),
                                ("activeForm", "activeForm")):
            value = changes.get(field_name)
            if isinstance(value, str) and value != task.get(key):
                task[key] = value
                changed.append(field_name)
        if new_owner != current:
            if new_owner:
                task["owner"] = new_owner
            else:
                task.pop("owner", None)
            changed.append("owner")
        if status is not None and status != task.get("status"):
            task["status"] = status
            changed.append("status")
        metadata = changes.get("metadata")
        if isinstance(metadata, Mapping):
            merged = dict(task.get("metadata") or {})
            for k, v in metadata.items():
                if v is None:
                    merged.pop(k, None)
                else:
                    merged[k] = v
            if merged:
                task["metadata"] = merged
            else:
                task.pop("metadata", None)
            changed.append("metadata")
        touched: dict[str, dict[str, Any]] = {tid: task}
        if add_blocked_by:
            task["blockedBy"] = _merge(task.get("blockedBy", []), add_blocked_by)
            changed.append("blockedBy")
            for b in add_blocked_by:
                other = touched.setdefault(b, tasks[b])
                other["blocks"] = _merge(other.get("blocks", []), [tid])
        if add_blocks:
            task["blocks"] = _merge(task.get("blocks", []), add_blocks)
            changed.append("blocks")
            for b in add_blocks:
                other = touched.setdefault(b, tasks[b])
                other["blockedBy"] = _merge(other.get("blockedBy", []), [tid])
        for t in touched.values():
            self.files.write_task(t)
        text = f"Updated task #{tid} " + (", ".join(changed) if changed else "(no changes)")
        completed = "status" in changed and task["status"] == "completed"
        if completed and not is_lead:
            text += COMPLETED_NOTE
        return UpdateOutcome(text, task=task, changed=changed, completed=completed,
                             assigned_to=task.get("owner") if "owner" in changed else None)


def _merge(old: Sequence[str], new: Sequence[str]) -> list[str]:
    out = list(old)
    out.extend(n for n in new if n not in out)
    return out


def _cycle(edges: Mapping[str, set[str]], start: str) -> list[str] | None:
    """A dependency path from ``start`` back to itself, if one exists."""
    stack: list[tuple[str, list[str]]] = [(start, [start])]
    seen: set[str] = set()
    while stack:
        node, path = stack.pop()
        for nxt in sorted(edges.get(node, ())):
            if nxt == start:
                return [*path, start]
            if nxt not in seen:
                seen.add(nxt)
                stack.append((nxt, [*path, nxt]))
    return None
