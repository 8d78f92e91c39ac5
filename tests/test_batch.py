"""Durable batch runs on SQLite, offline: jobs files, the library, resume, the CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from subagents.batch import Job, jobs_over, read_jobs, run_batch
from subagents.batch.jobs import check_unique, parse_job
from subagents.cli.main import main
from subagents.errors import UsageError
from subagents.providers.base import ModelRequest, ModelResponse, TextBlock, ToolUseBlock, Usage
from subagents.testing import ScriptedModel, text, tool_call

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _own_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The user's own config (its [batch] db, its trust store) stays out of these tests."""
    (tmp_path / "home").mkdir(exist_ok=True)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


def _turn(request: ModelRequest) -> int:
    return sum(1 for m in request.messages if m.role == "assistant") + 1


class Responder:
    """Answers by turn (so a resumed job gets the right reply) and logs every request:
    turns 1-2 edit count.txt (a second run of a call would show: n=0+ becomes n=0++),
    turn 3 ends with the job's prompt."""

    name = "responder"
    default_model = None

    def __init__(self, log: list[tuple[str, int]]) -> None:
        self.log = log

    async def complete(self, request: ModelRequest) -> ModelResponse:
        turn = _turn(request)
        prompt = request.messages[0].content[0]
        assert isinstance(prompt, TextBlock)
        self.log.append((prompt.text, turn))
        if turn <= 2:
            return ModelResponse(content=(ToolUseBlock(f"call-{turn}", "Edit", {
                "file_path": "count.txt", "old_string": "n=0", "new_string": "n=0+"}),),
                stop_reason="tool_use", usage=Usage(10, 5))
        return ModelResponse(content=(TextBlock(f"finished {prompt.text}"),), usage=Usage(7, 3))


def _folders(tmp_path: Path, n: int) -> list[Job]:
    jobs = []
    for i in range(n):
        folder = tmp_path / "work" / f"j{i}"
        folder.mkdir(parents=True)
        (folder / "count.txt").write_text("n=0\n")
        jobs.append(Job(f"j{i}", f"job {i}", cwd=str(folder)))
    return jobs


# ------------------------------------------------------------------ jobs files


def test_jobs_file_reports_bad_lines_by_number_and_keeps_the_others(tmp_path: Path) -> None:
    f = tmp_path / "jobs.jsonl"
    f.write_bytes(b'{"id": "a", "prompt": "one"}\n'
                  b"not json\n"
                  b"\n# a comment\n"
                  b'{"id": "b"}\n'
                  b'{"id": "c", "prompt": "x", "colour": "red"}\n'
                  b'[1, 2]\n'
                  b'{"id": "../x", "prompt": "x"}\n'
                  b'\xff\xfe\n'
                  b'{"id": 7, "prompt": "seven", "cwd": "sub"}\n')
    jobs, problems = read_jobs(f)
    assert [j.id for j in jobs] == ["a", "7"]
    assert jobs[1].cwd == str((tmp_path / "sub").resolve())  # relative to the file's folder
    assert [(p.line, p.message.split(" ")[0]) for p in problems] == [
        (2, "not"), (5, "`prompt`"), (6, "unknown"), (7, "a"), (8, "`id`"), (9, "not")]
    assert str(problems[0]).startswith(f"{f}:2: not valid JSON")


def test_a_duplicate_id_is_refused_with_both_lines(tmp_path: Path) -> None:
    f = tmp_path / "jobs.jsonl"
    f.write_text('{"id": "a", "prompt": "1"}\n{"id": "b", "prompt": "2"}\n'
                 '{"id": "a", "prompt": "3"}\n')
    jobs, _ = read_jobs(f)
    with pytest.raises(UsageError, match=r"'a' is used twice \(lines 1 and 3\)"):
        check_unique(jobs, str(f))


def test_jobs_over_folders(tmp_path: Path) -> None:
    for p in ("x/app", "y/app", "lib"):
        (tmp_path / p).mkdir(parents=True)
    jobs = jobs_over("Review it", [tmp_path / "x/app", tmp_path / "y/app", tmp_path / "lib"])
    assert [j.cwd for j in jobs] == [str((tmp_path / p).resolve())
                                     for p in ("x/app", "y/app", "lib")]
    assert jobs[2].id == "lib" and jobs[0].id.startswith("app-") and jobs[0].id != jobs[1].id
    check_unique(jobs)
    with pytest.raises(UsageError, match="not a folder"):
        jobs_over("Review it", [tmp_path / "missing"])


