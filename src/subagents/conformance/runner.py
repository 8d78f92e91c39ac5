"""Install a pinned harness CLI from npm and run it once, offline, against the fake model API.

One run: a fresh temporary folder holds the project (a new ``git init`` repository), a fresh
``HOME`` and an output folder.  The caller's ``write(project, home)`` puts the agent files in;
the harness spec (:mod:`subagents.conformance.clis`) adds the settings that point the CLI at
the fake server.  A child process (``python -m subagents.conformance.runner SPEC.json``) runs
inside ``unshare -n`` when possible (a network namespace with only loopback): it brings loopback
up, serves :class:`~subagents.conformance.fakeapi.FakeModelAPI` on the port chosen beforehand,
runs the CLI's headless command and writes ``requests.jsonl``, ``stdout.txt``, ``stderr.txt``
and ``rc`` into the output folder.

Design decisions: installs go to ``$XDG_CACHE_HOME/subagents/<harness>/<version>`` through
``npm install`` of the exact version into a temporary folder renamed into place (reused when
present).  The CLI's environment is built from nothing but PATH, HOME, LANG, the XDG folders
under the temporary HOME and what the spec adds (placeholder keys only); no variable of the
caller's environment other than PATH reaches it.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from subagents.conformance.harness import HarnessError, netns_available
from subagents.conformance.harness import read_jsonl as _read_jsonl
from subagents.conformance.model import write_atomic

__all__ = ["CliRun", "base_env", "cache_dir", "find_cli", "install_cli", "run_cli"]


def cache_dir(harness: str, version: str) -> Path:
    """``$XDG_CACHE_HOME/subagents/<harness>/<version>`` (default ``~/.cache/...``)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "subagents" / harness / version


def find_cli(harness: str, version: str, binary: str) -> Path | None:
    """The installed binary of this harness version in the cache, or None."""
    found = cache_dir(harness, version) / "node_modules" / ".bin" / binary
    return found if found.exists() else None


def install_cli(harness: str, package: str, version: str, binary: str, *,
                log: bool = True) -> Path:
    """``npm install PACKAGE@VERSION`` into the cache (reused when present); the binary."""
    found = find_cli(harness, version, binary)
    if found is not None:
        return found
    npm = shutil.which("npm")
    if npm is None:
        raise HarnessError("npm is not installed; install Node.js to record " + harness)
    target = cache_dir(harness, version)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{version}-", dir=target.parent))
    try:
        write_atomic(staging / "package.json",
                     json.dumps({"name": f"{harness}-pin", "private": True}) + "\n")
        if log:
            print(f"installing {package}@{version} into {target}", file=sys.stderr)
        done = subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--save-exact", f"{package}@{version}"],
            cwd=staging, capture_output=True, text=True, check=False,
        )
        if done.returncode != 0 or not (staging / "node_modules" / ".bin" / binary).exists():
            tail = (done.stderr or done.stdout).strip().splitlines()[-5:]
            raise HarnessError(f"npm install {package}@{version} failed: " + " | ".join(tail))
        try:
            staging.rename(target)
        except OSError:  # another recorder finished first
            if find_cli(harness, version, binary) is None:
                raise
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    found = find_cli(harness, version, binary)
    if found is None:
        raise HarnessError(f"the install in {target} has no node_modules/.bin/{binary}")
    return found


def base_env(home: Path) -> dict[str, str]:
    """The environment every CLI starts from (nothing inherited but PATH)."""
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "NO_COLOR": "1",
        "CI": "1",
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
    }


@dataclass(frozen=True, slots=True)
class CliRun:
    """The raw material of one run (paths inside it are still the temporary ones)."""

    project: Path  # already deleted; used to make paths relative
    home: Path
    requests: list[dict[str, Any]]
    stdout: str
    stderr: str
    logs: str  # the CLI's own log files, when its spec names a log folder
    returncode: int | None
    netns: bool


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])




def _read_logs(folder: Path) -> str:
    if not folder.is_dir():
        return ""
    return "".join(p.read_text("utf-8", errors="replace")
                   for p in sorted(folder.rglob("*")) if p.is_file())


Setup = Callable[[Path, Path, str], tuple[list[str], dict[str, str]]]


