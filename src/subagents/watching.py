"""Hot reload (REQ-SUB-026): change events from a registry, driven by a real file watcher.

Design notes
------------
* Events are *computed*, not forwarded: a filesystem notification only says "look again";
  the registry then reloads (stat-only for unchanged files) and :func:`diff_records` compares
  its before/after state.  So a coalesced, reordered or dropped notification can delay an event
  but never lose one, and after a rename storm the final state is exactly the disk's.
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

from subagents.diagnostics import Diagnostic, Severity

if TYPE_CHECKING:
    from subagents.registry import AgentEntry, AgentRegistry, FileRecord

__all__ = ["ChangeEvent", "diff_records", "watch_registry"]


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

    def to_dict(self) -> dict[str, Any]:
        """The JSON-lines shape of ``subagents watch --format json`` (DESIGN.md)."""
        if self.event == "ready":
            return {"event": "ready", "agents": self.agents or 0}
        out: dict[str, Any] = {"event": self.event, "name": self.name, "path": self.path or ""}
        if self.source is not None:
            out["source"] = self.source
        if self.reason is not None:
            out["reason"] = self.reason
        if self.diagnostics:
            out["diagnostics"] = [d.to_dict() for d in self.diagnostics]
        return out

    def format_text(self) -> str:
        if self.event == "ready":
            return f"watching: {self.agents or 0} agents loaded (Ctrl-C to stop)"
        mark = {"added": "+", "modified": "~", "removed": "-", "error": "!"}.get(self.event, "?")
        where = f"{self.source} {self.path}" if self.source else (self.path or "")
        if self.event == "error":
            lines = [f"{mark} error     {where}"]
            lines += [
                "    " + d.format_text().replace("\n", "\n    ")
                for d in self.diagnostics
                if d.severity is Severity.ERROR
            ]
            return "\n".join(lines)
        text = f"{mark} {self.event:<9} {self.name}  ({where})"
        if self.reason:
            text += f"  [{self.reason}]"
        return text


def _entry_event(kind: str, entry: AgentEntry, reason: str | None = None) -> ChangeEvent:
    return ChangeEvent(
        kind,
        entry.name,
        entry.display_path or entry.origin.label,
        entry.source.value,
        reason=reason,
    )


def _error_event(rec: FileRecord) -> ChangeEvent:
    errors = tuple(d for d in rec.diagnostics if d.severity is Severity.ERROR)
    return ChangeEvent("error", rec.guessed_name, rec.display_path, None, diagnostics=errors)


def diff_records(
    old: Mapping[tuple[int, Path | str], FileRecord],
    new: Mapping[tuple[int, Path | str], FileRecord],
) -> list[ChangeEvent]:
    """The events that turn ``old`` into ``new`` (per file, per agent name)."""
    events: list[ChangeEvent] = []
    # Only keys whose record object changed: a reload re-uses the records of unchanged files.
    touched = [k for k, rec in new.items() if old.get(k) is not rec]
    touched += [k for k in old if k not in new]
    for key in sorted(touched, key=lambda k: (k[0], str(k[1]))):
        before, after = old.get(key), new.get(key)
        if before is None:
            assert after is not None
            events.extend(_entry_event("added", e) for e in after.entries)
            if after.failed:
                events.append(_error_event(after))
            continue
        if after is None:
            events.extend(_entry_event("removed", e, "deleted") for e in before.entries)
            continue
        old_by = {e.name: e for e in before.entries}
        new_by = {e.name: e for e in after.entries}
        reason = "error" if after.failed else "renamed"
        events.extend(
            _entry_event("removed", e, reason) for n, e in old_by.items() if n not in new_by
        )
        for name, entry in new_by.items():
            prev = old_by.get(name)
            if prev is None:
                events.append(_entry_event("added", entry))
            elif prev.stamp != entry.stamp or prev.header != entry.header:
                # (an untrusted stamp is re-read even when unchanged: no event for that)
                events.append(_entry_event("modified", entry))
        if after.failed and (not before.failed or before.diagnostics != after.diagnostics):
            events.append(_error_event(after))
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
        yield ChangeEvent("ready", agents=len(registry.list()))
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
