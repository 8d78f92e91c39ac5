"""Conformance data: what real harnesses do with agent files, recorded case by case.

``python -m subagents.conformance record`` runs the real Claude Code (installed at a pinned
version, offline, against the project's own fake API server) on every case of
:mod:`subagents.conformance.cases` and writes what it did to
``data/claude-code-VERSION.json``.  Tests compare the project's own emulation with that data::

    from subagents.conformance import CASES, load_expectations, materialise_case

    recording = load_expectations()              # the newest recorded version
    for case in CASES:
        expected = recording.case(case.id)       # agents, files, debug lines, spawns
        agents_dir, user_dir = materialise_case(case, tmp_path / "project", tmp_path / "home")

A Claude Code version is data: a new version is a new file beside the old ones
(see docs/conformance.md).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable
from importlib import resources
from pathlib import Path
from typing import Any

from subagents.conformance.casekit import Case
from subagents.conformance.cases import CASES, case_by_id
from subagents.conformance.hmodel import HRecording
from subagents.conformance.model import (
    BuiltinAgent,
    CaseResult,
    CorpusEntry,
    CorpusRecording,
    DataFileError,
    FileResult,
    LoadedAgent,
    Recording,
    SpawnResult,
)

ReadFn = Callable[[str, str], Iterable[Any]]

__all__ = [
    "CASES",
    "BuiltinAgent",
    "Case",
    "CaseResult",
    "CorpusEntry",
    "CorpusRecording",
    "DataFileError",
    "FileResult",
    "HRecording",
    "LoadedAgent",
    "Recording",
    "SpawnResult",
    "available_versions",
    "case_by_id",
    "compare_harness",
    "data_dir",
    "data_path",
    "harness_data_path",
    "load_corpus_expectations",
    "load_expectations",
    "load_harness_recording",
    "materialise_case",
]

_FILE = re.compile(r"^claude-code-(\d+(?:\.\d+)*)\.json$")


def data_dir() -> Path:
    """The folder holding the recorded data files (``SUBAGENTS_CLAUDE_CODE_DATA`` overrides)."""
    from subagents.claude_code.profile import DATA_ENV

    if os.environ.get(DATA_ENV):
        return Path(os.environ[DATA_ENV])
    return Path(str(resources.files("subagents.conformance") / "data"))


def data_path(version: str, *, corpus: bool = False) -> Path:
    suffix = "-corpus" if corpus else ""
    return data_dir() / f"claude-code-{version}{suffix}.json"


def harness_data_path(harness: str, version: str) -> Path:
    """``data/<harness>-<version>.json`` for one of the other harnesses."""
    return data_dir() / f"{harness}-{version}.json"


def load_harness_recording(harness: str, version: str | None = None) -> HRecording:
    """The recorded cases of one other harness (default: its pinned version)."""
    from subagents.conformance.clis import cli_spec

    path = harness_data_path(harness, version or cli_spec(harness).version)
    if not path.exists():
        raise DataFileError(f"{path}: no recording for {harness}")
    return HRecording.from_json(_read(path), str(path))


def compare_harness(harness: str, read: ReadFn, version: str | None = None
                    ) -> dict[str, list[str]]:
    """Replay every recorded case of ``harness`` through ``read(text, path)``; the differences.

    See :func:`subagents.conformance.hrecord.compare_harness`.
    """
    from subagents.conformance.hcompare import compare_harness as _compare

    return _compare(load_harness_recording(harness, version), read)


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def available_versions() -> list[str]:
    """Claude Code versions with a recorded data file, oldest first."""
    folder = data_dir()
    found = [m.group(1) for p in folder.glob("claude-code-*.json")
             if (m := _FILE.match(p.name))] if folder.is_dir() else []
    return sorted(found, key=_version_key)


def _resolve(version: str | None) -> str:
    versions = available_versions()
    if not versions:
        raise DataFileError(f"no recorded Claude Code data in {data_dir()}")
    if version is None:
        return versions[-1]
    if version not in versions:
        raise DataFileError(f"no recording for Claude Code {version} (have: "
                            + ", ".join(versions) + ")")
    return version


def _read(path: Path) -> object:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise DataFileError(f"{path}: {exc}") from exc


def load_expectations(version: str | None = None) -> Recording:
    """The recorded cases of one Claude Code version (default: the newest recorded)."""
    path = data_path(_resolve(version))
    return Recording.from_json(_read(path), str(path))


def load_corpus_expectations(version: str | None = None) -> CorpusRecording:
    """The recorded corpus verdicts of one Claude Code version (default: the newest)."""
    path = data_path(_resolve(version), corpus=True)
    if not path.exists():
        raise DataFileError(f"{path}: no corpus recording for this version")
    return CorpusRecording.from_json(_read(path), str(path))


def materialise_case(case: Case | str, project: Path, home: Path | None = None
                     ) -> tuple[Path, Path | None]:
    """Write a case's files: ``project/.claude/agents`` (and ``home/.claude/agents``)."""
    chosen = case_by_id(case) if isinstance(case, str) else case
    return chosen.materialise(project, home)