@settings(max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # HOME: same each time
@given(st.one_of(st.binary(max_size=80), st.text(max_size=80).map(str.encode),
                 st.dictionaries(st.text(max_size=6), st.one_of(
                     st.text(max_size=8), st.integers(), st.none(), st.booleans()),
                     max_size=4).map(lambda d: json.dumps(d).encode())))
def test_any_line_is_a_job_or_a_problem_never_a_crash(line: bytes) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / "jobs.jsonl"
        f.write_bytes(line.replace(b"\n", b" ") + b"\n")
        jobs, problems = read_jobs(f)
        assert len(jobs) + len(problems) <= 1
        for p in problems:
            assert p.line == 1 and p.message


def test_parse_job_refuses_what_is_not_a_job() -> None:
    with pytest.raises(ValueError, match="`agent` must be a non-empty string"):
        parse_job({"id": "a", "prompt": "p", "agent": ""})
    assert parse_job({"id": "a", "prompt": "p", "model": "opus"}).model == "opus"


# ------------------------------------------------------------------ the library


def test_library_runs_every_job_in_its_own_folder(tmp_path: Path) -> None:
    def model(job: Job) -> ScriptedModel:
        return ScriptedModel([tool_call("Write", {"file_path": "out.txt", "content": job.id}),
                              text(f"wrote {job.id}")])

    outcome = run_batch([Job(f"t{i}", f"task {i}") for i in range(6)], model=model,
                        workers=3, db=str(tmp_path / "b.sqlite"), root=tmp_path,
                        assume_yes=True, batch="lib")
    assert outcome.ok, outcome.jobs
    assert sorted(j.job_id for j in outcome.jobs) == [f"t{i}" for i in range(6)]
    for status in outcome.jobs:
        result = status.result
        assert result is not None
        assert result["final_text"] == f"wrote {status.job_id}"
        assert result["tool_calls"] == 1 and result["turns"] == 2
        assert result["usage"] == {"input_tokens": 20, "output_tokens": 10}
        folder = Path(result["cwd"])
        assert folder == tmp_path / "subagents-batch" / "lib" / status.job_id
        assert (folder / "out.txt").read_text() == status.job_id
        assert Path(result["transcript_path"]).is_file()


def test_a_rerun_does_not_run_finished_jobs_again(tmp_path: Path) -> None:
    log: list[tuple[str, int]] = []
    jobs = _folders(tmp_path, 3)
    db = str(tmp_path / "b.sqlite")
    first = run_batch(jobs, model=Responder(log), workers=2, db=db, root=tmp_path,
                      assume_yes=True, batch="again")
    assert first.ok and len(log) == 9
    second = run_batch(jobs, model=Responder(log), workers=2, db=db, root=tmp_path,
                       assume_yes=True, batch="again")
    assert second.ok and len(log) == 9  # not one request more
    assert [j.result for j in second.jobs] == [j.result for j in first.jobs]
    for job in jobs:
        assert Path(job.cwd or "", "count.txt").read_text() == "n=0++\n"


def test_a_job_that_keeps_failing_ends_failed_and_the_others_finish(tmp_path: Path) -> None:
    from subagents.errors import ProviderConnectionError

    def model(job: Job) -> ScriptedModel:
        if job.id == "bad":
            return ScriptedModel([ProviderConnectionError("server kept answering 503 "
                                                          "(gave up after 4 attempts)")])
        return ScriptedModel([text("fine")])

    outcome = run_batch([Job("ok1", "a"), Job("bad", "b"), Job("ok2", "c"),
                         Job("noagent", "d", agent="missing-agent")],
                        model=model, workers=2, db=str(tmp_path / "b.sqlite"), root=tmp_path,
                        batch="fails")
    states = {j.job_id: (j.state, j.error) for j in outcome.jobs}
    assert states["ok1"] == ("done", None) and states["ok2"] == ("done", None)
    assert states["bad"][0] == "failed" and "gave up after 4 attempts" in str(states["bad"][1])
    assert states["noagent"][0] == "failed" and "missing-agent" in str(states["noagent"][1])
    assert not outcome.ok


def test_tool_calls_refused_without_permission_are_not_run(tmp_path: Path) -> None:
    jobs = _folders(tmp_path, 1)
    log: list[tuple[str, int]] = []
    outcome = run_batch(jobs, model=Responder(log), workers=1, db=str(tmp_path / "b.sqlite"),
                        root=tmp_path, batch="noyes")  # no --yes: nobody to ask
    assert outcome.ok
    assert Path(jobs[0].cwd or "", "count.txt").read_text() == "n=0\n"


CRASHING_JOB = textwrap.dedent("""
    import json, os, sys
    from pathlib import Path
    sys.path.insert(0, {tests!r})
    from test_batch import Responder, _turn
    from subagents.batch import Job, run_batch

    tmp, crash = Path(sys.argv[1]), sys.argv[2] == "crash"
    log_file = tmp / "requests.jsonl"

    class Logged(Responder):
        async def complete(self, request):
            prompt = request.messages[0].content[0].text
            with log_file.open("a") as f:
                f.write(json.dumps([prompt, _turn(request)]) + "\\n")
            if crash and prompt == "job 1" and _turn(request) == 3:
                os._exit(9)  # the worker dies while the third request is on the wire
            return await super().complete(request)

    jobs = [Job(f"j{{i}}", f"job {{i}}", cwd=str(tmp / "work" / f"j{{i}}")) for i in range(3)]
    out = run_batch(jobs, model=Logged([]), workers=1, db=str(tmp / "b.sqlite"), root=tmp,
                    assume_yes=True, batch="crash")
    print(json.dumps({{j.job_id: [j.state, (j.result or {{}}).get("final_text")]
                      for j in out.jobs}}))
""")


@pytest.mark.slow
def test_an_interrupted_job_resumes_from_its_last_finished_step(tmp_path: Path) -> None:
    """The worker dies (os._exit) during job 1's third model request; the same run again
    replays that job's first two turns and tool calls from the record and finishes."""
    _folders(tmp_path, 3)
    script = tmp_path / "crash.py"
    script.write_text(CRASHING_JOB.format(tests=str(ROOT / "tests")))
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    first = subprocess.run([sys.executable, str(script), str(tmp_path), "crash"], env=env,
                           capture_output=True, text=True, timeout=120, cwd=tmp_path,
                           check=False)
    assert first.returncode == 9, first.stderr
    second = subprocess.run([sys.executable, str(script), str(tmp_path), "resume"], env=env,
                            capture_output=True, text=True, timeout=120, cwd=tmp_path,
                           check=False)
    assert second.returncode == 0, second.stderr
    states = json.loads(second.stdout.strip().splitlines()[-1])
    assert states == {f"j{i}": ["done", f"finished job {i}"] for i in range(3)}
    sent = [tuple(json.loads(line)) for line in
            (tmp_path / "requests.jsonl").read_text().splitlines()]
    # every turn of every job was sent once, except job 1's third, cut off by the crash
    counts = {key: sent.count(key) for key in set(sent)}
    assert counts.pop(("job 1", 3)) == 2
    assert set(counts.values()) == {1} and len(counts) == 8
    # the two finished Edit calls of job 1 were not run again (a second run adds a "+")
    for i in range(3):
        assert (tmp_path / "work" / f"j{i}" / "count.txt").read_text() == "n=0++\n"


# ------------------------------------------------------------------ the CLI


@click.command(context_settings={"ignore_unknown_options": True})
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def _main(args: tuple[str, ...]) -> None:
    main(list(args))  # errors become messages and exit codes, as in the console script


def _cli(args: list[str], cwd: Path) -> Any:
    old = Path.cwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(_main, args, catch_exceptions=False)
    finally:
        os.chdir(old)


SCRIPT = [{"tool": "Write", "input": {"file_path": "out.txt", "content": "hi"}}, "all done"]


def test_cli_runs_a_jobs_file_with_a_bad_line_and_reports_it(tmp_path: Path) -> None:
    (tmp_path / "script.json").write_text(json.dumps(SCRIPT))
    (tmp_path / "jobs.jsonl").write_text('{"id": "a", "prompt": "one"}\n{"id": \n'
                                         '{"id": "b", "prompt": "two"}\n')
    args = ["batch", "run", "jobs.jsonl", "--provider", "scripted", "--script", "script.json",
            "--yes", "--workers", "2"]
    out = _cli(args, tmp_path)
    assert out.exit_code == 1  # the bad line is an error, after the others ran
    assert "jobs.jsonl:2: not valid JSON" in out.stderr
    assert out.stdout.splitlines() == ["done      jobs/a  all done", "done      jobs/b  all done"]
    assert "batch jobs: 2 done; 1 line(s) not run" in out.stderr
    status = _cli(["batch", "status"], tmp_path)
    assert status.exit_code == 0 and "jobs/a" in status.stdout and "end_turn" in status.stdout
    results = _cli(["batch", "results"], tmp_path)
    lines = [json.loads(line) for line in results.stdout.splitlines()]
    assert [(r["batch"], r["id"], r["state"], r["final_text"]) for r in lines] == [
        ("jobs", "a", "done", "all done"), ("jobs", "b", "done", "all done")]
    assert lines[0]["usage"]["tool_calls"] == 1 and lines[0]["exit_reason"] == "end_turn"
    as_json = json.loads(_cli(["batch", "results", "--format", "json"], tmp_path).stdout)
    assert as_json == lines
    cancel = _cli(["batch", "cancel", "a"], tmp_path)
    assert cancel.exit_code == 0 and "already ended (done)" in cancel.stdout
    unknown = _cli(["batch", "cancel", "zzz"], tmp_path)
    assert unknown.exit_code == 2 and "no job 'zzz'" in unknown.stderr


def test_cli_refuses_a_duplicate_id_before_anything_starts(tmp_path: Path) -> None:
    (tmp_path / "jobs.jsonl").write_text('{"id": "a", "prompt": "1"}\n{"id": "a", "prompt": '
                                         '"2"}\n')
    out = _cli(["batch", "run", "jobs.jsonl"],
               tmp_path)
    assert out.exit_code == 2
    assert "the id 'a' is used twice (lines 1 and 2); nothing was started" in out.stderr
    assert not (tmp_path / ".subagents").exists()


def test_cli_unreachable_database_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "jobs.jsonl").write_text('{"id": "a", "prompt": "1"}\n')
    out = _cli(["batch", "run", "jobs.jsonl", "--db",
                "postgresql://user:secret@127.0.0.1:1/nothing"], tmp_path)
    assert out.exit_code == 1
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        "error: cannot reach the batch database postgresql://user:***@127.0.0.1:1/nothing")
    assert "secret" not in out.stderr
    worker = _cli(["worker", "--db", "postgresql://user:secret@127.0.0.1:1/nothing"], tmp_path)
    assert worker.exit_code == 1 and len(worker.stderr.strip().splitlines()) == 1
    assert "cannot reach the batch database" in worker.stderr and "secret" not in worker.stderr
    status = _cli(["batch", "status", "--db", str(tmp_path / "none.sqlite")], tmp_path)
    assert status.exit_code == 1 and "no batch database at" in status.stderr


