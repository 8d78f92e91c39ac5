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
  :data:`AUTO_MIN_FILES`: one process.  With ``jobs=None`` (the CLI's ``--jobs auto``) also
  when no core is idle (the load average is within one of the cores): a second process then
  only competes for the same cores.  A child that fails in any way (killed, out of memory,
  an outcome that does not pickle) costs time, not results: the parent does that slice.
* **When it pays**, measured on a 2-core machine (the figures are in
  docs/performance.md): the fork, the pickled outcomes and the merge cost about 10 ms plus
  0.1 ms a file; on an idle machine the busier process does 0.66 of one process's work at
  100 files and 0.59 at 2,000 (CPU of parent and child measured apart), so
  :data:`AUTO_MIN_FILES` is 100.  On the same machine loaded by other work (load average 9
  to 12 on 2 cores) two processes were 1.14 to 1.8 times *slower* in wall time at every size
  from 20 to 500 files: hence the idle-core condition.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import threading
from collections.abc import Callable, Sequence

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TypeVar

    _T = TypeVar("_T")
    _R = TypeVar("_R")

__all__ = ["AUTO_MIN_FILES", "run_split", "usable_cores", "workers_for"]

#: With ``--jobs auto``, fewer files to validate than this run in one process.
AUTO_MIN_FILES = 100

def usable_cores() -> int:
    """The cores this process may run on (its affinity, else the machine's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        return os.cpu_count() or 1


def _load() -> float:
    """The one-minute load average (0 where the system does not say)."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return 0.0


def _can_fork() -> bool:
    return hasattr(os, "fork") and sys.platform != "win32" and threading.active_count() == 1


def workers_for(count: int, jobs: int | None) -> int:
    """How many processes to use for ``count`` files: ``jobs`` (None: auto), never more than
    there are files, and 1 when forking is not possible."""
    if count < 2 or not _can_fork():
        return 1
    if jobs is None:
        cores = usable_cores()
        if count < AUTO_MIN_FILES or cores < 2 or cores - _load() < 1:
            return 1
        return 2
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
