"""Hot reload: change events from a registry, driven by a real file watcher.

Design notes
------------
* Events are *computed*, not forwarded: a filesystem notification only says "look again";
  the registry then reloads (stat-only for unchanged files) and :func:`diff_state` compares
  its before/after state.  So a coalesced, reordered or dropped notification can delay an event
  but never lose one, and after a rename storm the final state is exactly the disk's.
* Agent events describe what ``subagents list`` shows -- the *winner* of each name -- not
  files: at most one event per name per reload, so their order cannot matter, and a consumer
  that applies ``added``/``modified``/``removed`` to a ``name -> path`` map always ends equal to
  ``list``.  (Per-file events did not have that property: a file renamed while shadowed gave
  ``removed`` + ``added`` for a name that never stopped being visible elsewhere.)  A shadowed
  file that changes yields no agent event; the winning file being renamed, or a closer scope
  taking a name over, is ``modified`` with ``previous_path``/``previous_source``.  ``error``
  events are per file (new or changed error diagnostics) and per new same-scope clash.
* ``watchfiles`` (Rust ``notify``: inotify/FSEvents/ReadDirectoryChangesW) is imported lazily.
  Existing scope folders are watched recursively; a missing one is covered by watching its
  nearest existing parent *flat* (never recursively: that parent may be ``$HOME``).  When the
  set of targets changes (an agents folder was created or deleted) the watchers are restarted,
  and a reload right after the restart catches anything written in between.
* Debounce: ``watchfiles`` yields after ``step`` ms of quiet (at most ``debounce`` ms of
  grouping under a continuous storm); we wait ``debounce_ms`` more to merge the ticks of
  several watchers, then reload once.
* Before ``ready`` the watchers are running (``RustNotify`` is built inside the first
  ``__anext__`` of ``awatch``, before its first real suspension, so one ``sleep(0)`` after
  scheduling it is enough) and one silent reload folds in anything written since ``load_all``:
  a change made after the consumer sees ``ready`` is always reported.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from subagents.definition import Scope
from subagents.diagnostics import Diagnostic, Severity

if TYPE_CHECKING:
    from subagents.registry.core import AgentEntry, AgentRegistry, FileRecord

__all__ = ["ChangeEvent", "diff_state", "watch_registry"]


@dataclass(frozen=True, slots=True)
class ChangeEvent:
    """One change: ``ready``, ``added``, ``modified``, ``removed`` or ``error``."""

    event: str
    name: str | None = None
    path: str | None = None
    source: str | None = None
    agents: int | None = None
    reason: str | None = None
    diagnostics: tuple[Diagnostic, ...] = ()
    previous_path: str | None = None  # ``modified``: the file that was visible before
    previous_source: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The JSON-lines shape of ``subagents watch --format json`` (DESIGN.md)."""
        if self.event == "ready":
            return {"event": "ready", "agents": self.agents or 0}
        out: dict[str, Any] = {"event": self.event, "name": self.name, "path": self.path or ""}
        if self.source is not None:
            out["source"] = self.source
        if self.reason is not None:
            out["reason"] = self.reason
        if self.previous_path is not None:
            out["previous_path"] = self.previous_path
            out["previous_source"] = self.previous_source
        if self.diagnostics:
            out["diagnostics"] = [d.to_dict() for d in self.diagnostics]
        return out

    def format_text(self) -> str:
        if self.event == "ready":
            return f"watching: {self.agents or 0} agents loaded (Ctrl-C to stop)"
        mark = {"added": "+", "modified": "~", "removed": "-", "error": "!"}.get(self.event, "?")
        where = f"{self.source} {self.path}" if self.source else (self.path or "")
        if self.event == "error":
            lines = [
                f"{mark} error     {self.name}  ({where})"
                if self.name
                else f"{mark} error     {where}"
            ]
            lines += [
                "    " + d.format_text().replace("\n", "\n    ")
                for d in self.diagnostics
                if d.severity is Severity.ERROR
            ]
            return "\n".join(lines)
        text = f"{mark} {self.event:<9} {self.name}  ({where})"
        notes = [self.reason] if self.reason else []
        if self.previous_path is not None:
            notes.append(f"was {self.previous_source} {self.previous_path}")
        if notes:
            text += f"  [{'; '.join(notes)}]"
        return text


