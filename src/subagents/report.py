"""Render a :class:`~subagents.validate.ValidationReport` as text, JSON or SARIF 2.1.0.

Design notes
------------
* Text is linter-style, one finding per line: ``path:line:col: CODE severity: message``, the
  hint on an indented line below, then one summary line.  Colour (ANSI, no ``rich``: validate
  must stay light) only when asked, which the CLI does only on a TTY and without ``NO_COLOR``.
* JSON is exactly the DESIGN.md contract: ``{"summary": {...}, "diagnostics": [...]}``.
* SARIF 2.1.0 for code-scanning uploads: every rule of the catalogue in ``tool.driver.rules``
  (id, name, short description, default level), results with ``ruleIndex``,
  ``physicalLocation.artifactLocation.uri`` *relative* (forward slashes, ``%SRCROOT%`` base) and
  ``region.startLine/startColumn`` when known.  Info maps to ``note``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from subagents.diagnostics import Diagnostic, Severity
from subagents.rules.catalog import RULES, Profile

if TYPE_CHECKING:
    from subagents.validate import ValidationReport

__all__ = ["FORMATS", "render", "render_json", "render_sarif", "render_text"]

FORMATS = ("text", "json", "sarif")

_COLOURS = {Severity.ERROR: "\x1b[31m", Severity.WARNING: "\x1b[33m", Severity.INFO: "\x1b[36m"}
_BOLD, _DIM, _RESET = "\x1b[1m", "\x1b[2m", "\x1b[0m"
_SARIF_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
_SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def render_text(report: ValidationReport, *, color: bool = False) -> str:
    lines: list[str] = []
    for d in report.diagnostics:
        if not color:
            lines.append(d.format_text())
            continue
        where = d.path + (f":{d.line}" if d.line is not None else "") + (
            f":{d.column}" if d.line is not None and d.column is not None else "")
        sev = f"{_COLOURS[d.severity]}{d.severity}{_RESET}"
        lines.append(f"{_BOLD}{where}{_RESET}: {d.rule} {sev}: {d.message}")
        if d.hint:
            lines.append(f"    {_DIM}hint: {d.hint}{_RESET}")
    s = report.summary()
    summary = (
        f"{_plural(s['files'], 'file')}, {_plural(s['agents'], 'agent')}: "
        f"{_plural(s['errors'], 'error')}, {_plural(s['warnings'], 'warning')}"
    )
    if report.infos:
        summary += f", {report.infos} info"
    if report.strict:
        summary += " (strict)"
    if color:
        summary = f"{_BOLD}{summary}{_RESET}"
    lines.append(summary)
    return "\n".join(lines) + "\n"


def render_json(report: ValidationReport) -> str:
    import json  # text output (the common case) does not need it

    return json.dumps(report.to_dict(), indent=2, ensure_ascii=False) + "\n"


def _uri(path: str) -> str:
    from urllib.parse import quote

    p = Path(path)
    if p.is_absolute():
        try:
            rel = os.path.relpath(p)
            if not rel.startswith(".."):
                p = Path(rel)
        except ValueError:
            pass
    if p.is_absolute():
        return p.as_uri()
    return quote(p.as_posix())


def _level(sev: Severity | None) -> str:
    return _SARIF_LEVEL[sev] if sev is not None else "none"


def render_sarif(report: ValidationReport, *, version: str | None = None) -> str:
    codes = list(RULES)
    index = {c: i for i, c in enumerate(codes)}
    profile = Profile.STRICT if report.strict else Profile.DEFAULT
    rules = [
        {
            "id": r.code,
            "name": "".join(part.capitalize() for part in r.name.split("-")),
            "shortDescription": {"text": r.doc},
            "fullDescription": {"text": f"{r.doc} Category: {r.category}."},
            "help": {"text": f"{r.code} {r.name}: {r.doc} Run `subagents rules` for all."},
            "defaultConfiguration": {
                "level": _level(r.severity(profile)),
                "enabled": r.severity(profile) is not None,
            },
            "properties": {"category": str(r.category), "slug": r.name},
        }
        for r in RULES.values()
    ]
    results = [_result(d, index) for d in report.diagnostics]
    if version is None:
        from subagents import __version__ as version
    doc: dict[str, Any] = {
        "$schema": _SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "subagents",
                        "version": version,
                        "rules": rules,
                    }
                },
                "originalUriBaseIds": {"%SRCROOT%": {"uri": Path.cwd().as_uri() + "/"}},
                # our columns count characters (Python str offsets), not UTF-16 units
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }
    import json

    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def _result(d: Diagnostic, index: dict[str, int]) -> dict[str, Any]:
    uri = _uri(d.path)
    artifact: dict[str, Any] = {"uri": uri}
    if not uri.startswith("file:"):
        artifact["uriBaseId"] = "%SRCROOT%"
    physical: dict[str, Any] = {"artifactLocation": artifact}
    if d.line is not None:
        region: dict[str, Any] = {"startLine": d.line}
        if d.column is not None:
            region["startColumn"] = d.column
        physical["region"] = region
    text = d.message + (f" (hint: {d.hint})" if d.hint else "")
    out: dict[str, Any] = {
        "ruleId": d.rule,
        "level": _SARIF_LEVEL[d.severity],
        "message": {"text": text},
        "locations": [{"physicalLocation": physical}],
    }
    if d.rule in index:
        out["ruleIndex"] = index[d.rule]
    return out


def render(report: ValidationReport, fmt: str, *, color: bool = False) -> str:
    if fmt == "json":
        return render_json(report)
    if fmt == "sarif":
        return render_sarif(report)
    return render_text(report, color=color)