def run_cli(
    setup: Setup,
    write: Callable[[Path, Path], object],
    *,
    toolcall: Mapping[str, Any] | None = None,
    delay_after_tool: float = 0.0,
    netns: bool = True,
    timeout: float = 90.0,
    log_dir: str = "",
) -> CliRun:
    """Run a CLI once.

    ``write(project, home)`` fills the fresh project and home; ``setup(project, home, url)``
    writes the harness's settings and returns (argv, extra environment).  ``log_dir`` is a
    folder under HOME whose files are read back as the CLI's own logs.
    """
    work = Path(tempfile.mkdtemp(prefix="sa-harness-"))
    try:
        project, home, out = work / "project", work / "home", work / "out"
        for folder in (project, home, out):
            folder.mkdir()
        subprocess.run(["git", "init", "-q", str(project)], capture_output=True, check=False)
        write(project, home)
        port = _free_port()
        argv, extra = setup(project, home, f"http://127.0.0.1:{port}")
        env = {**base_env(home), **extra}
        use_netns = netns and netns_available()[0]
        spec = {"argv": argv, "env": env, "cwd": str(project), "out": str(out), "port": port,
                "toolcall": dict(toolcall) if toolcall else None,
                "delay_after_tool": delay_after_tool, "timeout": timeout, "netns": use_netns}
        spec_file = work / "spec.json"
        spec_file.write_text(json.dumps(spec), encoding="utf-8")
        command = [sys.executable, "-m", "subagents.conformance.runner", str(spec_file)]
        if use_netns:
            command = ["unshare", "-n", *command]
        child_env = dict(os.environ)
        child_env["PYTHONPATH"] = os.pathsep.join(
            [str(Path(__file__).resolve().parents[2]), child_env.get("PYTHONPATH", "")]
        ).rstrip(os.pathsep)
        done = subprocess.run(command, capture_output=True, text=True, env=child_env,
                              timeout=timeout + 60, check=False)
        rc_text = (out / "rc").read_text() if (out / "rc").exists() else ""
        return CliRun(
            project=project, home=home,
            requests=_read_jsonl(out / "requests.jsonl"),
            stdout=_text(out / "stdout.txt"),
            stderr=_text(out / "stderr.txt") + (done.stderr or "")[-2000:],
            logs=_read_logs(home / log_dir) if log_dir else "",
            returncode=int(rc_text) if rc_text.strip().lstrip("-").isdigit() else None,
            netns=use_netns,
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _text(path: Path) -> str:
    return path.read_text("utf-8", errors="replace") if path.exists() else ""


# ----------------------------------------------------------------------------- inside the namespace


def _loopback_up() -> None:
    for command in (["ip", "link", "set", "lo", "up"], ["ifconfig", "lo", "up"]):
        try:
            if subprocess.run(command, capture_output=True, check=False).returncode == 0:
                return
        except FileNotFoundError:
            continue


def _inner(spec: dict[str, Any]) -> int:
    from subagents.conformance.fakeapi import FakeModelAPI

    out = Path(spec["out"])
    if spec.get("netns"):
        _loopback_up()
    api = FakeModelAPI(out / "requests.jsonl", port=int(spec["port"]),
                       toolcall=spec.get("toolcall"),
                       delay_after_tool=float(spec.get("delay_after_tool") or 0))
    with api, open(out / "stdout.txt", "wb") as stdout, open(out / "stderr.txt", "wb") as err:
        try:
            proc = subprocess.Popen(spec["argv"], cwd=spec["cwd"], env=spec["env"],
                                    stdin=subprocess.DEVNULL, stdout=stdout, stderr=err,
                                    start_new_session=True)
        except OSError as exc:
            err.write(f"could not start {spec['argv'][0]}: {exc}\n".encode())
            (out / "rc").write_text("127")
            return 0
        try:
            rc = proc.wait(timeout=float(spec.get("timeout", 90)))
        except subprocess.TimeoutExpired:
            err.write(b"\n[recorder] timed out; killed\n")
            os.killpg(proc.pid, 9)
            rc = proc.wait()
    (out / "rc").write_text(str(rc), encoding="utf-8")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m subagents.conformance.runner SPEC.json", file=sys.stderr)
        return 2
    return _inner(json.loads(Path(args[0]).read_text(encoding="utf-8")))


if __name__ == "__main__":
    raise SystemExit(main())
