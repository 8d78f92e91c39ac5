"""The Bash sandbox: bubblewrap (``bwrap``), the way Claude Code confines commands on Linux.

A permission rule says *which* command may run; the sandbox bounds *what it can do*, which is
the only thing that holds against ``python -c ...``, a script written a turn earlier, or a
spelling no rule foresaw.  Each ``Bash`` call becomes::

    bwrap --die-with-parent --new-session --unshare-all [--cap-drop ALL] [--share-net]
          --ro-bind / /  --dev /dev  --proc /proc  --tmpfs /tmp  --tmpfs /run
          --bind CWD CWD  (and each writable folder)
          --ro-bind CWD/.git/config ... (protected paths inside them, read-only again)
          --tmpfs ~/.ssh  --ro-bind /dev/null ~/.netrc ... (credential stores hidden)
          --clearenv --setenv ... (an allowlist of the environment)
          --seccomp FD (socket(AF_UNIX) refused)  --chdir CWD  bash -c COMMAND

* **Root** (containers, CI) gets ``--cap-drop ALL``: with capabilities a command could
  unmount the read-only binds or remount ``/`` writable.
* **Host unix sockets** (D-Bus, docker, ssh and gpg agents) are out of reach: ``/run`` and
  ``/tmp`` are private, and a seccomp filter (:func:`seccomp_fd`) refuses ``socket(AF_UNIX)``
  — the private folders alone leave sockets in the home or working folder reachable.
* **git**: the whole ``.git`` is bound read-only (a bind mount cannot be renamed or removed,
  so it cannot be swapped for a hostile one), and so is every nested ``.git`` (submodules'
  ``.git`` files, nested repositories; :func:`guard` finds them).  A protected path that is a
  symlink is put back after the call if the command replaced it (:func:`undo`).

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
* **Environment** by allowlist (:data:`PASSED_NAMES`: locale, terminal, home, toolchain
  folders), never a name that looks like a secret (:func:`scrubbed_environ`); the usual
  credential files in the home folder are hidden.
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

from subagents.runtime.protected import PROTECTED_DIRS, PROTECTED_FILES, PROTECTED_SUBPATHS

__all__ = [
    "CREDENTIAL_NAME",
    "PASSED_NAMES",
    "Guard",
    "SandboxSettings",
    "bwrap_argv",
    "describe",
    "guard",
    "guarded_paths",
    "move_aside_created",
    "scrubbed_environ",
    "seccomp_fd",
    "unavailable",
    "undo",
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
#: moved aside after the call when the command created them); ``.git`` comes on top, whole
#: (a bind mount cannot be renamed or removed: the command cannot swap it for its own).
_PROTECTED_IN_ROOT = (*(d for d in PROTECTED_DIRS if d != ".git"), *PROTECTED_FILES,
                      *PROTECTED_SUBPATHS)


@dataclass(frozen=True, slots=True)
class SandboxSettings:
    """How ``Bash`` commands are confined; see the module docstring."""

    mode: SandboxMode = "required"
    #: allow network access (otherwise the command has only a loopback interface of its own)
    network: bool = False
    #: writable folders besides the working folder (config ``writable-dirs``)
    writable: tuple[Path, ...] = ()


#: The variables a command or hook may see (issue 20: by allowlist, since no pattern of
#: secret names is ever complete: ``DATABASE_URL``, ``MYSQL_PWD``, ``BW_SESSION``,
#: ``SENTRY_DSN``...).  Locale, terminal, home and the toolchains' own folders; nothing that
#: can hold a URL with a password or a session.
PASSED_NAMES = frozenset({
    "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TERM", "COLORTERM", "TZ",
    "TMPDIR", "COLUMNS", "LINES", "NO_COLOR", "FORCE_COLOR", "CLICOLOR", "CLICOLOR_FORCE",
    "EDITOR", "VISUAL", "PAGER", "HOSTNAME", "SHLVL", "XDG_CONFIG_HOME", "XDG_DATA_HOME",
    "XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_DATA_DIRS", "XDG_CONFIG_DIRS", "JAVA_HOME",
    "GOPATH", "GOROOT", "GOCACHE", "GOMODCACHE", "CARGO_HOME", "RUSTUP_HOME", "NVM_DIR",
    "NODE_PATH", "PYENV_ROOT", "VIRTUAL_ENV", "CONDA_PREFIX", "CONDA_DEFAULT_ENV", "PYTHONPATH",
    "PYTHONIOENCODING", "PYTHONUTF8", "PYTHONDONTWRITEBYTECODE", "GEM_HOME", "GEM_PATH",
    "RBENV_ROOT", "SDKMAN_DIR", "DENO_DIR", "BUN_INSTALL", "PNPM_HOME", "CI",
})
_PASSED_PREFIXES = ("LC_",)


def scrubbed_environ(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The variables of ``environ`` (default: this process's) a sandboxed command or a hook
    may see: those named in :data:`PASSED_NAMES` (and ``LC_*``), never one that looks like
    a credential."""
    env = os.environ if environ is None else environ
    return {k: v for k, v in env.items()
            if (k in PASSED_NAMES or k.startswith(_PASSED_PREFIXES))
            and not CREDENTIAL_NAME.search(k)}


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


