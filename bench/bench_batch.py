"""Benchmark: durable batch runs (DBOS) against plain runs, and losses under kills.

Run: ``.venv/bin/python bench/bench_batch.py [--jobs 200] [--backend sqlite|postgres|both]``

For each backend (SQLite file; PostgreSQL started on 127.0.0.1 by ``tests/pgserver.py``),
all measured in this run:

* **throughput**: ``--jobs`` jobs through :func:`subagents.batch.run_batch` with a
  ``ScriptedModel`` per job (3 model turns: Glob, Read, answer: 5 steps), 2 at a time in this
  process: jobs per second (start-up of the worker included);
* **overhead per step**: the same jobs through a plain ``AgentRunner.run`` in this process,
  2 at a time; per-step wall time of both and their ratio (batch / plain);
* **kills**: ``--jobs`` jobs submitted with ``batch run --workers 0`` and run by 2
  ``subagents worker`` processes (``--provider scripted``, 2 jobs at once each), one of them
  killed with ``kill -9`` and started again every ``--kill-every`` seconds; afterwards: jobs
  lost (no result), jobs with more than one result, finished tool calls run twice (each job
  edits a file once per call; a call cut off by a kill may run again, counted apart).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

STEPS_PER_JOB = 5  # 3 model requests + 2 tool calls


def _script(job_id: str) -> list:
    from subagents.testing import ScriptedModel, text, tool_call

    return ScriptedModel([tool_call("Glob", {"pattern": "*.txt"}),
                          tool_call("Read", {"file_path": "note.txt"}),
                          text(f"done {job_id}")])


def _jobs(base: Path, n: int) -> list:
    from subagents.batch import Job

    jobs = []
    for i in range(n):
        folder = base / f"j{i}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "note.txt").write_text(f"note {i}\n")
        jobs.append(Job(f"j{i}", f"task {i}", cwd=str(folder)))
    return jobs


def throughput(db: str, base: Path, n: int) -> tuple[float, float, int]:
    from subagents.batch import run_batch

    jobs = _jobs(base / "tp", n)
    started = time.perf_counter()
    outcome = run_batch(jobs, model=lambda job: _script(job.id), workers=2, db=db, root=base,
                        batch=f"tp-{time.time_ns()}", transcripts=False)
    elapsed = time.perf_counter() - started
    done = sum(1 for j in outcome.jobs if j.state == "done")
    return elapsed, n / elapsed, done


def plain(base: Path, n: int) -> float:
    from subagents.definition import AgentDefinition
    from subagents.runtime.runner import AgentRunner

    jobs = _jobs(base / "plain", n)
    agent = AgentDefinition(name="batch", description="x", system_prompt="Do the task.")

    async def all_jobs() -> None:
        gate = asyncio.Semaphore(2)

        async def one(job: object) -> None:
            async with gate:
                runner = AgentRunner(_script(job.id), cwd=job.cwd, transcripts=False,  # type: ignore[attr-defined]
                                     include_env=True)
                result = await runner.run(agent, job.prompt)  # type: ignore[attr-defined]
                assert result.stop_reason == "end_turn", result.error

        await asyncio.gather(*(one(j) for j in jobs))

    started = time.perf_counter()
    asyncio.run(all_jobs())
    return time.perf_counter() - started


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "subagents", *args]


def kills(db: str, base: Path, n: int, kill_every: float) -> dict[str, int]:
    work = base / "kill"
    lines = []
    for i in range(n):
        folder = work / f"j{i}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "count.txt").write_text("n=0\n")
        lines.append(json.dumps({"id": f"j{i}", "prompt": f"task {i}", "cwd": str(folder)}))
    (base / "kill.jsonl").write_text("\n".join(lines) + "\n")
    edit = {"tool": "Edit", "input": {"file_path": "count.txt", "old_string": "n=0",
                                      "new_string": "n=0+"}}
    (base / "script.json").write_text(json.dumps([edit, edit, "done"]))
    env = {**os.environ, "HOME": str(base / "home"), "PYTHONPATH": str(ROOT / "src")}
    (base / "home").mkdir(exist_ok=True)
    submit = subprocess.run(_cli("batch", "run", "kill.jsonl", "--db", db, "--workers", "0",
                                 "--provider", "scripted", "--script", "script.json", "--yes"),
                            cwd=base, env=env, capture_output=True, text=True, check=False)
    assert submit.returncode == 0, submit.stderr

    def start() -> subprocess.Popen[bytes]:
        return subprocess.Popen(_cli("worker", "--db", db, "--workers", "2"), cwd=base,
                                env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)

    workers = [start(), start()]
    killed = 0
    last_kill = time.monotonic()
    deadline = time.monotonic() + 600
    try:
        while time.monotonic() < deadline:
            time.sleep(0.5)
            status = subprocess.run(_cli("batch", "status", "--db", db, "--format", "json",
                                         "--batch", "kill"), cwd=base, env=env,
                                    capture_output=True, text=True, check=True)
            states = Counter(d["state"] for d in json.loads(status.stdout))
            if states.get("done", 0) + states.get("failed", 0) >= n:
                break
            if time.monotonic() - last_kill >= kill_every:
                workers[0].send_signal(signal.SIGKILL)
                workers[0].wait()
                workers[0] = start()
                killed += 1
                last_kill = time.monotonic()
    finally:
        for w in workers:
            w.send_signal(signal.SIGTERM)
        for w in workers:
            with contextlib.suppress(Exception):
                w.wait(timeout=30)
    results = subprocess.run(_cli("batch", "results", "--db", db, "--batch", "kill"),
                             cwd=base, env=env, capture_output=True, text=True, check=True)
    data = [json.loads(line) for line in results.stdout.splitlines()]
    ids = Counter(d["id"] for d in data if d["state"] == "done")
    pluses = [(work / f"j{i}" / "count.txt").read_text().count("+") for i in range(n)]
    return {"kills": killed, "done": len(ids),
            "lost": sum(1 for i in range(n) if ids[f"j{i}"] == 0),
            "duplicated results": sum(1 for c in ids.values() if c > 1),
            "tool calls re-run after a cut": sum(max(0, p - 2) for p in pluses)}


@contextlib.contextmanager
def backend(name: str, base: Path) -> Iterator[str]:
    if name == "sqlite":
        yield str(base / "batch.sqlite")
        return
    from pgserver import postgres_server

    with postgres_server() as url:
        yield url


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=200)
    parser.add_argument("--backend", choices=("sqlite", "postgres", "both"), default="both")
    parser.add_argument("--kill-every", type=float, default=2.0)
    args = parser.parse_args()
    names = ("sqlite", "postgres") if args.backend == "both" else (args.backend,)
    for name in names:
        with tempfile.TemporaryDirectory() as tmp:
            base = Path(tmp)
            with backend(name, base) as db:
                elapsed, rate, done = throughput(db, base, args.jobs)
                baseline = plain(base, args.jobs)
                steps = args.jobs * STEPS_PER_JOB
                per_batch, per_plain = elapsed / steps * 1000, baseline / steps * 1000
                print(f"[{name}] {args.jobs} jobs, 2 at a time in one process: {done} done in "
                      f"{elapsed:.1f}s = {rate:.1f} jobs/s")
                print(f"[{name}] per step: batch {per_batch:.2f} ms, plain run "
                      f"{per_plain:.2f} ms, ratio {per_batch / per_plain:.1f}x "
                      f"(plain: {args.jobs} jobs in {baseline:.2f}s)")
                k = kills(db, base, args.jobs, args.kill_every)
                print(f"[{name}] {args.jobs} jobs over 2 worker processes, {k['kills']} kill -9: "
                      f"{k['done']} done, {k['lost']} lost, {k['duplicated results']} "
                      f"duplicated, {k['tool calls re-run after a cut']} tool call(s) cut off "
                      "by a kill and run again")


if __name__ == "__main__":
    main()
