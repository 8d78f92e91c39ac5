"""``subagents watch``: report agent changes as they happen.

Design notes
------------
* Contract (DESIGN.md): with ``--format json``, JSON lines — first ``{"event": "ready",
  "agents": N}``, then ``{"event": "added"|"modified"|"removed"|"error", "name", "path", ...}``.
  Every line is flushed at once, so a pipe reader sees it without waiting for a buffer.
* ``agents`` in ``ready`` counts what ``list`` would show (built-ins excluded, unless
  ``--include-builtin``), so the number matches ``subagents list --format json``.
* Ctrl-C (SIGINT) and SIGTERM end the watch quietly with exit 0: stopping is the normal way
  to leave.  ``watchfiles`` is imported only here (via :mod:`subagents.registry.watch`).
* Events follow what ``list`` shows (see :mod:`subagents.registry.watch`): applying them to a
  ``name -> path`` map keeps it equal to ``subagents list --format json``.  Without
  ``--include-builtin`` a file taking over a built-in name is ``added`` (not ``modified``).
* ``--timeout SECONDS`` stops after that long (for scripts and tests that want a bounded run).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import sys
from dataclasses import replace

import click

from subagents.cli.options import (
    RegistryOptions,
    format_option,
    option_group,
    report_broken_scopes,
)
from subagents.registry.watch import ChangeEvent

__all__ = ["watch"]


def _without_builtins(event: ChangeEvent) -> ChangeEvent:
    """The event as seen by ``list`` without ``--include-builtin``.

    The registry reports a project ``Explore`` taking over the built-in one as ``modified``
    (previous source ``builtin``); to a consumer that never saw the built-ins that is an
    ``added``, and the reverse (the file goes, the built-in is visible again) a ``removed``.
    """
    if event.event != "modified":
        return event
    if event.previous_source == "builtin":
        return replace(event, event="added", reason=None, previous_path=None, previous_source=None)
    if event.source == "builtin":
        return replace(
            event,
            event="removed",
            path=event.previous_path,
            source=event.previous_source,
            previous_path=None,
            previous_source=None,
        )
    return event


def _emit(event: ChangeEvent, output_format: str, builtin_count: int) -> None:
    if event.event == "ready":
        event = ChangeEvent("ready", agents=(event.agents or 0) - builtin_count)
    line = json.dumps(event.to_dict()) if output_format == "json" else event.format_text()
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


async def _run(
    registry: RegistryOptions,
    output_format: str,
    include_builtin: bool,
    debounce_ms: int,
    timeout: float | None,
) -> None:
    reg = registry.build()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    stream = reg.watch(debounce_ms=debounce_ms)

    async def consume() -> None:
        async for raw in stream:
            event = raw if include_builtin else _without_builtins(raw)
            builtin = 0
            if event.event == "ready" and not include_builtin:
                builtin = len(reg.list(include_builtin=True)) - len(reg.list())
            _emit(event, output_format, builtin)
            if event.event == "ready":
                # a scope folder that is a file or unreadable: said on stderr, as `run` does
                # (the JSON stream on stdout keeps its contract); watching goes on
                report_broken_scopes(reg)
            if event.event == "ready" and output_format == "text":
                failed = reg.failed_files()
                if failed:  # the JSON stream keeps the contract: `ready`, then changes only
                    files = "1 file" if len(failed) == 1 else f"{len(failed)} files"
                    sys.stdout.write(f"! {files} not loaded; `subagents doctor` says why\n")
                    sys.stdout.flush()

    task = asyncio.ensure_future(consume())
    stopper = asyncio.ensure_future(stop.wait())
    try:
        await asyncio.wait({task, stopper}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopper.cancel()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        await stream.aclose()
    if task.done() and not task.cancelled() and task.exception() is not None:
        raise task.exception()  # type: ignore[misc]


@click.command()
@option_group(RegistryOptions)
@format_option("text", "json")
@click.option("--include-builtin", is_flag=True, help="Count the built-in agents in `ready`.")
@click.option(
    "--debounce",
    "debounce_ms",
    type=click.IntRange(0, 10_000),
    default=50,
    show_default=True,
    help="Milliseconds to wait for more changes before reloading.",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    help="Stop after this many seconds (default: run until Ctrl-C).",
)
def watch(
    registry: RegistryOptions,
    output_format: str,
    include_builtin: bool,
    debounce_ms: int,
    timeout: float | None,
) -> None:
    """Watch every scope folder and report agents added, modified, removed or broken.

    Prints a `ready` line with the number of agents, then one line per change.  Folders that
    do not exist yet are watched too: creating .claude/agents later is noticed.  With
    --format json every line is a JSON object: first {"event": "ready", "agents": N}, then
    {"event": "added"|"modified"|"removed"|"error", "name": ..., "path": ..., ...} per
    change.  Stop with Ctrl-C (exit 0).
    """
    from subagents._deps import require

    require("watchfiles", "`subagents watch`")
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(
            _run(
                registry,
                output_format,
                include_builtin,
                debounce_ms,
                timeout,
            )
        )
