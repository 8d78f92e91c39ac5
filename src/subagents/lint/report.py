"""Render a :class:`~subagents.lint.validate.ValidationReport` as text, JSON or SARIF 2.1.0.

Design notes
------------
* Text is linter-style, one finding per line: ``path:line:col: CODE severity: message``; with
  ``source=True`` (the CLI's default) the file's line follows with a caret under the column,
  as ruff and rustc show it (a long line is shown as a window around the column); then the
  hint on an indented line, then one summary line.  Colour (ANSI, no ``rich``: validate must
  stay light) only when asked, which the CLI does only on a TTY and without ``NO_COLOR``.
* ``github`` is GitHub Actions' workflow-command syntax, one line per finding:
  ``::error file=PATH,line=L,col=C,title=CODE::MESSAGE`` (``warning``/``notice`` for the
  other severities).  As GitHub's toolkit does (``@actions/core`` ``issueCommand``): in the
  message ``%``, ``\r`` and ``\n`` become ``%25``, ``%0D`` and ``%0A``; in property values
  ``:`` and ``,`` also become ``%3A`` and ``%2C``.  The hint follows the message on its own
  (escaped) line.
* ``--statistics`` counts findings by rule (most frequent first): a table in text, a list of
  ``{"rule", "name", "severity", "count"}`` under ``statistics`` in JSON.
* JSON is exactly the DESIGN.md contract: ``{"summary": {...}, "diagnostics": [...]}``.
* SARIF 2.1.0 for code-scanning uploads: every rule of the catalogue in ``tool.driver.rules``
  (id, name, short description, default level), results with ``ruleIndex``,
  ``physicalLocation.artifactLocation.uri`` *relative* (forward slashes, ``%SRCROOT%`` base) and
  ``region.startLine/startColumn`` when known.  Info maps to ``note``.
"""

from __future__ import annotations

import os
from pathlib import Path

from subagents.diagnostics import Diagnostic, Severity
from subagents.fs import read_regular
from subagents.lint.rules.catalog import RULES, Profile

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from subagents.lint.validate import ValidationReport

__all__ = [
    "FORMATS",
    "github_escape_data",
    "github_escape_property",
    "render",
    "render_github",
    "render_json",
    "render_sarif",
    "render_statistics",
    "render_text",
    "statistics",
]

FORMATS = ("text", "json", "sarif", "github")

_COLOURS = {Severity.ERROR: "\x1b[31m", Severity.WARNING: "\x1b[33m", Severity.INFO: "\x1b[36m"}
_BOLD, _DIM, _RESET = "\x1b[1m", "\x1b[2m", "\x1b[0m"
_SARIF_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
_SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


_SNIPPET_WIDTH = 100  # characters of a source line shown around the column


class _Sources:
    """The lines of the files findings point at, read once each (never fatal)."""

    def __init__(self) -> None:
        self._lines: dict[str, list[str] | None] = {}

    def line(self, path: str, number: int) -> str | None:
        if path not in self._lines:
            self._lines[path] = _read_lines(os.path.expanduser(path))
        lines = self._lines[path]
        if lines is None or not 1 <= number <= len(lines):
            return None
        return lines[number - 1]


