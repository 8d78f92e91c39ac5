"""``python -m subagents.conformance``: record, compare and list the conformance cases.

    record [--claude-code VERSION] [--case ID ...] [--jobs N] [--corpus DIR] [--claude PATH]
           [--no-netns] [--output FILE]
    diff   [--claude-code VERSION] [--case ID ...] [--jobs N] [--claude PATH] [--no-netns]
    compare [--claude-code VERSION]
    list
    record | diff | list  --harness codex|gemini|opencode|copilot|qwen [--case ID ...] [--jobs N]
    record-files --harness H --placement FOLDER [--user] [--keep-names] --output FILE FILES...
    runtime record|compare|list [...]   (see subagents.conformance.runtime_cli)

``record`` installs ``@anthropic-ai/claude-code@VERSION`` into the cache when needed, runs every
case (or the named ones, keeping the other recorded cases) and writes
``data/claude-code-VERSION.json``; with ``--corpus DIR`` it records the corpus instead, into
``data/claude-code-VERSION-corpus.json``.  ``diff`` records again into memory and prints what
differs from the committed data (the recording date is not compared); exit 1 when anything
does.  ``compare`` needs no Claude Code: it reads every case with this project's registry and
prints where that differs from the recording (exit 1 when a difference is not a documented
deliberate one).  Exit 2: bad usage or Claude Code could not be installed or run.

With ``--harness`` another harness CLI is installed at its pinned version and its cases
(``subagents.conformance.hcases``) are recorded into ``data/<harness>-<version>.json``.
``record-files`` records what a harness does with any agent files put in one of its folders.
``runtime`` records what Claude Code sends the model at run time and compares ``subagents run``
with it (:mod:`subagents.conformance.runtime_cli`).
"""

from __future__ import annotations

import argparse
import difflib
import sys
from collections.abc import Sequence
from pathlib import Path

from subagents.conformance import data_dir, data_path
from subagents.conformance.cases import CASES, case_by_id
from subagents.conformance.clis import CLIS
from subagents.conformance.harness import (
    DEFAULT_VERSION,
    HarnessError,
    claude_version,
    install,
    netns_available,
)
from subagents.conformance.model import (
    DataFileError,
    Recording,
    dump_json,
    write_atomic,
)
from subagents.errors import UsageError

__all__ = ["main"]


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m subagents.conformance",
        description="Record what the real Claude Code does with agent files, and compare.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for name, helptext in (("record", "run the cases and write the data file"),
                           ("diff", "run the cases again and show differences")):
        p = sub.add_parser(name, help=helptext)
        _harness_flag(p)
        p.add_argument("--claude-code", default=None, metavar="VERSION",
                       help="Claude Code version to install and run (default: the newest "
                            "recorded)")
        p.add_argument("--case", action="append", default=[], metavar="ID",
                       help="only this case (repeatable)")
        p.add_argument("--jobs", type=int, default=2, metavar="N", help="parallel runs")
        p.add_argument("--claude", metavar="PATH", help="use this claude binary, no install")
        p.add_argument("--no-netns", action="store_true",
                       help="do not run inside a loopback-only network namespace")
        p.add_argument("--sdk", metavar="DIR",
                       help="the @anthropic-ai/claude-agent-sdk folder of this release (its "
                            "typings name the hook events and agent fields)")
        if name == "diff":
            p.add_argument("--against", metavar="VERSION",
                           help="compare the recording of --claude-code (default: the newest) "
                                "with this recorded version; runs nothing")
        if name == "record":
            p.add_argument("--corpus", metavar="DIR", help="record a corpus folder instead")
            p.add_argument("--batch-size", type=int, default=25, metavar="N")
            p.add_argument("--output", metavar="FILE", help="write here, not to the data folder")
    track = sub.add_parser("track", help="install the newest release, record it and report "
                                         "what changed")
    track.add_argument("--claude-code", metavar="VERSION",
                       help="this release instead of npm's newest")
    track.add_argument("--jobs", type=int, default=2, metavar="N", help="parallel runs")
    track.add_argument("--claude", metavar="PATH", help="use this claude binary, no install")
    track.add_argument("--sdk", metavar="DIR", help="the Agent SDK folder of this release")
    track.add_argument("--no-netns", action="store_true",
                       help="do not run inside a loopback-only network namespace")
    track.add_argument("--report", metavar="FILE",
                       help="write the report here too (default: data/claude-code-VERSION-"
                            "changes.md)")
    compare = sub.add_parser("compare", help="compare this project's reading with a recording")
    compare.add_argument("--claude-code", metavar="VERSION",
                         help="recorded version (default: the newest)")
    _harness_flag(sub.add_parser("list", help="list the cases"))
    from subagents.conformance.runtime_cli import add_parser as add_runtime_parser

    add_runtime_parser(sub)
    files = sub.add_parser("record-files",
                           help="record what a harness does with the given agent files")
    files.add_argument("--harness", required=True, choices=sorted(CLIS),
                       help="the harness CLI to run")
    files.add_argument("--placement", required=True, metavar="FOLDER",
                       help="the agents folder to put the files in, e.g. .gemini/agents")
    files.add_argument("--user", action="store_true",
                       help="FOLDER is relative to the temporary HOME, not the project")
    files.add_argument("--batch-size", type=int, default=20, metavar="N")
    files.add_argument("--keep-names", action="store_true",
                       help="put each file in under its own name, not NNNN-<name> (a batch "
                            "never holds two files of one name)")
    files.add_argument("--jobs", type=int, default=2, metavar="N", help="parallel runs")
    files.add_argument("--no-netns", action="store_true",
                       help="do not run inside a loopback-only network namespace")
    files.add_argument("--output", required=True, metavar="FILE", help="the JSON file to write")
    files.add_argument("files", nargs="+", metavar="FILE")
    return parser