def test_cli_over_folders_and_usage_errors(tmp_path: Path) -> None:
    (tmp_path / "script.json").write_text(json.dumps(["looked"]))
    for name in ("one", "two"):
        (tmp_path / "repos" / name).mkdir(parents=True)
    args = ["batch", "run", "--prompt", "Look", "--over", "repos/one", "--over", "repos/two",
            "--provider", "scripted", "--script", "script.json", "--format", "json"]
    out = _cli(args, tmp_path)
    assert out.exit_code == 0, out.stderr
    data = json.loads(out.stdout)
    assert [(d["id"], d["final_text"], d["cwd"]) for d in data] == [
        ("one", "looked", str((tmp_path / "repos/one").resolve())),
        ("two", "looked", str((tmp_path / "repos/two").resolve()))]
    assert data[0]["batch"].startswith("over-")
    assert _cli(["batch", "run"], tmp_path).exit_code == 2
    assert _cli(["batch", "run", "--over", "repos/one"], tmp_path).exit_code == 2


def test_config_batch_section(tmp_path: Path) -> None:
    from subagents.errors import ConfigError
    from subagents.lint.config import BatchLimits, load_config

    f = tmp_path / ".subagents.toml"
    f.write_text('[batch]\nworkers = 3\ndb = "x.sqlite"\n[batch.providers.anthropic]\n'
                 'concurrency = 8\nrate = 50\nperiod = 60\n')
    cfg = load_config(f)
    assert cfg.batch.workers == 3 and cfg.batch.db == "x.sqlite"
    assert cfg.batch.limits == {"anthropic": BatchLimits(8, 50, 60.0)}
    for bad, message in (("workers = 0", "workers` must be a positive"),
                         ("speed = 1", "unknown key(s) speed"),
                         ('[batch.providers.x]\nrate = "a lot"', "rate` must be a positive")):
        f.write_text(f"[batch]\n{bad}\n")
        with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
            load_config(f)


