"""``subagents batch run|status|results|cancel`` and ``subagents worker``: durable batch runs.

Design notes
------------
* ``batch run JOBS.jsonl`` (or ``--prompt TEXT --over DIR...``) submits every job and runs
  ``--workers`` of them at once in this process; ``--workers 0`` only submits (workers on
  other machines run them: ``subagents worker --db postgresql://...``).  Running the same
  command again resumes: finished jobs are skipped, interrupted ones continue from their
  last finished step (see :mod:`subagents.batch`).
* A malformed line is reported with its line number on stderr and the other jobs still run
  (exit 1 at the end); an id used twice refuses the file before anything starts (exit 2); a
  database that cannot be reached is one line (exit 1).
* stdout carries the results (one line per job, or JSON); progress (jobs done / running /
  failed, tokens so far) goes to stderr, and only on a terminal.
* Exit codes: 0 every job done; 1 a job failed or was cancelled, a line was malformed, or
  the database could not be reached; 2 usage errors; 130 interrupted (the jobs this process
  was running resume at the next run, or on another worker).
"""

from __future__ import annotations

import hashlib
import json
import signal
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from subagents.cli.options import format_option, option_group
from subagents.cli.run_options import ConnectionOptions, ModelOptions, PermissionOptions

if TYPE_CHECKING:
    from subagents.batch.engine import JobStatus
    from subagents.lint.config import Config

_CONTEXT = {"help_option_names": ["-h", "--help"]}

_DB = click.option(
    "--db", default=None, metavar="URL",
    help="Batch database: postgresql://user:pass@host/db, or a SQLite file "
         "(default: [batch] db in config, else .subagents/batch.sqlite here).")
_BATCH = click.option("--batch", "batch_name", default=None, metavar="NAME",
                      help="Only the jobs of this batch.")


@click.group("batch", context_settings=_CONTEXT, epilog="""\b
Examples:
  subagents batch run jobs.jsonl --workers 8 --yes
  subagents batch run --prompt "Review this repository" --over repos/*
  subagents batch run jobs.jsonl --db postgresql://ci@db/batch --workers 0
  subagents batch status
  subagents batch results --format json > results.json
  subagents batch cancel jobs/42""")
def batch() -> None:
    """Run an agent over many tasks, durably: resume after a crash, limits, many workers.

    Every job is recorded in a database as it goes (SQLite here by default, Postgres to
    share the work between machines).  Running the same command again skips finished jobs
    and continues interrupted ones from their last finished step.
    """


def _config(workdir: Path) -> Config:
    from subagents.lint.trust import TrustStore, project_root, run_config

    trusted = TrustStore().is_trusted(project_root(workdir))
    config, notes = run_config(workdir, trusted=trusted)
    for note in notes:
        click.echo(f"note: {note}", err=True)
    return config


def _db(db: str | None, config: Config) -> str | None:
    return db or config.batch.db


@batch.command("run", context_settings=_CONTEXT, epilog="""\b
A jobs file has one JSON object a line:
  {"id": "repo-1", "prompt": "Review the last commit", "cwd": "repos/one"}
  {"id": "repo-2", "prompt": "...", "agent": "code-reviewer", "model": "opus"}
agent, cwd and model are optional; a job without cwd works in a folder of its own,
subagents-batch/BATCH/ID here.

\b
Exit codes: 0 every job done, 1 a job failed (or a line was malformed, or the
database could not be reached), 2 usage error, 130 interrupted (run again to resume).""")
@click.argument("jobs_file", required=False, type=click.Path(path_type=Path))
@click.option("--prompt", "over_prompt", default=None, metavar="TEXT",
              help="With --over: the task every folder gets.")
@click.option("--over", "over_dirs", multiple=True, type=click.Path(path_type=Path),
              metavar="DIR", help="One job per folder (repeat, or give a shell glob).")
@click.option("--workers", type=click.IntRange(min=0), default=None,
              help="Jobs at once in this process (default: [batch] workers, else 4); "
                   "0 only submits them for other workers.")
@_DB
@click.option("--batch", "batch_name", default=None, metavar="NAME",
              help="Name of the batch (default: the jobs file's name; with --over, one "
                   "made from the prompt and folders).")
@option_group(ModelOptions)
@option_group(ConnectionOptions)
@option_group(PermissionOptions)
@click.option("--trust", "trust_jobs", is_flag=True,
              help="Trust the jobs' folders: their config, hooks and MCP servers apply.")