def _harness_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--harness", default="claude-code",
                   choices=["claude-code", *sorted(CLIS)],
                   help="which harness (default claude-code); the others run at the version "
                        "pinned in subagents.conformance.clis")


def _claude(args: argparse.Namespace) -> Path:
    from subagents.conformance.release import check_version

    check_version(args.claude_code)
    if args.claude:
        path = Path(args.claude)
        if not path.exists():
            raise HarnessError(f"{path}: no such file")
        found = claude_version(path)
        if found and found != args.claude_code:
            raise HarnessError(f"{path} is Claude Code {found}, not {args.claude_code}; "
                               f"pass --claude-code {found}")
        return path
    return install(args.claude_code)


def _netns(args: argparse.Namespace) -> bool:
    if args.no_netns:
        _say("note: --no-netns: Claude Code runs without a network namespace; only the fake "
             "server's 127.0.0.1 address is configured")
        return False
    usable, why = netns_available()
    if not usable:
        _say(f"note: no network namespace ({why}); running without one. Claude Code is pointed "
             "at the fake server on 127.0.0.1 and non-essential traffic is turned off, but "
             "nothing stops other connections. Run as root for `unshare -n`.")
    return usable


def _selected(ids: Sequence[str]) -> list[str]:
    for case_id in ids:
        case_by_id(case_id)  # KeyError with the id
    return list(ids)


def _record_cases(args: argparse.Namespace, claude: Path, netns: bool,
                  previous: Recording | None) -> Recording:
    from subagents.conformance.record import record_cases

    ids = _selected(args.case)
    cases = [c for c in CASES if not ids or c.id in ids]
    _say(f"recording {len(cases)} case(s) with Claude Code {args.claude_code}")
    return record_cases(claude, cases, version=args.claude_code, jobs=args.jobs, netns=netns,
                        progress=_say, previous=previous if ids else None)


def _previous(version: str) -> Recording | None:
    path = data_path(version)
    if not path.exists():
        return None
    import json

    return Recording.from_json(json.loads(path.read_text(encoding="utf-8")), str(path))


def _cmd_record(args: argparse.Namespace) -> int:
    claude = _claude(args)
    netns = _netns(args)
    if args.corpus:
        from subagents.conformance.corpus import record_corpus

        root = Path(args.corpus)
        if not root.is_dir():
            _say(f"error: {root}: not a folder")
            return 2
        corpus = record_corpus(claude, root, version=args.claude_code,
                               batch_size=args.batch_size, jobs=args.jobs, netns=netns,
                               progress=_say)
        out = Path(args.output) if args.output else data_path(args.claude_code, corpus=True)
        write_atomic(out, dump_json(corpus.to_json()))
        loaded = sum(1 for f in corpus.files if f.loaded)
        _say(f"wrote {out}: {loaded} of {len(corpus.files)} files load")
        return 0
    recording = _record_cases(args, claude, netns, _previous(args.claude_code))
    out = Path(args.output) if args.output else data_path(args.claude_code)
    write_atomic(out, dump_json(recording.to_json()))
    troubled = [c.id for c in recording.cases if c.errors]
    _say(f"wrote {out}: {len(recording.cases)} case(s)"
         + (f"; run problems in: {', '.join(troubled)}" if troubled else ""))
    if not args.output:
        from subagents.conformance.release import write_profile

        sdk = Path(args.sdk) if args.sdk else None
        _say(f"wrote {write_profile(args.claude_code, recording, claude, sdk)}")
    return 0


def _comparable(recording: Recording, ids: Sequence[str]) -> list[str]:
    data = recording.to_json()
    data.pop("recorded", None)
    if ids:
        data["cases"] = [c for c in data["cases"] if c["id"] in ids]
    return dump_json(data).splitlines(keepends=True)


