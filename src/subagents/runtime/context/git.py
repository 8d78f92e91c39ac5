"""A git snapshot of the working folder, taken once, for the first user message.

What Claude Code 2.1.332 sends (measured; the wording in :meth:`GitSnapshot.render` is ours):
a ``<system-reminder>`` block with the current branch, the main branch (the usual target of
pull requests), the git user's name when one is configured, ``git status --short`` (``(clean)``
when empty; cut at 2,000 characters with a line saying how to see the rest) and the last five
commits (``git log --oneline -n 5``).  Outside a git repository there is no block at all.

Safety decisions (the repository may be someone else's, and not trusted):

* Only read-only commands, each with a timeout (:data:`GIT_TIMEOUT`), no pager, no terminal
  prompt, ``--no-optional-locks`` (``status`` must not write the index).
* Nothing the repository's own configuration names is executed: ``core.fsmonitor`` is off,
  ``core.hooksPath`` points nowhere, signatures are not checked in ``log`` (``gpg.program``),
  submodules are not entered, and every ``filter.<name>.clean/smudge/process`` the
  configuration defines is blanked on the command line (``status`` may run a clean filter to
  compare a file whose timestamps changed).  A test plants each of these and checks that
  nothing ran.
* No ``git`` on ``PATH``, not a repository, a repository git refuses (another owner's folder),
  a timeout: no block, and the run goes on.  Only a timeout gets a note (it is surprising);
  the rest is ordinary.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["GIT_TIMEOUT", "STATUS_MAX_CHARS", "GitSnapshot", "git_snapshot", "safe_git_args"]

GIT_TIMEOUT = 5.0
STATUS_MAX_CHARS = 2000
LOG_COUNT = 5

_HARDENING = (
    "--no-pager", "--no-optional-locks",
    "-c", "core.fsmonitor=false",
    "-c", "core.hooksPath=/dev/null",
    "-c", "core.untrackedCache=false",
    "-c", "log.showSignature=false",
    "-c", "diff.external=",
    "-c", "status.submoduleSummary=false",
    "-c", "color.ui=false",
)


@dataclass(frozen=True, slots=True)
class GitSnapshot:
    """The repository as it was when the run started."""

    branch: str
    main_branch: str
    status: str
    commits: str
    user: str | None = None
    status_cut: bool = False

    def render(self) -> str:
        status = self.status or "(clean)"
        if self.status_cut:
            status += (f"\n[cut at {STATUS_MAX_CHARS:,} characters; run `git status` with the "
                       "Bash tool for the rest]")
        lines = [
            "The state of the git repository when this conversation started. It is a "
            "snapshot: it is not updated as work goes on.",
            "",
            f"Current branch: {self.branch}",
            "",
            f"Main branch (usually the base for pull requests): {self.main_branch}",
            "",
        ]
        if self.user:
            lines += [f"Git user: {self.user}", ""]
        lines += ["Status:", status, "", "Recent commits:", self.commits or "(no commits yet)",
                  "", "The harness added this context; the user did not write it and does "
                  "not need it repeated back."]
        return "<system-reminder>\n" + "\n".join(lines) + "\n</system-reminder>"


class _Git:
    def __init__(self, git: str, cwd: Path, timeout: float) -> None:
        self.git = git
        self.cwd = cwd
        self.timeout = timeout
        self.extra: list[str] = []
        env = dict(os.environ)
        for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_EXTERNAL_DIFF"):
            env.pop(name, None)
        env.update({"GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0", "GIT_PAGER": "cat",
                    "PAGER": "cat", "LC_ALL": "C.UTF-8"})
        self.env = env

    def __call__(self, *args: str) -> str | None:
        """stdout of ``git ARGS`` (``None``: it failed)."""
        cmd = [self.git, *_HARDENING, *self.extra, "-C", str(self.cwd), *args]
        done = subprocess.run(cmd, capture_output=True, timeout=self.timeout, env=self.env,
                              stdin=subprocess.DEVNULL, check=False)
        if done.returncode != 0:
            return None
        return done.stdout.decode("utf-8", errors="replace")


def safe_git_args(filter_names: Sequence[str]) -> list[str]:
    """``-c`` options that blank the commands of the given filter drivers."""
    out: list[str] = []
    for name in filter_names:
        for key in ("clean", "smudge", "process"):
            out += ["-c", f"filter.{name}.{key}="]
        out += ["-c", f"filter.{name}.required=false"]
    return out


def _filter_names(config: str) -> list[str]:
    names: list[str] = []
    for line in config.splitlines():
        key = line.split(" ", 1)[0]
        if key.startswith("filter.") and key.count(".") >= 2:
            name = key[len("filter."):key.rindex(".")]
            if name and name not in names:
                names.append(name)
    return names


def git_snapshot(
    cwd: str | os.PathLike[str], *, timeout: float = GIT_TIMEOUT, git: str | None = None,
    notes: list[str] | None = None,
) -> GitSnapshot | None:
    """The snapshot of the repository holding ``cwd``, or ``None`` (see the module)."""
    exe = git or shutil.which("git")
    if exe is None:
        return None
    run = _Git(exe, Path(cwd), timeout)
    try:
        inside = run("rev-parse", "--is-inside-work-tree")
        if inside is None or inside.strip() != "true":
            return None
        filters = run("config", "--get-regexp", r"^filter\.")
        run.extra = safe_git_args(_filter_names(filters or ""))
        branch = (run("rev-parse", "--abbrev-ref", "HEAD") or "").strip()
        if not branch:  # no commit yet: HEAD names a branch that does not exist
            branch = (run("symbolic-ref", "--short", "-q", "HEAD") or "").strip() or "HEAD"
        status = run("status", "--short", "--ignore-submodules=all")
        commits = run("log", "--oneline", "--no-decorate", "--no-show-signature", "-n",
                      str(LOG_COUNT)) or ""
        user = (run("config", "user.name") or "").strip() or None
        main = _main_branch(run)
    except subprocess.TimeoutExpired:
        if notes is not None:
            notes.append(f"git took longer than {timeout:g}s in {cwd}; no git status was "
                         "given to the model")
        return None
    except OSError:
        return None
    text = (status or "").rstrip("\n")
    cut = len(text) > STATUS_MAX_CHARS
    return GitSnapshot(branch=branch, main_branch=main, status=text[:STATUS_MAX_CHARS],
                       commits=commits.strip("\n"), user=user, status_cut=cut)


def _main_branch(run: _Git) -> str:
    remote = (run("symbolic-ref", "--short", "-q", "refs/remotes/origin/HEAD") or "").strip()
    if remote:
        return remote.split("/", 1)[1] if "/" in remote else remote
    for name in ("main", "master"):
        if run("rev-parse", "--verify", "-q", f"refs/heads/{name}") is not None:
            return name
    return "main"
