"""The Bash sandbox: bubblewrap (``bwrap``), the way Claude Code confines commands on Linux.

A permission rule says *which* command may run; the sandbox bounds *what it can do*, which is
the only thing that holds against ``python -c ...``, a script written a turn earlier, or a
spelling no rule foresaw.  Each ``Bash`` call becomes::

    bwrap --die-with-parent --new-session --unshare-all [--share-net]
          --ro-bind / /  --dev /dev  --proc /proc  --tmpfs /tmp
          --bind CWD CWD  (and each writable folder)
          --ro-bind CWD/.git/config ... (protected paths inside them, read-only again)
          --tmpfs ~/.ssh  --ro-bind /dev/null ~/.netrc ... (credential stores hidden)
          --clearenv --setenv ... (the environment minus credentials)
          --chdir CWD  bash -c COMMAND

* **Writes** only in the working folder(s) and a private ``/tmp`` that vanishes with the call;
  at the top of each of them, the protected paths of :mod:`subagents.runtime.protected` that
  exist (``.git/config``, ``.git/hooks``, ``.claude``, ``.subagents.toml``...; ``.git`` itself
  when it is a file, as in a git worktree) are mounted read-only again, so a shell command
  cannot do what the file tools may not.
* **Protected paths that do not exist yet** cannot be mounted over: bubblewrap creates a
  missing mount point in the real folder first (checked with bwrap 0.8: an empty
  ``.subagents.toml`` is left behind), and ``--ro-bind-try`` skips a missing *source*, not a
  missing target.  So they are guarded after the fact: :func:`guarded_paths` lists them before
  the call, and :func:`move_aside_created` renames whatever the command created there to
  ``NAME.blocked-XXXXXX`` once the call is over — when the PID namespace guarantees that no
  process of the command is left to write again.  Renamed, not deleted: nothing is lost if
  the user created the same path in the meantime.  The path exists *during* the call: the
  command itself (confined) and the user's other programs could read it then; this run never
  does (its agents, config and settings were read when it started).
* **Network**: none (own network namespace, loopback only) unless the settings allow it.
* **Processes**: own PID namespace (``--unshare-pid``): ``/proc`` shows only the command's own
  processes, so ``/proc/$PPID/environ`` of the runner is out of reach; when the command ends,
  bwrap's init exits and the kernel kills every process left in the namespace, ``setsid``
  and double-forked daemons included; ``--die-with-parent`` ends it if the runner dies.
* **Environment** without credentials: variables whose names look like secrets (``*_API_KEY``,
  ``*TOKEN*``, ``*SECRET*``, ``*PASSWORD*``, ``AWS_*``...) are not passed
  (:func:`scrubbed_environ`), and the usual credential files in the home folder are hidden.
* **Reads** stay possible outside the working folder (compilers, libraries, the user's tools
  need them), except the hidden credential stores.

Where bwrap is missing or cannot create namespaces (some containers), :func:`unavailable`
says why, and the setting decides (:class:`SandboxSettings`): ``required`` refuses the call
with that reason, ``ask`` asks the user each time (a blanket ``--yes`` does not count), ``off``
runs without a sandbox (the user's explicit choice).

Tool choice: bubblewrap is what Claude Code (sandbox-runtime) and Flatpak use, in Debian and
every major distribution, one binary with no daemon; Landlock + seccomp (Codex) would need
our own C or a Rust extension.  Measured cost: ``bench/bench_sandbox.py`` (about 15-20 ms per
call on top of starting bash, on the 2-core machine this was written on: small next to a model
turn).
"""

from __future__ import annotations

import functools
import os
import re
import secrets
import shutil
import subprocess
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from subagents.runtime.protected import PROTECTED_DIRS, PROTECTED_FILES

__all__ = [
    "CREDENTIAL_NAME",
    "SandboxSettings",
    "bwrap_argv",
    "describe",
    "guarded_paths",
    "move_aside_created",
    "scrubbed_environ",
    "unavailable",
]

SandboxMode = Literal["required", "ask", "off"]

#: Environment variable names treated as credentials (never passed to commands or hooks).
CREDENTIAL_NAME = re.compile(
    r"(?i)(API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|PRIVATE_?KEY|"
    r"ACCESS_?KEY|SESSION_?KEY|AUTH|COOKIE|^AWS_|^AZURE_|^GOOGLE_APPLICATION|^ANTHROPIC_|"
    r"^OPENAI_|^GH_|^GITHUB_|^GITLAB_|^NPM_CONFIG_|^PYPI_|^TWINE_|^HF_|^HUGGING)")

#: Credential stores below the home folder, hidden inside the sandbox.
_HOME_SECRETS = (".ssh", ".aws", ".gnupg", ".azure", ".kube", ".docker", ".config/gcloud",
                 ".config/gh", ".config/hub", ".netrc", ".git-credentials", ".npmrc", ".pypirc",
                 ".claude/.credentials.json", ".codex/auth.json", ".anthropic",
                 ".config/anthropic", ".password-store", ".local/share/keyrings")

#: At the top of a writable folder, these are mounted read-only again when they exist (and
#: moved aside after the call when the command created them); ``.git``'s parts when it is a
#: folder, else ``.git`` itself.
_PROTECTED_IN_ROOT = (*(d for d in PROTECTED_DIRS if d != ".git"), *PROTECTED_FILES)
_GIT_PARTS = (".git/config", ".git/hooks", ".git/info", ".git/modules")