@format_option("text", "json", help="text: one line per job; json: every job's result.")
def run(jobs_file: Path | None, over_prompt: str | None, over_dirs: tuple[Path, ...],
        workers: int | None, db: str | None, batch_name: str | None, model: ModelOptions,
        connection: ConnectionOptions, permissions: PermissionOptions, trust_jobs: bool,
        output_format: str) -> None:
    """Run the jobs of JOBS_FILE (JSONL), or one job per --over folder."""
    from subagents.batch.jobs import check_unique, jobs_over, read_jobs
    from subagents.batch.runs import DEFAULT_WORKERS, run_batch
    from subagents.errors import UsageError

    if (jobs_file is None) == (not over_dirs):
        raise click.UsageError("give a jobs file, or --prompt TEXT --over DIR...")
    if over_dirs and not over_prompt:
        raise click.UsageError("--over needs --prompt TEXT (the task every folder gets)")
    if over_prompt and jobs_file is not None:
        raise click.UsageError("--prompt goes with --over, not with a jobs file")
    workdir = Path.cwd()
    config = _config(workdir)
    problems: list[Any] = []
    if jobs_file is not None:
        jobs, problems = read_jobs(jobs_file)
        for problem in problems:
            click.echo(f"error: {problem}", err=True)
        check_unique(jobs, str(jobs_file))
        name = batch_name or jobs_file.stem
    else:
        assert over_prompt is not None
        jobs = jobs_over(over_prompt, over_dirs)
        check_unique(jobs, "--over")
        digest = hashlib.sha256(json.dumps(
            [over_prompt, sorted(j.cwd or "" for j in jobs)]).encode()).hexdigest()[:8]
        name = batch_name or f"over-{digest}"
    if not jobs:
        raise UsageError(f"{jobs_file}: no job to run" if jobs_file else "no job to run")
    provider = model.provider or "anthropic"
    if provider == "scripted" and connection.script is None:
        raise click.UsageError("--provider scripted needs --script FILE (a JSON list of replies)")
    if connection.script is not None and provider != "scripted":
        raise click.UsageError("--script only works with --provider scripted")
    options: dict[str, Any] = (
        {"script": str(connection.script.resolve())} if connection.script is not None
        else {k: v for k, v in (("base_url", connection.base_url),
                                ("stream", connection.stream)) if v is not None})
    from subagents.batch.engine import QueueLimits

    limits = {p: QueueLimits(concurrency=lim.concurrency, rate=lim.rate, period=lim.period)
              for p, lim in config.batch.limits.items()}
    count = workers if workers is not None else (config.batch.workers or DEFAULT_WORKERS)
    progress = _Progress(len(jobs)) if _stderr_tty() and count else None
    try:
        outcome = run_batch(
            jobs, batch=name, db=_db(db, config), workers=count, limits=limits,
            on_progress=progress, provider=provider, provider_options=options,
            model_id=model.model_id, max_turns=model.max_turns,
            permission_mode=permissions.permission_mode,
            allow_rules=tuple(permissions.allow_rules), assume_yes=permissions.assume_yes,
            trusted=trust_jobs)
    finally:
        if progress is not None:
            progress.done()
    if not count:
        click.echo(f"submitted {len(outcome.jobs)} job(s) of batch {name} to "
                   f"{_shown_db(outcome.db)}; workers run them "
                   "(subagents worker --db ...)", err=True)
        sys.exit(1 if problems else 0)
    if outcome.recovered:
        click.echo(f"note: picked up {len(outcome.recovered)} job(s) of a worker that stopped; "
                   "they went on from their last finished step", err=True)
    _print_results(outcome.jobs, output_format)
    counts = outcome.counts()
    summary = ", ".join(f"{n} {state}" for state, n in sorted(counts.items()))
    click.echo(f"batch {name}: {summary}"
               + (f"; {len(problems)} line(s) not run" if problems else ""), err=True)
    if problems or not outcome.ok:
        sys.exit(1)


def _shown_db(url: str) -> str:
    from subagents.batch.engine import shown_url
    from subagents.fs import display_path

    if url.startswith("sqlite:///"):
        return display_path(url[len("sqlite:///"):])
    return shown_url(url)


def _stderr_tty() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


