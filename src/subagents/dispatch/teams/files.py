"""A team's files: ``config.json``, one inbox per member, one file per task.

The shapes are Claude Code 2.1.330's (``claude-code/AGENT-TEAMS-2.1.330.md``, section 7), so
a team can be inspected with the same tools and read back after an interruption::

    <teams_dir>/<team>/config.json             {"name", "leadAgentId", "members": [...]}
    <teams_dir>/<team>/inboxes/<name>.json     [{"from", "text", "summary", "timestamp", ...}]
                                               (no file when nothing waits)
    <teams_dir>/<team>/transcripts/<name>.jsonl one JSONL transcript per member
    <tasks_dir>/<team>/<id>.json               {"id", "subject", "description", "status", ...}
    <tasks_dir>/<team>/.highwatermark           the highest task id ever used

Design decisions
----------------
* **Where.** :meth:`TeamLayout.project` (the default) keeps everything under the project's
  ``.subagents/`` (``teams/`` and ``tasks/``); :meth:`TeamLayout.claude` uses Claude Code's
  ``~/.claude/teams`` and ``~/.claude/tasks``.
* **Every write is atomic and locked.** Writers take a ``filelock`` lock (``<file>.lock``; for
  the task list ``tasks/<team>/.lock``, the file Claude Code locks) and write through
  :func:`~subagents.runtime.tools.files.atomic_write_text` (temp file + rename), so another
  process — a second ``subagents`` writing the same inbox, a user's script — never reads half
  a file and no append is lost.  The temp file is not fsynced by default (``durable=False``):
  rename already makes a crash or a kill harmless; only a power loss could lose the last write,
  and an fsync costs more than the whole rest of a message (bench/bench_teams.py).
* **Corrupt files are kept, not trusted.**  An inbox that is not a JSON array is moved aside to
  ``<name>.json.corrupt-<ms>`` (nothing destroyed) and read as empty; entries that are not
  messages are dropped with a problem noted.  A task file that does not parse is reported by
  name and skipped by listings; nobody overwrites it.  Problems go to ``on_problem`` (the team
  tells the lead).
* **Ids are never reused**: ``max(existing ids, .highwatermark) + 1`` under the list lock, and
  ``.highwatermark`` is raised when a task is deleted.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from subagents.errors import SubagentError
from subagents.runtime.tools.files import atomic_write_text

__all__ = ["TeamFileError", "TeamFiles", "TeamLayout", "now_iso", "now_ms"]

_SAFE = re.compile(r"[^A-Za-z0-9_-]")
DEFAULT_LOCK_TIMEOUT = 10.0


class TeamFileError(SubagentError):
    """A team file could not be read, written or locked."""


def now_ms() -> int:
    return int(time.time() * 1000)


def now_iso() -> str:
    t = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{int(t * 1000) % 1000:03d}Z"


@dataclass(frozen=True, slots=True)
class TeamLayout:
    """Where teams and their task lists live."""

    teams_dir: Path
    tasks_dir: Path

    @classmethod
    def project(cls, root: str | os.PathLike[str]) -> TeamLayout:
        base = Path(root) / ".subagents"
        return cls(base / "teams", base / "tasks")

    @classmethod
    def claude(cls, home: str | os.PathLike[str] | None = None) -> TeamLayout:
        base = (Path(home) if home is not None else Path.home()) / ".claude"
        return cls(base / "teams", base / "tasks")


class TeamFiles:
    """Locked, atomic access to one team's files (see the module docstring)."""

    def __init__(
        self,
        layout: TeamLayout,
        team: str,
        *,
        durable: bool = False,
        lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
        on_problem: Callable[[str], None] | None = None,
    ) -> None:
        self.team = team
        safe = _SAFE.sub("-", team)
        self.team_dir = layout.teams_dir / safe
        self.tasks_dir = layout.tasks_dir / safe
        self.inbox_dir = self.team_dir / "inboxes"
        self.transcripts_dir = self.team_dir / "transcripts"
        self.durable = durable
        self.lock_timeout = lock_timeout
        self.on_problem = on_problem
        self._locks: dict[str, Any] = {}
        self._task_cache: dict[str, tuple[tuple[int, int, int], dict[str, Any]]] = {}

    # ------------------------------------------------------------------ plumbing

    @contextlib.contextmanager
    def lock(self, target: Path) -> Iterator[None]:
        """Hold the lock of ``target`` (``<target>.lock``, or ``target`` itself for ``.lock``)."""
        from filelock import FileLock, Timeout

        path = target if target.name == ".lock" else target.with_name(target.name + ".lock")
        key = str(path)
        lock = self._locks.get(key)
        if lock is None:
            path.parent.mkdir(parents=True, exist_ok=True)
            lock = self._locks[key] = FileLock(key, timeout=self.lock_timeout)
        try:
            with lock:
                yield
        except Timeout:
            raise TeamFileError(
                f"{target} is locked by another process for more than {self.lock_timeout:g} s",
                hint=f"if no other run uses this team, remove {path}",
            ) from None

    def write_json(self, path: Path, data: Any) -> None:
        try:
            atomic_write_text(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n",
                              fsync=self.durable)
        except OSError as exc:
            raise TeamFileError(f"cannot write {path}: {exc.strerror or exc}") from None

    def _problem(self, message: str) -> None:
        if self.on_problem is not None:
            with contextlib.suppress(Exception):
                self.on_problem(message)

    def _read_json(self, path: Path) -> Any:
        """The parsed file; ``None`` when it does not exist; raises for a corrupt one."""
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise TeamFileError(f"cannot read {path}: {exc.strerror or exc}") from None
        try:
            return json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            where = f" (line {exc.lineno}, column {exc.colno})" if isinstance(
                exc, json.JSONDecodeError) else ""
            raise TeamFileError(f"{path} is not valid JSON{where}: {exc}") from None

    # ------------------------------------------------------------------ config.json

    @property
    def config_path(self) -> Path:
        return self.team_dir / "config.json"

    def read_config(self) -> dict[str, Any] | None:
        data = self._read_json(self.config_path)
        if data is not None and not isinstance(data, dict):
            raise TeamFileError(f"{self.config_path} is not a JSON object")
        return data

    def update_config(self, change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
        with self.lock(self.config_path):
            data = self.read_config() or {}
            change(data)
            self.write_json(self.config_path, data)
            return data

    # ------------------------------------------------------------------ inboxes

    def inbox_path(self, name: str) -> Path:
        return self.inbox_dir / f"{_SAFE.sub('-', name)}.json"

    def _read_inbox(self, path: Path) -> list[dict[str, Any]]:
        try:
            data = self._read_json(path)
        except TeamFileError as exc:
            data = exc
        if data is None:
            return []
        if not isinstance(data, list):
            aside = path.with_name(f"{path.name}.corrupt-{now_ms()}")
            with contextlib.suppress(OSError):
                os.replace(path, aside)
            why = data if isinstance(data, Exception) else "not a JSON array"
            self._problem(f"inbox {path} was unreadable ({why}); it was moved to "
                          f"{aside.name} and a new one started")
            return []
        good = [e for e in data if isinstance(e, dict) and isinstance(e.get("from"), str)
                and isinstance(e.get("text"), str)]
        if len(good) != len(data):
            self._problem(f"inbox {path}: {len(data) - len(good)} entr(y/ies) that are not "
                          "messages were dropped")
        return good

    def append_message(self, recipient: str, entry: dict[str, Any]) -> None:
        path = self.inbox_path(recipient)
        with self.lock(path):
            entries = self._read_inbox(path)
            entries.append(entry)
            self.write_json(path, entries)

    def take_messages(self, recipient: str) -> list[dict[str, Any]]:
        """Every waiting message of ``recipient``, removed from the inbox (delivered)."""
        path = self.inbox_path(recipient)
        if not path.exists():
            return []
        with self.lock(path):
            entries = self._read_inbox(path)
            if entries:
                # Delivered entries are removed.  Claude Code rewrites the file as ``[]``;
                # removing it means the same to every reader (no file = no mail) and is much
                # cheaper: on ext4 a rename *over* an existing file forces its data to disk,
                # so the next append would pay that flush (bench/bench_teams.py).
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()
            return entries

    def waiting(self, recipient: str) -> int:
        path = self.inbox_path(recipient)
        if not path.exists():
            return 0
        with self.lock(path):
            return len(self._read_inbox(path))

    # ------------------------------------------------------------------ tasks

    @property
    def task_lock_path(self) -> Path:
        return self.tasks_dir / ".lock"

    def task_path(self, task_id: str) -> Path:
        return self.tasks_dir / f"{task_id}.json"

    @contextlib.contextmanager
    def task_list_lock(self) -> Iterator[None]:
        self.tasks_dir.mkdir(parents=True, exist_ok=True)
        with self.lock(self.task_lock_path):
            yield

    def read_task(self, task_id: str) -> dict[str, Any] | None:
        """The task, ``None`` when there is none; raises :class:`TeamFileError` if corrupt."""
        if not re.fullmatch(r"[0-9]{1,12}", task_id):
            return None
        data = self._read_json(self.task_path(task_id))
        if data is not None and not (isinstance(data, dict) and isinstance(data.get("subject"),
                                                                          str)):
            raise TeamFileError(f"{self.task_path(task_id)} is not a task object")
        return data

    def read_tasks(self) -> tuple[dict[str, dict[str, Any]], list[str]]:
        """(id → task for every readable task, problems for the others).

        A file whose inode, mtime and size are unchanged since it was last parsed is not read
        again (every write is a rename, so a new version is a new inode): ``TaskList`` over
        hundreds of tasks costs a ``stat`` per task, not a parse.  Callers get copies.
        """
        tasks: dict[str, dict[str, Any]] = {}
        problems: list[str] = []
        try:
            entries = list(os.scandir(self.tasks_dir))
        except FileNotFoundError:
            return tasks, problems
        except OSError as exc:
            raise TeamFileError(f"cannot list {self.tasks_dir}: {exc.strerror or exc}") from None
        seen: set[str] = set()
        for entry in entries:
            stem, dot, ext = entry.name.partition(".")
            if ext != "json" or not dot or not stem.isdigit():
                continue
            seen.add(stem)
            try:
                st = entry.stat()
            except FileNotFoundError:  # deleted meanwhile
                continue
            key = (st.st_ino, st.st_mtime_ns, st.st_size)
            cached = self._task_cache.get(stem)
            if cached is not None and cached[0] == key:
                tasks[stem] = _copy_task(cached[1])
                continue
            try:
                task = self.read_task(stem)
            except TeamFileError as exc:
                problems.append(str(exc))
                continue
            if task is not None:
                self._task_cache[stem] = (key, _copy_task(task))
                tasks[stem] = task
        for gone in set(self._task_cache) - seen:
            del self._task_cache[gone]
        return tasks, problems

    def write_task(self, task: dict[str, Any]) -> None:
        self.write_json(self.task_path(str(task["id"])), task)

    def delete_task(self, task_id: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.task_path(task_id).unlink()

    def high_water_mark(self) -> int:
        try:
            return int((self.tasks_dir / ".highwatermark").read_text().strip() or 0)
        except (OSError, ValueError):
            return 0

    def raise_high_water_mark(self, value: int) -> None:
        if value > self.high_water_mark():
            atomic_write_text(self.tasks_dir / ".highwatermark", str(value), fsync=self.durable)

    def next_task_id(self) -> str:
        """Call under :meth:`task_list_lock`."""
        ids = [int(p.stem) for p in self.tasks_dir.glob("*.json") if p.stem.isdigit()]
        return str(max([*ids, self.high_water_mark()], default=0) + 1)


def _copy_task(task: dict[str, Any]) -> dict[str, Any]:
    out = dict(task)
    for key in ("blocks", "blockedBy"):
        if isinstance(out.get(key), list):
            out[key] = list(out[key])
    if isinstance(out.get("metadata"), dict):
        out["metadata"] = json.loads(json.dumps(out["metadata"]))
    return out
