"""Jobs of a batch: read from a JSONL file (one job a line) or made one per folder.

A line is a JSON object ``{"id": "...", "prompt": "...", "agent": "name", "cwd": "path",
"model": "..."}``; ``agent``, ``cwd`` and ``model`` are optional.  Design decisions:

* **A bad line is reported, the others still run.**  :func:`read_jobs` returns the jobs it
  could read and a :class:`JobProblem` (file, line number, what is wrong) for each line it
  could not; the caller prints them and goes on.  Blank lines and lines starting with ``#``
  are skipped.
* **A duplicate id refuses the whole file before anything starts** (:func:`check_unique`):
  the id is the key that makes a re-run skip finished jobs, so two jobs sharing one would
  silently be one.
* **Paths are settled at submit time.**  A relative ``cwd`` is taken from the JOBS file's
  folder and made absolute, so a worker on another machine gets the same path (it must
  exist there too).
* **Ids are the user's words**, limited to what is safe in a file name and a workflow key:
  letters, digits and ``._-:@/+``, at most 200 characters.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from subagents.errors import UsageError

__all__ = [
    "Job",
    "JobProblem",
    "check_unique",
    "jobs_over",
    "parse_job",
    "read_jobs",
    "slug",
]

_ID = re.compile(r"^[A-Za-z0-9._\-:@/+]{1,200}$")
_KEYS = frozenset({"id", "prompt", "agent", "cwd", "model"})


@dataclass(frozen=True, slots=True)
class Job:
    """One task of a batch: a prompt, optionally for a named agent, in a working folder."""

    id: str
    prompt: str
    agent: str | None = None
    cwd: str | None = None
    model: str | None = None
    line: int | None = field(default=None, compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "prompt": self.prompt, "agent": self.agent, "cwd": self.cwd,
                "model": self.model}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Job:
        return cls(id=str(data["id"]), prompt=str(data["prompt"]), agent=data.get("agent"),
                   cwd=data.get("cwd"), model=data.get("model"))


@dataclass(frozen=True, slots=True)
class JobProblem:
    """A line that is not a job: where, and why."""

    path: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


def _optional_str(data: Mapping[str, Any], key: str) -> str | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"`{key}` must be a non-empty string")
    return value.strip()


def parse_job(data: Any, *, base: Path | None = None, line: int | None = None) -> Job:
    """A job from a decoded JSON value (``ValueError`` with a short reason if it is not one).

    ``base`` is the folder a relative ``cwd`` is taken from."""
    if not isinstance(data, Mapping):
        raise ValueError(f"a job is a JSON object, not {type(data).__name__}")
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        raise ValueError(f"unknown key(s) {', '.join(unknown)} (a job has "
                         f"{', '.join(sorted(_KEYS))})")
    raw_id = data.get("id")
    if isinstance(raw_id, bool) or not isinstance(raw_id, (str, int)):
        raise ValueError("`id` is missing (a string or a number)")
    job_id = str(raw_id).strip()
    if not _ID.match(job_id) or ".." in job_id.split("/"):
        raise ValueError(f"`id` {job_id!r} may only hold letters, digits and ._-:@/+ "
                         "(at most 200 characters)")
    prompt = data.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        raise ValueError("`prompt` is missing or empty")
    cwd = _optional_str(data, "cwd")
    if cwd is not None:
        folder = Path(cwd).expanduser()
        if not folder.is_absolute() and base is not None:
            folder = base / folder
        cwd = str(folder.resolve())
    return Job(id=job_id, prompt=prompt, agent=_optional_str(data, "agent"), cwd=cwd,
               model=_optional_str(data, "model"), line=line)


def read_jobs(path: Path | str) -> tuple[list[Job], list[JobProblem]]:
    """The jobs of a JSONL file, and the lines that are not jobs (with their numbers).

    Raises :class:`UsageError` only when the file itself cannot be read."""
    file = Path(path)
    try:
        raw = file.read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read the jobs file {file}: {exc.strerror or exc}",
                         hint="give a JSONL file: one job a line, e.g. "
                              '{"id": "1", "prompt": "Review README.md"}') from None
    shown = str(path)
    jobs: list[Job] = []
    problems: list[JobProblem] = []
    base = file.resolve().parent
    for number, line in enumerate(raw.split(b"\n"), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith(b"#"):
            continue
        try:
            text = stripped.decode("utf-8")
        except UnicodeDecodeError as exc:
            problems.append(JobProblem(shown, number, f"not UTF-8 (byte {exc.start + 1})"))
            continue
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            problems.append(JobProblem(shown, number,
                                       f"not valid JSON: {exc.msg} at column {exc.colno}"))
            continue
        try:
            jobs.append(parse_job(data, base=base, line=number))
        except ValueError as exc:
            problems.append(JobProblem(shown, number, str(exc)))
    return jobs, problems


def check_unique(jobs: Sequence[Job], source: str = "the jobs") -> None:
    """:class:`UsageError` naming the first id used twice (and both lines), if any."""
    seen: dict[str, Job] = {}
    for job in jobs:
        first = seen.get(job.id)
        if first is not None:
            where = (f" (lines {first.line} and {job.line})"
                     if first.line is not None and job.line is not None else "")
            raise UsageError(f"{source}: the id {job.id!r} is used twice{where}; nothing was "
                             "started", hint="every job needs its own id: it is the key that "
                                             "lets a re-run skip finished jobs")
        seen[job.id] = job


def jobs_over(prompt: str, folders: Iterable[Path | str]) -> list[Job]:
    """One job per folder, with ``prompt`` and the folder as its working folder; the id is
    the folder's name (with a short hash of its full path when two names clash)."""
    if not prompt.strip():
        raise UsageError("--prompt is empty; give the task every folder gets")
    resolved: list[Path] = []
    for folder in folders:
        p = Path(folder).expanduser()
        if not p.is_dir():
            raise UsageError(f"--over {folder}: not a folder")
        resolved.append(p.resolve())
    if not resolved:
        raise UsageError("--over needs at least one folder")
    names = [p.name or "root" for p in resolved]
    jobs: list[Job] = []
    for p, name in zip(resolved, names, strict=True):
        job_id = slug(name)
        if names.count(name) > 1:
            job_id = f"{job_id}-{hashlib.sha256(str(p).encode()).hexdigest()[:8]}"
        jobs.append(Job(id=job_id, prompt=prompt, cwd=str(p)))
    return jobs


def slug(text: str, limit: int = 60) -> str:
    """``text`` as a file-name-safe piece (ids and batch names become folder names)."""
    out = re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-.")[:limit]
    return out or "job"