#: Folders never walked when looking for nested ``.git`` entries (vendored trees; a
#: submodule there is still found through ``.gitmodules``), and how many folders one walk
#: may visit, so a huge tree costs a bounded time per call.
_NO_WALK = frozenset({"node_modules", ".venv", "venv", "__pycache__", ".tox", ".mypy_cache",
                      ".pytest_cache", ".ruff_cache", "target", ".gradle"})
_WALK_LIMIT = 20_000


def _nested_git(root: Path) -> list[Path]:
    """Every ``.git`` (file or folder) below ``root`` but not at its top: submodules, nested
    repositories, worktrees.  Read from ``.gitmodules`` and by a bounded walk that never
    follows a link."""
    found: dict[Path, None] = {}
    try:
        text = (root / ".gitmodules").read_text("utf-8", "replace")
    except OSError:
        text = ""
    for m in re.finditer(r"(?m)^\s*path\s*=\s*(.+?)\s*$", text):
        p = root / m.group(1) / ".git"
        if os.path.lexists(p) and p.resolve().is_relative_to(root):
            found[p] = None
    stack, visited = [root], 0
    while stack and visited < _WALK_LIMIT:
        folder = stack.pop()
        visited += 1
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for e in entries:
            if e.name == ".git":
                if folder != root:
                    found[Path(e.path)] = None
                continue
            if e.name in _NO_WALK:
                continue
            try:
                if e.is_dir(follow_symlinks=False):
                    stack.append(Path(e.path))
            except OSError:
                continue
    return list(found)


@dataclass(frozen=True, slots=True)
class Guard:
    """What a call must undo once the sandbox is gone: protected paths that did not exist
    (whatever the command created there is moved aside), and protected paths that are
    symlinks (a link replaced by the command is moved aside and put back)."""

    missing: tuple[Path, ...] = ()
    links: tuple[tuple[Path, str], ...] = ()
    #: every nested ``.git`` found (so :func:`bwrap_argv` does not walk the tree again)
    nested: tuple[Path, ...] = ()


def guard(cwd: Path, settings: SandboxSettings) -> Guard:
    """The :class:`Guard` of a call about to run in ``cwd``."""
    missing: list[Path] = []
    links: list[tuple[Path, str]] = []
    nested: list[Path] = []
    for root in _roots(cwd, settings):
        for p in [*(root / name for name in (*_PROTECTED_IN_ROOT, ".git"))]:
            try:
                if not os.path.lexists(p):
                    missing.append(p)
                elif p.is_symlink():
                    links.append((p, os.readlink(p)))
            except OSError:
                continue
        for p in _nested_git(root):
            nested.append(p)
            if p.is_symlink():
                links.append((p, os.readlink(p)))
    return Guard(tuple(missing), tuple(links), tuple(nested))


def guarded_paths(cwd: Path, settings: SandboxSettings) -> list[Path]:
    """The protected paths at the top of the writable folders that do not exist yet (a
    sandboxed command could create them; see the module docstring)."""
    return list(guard(cwd, settings).missing)


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


def undo(g: Guard) -> list[tuple[Path, Path]]:
    """After the call: move aside what the command created at a protected path, and put
    back each protected symlink it replaced (its replacement moved aside); the ``(path,
    new path)`` pairs moved."""
    moved = move_aside_created(g.missing)
    for link, target in g.links:
        try:
            if os.path.islink(link) and os.readlink(link) == target:
                continue
        except OSError:
            pass
        moved += move_aside_created([link])
        try:
            os.symlink(target, link)
        except OSError:
            continue
    return moved