def test_importing_the_batch_package_pulls_no_dbos() -> None:
    code = ("import sys, subagents.batch, subagents.batch.jobs\n"
            "print([m for m in ('dbos', 'sqlalchemy') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"


def test_sandbox_of_a_job_can_be_tightened_never_loosened() -> None:
    from subagents.batch.job_run import _stricter

    assert _stricter("off", None) == "required"  # a submitter cannot turn it off
    assert _stricter("off", "off") == "off"  # the worker's own user config can
    assert _stricter("required", "off") == "required"
    assert _stricter(None, "ask") == "ask"
    assert _stricter("nonsense", "off") == "required"


def test_bash_in_a_batch_job_runs_in_the_sandbox(tmp_path: Path) -> None:
    from subagents.runtime.sandbox import unavailable

    reason = unavailable()
    if reason:
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the sandbox tests, but {reason}")
        pytest.skip(f"no sandbox on this machine: {reason}")
    outside = tmp_path / "outside.txt"
    model = ScriptedModel([tool_call("Bash", {"command": f"echo inside > in.txt; "
                                                         f"echo escaped > {outside}"}),
                           text("tried")])
    outcome = run_batch([Job("sb", "try")], model=lambda job: model, workers=1, root=tmp_path,
                        db=str(tmp_path / "b.sqlite"), assume_yes=True, batch="sandbox")
    assert outcome.ok
    folder = tmp_path / "subagents-batch" / "sandbox" / "sb"
    assert (folder / "in.txt").read_text() == "inside\n"
    # the command ran (in the job's folder), and its write outside went nowhere real
    assert outcome.jobs[0].result is not None and outcome.jobs[0].result["tool_calls"] == 1
    assert not outside.exists()


@pytest.mark.slow
def test_provider_errors_are_retried_and_a_job_that_keeps_failing_ends_failed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through the real Anthropic SDK and the loopback fake API: a 503 then a 429 are
    retried with backoff (providers/retry.py), a job whose requests keep failing ends as
    failed with its error, and the queue goes on."""
    from subagents.testing.server import FakeLLMServer, Fault, RecordedRequest

    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setenv("SUBAGENTS_RETRY_DELAY", "0.01")
    seen: list[str] = []

    def answer(request: RecordedRequest) -> Any:
        first = request.json["messages"][0]["content"]
        prompt = first if isinstance(first, str) else first[0]["text"]
        seen.append(prompt)
        if prompt == "always down":
            return Fault.status(503, "overloaded")
        if prompt == "flaky" and seen.count("flaky") == 1:
            return Fault.status(503, "overloaded")
        if prompt == "flaky" and seen.count("flaky") == 2:
            return Fault.rate_limit(retry_after=0.01)
        return text(f"answered {prompt}")

    with FakeLLMServer(default=answer) as server:
        outcome = run_batch([Job("f", "flaky"), Job("d", "always down"), Job("s", "steady")],
                            workers=1, db=str(tmp_path / "b.sqlite"), root=tmp_path,
                            batch="retry", provider="anthropic",
                            provider_options={"base_url": server.anthropic_base_url})
    states = {j.job_id: j for j in outcome.jobs}
    assert states["f"].state == "done" and seen.count("flaky") == 3
    assert states["f"].result is not None and states["f"].result["final_text"] == "answered flaky"
    assert states["s"].state == "done"
    assert states["d"].state == "failed" and seen.count("always down") == 4
    assert "gave up after 4 attempts" in str(states["d"].error)


def test_a_cancelled_job_is_not_run_and_stays_cancelled(tmp_path: Path) -> None:
    from subagents.batch import cancel, job_statuses

    db = str(tmp_path / "b.sqlite")
    jobs = [Job("keep", "a"), Job("drop", "b")]
    submitted = run_batch(jobs, model=lambda job: ScriptedModel([text("ran")]), workers=0,
                          db=db, root=tmp_path, batch="c")
    assert {j.state for j in submitted.jobs} == {"queued"}
    assert cancel("drop", db=db).state == "cancelled"
    outcome = run_batch(jobs, model=lambda job: ScriptedModel([text("ran")]), workers=1,
                        db=db, root=tmp_path, batch="c")
    assert {j.job_id: j.state for j in outcome.jobs} == {"keep": "done", "drop": "cancelled"}
    assert {s.workflow_id: s.state for s in job_statuses(db)} == {"c/keep": "done",
                                                                  "c/drop": "cancelled"}
