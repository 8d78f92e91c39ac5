"""``python -m subagents.conformance runtime record|compare|list``: the runtime recorder's commands.

    runtime list
    runtime show ID [--claude-code VERSION]
    runtime record  [--claude PATH] [--claude-code VERSION] [--scenario ID ...] [--jobs N]
                    [--no-netns] [--output FILE]
    runtime compare [--claude-code VERSION] [--scenario ID ...] [--verbose] [--json]
                    [--markdown] [--prune-closed] [--differences FILE]

``record`` runs every scenario (or the named ones, keeping the others) through the real Claude
Code and writes ``data/claude-code-VERSION-runtime.json``.  Claude Code is the binary given with
``--claude`` (it must report VERSION), else the one installed in the cache (installed with npm
when missing).  It runs inside ``unshare -n`` with only loopback, which needs root; without
root the command stops and says so, unless ``--no-netns`` is given.

``show`` prints each thread's first request block by block (where, size, kinds of content),
recorded from Claude Code beside this project's run.

``compare`` needs no Claude Code: it runs every scenario through ``subagents run`` against the
same scripted fake API and prints, per scenario, how many recorded aspects agree.  Exit 1 when
a difference is listed nowhere, a listed gap agrees now, or a deliberate entry matches nothing
(``--prune-closed`` takes closed gaps off the list instead).  Exit 2: bad usage, a missing or
wrong Claude Code, no network namespace, a bad data file.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from subagents.conformance.harness import HarnessError, claude_version, install, netns_available
from subagents.conformance.model import DataFileError, dump_json, write_atomic
from subagents.conformance.runtime_cases import SCENARIOS, Scenario, scenario_by_id
from subagents.conformance.runtime_compare import DEFAULT_RUNTIME_VERSION

__all__ = ["add_parser", "cmd_runtime"]


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def add_parser(sub: Any) -> None:
    """Add ``runtime`` with its own subcommands to the conformance parser."""
    runtime = sub.add_parser("runtime", help="what Claude Code sends the model at run time")
    rsub = runtime.add_subparsers(dest="runtime_command", required=True)
    rsub.add_parser("list", help="list the runtime scenarios")
    show = rsub.add_parser("show", help="each thread's first request, block by block: "
                           "Claude Code's (recorded) beside ours (run now)")
    show.add_argument("scenario", metavar="ID")
    show.add_argument("--claude-code", default=DEFAULT_RUNTIME_VERSION, metavar="VERSION",
                      help=f"the recorded version (default {DEFAULT_RUNTIME_VERSION})")
    record = rsub.add_parser("record", help="run the scenarios through Claude Code and "
                             "write the runtime data file")
    record.add_argument("--claude", metavar="PATH", help="the claude binary to run")
    record.add_argument("--claude-code", default=DEFAULT_RUNTIME_VERSION, metavar="VERSION",
                        help=f"the version it must be (default {DEFAULT_RUNTIME_VERSION})")
    record.add_argument("--scenario", action="append", default=[], metavar="ID",
                        help="only this scenario (repeatable; the others are kept)")
    record.add_argument("--jobs", type=int, default=2, metavar="N", help="parallel runs")
    record.add_argument("--no-netns", action="store_true",
                        help="run without a network namespace (only the fake server's "
                        "127.0.0.1 address is configured; nothing else is blocked)")
    record.add_argument("--output", metavar="FILE", help="write here, not to the data folder")
    compare = rsub.add_parser("compare", help="compare subagents run with the recording")
    compare.add_argument("--claude-code", default=DEFAULT_RUNTIME_VERSION, metavar="VERSION",
                         help=f"the recorded version (default {DEFAULT_RUNTIME_VERSION})")
    compare.add_argument("--scenario", action="append", default=[], metavar="ID",
                         help="only this scenario (repeatable)")
    compare.add_argument("--verbose", action="store_true",
                         help="also list every differing aspect with both values")
    compare.add_argument("--json", action="store_true", help="print the reports as JSON")
    compare.add_argument("--markdown", action="store_true",
                         help="print the table in Markdown")
    compare.add_argument("--prune-closed", action="store_true",
                         help="take gaps that agree now off the list in "
                         "the differences file")
    compare.add_argument("--differences", metavar="FILE",
                         help="the deliberate differences and gaps to use (default: "
                         "data/claude-code-VERSION-runtime-differences.json)")


def _scenarios(ids: list[str]) -> list[Scenario]:
    return [scenario_by_id(i) for i in ids] if ids else list(SCENARIOS)


def _claude(args: argparse.Namespace) -> Path:
    if args.claude:
        path = Path(args.claude)
        if not path.exists():
            raise HarnessError(f"{path}: no such file (pass the claude binary with --claude)")
    else:
        path = install(args.claude_code)
    try:
        found = claude_version(path)
    except (OSError, subprocess.SubprocessError) as exc:
        raise HarnessError(f"{path} could not be run: {exc}") from exc
    if not re.fullmatch(r"\d+(\.\d+)+", found):
        raise HarnessError(f"{path} does not report a Claude Code version; is it claude?")
    if found != args.claude_code:
        raise HarnessError(f"{path} is Claude Code {found}, not {args.claude_code}; pass "
                           f"--claude-code {found} to record that version")
    return path


def _record(args: argparse.Namespace) -> int:
    from subagents.conformance.runtime_compare import runtime_data_path
    from subagents.conformance.runtime_record import record_runtime

    scenarios = _scenarios(args.scenario)
    if args.jobs < 1:
        _say("error: --jobs must be at least 1")
        return 2
    netns = not args.no_netns
    if netns:
        usable, why = netns_available()
        if not usable:
            _say(f"error: the recording runs Claude Code inside `unshare -n` (loopback only), "
                 f"which is not possible here: {why}. Run as root, or pass --no-netns to run "
                 "without it.")
            return 2
    claude = _claude(args)
    out = Path(args.output) if args.output else runtime_data_path(args.claude_code)
    previous = None
    if args.scenario and out.exists():
        previous = json.loads(out.read_text(encoding="utf-8"))
    _say(f"recording {len(scenarios)} scenario(s) with Claude Code {args.claude_code}")
    data = record_runtime(claude, args.claude_code, scenarios, jobs=args.jobs, netns=netns,
                          progress=_say, previous=previous)
    write_atomic(out, dump_json(data))
    troubled = [k for k, v in data["scenarios"].items() if v.get("problems")]
    _say(f"wrote {out}: {len(data['scenarios'])} scenario(s)"
         + (f"; run problems in: {', '.join(troubled)}" if troubled else ""))
    return 0


def _compare(args: argparse.Namespace) -> int:
    from subagents.conformance.runtime_compare import (
        check,
        compare_scenario,
        differences_path,
        load_differences,
        load_runtime_recording,
        report_markdown,
        report_table,
    )
    from subagents.conformance.runtime_record import fingerprint_ours

    recording = load_runtime_recording(args.claude_code)
    path = (Path(args.differences) if args.differences
            else differences_path(args.claude_code))
    differences = load_differences(path)
    reports = []
    for scenario in _scenarios(args.scenario):
        recorded = recording["scenarios"].get(scenario.id)
        if recorded is None:
            _say(f"note: {scenario.id} has no recording for Claude Code {args.claude_code}; "
                 "skipped (run `runtime record --scenario " + scenario.id + "`)")
            continue
        reports.append(compare_scenario(scenario.id, recorded, fingerprint_ours(scenario),
                                        differences))
    if args.json:
        print(json.dumps([_report_json(r) for r in reports], indent=2, ensure_ascii=False))
    elif args.markdown:
        print(report_markdown(reports))
    else:
        print(f"Claude Code {args.claude_code} runtime recording against subagents run")
        print(report_table(reports))
        if args.verbose:
            for report in reports:
                for a in report.aspects:
                    if a.status != "agree":
                        print(f"  {report.id}: {a.aspect} [{a.status}] Claude Code "
                              f"{json.dumps(a.claude)[:90]} | ours {json.dumps(a.ours)[:90]}")
    if args.prune_closed:
        data = json.loads(path.read_text(encoding="utf-8"))
        pruned = 0
        for report in reports:
            gaps = data.get("gaps", {}).get(report.id, {})
            for aspect in report.closed_gaps:
                if gaps.pop(aspect, None) is not None:
                    pruned += 1
            if report.id in data.get("gaps", {}) and not gaps:
                del data["gaps"][report.id]
        write_atomic(path, dump_json(data))
        _say(f"took {pruned} closed gap(s) off {path}")
        differences = load_differences(path)
        reports = [compare_scenario(r.id, recording["scenarios"][r.id],
                                    {"aspects": {a.aspect: a.ours for a in r.aspects
                                                 if a.ours is not None}}, differences)
                   for r in reports]
    problems = check(reports, differences, stale=not args.scenario)
    for problem in problems:
        _say(problem)
    return 1 if problems else 0


def _report_json(report: Any) -> dict[str, Any]:
    return {
        "scenario": report.id, "about": report.about, "total": report.total,
        "agree": report.count("agree"), "deliberate": report.count("deliberate"),
        "gaps": report.count("gap"), "new": report.count("new"),
        "closed_gaps": list(report.closed_gaps),
        "first_request_chars": {k: list(v) for k, v in report.first_request_chars.items()},
        "differences": [{"aspect": a.aspect, "status": a.status, "claude_code": a.claude,
                         "ours": a.ours, "note": a.note}
                        for a in report.aspects if a.status != "agree"],
    }


def _show(args: argparse.Namespace) -> int:
    from subagents.conformance.runtime_compare import load_runtime_recording
    from subagents.conformance.runtime_record import fingerprint_ours

    scenario = scenario_by_id(args.scenario)
    recorded = load_runtime_recording(args.claude_code)["scenarios"].get(scenario.id)
    if recorded is None:
        _say(f"error: {scenario.id} has no recording for Claude Code {args.claude_code}")
        return 2
    ours = fingerprint_ours(scenario)
    for side, data in ((f"Claude Code {args.claude_code}", recorded), ("subagents", ours)):
        threads = (data.get("info") or {}).get("threads") or {}
        for thread, info in sorted(threads.items()):
            print(f"{side}, {thread}: {info['requests']} request(s), first request "
                  f"{info['first_request_chars']:,} chars")
            for row in info["layout"]:
                print(f"  {row['at']:<16} {row['size']:>7,}  {' '.join(row['kinds'])}")
    return 0


def _list() -> int:
    width = max(len(s.id) for s in SCENARIOS)
    for scenario in SCENARIOS:
        extra = f"  ({' '.join(scenario.args)})" if scenario.args else ""
        print(f"{scenario.id:<{width}}  {scenario.about}{extra}")
    return 0


def cmd_runtime(args: argparse.Namespace) -> int:
    """Run one ``runtime`` subcommand; errors become a message and exit 2."""
    try:
        if args.runtime_command == "list":
            return _list()
        if args.runtime_command == "show":
            return _show(args)
        if args.runtime_command == "record":
            return _record(args)
        return _compare(args)
    except KeyError as exc:
        _say(f"error: {exc.args[0] if exc.args else exc}")
        return 2
    except (HarnessError, DataFileError, OSError, ValueError) as exc:
        _say(f"error: {exc}")
        return 2
