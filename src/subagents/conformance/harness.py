"""Install a pinned Claude Code and run it once against a prepared project, offline.

One run: a fresh temporary folder holds the project (a new ``git init`` repository whose
``.claude/agents`` is written by the caller) and a fresh ``HOME``.  A child process
(``python -m subagents.conformance.inner``) starts :class:`~subagents.testing.server.FakeLLMServer`
in spawn mode on 127.0.0.1 and runs ``claude -p --input-format stream-json --output-format
stream-json --verbose --debug-file LOG`` with ``ANTHROPIC_BASE_URL`` pointing at it.  As root the
child runs inside ``unshare -n``: a network namespace holding only loopback, so nothing can leave
the machine.  The child sends the SDK ``initialize`` control request, then one user message, and
writes ``stdout.jsonl``, ``requests.jsonl`` and ``debug.log`` into the run's output folder.

Design decisions: the install goes to ``$XDG_CACHE_HOME/subagents/claude-code/VERSION`` through
``npm install`` of the exact version (the native binary is an npm dependency), written to a
temporary folder and renamed into place; an existing install is reused.  The environment given
to Claude Code is built from nothing but PATH, HOME, LANG and the variables that point it at the
fake server and turn off traffic, telemetry and updates; no key from the caller's environment
reaches it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from subagents.conformance.model import write_atomic

__all__ = [
    "DEFAULT_VERSION",
    "HarnessError",
    "RunOutput",
    "cache_root",
    "claude_env",
    "find_installed",
    "install",
    "netns_available",
    "run_project",
]

DEFAULT_VERSION = "2.1.330"
PACKAGE = "@anthropic-ai/claude-code"


class HarnessError(RuntimeError):
    """Claude Code could not be installed or run."""


def cache_root() -> Path:
    """``$XDG_CACHE_HOME/subagents/claude-code`` (default ``~/.cache/...``)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "subagents" / "claude-code"


def _binary(folder: Path) -> Path:
    return folder / "node_modules" / ".bin" / "claude"


def find_installed(version: str, root: Path | None = None) -> Path | None:
    """The claude binary of this version in the cache, or None."""
    binary = _binary((root or cache_root()) / version)
    return binary if binary.exists() else None


def install(version: str, root: Path | None = None, *, log: bool = True) -> Path:
    """Install ``@anthropic-ai/claude-code@VERSION`` into the cache (reused when present)."""
    found = find_installed(version, root)
    if found is not None:
        return found
    npm = shutil.which("npm")
    if npm is None:
        raise HarnessError("npm is not installed; install Node.js, or pass --claude PATH")
    target = (root or cache_root()) / version
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{version}-", dir=target.parent))
    try:
        write_atomic(staging / "package.json",
                     json.dumps({"name": "claude-code-pin", "private": True}) + "\n")
        if log:
            print(f"installing {PACKAGE}@{version} into {target}", file=sys.stderr)
        done = subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--save-exact", f"{PACKAGE}@{version}"],
            cwd=staging, capture_output=True, text=True, check=False,
        )
        if done.returncode != 0 or not _binary(staging).exists():
            tail = (done.stderr or done.stdout).strip().splitlines()[-5:]
            raise HarnessError(f"npm install {PACKAGE}@{version} failed: " + " | ".join(tail))
        try:
            staging.rename(target)
        except OSError:  # another recorder finished first
            if find_installed(version, root) is None:
                raise
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    found = find_installed(version, root)
    if found is None:
        raise HarnessError(f"the install in {target} has no node_modules/.bin/claude")
    return found


def claude_version(binary: Path) -> str:
    """The version a binary reports (``2.1.330``), or an empty string."""
    with tempfile.TemporaryDirectory(prefix="cc-version-") as home:
        done = subprocess.run([str(binary), "--version"], capture_output=True, text=True,
                              env=claude_env(home, None), check=False, timeout=60)
    words = done.stdout.split()
    return words[0] if words else ""


