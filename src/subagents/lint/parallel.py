"""Per-file ``validate`` work split over several processes, with the output of one.

Design notes
------------
* **What is split.** Only the per-file work (read, parse, the per-file rules) of the files the
  result cache cannot answer.  Walking, the cache, the cross-file rules and the report stay
  in the parent: the outcomes come back as values and are merged *in the order of the files*,
  so the report is the same, finding for finding and in the same order, whatever the number
  of processes (a test compares them).
* **How.** ``fork``: the child starts with every module and the configuration already loaded
  (a fresh interpreter would pay the imports, about as much as 300 files).  The parent works
  on the first slice itself while each child works on one of the others and sends its
  outcomes back pickled through a pipe.  Standard error written in a child is sent back and
  written by the parent (a warning is not lost, nor said twice by interleaving).
* **Falling back.** No ``fork`` (Windows), other threads running (a language server: forking
  a threaded process can deadlock the child), one usable core, or fewer files than
  :data:`AUTO_MIN_FILES`: one process.  A child that fails in any way (killed, out of
  memory, an outcome that does not pickle) costs time, not results: the parent does that
  slice itself.
* **When it pays** (``jobs=None``, the CLI's ``--jobs auto``): measured with
  ``bench/bench_cache.py`` on a 2-core machine: a fork, the pickled outcomes and the merge
  cost about as much as validating 30 to 40 small files, and two processes cut the wall
  time by a third or more from about 150 files up (see docs/performance.md); below
  :data:`AUTO_MIN_FILES` one process is as fast or faster.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import threading
from collections.abc import Callable, Sequence
from typing import TypeVar

__all__ = ["AUTO_MIN_FILES", "run_split", "usable_cores", "workers_for"]

#: With ``--jobs auto``, fewer files to validate than this run in one process.
AUTO_MIN_FILES = 150

_T = TypeVar("_T")
_R = TypeVar("_R")


def usable_cores() -> int:
    """The cores this process may run on (its affinity, else the machine's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        return os.cpu_count() or 1


def _can_fork() -> bool:
    return hasattr(os, "fork") and sys.platform != "win32" and threading.active_count() == 1


def workers_for(count: int, jobs: int | None) -> int:
    """How many processes to use for ``count`` files: ``jobs`` (None: auto), never more than
    there are files, and 1 when forking is not possible."""
    if count < 2 or not _can_fork():
        return 1
    if jobs is None:
        if count < AUTO_MIN_FILES:
            return 1
        return max(1, min(2, usable_cores()))
    return max(1, min(jobs, count))


def _slices(count: int, parts: int) -> list[range]:
    size, extra = divmod(count, parts)
    out: list[range] = []
    start = 0
    for i in range(parts):
        end = start + size + (1 if i < extra else 0)
        out.append(range(start, end))
        start = end
    return out


def _child(fn: Callable[[_T], _R], items: Sequence[_T], write_fd: int) -> None:
    """In the forked child: work, send ``(outcomes, stderr text)`` back, never return."""
    import pickle

    status = 1
    try:
        captured = io.StringIO()
        with contextlib.redirect_stderr(captured):
            outcomes = [fn(item) for item in items]
        payload = pickle.dumps((outcomes, captured.getvalue()), pickle.HIGHEST_PROTOCOL)
        with os.fdopen(write_fd, "wb", closefd=True) as out:
            out.write(payload)
        status = 0
    except BaseException:  # any failure: the parent does this slice itself
        status = 1
    finally:
        os._exit(status)


def _read_all(fd: int) -> bytes:
    with os.fdopen(fd, "rb", closefd=True) as pipe:
        return pipe.read()


def run_split(fn: Callable[[_T], _R], items: Sequence[_T], workers: int) -> list[_R]:
    """``[fn(item) for item in items]``, with the items split over ``workers`` processes
    (this one and ``workers - 1`` forked children).  Same list, same order."""
    if workers <= 1 or len(items) < 2 or not _can_fork():
        return [fn(item) for item in items]
    import pickle

    parts = _slices(len(items), min(workers, len(items)))
    children: list[tuple[int, int, range]] = []  # pid, read end, slice
    for part in parts[1:]:
        try:
            read_fd, write_fd = os.pipe()
        except OSError:
            break
        sys.stdout.flush()
        sys.stderr.flush()
        try:
            pid = os.fork()
        except OSError:  # no more processes: the parent does it
            os.close(read_fd)
            os.close(write_fd)
            break
        if pid == 0:  # pragma: no cover - runs in the child, which never returns
            os.close(read_fd)
            _child(fn, [items[i] for i in part], write_fd)
        os.close(write_fd)
        children.append((pid, read_fd, part))
    done = len(children) + 1
    results: list[_R] = [fn(items[i]) for i in parts[0]]
    for pid, read_fd, part in children:
        outcomes: list[_R] | None = None
        try:
            data = _read_all(read_fd)
            _, status = os.waitpid(pid, 0)
            if status == 0 and data:
                got, errors = pickle.loads(data)
                if isinstance(got, list) and len(got) == len(part):
                    outcomes = got
                    if errors:
                        sys.stderr.write(errors)
        except Exception:  # a broken child: its slice is done here
            with contextlib.suppress(ChildProcessError, OSError):
                os.waitpid(pid, 0)
        results.extend(outcomes if outcomes is not None else [fn(items[i]) for i in part])
    # slices that never got a child (fork refused) are done here, in order
    for part in parts[done:]:
        results.extend(fn(items[i]) for i in part)
    return results
