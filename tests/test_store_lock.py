"""StoreLock: writers get the agents.json lock first come, first served (the ticket queue).

``flock`` alone wakes every waiter and lets them race; these tests fix an arrival order and
check the lock is handed on in that order, that a queued writer that dies or gives up does
not block the ones behind it, and that the queue leaves at most one ticket behind.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from subagents.errors import StoreLockTimeout
from subagents.store.core import AgentStore
from subagents.store.file import StoreLock

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="flock queue is POSIX only")

TAKER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from subagents.store.file import StoreLock

    lock = StoreLock(Path(sys.argv[1]), float(sys.argv[4]))
    lock.acquire()
    with open(sys.argv[2], "a") as fh:
        fh.write(sys.argv[3])
    if sys.argv[3] == "H":
        print("held", flush=True)
        sys.stdin.readline()
    lock.release()
    """
)


def _tail(lock_path: Path) -> str:
    """The queue's tail, read under the tail's own mutex, as the writers read it.

    A writer truncates the file and then writes its name; a plain read between the two (an
    empty tail) made a writer still joining look queued, so the next one started early and
    the two raced for their places: the arrival-order test failed in 12 of 40 runs that way.
    Under the mutex a read sees the old name or the new one, never the empty file between."""
    import fcntl

    try:
        fd = os.open(lock_path.with_name(f".{lock_path.name}.queue") / "tail", os.O_RDONLY)
    except FileNotFoundError:
        return ""
    try:
        fcntl.flock(fd, fcntl.LOCK_SH)
        return os.pread(fd, 256, 0).decode("ascii", "replace")
    finally:
        os.close(fd)


def _queue(lock_path: Path, order: Path, who: str, timeout: float = 30) -> subprocess.Popen[str]:
    """Start a writer and return once it has taken its place in the queue."""
    before = _tail(lock_path)
    proc = subprocess.Popen(
        [sys.executable, "-c", TAKER, str(lock_path), str(order), who, str(timeout)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 30
    while _tail(lock_path) == before:
        assert time.monotonic() < deadline, f"{who} never queued"
        assert proc.poll() is None, f"{who} exited early"
        time.sleep(0.01)
    return proc


def _holder(lock_path: Path, order: Path) -> subprocess.Popen[str]:
    holder = subprocess.Popen(
        [sys.executable, "-c", TAKER, str(lock_path), str(order), "H", "30"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None
    assert holder.stdout.readline().strip() == "held"
    return holder


def _release(proc: subprocess.Popen[str]) -> None:
    assert proc.stdin is not None
    proc.stdin.write("\n")
    proc.stdin.flush()


@pytest.mark.slow
def test_waiters_get_the_lock_in_arrival_order(tmp_path: Path) -> None:
    lock_path, order = tmp_path / "agents.json.lock", tmp_path / "order"
    holder = _holder(lock_path, order)
    waiters = [_queue(lock_path, order, who) for who in "ABCDEF"]
    _release(holder)
    assert [p.wait(timeout=60) for p in [holder, *waiters]] == [0] * 7
    assert order.read_text() == "HABCDEF"
    queue_dir = lock_path.with_name(f".{lock_path.name}.queue")
    tickets = [p for p in queue_dir.iterdir() if p.name.endswith(".ticket")]
    assert len(tickets) <= 1  # each writer removed its predecessor's ticket


@pytest.mark.slow
def test_a_queued_writer_that_dies_does_not_block_the_next(tmp_path: Path) -> None:
    lock_path, order = tmp_path / "agents.json.lock", tmp_path / "order"
    holder = _holder(lock_path, order)
    doomed = _queue(lock_path, order, "X")
    patient = _queue(lock_path, order, "B")
    os.kill(doomed.pid, signal.SIGKILL)
    doomed.wait(timeout=30)
    _release(holder)
    assert patient.wait(timeout=60) == 0 and holder.wait(timeout=60) == 0
    assert order.read_text() == "HB"


def test_a_writer_that_times_out_in_the_queue_lets_the_next_one_go(tmp_path: Path) -> None:
    lock_path, order = tmp_path / "agents.json.lock", tmp_path / "order"
    holder = _holder(lock_path, order)
    impatient = StoreLock(lock_path, 0.2)
    with pytest.raises(StoreLockTimeout):
        impatient.acquire()
    patient = _queue(lock_path, order, "B")
    _release(holder)
    assert patient.wait(timeout=60) == 0 and holder.wait(timeout=60) == 0
    assert order.read_text() == "HB"


def test_the_store_lock_still_excludes_writers_that_skip_the_queue(tmp_path: Path) -> None:
    """Mutual exclusion is the flock on agents.json.lock itself, not the queue."""
    from filelock import FileLock

    store = AgentStore(None, tmp_path / "group", lock_timeout=0.2)
    store.define("a", "d", "p")
    with FileLock(str(store.path("group")) + ".lock"), pytest.raises(StoreLockTimeout):
        store.define("b", "d", "p")
    assert store.define("b", "d", "p").action == "created"
    assert list(store.read("group")) == ["a", "b"]


def test_a_garbled_tail_file_is_harmless(tmp_path: Path) -> None:
    store = AgentStore(None, tmp_path / "group")
    store.define("a", "d", "p")
    queue = tmp_path / "group" / ".agents.json.lock.queue"
    for junk in (b"../../etc/passwd", b"\xff\xfe garbage", b"missing-ticket.ticket", b""):
        (queue / "tail").write_bytes(junk)
        assert store.define("b", "d", str(junk)).action in ("created", "updated")
    assert (tmp_path / "etc").exists() is False


def test_an_unusable_queue_falls_back_to_the_store_lock(tmp_path: Path) -> None:
    """A queue folder nobody can write (another user's, say) costs fairness, not safety."""
    store = AgentStore(None, tmp_path / "group")
    store.define("a", "d", "p")
    queue = tmp_path / "group" / ".agents.json.lock.queue"
    for child in queue.iterdir():
        child.unlink()
    queue.rmdir()
    queue.write_text("not a folder")  # mkdir and open(queue/tail) now fail
    assert store.define("b", "d", "p").action == "created"
    assert list(store.read("group")) == ["a", "b"]
