"""Durable batch runs: many jobs, a queue with limits, resume after a crash, many workers.

Each job (a prompt, optionally for a named agent, in its own working folder) is a durable
workflow on DBOS; every model request and every tool call is a recorded step.  Running the
same batch again skips finished jobs; an interrupted job resumes from its last finished
step, its finished model turns replayed from the record (not sent again) and its finished
tool calls not run again.  SQLite by default (nothing to set up), Postgres for several
machines (``subagents worker --db postgresql://...``).  See ``docs/batch.md``.

``jobs`` reads job files; ``durable`` wraps the model and the tools (no DBOS there);
``job_run`` runs one job on a worker; ``engine`` is the only module that imports DBOS;
``runs`` is the Python front (:func:`run_batch`, :func:`serve`, :func:`job_statuses`,
:func:`cancel`).  Names resolve lazily: ``import subagents.batch`` imports nothing heavy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from subagents._lazy import lazy_exports

_EXPORTS = {
    "BatchOutcome": "subagents.batch.runs",
    "BatchSettings": "subagents.batch.job_run",
    "Job": "subagents.batch.jobs",
    "JobProblem": "subagents.batch.jobs",
    "JobStatus": "subagents.batch.engine",
    "QueueLimits": "subagents.batch.engine",
    "cancel": "subagents.batch.runs",
    "job_statuses": "subagents.batch.runs",
    "jobs_over": "subagents.batch.jobs",
    "read_jobs": "subagents.batch.jobs",
    "run_batch": "subagents.batch.runs",
    "serve": "subagents.batch.runs",
}
__all__ = [
    "BatchOutcome",
    "BatchSettings",
    "Job",
    "JobProblem",
    "JobStatus",
    "QueueLimits",
    "cancel",
    "job_statuses",
    "jobs_over",
    "read_jobs",
    "run_batch",
    "serve",
]
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

if TYPE_CHECKING:
    from subagents.batch.engine import JobStatus, QueueLimits
    from subagents.batch.job_run import BatchSettings
    from subagents.batch.jobs import Job, JobProblem, jobs_over, read_jobs
    from subagents.batch.runs import BatchOutcome, cancel, job_statuses, run_batch, serve