def _seccomp_program() -> bytes | None:
    """A seccomp filter refusing ``socket(AF_UNIX, ...)`` (``EPERM``), so no host unix
    socket (D-Bus, docker, ssh and gpg agents) can be reached from any path the sandbox
    can see; other architectures' system calls (32-bit programs on a 64-bit kernel, which
    could go round it) fail.  ``None`` where the machine's system-call numbers are not
    known here (the private ``/run`` and ``/tmp`` still hold)."""
    import platform
    import struct

    machine = platform.machine()
    if sys.byteorder != "little":
        return None
    if machine in ("x86_64", "AMD64"):
        arch, nr, alt = 0xC000003E, 41, 0x40000000 | 41  # x32's socket() too
    elif machine in ("aarch64", "arm64"):
        arch, nr, alt = 0xC00000B7, 198, 198
    else:
        return None
    ld, jeq, ret = 0x20, 0x15, 0x06
    errno = 0x00050000 | 1  # SECCOMP_RET_ERRNO | EPERM
    allow = 0x7FFF0000
    prog = [(ld, 0, 0, 4),          # 0: arch
            (jeq, 1, 0, arch),      # 1: native -> 3
            (ret, 0, 0, errno),     # 2: any other ABI: refused
            (ld, 0, 0, 0),          # 3: syscall number
            (jeq, 1, 0, nr),        # 4: socket -> 6
            (jeq, 0, 3, alt),       # 5: x32 socket -> 6, else allow
            (ld, 0, 0, 16),         # 6: args[0], low word (the domain)
            (jeq, 0, 1, 1),         # 7: AF_UNIX -> 8, else allow
            (ret, 0, 0, errno),     # 8
            (ret, 0, 0, allow)]     # 9
    return b"".join(struct.pack("=HBBI", *ins) for ins in prog)


def seccomp_fd() -> int | None:
    """A file descriptor holding :func:`_seccomp_program` for ``bwrap --seccomp`` (the caller
    passes it to the child and closes it), or ``None`` where there is no program."""
    prog = _seccomp_program()
    if prog is None:
        return None
    fd = os.memfd_create("subagents-seccomp") if hasattr(os, "memfd_create") else -1
    if fd < 0:
        return None
    os.write(fd, prog)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _private_run() -> list[str]:
    """A private ``/run`` (and ``/var/run`` where it is its own folder): the host's sockets
    live there.  The resolver file it may hold (``/etc/resolv.conf`` is often a link into
    it) is bound back read-only."""
    argv = ["--tmpfs", "/run"]
    if os.path.isdir("/var/run") and not os.path.islink("/var/run"):
        argv += ["--tmpfs", "/var/run"]
    try:
        resolv = os.path.realpath("/etc/resolv.conf")
    except OSError:
        return argv
    if resolv.startswith(("/run/", "/var/run/")) and os.path.isfile(resolv):
        argv += ["--ro-bind", resolv, resolv]
    return argv


def bwrap_argv(command: str, *, cwd: Path, settings: SandboxSettings,
               shell: str = "/bin/bash", environ: Mapping[str, str] | None = None,
               home: Path | None = None, chdir: Path | None = None,
               seccomp: int | None = None, guarded: Guard | None = None) -> list[str]:
    """The ``bwrap`` command line that runs ``shell -c command`` confined to ``cwd``
    (starting in ``chdir``, a folder inside it: the main thread's shell keeps its ``cd``);
    ``seccomp``: a descriptor from :func:`seccomp_fd`, inherited by bwrap; ``guarded``: the
    call's :class:`Guard`, whose nested ``.git`` list is used instead of walking again."""
    bwrap = shutil.which("bwrap") or "bwrap"
    argv = [bwrap, "--die-with-parent", "--new-session", "--unshare-all"]
    if os.geteuid() == 0:
        # root keeps every capability inside otherwise: umount the read-only binds, remount /
        argv += ["--cap-drop", "ALL"]
    if settings.network:
        argv.append("--share-net")
    argv += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
             *_private_run()]
    roots = _roots(cwd, settings)
    for root in roots:
        argv += ["--bind", str(root), str(root)]
    for root in roots:
        top = [root / name for name in (*_PROTECTED_IN_ROOT, ".git")]
        nested = [p for p in guarded.nested if p.is_relative_to(root)] if guarded is not None \
            else _nested_git(root)
        for p in _existing([*top, *nested]):
            # the real target of a symlink, so what it points to stays read-only; the link
            # itself is put back after the call if the command replaces it (:func:`undo`)
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
    if seccomp is not None:
        argv += ["--seccomp", str(seccomp)]
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

