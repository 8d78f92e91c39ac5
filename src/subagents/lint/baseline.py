"""Baselines for ``subagents validate --baseline FILE``: adopt the tool in a big project today,
fail only on findings that are new.

Design notes
------------
* The first run with a FILE that does not exist writes it (every current finding) and passes;
  later runs hide the findings the FILE lists and judge only the rest.  To accept today's
  findings again, delete the FILE (or write it afresh with ``--update-baseline``).
* A finding is matched by its *fingerprint*: the file's path, the rule code and the message --
  not the line or the column, so editing lines above a known finding does not make it "new".
  Paths are stored relative to the baseline file's folder with ``/`` separators, so the same
  baseline works from any working directory and on every OS.  The same finding twice in one
  file is counted: a baseline with one copy hides one, the second is new.
* The file is JSON, sorted and stable (it is meant to be committed and reviewed)::

      {"version": 1, "tool": "subagents",
       "findings": [{"path": "...", "rule": "SA104", "message": "...", "count": 1}, ...]}

  A file that is not such a document is a :class:`~subagents.errors.UsageError` (exit 2),
  never silently an empty baseline.  Writes are atomic (temp file + rename).
"""

from __future__ import annotations

import json
import os
import tempfile
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from subagents.diagnostics import Diagnostic
from subagents.errors import UsageError

__all__ = ["Baseline", "BaselineResult", "apply_baseline", "fingerprint"]

VERSION = 1

Fingerprint = tuple[str, str, str]


def fingerprint(d: Diagnostic, base: Path) -> Fingerprint:
    """``(path relative to base, rule, message)`` for one finding."""
    path = os.path.abspath(os.path.expanduser(d.path))
    try:
        rel = os.path.relpath(path, base)
    except ValueError:  # another drive on Windows
        rel = path
    return (Path(rel).as_posix(), d.rule, d.message)


@dataclass(slots=True)
class Baseline:
    path: Path
    counts: Counter[Fingerprint]

    @classmethod
    def read(cls, path: Path) -> Baseline:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageError(f"cannot read the baseline {path}: {exc}") from exc
        except json.JSONDecodeError as exc:
            raise UsageError(
                f"the baseline {path} is not valid JSON (line {exc.lineno}: {exc.msg})",
                hint="delete it to write a new one from the current findings",
            ) from exc
        findings = data.get("findings") if isinstance(data, dict) else None
        if not isinstance(findings, list):
            raise UsageError(
                f"the baseline {path} is not a subagents baseline (no `findings` list)",
                hint="delete it to write a new one from the current findings",
            )
        counts: Counter[Fingerprint] = Counter()
        for item in findings:
            if not (
                isinstance(item, dict)
                and all(isinstance(item.get(k), str) for k in ("path", "rule", "message"))
            ):
                raise UsageError(
                    f"the baseline {path} has an entry without path/rule/message: {item!r}"[:300]
                )
            count = item.get("count", 1)
            if not isinstance(count, int) or isinstance(count, bool) or count < 1:
                raise UsageError(f"the baseline {path}: `count` must be a positive integer")
            counts[(item["path"], item["rule"], item["message"])] += count
        return cls(path, counts)

    @classmethod
    def of(cls, path: Path, diagnostics: Iterable[Diagnostic]) -> Baseline:
        base = path.absolute().parent
        return cls(path, Counter(fingerprint(d, base) for d in diagnostics))

    def write(self) -> None:
        doc = {
            "version": VERSION,
            "tool": "subagents",
            "findings": [
                {"path": p, "rule": r, "message": m, "count": n}
                for (p, r, m), n in sorted(self.counts.items())
            ],
        }
        text = json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
        folder = self.path.absolute().parent
        try:
            folder.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{self.path.name}.", suffix=".tmp")
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as fh:
                    fh.write(text)
                    fh.flush()
                    os.fsync(fh.fileno())
                os.replace(tmp, self.path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        except OSError as exc:
            raise UsageError(f"cannot write the baseline {self.path}: {exc}") from exc


@dataclass(slots=True)
class BaselineResult:
    kept: list[Diagnostic]  # findings not in the baseline: the ones to report
    hidden: int  # findings the baseline accounts for
    written: bool  # the baseline file was (re)written by this run


def apply_baseline(
    path: Path, diagnostics: list[Diagnostic], *, update: bool = False
) -> BaselineResult:
    """Write the baseline if it is missing (or ``update``), else keep only new findings."""
    if update or not path.exists():
        Baseline.of(path, diagnostics).write()
        return BaselineResult([], len(diagnostics), True)
    known = Baseline.read(path)
    base = path.absolute().parent
    left = Counter(known.counts)
    kept: list[Diagnostic] = []
    for d in diagnostics:
        fp = fingerprint(d, base)
        if left[fp] > 0:
            left[fp] -= 1
        else:
            kept.append(d)
    return BaselineResult(kept, len(diagnostics) - len(kept), False)
