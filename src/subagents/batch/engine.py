"""The one module that talks to DBOS: durable jobs, queues, workers, recovery.

DBOS (``dbos`` on PyPI) is a library, not a server: workflows and their steps are
checkpointed in a database, SQLite by default and Postgres when several machines share the
work.  Everything else in :mod:`subagents.batch` goes through this module, and this module
is imported only by the commands and functions that run or inspect batches.

Design decisions
----------------
* **A job is a workflow whose id is the batch name and the job id** (``nightly/repo-42``).
  Enqueueing an id that exists attaches to it instead of starting it again, so re-running
  the same command skips finished jobs, and two ``batch run`` of one file at once do not
  run a job twice (the queue's dequeue is atomic: one runner per workflow).
* **Steps**: every model request and every tool call (:mod:`subagents.batch.durable`).
  :class:`DbosRecorder` runs model requests as steps and *reserves* the steps of a reply's
  tool calls at once (``DBOS.reserve_step``), so concurrent calls that finish in any order
  still replay in their recorded places.
* **Queues per provider** (``subagents-batch-anthropic``...), with the concurrency and rate
  limits of config ``[batch]``: DBOS keeps them in the database, so every worker obeys the
  same ones.  ``worker_concurrency`` is how many jobs one worker runs at once
  (``--workers``).
* **Workers that die are noticed by the others.**  Each process has its own executor id
  (host, pid, random part) and writes a heartbeat to a small table of ours
  (``subagents_batch_workers``) every second.  Every live worker looks for jobs left
  running (``PENDING``) by an executor that stopped beating (no beat for
  :data:`STALE_AFTER` seconds, or, on the same host, whose process is gone) and hands them
  back to their queue through DBOS's recovery; DBOS's recovery is idempotent, so two
  workers doing it at once recover a job once.  A recovered job resumes from its last
  finished step.  A job recovered more than :data:`MAX_RECOVERY_ATTEMPTS` times (it kills
  its worker every time) ends as failed.
* **Status without running anything**: ``status``/``results``/``cancel`` use a
  ``DBOSClient``, which reads the database and never dequeues or recovers a job.
* **A clear line when the database cannot be reached**: :func:`check_database` connects
  first (5 s timeout) and raises :class:`BatchDatabaseError` with the address (password
  masked) and the driver's first line.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import threading
import time
import uuid
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from dbos import DBOS, DBOSClient, DBOSConfig, SetWorkflowID

from subagents.batch.durable import Recorder
from subagents.batch.job_run import BatchSettings, run_job
from subagents.batch.jobs import Job
from subagents.errors import SubagentError
from subagents.providers.base import ToolUseBlock

__all__ = [
    "APP_NAME",
    "MAX_RECOVERY_ATTEMPTS",
    "STALE_AFTER",
    "WORKFLOW",
    "BatchDatabaseError",
    "DbosRecorder",
    "JobStatus",
    "QueueLimits",
    "Worker",
    "cancel_job",
    "check_database",
    "database_url",
    "list_jobs",
    "queue_name",
    "shown_url",
]

APP_NAME = "subagents-batch"
WORKFLOW = "subagents.batch.job"
#: Every worker runs the same workflow code whatever its version of subagents: the version
#: is fixed so that a worker on another machine recovers and dequeues the same jobs.
APP_VERSION = "subagents-batch-1"
STALE_AFTER = float(os.environ.get("SUBAGENTS_BATCH_STALE_AFTER", "15"))
BEAT_EVERY = 1.0
MAX_RECOVERY_ATTEMPTS = 5
POLL_EVERY = 0.1  # how often a worker looks for queued jobs (seconds)
QUEUE_PREFIX = "subagents-batch-"
TERMINAL = frozenset({"SUCCESS", "ERROR", "CANCELLED", "MAX_RECOVERY_ATTEMPTS_EXCEEDED"})

logger = logging.getLogger("subagents.batch")


class BatchDatabaseError(SubagentError):
    """The batch database cannot be reached or read."""

    exit_code = 1


# ---------------------------------------------------------------------- database address

def database_url(db: str | None, root: Path | None = None) -> str:
    """A SQLAlchemy URL for ``db``: a ``postgresql://``/``sqlite://`` URL as given, a plain
    path as a SQLite file, nothing as ``.subagents/batch.sqlite`` under ``root``."""
    if db and "://" in db:
        if db.startswith("postgres://"):  # the libpq spelling SQLAlchemy does not take
            db = "postgresql://" + db[len("postgres://"):]
        return db
    path = Path(db).expanduser() if db else (root or Path.cwd()) / ".subagents" / "batch.sqlite"
    path = path if path.is_absolute() else Path.cwd() / path
    return f"sqlite:///{path}"


def shown_url(url: str) -> str:
    """``url`` with its password masked."""
    try:
        return sa.make_url(url).render_as_string(hide_password=True)
    except Exception:
        return url.rsplit("@", maxsplit=1)[-1]


def _engine(url: str) -> sa.Engine:
    args: dict[str, Any] = {}
    if url.startswith("postgresql"):
        args["connect_args"] = {"connect_timeout": 5}
    return sa.create_engine(url, pool_pre_ping=True, **args)


@sa.event.listens_for(sa.engine.Engine, "connect")
def _sqlite_sync(dbapi_conn: Any, _record: Any) -> None:
    """SQLite batch databases commit with ``synchronous=NORMAL``: in WAL mode a killed
    process loses nothing (the log is in the system's cache); only a power cut may lose the
    last commits, whose steps then run again.  Other databases are left alone."""
    if _BATCH_FILES and type(dbapi_conn).__module__.startswith("sqlite3"):
        with contextlib.suppress(Exception):
            row = dbapi_conn.execute("PRAGMA database_list").fetchone()
            if row and str(row[2]) in _BATCH_FILES:
                dbapi_conn.execute("PRAGMA synchronous=NORMAL")


_BATCH_FILES: set[str] = set()  # the SQLite batch databases this process opened


def check_database(url: str, *, create: bool = True) -> None:
    """Connect once; :class:`BatchDatabaseError` in one line if that fails.

    A SQLite file's folder is created when ``create`` (the default database needs no set-up)."""
    if url.startswith("sqlite:///"):
        file = Path(url[len("sqlite:///"):])
        _BATCH_FILES.add(str(file.resolve()))
        if create:
            try:
                file.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise BatchDatabaseError(f"cannot create the folder of the batch database "
                                         f"{file}: {exc.strerror or exc}") from None
        elif not file.exists():
            raise BatchDatabaseError(f"no batch database at {file}",
                                     hint="run `subagents batch run` first, or pass --db")
    try:
        engine = _engine(url)
    except Exception as exc:
        raise BatchDatabaseError(f"not a database address {shown_url(url)!r}: {exc}",
                                 hint="use postgresql://user:password@host/db or a SQLite "
                                      "file path") from None
    try:
        with engine.connect() as conn:
            conn.execute(sa.text("select 1"))
            if url.startswith("sqlite") and create:
                # WAL: readers do not block the writer, and a commit is one append to the
                # log (the setting stays with the file, for every process that opens it)
                conn.execute(sa.text("PRAGMA journal_mode=WAL"))
    except Exception as exc:
        reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()
        first = reason[0] if reason else type(exc).__name__
        raise BatchDatabaseError(f"cannot reach the batch database {shown_url(url)}: "
                                 f"{first}") from None
    finally:
        engine.dispose()


# ---------------------------------------------------------------------- the recorder

class DbosRecorder(Recorder):
    """Model requests and tool calls of one job as DBOS steps (see the module docstring)."""

    def __init__(self) -> None:
        self._reserved: dict[str, Any] = {}

    async def model_step(self, fn: Callable[[], Any]) -> Any:
        return await DBOS.run_step_async({"name": "model"}, fn)

    def reserve_calls(self, uses: Sequence[ToolUseBlock]) -> None:
        for use in uses:
            self._reserved[use.id] = DBOS.reserve_step()

    async def tool_step(self, call_id: str | None, name: str, fn: Callable[[], Any]) -> Any:
        reservation = self._reserved.pop(call_id, None) if call_id is not None else None
        if reservation is None:  # not from a recorded reply: nothing to replay it from
            return await fn()
        return await reservation.run_async({"name": f"tool:{name}"}, fn)


@DBOS.workflow(name=WORKFLOW, max_recovery_attempts=MAX_RECOVERY_ATTEMPTS)
async def _job_workflow(job: dict[str, Any], settings: dict[str, Any]) -> dict[str, Any]:
    return await run_job(job, settings, DbosRecorder())


# ---------------------------------------------------------------------- limits and queues

@dataclass(frozen=True, slots=True)
class QueueLimits:
    """Limits of one provider's queue: jobs at once across all workers, and at most
    ``rate`` jobs started per ``period`` seconds."""

    concurrency: int | None = None
    rate: int | None = None
    period: float = 60.0


def queue_name(key: str) -> str:
    return QUEUE_PREFIX + "".join(c if c.isalnum() or c in "-_" else "-" for c in key)


def provider_queues() -> list[str]:
    from subagents.providers import PROVIDERS

    return [queue_name(p) for p in sorted(PROVIDERS)]


# ---------------------------------------------------------------------- the worker

_WORKERS = sa.MetaData()
_WORKER_TABLE = sa.Table(
    "subagents_batch_workers", _WORKERS,
    sa.Column("executor_id", sa.String(200), primary_key=True),
    sa.Column("host", sa.String(255), nullable=False),
    sa.Column("pid", sa.Integer, nullable=False),
    sa.Column("beat", sa.Float, nullable=False),
)


#: The key of the PostgreSQL advisory lock that serialises creating our table: two processes
#: starting at once on a fresh database would both find it missing and both create it, and
#: the second fails on PostgreSQL's catalogue (a duplicate ``pg_type`` row).
_SCHEMA_LOCK_KEY = 0x5A6E7473  # any fixed number; DBOS's own migrations lock under others


def _create_tables(engine: sa.Engine) -> None:
    """Create the workers' table once, however many processes start together."""
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"),
                         {"key": _SCHEMA_LOCK_KEY})
        try:
            _WORKERS.create_all(conn, checkfirst=True)
        except sa.exc.OperationalError:
            # SQLite has no such lock: another process made the table between our check
            # and our CREATE. It exists now, which is all we need; anything else re-raises.
            if not sa.inspect(conn).has_table(_WORKER_TABLE.name):
                raise


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@dataclass
class Worker:
    """This process as a DBOS executor: runs jobs from ``listen`` queues (none: it only
    submits), beats, and recovers the jobs of workers that died."""

    url: str
    listen: Sequence[str] = ()
    executor_id: str = field(default_factory=lambda: (
        f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"))
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None
    _engine: sa.Engine | None = None
    recovered: list[str] = field(default_factory=list)

    def start(self) -> Worker:
        check_database(self.url)
        self._engine = _engine(self.url)
        try:
            _create_tables(self._engine)
        except Exception as exc:
            raise BatchDatabaseError(f"cannot write to the batch database "
                                     f"{shown_url(self.url)}: {str(exc).splitlines()[0]}"
                                     ) from None
        self._beat()
        # DBOS's own log goes to stderr at WARNING and above; its INFO chatter is noise here
        logging.getLogger("dbos").setLevel(logging.WARNING)
        config: DBOSConfig = {
            "name": APP_NAME, "system_database_url": self.url,
            "executor_id": self.executor_id, "application_version": APP_VERSION,
            "log_level": "WARNING", "notification_listener_polling_interval_sec": 0.1,
        }
        DBOS(config=config)
        DBOS.listen_queues(list(self.listen))
        try:
            DBOS.launch()
        except Exception as exc:
            DBOS.destroy()
            raise BatchDatabaseError(f"cannot start on the batch database "
                                     f"{shown_url(self.url)}: {str(exc).splitlines()[0]}"
                                     ) from None
        self._thread = threading.Thread(target=self._watch, name="subagents-batch-beat",
                                        daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Leave: the jobs this process was running are recoverable by others at once."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        # Jobs cut short here are recovered elsewhere; DBOS's complaints about the tasks it
        # cancels on the way out ("event loop is closed") are not news for the user.
        logging.getLogger("dbos").setLevel(logging.CRITICAL)
        warnings.filterwarnings("ignore", message=".*start_workflow_task.*never awaited",
                                category=RuntimeWarning)
        with contextlib.suppress(Exception):
            DBOS.destroy(workflow_completion_timeout_sec=0)
        if self._engine is not None:
            with contextlib.suppress(Exception), self._engine.begin() as conn:
                conn.execute(_WORKER_TABLE.update()
                             .where(_WORKER_TABLE.c.executor_id == self.executor_id)
                             .values(beat=0.0))
            self._engine.dispose()

    def __enter__(self) -> Worker:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # queues and jobs

    def register_queue(self, key: str, limits: QueueLimits | None, workers: int | None,
                       *, update: bool = True) -> str:
        name = queue_name(key)
        limiter = None
        if limits is not None and limits.rate:
            limiter = {"limit": limits.rate, "period": limits.period}
        DBOS.register_queue(
            name, worker_concurrency=workers,
            global_concurrency=limits.concurrency if limits else None,
            limiter=limiter,  # type: ignore[arg-type]
            polling_interval_sec=POLL_EVERY,
            on_conflict="always_update" if update else "never_update")
        return name

    def submit(self, queue: str, batch: str, jobs: Iterable[Job],
               settings: BatchSettings) -> list[str]:
        """Enqueue every job (an id that exists is left as it is); their workflow ids."""
        q = DBOS.retrieve_queue(queue)
        if q is None:  # pragma: no cover - register_queue came first
            raise BatchDatabaseError(f"the queue {queue} is missing")
        ids = []
        data = settings.to_dict()
        for job in jobs:
            wid = f"{batch}/{job.id}"
            with SetWorkflowID(wid):
                q.enqueue(_job_workflow, job.to_dict(), data)
            ids.append(wid)
        return ids

    def statuses(self, prefix: str) -> list[JobStatus]:
        rows = DBOS.list_workflows(workflow_id_prefix=prefix, name=WORKFLOW,
                                   load_input=False, load_output=True)
        return [JobStatus.from_workflow(r) for r in rows]

    # heartbeats and recovery

    def _beat(self) -> None:
        assert self._engine is not None
        now = time.time()
        with self._engine.begin() as conn:
            done = conn.execute(_WORKER_TABLE.update()
                                .where(_WORKER_TABLE.c.executor_id == self.executor_id)
                                .values(beat=now)).rowcount
            if not done:
                conn.execute(_WORKER_TABLE.insert().values(
                    executor_id=self.executor_id, host=socket.gethostname(),
                    pid=os.getpid(), beat=now))

    def _watch(self) -> None:
        last_check = 0.0
        while not self._stop.wait(BEAT_EVERY):
            try:
                self._beat()
                if time.monotonic() - last_check >= 2 * BEAT_EVERY:
                    last_check = time.monotonic()
                    self.recover_dead()
            except Exception as exc:  # the database is away for a moment: try again
                logger.warning("batch worker heartbeat failed: %s", exc)

    def dead_executors(self) -> list[str]:
        """Executors with jobs left running whose process is gone or has stopped beating."""
        assert self._engine is not None
        pending = DBOS.list_workflows(status="PENDING", name=WORKFLOW, load_input=False,
                                      load_output=False)
        owners = {w.executor_id for w in pending if w.executor_id} - {self.executor_id}
        if not owners:
            return []
        with self._engine.connect() as conn:
            rows = {r.executor_id: r for r in conn.execute(
                sa.select(_WORKER_TABLE).where(_WORKER_TABLE.c.executor_id.in_(owners)))}
        now, host = time.time(), socket.gethostname()
        dead = []
        for owner in sorted(owners):
            row = rows.get(owner)
            if row is None or now - row.beat > STALE_AFTER or (
                    row.host == host and not _pid_alive(row.pid)):
                dead.append(owner)
        return dead

    def recover_dead(self) -> list[str]:
        """Hand the jobs of dead workers back to their queues; the executors recovered."""
        dead = self.dead_executors()
        for owner in dead:
            handles = DBOS._recover_pending_workflows([owner])
            self.recovered.extend(h.get_workflow_id() for h in handles)
            logger.info("recovered %d job(s) of the stopped worker %s", len(handles), owner)
        return dead


# ---------------------------------------------------------------------- reading results

@dataclass(frozen=True, slots=True)
class JobStatus:
    """One job as the database has it."""

    workflow_id: str
    state: str  # queued, running, done, failed, cancelled
    result: Mapping[str, Any] | None = None
    error: str | None = None
    executor: str | None = None
    updated_at: float | None = None

    @property
    def batch(self) -> str:
        return self.workflow_id.rsplit("/", 1)[0] if "/" in self.workflow_id else ""

    @property
    def job_id(self) -> str:
        return self.workflow_id.split("/", 1)[1] if "/" in self.workflow_id else \
            self.workflow_id

    @classmethod
    def from_workflow(cls, w: Any) -> JobStatus:
        status = str(w.status)
        result = w.output if isinstance(w.output, Mapping) else None
        error = None
        if status == "SUCCESS":
            state = str(result.get("state", "done")) if result else "done"
            error = result.get("error") if result else None
        elif status == "PENDING":
            state = "running"
        elif status in ("ENQUEUED", "DELAYED"):
            state = "queued"
        elif status == "CANCELLED":
            state = "cancelled"
        else:
            state = "failed"
            error = (f"given up after {MAX_RECOVERY_ATTEMPTS} attempts that each stopped "
                     "its worker" if status == "MAX_RECOVERY_ATTEMPTS_EXCEEDED"
                     else f"{type(w.error).__name__}: {w.error}" if w.error else status.lower())
        return cls(workflow_id=w.workflow_id, state=state, result=result, error=error,
                   executor=w.executor_id,
                   updated_at=(w.updated_at / 1000) if w.updated_at else None)

    @property
    def terminal(self) -> bool:
        return self.state in ("done", "failed", "cancelled")


def _client(url: str) -> DBOSClient:
    check_database(url, create=False)
    try:
        return DBOSClient(system_database_url=url, application_name=APP_NAME,
                          retry_connection_errors=False)
    except Exception as exc:
        raise BatchDatabaseError(f"cannot read the batch database {shown_url(url)}: "
                                 f"{str(exc).splitlines()[0]}") from None


def list_jobs(url: str, batch: str | None = None) -> list[JobStatus]:
    """Every job in the database (of ``batch`` only, when given), oldest first."""
    client = _client(url)
    try:
        rows = client.list_workflows(
            name=WORKFLOW, workflow_id_prefix=f"{batch}/" if batch else None,
            load_input=False, load_output=True)
    except Exception as exc:
        raise BatchDatabaseError(f"cannot read the jobs in {shown_url(url)}: "
                                 f"{str(exc).splitlines()[0]}",
                                 hint="has a batch run on this database yet?") from None
    finally:
        client.destroy()
    return [JobStatus.from_workflow(r) for r in rows]


def cancel_job(url: str, workflow_id: str) -> JobStatus | None:
    """Cancel a queued or running job (``batch/id``); its status after, ``None`` if unknown."""
    client = _client(url)
    try:
        found = client.list_workflows(workflow_ids=[workflow_id], name=WORKFLOW,
                                      load_input=False, load_output=True)
        if not found:
            return None
        status = JobStatus.from_workflow(found[0])
        if not status.terminal:
            client.cancel_workflow(workflow_id)
            found = client.list_workflows(workflow_ids=[workflow_id], load_input=False,
                                          load_output=True)
            status = JobStatus.from_workflow(found[0])
        return status
    finally:
        client.destroy()
