"""Batch runs shared by several worker processes on PostgreSQL, one of them killed.

The server is a throw-away PostgreSQL on 127.0.0.1 (``pgserver.py``); the model is the
loopback fake API (``subagents.testing.server``), reached through the real Anthropic SDK.
Without PostgreSQL these tests skip on a developer's machine with the reason, and fail under
CI (``CI`` set), where a skip would hide a missing install step (``.ci/run`` installs it).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pgserver import binaries, postgres_server
from subagents.providers.base import ModelResponse, TextBlock, ToolUseBlock, Usage
from subagents.testing.server import FakeLLMServer, RecordedRequest

pytestmark = pytest.mark.slow

JOBS = 40
TURNS = 3  # Edit, Edit, then the answer


@pytest.fixture(scope="module")
def pg_url() -> Iterator[str]:
    if binaries() is None:
        if os.environ.get("CI"):
            pytest.fail("CI must run the PostgreSQL batch tests, but PostgreSQL is not installed")
        pytest.skip("PostgreSQL is not installed (apt-get install postgresql)")
    with postgres_server() as url:
        yield url


def _prompt(request: RecordedRequest) -> str:
    first = request.json["messages"][0]["content"]
    if isinstance(first, str):
        return first
    return "".join(b.get("text", "") for b in first if b.get("type") == "text")


def _turn(request: RecordedRequest) -> int:
    return sum(1 for m in request.json["messages"] if m["role"] == "assistant") + 1


def _answer(request: RecordedRequest) -> ModelResponse:
    time.sleep(0.15)  # a model takes a while: the kill lands while jobs are in flight
    turn, prompt = _turn(request), _prompt(request)
    if turn < TURNS:
        return ModelResponse(content=(ToolUseBlock(f"toolu_{turn}", "Edit", {
            "file_path": "count.txt", "old_string": "n=0", "new_string": "n=0+"}),),
            stop_reason="tool_use", usage=Usage(100, 10))
    return ModelResponse(content=(TextBlock(f"finished {prompt}"),), usage=Usage(100, 20))


def _env(tmp_path: Path, server: FakeLLMServer) -> dict[str, str]:
    return {**os.environ, "HOME": str(tmp_path / "home"), "NO_COLOR": "1",
            "ANTHROPIC_BASE_URL": server.anthropic_base_url, "ANTHROPIC_API_KEY": "test-key",
            "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "subagents", *args]


def test_a_worker_killed_mid_run_loses_nothing_and_repeats_no_finished_turn(
    tmp_path: Path, pg_url: str
) -> None:
    (tmp_path / "home").mkdir()
    lines = []
    for i in range(JOBS):
        folder = tmp_path / "work" / f"j{i}"
        folder.mkdir(parents=True)
        (folder / "count.txt").write_text("n=0\n")
        lines.append(json.dumps({"id": f"j{i}", "prompt": f"job {i}", "cwd": f"work/j{i}"}))
    (tmp_path / "jobs.jsonl").write_text("\n".join(lines) + "\n")
    run = ["batch", "run", "jobs.jsonl", "--db", pg_url, "--yes"]
    with FakeLLMServer(default=_answer) as server:
        env = _env(tmp_path, server)
        worker = subprocess.Popen(_cli("worker", "--db", pg_url, "--workers", "4"),
                                  cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
        first = subprocess.Popen(_cli(*run, "--workers", "4"), cwd=tmp_path, env=env,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.monotonic() + 90
            while len(server.requests) < JOBS and time.monotonic() < deadline:
                assert first.poll() is None, first.communicate()
                time.sleep(0.05)
            assert len(server.requests) >= JOBS, "the batch did not get going"
            first.send_signal(signal.SIGKILL)  # kill -9, mid-run
            first.wait(timeout=10)
            killed_at = len(server.requests)
            # the same command again: it waits for every job, run here or by the worker
            again = subprocess.run(_cli(*run, "--workers", "2"), cwd=tmp_path, env=env,
                                   capture_output=True, text=True, timeout=180, check=False)
        finally:
            for proc in (first, worker):
                if proc.poll() is None:
                    proc.send_signal(signal.SIGTERM)
        _, worker_err = worker.communicate(timeout=30)
        requests = list(server.requests)
    assert first.returncode == -signal.SIGKILL
    assert killed_at < JOBS * TURNS  # the kill was mid-run
    assert again.returncode == 0, again.stderr
    assert worker.returncode == 0, worker_err
    # every job has exactly one result, and it is its own
    done = sorted(again.stdout.splitlines())
    assert done == sorted(f"done      jobs/j{i}  finished job {i}" for i in range(JOBS))
    results = subprocess.run(_cli("batch", "results", "--db", pg_url, "--format", "json"),
                             cwd=tmp_path, env=env, capture_output=True, text=True,
                             check=True, timeout=60)
    data: list[dict[str, Any]] = json.loads(results.stdout)
    assert Counter(d["id"] for d in data) == Counter(f"j{i}" for i in range(JOBS))
    assert all(d["state"] == "done" and d["usage"]["tool_calls"] == 2 for d in data)
    # the killed process had jobs in flight, and another process picked them up
    recovered = "picked up" in again.stderr or "recovered" in worker_err
    assert recovered, (again.stderr, worker_err)
    # no finished turn was sent twice: only a request cut off by the kill may come again
    # (one per job the killed process was running: at most its 4 at once)
    sent = Counter((_prompt(r), _turn(r)) for r in requests)
    assert set(sent) == {(f"job {i}", t) for i in range(JOBS) for t in range(1, TURNS + 1)}
    repeated = [key for key, n in sent.items() if n > 1]
    assert all(sent[key] == 2 for key in repeated) and len(repeated) <= 4, repeated
    assert len({prompt for prompt, _ in repeated}) == len(repeated)
    # finished tool calls were not run again (each run adds a "+"); a call cut off by the
    # kill may have run before the kill and once more after it
    pluses = [(tmp_path / "work" / f"j{i}" / "count.txt").read_text().count("+")
              for i in range(JOBS)]
    assert all(p in (2, 3) for p in pluses) and pluses.count(3) <= 4, pluses


def test_two_runs_of_one_file_at_once_run_each_job_once(tmp_path: Path, pg_url: str) -> None:
    (tmp_path / "home").mkdir()
    lines = []
    for i in range(12):
        folder = tmp_path / "work" / f"k{i}"
        folder.mkdir(parents=True)
        (folder / "count.txt").write_text("n=0\n")
        lines.append(json.dumps({"id": f"k{i}", "prompt": f"twin {i}", "cwd": f"work/k{i}"}))
    (tmp_path / "twins.jsonl").write_text("\n".join(lines) + "\n")
    cmd = _cli("batch", "run", "twins.jsonl", "--db", pg_url, "--yes", "--workers", "3")
    with FakeLLMServer(default=_answer) as server:
        env = _env(tmp_path, server)
        outs: list[subprocess.CompletedProcess[str]] = []

        def one() -> None:
            outs.append(subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True,
                                       text=True, timeout=180, check=False))

        threads = [threading.Thread(target=one) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        requests = list(server.requests)
    assert [o.returncode for o in outs] == [0, 0], [o.stderr for o in outs]
    for out in outs:  # both report every job, done once
        assert len(out.stdout.splitlines()) == 12
    sent = Counter((_prompt(r), _turn(r)) for r in requests)
    assert sent == Counter({(f"twin {i}", t): 1 for i in range(12) for t in (1, 2, 3)})
    assert all((tmp_path / "work" / f"k{i}" / "count.txt").read_text() == "n=0++\n"
               for i in range(12))


def test_processes_starting_together_on_a_fresh_database_create_the_table_once(
    pg_url: str
) -> None:
    """Two machines started at once on a new database used to fail on PostgreSQL's
    catalogue (a duplicate ``pg_type`` row): both found the table missing and both made it."""
    import sqlalchemy as sa

    from subagents.batch import engine as batch_engine

    admin = sa.create_engine(pg_url, isolation_level="AUTOCOMMIT")
    try:
        for round_ in range(4):
            name = f"together_{round_}"
            with admin.connect() as conn:
                conn.execute(sa.text(f"CREATE DATABASE {name}"))
            url = pg_url.rsplit("/", 1)[0] + f"/{name}"
            engines = [sa.create_engine(url) for _ in range(8)]
            start = threading.Barrier(len(engines))
            errors: list[BaseException] = []

            def create(eng: sa.Engine, start: threading.Barrier = start,
                       errors: list[BaseException] = errors) -> None:
                start.wait()
                try:
                    batch_engine._create_tables(eng)
                except BaseException as exc:  # collected and reported below
                    errors.append(exc)

            threads = [threading.Thread(target=create, args=(eng,)) for eng in engines]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(timeout=60)
            for eng in engines:
                eng.dispose()
            assert not errors, errors[0]
            with sa.create_engine(url).connect() as conn:
                assert sa.inspect(conn).has_table("subagents_batch_workers")
    finally:
        admin.dispose()