def _read_lines(path: str) -> list[str] | None:
    """A regular file's lines; never blocks (a FIFO named *.md) and never raises."""
    try:
        data = read_regular(path, 4_000_000)
    except (OSError, ValueError):
        return None
    # numbered as the readers number them: only "\n" (with "\r\n" and a lone "\r") ends a
    # line; `str.splitlines` would also split at a form feed, a vertical tab or U+2028 and
    # show the wrong line under a finding
    text = data.decode("utf-8-sig", errors="replace")
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def _snippet(text: str, line: int, column: int | None, *, color: bool) -> list[str]:
    """``  7 | tools: Read, Serach`` and a caret line under ``column`` (1-based characters)."""
    col = max(1, column or 1)
    text = text.rstrip("\n")
    prefix = ""
    if len(text) > _SNIPPET_WIDTH:  # a window around the column, marked with ellipses
        start = max(0, min(col - 1 - _SNIPPET_WIDTH // 2, len(text) - _SNIPPET_WIDTH))
        end = start + _SNIPPET_WIDTH
        shown = text[start:end]
        col -= start
        prefix = "…" if start else ""
        text = prefix + shown + ("…" if end < len(text) else "")
    number = str(line)
    gutter = " " * len(number)
    # keep tabs under tabs so the caret lines up in a terminal
    under = "".join(c if c == "\t" else " " for c in text[: len(prefix) + col - 1])
    caret = "^" if column is not None else ""
    if color and caret:
        caret = f"{_COLOURS[Severity.ERROR]}{caret}{_RESET}"
    bar = f"{_DIM}|{_RESET}" if color else "|"
    return [f"  {number} {bar} {text}", f"  {gutter} {bar} {under}{caret}".rstrip()]


def render_text(
    report: ValidationReport, *, color: bool = False, source: bool = False,
    summary: bool = True,
) -> str:
    """Linter-style text; ``source`` adds the file's line with a caret under the column."""
    lines: list[str] = []
    files = _Sources() if source else None
    for d in report.diagnostics:
        if not color:
            head, _, hint = d.format_text().partition("\n")
            lines.append(head)
        else:
            where = d.path + (f":{d.line}" if d.line is not None else "") + (
                f":{d.column}" if d.line is not None and d.column is not None else "")
            sev = f"{_COLOURS[d.severity]}{d.severity}{_RESET}"
            lines.append(f"{_BOLD}{where}{_RESET}: {d.rule} {sev}: {d.message}")
            hint = f"    {_DIM}hint: {d.hint}{_RESET}" if d.hint else ""
        if files is not None and d.line is not None:
            text = files.line(d.path, d.line)
            if text is not None:
                lines.extend(_snippet(text, d.line, d.column, color=color))
        if hint:
            lines.append(hint)
    if summary:
        lines.append(_summary(report, color=color))
    return "\n".join(lines) + ("\n" if lines else "")


def _summary(report: ValidationReport, *, color: bool) -> str:
    s = report.summary()
    text = (
        f"{_plural(s['files'], 'file')}, {_plural(s['agents'], 'agent')}: "
        f"{_plural(s['errors'], 'error')}, {_plural(s['warnings'], 'warning')}"
    )
    if report.infos:
        text += f", {report.infos} info"
    if report.strict:
        text += " (strict)"
    return f"{_BOLD}{text}{_RESET}" if color else text


def statistics(report: ValidationReport) -> list[dict[str, Any]]:
    """Findings counted by rule, most frequent first (then by code)."""
    counts: dict[tuple[str, Severity], int] = {}
    for d in report.diagnostics:
        counts[(d.rule, d.severity)] = counts.get((d.rule, d.severity), 0) + 1
    ordered = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0][0], kv[0][1].rank))
    rows: list[dict[str, Any]] = [
        {
            "rule": code,
            "name": RULES[code].name if code in RULES else None,
            "severity": str(sev),
            "count": n,
        }
        for (code, sev), n in ordered
    ]
    return rows


def render_statistics(report: ValidationReport, fmt: str = "text") -> str:
    """``--statistics``: the counts by rule instead of the findings."""
    rows = statistics(report)
    if fmt == "json":
        import json

        doc = {"summary": report.summary(), "statistics": rows}
        return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    width = max((len(str(r["count"])) for r in rows), default=1)
    out = [
        f"{r['count']:>{width}}  {r['rule']}  {r['severity']:<7}  {r['name'] or ''}".rstrip()
        for r in rows
    ]
    out.append(_summary(report, color=False))
    return "\n".join(out) + "\n"


_GITHUB_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def github_escape_data(text: str) -> str:
    """Escape a workflow command's message (``@actions/core`` ``escapeData``)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def github_escape_property(text: str) -> str:
    """Escape a workflow command's property value (``@actions/core`` ``escapeProperty``)."""
    return github_escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(report: ValidationReport) -> str:
    """GitHub Actions annotations, one workflow command per finding."""
    lines: list[str] = []
    for d in report.diagnostics:
        props = [f"file={github_escape_property(Path(d.path).as_posix())}"]
        if d.line is not None:
            props.append(f"line={d.line}")
            if d.column is not None:
                props.append(f"col={d.column}")
        props.append(f"title={github_escape_property(d.rule)}")
        message = d.message + (f"\nhint: {d.hint}" if d.hint else "")
        lines.append(f"::{_GITHUB_LEVEL[d.severity]} {','.join(props)}::"
                     f"{github_escape_data(message)}")
    return "".join(line + "\n" for line in lines)


def render_json(report: ValidationReport) -> str:
    import json  # text output (the common case) does not need it

    return json.dumps(report.to_dict(), indent=2, ensure_ascii=False) + "\n"


def _uri(path: str) -> str:
    from urllib.parse import quote

    p = Path(os.path.expanduser(path))
    if p.is_absolute():
        try:
            rel = os.path.relpath(p)
            if not rel.startswith(".."):
                p = Path(rel)
        except ValueError:
            pass
    # A file name that is not UTF-8 arrives with surrogate escapes: quote its bytes as they are
    if p.is_absolute():
        return "file://" + quote(os.fsencode(p.as_posix()))
    return quote(os.fsencode(p.as_posix()))


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


def render(
    report: ValidationReport, fmt: str, *, color: bool = False, source: bool = False,
    summary: bool = True,
) -> str:
    if fmt == "json":
        return render_json(report)
    if fmt == "sarif":
        return render_sarif(report)
    if fmt == "github":
        return render_github(report)
    return render_text(report, color=color, source=source, summary=summary)