def claude_env(home: str, base_url: str | None) -> dict[str, str]:
    """The whole environment Claude Code gets (nothing else is inherited)."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": home,
        "LANG": "C.UTF-8",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_ERROR_REPORTING": "1",
    }
    if base_url is not None:
        env["ANTHROPIC_BASE_URL"] = base_url
        env["ANTHROPIC_API_KEY"] = "test-key"  # a placeholder the fake server accepts
    return env


def netns_available() -> tuple[bool, str]:
    """(usable, why not): ``unshare -n`` needs root and the ``unshare`` tool."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return False, "not running as root"
    if shutil.which("unshare") is None:
        return False, "the unshare tool is not installed"
    return True, ""


@dataclass(frozen=True, slots=True)
class RunOutput:
    """The raw material of one run (read by :mod:`subagents.conformance.extract`)."""

    project: Path  # the project folder (already deleted; used to make paths relative)
    home: Path
    events: list[dict[str, object]]
    requests: list[dict[str, object]]
    debug_log: str
    returncode: int | None
    netns: bool
    stderr: str
    claude_stderr: str = ""  # what Claude Code itself wrote to stderr


def run_inner(module: str, spec: dict[str, object], spec_file: Path, *, netns: bool,
              timeout: float) -> subprocess.CompletedProcess[str]:
    """Run the recorder's inner ``module`` on ``spec`` (written to ``spec_file``), inside
    ``unshare -n`` when ``netns``, with this checkout first on the import path."""
    command = [sys.executable, "-m", module]
    spec["netns"] = netns
    if netns:
        command = ["unshare", "-n", *command]
    spec_file.write_text(json.dumps(spec), encoding="utf-8")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(Path(__file__).resolve().parents[2]), env.get("PYTHONPATH", "")]
    ).rstrip(os.pathsep)
    return subprocess.run([*command, str(spec_file)], capture_output=True, text=True,
                          env=env, timeout=timeout + 60, check=False)


def read_jsonl(path: Path) -> list[dict[str, object]]:
    """The JSON objects of a JSON-lines file (other lines skipped; none if it is missing)."""
    out: list[dict[str, object]] = []
    if path.exists():
        for line in path.read_text("utf-8", errors="replace").splitlines():
            try:
                value = json.loads(line)
            except ValueError:
                continue
            if isinstance(value, dict):
                out.append(value)
    return out


def run_project(
    claude: Path,
    write: Callable[[Path, Path], object],
    *,
    spawn: tuple[str, ...] = (),
    cwd: str = "",
    netns: bool = True,
    timeout: float = 120.0,
    args: Callable[[Path, Path], list[str]] | None = None,
) -> RunOutput:
    """Run Claude Code once.  ``write(project, home)`` fills the fresh project and home;
    ``args(project, home)`` gives extra command-line arguments (``--plugin-dir``, ``--agents``)."""
    work = Path(tempfile.mkdtemp(prefix="cc-conformance-"))
    try:
        project, home, out = work / "project", work / "home", work / "out"
        for folder in (project, home, out):
            folder.mkdir()
        write(project, home)
        subprocess.run(["git", "init", "-q", str(project)], capture_output=True, check=False)
        start = project / cwd if cwd else project
        spec = {"claude": str(claude), "cwd": str(start), "home": str(home),
                "out": str(out), "spawn": list(spawn), "timeout": timeout,
                "extra_args": args(project, home) if args is not None else []}
        use_netns = netns and netns_available()[0]
        done = run_inner("subagents.conformance.inner", spec, work / "spec.json",
                         netns=use_netns, timeout=timeout)
        rc_file = out / "rc"
        rc = int(rc_file.read_text()) if rc_file.exists() and rc_file.read_text() else None
        debug = out / "debug.log"
        claude_err = out / "stderr.txt"
        return RunOutput(
            project=project, home=home,
            events=read_jsonl(out / "stdout.jsonl"),
            requests=read_jsonl(out / "requests.jsonl"),
            debug_log=debug.read_text("utf-8", errors="replace") if debug.exists() else "",
            returncode=rc, netns=use_netns,
            stderr=(done.stderr or "")[-2000:],
            claude_stderr=claude_err.read_text("utf-8", errors="replace")[-4000:]
            if claude_err.exists() else "",
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)
