"""Compare ``subagents run`` with the runtime recording of Claude Code, aspect by aspect.

The recording (``data/claude-code-VERSION-runtime.json``) holds, per scenario, the aspects of
:mod:`subagents.conformance.runtime_fingerprint` for Claude Code's run.  This project's run of
the same scenario is fingerprinted the same way; every aspect either side has is compared by
value.  A difference is one of:

* **deliberate**: listed in ``data/claude-code-VERSION-runtime-differences.json`` under
  ``deliberate`` (scenario and aspect as shell-style patterns, the reason, and optionally
  ``ours``: the one value of ours that is the documented alternative, so that anything else
  still counts as a difference): this project differs on purpose;
* **gap**: listed under ``gaps`` (exact scenario and aspect, and the area whose work closes it):
  known, not yet done;
* **new**: listed nowhere: a regression, or a change nobody has decided on.

A gap that no longer differs is **closed**; a deliberate entry that matches no difference is
**stale**.  :func:`check` reports new differences, closed gaps and stale entries, so a test built
on it fails when something new differs and also when a listed gap closes without being taken off
the list (the list can only shrink honestly: a ratchet).

Design decision: a missing aspect compares as absent (``None``), so a context block, a tool or a
request that only one side has is a difference like any other.
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from subagents.conformance.model import DataFileError

__all__ = [
    "DEFAULT_RUNTIME_VERSION",
    "Differences",
    "ScenarioReport",
    "check",
    "compare_scenario",
    "differences_path",
    "load_differences",
    "load_runtime_recording",
    "report_markdown",
    "report_table",
    "runtime_data_path",
]

DEFAULT_RUNTIME_VERSION = "2.1.332"


def _data_dir() -> Path:
    return Path(str(resources.files("subagents.conformance") / "data"))


def runtime_data_path(version: str = DEFAULT_RUNTIME_VERSION) -> Path:
    return _data_dir() / f"claude-code-{version}-runtime.json"


def differences_path(version: str = DEFAULT_RUNTIME_VERSION) -> Path:
    """The deliberate differences and known gaps against one recorded version."""
    return _data_dir() / f"claude-code-{version}-runtime-differences.json"


def _read(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise DataFileError(f"{path}: {exc}") from exc


def load_runtime_recording(version: str = DEFAULT_RUNTIME_VERSION) -> dict[str, Any]:
    """The recorded runtime data of one Claude Code version."""
    path = runtime_data_path(version)
    if not path.exists():
        raise DataFileError(f"{path}: no runtime recording for Claude Code {version}")
    data = _read(path)
    if not isinstance(data, dict) or not isinstance(data.get("scenarios"), dict):
        raise DataFileError(f"{path}: not a runtime recording (no 'scenarios' object)")
    return data


_ANY = object()  # a deliberate entry without "ours": any value of ours


@dataclass(frozen=True, slots=True)
class Deliberate:
    scenario: str  # patterns
    aspect: str
    reason: str
    ours: Any = _ANY  # when given, only this value of ours is the deliberate difference


@dataclass(frozen=True, slots=True)
class Differences:
    """The documented differences: deliberate ones and known gaps."""

    deliberate: tuple[Deliberate, ...]
    gaps: Mapping[str, Mapping[str, str]]  # scenario -> aspect -> the area that closes it

    def why_deliberate(self, scenario: str, aspect: str, ours: Any = _ANY) -> str | None:
        for entry in self.deliberate:
            if fnmatch.fnmatchcase(scenario, entry.scenario) and \
                    fnmatch.fnmatchcase(aspect, entry.aspect) and \
                    (entry.ours is _ANY or ours is _ANY or entry.ours == ours):
                return entry.reason
        return None

    def gap(self, scenario: str, aspect: str) -> str | None:
        return self.gaps.get(scenario, {}).get(aspect)


def load_differences(path: Path | None = None) -> Differences:
    where = path or differences_path()
    data = _read(where)
    if not isinstance(data, dict):
        raise DataFileError(f"{where}: expected an object")
    deliberate: list[Deliberate] = []
    for index, entry in enumerate(data.get("deliberate") or []):
        if not (isinstance(entry, dict) and all(isinstance(entry.get(k), str) and entry[k]
                                                 for k in ("scenario", "aspect", "reason"))):
            raise DataFileError(f"{where}: deliberate entry {index + 1} needs scenario, "
                                "aspect and reason (non-empty strings)")
        deliberate.append(Deliberate(entry["scenario"], entry["aspect"], entry["reason"],
                                     entry.get("ours", _ANY) if "ours" in entry else _ANY))
    gaps = data.get("gaps") or {}
    if not isinstance(gaps, dict) or not all(
            isinstance(v, dict) and all(isinstance(a, str) and isinstance(n, str)
                                        for a, n in v.items()) for v in gaps.values()):
        raise DataFileError(f"{where}: 'gaps' must map scenario -> aspect -> area")
    return Differences(tuple(deliberate), gaps)


@dataclass(frozen=True, slots=True)
class AspectResult:
    aspect: str
    claude: Any
    ours: Any
    status: str  # agree | deliberate | gap | new
    note: str = ""


@dataclass(frozen=True, slots=True)
class ScenarioReport:
    """One scenario compared: every aspect with its status, and the first-request sizes."""

    id: str
    about: str
    aspects: tuple[AspectResult, ...]
    closed_gaps: tuple[str, ...] = ()
    first_request_chars: Mapping[str, tuple[int | None, int | None]] = field(
        default_factory=dict)  # thread -> (Claude Code, ours)
    problems: tuple[str, ...] = ()

    def count(self, status: str) -> int:
        return sum(1 for a in self.aspects if a.status == status)

    @property
    def total(self) -> int:
        return len(self.aspects)


_ABSENT = None


def compare_scenario(scenario: str, claude: Mapping[str, Any], ours: Mapping[str, Any],
                     differences: Differences) -> ScenarioReport:
    """Compare the two fingerprints of one scenario."""
    theirs_aspects = claude.get("aspects") or {}
    our_aspects = ours.get("aspects") or {}
    results: list[AspectResult] = []
    for aspect in sorted(set(theirs_aspects) | set(our_aspects)):
        a = theirs_aspects.get(aspect, _ABSENT)
        b = our_aspects.get(aspect, _ABSENT)
        if a == b:
            results.append(AspectResult(aspect, a, b, "agree"))
            continue
        reason = differences.why_deliberate(scenario, aspect, b)
        if reason is not None:
            results.append(AspectResult(aspect, a, b, "deliberate", reason))
            continue
        area = differences.gap(scenario, aspect)
        if area is not None:
            results.append(AspectResult(aspect, a, b, "gap", area))
        else:
            results.append(AspectResult(aspect, a, b, "new"))
    differing = {r.aspect for r in results if r.status != "agree"}
    closed = tuple(sorted(a for a in differences.gaps.get(scenario, {}) if a not in differing))
    sizes: dict[str, tuple[int | None, int | None]] = {}
    their_threads = (claude.get("info") or {}).get("threads") or {}
    our_threads = (ours.get("info") or {}).get("threads") or {}
    for thread in sorted(set(their_threads) | set(our_threads)):
        sizes[thread] = ((their_threads.get(thread) or {}).get("first_request_chars"),
                         (our_threads.get(thread) or {}).get("first_request_chars"))
    problems = tuple(f"Claude Code: {p}" for p in claude.get("problems") or ()) + tuple(
        f"ours: {p}" for p in ours.get("problems") or ())
    return ScenarioReport(scenario, str(claude.get("about", "")), tuple(results), closed,
                          sizes, problems)


def check(reports: Sequence[ScenarioReport], differences: Differences, *,
          stale: bool = True) -> list[str]:
    """Everything that should fail a test: new differences, closed gaps, stale entries.

    A deliberate entry is stale when no report it applies to has a difference it matches;
    ``stale=False`` leaves that out (for a check of some scenarios only).
    """
    problems: list[str] = []
    for report in reports:
        for result in report.aspects:
            if result.status == "new":
                problems.append(f"{report.id}: {result.aspect} differs and is not listed: "
                                f"Claude Code {_short(result.claude)}, ours {_short(result.ours)}")
        for aspect in report.closed_gaps:
            problems.append(f"{report.id}: {aspect} agrees now (or is gone): take it off the "
                            "gap list (runtime compare --prune-closed)")
        problems.extend(f"{report.id}: {p}" for p in report.problems)
    for entry in differences.deliberate if stale else ():
        runs = [r for r in reports if fnmatch.fnmatchcase(r.id, entry.scenario)]
        if runs and not any(a.status == "deliberate" and fnmatch.fnmatchcase(a.aspect, entry.aspect)
                            for r in runs for a in r.aspects):
            problems.append(f"deliberate entry {entry.scenario} / {entry.aspect} matches no "
                            "difference any more: remove it or fix its pattern")
    return problems


def _short(value: Any, width: int = 70) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= width else text[: width - 1] + "…"


def report_table(reports: Sequence[ScenarioReport]) -> str:
    """The per-scenario table: agreeing / total, deliberate, gaps, new; first-request sizes."""
    width = max([len(r.id) for r in reports] + [8])
    lines = [f"{'scenario':<{width}}  agree/total  deliberate  gaps  new  first request "
             "(chars, main: Claude Code / ours)"]
    totals = [0, 0, 0, 0, 0]
    for r in reports:
        counts = [r.count("agree"), r.total, r.count("deliberate"), r.count("gap"),
                  r.count("new")]
        totals = [t + c for t, c in zip(totals, counts, strict=True)]
        cc, ours = r.first_request_chars.get("main", (None, None))
        size = f"{cc if cc is not None else '-'} / {ours if ours is not None else '-'}"
        lines.append(f"{r.id:<{width}}  {counts[0]:>5}/{counts[1]:<5}  {counts[2]:>10}  "
                     f"{counts[3]:>4}  {counts[4]:>3}  {size}")
    lines.append(f"{'total':<{width}}  {totals[0]:>5}/{totals[1]:<5}  {totals[2]:>10}  "
                 f"{totals[3]:>4}  {totals[4]:>3}")
    return "\n".join(lines)


def report_markdown(reports: Sequence[ScenarioReport]) -> str:
    """The same table in Markdown (for docs/runtime.md)."""
    lines = ["| scenario | agree / total | deliberate | gaps | new | first request, main "
             "(Claude Code / ours) |", "|---|---|---|---|---|---|"]
    totals = [0, 0, 0, 0, 0]
    for r in reports:
        counts = [r.count("agree"), r.total, r.count("deliberate"), r.count("gap"),
                  r.count("new")]
        totals = [t + c for t, c in zip(totals, counts, strict=True)]
        cc, ours = r.first_request_chars.get("main", (None, None))
        size = " / ".join(f"{v:,}" if v is not None else "-" for v in (cc, ours))
        lines.append(f"| {r.id} | {counts[0]} / {counts[1]} | {counts[2]} | {counts[3]} | "
                     f"{counts[4]} | {size} |")
    lines.append(f"| **total** | **{totals[0]} / {totals[1]}** | **{totals[2]}** | "
                 f"**{totals[3]}** | **{totals[4]}** | |")
    return "\n".join(lines)