def _entry_event(
    kind: str,
    entry: AgentEntry,
    reason: str | None = None,
    previous: AgentEntry | None = None,
) -> ChangeEvent:
    prev_path = prev_source = None
    if previous is not None and previous is not entry:
        prev_where = previous.display_path or previous.origin.label
        if prev_where != (entry.display_path or entry.origin.label):
            prev_path, prev_source = prev_where, previous.source.value
    return ChangeEvent(
        kind,
        entry.name,
        entry.display_path or entry.origin.label,
        entry.source.value,
        reason=reason,
        previous_path=prev_path,
        previous_source=prev_source,
    )


def _errors(rec: FileRecord | None) -> tuple[Diagnostic, ...]:
    if rec is None:
        return ()
    return tuple(d for d in rec.diagnostics if d.severity is Severity.ERROR)


def _error_event(rec: FileRecord, errors: tuple[Diagnostic, ...]) -> ChangeEvent:
    name = rec.guessed_name if not rec.entries else None
    return ChangeEvent("error", name, rec.display_path, None, diagnostics=errors)


def _removal_reason(
    entry: AgentEntry,
    old_key: tuple[int, Path | str] | None,
    new_records: Mapping[tuple[int, Path | str], FileRecord],
    new_clashes: Mapping[str, tuple[Diagnostic, ...]],
) -> str:
    """Why a visible definition stopped being the one used.

    ``deleted`` (its file is gone), ``error`` (its file no longer loads), ``renamed`` (its
    file now declares another ``name``), ``clash`` (a second file of that name appeared in
    its folder) or ``overridden`` (still there, but a higher scope now defines the name).
    """
    if entry.name in new_clashes:
        return "clash"
    rec = new_records.get(old_key) if old_key is not None else None
    if rec is None:
        return "deleted" if entry.display_path else "removed"
    if rec.failed:
        return "error"
    if any(e.name == entry.name for e in rec.entries):
        return "overridden"
    return "renamed"


def diff_state(
    old_records: Mapping[tuple[int, Path | str], FileRecord],
    new_records: Mapping[tuple[int, Path | str], FileRecord],
    old_winners: Mapping[str, AgentEntry],
    new_winners: Mapping[str, AgentEntry],
    old_clashes: Mapping[str, tuple[AgentEntry, ...]],
    new_clashes: Mapping[str, tuple[Diagnostic, ...]],
) -> list[ChangeEvent]:
    """The events that turn the old *visible* agents into the new ones, then the errors.

    Agent events follow what ``list`` shows (the winner of each name), so a consumer that
    applies them to a ``name -> path`` map ends with exactly the registry's state, whatever
    order the filesystem reported things in: a shadowed file that changes is no agent event; a
    rename of the winning file, or a closer file taking over a name, is ``modified`` with
    ``previous_path``.  ``new_clashes`` maps each newly blocked name to its SA601 diagnostics.
    """
    events: list[ChangeEvent] = []
    gone = sorted(old_winners.keys() - new_winners.keys())
    changed: list[tuple[AgentEntry, AgentEntry]] = []
    for name in sorted(new_winners.keys() & old_winners.keys()):
        before, after = old_winners[name], new_winners[name]
        if before is after or (
            before.display_path == after.display_path
            and before.origin.order == after.origin.order
            and before.stamp == after.stamp
            and before.header == after.header
        ):
            continue  # the same, or re-read (its stamp was too fresh to trust) unchanged
        changed.append((before, after))
    # Where the old winners lived, to say why they went (only computed when something did).
    moved = {id(b) for b, a in changed if b.path != a.path or b.origin != a.origin}
    wanted = {id(old_winners[n]) for n in gone} | moved
    old_keys: dict[int, tuple[int, Path | str]] = {}
    if wanted:
        for key, rec in old_records.items():
            for e in rec.entries:
                if id(e) in wanted:
                    old_keys[id(e)] = key
    for name in gone:
        entry = old_winners[name]
        why = _removal_reason(entry, old_keys.get(id(entry)), new_records, new_clashes)
        events.append(_entry_event("removed", entry, why))
    for name in sorted(new_winners.keys() - old_winners.keys()):
        events.append(_entry_event("added", new_winners[name]))
    for before, after in changed:
        reason: str | None = None  # edited in place
        if id(before) in moved:
            reason = (
                "overridden"  # a built-in never goes away: something now ranks above it
                if before.source is Scope.BUILTIN
                else _removal_reason(before, old_keys.get(id(before)), new_records, new_clashes)
            )
        events.append(_entry_event("modified", after, reason, previous=before))
    # Errors: a file whose error diagnostics are new or different, and a new clash.
    # (Unchanged files keep their record object: only the re-read ones need sorting.)
    get = old_records.get
    touched = [k for k, rec in new_records.items() if get(k) is not rec]
    for key in sorted(touched, key=lambda k: (k[0], str(k[1]))):
        after_rec = new_records[key]
        before_rec = old_records.get(key)
        errors = _errors(after_rec)
        if errors and errors != _errors(before_rec):
            events.append(_error_event(after_rec, errors))
    for name in sorted(new_clashes.keys() - old_clashes.keys()):
        diags = new_clashes[name]
        where = diags[0].path if diags else ""
        events.append(ChangeEvent("error", name, where, None, diagnostics=diags))
    return events