def _cmd_against(args: argparse.Namespace) -> int:
    from subagents.claude_code.profile import ClaudeCodeProfile
    from subagents.conformance import load_expectations
    from subagents.conformance.release import diff_report, load_profile

    new = load_expectations(args.claude_code)
    old = load_expectations(args.against)
    profiles: list[ClaudeCodeProfile | None] = []
    for version in (old.version, new.version):
        try:
            profiles.append(load_profile(version))
        except DataFileError:
            profiles.append(None)
    report, differs = diff_report(old, new, profiles[0], profiles[1])
    sys.stdout.write(report)
    return 1 if differs else 0


def _cmd_track(args: argparse.Namespace) -> int:
    import time

    from subagents.conformance import available_versions, load_expectations
    from subagents.conformance.release import (
        check_version,
        diff_report,
        install_sdk,
        load_profile,
        newest_release,
        write_profile,
    )

    start = time.monotonic()
    version = check_version(args.claude_code) if args.claude_code else newest_release()
    args.claude_code = version
    before = [v for v in available_versions() if v != version]
    _say(f"tracking Claude Code {version}"
         + (f" (newest recorded before: {before[-1]})" if before else ""))
    claude = _claude(args)
    sdk = Path(args.sdk) if args.sdk else install_sdk(version, _say)
    netns = _netns(args)
    args.case = []
    recording = _record_cases(args, claude, netns, None)
    write_atomic(data_path(version), dump_json(recording.to_json()))
    _say(f"wrote {data_path(version)}")
    _say(f"wrote {write_profile(version, recording, claude, sdk)}")
    if before:
        old = load_expectations(before[-1])
        report, _ = diff_report(old, recording, load_profile(old.version),
                                load_profile(version))
    else:
        report = f"# Claude Code {version}\n\nFirst recording: {len(recording.cases)} cases.\n"
    report += f"\nTracked in {time.monotonic() - start:.0f} s.\n"
    out = Path(args.report) if args.report else data_dir() / f"claude-code-{version}-changes.md"
    write_atomic(out, report)
    sys.stdout.write(report)
    _say(f"wrote {out}")
    troubled = [c.id for c in recording.cases if c.errors]
    if troubled:
        _say(f"run problems in: {', '.join(troubled)}")
        return 1
    return 0


def _cmd_diff(args: argparse.Namespace) -> int:
    if args.against:
        return _cmd_against(args)
    ids = _selected(args.case)
    committed = _previous(args.claude_code)
    if committed is None:
        _say(f"error: no committed data for Claude Code {args.claude_code} "
             f"({data_path(args.claude_code)})")
        return 2
    claude = _claude(args)
    fresh = _record_cases(args, claude, _netns(args), None)
    lines = list(difflib.unified_diff(_comparable(committed, ids), _comparable(fresh, ids),
                                      "committed", "recorded now"))
    if not lines:
        _say("no differences")
        return 0
    sys.stdout.writelines(lines)
    return 1


def _cmd_compare(args: argparse.Namespace) -> int:
    from subagents.conformance import load_expectations
    from subagents.conformance.compare import agreement_table, compare_recording

    results = compare_recording(load_expectations(args.claude_code), CASES)
    print(agreement_table(results))
    return 1 if any(not r.agrees and not r.deliberate for r in results) else 0


def _cmd_list() -> int:
    width = max(len(c.id) for c in CASES)
    for case in CASES:
        files = len(case.files) + len(case.user_files)
        spawn = f"  spawn: {', '.join(case.spawn)}" if case.spawn else ""
        print(f"{case.id:<{width}}  {files} file(s)  {case.about}{spawn}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "runtime":
        from subagents.conformance.runtime_cli import cmd_runtime

        return cmd_runtime(args)
    try:
        if args.command == "record-files":
            from subagents.conformance.hcli import cmd_record_files

            return cmd_record_files(args, _netns(args))
        if getattr(args, "harness", "claude-code") != "claude-code":
            from subagents.conformance.hcli import cmd_harness

            return cmd_harness(args, _netns(args) if args.command != "list" else False)
        if args.command == "list":
            return _cmd_list()
        if args.command == "compare":
            return _cmd_compare(args)
        if args.command == "track":
            return _cmd_track(args)
        if args.command in ("record", "diff") and args.claude_code is None:
            from subagents.conformance import available_versions

            known = available_versions()
            args.claude_code = known[-1] if known else DEFAULT_VERSION
        if args.command in ("record", "diff"):
            from subagents.conformance.release import check_version

            check_version(args.claude_code)
        if args.command == "record":
            return _cmd_record(args)
        return _cmd_diff(args)
    except KeyError as exc:
        _say(f"error: {exc.args[0] if exc.args else exc}")
        return 2
    except (HarnessError, DataFileError, OSError) as exc:
        _say(f"error: {exc}")
        return 2
    except UsageError as exc:
        _say(f"error: {exc}")
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
