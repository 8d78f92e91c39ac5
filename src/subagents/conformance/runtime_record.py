"""Run a runtime scenario on either side and keep every request: Claude Code, or ``subagents run``.

:func:`run_claude` runs the real Claude Code (``claude -p PROMPT --output-format stream-json
--verbose --permission-mode bypassPermissions``, ``IS_SANDBOX=1``, a fresh HOME) against the
scripted fake API, inside ``unshare -n`` with only loopback when it can (root and ``unshare``);
:func:`run_ours` runs ``subagents run PROMPT --provider anthropic --format json --yes --trust``
in this process against the same server and responder.  Both return a :class:`Capture`, which
:mod:`subagents.conformance.runtime_fingerprint` reduces to structure.

:func:`record_runtime` fingerprints every scenario run through Claude Code into the data that
``data/claude-code-VERSION-runtime.json`` holds; :func:`fingerprint_ours` does the same for this
project's run, for the comparison.

Design decisions: a run's project and home live in a fresh temporary folder that is removed
afterwards; only the structural fingerprint leaves it.  Our side runs in-process through the
click command (what ``subagents run`` executes), with the environment set for the call and the
working folder given as ``--cwd``, so the ordinary tests need no subprocess and no network.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import shutil
import tempfile
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from subagents.conformance.harness import (
    HarnessError,
    netns_available,
    read_jsonl,
    run_inner,
)
from subagents.conformance.runtime_cases import SCENARIOS, Scenario, build_project, responder
from subagents.conformance.runtime_fingerprint import fingerprint

__all__ = [
    "Capture",
    "fingerprint_ours",
    "record_runtime",
    "run_claude",
    "run_ours",
]


@dataclass(frozen=True, slots=True)
class Capture:
    """What one run sent and how it ended (paths let the fingerprint mask them)."""

    requests: list[dict[str, Any]]  # the parsed bodies of every POST /v1/messages
    exit_code: int | None
    stop: str | None  # how the run ended: success, max_turns or error (None: no verdict)
    project: str
    home: str
    problems: tuple[str, ...] = ()


@contextlib.contextmanager
def _workdir(prefix: str) -> Iterator[tuple[Path, Path, Path]]:
    work = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        project, home, out = work / "project", work / "home", work / "out"
        for folder in (project, home, out):
            folder.mkdir()
        build_project(project, home)
        yield project.resolve(), home.resolve(), out
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _messages_requests(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for row in rows:
        path = str(row.get("path", "")).split("?", 1)[0].rstrip("/")
        body = row.get("json")
        if path.endswith("/v1/messages") and isinstance(body, dict):
            out.append(body)
    return out


def _claude_outcome(events: Sequence[dict[str, Any]]) -> str | None:
    """The result event's verdict: ``success``, ``max_turns`` or ``error``."""
    for event in reversed(events):
        if event.get("type") == "result":
            subtype = str(event.get("subtype") or "")
            if subtype == "error_max_turns":
                return "max_turns"
            return "error" if event.get("is_error") or subtype != "success" else "success"
    return None


def _our_outcome(data: Any) -> str | None:
    """Our JSON result's verdict, in the same words as :func:`_claude_outcome`."""
    if not isinstance(data, dict):
        return None
    stop = data.get("stop_reason")
    if stop == "max_turns":
        return "max_turns"
    return "error" if stop == "error" or data.get("error") else "success"