async def _pump(
    paths: list[Path],
    recursive: bool,
    stop: asyncio.Event,
    started: asyncio.Event,
    ticks: asyncio.Queue[bool],
    *,
    step_ms: int,
    force_polling: bool,
) -> None:
    """Put a tick on ``ticks`` for every batch of changes; ``False`` if the watcher died."""
    import watchfiles

    agen = watchfiles.awatch(
        *paths,
        recursive=recursive,
        stop_event=stop,
        watch_filter=None,
        debounce=400,
        step=step_ms,
        force_polling=force_polling or None,
        poll_delay_ms=50,
        ignore_permission_denied=True,
    )
    try:
        nxt = asyncio.ensure_future(agen.__anext__())
        await asyncio.sleep(0)  # the watcher is registered once __anext__ ran its first step
        started.set()
        while True:
            await nxt
            ticks.put_nowait(True)
            nxt = asyncio.ensure_future(agen.__anext__())
    except StopAsyncIteration:
        return
    except Exception:
        # A watched folder vanished or cannot be watched: have the loop re-plan the targets.
        started.set()
        ticks.put_nowait(False)
    finally:
        stop.set()
        with contextlib.suppress(Exception):
            await agen.aclose()


class _Watchers:
    """One generation of watchers over one set of targets."""

    def __init__(
        self,
        targets: tuple[set[Path], set[Path]],
        ticks: asyncio.Queue[bool],
        step_ms: int,
        force_polling: bool,
    ) -> None:
        self.targets = targets
        self.stop = asyncio.Event()
        self.tasks: list[asyncio.Task[None]] = []
        self._started: list[asyncio.Event] = []
        recursive, flat = targets
        for paths, rec in ((sorted(recursive), True), (sorted(flat), False)):
            if not paths:
                continue
            started = asyncio.Event()
            self._started.append(started)
            self.tasks.append(
                asyncio.ensure_future(
                    _pump(
                        paths,
                        rec,
                        self.stop,
                        started,
                        ticks,
                        step_ms=step_ms,
                        force_polling=force_polling,
                    )
                )
            )

    async def started(self) -> None:
        for ev in self._started:
            await ev.wait()

    @property
    def dead(self) -> bool:
        return any(t.done() for t in self.tasks)

    async def close(self) -> None:
        self.stop.set()
        if not self.tasks:
            return
        _done, pending = await asyncio.wait(self.tasks, timeout=2.0)
        for task in pending:
            task.cancel()
        for task in pending:
            with contextlib.suppress(BaseException):
                await task


async def watch_registry(
    registry: AgentRegistry, *, debounce_ms: int = 50, force_polling: bool = False
) -> AsyncGenerator[ChangeEvent, None]:
    """``ready``, then the registry's changes as they happen (see the module notes)."""
    registry.reload()  # loads on first use
    ticks: asyncio.Queue[bool] = asyncio.Queue()
    step_ms = max(10, debounce_ms)
    watchers = _Watchers(registry.watch_targets(), ticks, step_ms, force_polling)
    try:
        await watchers.started()
        registry.reload()  # anything written before the watchers existed joins the ready state
        yield ChangeEvent("ready", agents=len(registry.list(include_builtin=True)))
        while True:
            await ticks.get()
            await asyncio.sleep(debounce_ms / 1000)
            while not ticks.empty():
                ticks.get_nowait()
            targets = registry.watch_targets()
            if targets != watchers.targets or watchers.dead:
                if watchers.dead:
                    await asyncio.sleep(0.5)  # do not spin on a folder that cannot be watched
                await watchers.close()
                watchers = _Watchers(targets, ticks, step_ms, force_polling)
                await watchers.started()
            for event in registry.reload():
                yield event
    finally:
        await watchers.close()