class _Progress:
    """One line on stderr, rewritten: jobs done / running / failed, tokens so far."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.shown = False

    def __call__(self, statuses: Sequence[JobStatus]) -> None:
        counts: dict[str, int] = {}
        tokens_in = tokens_out = 0
        for s in statuses:
            counts[s.state] = counts.get(s.state, 0) + 1
            usage = (s.result or {}).get("usage") or {}
            tokens_in += int(usage.get("input_tokens", 0))
            tokens_out += int(usage.get("output_tokens", 0))
        line = (f"{counts.get('done', 0)}/{self.total} done · {counts.get('running', 0)} "
                f"running · {counts.get('failed', 0)} failed · tokens {tokens_in:,} in / "
                f"{tokens_out:,} out")
        click.echo(f"\r\x1b[2K{line}", err=True, nl=False)
        self.shown = True

    def done(self) -> None:
        if self.shown:
            click.echo("", err=True)


def _job_dict(status: JobStatus) -> dict[str, Any]:
    result = dict(status.result or {})
    usage = result.get("usage") or {"input_tokens": 0, "output_tokens": 0}
    return {
        "batch": status.batch, "id": status.job_id, "state": status.state,
        "final_text": result.get("final_text", ""), "exit_reason": result.get("stop_reason"),
        "error": status.error or result.get("error"),
        "usage": {"input_tokens": usage.get("input_tokens", 0),
                  "output_tokens": usage.get("output_tokens", 0),
                  "tool_calls": result.get("tool_calls", 0),
                  "duration": result.get("duration")},
        "turns": result.get("turns", 0), "agent": result.get("agent"),
        "model": result.get("model"), "transcript_path": result.get("transcript_path"),
        "cwd": result.get("cwd"),
    }


def _first_line(text: str, width: int = 80) -> str:
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    return line if len(line) <= width else line[: width - 1] + "…"


def _print_results(statuses: Sequence[JobStatus], output_format: str) -> None:
    if output_format == "json":
        click.echo(json.dumps([_job_dict(s) for s in statuses], indent=2, ensure_ascii=False))
        return
    if output_format == "jsonl":
        for s in statuses:
            click.echo(json.dumps(_job_dict(s), ensure_ascii=False))
        return
    for s in statuses:
        data = _job_dict(s)
        what = (_first_line(data["final_text"]) if s.state == "done"
                else (data["error"] or s.state))
        click.echo(f"{s.state:<9} {s.workflow_id}  {what}")


@batch.command("status", context_settings=_CONTEXT)
@_DB
@_BATCH
@format_option("text", "json", help="text: a table; json: every job with its usage.")
def status(db: str | None, batch_name: str | None, output_format: str) -> None:
    """Show every job: state, turns, tool calls, tokens, duration, exit reason."""
    from subagents.batch.runs import job_statuses

    config = _config(Path.cwd())
    statuses = job_statuses(_db(db, config), batch_name)
    if output_format == "json":
        click.echo(json.dumps([_job_dict(s) for s in statuses], indent=2, ensure_ascii=False))
        return
    if not statuses:
        click.echo("no jobs" + (f" in batch {batch_name}" if batch_name else ""))
        return
    counts: dict[str, int] = {}
    rows = [("STATE", "JOB", "TURNS", "TOOLS", "TOKENS IN/OUT", "TIME", "EXIT")]
    for s in statuses:
        counts[s.state] = counts.get(s.state, 0) + 1
        d = _job_dict(s)
        u = d["usage"]
        rows.append((s.state, s.workflow_id, str(d["turns"]), str(u["tool_calls"]),
                     f"{u['input_tokens']}/{u['output_tokens']}",
                     f"{u['duration']:.1f}s" if isinstance(u["duration"], (int, float)) else "",
                     d["exit_reason"] or (d["error"] or "")[:60]))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        click.echo("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())
    click.echo(", ".join(f"{n} {state}" for state, n in sorted(counts.items())), err=True)


@batch.command("results", context_settings=_CONTEXT)
@_DB
@_BATCH
@format_option("jsonl", "json", help="jsonl: one job a line; json: one list.")
def results(db: str | None, batch_name: str | None, output_format: str) -> None:
    """Print every job's result: state, final text, usage, exit reason, transcript path."""
    from subagents.batch.runs import job_statuses

    config = _config(Path.cwd())
    _print_results(job_statuses(_db(db, config), batch_name), output_format)


@batch.command("cancel", context_settings=_CONTEXT)
@click.argument("job_id")
@_DB
def cancel(job_id: str, db: str | None) -> None:
    """Cancel a queued or running job (BATCH/ID, or ID when only one batch has it)."""
    from subagents.batch.runs import cancel as cancel_job

    config = _config(Path.cwd())
    result = cancel_job(job_id, _db(db, config))
    if result.state == "cancelled":
        click.echo(f"cancelled {result.workflow_id}")
    else:
        click.echo(f"{result.workflow_id} had already ended ({result.state}); nothing to "
                   "cancel")


@click.command("worker", context_settings=_CONTEXT, epilog="""\b
Example (on each machine that shares the work):
  subagents worker --db postgresql://batch:secret@db.internal/batch --workers 8""")
@_DB
@click.option("--workers", type=click.IntRange(min=1), default=None,
              help="Jobs at once in each worker (sets the queues' per-worker limit).")
def worker(db: str | None, workers: int | None) -> None:
    """Take batch jobs from the database's queues and run them, until stopped.

    The provider keys (ANTHROPIC_API_KEY...) come from this machine's environment; a job's
    working folder must exist here too.  Jobs of a worker that stops or dies are picked up
    by the others, from their last finished step.
    """
    from subagents.batch.engine import database_url, shown_url
    from subagents.batch.runs import serve

    config = _config(Path.cwd())
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    url = database_url(_db(db, config))

    def started(executor: str) -> None:
        click.echo(f"worker {executor} serving {shown_url(url)} (Ctrl-C to stop)", err=True)

    recovered = serve(url, workers=workers or config.batch.workers, stop=stop,
                      on_start=started)
    if recovered:
        click.echo(f"recovered {len(recovered)} job(s) of stopped workers", err=True)