@dataclass(frozen=True, slots=True)
class SandboxSettings:
    """How ``Bash`` commands are confined; see the module docstring."""

    mode: SandboxMode = "required"
    #: allow network access (otherwise the command has only a loopback interface of its own)
    network: bool = False
    #: writable folders besides the working folder (config ``writable-dirs``)
    writable: tuple[Path, ...] = ()


def scrubbed_environ(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """``environ`` (default: this process's) without variables that look like credentials."""
    env = os.environ if environ is None else environ
    return {k: v for k, v in env.items() if not CREDENTIAL_NAME.search(k)}


@functools.cache
def _probe(bwrap: str) -> str | None:
    try:
        proc = subprocess.run(
            [bwrap, "--die-with-parent", "--unshare-all", "--ro-bind", "/", "/",
             "--proc", "/proc", "--dev", "/dev", "true"],
            capture_output=True, timeout=20, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"bwrap could not be started: {exc}"
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        return ("bwrap cannot create namespaces here"
                + (f" ({err[-1]})" if err else "") + "; user namespaces may be disabled")
    return None


def unavailable() -> str | None:
    """Why commands cannot be sandboxed on this machine, or ``None`` if they can."""
    if not sys.platform.startswith("linux"):
        return "the Bash sandbox uses bubblewrap, which needs Linux"
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return ("bubblewrap (bwrap) is not installed; install it (Debian/Ubuntu: "
                "apt-get install bubblewrap)")
    return _probe(bwrap)


def _existing(paths: Iterable[Path]) -> list[Path]:
    out = []
    for p in paths:
        try:
            if p.exists() or p.is_symlink():
                out.append(p)
        except OSError:
            continue
    return out


def _roots(cwd: Path, settings: SandboxSettings) -> list[Path]:
    return [cwd.resolve(), *(Path(p).resolve() for p in settings.writable)]


def _protected_in(root: Path) -> list[Path]:
    git = root / ".git"
    try:
        parts = _GIT_PARTS if git.is_dir() else (".git",)
    except OSError:
        parts = (".git",)
    return [root / name for name in (*_PROTECTED_IN_ROOT, *parts)]


def guarded_paths(cwd: Path, settings: SandboxSettings) -> list[Path]:
    """The protected paths at the top of the writable folders that do not exist yet (a
    sandboxed command could create them; see the module docstring)."""
    out: list[Path] = []
    for root in _roots(cwd, settings):
        for p in _protected_in(root):
            try:
                if not os.path.lexists(p):
                    out.append(p)
            except OSError:
                continue
    return out


def move_aside_created(paths: Iterable[Path]) -> list[tuple[Path, Path]]:
    """Rename each of ``paths`` that exists now to ``NAME.blocked-XXXXXX`` (never following
    a symlink); the ``(path, new path)`` pairs moved."""
    moved: list[tuple[Path, Path]] = []
    for p in paths:
        try:
            if not os.path.lexists(p):
                continue
            target = p.with_name(f"{p.name}.blocked-{secrets.token_hex(3)}")
            os.rename(p, target)  # the link itself, not what it points to
        except OSError:
            continue
        moved.append((p, target))
    return moved


def bwrap_argv(command: str, *, cwd: Path, settings: SandboxSettings,
               shell: str = "/bin/bash", environ: Mapping[str, str] | None = None,
               home: Path | None = None, chdir: Path | None = None) -> list[str]:
    """The ``bwrap`` command line that runs ``shell -c command`` confined to ``cwd``
    (starting in ``chdir``, a folder inside it: the main thread's shell keeps its ``cd``)."""
    bwrap = shutil.which("bwrap") or "bwrap"
    argv = [bwrap, "--die-with-parent", "--new-session", "--unshare-all"]
    if settings.network:
        argv.append("--share-net")
    argv += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
    roots = _roots(cwd, settings)
    for root in roots:
        argv += ["--bind", str(root), str(root)]
    for root in roots:
        for p in _existing(_protected_in(root)):
            # the real target of a symlink, so the link cannot be swapped underneath
            real = p.resolve()
            if any(real.is_relative_to(r) for r in roots):
                argv += ["--ro-bind", str(real), str(real)]
    home_dir = home or Path(os.path.expanduser("~"))
    for p in _existing(home_dir / s for s in _HOME_SECRETS):
        real = p.resolve()
        if any(r.is_relative_to(real) for r in roots):
            continue  # never hide the working folder itself
        if real.is_dir():
            argv += ["--tmpfs", str(real)]
        else:
            argv += ["--ro-bind", "/dev/null", str(real)]
    argv.append("--clearenv")
    for k, v in sorted(scrubbed_environ(environ).items()):
        if "\x00" in k or "\x00" in v or "=" in k or not k:
            continue
        argv += ["--setenv", k, v]
    argv += ["--setenv", "TMPDIR", "/tmp", "--chdir", str((chdir or cwd).resolve()), shell, "-c",
             command]
    return argv


def describe(settings: SandboxSettings | None) -> str:
    """One line for ``doctor``/warnings: how commands will be confined."""
    if settings is None or settings.mode == "off":
        return "Bash runs without a sandbox"
    reason = unavailable()
    if reason:
        return f"Bash sandbox unavailable: {reason}"
    net = "with network" if settings.network else "no network"
    return f"Bash runs in a bubblewrap sandbox ({net})"

