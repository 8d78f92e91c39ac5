"""Running a batch from Python: submit jobs, run them here, serve as a worker, read results.

::

    from subagents.batch import Job, run_batch
    from subagents.testing import ScriptedModel, text

    outcome = run_batch(
        [Job("a", "Summarise README.md"), Job("b", "List the TODOs")],
        model=lambda job: ScriptedModel([text(f"done: {job.id}")]),
        db="batch.sqlite", workers=2)
    assert outcome.ok and outcome.jobs[0].result["final_text"] == "done: a"

Design decisions: one function per verb (:func:`run_batch`, :func:`serve`,
:func:`job_statuses`, :func:`cancel`), each opening and closing what it needs, so a script
or a test calls them in sequence.  DBOS runs one instance per process: two batches in one
process run one after the other, not at once.  Everything DBOS is in
:mod:`subagents.batch.engine`, imported here inside the functions.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from subagents.batch.job_run import BatchSettings, ModelSource, register_model
from subagents.batch.jobs import Job, check_unique
from subagents.errors import UsageError

if TYPE_CHECKING:
    from subagents.batch.engine import JobStatus, QueueLimits

__all__ = ["BatchOutcome", "cancel", "job_statuses", "run_batch", "serve"]

DEFAULT_WORKERS = 4
WAIT_EVERY = 0.2

Progress = Callable[[Sequence["JobStatus"]], None]


@dataclass(frozen=True, slots=True)
class BatchOutcome:
    """The jobs of one batch as they ended (or stand, when not waited for)."""

    batch: str
    db: str
    jobs: tuple[JobStatus, ...] = ()
    recovered: tuple[str, ...] = field(default=())

    @property
    def ok(self) -> bool:
        """Every job finished and none failed."""
        return bool(self.jobs) and all(j.state == "done" for j in self.jobs)

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for j in self.jobs:
            out[j.state] = out.get(j.state, 0) + 1
        return out


def _settings(batch: str, root: Path, model_key: str | None,
              options: Mapping[str, Any]) -> BatchSettings:
    known = set(BatchSettings.__dataclass_fields__) - {"batch", "state_dir", "work_dir",
                                                        "model_key"}
    unknown = sorted(set(options) - known)
    if unknown:
        raise UsageError(f"run_batch() does not take {', '.join(unknown)}",
                         hint="it takes: " + ", ".join(sorted(known)))
    values = dict(options)
    if "allow_rules" in values:
        values["allow_rules"] = tuple(values["allow_rules"])
    return BatchSettings(batch=batch, state_dir=str((root / ".subagents" / "batch").resolve()),
                         work_dir=str((root / "subagents-batch").resolve()),
                         model_key=model_key, **values)


def run_batch(
    jobs: Iterable[Job],
    *,
    batch: str = "batch",
    db: str | None = None,
    workers: int = DEFAULT_WORKERS,
    model: ModelSource | None = None,
    limits: Mapping[str, QueueLimits] | None = None,
    wait: bool = True,
    on_progress: Progress | None = None,
    root: Path | str | None = None,
    **settings: Any,
) -> BatchOutcome:
    """Submit ``jobs`` as batch ``batch`` and (``workers`` > 0) run them in this process.

    Jobs already in the database under the same batch and id are not run again; an
    interrupted one resumes from its last finished step.  ``model`` is a model or a factory
    ``(job) -> Model`` (e.g. a :class:`~subagents.testing.ScriptedModel` per job); without
    one, ``provider``/``provider_options`` (in ``settings``) build each job's model, as the
    CLI does.  ``limits`` maps a provider name to its :class:`QueueLimits`.  ``settings``
    are the other fields of :class:`~subagents.batch.job_run.BatchSettings` (``model_id``,
    ``max_turns``, ``assume_yes``, ``allow_rules``, ``sandbox``...).  With ``wait`` the call
    returns when every job has ended; ``on_progress`` gets the statuses as they change."""
    from subagents.batch.engine import Worker, database_url, queue_name

    job_list = list(jobs)
    check_unique(job_list, f"batch {batch!r}")
    if workers < 0:
        raise UsageError(f"workers must be 0 or more, got {workers}")
    if not batch or "/" in batch:
        raise UsageError(f"the batch name {batch!r} must be non-empty and without '/'")
    base = Path(root) if root is not None else Path.cwd()
    url = database_url(db, base)
    # the key (and so the queue) is the batch's: the same batch run again in a new process
    # serves the jobs an earlier process left unfinished
    model_key = register_model(model, f"py-{batch}") if model is not None else None
    run_settings = _settings(batch, base, model_key, settings)
    queue = queue_name(run_settings.queue_key)
    worker = Worker(url, listen=[queue] if workers else [])
    worker.start()
    try:
        provider_limits = (limits or {}).get(run_settings.provider) if model_key is None \
            else None
        worker.register_queue(run_settings.queue_key, provider_limits, workers or None,
                              update=bool(workers))
        ids = set(worker.submit(queue, batch, job_list, run_settings))
        statuses = _ours(worker.statuses(f"{batch}/"), ids)
        seen: list[tuple[str, str]] = []
        while wait and workers:
            now = [(s.workflow_id, s.state) for s in statuses]
            if on_progress is not None and now != seen:
                on_progress(statuses)
            seen = now
            if all(s.terminal for s in statuses):
                break
            time.sleep(WAIT_EVERY)
            statuses = _ours(worker.statuses(f"{batch}/"), ids)
        if wait and not workers:  # nothing runs here: report what stands
            statuses = _ours(worker.statuses(f"{batch}/"), ids)
        return BatchOutcome(batch=batch, db=url, jobs=tuple(statuses),
                            recovered=tuple(worker.recovered))
    finally:
        worker.stop()


def _ours(statuses: Sequence[JobStatus], ids: set[str]) -> list[JobStatus]:
    return [s for s in statuses if s.workflow_id in ids]


def serve(
    db: str | None = None,
    *,
    workers: int | None = None,
    stop: threading.Event | None = None,
    root: Path | str | None = None,
    on_start: Callable[[str], None] | None = None,
) -> list[str]:
    """Run jobs from every provider queue of ``db`` until ``stop`` is set (or Ctrl-C).

    ``workers`` (jobs at once in this process) updates the queues' per-worker limit; without
    it the queues keep theirs (4 for a queue this call creates).  ``on_start`` gets the
    worker's executor id.  Returns the workflow ids this worker recovered from dead ones."""
    from subagents.batch.engine import Worker, database_url, provider_queues
    from subagents.providers import PROVIDERS

    url = database_url(db, Path(root) if root is not None else None)
    worker = Worker(url, listen=provider_queues())
    worker.start()
    try:
        for name in sorted(PROVIDERS):
            worker.register_queue(name, None, workers or DEFAULT_WORKERS,
                                  update=workers is not None)
        if on_start is not None:
            on_start(worker.executor_id)
        event = stop or threading.Event()
        try:
            while not event.wait(0.5):
                pass
        except KeyboardInterrupt:
            pass
        return list(worker.recovered)
    finally:
        worker.stop()


def job_statuses(db: str | None = None, batch: str | None = None,
                 root: Path | str | None = None) -> list[JobStatus]:
    """Every job in ``db`` (of one batch when given), without running anything."""
    from subagents.batch.engine import database_url, list_jobs

    return list_jobs(database_url(db, Path(root) if root is not None else None), batch)


def cancel(job: str, db: str | None = None, root: Path | str | None = None) -> JobStatus:
    """Cancel job ``batch/id`` (or ``id`` when only one batch has it)."""
    from subagents.batch.engine import cancel_job, database_url, list_jobs

    url = database_url(db, Path(root) if root is not None else None)
    target = job
    if "/" not in job or not any(s.workflow_id == job for s in list_jobs(url)):
        matches = [s.workflow_id for s in list_jobs(url) if s.job_id == job]
        if len(matches) > 1:
            raise UsageError(f"the id {job!r} is in several batches: {', '.join(matches)}",
                             hint="give it as BATCH/ID")
        if matches:
            target = matches[0]
    status = cancel_job(url, target)
    if status is None:
        raise UsageError(f"no job {job!r} in {url}",
                         hint="`subagents batch status` lists the jobs")
    return status
