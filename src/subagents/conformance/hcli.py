"""The ``--harness`` and ``record-files`` commands of ``python -m subagents.conformance``.

``record --harness H`` installs the pinned CLI of harness H (see
:mod:`subagents.conformance.clis`), records its cases and writes
``data/<harness>-<version>.json`` (with ``--case``, only those cases are recorded again and the
others are kept).  ``diff --harness H`` records into memory and prints a unified diff against
the committed file (exit 1 when anything differs; the recording date is not compared).
``list --harness H`` lists the cases.  ``record-files`` writes what a harness did with any
agent files (see :func:`subagents.conformance.hrecord.record_files`).

Design decision: kept apart from ``__main__`` so the Claude Code commands stay exactly as they
were.
"""

from __future__ import annotations

import argparse
import difflib
import json
import sys
from pathlib import Path

from subagents.conformance import harness_data_path
from subagents.conformance.clis import cli_spec
from subagents.conformance.hcases import HARNESS_CASES, harness_case
from subagents.conformance.hmodel import HRecording
from subagents.conformance.model import dump_json, write_atomic
from subagents.conformance.runner import install_cli

__all__ = ["cmd_harness", "cmd_record_files"]


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _comparable(recording: HRecording, ids: list[str]) -> list[str]:
    data = recording.to_json()
    data.pop("recorded", None)
    if ids:
        data["cases"] = [c for c in data["cases"] if c["id"] in ids]
    return dump_json(data).splitlines(keepends=True)


def cmd_harness(args: argparse.Namespace, netns: bool) -> int:
    from subagents.conformance.hrecord import record_harness

    spec = cli_spec(args.harness)
    if args.command == "list":
        cases = HARNESS_CASES[spec.name]
        width = max(len(c.id) for c in cases)
        for case in cases:
            spawn = f"  spawn: {case.spawn}" if case.spawn else ""
            print(f"{case.id:<{width}}  {len(case.all_files())} file(s)  {case.about}{spawn}")
        return 0
    ids = list(args.case)
    for case_id in ids:
        harness_case(spec.name, case_id)
    path = harness_data_path(spec.name, spec.version)
    previous = (HRecording.from_json(json.loads(path.read_text("utf-8")), str(path))
                if path.exists() else None)
    if args.command == "diff" and previous is None:
        _say(f"error: no committed data for {spec.title} {spec.version} ({path})")
        return 2
    binary = install_cli(spec.name, spec.package, spec.version, spec.binary)
    count = len(ids) or len(HARNESS_CASES[spec.name])
    _say(f"recording {count} case(s) with {spec.title} {spec.version}")
    fresh = record_harness(spec, binary, case_ids=ids, jobs=args.jobs, netns=netns,
                           progress=_say, previous=previous if args.command == "record" else None)
    if args.command == "record":
        out = Path(args.output) if args.output else path
        write_atomic(out, dump_json(fresh.to_json()))
        troubled = [c.id for c in fresh.cases if c.errors]
        _say(f"wrote {out}: {len(fresh.cases)} case(s)"
             + (f"; run problems in: {', '.join(troubled)}" if troubled else ""))
        return 0
    assert previous is not None
    lines = list(difflib.unified_diff(_comparable(previous, ids), _comparable(fresh, ids),
                                      "committed", "recorded now"))
    if not lines:
        _say("no differences")
        return 0
    sys.stdout.writelines(lines)
    return 1


def cmd_record_files(args: argparse.Namespace, netns: bool) -> int:
    from subagents.conformance.hrecord import record_files

    spec = cli_spec(args.harness)
    paths = [Path(p) for p in args.files]
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        _say("error: not a file: " + ", ".join(missing))
        return 2
    binary = install_cli(spec.name, spec.package, spec.version, spec.binary)
    result = record_files(spec, binary, paths, placement=args.placement.strip("/"),
                          scope="user" if args.user else "project",
                          batch_size=max(1, args.batch_size), jobs=args.jobs, netns=netns,
                          progress=_say, keep_names=args.keep_names)
    out = Path(args.output)
    write_atomic(out, dump_json(result.to_json()))
    loaded = sum(1 for f in result.files if f.loaded)
    blocking = sum(1 for f in result.files if f.blocks_startup)
    _say(f"wrote {out}: {loaded} of {len(result.files)} file(s) offered"
         + (f"; {blocking} stop {spec.title} from starting" if blocking else ""))
    return 0
