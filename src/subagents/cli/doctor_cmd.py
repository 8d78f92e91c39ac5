"""``subagents doctor``: why an agent does not appear, for one directory, on one screen.

Design notes
------------
* The question users ask is "why is my agent not there?" (REFERENCE.md: "agent type not
  found").  So the text is ordered by that question: the scope folders the directory reads
  (so a missing or unreadable one is obvious), what loaded, then what did not and why (grouped
  by folder, file names short, the rule, line and fix), same-folder clashes, and shadowing.
* By default the main part is Claude Code's view and a Harnesses section covers every harness
  with folders here (:mod:`subagents.cli.harness_text`); its skipped and fatal files count as
  problems (exit 1).  ``--dialect X`` gives harness X's view only.
* One screen: messages are wrapped to the terminal (at most 100 columns) under their file
  instead of trailing a long path; a folder's path is printed once as a heading; the home
  folder is written ``~``.  Text only -- JSON keeps the exact display paths.
* ``--format json`` gives the same facts in the shapes of ``list`` and ``validate``:
  ``agents`` and ``shadowed`` as ``list``, ``diagnostics`` as ``validate`` (all of the
  registry's), plus ``scopes``, ``not_loaded``, ``clashes`` and ``harnesses`` (per harness
  present: ``loads``, ``skipped``, ``fatal``).  With NAME, one object about
  that name.  Exit codes are the same in both formats: 1 when a file is not loaded, a name
  clashes or a folder cannot be read (with NAME: when that agent is not loaded), else 0.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import sys
import textwrap
from pathlib import Path
from typing import Any

import click

from subagents.claude_code.profile import get_profile
from subagents.cli.options import RegistryOptions, format_option, option_group
from subagents.diagnostics import Diagnostic, Severity
from subagents.harnesses.layout import Source, SourceKind, find_git_root
from subagents.registry.core import AgentEntry, AgentRegistry, FileRecord
from subagents.registry.harness_view import HarnessRegistry, HarnessReport, untrusted_guards

__all__ = ["doctor", "doctor_report"]

_FOLDER_RULES = ("SA603", "SA604", "SA605")


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _where(e: AgentEntry) -> str:
    return e.display_path or e.origin.label


def _errors(rec: FileRecord) -> list[Diagnostic]:
    return [d for d in rec.diagnostics if d.severity is Severity.ERROR]


def _other_problems(reg: AgentRegistry, reports: list[HarnessReport]) -> int:
    """Files the *other* harnesses skip or fail on (the main registry counts its own)."""
    return sum(r.problems() for r in reports if r.harness != reg.dialect.value)


def _problem_count(reg: AgentRegistry) -> int:
    folder_errors = sum(
        d.rule in _FOLDER_RULES and d.severity is Severity.ERROR for d in reg.diagnostics()
    )
    return (
        len(reg.failed_files())
        + len(reg.partial_files())
        + len(reg.clashes())
        + len(reg.duplicates())
        + folder_errors
    )


# --------------------------------------------------------------------------- JSON


def doctor_report(reg: AgentRegistry) -> dict[str, Any]:
    """Everything ``doctor`` knows about a directory, as JSON-ready data."""
    diags = reg.diagnostics()
    root = find_git_root(reg.cwd)
    listed = reg.list(include_builtin=False)
    not_loaded = [
        {
            "path": rec.display_path,
            "name": rec.guessed_name,
            "source": rec.origin.scope.value if rec.origin else None,
            "diagnostics": [d.to_dict() for d in _errors(rec)],
        }
        for rec in (*reg.failed_files(), *reg.partial_files())
    ]
    return {
        "cwd": str(reg.cwd),
        "git_root": str(root) if root else None,
        "dialect": reg.dialect.value,
        "summary": {
            "agents": len(listed),
            "not_loaded": len(not_loaded),
            "clashes": len(reg.clashes()),
            "duplicates": len(reg.duplicates()),
            "shadowed": len(reg.shadowed(include_builtin=False)),
            "problems": _problem_count(reg),
            "errors": sum(d.severity is Severity.ERROR for d in diags),
            "warnings": sum(d.severity is Severity.WARNING for d in diags),
        },
        "scopes": [
            {
                "scope": src.scope.value,
                "label": src.label,
                "path": reg.display(src.root) if src.root is not None else None,
                "state": state.state,
                "files": state.files,
            }
            for src, state in reg.folder_states()
        ],
        "agents": [e.to_dict() for e in listed],
        "shadowed": [e.to_shadow_dict() for e in reg.shadowed(include_builtin=False)],
        "clashes": [
            {"name": name, "source": group[0].source.value, "paths": [_where(e) for e in group]}
            for name, group in reg.clashes().items()
        ],
        "duplicates": [
            {
                "name": name,
                "source": group[0].source.value,
                "used": _where(group[0]),
                "ignored": [_where(e) for e in group[1:]],
            }
            for name, group in reg.duplicates().items()
        ],
        "not_loaded": not_loaded,
        "diagnostics": [d.to_dict() for d in diags],
    }


def _name_report(reg: AgentRegistry, name: str) -> dict[str, Any]:
    expl = reg.explain(name)
    return {
        "name": expl.name,
        "loaded": expl.winner is not None,
        "winner": expl.winner.to_dict() if expl.winner is not None else None,
        "shadowed": [e.to_shadow_dict() for e in expl.shadowed],
        "clash": [_where(e) for e in expl.clash],
        "not_loaded": [
            {
                "path": path,
                "diagnostics": [d.to_dict() for d in diags if d.severity is Severity.ERROR],
            }
            for path, diags in expl.failed_files
        ],
        "suggestions": [] if expl.winner is not None else reg.suggest(name),
    }


# --------------------------------------------------------------------------- text


class _Screen:
    """Lines for a terminal: ``~`` for the home folder, long messages wrapped."""

    def __init__(self, reg: AgentRegistry) -> None:
        self.home = str(reg.home).rstrip(os.sep)
        self.width = max(60, min(shutil.get_terminal_size((100, 24)).columns, 100))

    def path(self, text: str) -> str:
        if self.home and (text == self.home or text.startswith(self.home + os.sep)):
            return "~" + text[len(self.home) :]
        return text

    def wrap(self, text: str, indent: int) -> list[str]:
        pad = " " * indent
        return textwrap.wrap(
            text,
            self.width,
            initial_indent=pad,
            subsequent_indent=pad + "  ",
            break_on_hyphens=False,
            break_long_words=False,
        ) or [pad]


def _source_folder(reg: AgentRegistry, src: Source | None) -> str:
    if src is None or src.root is None:
        return src.label if src is not None else "?"
    shown = reg.display(src.root)
    return shown if src.kind is SourceKind.JSON_FILE else shown.rstrip(os.sep) + os.sep


def _short(display_path: str, folder: str) -> str:
    return display_path[len(folder) :] if display_path.startswith(folder) else display_path


def _text_scopes(reg: AgentRegistry, scr: _Screen) -> list[str]:
    rows: list[tuple[str, str, str]] = []
    if reg.managed_dir is None and not isinstance(reg, HarnessRegistry):
        rows.append(("managed", "(none: --managed-dir or SUBAGENTS_MANAGED_DIR)", ""))
    root = find_git_root(reg.cwd)
    for src, state in reg.folder_states():
        if src.kind is SourceKind.JSON_TEXT:
            count = len([e for e in reg.list() if e.origin == src]) + len(
                [e for e in reg.shadowed() if e.origin == src]
            )
            rows.append((src.scope.value, "--agents", _plural(count, "agent")))
            continue
        where = scr.path(reg.display(src.root)) if src.root is not None else src.label
        notes = []
        if src.plugin:
            notes.append(f"plugin {src.plugin}")
        if src.kind is SourceKind.JSON_FILE:
            notes.append(src.label)
        if src.scope.value == "project" and src.root is not None and src.root.parent.parent == root:
            notes.append("git root")
        shown = str(state) + (f"  ({', '.join(notes)})" if notes else "")
        rows.append((src.scope.value, where, shown))
    width = max((len(r[1]) for r in rows if r[2]), default=0)
    return [f"  {scope:<8} {where:<{width}}  {state}".rstrip() for scope, where, state in rows]


def _records_text(
    reg: AgentRegistry, scr: _Screen, records: list[FileRecord], *, first_only: bool
) -> list[str]:
    """Files grouped under their scope folder: ``name.md:line``, the reason, the fix."""
    out: list[str] = []
    by_folder: dict[str, list[FileRecord]] = {}
    for rec in records:
        by_folder.setdefault(_source_folder(reg, rec.origin), []).append(rec)
    for folder, recs in by_folder.items():
        scope = recs[0].origin.scope.value if recs[0].origin else ""
        out.append(f"  {scr.path(folder)}  ({scope})")
        for rec in recs:
            errors = _errors(rec)
            shown = errors[:1] if first_only else errors
            for d in shown:
                line = f":{d.line}" if d.line else ""
                stem = Path(rec.display_path).stem
                declared = rec.guessed_name if rec.guessed_name not in (None, stem) else None
                name = f"  (name: {declared})" if declared and not rec.entries else ""
                short = _short(rec.display_path, folder) or Path(rec.display_path).name
                out.append(f"    {short}{line}{name}")
                more = f" (+{len(errors) - 1} more)" if first_only and len(errors) > 1 else ""
                out += scr.wrap(f"{d.rule} {d.message}{more}", 6)
                if d.hint:
                    out += scr.wrap(f"fix: {d.hint}", 6)
    return out


def _harness_text(reports: list[HarnessReport], scr: _Screen) -> list[str]:
    from subagents.cli.harness_text import harness_lines

    if not reports:
        return []
    out = ["", "Harnesses (which harness loads which file):"]
    for report in reports:
        for line in harness_lines(report, indent=2):
            out += scr.wrap(scr.path(line.strip()), len(line) - len(line.lstrip()))
    return out


def _text(reg: AgentRegistry, reports: list[HarnessReport] | None = None
          ) -> tuple[list[str], int]:
    scr = _Screen(reg)
    out = [f"subagents doctor: {scr.path(str(reg.cwd))}  (dialect {reg.dialect.value})"]
    out += ["", "Scope folders, highest precedence first:", *_text_scopes(reg, scr)]

    listed = reg.list(include_builtin=False)
    counts: dict[str, int] = {}
    for e in listed:
        counts[e.source.value] = counts.get(e.source.value, 0) + 1
    builtins = [e.name for e in reg.list(include_builtin=True) if e.source.value == "builtin"]
    summary = ", ".join(f"{n} {s}" for s, n in counts.items())
    head = f"Loaded: {_plural(len(listed), 'agent')}" + (f" ({summary})" if summary else "")
    out += ["", *scr.wrap(head + f"; built-in: {', '.join(builtins) or 'all overridden'}", 0)]

    failed = reg.failed_files()
    if failed:
        out += ["", f"Not loaded ({_plural(len(failed), 'file')}):"]
        out += _records_text(reg, scr, failed, first_only=True)
    partial = reg.partial_files()
    if partial:
        out += ["", f"Loaded with errors ({_plural(len(partial), 'source')}; entries skipped):"]
        out += _records_text(reg, scr, partial, first_only=False)

    clashes = reg.clashes()
    if clashes:
        out += ["", "Defined twice in one folder (neither is loaded):"]
        for name, group in clashes.items():
            folder = _source_folder(reg, group[0].origin)
            files = ", ".join(_short(_where(e), folder) for e in group)
            out += scr.wrap(f"{name}: {scr.path(folder)} {files}", 2)

    duplicates = reg.duplicates()
    if duplicates:
        label = get_profile(reg.claude_code).label
        out += ["", f"Defined twice in one folder ({label} keeps the last path, ignores the rest):"]
        for name, group in duplicates.items():
            folder = _source_folder(reg, group[0].origin)
            used = _short(_where(group[0]), folder)
            ignored = ", ".join(_short(_where(e), folder) for e in group[1:])
            out += scr.wrap(f"{name}: {scr.path(folder)} uses {used}; ignores {ignored}", 2)

    folder_diags = [d for d in reg.diagnostics() if d.rule in _FOLDER_RULES]
    if folder_diags:
        out += ["", "Folder problems:"]
        for d in folder_diags:
            out += scr.wrap(f"{scr.path(d.path)}: {d.rule} {d.message}", 2)

    # (a same-folder duplicate is listed above, under "Defined twice")
    shadowed = [
        e
        for e in reg.shadowed(include_builtin=False)
        if e.shadowed_by is None or e.shadowed_by.origin != e.origin
    ]
    if shadowed:
        out += ["", "Shadowed (the first scope that defines a name wins):"]
        by_name: dict[str, list[AgentEntry]] = {}
        for e in shadowed:
            by_name.setdefault(e.name, []).append(e)
        width = min(max(len(n) for n in by_name), 24)
        for hidden_name, hidden in by_name.items():
            winner = hidden[0].shadowed_by
            used = (
                f"{winner.source.value} {scr.path(_where(winner))}"
                if winner is not None
                else "nothing (a clash above blocks it)"
            )
            out += scr.wrap(f"{hidden_name:<{width}}  uses {used}", 2)
            hides = "; ".join(f"{e.source.value} {scr.path(_where(e))}" for e in hidden)
            out += scr.wrap(f"{'':<{width}}  hides {hides}", 2)

    out += _harness_text(reports or [], scr)
    untrusted = untrusted_guards(reg)
    if untrusted:
        out += ["", *scr.wrap(
            f"Claude Code does not trust {scr.path(str(untrusted[0]))} (no "
            "`hasTrustDialogAccepted` for it in ~/.claude.json): it loads these agents but "
            "skips their hooks and MCP servers: " + ", ".join(untrusted[1]), 0)]
    warnings = sum(d.severity is Severity.WARNING for d in reg.diagnostics())
    problems = _problem_count(reg) + _other_problems(reg, reports or [])
    out.append("")
    if warnings:
        out.append(
            f"{_plural(warnings, 'warning')} in loaded files: `subagents validate` lists them."
        )
    if problems:
        verb = "keeps" if problems == 1 else "keep"
        out.append(f"{_plural(problems, 'problem')} {verb} agents from loading.")
    else:
        out.append("No problems: every agent file in scope is loaded.")
    return out, problems


def _name_text(reg: AgentRegistry, name: str) -> tuple[list[str], bool]:
    expl = reg.explain(name)
    out = expl.lines()
    if expl.winner is None and not expl.clash and not expl.failed_files:
        suggestions = reg.suggest(name)
        if suggestions:
            out.append("  closest names: " + ", ".join(suggestions))
        out.append("  no file in scope defines it; `subagents doctor` lists the folders")
    return out, expl.winner is not None


@click.command()
@click.argument("name", required=False)
@option_group(RegistryOptions)
@format_option("text", "json")
def doctor(
    name: str | None,
    registry: RegistryOptions,
    output_format: str,
) -> None:
    """Explain, for this directory, every agent file that is not loaded and every hidden name.

    Lists each scope folder (missing, empty, unreadable), each file that failed with the
    reason and line, names defined twice in one folder, and names shadowed by a higher scope.
    With NAME, explains only that agent: where it is loaded from, what it hides, and which
    files tried to define it and failed.  Exits 1 when a file is not loaded, a name clashes or
    a folder cannot be read (with NAME: when that agent is not loaded).

    The Harnesses section says, for every harness with folders here (Claude Code, Codex,
    Gemini CLI, OpenCode, ...), which files it loads, which it skips and why, and which stop
    it from starting; those count as problems too.  --dialect X looks at one harness only.

    \b
    Examples:
      subagents doctor
      subagents doctor code-reviewer
      subagents doctor --format json | jq '.not_loaded[].path'
    """
    every = registry.dialect is None or registry.every_harness
    # an --agents value Claude Code refuses is explained here, not a usage error
    reg = (dataclasses.replace(registry, dialect=None) if every else registry).load(
        refuse_bad_agents=False)
    if name is not None:
        if output_format == "json":
            data = _name_report(reg, name)
            click.echo(json.dumps(data, indent=2))
            ok = bool(data["loaded"])
        else:
            lines, ok = _name_text(reg, name)
            click.echo("\n".join(lines))
        if not ok:
            sys.exit(1)
        return
    from subagents.cli.harness_text import harness_reports

    reports = harness_reports(registry.load_every() if every else [reg])
    if output_format == "json":
        data = doctor_report(reg)
        data["harnesses"] = [r.to_dict() for r in reports]
        data["summary"]["problems"] += _other_problems(reg, reports)
        click.echo(json.dumps(data, indent=2))
        problems = int(data["summary"]["problems"])
    else:
        lines, problems = _text(reg, reports)
        click.echo("\n".join(lines))
    if problems:
        sys.exit(1)