def run_claude(claude: Path, scenario: Scenario, *, netns: bool = True,
               timeout: float = 180.0) -> Capture:
    """Run one scenario through the real Claude Code (see module docstring)."""
    with _workdir("cc-runtime-") as (project, home, out):
        spec = {"claude": str(claude), "project": str(project), "home": str(home),
                "out": str(out), "prompt": scenario.prompt, "args": list(scenario.args),
                "timeout": timeout}
        done = run_inner("subagents.conformance.runtime_inner", spec, out / "spec.json",
                         netns=netns, timeout=timeout)
        rc_file = out / "rc"
        rc_text = rc_file.read_text().strip() if rc_file.exists() else ""
        problems: list[str] = []
        if done.returncode != 0:
            problems.append(f"recorder exited {done.returncode}: {done.stderr.strip()[-300:]}")
        if rc_text == "timeout":
            problems.append(f"Claude Code did not finish within {timeout:g}s")
        requests = _messages_requests(read_jsonl(out / "requests.jsonl"))
        if not requests:
            tail = (out / "stderr.txt").read_text("utf-8", "replace")[-300:] \
                if (out / "stderr.txt").exists() else ""
            problems.append("Claude Code sent no request" + (f": {tail.strip()}" if tail else ""))
        return Capture(requests=requests,
                       exit_code=int(rc_text) if rc_text.lstrip("-").isdigit() else None,
                       stop=_claude_outcome(read_jsonl(out / "stdout.jsonl")),
                       project=str(project), home=str(home), problems=tuple(problems))


def run_ours(scenario: Scenario) -> Capture:
    """Run one scenario through ``subagents run`` in this process (see module docstring)."""
    from click.testing import CliRunner

    from subagents.cli.main import cli
    from subagents.testing.server import FakeLLMServer

    with _workdir("sa-runtime-") as (project, home, _out):
        with FakeLLMServer(default=responder(project)) as server:
            env = {"ANTHROPIC_BASE_URL": server.anthropic_base_url,
                   "ANTHROPIC_API_KEY": "test-key", "HOME": str(home),
                   "USERPROFILE": str(home), "SUBAGENTS_TRANSCRIPT_DIR": None,
                   "ANTHROPIC_MODEL": None, "CLAUDE_CODE_SUBAGENT_MODEL": None,
                   "OPENAI_API_KEY": None, "OPENAI_BASE_URL": None}
            args = ["run", scenario.prompt, "--provider", "anthropic", "--format", "json",
                    "--yes", "--trust", "--no-transcript", "--cwd", str(project),
                    *scenario.args]
            result = CliRunner().invoke(cli, args, env=env, catch_exceptions=True)
            requests = [r.json for r in server.requests
                        if r.api == "anthropic" and isinstance(r.json, dict)]
        problems: list[str] = []
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            problems.append(f"subagents run raised {type(result.exception).__name__}: "
                            f"{result.exception}")
        try:
            data = json.loads(result.stdout or "null")
        except ValueError:
            data = None
        return Capture(requests=requests, exit_code=result.exit_code, stop=_our_outcome(data),
                       project=str(project), home=str(home), problems=tuple(problems))


def fingerprint_ours(scenario: Scenario) -> dict[str, Any]:
    """This project's run of one scenario, fingerprinted like a recording."""
    return fingerprint(scenario, run_ours(scenario))


def record_runtime(claude: Path, version: str, scenarios: Sequence[Scenario] = SCENARIOS, *,
                   jobs: int = 2, netns: bool | None = None,
                   progress: Callable[[str], None] | None = None,
                   previous: dict[str, Any] | None = None) -> dict[str, Any]:
    """Run every scenario through Claude Code; the runtime data file's content.

    With ``previous`` (an earlier recording), scenarios not run now are kept from it.
    """
    if netns is None:
        netns = netns_available()[0]
    if not claude.exists():
        raise HarnessError(f"{claude}: no such file")

    def one(scenario: Scenario) -> tuple[str, dict[str, Any]]:
        capture = run_claude(claude, scenario, netns=netns)
        if progress:
            progress(f"  {scenario.id}: {len(capture.requests)} request(s)"
                     + (f"; problems: {'; '.join(capture.problems)}" if capture.problems else ""))
        return scenario.id, fingerprint(scenario, capture)

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        done = dict(pool.map(one, scenarios))
    kept = dict((previous or {}).get("scenarios") or {})
    kept.update(done)
    return {
        "harness": "claude-code",
        "version": version,
        "recorded": _dt.date.today().isoformat(),
        "netns": netns,
        "scenarios": {key: kept[key] for key in sorted(kept)},
    }
