"""Helpers for the runtime tests (imported explicitly; conftest.py belongs to the lead)."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from subagents.runtime.permissions import PermissionPolicy
from subagents.runtime.tools.base import ToolContext


def ctx_for(cwd: Path, **kw: Any) -> ToolContext:
    return ToolContext(cwd=cwd.resolve(), agent_name="t", policy=kw.pop("policy", None)
                       or PermissionPolicy(), **kw)


def alive(pid: int) -> bool:
    """True if ``pid`` exists and is not a zombie (a container's PID 1 may never reap)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    return state not in ("Z", "X")


def wait_dead(pid: int, timeout: float = 5.0) -> bool:
    """Poll until ``pid`` is gone (SIGKILL delivery is asynchronous); True if it died."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.02)
    return not alive(pid)


def wait_file(path: Path, timeout: float = 10.0) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().strip():
            return path.read_text().strip()
        time.sleep(0.02)
    raise AssertionError(f"{path} never appeared")
